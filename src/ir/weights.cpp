// Weight tensors, the weight store and its check against a graph.
#include "nnplan/ir/weights.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <unordered_map>

#include "nnplan/ir/op_table.hpp"
#include "nnplan/ir/payload_shapes.hpp"
#include "nnplan/number_text.hpp"
#include "nnplan/text_escape.hpp"

namespace nnplan::ir {
namespace {

// Bytes this process allocated for a weight (a transpose, a decoded text field, a test's values).
class OwnedBytes final : public WeightBytes {
 public:
  // Uninitialized: every user writes the whole buffer (a copy, or zeros' memset).
  explicit OwnedBytes(std::size_t n)
      : bytes_(std::make_unique_for_overwrite<std::byte[]>(n == 0 ? 1 : n)) {}
  [[nodiscard]] std::byte* data() const { return bytes_.get(); }

 private:
  // new[] aligns to __STDCPP_DEFAULT_NEW_ALIGNMENT__ (16 here), enough for every dtype.
  std::unique_ptr<std::byte[]> bytes_;
};

std::string slot_list(OpKind kind) {
  const auto slots = op_traits(kind).payloads;
  if (slots.empty()) return std::string(to_string(kind)) + " takes no payloads";
  std::string out = std::string(to_string(kind)) + " takes ";
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (i != 0) out += ", ";
    out += slots[i].attribute ? "attribute " : "tensor ";
    out += slots[i].name;
    if (!slots[i].required) out += " (optional)";
  }
  return out;
}

}  // namespace

WeightTensor WeightTensor::view(Shape shape, DType dtype, const std::byte* data, std::size_t count,
                                std::shared_ptr<const WeightBytes> owner) {
  WeightTensor t;
  t.shape_ = std::move(shape);
  t.dtype_ = dtype;
  t.count_ = count;
  const std::size_t width = size_of(dtype);
  if (owner != nullptr) {
    // Aligned or not: a misaligned view is read through contiguous() (see the class comment).
    t.data_ = data;
    t.owner_ = std::move(owner);
    return t;
  }
  auto copy = std::make_shared<OwnedBytes>(count * width);
  if (count != 0) std::memcpy(copy->data(), data, count * width);
  t.data_ = copy->data();
  t.owner_ = std::move(copy);
  return t;
}

WeightTensor WeightTensor::of_floats(Shape shape, std::span<const float> values) {
  return view(std::move(shape), DType::float32, reinterpret_cast<const std::byte*>(values.data()),
              values.size(), nullptr);
}

WeightTensor WeightTensor::of_ints(Shape shape, std::span<const std::int64_t> values) {
  return view(std::move(shape), DType::int64, reinterpret_cast<const std::byte*>(values.data()),
              values.size(), nullptr);
}

WeightTensor WeightTensor::of_bools(Shape shape, std::span<const std::uint8_t> values) {
  return view(std::move(shape), DType::boolean, reinterpret_cast<const std::byte*>(values.data()),
              values.size(), nullptr);
}

WeightTensor WeightTensor::zeros(Shape shape, DType dtype) {
  const std::size_t count = static_cast<std::size_t>(element_count(shape).value_or(0));
  auto bytes = std::make_shared<OwnedBytes>(count * size_of(dtype));
  std::memset(bytes->data(), 0, count * size_of(dtype));
  WeightTensor t;
  t.shape_ = std::move(shape);
  t.dtype_ = dtype;
  t.count_ = count;
  t.data_ = bytes->data();
  t.owner_ = std::move(bytes);
  return t;
}

std::vector<std::size_t> WeightTensor::strides() const {
  if (!strides_.empty()) return strides_;
  std::vector<std::size_t> row_major(shape_.dims.size());
  std::size_t step = 1;
  for (std::size_t k = row_major.size(); k-- > 0;) {
    row_major[k] = step;
    step *= static_cast<std::size_t>(shape_.dims[k]);
  }
  return row_major;
}

std::span<const std::byte> WeightTensor::storage() const {
  if (data_ == nullptr || count_ == 0) return {};
  if (strides_.empty()) return {data_, count_ * size_of(dtype_)};
  // The farthest element from the first, plus one.
  std::size_t last = 0;
  for (std::size_t k = 0; k < strides_.size(); ++k)
    last += (static_cast<std::size_t>(shape_.dims[k]) - 1) * strides_[k];
  return {data_, (last + 1) * size_of(dtype_)};
}

