#include "tensor_decoding.hpp"

#include <bit>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <span>

#include "message_format.hpp"
#include "nnplan/format/limits.hpp"

namespace nnplan::format::onnx_import {
namespace {

static_assert(std::endian::native == std::endian::little,
              "ONNX raw_data is little-endian; the importer reads it in place");

using ir::Dim;

template <class T>
std::vector<T> raw_vector(std::string_view raw) {
  std::vector<T> out(raw.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), raw.data(), out.size() * sizeof(T));
  return out;
}

// The typed data field ONNX stores data type `t` in (onnx.checker's table), or nullptr for a type
// with none.
const char* typed_field_for(int t) {
  switch (t) {
    case onnx::TensorProto_DataType_FLOAT:
    case onnx::TensorProto_DataType_COMPLEX64:
      return "float_data";
    case onnx::TensorProto_DataType_DOUBLE:
    case onnx::TensorProto_DataType_COMPLEX128:
      return "double_data";
    case onnx::TensorProto_DataType_INT32:
    case onnx::TensorProto_DataType_UINT8:
    case onnx::TensorProto_DataType_INT8:
    case onnx::TensorProto_DataType_UINT16:
    case onnx::TensorProto_DataType_INT16:
    case onnx::TensorProto_DataType_BOOL:
    case onnx::TensorProto_DataType_FLOAT16:
    case onnx::TensorProto_DataType_BFLOAT16:
      return "int32_data";
    case onnx::TensorProto_DataType_INT64:
      return "int64_data";
    case onnx::TensorProto_DataType_UINT32:
    case onnx::TensorProto_DataType_UINT64:
      return "uint64_data";
    case onnx::TensorProto_DataType_STRING:
      return "string_data";
    default:
      return nullptr;
  }
}

}  // namespace

std::optional<std::string> data_field_problem(const onnx::TensorProto& t, const std::string& name,
                                              bool has_raw) {
  std::vector<const char*> fields;
  if (has_raw) fields.push_back("raw_data");
  if (t.float_data_size() > 0) fields.push_back("float_data");
  if (t.int32_data_size() > 0) fields.push_back("int32_data");
  if (t.string_data_size() > 0) fields.push_back("string_data");
  if (t.int64_data_size() > 0) fields.push_back("int64_data");
  if (t.double_data_size() > 0) fields.push_back("double_data");
  if (t.uint64_data_size() > 0) fields.push_back("uint64_data");
  if (fields.size() > 1) {
    return "tensor " + quoted_name(name) + " holds its data in both " + fields[0] + " and " +
           fields[1] + "; a tensor keeps its data in exactly one field: remove the other";
  }
  if (fields.size() == 1 && !has_raw) {
    const char* expected = typed_field_for(t.data_type());
    if (expected != nullptr && std::string_view(expected) != fields[0]) {
      return "tensor " + quoted_name(name) + " of " + dtype_name(t.data_type()) +
             " holds its data in " + fields[0] + "; " + dtype_name(t.data_type()) +
             " data belongs in " + expected + " or raw_data";
    }
  }
  return std::nullopt;
}

