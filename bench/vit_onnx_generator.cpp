// A ViT-B/16-shaped ONNX model (onnx_model_generators.hpp: vit_onnx), written the way
// torch.onnx.export (torch 1.13, opset 17) writes torchvision's vit_b_16: a 16x16 patch Conv,
// a class token and position embedding, `layers` encoder blocks (LayerNormalization with epsilon
// 1e-6, an in-projection MatMul whose output is sliced into q, k and v, per-head Reshape and
// Transpose, q scaled by a Div, MatMul-Softmax-MatMul attention, an out-projection, the exact Erf
// GELU of the MLP, residual Adds), a final LayerNormalization, `x[:, 0]` as a Gather and a Gemm
// head. With `shape_arithmetic`, every Reshape's shape and every Slice's bounds are computed in
// the graph from Shape, Gather, Unsqueeze, Div, Mul and Concat nodes, as the exporter writes them;
// without, they are int64 initializers holding the same values, so the two models differ exactly
// by what the importer's constant folding evaluates.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "onnx_model_generators.hpp"

namespace nnplan::bench {
namespace {

constexpr std::int64_t kHidden = 768;
constexpr std::int64_t kHeads = 12;
constexpr std::int64_t kHeadDim = kHidden / kHeads;
constexpr std::int64_t kMlp = 3072;
constexpr std::int64_t kTokens = 197;  // 14 x 14 patches and the class token

class VitBuilder {
 public:
  VitBuilder(onnx::GraphProto* graph, std::uint64_t seed, bool shape_arithmetic)
      : graph_(graph), state_(seed), shape_arithmetic_(shape_arithmetic) {}

  std::string node(const std::string& op, const std::vector<std::string>& inputs,
                   const std::string& name) {
    auto* n = graph_->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const std::string& in : inputs)
      n->add_input(in);
    n->add_output(name + "_out");
    last_ = n;
    return name + "_out";
  }
  onnx::NodeProto* last() { return last_; }

  void ints(const std::string& name, std::vector<std::int64_t> values) {
    auto* a = last_->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (const std::int64_t v : values)
      a->add_ints(v);
  }
  void int_attr(const std::string& name, std::int64_t value) {
    auto* a = last_->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }
  void float_attr(const std::string& name, float value) {
    auto* a = last_->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(value);
  }

  // A float32 weight of small deterministic values (raw_data, as exporters write weights).
  std::string weight(const std::string& name, std::vector<std::int64_t> dims) {
    auto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    std::size_t count = 1;
    for (const std::int64_t d : dims) {
      t->add_dims(d);
      count *= static_cast<std::size_t>(d);
    }
    std::vector<float> values(count);
    for (float& v : values) {
      state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
      v = static_cast<float>(static_cast<std::int64_t>(state_ >> 40) % 2001 - 1000) * 1e-5F;
    }
    std::string* raw = t->mutable_raw_data();
    raw->resize(count * sizeof(float));
    std::memcpy(raw->data(), values.data(), raw->size());
    return name;
  }
  std::string scalar(const std::string& name, float value) {
    auto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(value);
    return name;
  }
  std::string int64s(const std::string& name, std::vector<std::int64_t> values) {
    auto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<std::int64_t>(values.size()));
    for (const std::int64_t v : values)
      t->add_int64_data(v);
    return name;
  }

  // Axis `axis` of `x`'s shape as a one-element int64 tensor: Shape -> Gather -> Unsqueeze.
  std::string dim_of(const std::string& x, std::int64_t axis, const std::string& scope) {
    const std::string shape = node("Shape", {x}, scope + "/Shape");
    const std::string index = int64_scalar(scope + "/index", axis);
    const std::string picked = node("Gather", {shape, index}, scope + "/Gather");
    int_attr("axis", 0);
    return node("Unsqueeze", {picked, int64s(scope + "/axes", {0})}, scope + "/Unsqueeze");
  }
  std::string int64_scalar(const std::string& name, std::int64_t value) {
    auto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_int64_data(value);
    return name;
  }

