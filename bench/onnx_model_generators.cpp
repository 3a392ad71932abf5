#include "onnx_model_generators.hpp"

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace nnplan::bench {
namespace {

constexpr std::int64_t kOpset = 13;
constexpr std::int64_t kIrVersion = 8;

// splitmix64: a fixed, portable stream, so the weights do not depend on the standard library.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi).
  float uniform(float lo, float hi) {
    const double unit = static_cast<double>(next() >> 11) * 0x1.0p-53;
    return static_cast<float>(lo + (hi - lo) * unit);
  }

 private:
  std::uint64_t state_;
};

onnx::ModelProto new_model(std::string_view graph_name) {
  onnx::ModelProto model;
  model.set_ir_version(kIrVersion);
  model.set_producer_name("nnplan_bench");
  model.set_producer_version("1");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(kOpset);
  model.mutable_graph()->set_name(std::string(graph_name));
  return model;
}

void set_float_tensor_type(onnx::ValueInfoProto* info, std::string_view name,
                           std::initializer_list<std::int64_t> dims) {
  info->set_name(std::string(name));
  auto* tensor_type = info->mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tensor_type->mutable_shape();
  for (const std::int64_t dim : dims)
    shape->add_dim()->set_dim_value(dim);
}

onnx::AttributeProto* add_attribute(onnx::NodeProto* node, std::string_view name,
                                    onnx::AttributeProto::AttributeType type) {
  auto* attribute = node->add_attribute();
  attribute->set_name(std::string(name));
  attribute->set_type(type);
  return attribute;
}

void add_ints(onnx::NodeProto* node, std::string_view name,
              std::initializer_list<std::int64_t> values) {
  auto* attribute = add_attribute(node, name, onnx::AttributeProto::INTS);
  for (const std::int64_t value : values)
    attribute->add_ints(value);
}

void add_int(onnx::NodeProto* node, std::string_view name, std::int64_t value) {
  add_attribute(node, name, onnx::AttributeProto::INT)->set_i(value);
}

void add_float(onnx::NodeProto* node, std::string_view name, float value) {
  add_attribute(node, name, onnx::AttributeProto::FLOAT)->set_f(value);
}

onnx::NodeProto* add_node(onnx::GraphProto* graph, std::string_view op_type, std::string_view name,
                          std::initializer_list<std::string_view> inputs, std::string_view output) {
  auto* node = graph->add_node();
  node->set_op_type(std::string(op_type));
  node->set_name(std::string(name));
  for (const std::string_view input : inputs)
    node->add_input(std::string(input));
  node->add_output(std::string(output));
  return node;
}

// A float32 initializer whose values are drawn by `value(rng)`, stored as little-endian raw_data
// the way exporters write weights.
template <class Draw>
void add_initializer(onnx::GraphProto* graph, const std::string& name,
                     std::initializer_list<std::int64_t> dims, SplitMix64& rng, Draw draw) {
  auto* tensor = graph->add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::FLOAT);
  std::size_t count = 1;
  for (const std::int64_t dim : dims) {
    tensor->add_dims(dim);
    count *= static_cast<std::size_t>(dim);
  }
  std::vector<float> values(count);
  for (float& value : values)
    value = draw(rng);
  std::string* raw = tensor->mutable_raw_data();
  raw->resize(count * sizeof(float));
  std::memcpy(raw->data(), values.data(), raw->size());
}

class ResNetBuilder {
 public:
  ResNetBuilder(onnx::GraphProto* graph, std::uint64_t seed) : graph_(graph), rng_(seed) {}