WeightTensor WeightTensor::transposed() const {
  if (shape_.dims.size() < 2) return *this;
  WeightTensor t = *this;
  std::ranges::reverse(t.shape_.dims);
  // A tensor whose size does not fill its shape has no strides to walk: it keeps its bytes as
  // they are, and check_weights reports the size.
  if (element_count(shape_) != std::optional<Dim>(static_cast<Dim>(count_))) return t;
  std::vector<std::size_t> strides = this->strides();
  std::ranges::reverse(strides);
  t.strides_.clear();
  // Dense when every axis longer than 1 steps as row-major order does (a unit axis is never
  // stepped along, so its stride does not matter).
  const std::vector<std::size_t> row_major = t.strides();
  for (std::size_t k = 0; k < strides.size(); ++k) {
    if (t.shape_.dims[k] > 1 && strides[k] != row_major[k]) {
      t.strides_ = std::move(strides);
      break;
    }
  }
  return t;
}

WeightTensor WeightTensor::contiguous() const {
  if (readable_in_place()) return *this;
  const std::size_t width = size_of(dtype_);
  auto copy = std::make_shared<OwnedBytes>(count_ * width);
  if (strides_.empty()) {
    // Row-major already, only misaligned: one copy of the block.
    std::memcpy(copy->data(), data_, count_ * width);
  } else {
    // Walk the elements in row-major order, carrying the source offset along with the index.
    const std::size_t rank = shape_.dims.size();
    std::vector<std::size_t> index(rank, 0);
    std::size_t from = 0;
    for (std::size_t i = 0; i < count_; ++i) {
      std::memcpy(copy->data() + i * width, data_ + from * width, width);
      for (std::size_t k = rank; k-- > 0;) {
        from += strides_[k];
        if (++index[k] < static_cast<std::size_t>(shape_.dims[k])) break;
        from -= index[k] * strides_[k];
        index[k] = 0;
      }
    }
  }
  const std::byte* bytes = copy->data();
  return view(shape_, dtype_, bytes, count_, std::move(copy));
}

WeightTensor WeightTensor::contiguous_releasing(std::size_t block) const {
  if (readable_in_place() || !strides_.empty() || owner_ == nullptr || block == 0) {
    return contiguous();
  }
  const std::size_t size = count_ * size_of(dtype_);
  auto copy = std::make_shared<OwnedBytes>(size);
  for (std::size_t at = 0; at < size; at += block) {
    const std::size_t n = std::min(block, size - at);
    std::memcpy(copy->data() + at, data_ + at, n);
    owner_->release({data_ + at, n});
  }
  const std::byte* bytes = copy->data();
  return view(shape_, dtype_, bytes, count_, std::move(copy));
}

void WeightTensor::release() const noexcept {
  if (owner_ != nullptr && count_ != 0) owner_->release(storage());
}

bool WeightTensor::views_into(std::span<const std::byte> range) const {
  const auto own = storage();
  return own.data() != nullptr && own.data() >= range.data() &&
         own.data() + own.size() <= range.data() + range.size();
}

bool WeightTensor::operator==(const WeightTensor& other) const {
  if (shape_ != other.shape_ || dtype_ != other.dtype_ || count_ != other.count_) return false;
  if (!readable_in_place() || !other.readable_in_place()) return contiguous() == other.contiguous();
  if (dtype_ == DType::float32) {
    const auto a = floats();
    const auto b = other.floats();
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  return count_ == 0 || std::memcmp(data_, other.data_, count_ * size_of(dtype_)) == 0;
}

std::optional<std::string> bool_bytes_problem(std::span<const std::byte> bytes) {
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto value = std::to_integer<unsigned>(bytes[i]);
    if (value > 1) {
      return "bool element " + std::to_string(i) + " is the byte " + std::to_string(value) +
             "; a bool element is the byte 0 or 1";
    }
  }
  return std::nullopt;
}

const WeightTensor* WeightStore::find_tensor(NodeId node, std::string_view name) const {
  const auto it = tensors.find(WeightKey{.node_id = node, .name = std::string(name)});
  return it == tensors.end() ? nullptr : &it->second;
}

std::optional<double> WeightStore::find_attribute(NodeId node, std::string_view name) const {
  const auto it = attributes.find(WeightKey{.node_id = node, .name = std::string(name)});
  if (it == attributes.end()) return std::nullopt;
  return it->second;
}

