// Decoding ONNX TensorProtos (initializers and Constant values) into the constants the importer
// folds or materializes: float32 data, and integers (int64, int32, bool) for shape-like operands
// (Reshape's shape, ReduceSum's axes, Pad's pads). A tensor of another data type is kept with its
// data type only, so that a use can name it. An initializer's float data stays undecoded (a view
// of its raw_data in the file's bytes) until a payload or a folding rule needs its values. A
// tensor with external data (external_data.hpp) is decoded to its type, dims and where its data
// lies; the importer reads float data from the file only when payloads are kept. The constants
// that constant folding (constant_folding.hpp) computes are ConstTensors too.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <expected>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "external_data.hpp"
#include "nnplan/error.hpp"
#include "nnplan/ir/graph.hpp"
#include "nnplan/ir/weights.hpp"

namespace nnplan::format::onnx_import {

// An ONNX node folded into a constant: graph node `index` (0-based), named `name`.
struct FoldedSource {
  int index = 0;
  std::string name;
  bool operator==(const FoldedSource&) const = default;
};

// A tensor whose value is known at import time.
struct ConstTensor {
  std::vector<ir::Dim> dims;
  int dtype = 0;
  // Float data; see floats_of: while `raw_floats` is set the data is still undecoded there.
  std::vector<float> floats;
  std::string_view raw_floats;
  // The mapped file `raw_floats` lies in, which a payload viewing them keeps alive; null when
  // the bytes belong to the caller of the import (they are then copied).
  std::shared_ptr<const ir::WeightBytes> raw_owner;
  std::vector<std::int64_t> ints;
  // Set when the data lies in an external file: `floats` and `ints` hold nothing until the
  // importer reads it into `raw_floats` (float32 only, and only when it keeps payloads), so no
  // rule may fold on the values of such a tensor.
  std::optional<ExternalData> external;
  std::string source;              // the tensor name, or the Constant node's name
  std::optional<ir::NodeId> node;  // the `const` node, once materialized
  // The folded nodes this value comes from, in node order, each once (empty for an initializer
  // or a Constant output); capped at kMaxFoldedSources (constant_folding.hpp).
  std::vector<FoldedSource> folded_from;
};
using ConstPtr = std::shared_ptr<ConstTensor>;

// Why a tensor could not be decoded: `reason` names the tensor.
struct TensorProblem {
  ErrorKind kind = ErrorKind::invalid_input;
  std::string reason;
};

// Decodes `t`, named `name` in messages. `split_raw` is its raw_data where the model split left
// it in the file's bytes (model_split.hpp). `stable`: `t` and those bytes outlive the import, so
// float data may stay undecoded. Checks the rank and dimensions against the format limits and the
// data's element count against the dimensions, for every data type it decodes (for external
// float32 data, the `length` entry when there is one).
[[nodiscard]] std::expected<ConstPtr, TensorProblem> decode_tensor(
    const onnx::TensorProto& t, std::string name, bool stable,
    std::optional<std::span<const std::byte>> split_raw = std::nullopt);

// What is wrong with the data fields of `t` (named `name`; `has_raw`: it has raw_data, possibly
// left in the file's bytes by the split), as onnx.checker sees it: data in more than one field
// (raw_data and float_data, say), or in a typed field other than its data type's. nullopt when
// the fields are fine; whether they hold the right number of values is checked by decode_tensor.
[[nodiscard]] std::optional<std::string> data_field_problem(const onnx::TensorProto& t,
                                                            const std::string& name, bool has_raw);

// The float data of `c`, decoded now when it was not yet.
const std::vector<float>& floats_of(ConstTensor& c);

// The lowercase name of ONNX data type `t` (`float32`, `int64`, `unknown data type 99`).
[[nodiscard]] std::string dtype_name(int t);

}  // namespace nnplan::format::onnx_import
