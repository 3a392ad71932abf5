// The ONNX TensorProto codec of tensor_file.hpp: parse_tensor_proto (one serialized
// onnx.TensorProto, its wire bytes checked by check_wire before protobuf parses them) and
// tensor_proto_bytes (dims, data_type and raw_data).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../message_text.hpp"
#include "nnplan/format/limits.hpp"
#include "nnplan/format/tensor_file.hpp"
#include "tensor_decoding.hpp"
#include "wire_check.hpp"

namespace nnplan::format {
namespace {

static_assert(std::endian::native == std::endian::little,
              "TensorProto raw_data is little-endian; it is copied as is");

constexpr std::string_view kHowToSave =
    "save it with onnx.numpy_helper.from_array(array).SerializeToString()";

Error pb_error(std::string_view source, const std::string& problem) {
  return make_error(ErrorKind::invalid_input,
                    detail::escape_controls(std::string(source) + ": " + problem));
}

// The data types a tensor file holds, with the typed field ONNX keeps their values in when they
// are not in raw_data (bool values are int32_data, as ONNX stores them).
struct DataType {
  onnx::TensorProto_DataType onnx;
  ir::DType dtype;
  std::string_view field;
  int (onnx::TensorProto::*field_size)() const;
};
constexpr DataType kDataTypes[] = {{onnx::TensorProto_DataType_FLOAT, ir::DType::float32,
                                    "float_data", &onnx::TensorProto::float_data_size},
                                   {onnx::TensorProto_DataType_INT64, ir::DType::int64,
                                    "int64_data", &onnx::TensorProto::int64_data_size},
                                   {onnx::TensorProto_DataType_BOOL, ir::DType::boolean,
                                    "int32_data", &onnx::TensorProto::int32_data_size}};

// "expected FLOAT (float32), INT64 (int64) or BOOL (bool)".
std::string supported_data_types() {
  std::vector<std::string> choices;
  for (const DataType& t : kDataTypes) {
    choices.push_back(onnx::TensorProto_DataType_Name(t.onnx) + " (" +
                      std::string(ir::to_string(t.dtype)) + ")");
  }
  return "expected " + detail::or_list(choices);
}

// `FLOAT (float32)`, `DOUBLE (float64)`, `99 (unknown data type 99)`.
std::string data_type_text(int t) {
  const std::string name =
      onnx::TensorProto_DataType_IsValid(t)
          ? onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t))
          : std::to_string(t);
  return name + " (" + onnx_import::dtype_name(t) + ")";
}

// The typed data fields other than `own` that hold values, as the first one's name, or nullopt.
std::optional<std::string> foreign_field(const onnx::TensorProto& t, std::string_view own) {
  const std::pair<std::string_view, int> fields[] = {
      {"float_data", t.float_data_size()},   {"int32_data", t.int32_data_size()},
      {"string_data", t.string_data_size()}, {"int64_data", t.int64_data_size()},
      {"double_data", t.double_data_size()}, {"uint64_data", t.uint64_data_size()}};
  for (const auto& [name, size] : fields) {
    if (name != own && size > 0) return std::string(name);
  }
  return std::nullopt;
}

}  // namespace

