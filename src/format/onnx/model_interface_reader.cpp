// The interface of an ONNX model (its graph inputs and outputs, their data types and declared
// dimensions) read without importing its nodes or weights: what a caller needs to give the
// model's open dimensions their sizes before it plans (nnplan run, nnplan.Session).
#include <onnx/onnx_pb.h>

#include <google/protobuf/arena.h>

#include <set>

#include "../bounded_file.hpp"
#include "nnplan/format/limits.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "model_split.hpp"

namespace nnplan::format {

namespace {

OnnxValueInfo value_info(const onnx::ValueInfoProto& value) {
  OnnxValueInfo info{.name = value.name()};
  if (!value.type().has_tensor_type()) return info;
  const auto& tensor = value.type().tensor_type();
  switch (tensor.elem_type()) {
    case onnx::TensorProto_DataType_FLOAT:
      info.dtype = ir::DType::float32;
      break;
    case onnx::TensorProto_DataType_INT64:
      info.dtype = ir::DType::int64;
      break;
    case onnx::TensorProto_DataType_BOOL:
      info.dtype = ir::DType::boolean;
      break;
    default:
      break;
  }
  if (!tensor.has_shape()) return info;
  info.has_shape = true;
  for (const auto& d : tensor.shape().dim()) {
    const bool open = !d.has_dim_value() || d.dim_value() < 0;
    info.dims.push_back(open ? std::nullopt
                             : std::optional<std::uint64_t>(static_cast<std::uint64_t>(
                                   d.dim_value())));
    info.dim_names.push_back(open ? d.dim_param() : std::string());
  }
  return info;
}

}  // namespace

Expected<OnnxInterface> read_onnx_interface(const std::filesystem::path& path) noexcept {
  try {
    auto bytes = detail::read_bounded_file(path, "ONNX model", kMaxOnnxFileBytes,
                                           detail::StreamCheck::protobuf);
    if (!bytes) return std::unexpected(std::move(bytes.error()));
    const auto view = std::as_bytes(std::span(bytes->text()));
    google::protobuf::Arena arena;
    onnx::ModelProto& model = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
    // The nodes and the initializers' data stay unparsed: only names and types are read.
    const onnx_import::SplitModel parts =
        onnx_import::split_onnx_model(view, model, kMaxGraphNodes);
    if (!parts.refusal.empty() ||
        (!parts.nodes && !model.ParseFromArray(view.data(), static_cast<int>(view.size())))) {
      return std::unexpected(make_error(ErrorKind::invalid_input,
                                        path.string() + ": not a valid ONNX model"));
    }
    const onnx::GraphProto& graph = model.graph();
    std::set<std::string> initializers;
    for (const auto& t : graph.initializer()) initializers.insert(t.name());
    OnnxInterface interface;
    for (const auto& in : graph.input()) {
      if (!initializers.contains(in.name())) interface.inputs.push_back(value_info(in));
    }
    for (const auto& out : graph.output()) interface.outputs.push_back(value_info(out));
    return interface;
  } catch (const std::bad_alloc&) {
    return std::unexpected(
        make_error(ErrorKind::resource_exhausted, "out of memory while reading " + path.string()));
  }
}

}  // namespace nnplan::format