  // The shape [dim 0 of x, dim 1 of x, rest...], computed or constant.
  std::string shape_like(const std::string& x, std::vector<std::int64_t> known,
                         std::vector<std::int64_t> rest, const std::string& scope) {
    if (!shape_arithmetic_) {
      std::vector<std::int64_t> all = known;
      all.insert(all.end(), rest.begin(), rest.end());
      return int64s(scope + "/shape", all);
    }
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < known.size(); ++i)
      parts.push_back(dim_of(x, static_cast<std::int64_t>(i), scope + "/d" + std::to_string(i)));
    parts.push_back(int64s(scope + "/rest", rest));
    const std::string shape = node("Concat", parts, scope + "/Concat");
    int_attr("axis", 0);
    return shape;
  }

  std::string layer_norm(const std::string& x, const std::string& scope) {
    const std::string y = node("LayerNormalization",
                               {x, weight(scope + ".weight", {kHidden}),
                                weight(scope + ".bias", {kHidden})},
                               scope + "/LayerNormalization");
    int_attr("axis", -1);
    float_attr("epsilon", 1e-6F);
    return y;
  }

  std::string linear(const std::string& x, std::int64_t in, std::int64_t out,
                     const std::string& scope) {
    const std::string m = node("MatMul", {x, weight(scope + ".weight", {in, out})}, scope + "/MatMul");
    return node("Add", {m, weight(scope + ".bias", {out})}, scope + "/Add");
  }

  // q, k or v: the `part`-th third of the in-projection's last axis, split into heads.
  std::string head_part(const std::string& qkv, int part, const std::string& scope) {
    std::string start;
    std::string end;
    if (shape_arithmetic_) {
      // torch's chunk: the last axis divided by 3, times the part.
      const std::string width = dim_of(qkv, 2, scope + "/width");
      const std::string third = node("Div", {width, int64s(scope + "/three", {3})}, scope + "/Div");
      start = node("Mul", {third, int64s(scope + "/start_k", {part})}, scope + "/MulStart");
      end = node("Mul", {third, int64s(scope + "/end_k", {part + 1})}, scope + "/MulEnd");
    } else {
      start = int64s(scope + "/start", {part * kHidden});
      end = int64s(scope + "/end", {(part + 1) * kHidden});
    }
    const std::string sliced =
        node("Slice", {qkv, start, end, int64s(scope + "/axes", {-1})}, scope + "/Slice");
    const std::string split =
        node("Reshape", {sliced, shape_like(sliced, {1, kTokens}, {kHeads, kHeadDim}, scope)},
             scope + "/Reshape");
    const std::string heads = node("Transpose", {split}, scope + "/Transpose");
    ints("perm", {0, 2, 1, 3});
    return heads;
  }

  std::string block(const std::string& x, int index) {
    const std::string scope = "encoder.layers." + std::to_string(index);
    const std::string ln1 = layer_norm(x, scope + ".ln_1");
    const std::string qkv = linear(ln1, kHidden, 3 * kHidden, scope + ".self_attention.in_proj");
    const std::string q = head_part(qkv, 0, scope + ".q");
    const std::string k = head_part(qkv, 1, scope + ".k");
    const std::string v = head_part(qkv, 2, scope + ".v");
    const std::string scaled = node("Div", {q, scalar(scope + "/sqrt_d", 8.0F)}, scope + "/Div");
    const std::string kt = node("Transpose", {k}, scope + "/TransposeK");
    ints("perm", {0, 1, 3, 2});
    const std::string scores = node("MatMul", {scaled, kt}, scope + "/MatMulScores");
    const std::string weights = node("Softmax", {scores}, scope + "/Softmax");
    int_attr("axis", -1);
    const std::string context = node("MatMul", {weights, v}, scope + "/MatMulContext");
    const std::string merged = node("Transpose", {context}, scope + "/TransposeContext");
    ints("perm", {0, 2, 1, 3});
    const std::string flat =
        node("Reshape", {merged, shape_like(merged, {1, kTokens}, {kHidden}, scope + ".merge")},
             scope + "/ReshapeContext");
    const std::string attended =
        linear(flat, kHidden, kHidden, scope + ".self_attention.out_proj");
    const std::string residual = node("Add", {x, attended}, scope + "/AddAttention");
    const std::string ln2 = layer_norm(residual, scope + ".ln_2");
    const std::string up = linear(ln2, kHidden, kMlp, scope + ".mlp.0");
    // GELU as torch writes it: x * 0.5 * (1 + erf(x / sqrt(2))).
    const std::string d = node("Div", {up, scalar(scope + "/sqrt2", 1.4142135F)}, scope + "/mlp/Div");
    const std::string e = node("Erf", {d}, scope + "/mlp/Erf");
    const std::string p = node("Add", {e, scalar(scope + "/one", 1.0F)}, scope + "/mlp/Add");
    const std::string m = node("Mul", {up, p}, scope + "/mlp/Mul");
    const std::string g = node("Mul", {m, scalar(scope + "/half", 0.5F)}, scope + "/mlp/Mul_1");
    const std::string down = linear(g, kMlp, kHidden, scope + ".mlp.3");
    return node("Add", {residual, down}, scope + "/AddMlp");
  }

 private:
  onnx::GraphProto* graph_;
  std::uint64_t state_;
  bool shape_arithmetic_;
  onnx::NodeProto* last_ = nullptr;
};

void set_type(onnx::ValueInfoProto* info, const std::string& name, std::vector<std::int64_t> dims) {
  info->set_name(name);
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  for (const std::int64_t d : dims)
    tensor->mutable_shape()->add_dim()->set_dim_value(d);
}

}  // namespace

onnx::ModelProto vit_onnx(int layers, bool shape_arithmetic, std::uint64_t seed) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("nnplan_bench");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("vit_b_16");
  set_type(graph->add_input(), "x", {1, 3, 224, 224});
  VitBuilder b(graph, seed, shape_arithmetic);
  const std::string patches = b.node(
      "Conv", {"x", b.weight("conv_proj.weight", {kHidden, 3, 16, 16}),
               b.weight("conv_proj.bias", {kHidden})},
      "conv_proj");
  b.ints("kernel_shape", {16, 16});
  b.ints("strides", {16, 16});
  const std::string rows =
      b.node("Reshape", {patches, b.shape_like(patches, {1, kHidden}, {196}, "patch_shape")},
             "patch_reshape");
  const std::string tokens = b.node("Transpose", {rows}, "patch_transpose");
  b.ints("perm", {0, 2, 1});
  std::string x = b.node("Concat", {b.weight("class_token", {1, 1, kHidden}), tokens}, "cat_cls");
  b.int_attr("axis", 1);
  x = b.node("Add", {x, b.weight("encoder.pos_embedding", {1, kTokens, kHidden})}, "add_pos");
  for (int i = 0; i < layers; ++i)
    x = b.block(x, i);
  x = b.layer_norm(x, "encoder.ln");
  const std::string cls = b.node("Gather", {x, b.int64_scalar("cls_index", 0)}, "cls_gather");
  b.int_attr("axis", 1);
  const std::string logits = b.node(
      "Gemm", {cls, b.weight("heads.head.weight", {1000, kHidden}),
               b.weight("heads.head.bias", {1000})},
      "head");
  b.int_attr("transB", 1);
  set_type(graph->add_output(), logits, {1, 1000});
  return model;
}

}  // namespace nnplan::bench