  // Conv (no bias) + BatchNormalization; returns the BN output name.
  std::string conv_bn(const std::string& scope, const std::string& input, std::int64_t in_channels,
                      std::int64_t out_channels, std::int64_t kernel, std::int64_t stride,
                      std::int64_t pad, const std::string& conv_name, const std::string& bn_name) {
    const std::string weight = scope + "." + conv_name + ".weight";
    const float bound = 1.0F / std::sqrt(static_cast<float>(in_channels * kernel * kernel));
    add_initializer(graph_, weight, {out_channels, in_channels, kernel, kernel}, rng_,
                    [bound](SplitMix64& r) { return r.uniform(-bound, bound); });
    const std::string prefix = "/" + scope + "/" + conv_name;
    const std::string conv_out = prefix + "/Conv_output_0";
    auto* conv = add_node(graph_, "Conv", prefix + "/Conv", {input, weight}, conv_out);
    add_ints(conv, "dilations", {1, 1});
    add_int(conv, "group", 1);
    add_ints(conv, "kernel_shape", {kernel, kernel});
    add_ints(conv, "pads", {pad, pad, pad, pad});
    add_ints(conv, "strides", {stride, stride});

    const std::string bn = scope + "." + bn_name;
    add_initializer(graph_, bn + ".weight", {out_channels}, rng_,
                    [](SplitMix64& r) { return r.uniform(0.5F, 1.5F); });
    add_initializer(graph_, bn + ".bias", {out_channels}, rng_,
                    [](SplitMix64& r) { return r.uniform(-0.1F, 0.1F); });
    add_initializer(graph_, bn + ".running_mean", {out_channels}, rng_,
                    [](SplitMix64& r) { return r.uniform(-0.1F, 0.1F); });
    add_initializer(graph_, bn + ".running_var", {out_channels}, rng_,
                    [](SplitMix64& r) { return r.uniform(0.5F, 1.5F); });
    const std::string bn_prefix = "/" + scope + "/" + bn_name;
    const std::string bn_out = bn_prefix + "/BatchNormalization_output_0";
    auto* batch_norm = add_node(
        graph_, "BatchNormalization", bn_prefix + "/BatchNormalization",
        {conv_out, bn + ".weight", bn + ".bias", bn + ".running_mean", bn + ".running_var"},
        bn_out);
    add_float(batch_norm, "epsilon", 1e-5F);
    add_float(batch_norm, "momentum", 0.9F);
    return bn_out;
  }

  std::string relu(const std::string& name, const std::string& input) {
    const std::string output = name + "_output_0";
    add_node(graph_, "Relu", name, {input}, output);
    return output;
  }

  // A block's residual tail: Add(x, input), through a 1x1/s conv + BN when the shape changes,
  // then Relu (named `relu_name` in the block's scope).
  std::string residual(const std::string& scope, const std::string& input, const std::string& x,
                       std::int64_t in_channels, std::int64_t out_channels, std::int64_t stride,
                       const std::string& relu_name) {
    std::string identity = input;
    if (stride != 1 || in_channels != out_channels) {
      identity = conv_bn(scope, input, in_channels, out_channels, 1, stride, 0, "downsample.0",
                         "downsample.1");
    }
    const std::string add_out = "/" + scope + "/Add_output_0";
    add_node(graph_, "Add", "/" + scope + "/Add", {x, identity}, add_out);
    return relu("/" + scope + "/" + relu_name + "/Relu", add_out);
  }

  // torchvision's BasicBlock: conv3x3/s + BN + Relu, conv3x3 + BN, residual Add (through a
  // 1x1/s conv + BN when the shape changes), Relu.
  std::string basic_block(const std::string& scope, const std::string& input,
                          std::int64_t in_channels, std::int64_t out_channels,
                          std::int64_t stride) {
    std::string x = conv_bn(scope, input, in_channels, out_channels, 3, stride, 1, "conv1", "bn1");
    x = relu("/" + scope + "/relu/Relu", x);
    x = conv_bn(scope, x, out_channels, out_channels, 3, 1, 1, "conv2", "bn2");
    return residual(scope, input, x, in_channels, out_channels, stride, "relu_1");
  }

  // torchvision's Bottleneck (ResNet-50): conv1x1 + BN + Relu, conv3x3/s + BN + Relu, conv1x1 to
  // 4x the width + BN, residual Add (through a 1x1/s conv + BN when the shape changes), Relu.
  std::string bottleneck(const std::string& scope, const std::string& input,
                         std::int64_t in_channels, std::int64_t width, std::int64_t stride) {
    const std::int64_t out_channels = width * 4;
    std::string x = conv_bn(scope, input, in_channels, width, 1, 1, 0, "conv1", "bn1");
    x = relu("/" + scope + "/relu/Relu", x);
    x = conv_bn(scope, x, width, width, 3, stride, 1, "conv2", "bn2");
    x = relu("/" + scope + "/relu_1/Relu", x);
    x = conv_bn(scope, x, width, out_channels, 1, 1, 0, "conv3", "bn3");
    return residual(scope, input, x, in_channels, out_channels, stride, "relu_2");
  }

  // Stem: conv 7x7/2 pad 3, BN, Relu, MaxPool 3x3/2 pad 1; returns the pool's output.
  std::string stem() {
    std::string x = conv_bn("stem", "input", 3, 64, 7, 2, 3, "conv1", "bn1");
    x = relu("/relu/Relu", x);
    auto* pool = add_node(graph_, "MaxPool", "/maxpool/MaxPool", {x}, "/maxpool/MaxPool_output_0");
    add_int(pool, "ceil_mode", 0);
    add_ints(pool, "kernel_shape", {3, 3});
    add_ints(pool, "pads", {1, 1, 1, 1});
    add_ints(pool, "strides", {2, 2});
    return "/maxpool/MaxPool_output_0";
  }