Expected<void> check_weights(const Graph& graph, const WeightStore& store,
                             std::string_view source) {
  // Ids equal indices in a checked graph; anything else is looked up through a map.
  std::unordered_map<NodeId, const Node*> by_id;
  bool ids_are_indices = true;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i)
    ids_are_indices = ids_are_indices && graph.nodes[i].id == i;
  if (!ids_are_indices) {
    for (const Node& n : graph.nodes)
      by_id.emplace(n.id, &n);
  }
  const auto find_node = [&](NodeId id) -> const Node* {
    if (ids_are_indices) return id < graph.nodes.size() ? &graph.nodes[id] : nullptr;
    const auto it = by_id.find(id);
    return it == by_id.end() ? nullptr : it->second;
  };
  const auto fail = [source](const Node& node, std::string problem) {
    return std::unexpected(invalid_input_in(source, describe(node) + ": " + std::move(problem)));
  };

  std::vector<const Shape*> parents;
  for (const Node& node : graph.nodes) {
    for (const PayloadSlot& slot : op_traits(node.kind).payloads) {
      if (slot.attribute) {
        const auto value = store.find_attribute(node.id, slot.name);
        if (!value) {
          if (slot.required) {
            return fail(node, "attribute " + std::string(slot.name) + " is missing");
          }
          continue;
        }
        if (!std::isfinite(*value) || *value < 0) {
          return fail(node, "attribute " + std::string(slot.name) + ": " + number_text(*value) +
                                " is not a finite non-negative number");
        }
        continue;
      }
      const WeightTensor* tensor = store.find_tensor(node.id, slot.name);
      if (given_as_value(slot, node.parents.size())) {
        if (tensor != nullptr) {
          return fail(node, "payload " + std::string(slot.name) + " is given, but parent " +
                                std::to_string(slot.value_parent) + " already is the " +
                                std::string(slot.name) + "; give one of the two");
        }
        continue;
      }
      if (tensor == nullptr) {
        if (slot.required) return fail(node, "payload " + std::string(slot.name) + " is missing");
        continue;
      }
      parents.clear();
      for (const NodeId id : node.parents) {
        const Node* parent = find_node(id);
        parents.push_back(parent == nullptr ? nullptr : &parent->shape);
      }
      auto want = payload_shape(node, slot.shape, parents);
      if (!want) return std::unexpected(invalid_input_in(source, want.error().message));
      if (tensor->shape() != *want) {
        return fail(node, "payload " + std::string(slot.name) + ": shape " +
                              to_string(tensor->shape()) + " does not match the expected " +
                              to_string(*want));
      }
      // A const's value has the const's own dtype.
      const DType want_dtype = slot.int64                                ? DType::int64
                               : slot.shape == PayloadShape::value_shape ? node.dtype
                                                                         : DType::float32;
      if (tensor->dtype() != want_dtype) {
        return fail(node, "payload " + std::string(slot.name) + ": dtype " +
                              std::string(to_string(tensor->dtype())) + ", expected " +
                              std::string(to_string(want_dtype)));
      }
      const auto elements = element_count(tensor->shape());
      if (!elements || *elements != tensor->size()) {
        return fail(node, "payload " + std::string(slot.name) + ": " +
                              std::to_string(tensor->size()) + " values do not fill shape " +
                              to_string(tensor->shape()));
      }
      if (slot.shape == PayloadShape::gather_indices) {
        // Indices name positions of the gathered axis: 0 <= i < its extent.
        const Node* parent = find_node(node.parents[0]);
        const auto axis = std::get<AxisParams>(node.params).axis;
        const Dim extent = parent->shape.dims[axis];
        const std::vector<std::int64_t> ints = tensor->to_vector<std::int64_t>();
        for (std::size_t i = 0; i < ints.size(); ++i) {
          const std::int64_t v = ints[i];
          if (v < 0 || static_cast<Dim>(v) >= extent) {
            return fail(node, "payload indices: entry " + std::to_string(i) + " is " +
                                  std::to_string(v) + ", outside axis " + std::to_string(axis) +
                                  " of extent " + std::to_string(extent));
          }
        }
      }
    }
  }

  // Every stored weight belongs to a node that takes it.
  const auto check_owner = [&](const WeightKey& key, bool attribute) -> Expected<void> {
    const Node* node = find_node(key.node_id);
    const std::string what = std::string(attribute ? "attribute " : "payload ") + shown(key.name);
    if (node == nullptr) {
      return std::unexpected(
          invalid_input_in(source, what + " names node " + std::to_string(key.node_id) +
                                       ", which does not exist (the graph has " +
                                       std::to_string(graph.nodes.size()) + " nodes)"));
    }
    for (const PayloadSlot& slot : op_traits(node->kind).payloads) {
      if (slot.name == key.name && slot.attribute == attribute) return {};
    }
    return fail(*node, what + " does not belong to this node; " + slot_list(node->kind));
  };
  for (const auto& [key, tensor] : store.tensors) {
    if (auto ok = check_owner(key, false); !ok) return ok;
  }
  for (const auto& [key, value] : store.attributes) {
    if (auto ok = check_owner(key, true); !ok) return ok;
  }
  return {};
}

}  // namespace nnplan::ir