std::string dtype_name(int t) {
  switch (t) {
    case onnx::TensorProto_DataType_FLOAT:
      return "float32";
    case onnx::TensorProto_DataType_DOUBLE:
      return "float64";
    case onnx::TensorProto_DataType_FLOAT16:
      return "float16";
    default:
      break;
  }
  if (!onnx::TensorProto_DataType_IsValid(t)) return "unknown data type " + str(t);
  std::string name = onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t));
  for (char& c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

const std::vector<float>& floats_of(ConstTensor& c) {
  if (!c.raw_floats.empty()) {
    c.floats = raw_vector<float>(c.raw_floats);
    c.raw_floats = {};
  }
  return c.floats;
}

std::expected<ConstPtr, TensorProblem> decode_tensor(
    const onnx::TensorProto& t, std::string name, bool stable,
    std::optional<std::span<const std::byte>> split_raw) {
  const auto invalid = [](std::string reason) {
    return std::unexpected(TensorProblem{.kind = ErrorKind::invalid_input, .reason = reason});
  };
  const auto unsupported = [](std::string reason) {
    return std::unexpected(TensorProblem{.kind = ErrorKind::unsupported, .reason = reason});
  };
  auto c = std::make_shared<ConstTensor>();
  c->dtype = t.data_type();
  if (t.has_segment()) {
    return unsupported("tensor " + quoted_name(name) + " is segmented; segments are not supported");
  }
  if (static_cast<std::size_t>(t.dims_size()) > kMaxRank) {
    return invalid("tensor " + quoted_name(name) + " has rank " + str(t.dims_size()) +
                   "; the limit is " + str(kMaxRank));
  }
  Dim count = 1;
  for (const std::int64_t d : t.dims()) {
    if (d < 0) return invalid("tensor " + quoted_name(name) + " has negative dimension " + str(d));
    if (static_cast<Dim>(d) > kMaxDim) {
      return invalid("tensor " + quoted_name(name) + " has dimension " + str(d) +
                     "; the limit is " + str(kMaxDim) + " (2^48)");
    }
    c->dims.push_back(static_cast<Dim>(d));
    const auto next = ir::checked_mul(count, static_cast<Dim>(d));
    if (!next)
      return invalid("tensor " + quoted_name(name) + " has more elements than fit in 64 bits");
    count = *next;
  }
  // Bounds every byte count below (count * width cannot wrap). The data itself must then be
  // present in the model, so nothing is allocated for a size the tensor merely claims.
  if (count > kMaxTensorElements) {
    return invalid("tensor " + quoted_name(name) + " has " + str(count) +
                   " elements; the limit is " + str(kMaxTensorElements) + " (2^48) per tensor");
  }
  const bool has_raw = split_raw.has_value() || t.has_raw_data();
  if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL || t.external_data_size() > 0) {
    auto external = external_data_of(t, name);
    if (!external) return invalid(external.error());
    if (has_raw || t.float_data_size() > 0 || t.int32_data_size() > 0 ||
        t.string_data_size() > 0 || t.int64_data_size() > 0 || t.double_data_size() > 0 ||
        t.uint64_data_size() > 0) {
      return invalid("tensor " + quoted_name(name) +
                     " keeps its data in an external file and holds data in the model too; a "
                     "tensor keeps its data in exactly one place: remove one");
    }
    if (t.data_type() == onnx::TensorProto_DataType_FLOAT && external->length &&
        *external->length != count * 4) {
      return invalid("tensor " + quoted_name(name) + ": external data length " +
                     str(*external->length) + " bytes does not match dims " +
                     list_string(c->dims) + " of float32, which need " + str(count * 4) +
                     "; save the model and its data again");
    }
    c->external = std::move(*external);
    c->source = std::move(name);
    return c;
  }
  if (auto problem = data_field_problem(t, name, has_raw)) return invalid(*problem);
  const std::string_view raw =
      split_raw
          ? std::string_view(reinterpret_cast<const char*>(split_raw->data()), split_raw->size())
          : std::string_view(t.raw_data());
  // The problem with a data field holding `have` values (bytes when `width` > 1), if any.
  const auto miscount = [&](std::size_t have, std::string_view field,
                            std::size_t width) -> std::optional<std::string> {
    const Dim need = count * width;
    if (have == need) return std::nullopt;
    return "tensor " + quoted_name(name) + ": " + std::string(field) + " holds " + str(Dim{have}) +
           (width == 1 ? " values" : " bytes") + ", dims " + list_string(c->dims) + " of " +
           dtype_name(c->dtype) + " need " + str(need);
  };
  switch (t.data_type()) {
    case onnx::TensorProto_DataType_FLOAT:
      if (has_raw) {
        if (auto problem = miscount(raw.size(), "raw_data", 4)) return invalid(*problem);
        if (stable) {
          c->raw_floats = raw;
        } else {
          c->floats = raw_vector<float>(raw);
        }
      } else {
        const auto n = static_cast<std::size_t>(t.float_data_size());
        if (auto problem = miscount(n, "float_data", 1)) return invalid(*problem);
        c->floats.assign(t.float_data().begin(), t.float_data().end());
      }
      break;
    case onnx::TensorProto_DataType_INT64:
      if (has_raw) {
        if (auto problem = miscount(raw.size(), "raw_data", 8)) return invalid(*problem);
        c->ints = raw_vector<std::int64_t>(raw);
      } else {
        const auto n = static_cast<std::size_t>(t.int64_data_size());
        if (auto problem = miscount(n, "int64_data", 1)) return invalid(*problem);
        c->ints.assign(t.int64_data().begin(), t.int64_data().end());
      }
      break;
    case onnx::TensorProto_DataType_INT32:
    case onnx::TensorProto_DataType_BOOL:
      if (has_raw) {
        const std::size_t width = t.data_type() == onnx::TensorProto_DataType_BOOL ? 1 : 4;
        if (auto problem = miscount(raw.size(), "raw_data", width)) return invalid(*problem);
        c->ints.resize(count);
        for (Dim i = 0; i < count; ++i) {
          if (width == 1) {
            c->ints[i] = static_cast<unsigned char>(raw[i]);
          } else {
            std::int32_t v = 0;
            std::memcpy(&v, raw.data() + i * 4, 4);
            c->ints[i] = v;
          }
        }
      } else {
        const auto n = static_cast<std::size_t>(t.int32_data_size());
        if (auto problem = miscount(n, "int32_data", 1)) return invalid(*problem);
        c->ints.assign(t.int32_data().begin(), t.int32_data().end());
      }
      break;
    default:
      break;  // kept with its dtype; any use names it
  }
  c->source = std::move(name);
  return c;
}

}  // namespace nnplan::format::onnx_import
