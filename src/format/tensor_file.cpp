// Tensor files by path (tensor_file.hpp): the format from the extension, reading through the
// bounded file reader and writing through write_file_atomically. The codecs are npy_file.cpp and
// onnx/tensor_proto_file.cpp.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "bounded_file.hpp"
#include "nnplan/format/limits.hpp"
#include "nnplan/format/output_file.hpp"
#include "nnplan/format/tensor_file.hpp"

namespace nnplan::format {
namespace {

// The largest files read: protobuf's 2 GiB message limit for `.pb`; for `.npy` the data of the
// largest tensor (kMaxTensorElements of 8 bytes) is beyond any memory, so 64 GiB bounds what a
// pipe can make the reader hold.
constexpr std::uintmax_t kMaxTensorProtoFileBytes = std::numeric_limits<int>::max();
constexpr std::uintmax_t kMaxNpyFileBytes = std::uintmax_t{1} << 36;

}  // namespace

Expected<TensorFileFormat> tensor_file_format(const std::filesystem::path& path) {
  const std::string extension = path.extension().string();
  if (extension == ".npy") return TensorFileFormat::npy;
  if (extension == ".pb") return TensorFileFormat::tensor_proto;
  return std::unexpected(detail::file_error(
      path, (extension.empty() ? std::string("no file extension")
                               : "unknown tensor file extension '" + extension + "'") +
                "; tensor files are .npy (NumPy) or .pb (ONNX TensorProto)"));
}

Expected<ir::WeightTensor> read_tensor_file(const std::filesystem::path& path,
                                            const TensorFileExpectation* expect) {
  auto format = tensor_file_format(path);
  if (!format) return std::unexpected(std::move(format.error()));
  const bool npy = *format == TensorFileFormat::npy;
  std::uintmax_t limit = npy ? kMaxNpyFileBytes : kMaxTensorProtoFileBytes;
  std::string limit_reason;
  if (expect != nullptr) {
    // The most bytes a file of the expected tensor takes: an .npy's data after the largest
    // header (magic, version, 4-byte length); a .pb's values at 11 bytes each (a varint int64 and
    // its share of the tags) and 1 MiB for its dims and fields.
    const std::uintmax_t count = ir::element_count(expect->shape).value_or(kMaxTensorElements);
    const std::uintmax_t most = npy ? 12 + kMaxNpyHeaderBytes + count * ir::size_of(expect->dtype)
                                    : 11 * count + (std::uintmax_t{1} << 20);
    limit = std::min(limit, most);
    limit_reason = ", as much as a " + ir::to_string(expect->shape) + " " +
                   std::string(ir::to_string(expect->dtype)) + " tensor can take";
  }
  auto file = detail::read_bounded_file(
      path, "tensor file", limit, npy ? detail::StreamCheck::none : detail::StreamCheck::protobuf,
      limit_reason);
  if (!file) return std::unexpected(std::move(file.error()));
  const std::string_view text = file->text();
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(text.data()),
                                         text.size());
  return npy ? parse_npy(bytes, path.string(), expect) : parse_tensor_proto(bytes, path.string());
}

Expected<std::vector<std::byte>> tensor_file_bytes(const std::filesystem::path& path,
                                                   const ir::WeightTensor& tensor) {
  auto format = tensor_file_format(path);
  if (!format) return std::unexpected(std::move(format.error()));
  const std::optional<ir::Dim> count = ir::element_count(tensor.shape());
  if (!count || *count != tensor.size()) {
    return std::unexpected(detail::file_error(
        path, "cannot write a tensor of shape " + ir::to_string(tensor.shape()) + " holding " +
                  std::to_string(tensor.size()) + " " + std::string(ir::to_string(tensor.dtype())) +
                  " values; the shape needs " +
                  (count ? std::to_string(*count) : std::string("more than 2^64"))));
  }
  if (tensor.dtype() == ir::DType::boolean) {
    if (std::optional<std::string> problem = ir::bool_bytes_problem(tensor.contiguous().bytes())) {
      return std::unexpected(detail::file_error(path, "cannot write the tensor: " + *problem));
    }
  }
  if (tensor.shape().rank() > kMaxRank) {
    return std::unexpected(detail::file_error(
        path, "cannot write a tensor of rank " + std::to_string(tensor.shape().rank()) +
                  "; the limit is " + std::to_string(kMaxRank)));
  }
  if (*format == TensorFileFormat::tensor_proto &&
      *count * ir::size_of(tensor.dtype()) > kMaxTensorProtoFileBytes - 4096) {
    return std::unexpected(detail::file_error(
        path, "a tensor of " + std::to_string(*count) +
                  " values exceeds protobuf's 2 GiB message limit; write it as .npy"));
  }
  return *format == TensorFileFormat::npy ? npy_bytes(tensor) : tensor_proto_bytes(tensor);
}

Expected<void> write_tensor_file(const std::filesystem::path& path, const ir::WeightTensor& tensor,
                                 std::span<const std::filesystem::path> inputs) {
  auto bytes = tensor_file_bytes(path, tensor);
  if (!bytes) return std::unexpected(std::move(bytes.error()));
  return write_file_atomically(
      path, std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), inputs);
}

}  // namespace nnplan::format
