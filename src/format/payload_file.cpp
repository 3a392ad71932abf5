// Reader, writer and graph check of `nnplan.payloads.v1` payload files.
//
// The decoder reads a span of the whole file: read_payload_file maps the file and each tensor
// views its bytes in the mapping (no copy of the weights at all); parse_payloads copies them out
// of the caller's span. Every offset and length from the file is checked
// against the file's size, with overflow-checked arithmetic, before anything is read or
// allocated; the largest allocation is bounded by the file's size.
#include "nnplan/format/payload_file.hpp"

#include "nnplan/exception_boundary.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <utility>

#include "bounded_file.hpp"
#include "json_document.hpp"
#include "message_text.hpp"
#include "nnplan/format/output_file.hpp"
#include "nnplan/ir/payload_shapes.hpp"
#include "nnplan/number_text.hpp"

namespace nnplan::format {
namespace {

using ir::Dim;
using ir::Node;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;
using Json = nlohmann::ordered_json;

static_assert(std::endian::native == std::endian::little,
              "payload data is little-endian; tensors view it in place");

using detail::escape_controls;
using detail::shown;

std::optional<std::uint64_t> mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}
std::optional<std::uint64_t> add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

std::uint64_t align_up(std::uint64_t value) {
  return (value + kPayloadAlignment - 1) / kPayloadAlignment * kPayloadAlignment;
}

// The element count of `shape`, or nullopt when it overflows 64 bits. The shape helpers of
// ir/shape.hpp would do; this file keeps the check next to the byte arithmetic it guards.
std::optional<std::uint64_t> elements_of(const Shape& shape) {
  std::uint64_t count = 1;
  for (const Dim d : shape.dims) {
    const auto next = mul(count, d);
    if (!next) return std::nullopt;
    count = *next;
  }
  return count;
}

std::string key_text(const ir::WeightKey& key) {
  return "node " + std::to_string(key.node_id) + " '" + shown(key.name) + "'";
}

std::uint64_t load_u64_le(const std::byte* bytes) {
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | std::to_integer<std::uint64_t>(bytes[i]);
  return value;
}

// ---------------------------------------------------------------------------------------------
// The index.

struct IndexEntry {
  ir::WeightKey key;
  Shape shape;
  ir::DType dtype = ir::DType::float32;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  std::uint64_t elements = 0;
};

struct Index {
  std::uint64_t data_bytes = 0;
  std::vector<IndexEntry> entries;
  std::map<ir::WeightKey, double> attributes;
};

std::string found(const Json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  return shown(value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

// Reads the index document; `where` names the object being read in messages.
class IndexReader {
 public:
  explicit IndexReader(std::string_view source) : source_(source) {}

  Expected<Index> read(const Json& root);

 private:
  Error fail(std::string_view where, std::string_view field, std::string_view problem) const {
    std::string message = "index: ";
    if (!where.empty()) {
      message += where;
      message += ": ";
    }
    if (!field.empty()) {
      message += "field ";
      message += field;
      message += ": ";
    }
    message += problem;
    return invalid_input_in(source_, std::move(message));
  }

  Expected<void> only_fields(const Json& object, std::span<const std::string_view> allowed,
                             std::string_view where) const {
    for (const auto& item : object.items()) {
      if (std::find(allowed.begin(), allowed.end(), item.key()) != allowed.end()) continue;
      std::string valid;
      for (const std::string_view name : allowed) {
        if (!valid.empty()) valid += ", ";
        valid += name;
      }
      return std::unexpected(fail(where, shown(item.key()), "unknown field; valid: " + valid));
    }
    for (const std::string_view name : allowed) {
      if (!object.contains(name)) {
        return std::unexpected(fail(where, name, "required field is missing"));
      }
    }
    return {};
  }

  Expected<std::uint64_t> uint(const Json& value, std::string_view where, std::string_view field,
                               std::uint64_t max) const {
    if (value.is_number_unsigned()) {
      const auto v = value.get<std::uint64_t>();
      if (v <= max) return v;
      return std::unexpected(
          fail(where, field,
               std::to_string(v) + " is out of range; the maximum is " + std::to_string(max)));
    }
    if (value.is_number_integer() && value.get<std::int64_t>() == 0) return 0;
    return std::unexpected(
        fail(where, field, "expected a non-negative integer, found " + found(value)));
  }

  Expected<std::string> name(const Json& value, std::string_view where) const {
    if (value.is_string() && !value.get_ref<const std::string&>().empty()) {
      return value.get<std::string>();
    }
    return std::unexpected(
        fail(where, "name", "expected a non-empty string, found " + found(value)));
  }

  std::string_view source_;
};

constexpr std::array<std::string_view, 4> kIndexFields = {"format", "data_bytes", "entries",
                                                          "attributes"};
constexpr std::array<std::string_view, 6> kEntryFields = {"node_id", "name",   "dtype",
                                                          "shape",   "offset", "bytes"};
constexpr std::array<std::string_view, 3> kAttributeFields = {"node_id", "name", "value"};

Expected<Index> IndexReader::read(const Json& root) {
  if (!root.is_object()) {
    return std::unexpected(fail("", "", "expected a JSON object, found " + found(root)));
  }
  if (auto ok = only_fields(root, kIndexFields, ""); !ok) return std::unexpected(ok.error());
  const Json& format = root["format"];
  if (!format.is_string() || format.get_ref<const std::string&>() != kPayloadsFormat) {
    return std::unexpected(fail(
        "", "format", "expected \"" + std::string(kPayloadsFormat) + "\", found " + found(format)));
  }
  Index index;
  auto data_bytes = uint(root["data_bytes"], "", "data_bytes", ~std::uint64_t{0});
  if (!data_bytes) return std::unexpected(data_bytes.error());
  index.data_bytes = *data_bytes;

  const Json& entries = root["entries"];
  if (!entries.is_array()) {
    return std::unexpected(fail("", "entries", "expected an array, found " + found(entries)));
  }
  index.entries.reserve(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Json& e = entries[i];
    std::string where = "entry " + std::to_string(i);
    if (!e.is_object()) {
      return std::unexpected(fail(where, "", "expected an object, found " + found(e)));
    }
    // Name the entry by its node and name as soon as they are known.
    if (e.contains("node_id") && e["node_id"].is_number_unsigned() && e.contains("name") &&
        e["name"].is_string()) {
      where += " (node " + std::to_string(e["node_id"].get<std::uint64_t>()) + " '" +
               shown(e["name"].get_ref<const std::string&>()) + "')";
    }
    if (auto ok = only_fields(e, kEntryFields, where); !ok) return std::unexpected(ok.error());
    IndexEntry entry;
    auto node = uint(e["node_id"], where, "node_id", 0xFFFFFFFFu);
    if (!node) return std::unexpected(node.error());
    auto entry_name = name(e["name"], where);
    if (!entry_name) return std::unexpected(entry_name.error());
    entry.key =
        ir::WeightKey{.node_id = static_cast<NodeId>(*node), .name = std::move(*entry_name)};
    const Json& dtype = e["dtype"];
    if (dtype.is_string() && dtype.get_ref<const std::string&>() == "int64") {
      entry.dtype = ir::DType::int64;
    } else if (!dtype.is_string() || dtype.get_ref<const std::string&>() != "float32") {
      return std::unexpected(
          fail(where, "dtype", "expected \"float32\" or \"int64\", found " + found(dtype)));
    }
    const Json& shape = e["shape"];
    if (!shape.is_array()) {
      return std::unexpected(fail(where, "shape", "expected an array, found " + found(shape)));
    }
    for (std::size_t d = 0; d < shape.size(); ++d) {
      auto dim = uint(shape[d], where, "shape[" + std::to_string(d) + "]", ~std::uint64_t{0});
      if (!dim) return std::unexpected(dim.error());
      entry.shape.dims.push_back(*dim);
    }
    auto offset = uint(e["offset"], where, "offset", ~std::uint64_t{0});
    if (!offset) return std::unexpected(offset.error());
    auto bytes = uint(e["bytes"], where, "bytes", ~std::uint64_t{0});
    if (!bytes) return std::unexpected(bytes.error());
    entry.offset = *offset;
    entry.bytes = *bytes;

    const auto elements = elements_of(entry.shape);
    const auto expected_bytes = elements ? mul(*elements, ir::size_of(entry.dtype)) : std::nullopt;
    if (!expected_bytes) {
      return std::unexpected(
          fail(where, "shape",
               "the element count of " + ir::to_string(entry.shape) + " overflows 64 bits"));
    }
    if (*expected_bytes != entry.bytes) {
      return std::unexpected(fail(where, "bytes",
                                  std::to_string(entry.bytes) + " does not match shape " +
                                      ir::to_string(entry.shape) + " of " +
                                      std::string(ir::to_string(entry.dtype)) + " (" +
                                      std::to_string(*expected_bytes) + " bytes)"));
    }
    entry.elements = *elements;
    if (entry.offset % kPayloadAlignment != 0) {
      return std::unexpected(fail(where, "offset",
                                  std::to_string(entry.offset) + " is not a multiple of " +
                                      std::to_string(kPayloadAlignment)));
    }
    const auto end = add(entry.offset, entry.bytes);
    if (!end || *end > index.data_bytes) {
      return std::unexpected(fail(where, "offset",
                                  "the entry's " + std::to_string(entry.bytes) +
                                      " bytes at offset " + std::to_string(entry.offset) +
                                      " end past the data section of " +
                                      std::to_string(index.data_bytes) + " bytes"));
    }
    index.entries.push_back(std::move(entry));
  }

  const Json& attributes = root["attributes"];
  if (!attributes.is_array()) {
    return std::unexpected(fail("", "attributes", "expected an array, found " + found(attributes)));
  }
  for (std::size_t i = 0; i < attributes.size(); ++i) {
    const Json& a = attributes[i];
    const std::string where = "attribute " + std::to_string(i);
    if (!a.is_object()) {
      return std::unexpected(fail(where, "", "expected an object, found " + found(a)));
    }
    if (auto ok = only_fields(a, kAttributeFields, where); !ok) return std::unexpected(ok.error());
    auto node = uint(a["node_id"], where, "node_id", 0xFFFFFFFFu);
    if (!node) return std::unexpected(node.error());
    auto attribute_name = name(a["name"], where);
    if (!attribute_name) return std::unexpected(attribute_name.error());
    const Json& value = a["value"];
    // JSON numbers are finite; nlohmann refuses the ones past double range.
    if (!value.is_number()) {
      return std::unexpected(fail(where, "value", "expected a number, found " + found(value)));
    }
    ir::WeightKey key{.node_id = static_cast<NodeId>(*node), .name = std::move(*attribute_name)};
    const std::string label = key_text(key);
    if (!index.attributes.emplace(std::move(key), value.get<double>()).second) {
      return std::unexpected(fail(where, "", "repeated attribute " + label));
    }
  }

  // Keys are unique and data ranges do not overlap.
  std::vector<std::size_t> order(index.entries.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&index](std::size_t a, std::size_t b) {
    return index.entries[a].key < index.entries[b].key;
  });
  for (std::size_t i = 1; i < order.size(); ++i) {
    if (index.entries[order[i]].key == index.entries[order[i - 1]].key) {
      const std::size_t later = std::max(order[i], order[i - 1]);
      return std::unexpected(fail("entry " + std::to_string(later), "",
                                  "repeated payload " + key_text(index.entries[later].key)));
    }
  }
  std::sort(order.begin(), order.end(), [&index](std::size_t a, std::size_t b) {
    const IndexEntry& x = index.entries[a];
    const IndexEntry& y = index.entries[b];
    return x.offset != y.offset ? x.offset < y.offset : a < b;
  });
  // Empty tensors occupy no bytes and overlap nothing.
  const IndexEntry* reach = nullptr;  // the entry whose data ends last so far
  for (const std::size_t i : order) {
    const IndexEntry& cur = index.entries[i];
    if (cur.bytes == 0) continue;
    // Entries lie inside the data section, so these sums cannot overflow.
    if (reach != nullptr && cur.offset < reach->offset + reach->bytes) {
      return std::unexpected(
          fail("entry " + std::to_string(i), "",
               "data of " + key_text(cur.key) + " overlaps data of " + key_text(reach->key)));
    }
    if (reach == nullptr || cur.offset + cur.bytes > reach->offset + reach->bytes) reach = &cur;
  }
  return index;
}

// The bytes in [begin, end) must be zero: the layout leaves them unused (the padding after the
// index, gaps between tensors), the writer never puts anything there, and anything found is
// corruption or hidden content. `what` names the region in the message.
Expected<void> check_unused_bytes(std::span<const std::byte> file, std::uint64_t begin,
                                  std::uint64_t end, std::string_view source,
                                  std::string_view what) {
  const auto unused = file.subspan(begin, end - begin);
  const auto found = std::ranges::find_if(unused, [](std::byte b) { return b != std::byte{0}; });
  if (found == unused.end()) return {};
  const auto value = std::to_integer<unsigned>(*found);
  constexpr std::string_view kDigits = "0123456789abcdef";
  const std::string hex = {kDigits[value >> 4], kDigits[value & 0xF]};
  return std::unexpected(
      invalid_input_in(source, "byte " + std::to_string(begin + (found - unused.begin())) + " (" +
                                   std::string(what) + ") is 0x" + hex +
                                   "; bytes the layout leaves unused must be zero"));
}

// The gaps between the tensors of the data section, which starts at `data_start`.
Expected<void> check_data_gaps(std::span<const std::byte> file, const Index& index,
                               std::uint64_t data_start, std::string_view source) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // [offset, offset + bytes)
  ranges.reserve(index.entries.size());
  for (const IndexEntry& e : index.entries) {
    if (e.bytes != 0) ranges.emplace_back(e.offset, e.offset + e.bytes);
  }
  std::sort(ranges.begin(), ranges.end());
  std::uint64_t covered = 0;  // the data section is used up to here; ranges do not overlap
  for (const auto& [begin, end] : ranges) {
    auto gap = check_unused_bytes(file, data_start + covered, data_start + begin, source,
                                  "a gap between tensors in the data section");
    if (!gap) return gap;
    covered = end;
  }
  return check_unused_bytes(file, data_start + covered, data_start + index.data_bytes, source,
                            "the data section after its last tensor");
}

// Decodes the payload file `file`. With an `owner` (the mapping `file` lies in), every tensor is
// a view into it; without one each tensor's bytes are copied.
Expected<ir::WeightStore> decode(std::span<const std::byte> file, std::string_view source,
                                 const std::shared_ptr<const ir::WeightBytes>& owner) {
  const std::uint64_t size = file.size();
  const std::size_t head =
      static_cast<std::size_t>(std::min<std::uint64_t>(size, kPayloadHeaderBytes));
  const std::span<const std::byte> header = file.first(head);
  const std::size_t magic_bytes = std::min<std::size_t>(head, kPayloadMagic.size());
  if (size == 0 || !std::equal(header.begin(), header.begin() + magic_bytes, kPayloadMagic.begin(),
                               [](std::byte b, unsigned char m) {
                                 return std::to_integer<unsigned char>(b) == m;
                               })) {
    return std::unexpected(
        invalid_input_in(source,
                         "not an nnplan payload file: the first 8 bytes are not the magic "
                         "89 4e 4e 50 41 59 0d 0a (\\x89NNPAY\\r\\n)"));
  }
  if (size < kPayloadHeaderBytes) {
    return std::unexpected(invalid_input_in(
        source,
        "truncated: the file is " + std::to_string(size) + " bytes; the header alone is 16"));
  }
  const std::uint64_t index_bytes = load_u64_le(header.data() + 8);
  if (index_bytes > kMaxPayloadIndexBytes) {
    return std::unexpected(invalid_input_in(
        source, "index length " + std::to_string(index_bytes) + " exceeds the limit of " +
                    std::to_string(kMaxPayloadIndexBytes) + " bytes"));
  }
  if (index_bytes > size - kPayloadHeaderBytes) {
    return std::unexpected(invalid_input_in(
        source, "truncated: the index of " + std::to_string(index_bytes) +
                    " bytes ends past the end of the file (" + std::to_string(size) + " bytes)"));
  }
  const std::string_view text(reinterpret_cast<const char*>(file.data()) + kPayloadHeaderBytes,
                              static_cast<std::size_t>(index_bytes));
  // The index goes through the shared strict reader: repeated keys, NUL bytes, trailing
  // content, nesting, string and element limits.
  // An unknown top-level field is refused by name; it is never built, however large.
  static constexpr std::array<std::string_view, 4> kRootMembers = {"format", "data_bytes",
                                                                   "entries", "attributes"};
  auto root =
      detail::parse_json_document(text, kMaxJsonElements, {.shallow = {}, .known = kRootMembers});
  if (!root) return std::unexpected(invalid_input_in(source, "index: " + root.error().problem));
  auto index = IndexReader(source).read(*root);
  if (!index) return std::unexpected(std::move(index.error()));

  const std::uint64_t data_start = align_up(kPayloadHeaderBytes + index_bytes);
  const auto file_end = add(data_start, index->data_bytes);
  if (!file_end || *file_end > size) {
    return std::unexpected(invalid_input_in(
        source, "truncated: the file is " + std::to_string(size) + " bytes; its index places " +
                    std::to_string(index->data_bytes) + " bytes of data at byte " +
                    std::to_string(data_start)));
  }
  if (*file_end < size) {
    return std::unexpected(
        invalid_input_in(source, std::to_string(size - *file_end) +
                                     " bytes past the end of the data section (byte " +
                                     std::to_string(*file_end) + ")"));
  }

  auto padding = check_unused_bytes(file, kPayloadHeaderBytes + index_bytes, data_start, source,
                                    "the padding after the index");
  if (!padding) return std::unexpected(std::move(padding.error()));
  auto gaps = check_data_gaps(file, *index, data_start, source);
  if (!gaps) return std::unexpected(std::move(gaps.error()));

  ir::WeightStore store;
  store.attributes = std::move(index->attributes);
  for (IndexEntry& entry : index->entries) {
    // Bounded by the file's size: entry.bytes lies inside the data section.
    const std::byte* at = file.data() + data_start + entry.offset;
    store.tensors.emplace(std::move(entry.key),
                          ir::WeightTensor::view(std::move(entry.shape), entry.dtype, at,
                                                 static_cast<std::size_t>(entry.elements), owner));
  }
  return store;
}

// ---------------------------------------------------------------------------------------------
// Writing.

void append_uint(std::string& out, std::uint64_t value) {
  std::array<char, 24> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), result.ptr);
}

