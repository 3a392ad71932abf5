// Tensor files, the inputs and outputs of `nnplan run` (SPEC §11, "Inputs and outputs"): NumPy
// `.npy` files and serialized ONNX `TensorProto` `.pb` files (the format of ONNX's test data),
// holding one float32, int64 or bool tensor. The extension says which format a path holds.
//
// `.npy` (NumPy's format, versions 1.0, 2.0 and 3.0): the magic "\x93NUMPY", the version, the
// header's length (2 bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), the header (the Python
// dict literal numpy writes: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }, padded
// with spaces and ended by '\n'), then the values in C order, little-endian. Read: descr '<f4' or
// '<i8' (also spelled '=' or '|', which numpy reads as the native order, little-endian wherever
// nnplan runs) or '|b1' (bool, one byte per element, 0 or 1), fortran_order False, a header of
// at most 1 MiB, and exactly as many data bytes as the shape needs. Written: version 1.0, the
// header padded so that the data starts at a multiple of 64 bytes, byte for byte as numpy.save
// writes it.
//
// `.pb`: one onnx.TensorProto with data_type FLOAT (values in float_data or raw_data), INT64
// (int64_data or raw_data) or BOOL (int32_data or raw_data, each value 0 or 1) and its dims;
// external data and segments are refused. Written: dims, data_type and raw_data (little-endian),
// nothing else.
//
// Reading is strict and total: a malformed file, or one of a data type or layout nnplan does not
// take, is an invalid_input error whose message names the file, what is wrong and what would fix
// it, never an out-of-bounds read or an unchecked allocation:
//   x.npy: dtype '<f8' (float64) is not supported; expected float32 ('<f4'), int64 ('<i8') or
//   bool ('|b1')
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "nnplan/error.hpp"
#include "nnplan/format/payload_file.hpp"

namespace nnplan::format {

enum class TensorFileFormat : std::uint8_t { npy, tensor_proto };

// An `.npy` header past this size is refused before it is read.
inline constexpr std::uint64_t kMaxNpyHeaderBytes = std::uint64_t{1} << 20;

// The format `path`'s extension names: ".npy" is npy, ".pb" tensor_proto; any other extension
// is an invalid_input error naming the path and the accepted extensions.
[[nodiscard]] Expected<TensorFileFormat> tensor_file_format(const std::filesystem::path& path);

// What a reader knows the file must hold (a model input's shape and dtype): a file past the bytes
// such a tensor can take is refused as it is read, however long it (or the stream behind it: a
// pipe, /dev/zero) goes on, and an `.npy` whose header names another shape or dtype is refused
// at its header, before its data is touched.
struct TensorFileExpectation {
  ir::Shape shape;
  ir::DType dtype = ir::DType::float32;
};

// Decodes the bytes of an `.npy` file or a serialized TensorProto. `source` names the file in
// messages.
[[nodiscard]] Expected<ir::WeightTensor> parse_npy(std::span<const std::byte> bytes,
                                                   std::string_view source,
                                                   const TensorFileExpectation* expect = nullptr);
[[nodiscard]] Expected<ir::WeightTensor> parse_tensor_proto(std::span<const std::byte> bytes,
                                                            std::string_view source);

// Reads the tensor file at `path` in the format of its extension. An unreadable path or a
// directory is an invalid_input error naming the path. With `expect`, the file is read only up to
// what such a tensor can take (`.npy`: its data and the largest header; `.pb`: 11 bytes per
// element and 1 MiB), and an `.npy` header of another shape or dtype is refused.
[[nodiscard]] Expected<ir::WeightTensor> read_tensor_file(
    const std::filesystem::path& path, const TensorFileExpectation* expect = nullptr);

// The bytes of an `.npy` file or a serialized TensorProto holding `tensor`, whose value count
// must be the product of its shape (write_tensor_file checks it). Deterministic.
[[nodiscard]] std::vector<std::byte> npy_bytes(const ir::WeightTensor& tensor);
[[nodiscard]] std::vector<std::byte> tensor_proto_bytes(const ir::WeightTensor& tensor);

// The bytes write_tensor_file would write to `path` (in the format of its extension), after its
// checks: for a caller that writes several files together (format::write_files_atomically).
[[nodiscard]] Expected<std::vector<std::byte>> tensor_file_bytes(const std::filesystem::path& path,
                                                                 const ir::WeightTensor& tensor);

// Writes `tensor` to `path` in the format of its extension, through
// format::write_file_atomically (never onto one of `inputs`; a failed write leaves the old
// file). A tensor whose value count is not the product of its shape is an invalid_input error.
[[nodiscard]] Expected<void> write_tensor_file(const std::filesystem::path& path,
                                               const ir::WeightTensor& tensor,
                                               std::span<const std::filesystem::path> inputs = {});

}  // namespace nnplan::format
