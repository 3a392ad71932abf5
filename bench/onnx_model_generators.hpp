// ONNX model generators for the ONNX import benchmarks and the peer comparison (issue 4,
// "Performance"). Models are built with ONNX's own protobuf schema (Debian's libonnx-dev), the
// way an exporter writes them: opset 13 of the default domain, ir_version 8, float32 tensors with
// static shapes, weights as raw_data initializers.
//   - resnet18_onnx: ResNet-18-shaped (torchvision's layout; conv layers without bias, each
//     followed by BatchNormalization), input "input" [1,3,224,224], output "logits" [1,1000].
//     Weights are deterministic for a given seed (about 11.7 million floats, 47 MB).
//   - resnet50_onnx: ResNet-50-shaped (torchvision's Bottleneck layout, 175 nodes), same input and
//     output; about 25.6 million floats (102 MB) of weights.
//   - relu_add_chain_onnx: n nodes alternating Relu and Add(x, x) on an input "x" [1,16].
//   - vit_onnx (vit_onnx_generator.cpp): ViT-B/16-shaped at opset 17, as torch.onnx.export
//     writes torchvision's vit_b_16, with its shape arithmetic in the graph or folded away.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <onnx/onnx_pb.h>

namespace nnplan::bench {

inline constexpr std::uint64_t kOnnxWeightSeed = 20261129;

[[nodiscard]] onnx::ModelProto resnet18_onnx(std::uint64_t seed = kOnnxWeightSeed);

[[nodiscard]] onnx::ModelProto resnet50_onnx(std::uint64_t seed = kOnnxWeightSeed);

// n >= 1 nodes: node i is Relu for even i and Add(t, t) for odd i, each reading node i-1's
// output (node 0 reads the graph input).
[[nodiscard]] onnx::ModelProto relu_add_chain_onnx(std::size_t n);

// ViT-B/16 with `layers` encoder blocks (12 in ViT-B/16; about 7 million weights per block);
// `shape_arithmetic`: Reshape shapes and Slice bounds computed by Shape/Gather/Unsqueeze/Div/Mul/
// Concat nodes (what the exporter writes), else int64 initializers of the same values.
[[nodiscard]] onnx::ModelProto vit_onnx(int layers, bool shape_arithmetic,
                                        std::uint64_t seed = kOnnxWeightSeed);

// The serialized ModelProto (what an .onnx file holds); throws std::runtime_error when protobuf
// refuses to serialize it.
[[nodiscard]] std::string serialize_onnx(const onnx::ModelProto& model);

}  // namespace nnplan::bench