Expected<ir::WeightTensor> parse_tensor_proto(std::span<const std::byte> bytes,
                                              std::string_view source) {
  const auto fail = [&](const std::string& problem) {
    return std::unexpected(pb_error(source, problem));
  };
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return fail("file of " + std::to_string(bytes.size()) +
                " bytes exceeds protobuf's 2 GiB message limit; save large tensors as .npy");
  }
  if (std::optional<std::string> problem = onnx_import::check_wire(
          bytes, *onnx::TensorProto::descriptor(),
          google::protobuf::io::CodedInputStream::GetDefaultRecursionLimit())) {
    return fail("not a serialized onnx.TensorProto: " + *problem + "; " + std::string(kHowToSave));
  }
  onnx::TensorProto t;
  if (!t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return fail("not a serialized onnx.TensorProto (protobuf cannot parse it); " +
                std::string(kHowToSave));
  }
  if (t.has_segment()) {
    return fail("segmented tensors are not supported; save the whole tensor in one TensorProto");
  }
  if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL || t.external_data_size() > 0) {
    return fail(
        "the tensor's data is external (in another file); save it with its data in "
        "raw_data (onnx.numpy_helper.from_array)");
  }
  const auto kind = std::ranges::find(kDataTypes, t.data_type(), &DataType::onnx);
  if (kind == std::end(kDataTypes)) {
    return fail("data_type " + data_type_text(t.data_type()) + " is not supported; " +
                supported_data_types());
  }
  const ir::DType dtype = kind->dtype;
  const std::size_t item = ir::size_of(dtype);
  const std::string_view own = kind->field;
  ir::Shape shape;
  if (static_cast<std::size_t>(t.dims_size()) > kMaxRank) {
    return fail("the tensor has " + std::to_string(t.dims_size()) + " dims; the limit is " +
                std::to_string(kMaxRank));
  }
  ir::Dim count = 1;
  for (int i = 0; i < t.dims_size(); ++i) {
    const std::int64_t d = t.dims(i);
    if (d < 0) {
      return fail("dims[" + std::to_string(i) + "] is " + std::to_string(d) +
                  "; dimensions must be non-negative");
    }
    if (static_cast<std::uint64_t>(d) > kMaxDim) {
      return fail("dims[" + std::to_string(i) + "] is " + std::to_string(d) +
                  ", above the limit 2^48");
    }
    shape.dims.push_back(static_cast<ir::Dim>(d));
  }
  const std::optional<ir::Dim> elements = ir::element_count(shape);
  if (!elements || *elements > kMaxTensorElements) {
    return fail("dims " + ir::to_string(shape) + " have more than 2^48 elements");
  }
  count = *elements;
  const std::string dtype_text(ir::to_string(dtype));
  if (std::optional<std::string> other = foreign_field(t, own)) {
    return fail("a " + onnx::TensorProto_DataType_Name(kind->onnx) + " tensor holds values in " +
                *other + "; " + dtype_text + " values belong in " + std::string(own) +
                " or raw_data");
  }
  const int typed_size = (t.*kind->field_size)();
  const auto n = static_cast<std::size_t>(count);
  if (t.has_raw_data()) {
    if (typed_size > 0) {
      return fail("the tensor holds values in both raw_data and " + std::string(own) +
                  "; keep them in one");
    }
    const std::string& raw = t.raw_data();
    if (raw.size() != count * item) {
      return fail("raw_data holds " + std::to_string(raw.size()) + " bytes; dims " +
                  ir::to_string(shape) + " " + dtype_text + " need " +
                  std::to_string(count * item));
    }
    const auto* data = reinterpret_cast<const std::byte*>(raw.data());
    if (dtype == ir::DType::boolean) {
      if (std::optional<std::string> problem = ir::bool_bytes_problem(std::span(data, n))) {
        return fail("raw_data: " + *problem);
      }
    }
    // The message is parsed into memory this function frees: the tensor copies its data.
    return ir::WeightTensor::view(std::move(shape), dtype, data, n, nullptr);
  }
  if (static_cast<std::uint64_t>(typed_size) != count) {
    return fail(std::string(own) + " holds " + std::to_string(typed_size) + " values; dims " +
                ir::to_string(shape) + " need " + std::to_string(count));
  }
  if (dtype == ir::DType::float32) {
    return ir::WeightTensor::of_floats(std::move(shape), std::span(t.float_data().data(), n));
  }
  if (dtype == ir::DType::int64) {
    return ir::WeightTensor::of_ints(
        std::move(shape),
        std::span(reinterpret_cast<const std::int64_t*>(t.int64_data().data()), n));
  }
  std::vector<std::uint8_t> bools(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t v = t.int32_data(static_cast<int>(i));
    if (v != 0 && v != 1) {
      return fail("bool element " + std::to_string(i) + " of int32_data is " + std::to_string(v) +
                  "; a bool element is 0 or 1");
    }
    bools[i] = static_cast<std::uint8_t>(v);
  }
  return ir::WeightTensor::adopt(std::move(shape), std::move(bools));
}

std::vector<std::byte> tensor_proto_bytes(const ir::WeightTensor& tensor) {
  onnx::TensorProto t;
  for (const ir::Dim d : tensor.shape().dims)
    t.add_dims(static_cast<std::int64_t>(d));
  t.set_data_type(std::ranges::find(kDataTypes, tensor.dtype(), &DataType::dtype)->onnx);
  const std::size_t bytes = tensor.size() * ir::size_of(tensor.dtype());
  std::string* raw = t.mutable_raw_data();
  raw->resize(bytes);
  if (bytes != 0) {
    std::memcpy(raw->data(), tensor.contiguous().bytes().data(), bytes);
  }
  std::string wire;
  t.SerializeToString(&wire);
  std::vector<std::byte> out(wire.size());
  if (!wire.empty()) std::memcpy(out.data(), wire.data(), wire.size());
  return out;
}

}  // namespace nnplan::format