std::string json_string(const std::string& text) {
  return Json(text).dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::span<const PayloadSlot> payload_slots(ir::OpKind kind) {
  return ir::op_traits(kind).payloads;
}

Expected<ir::WeightStore> parse_payloads(std::span<const std::byte> bytes,
                                         std::string_view source) {
  try {
    return decode(bytes, source, nullptr);
  } catch (const std::exception& e) {
    return std::unexpected(
        error_from_exception("reading payloads " + escape_controls(std::string(source)), e));
  }
}

Expected<ir::WeightStore> read_payload_file(const std::filesystem::path& path) {
  // A regular file only: every offset in the file is checked against its size, which is its own
  // limit (a pipe has no size to bound it). open_bounded_file refuses anything else by kind.
  auto file =
      detail::open_bounded_file(path, "payload file", std::numeric_limits<std::uintmax_t>::max(),
                                detail::FileKinds::regular_only);
  if (!file) return std::unexpected(std::move(file.error()));
  auto mapped = detail::read_bounded_file(path, "payload file", file->size.value_or(0));
  if (!mapped) return std::unexpected(std::move(mapped.error()));
  const std::string source = path.string();
  try {
    auto owner = std::make_shared<const detail::FileBytes>(std::move(*mapped));
    const std::string_view text = owner->text();
    return decode(std::as_bytes(std::span(text.data(), text.size())), source, owner);
  } catch (const std::exception& e) {
    return std::unexpected(error_from_exception("reading payloads " + escape_controls(source), e));
  }
}

Expected<std::vector<std::byte>> write_payloads(const ir::WeightStore& store) {
  try {
    // Lay out the data section first: the index states its size.
    struct Placed {
      const ir::WeightKey* key;
      const ir::WeightTensor* tensor;
      std::uint64_t offset;
      std::uint64_t bytes;
    };
    std::vector<Placed> placed;
    placed.reserve(store.tensors.size());
    std::uint64_t data_bytes = 0;
    for (const auto& [key, tensor] : store.tensors) {
      if (key.name.empty()) {
        return std::unexpected(
            make_error(ErrorKind::invalid_input,
                       "payload of node " + std::to_string(key.node_id) + " has an empty name"));
      }
      if (tensor.dtype() == ir::DType::boolean) {
        return std::unexpected(make_error(
            ErrorKind::invalid_input,
            "payload " + key_text(key) + ": dtype bool; payload files hold float32 and int64"));
      }
      const auto elements = elements_of(tensor.shape());
      if (!elements || *elements != tensor.size()) {
        return std::unexpected(
            make_error(ErrorKind::invalid_input,
                       "payload " + key_text(key) + ": " + std::to_string(tensor.size()) + " " +
                           std::string(ir::to_string(tensor.dtype())) +
                           " values do not fill shape " + ir::to_string(tensor.shape())));
      }
      const std::uint64_t offset = align_up(data_bytes);
      const std::uint64_t bytes = *elements * ir::size_of(tensor.dtype());
      placed.push_back(Placed{.key = &key, .tensor = &tensor, .offset = offset, .bytes = bytes});
      data_bytes = offset + bytes;
    }

    std::string index = "{\n  \"format\": \"";
    index += kPayloadsFormat;
    index += "\",\n  \"data_bytes\": ";
    append_uint(index, data_bytes);
    index += ",\n  \"entries\": [";
    for (std::size_t i = 0; i < placed.size(); ++i) {
      const Placed& p = placed[i];
      index += i == 0 ? "\n    {\"node_id\": " : ",\n    {\"node_id\": ";
      append_uint(index, p.key->node_id);
      index += ", \"name\": ";
      index += json_string(p.key->name);
      index += ", \"dtype\": \"";
      index += ir::to_string(p.tensor->dtype());
      index += "\", \"shape\": [";
      for (std::size_t d = 0; d < p.tensor->shape().dims.size(); ++d) {
        if (d != 0) index += ", ";
        append_uint(index, p.tensor->shape().dims[d]);
      }
      index += "], \"offset\": ";
      append_uint(index, p.offset);
      index += ", \"bytes\": ";
      append_uint(index, p.bytes);
      index += '}';
    }
    index += placed.empty() ? "],\n  \"attributes\": [" : "\n  ],\n  \"attributes\": [";
    std::size_t i = 0;
    for (const auto& [key, value] : store.attributes) {
      if (key.name.empty()) {
        return std::unexpected(
            make_error(ErrorKind::invalid_input,
                       "attribute of node " + std::to_string(key.node_id) + " has an empty name"));
      }
      if (!std::isfinite(value)) {
        return std::unexpected(
            make_error(ErrorKind::invalid_input, "attribute " + key_text(key) + " is not finite"));
      }
      index += i++ == 0 ? "\n    {\"node_id\": " : ",\n    {\"node_id\": ";
      append_uint(index, key.node_id);
      index += ", \"name\": ";
      index += json_string(key.name);
      index += ", \"value\": ";
      index += number_text(value);
      index += '}';
    }
    index += store.attributes.empty() ? "]\n}\n" : "\n  ]\n}\n";

    const std::uint64_t data_start = align_up(kPayloadHeaderBytes + index.size());
    std::vector<std::byte> out(static_cast<std::size_t>(data_start + data_bytes), std::byte{0});
    std::memcpy(out.data(), kPayloadMagic.data(), kPayloadMagic.size());
    std::uint64_t length = index.size();
    for (std::size_t b = 0; b < 8; ++b) {
      out[8 + b] = static_cast<std::byte>(length & 0xFF);
      length >>= 8;
    }
    std::memcpy(out.data() + kPayloadHeaderBytes, index.data(), index.size());
    for (const Placed& p : placed) {
      std::byte* at = out.data() + data_start + p.offset;
      if (p.bytes != 0) {
        // A strided view (a transposed MatMul weight) is written in row-major order.
        const ir::WeightTensor dense = p.tensor->contiguous();
        std::memcpy(at, dense.bytes().data(), static_cast<std::size_t>(p.bytes));
      }
    }
    return out;
  } catch (const std::exception& e) {
    return std::unexpected(error_from_exception("writing payloads", e));
  }
}

Expected<void> write_payload_file(const std::filesystem::path& path, const ir::WeightStore& store,
                                  std::span<const std::filesystem::path> inputs) {
  auto bytes = write_payloads(store);
  if (!bytes) return std::unexpected(std::move(bytes.error()));
  return write_file_atomically(
      path, std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), inputs);
}

}  // namespace nnplan::format