  // Head: GlobalAveragePool, Flatten, Gemm(transB=1) to 1000 classes named "logits".
  void head(const std::string& input, std::int64_t channels) {
    add_node(graph_, "GlobalAveragePool", "/avgpool/GlobalAveragePool", {input},
             "/avgpool/GlobalAveragePool_output_0");
    auto* flatten = add_node(graph_, "Flatten", "/Flatten", {"/avgpool/GlobalAveragePool_output_0"},
                             "/Flatten_output_0");
    add_int(flatten, "axis", 1);
    const float bound = 1.0F / std::sqrt(static_cast<float>(channels));
    add_initializer(graph_, "fc.weight", {1000, channels}, rng_,
                    [bound](SplitMix64& r) { return r.uniform(-bound, bound); });
    add_initializer(graph_, "fc.bias", {1000}, rng_,
                    [bound](SplitMix64& r) { return r.uniform(-bound, bound); });
    auto* gemm = add_node(graph_, "Gemm", "/fc/Gemm", {"/Flatten_output_0", "fc.weight", "fc.bias"},
                          "logits");
    add_float(gemm, "alpha", 1.0F);
    add_float(gemm, "beta", 1.0F);
    add_int(gemm, "transB", 1);
    set_float_tensor_type(graph_->add_output(), "logits", {1, 1000});
  }

 private:
  onnx::GraphProto* graph_;
  SplitMix64 rng_;
};

}  // namespace

onnx::ModelProto resnet18_onnx(std::uint64_t seed) {
  onnx::ModelProto model = new_model("resnet18");
  onnx::GraphProto* graph = model.mutable_graph();
  set_float_tensor_type(graph->add_input(), "input", {1, 3, 224, 224});
  ResNetBuilder builder(graph, seed);

  std::string x = builder.stem();

  // Four stages of two BasicBlocks each.
  std::int64_t channels = 64;
  const std::int64_t stage_channels[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    const std::int64_t out_channels = stage_channels[stage];
    for (int block = 0; block < 2; ++block) {
      const std::int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
      const std::string scope = "layer" + std::to_string(stage + 1) + "." + std::to_string(block);
      x = builder.basic_block(scope, x, channels, out_channels, stride);
      channels = out_channels;
    }
  }

  builder.head(x, channels);
  return model;
}

onnx::ModelProto resnet50_onnx(std::uint64_t seed) {
  onnx::ModelProto model = new_model("resnet50");
  onnx::GraphProto* graph = model.mutable_graph();
  set_float_tensor_type(graph->add_input(), "input", {1, 3, 224, 224});
  ResNetBuilder builder(graph, seed);
  std::string x = builder.stem();

  // Four stages of 3, 4, 6 and 3 Bottlenecks.
  std::int64_t channels = 64;
  const std::int64_t stage_widths[] = {64, 128, 256, 512};
  const int stage_blocks[] = {3, 4, 6, 3};
  for (int stage = 0; stage < 4; ++stage) {
    for (int block = 0; block < stage_blocks[stage]; ++block) {
      const std::int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
      const std::string scope = "layer" + std::to_string(stage + 1) + "." + std::to_string(block);
      x = builder.bottleneck(scope, x, channels, stage_widths[stage], stride);
      channels = stage_widths[stage] * 4;
    }
  }
  builder.head(x, channels);
  return model;
}

onnx::ModelProto relu_add_chain_onnx(std::size_t n) {
  if (n == 0) throw std::invalid_argument("relu_add_chain_onnx: n must be at least 1");
  onnx::ModelProto model = new_model("relu_add_chain");
  onnx::GraphProto* graph = model.mutable_graph();
  set_float_tensor_type(graph->add_input(), "x", {1, 16});
  graph->mutable_node()->Reserve(static_cast<int>(n));
  std::string previous = "x";
  for (std::size_t i = 0; i < n; ++i) {
    const std::string index = std::to_string(i);
    const std::string output = "t" + index;
    if (i % 2 == 0) {
      add_node(graph, "Relu", "relu_" + index, {previous}, output);
    } else {
      add_node(graph, "Add", "add_" + index, {previous, previous}, output);
    }
    previous = output;
  }
  set_float_tensor_type(graph->add_output(), previous, {1, 16});
  return model;
}

std::string serialize_onnx(const onnx::ModelProto& model) {
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    throw std::runtime_error("protobuf could not serialize the ONNX model");
  }
  return bytes;
}

}  // namespace nnplan::bench
