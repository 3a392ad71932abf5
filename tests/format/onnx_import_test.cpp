// ONNX import: small models built here with ONNX's own protobuf classes, imported and checked
// node by node (kind, parameters, parents, shape, source name) and payload by payload; every
// rejection names the node, op type, opset and reason; broken bytes never crash.
#include "nnplan/format/onnx_import.hpp"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "nnplan/ir/check.hpp"
#include "protobuf_wire.hpp"

namespace nnplan::format {
namespace {

using ir::OpKind;
using wire::delimited_field;
using wire::to_bytes;
using wire::varint_field;
using Lines = std::vector<std::string>;

constexpr int kFloat = onnx::TensorProto_DataType_FLOAT;

std::string dims(const ir::Shape& s) {
  return ir::to_string(s);
}

// One line per node: `id kind(params) [parents] -> shape 'source'`.
std::string line(const ir::Node& n) {
  std::string out = std::to_string(n.id) + " " + std::string(ir::to_string(n.kind));
  std::visit(
      [&](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, ir::PermuteParams>) {
          out += "(perm=";
          for (std::size_t i = 0; i < p.perm.size(); ++i)
            out += (i ? "," : "") + std::to_string(p.perm[i]);
          out += ")";
        } else if constexpr (std::is_same_v<P, ir::PoolParams>) {
          out += "(k=" + std::to_string(p.kh) + "x" + std::to_string(p.kw) +
                 ",s=" + std::to_string(p.stride) + ",p=" + std::to_string(p.padding) + ")";
        } else if constexpr (std::is_same_v<P, ir::BroadcastParams>) {
          out += "(" + dims(p.from) + "->" + dims(p.to) + ")";
        } else if constexpr (std::is_same_v<P, ir::AxisParams>) {
          out += "(axis=" + std::to_string(p.axis) + ")";
        } else if constexpr (std::is_same_v<P, ir::Conv2dParams>) {
          out += "(" + std::to_string(p.in_channels) + "->" + std::to_string(p.out_channels) +
                 ",k=" + std::to_string(p.kh) + "x" + std::to_string(p.kw) +
                 ",s=" + std::to_string(p.stride) + ",p=" + std::to_string(p.padding) + ")";
        } else if constexpr (std::is_same_v<P, ir::ChannelsParams>) {
          out += "(c=" + std::to_string(p.channels) + ")";
        } else if constexpr (std::is_same_v<P, ir::ReshapeParams>) {
          out += "(" + dims(p.in) + "->" + dims(p.out) + ")";
        }
      },
      n.params);
  if (!n.parents.empty()) {
    out += " [";
    for (std::size_t i = 0; i < n.parents.size(); ++i)
      out += (i ? "," : "") + std::to_string(n.parents[i]);
    out += "]";
  }
  return out + " -> " + dims(n.shape) + " '" + n.source_name + "'";
}

Lines lines(const ir::Graph& g) {
  Lines out;
  for (const auto& n : g.nodes)
    out.push_back(line(n));
  return out;
}

onnx::AttributeProto& new_attr(onnx::NodeProto& n, const std::string& name,
                               onnx::AttributeProto_AttributeType type) {
  onnx::AttributeProto& a = *n.add_attribute();
  a.set_name(name);
  a.set_type(type);
  return a;
}
void attr_i(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
  new_attr(n, name, onnx::AttributeProto_AttributeType_INT).set_i(v);
}
void attr_f(onnx::NodeProto& n, const std::string& name, float v) {
  new_attr(n, name, onnx::AttributeProto_AttributeType_FLOAT).set_f(v);
}
void attr_s(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  new_attr(n, name, onnx::AttributeProto_AttributeType_STRING).set_s(v);
}
void attr_ints(onnx::NodeProto& n, const std::string& name, std::vector<std::int64_t> v) {
  auto& a = new_attr(n, name, onnx::AttributeProto_AttributeType_INTS);
  for (const auto x : v)
    a.add_ints(x);
}

std::vector<float> iota(std::size_t n, float start = 1.0f) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = start + static_cast<float>(i);
  return v;
}

void fill_tensor(onnx::TensorProto& t, const std::string& name, std::vector<std::int64_t> d,
                 const std::vector<float>& values, bool raw) {
  t.set_name(name);
  t.set_data_type(kFloat);
  for (const auto x : d)
    t.add_dims(x);
  if (raw) {
    t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
  } else {
    for (const float f : values)
      t.add_float_data(f);
  }
}

class Model {
 public:
  explicit Model(std::int64_t opset = 17) {
    m_.set_ir_version(8);
    m_.set_producer_name("test");
    auto* o = m_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
  }
  onnx::GraphProto& g() { return *m_.mutable_graph(); }
  onnx::ModelProto& proto() { return m_; }

  // -1 is a symbolic dimension named "batch".
  Model& input(const std::string& name, std::vector<std::int64_t> d, int dtype = kFloat) {
    auto* vi = g().add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(dtype);
    auto* shape = tt->mutable_shape();
    for (const auto x : d) {
      if (x < 0) {
        shape->add_dim()->set_dim_param("batch");
      } else {
        shape->add_dim()->set_dim_value(x);
      }
    }
    return *this;
  }
  Model& output(const std::string& name) {
    g().add_output()->set_name(name);
    return *this;
  }
  Model& init(const std::string& name, std::vector<std::int64_t> d, std::vector<float> values,
              bool raw = true) {
    fill_tensor(*g().add_initializer(), name, std::move(d), values, raw);
    return *this;
  }
  Model& init_i64(const std::string& name, std::vector<std::int64_t> values) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_INT64);
    t->add_dims(static_cast<std::int64_t>(values.size()));
    for (const auto v : values)
      t->add_int64_data(v);
    return *this;
  }
  onnx::NodeProto& node(const std::string& op, std::vector<std::string> ins,
                        std::vector<std::string> outs, const std::string& name = "") {
    auto* n = g().add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : ins)
      n->add_input(i);
    for (const auto& o : outs)
      n->add_output(o);
    return *n;
  }
  std::vector<std::byte> bytes() const {
    const std::string s = m_.SerializeAsString();
    std::vector<std::byte> out(s.size());
    if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());
    return out;
  }
  Expected<ImportedModel> import(const OnnxImportOptions& options = {}) const {
    return import_onnx(bytes(), "m.onnx", options);
  }

 private:
  onnx::ModelProto m_;
};

// Stands in for a failed import, already reported, so that the test goes on to fail its checks:
// a graph of one [1] input.
ImportedModel failed_import() {
  ir::Graph graph;
  graph.nodes.push_back(ir::Node{.id = 0, .kind = ir::OpKind::input, .shape = ir::Shape{{1}}});
  Expected<ir::CheckedGraph> checked = ir::check(std::move(graph));
  EXPECT_TRUE(checked.has_value());
  return ImportedModel{.checked = std::move(*checked)};
}

// Imports and returns the model, failing the test with the error when import fails.
ImportedModel ok(const Model& m, const OnnxImportOptions& options = {}) {
  Expected<ImportedModel> r = m.import(options);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  if (!r) return failed_import();
  EXPECT_TRUE(ir::check(r->graph()).has_value());
  return std::move(*r);
}

std::string error_of(const Model& m, const OnnxImportOptions& options = {}) {
  Expected<ImportedModel> r = m.import(options);
  EXPECT_FALSE(r.has_value()) << "imported unexpectedly:\n"
                              << (r ? ::testing::PrintToString(lines(r->graph())) : "");
  if (r) return {};
  EXPECT_EQ(r.error().kind, ErrorKind::invalid_input);
  return r.error().message;
}

const PayloadTensor& tensor_of(const ImportedModel& m, ir::NodeId id, const std::string& name) {
  const PayloadTensor* t = m.payloads.find_tensor(id, name);
  EXPECT_NE(t, nullptr) << "no payload " << name << " on node " << id;
  static const PayloadTensor kEmpty;
  return t != nullptr ? *t : kEmpty;
}

// ---- unary and binary element-wise ops ----

struct OpCase {
  std::string op;
  std::string kind;
};

class UnaryOp : public ::testing::TestWithParam<OpCase> {};

TEST_P(UnaryOp, MapsToItsKind) {
  Model m;
  m.input("x", {2, 3}).output("y");
  m.node(GetParam().op, {"x"}, {"y"}, "n1");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 " + GetParam().kind + " [0] -> [2,3] 'n1'"}));
}
INSTANTIATE_TEST_SUITE_P(Ops, UnaryOp,
                         ::testing::Values(OpCase{"Relu", "relu"}, OpCase{"Sigmoid", "sigmoid"},
                                           OpCase{"Tanh", "tanh"}, OpCase{"Exp", "exp"},
                                           OpCase{"Log", "log"}, OpCase{"Sqrt", "sqrt"},
                                           OpCase{"Abs", "abs"}, OpCase{"Reciprocal", "inv"},
                                           OpCase{"Sin", "sin"}, OpCase{"Cos", "cos"}),
                         [](const auto& info) { return info.param.op; });

class BinaryOp : public ::testing::TestWithParam<OpCase> {};

TEST_P(BinaryOp, EqualShapes) {
  Model m;
  m.input("a", {2, 3}).input("b", {2, 3}).output("y");
  m.node(GetParam().op, {"a", "b"}, {"y"}, "n1");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'a'", "1 input -> [2,3] 'b'",
                                         "2 " + GetParam().kind + " [0,1] -> [2,3] 'n1'"}));
}

TEST_P(BinaryOp, BroadcastsTheSmallerOperand) {
  Model m;
  m.input("a", {2, 3}).input("b", {3}).output("y");
  m.node(GetParam().op, {"a", "b"}, {"y"}, "n1");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'a'", "1 input -> [3] 'b'",
                                         "2 broadcast_to([3]->[2,3]) [1] -> [2,3] 'n1'",
                                         "3 " + GetParam().kind + " [0,2] -> [2,3] 'n1'"}));
}
INSTANTIATE_TEST_SUITE_P(Ops, BinaryOp,
                         ::testing::Values(OpCase{"Add", "add"}, OpCase{"Sub", "sub"},
                                           OpCase{"Mul", "mul_elem"}, OpCase{"Max", "max_elem"},
                                           OpCase{"Min", "min_elem"}),
                         [](const auto& info) { return info.param.op; });

TEST(OnnxImport, BroadcastsBothOperands) {
  Model m;
  m.input("a", {2, 1}).input("b", {1, 3}).output("y");
  m.node("Add", {"a", "b"}, {"y"}, "add");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,1] 'a'", "1 input -> [1,3] 'b'",
                                         "2 broadcast_to([2,1]->[2,3]) [0] -> [2,3] 'add'",
                                         "3 broadcast_to([1,3]->[2,3]) [1] -> [2,3] 'add'",
                                         "4 add [2,3] -> [2,3] 'add'"}));
}

TEST(OnnxImport, VariadicMaxFoldsPairwise) {
  Model m;
  m.input("a", {2}).input("b", {2}).input("c", {}).output("y");
  m.node("Max", {"a", "b", "c"}, {"y"}, "max");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2] 'a'", "1 input -> [2] 'b'", "2 input -> [] 'c'",
                   "3 max_elem [0,1] -> [2] 'max'", "4 broadcast_to([]->[2]) [2] -> [2] 'max'",
                   "5 max_elem [3,4] -> [2] 'max'"}));
  Model one;
  one.input("a", {2}).output("y");
  one.node("Min", {"a"}, {"y"}, "min");
  EXPECT_EQ(lines(ok(one).graph()), (Lines{"0 input -> [2] 'a'"}));
}

TEST(OnnxImport, ScalarInitializerBecomesConstAndBroadcast) {
  Model m;
  m.input("x", {1, 4}).output("y").init("s", {}, {0.125f});
  m.node("Mul", {"x", "s"}, {"y"}, "scale");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [1,4] 'x'", "1 const -> [] 's'",
                                     "2 broadcast_to([]->[1,4]) [1] -> [1,4] 'scale'",
                                     "3 mul_elem [0,2] -> [1,4] 'scale'"}));
  EXPECT_EQ(tensor_of(r, 1, "value").data, std::vector<float>{0.125f});
  EXPECT_EQ(r.graph().output_id, 3u);
}

TEST(OnnxImport, DivLowersToInvAndMul) {
  Model m;
  m.input("x", {2, 2}).output("y").init("d", {}, {8.0f}, false);
  m.node("Div", {"x", "d"}, {"y"}, "div");
  const ImportedModel r = ok(m);
  EXPECT_EQ(
      lines(r.graph()),
      (Lines{"0 input -> [2,2] 'x'", "1 const -> [] 'd'", "2 inv [1] -> [] 'div'",
             "3 broadcast_to([]->[2,2]) [2] -> [2,2] 'div'", "4 mul_elem [0,3] -> [2,2] 'div'"}));
  EXPECT_EQ(tensor_of(r, 1, "value").data, std::vector<float>{8.0f});
}

TEST(OnnxImport, IncompatibleBroadcastIsRejected) {
  Model m;
  m.input("a", {2, 3}).input("b", {4}).output("y");
  m.node("Add", {"a", "b"}, {"y"}, "add");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'add' (Add, opset 17): shapes [2,3] and [4] do not broadcast");
}

// ---- MatMul and Gemm ----

TEST(OnnxImport, MatMul2d) {
  Model m;
  m.input("a", {2, 3}).input("b", {3, 4}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"}, "mm");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'a'", "1 input -> [3,4] 'b'",
                                         "2 matmul [0,1] -> [2,4] 'mm'"}));
}

TEST(OnnxImport, MatMulBatched3d) {
  Model m;
  m.input("a", {5, 2, 3}).input("b", {5, 3, 4}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"}, "mm");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [5,2,3] 'a'", "1 input -> [5,3,4] 'b'",
                                         "2 matmul [0,1] -> [5,2,4] 'mm'"}));
}

TEST(OnnxImport, MatMulRank3ByConstantRank2IsLinear) {
  Model m;
  m.input("x", {2, 5, 3}).output("y").init("w", {3, 2}, {1, 2, 3, 4, 5, 6});
  m.node("MatMul", {"x", "w"}, {"y"}, "proj");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [2,5,3] 'x'", "1 linear [0] -> [2,5,2] 'proj'"}));
  const PayloadTensor& w = tensor_of(r, 1, "weight");
  EXPECT_EQ(dims(w.shape), "[2,3]");
  EXPECT_EQ(w.data, (std::vector<float>{1, 3, 5, 2, 4, 6}));  // B transposed to [out,in]
  EXPECT_EQ(r.payloads.find_tensor(1, "bias"), nullptr);
}

TEST(OnnxImport, MatMulRank3ByVariableRank2Broadcasts) {
  Model m;
  m.input("x", {2, 5, 3}).input("b", {3, 4}).output("y");
  m.node("MatMul", {"x", "b"}, {"y"}, "mm");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,5,3] 'x'", "1 input -> [3,4] 'b'",
                                         "2 broadcast_to([3,4]->[2,3,4]) [1] -> [2,3,4] 'mm'",
                                         "3 matmul [0,2] -> [2,5,4] 'mm'"}));
}

TEST(OnnxImport, MatMulRank4FlattensBatch) {
  Model m;
  m.input("q", {2, 3, 4, 5}).input("k", {2, 3, 5, 4}).output("y");
  m.node("MatMul", {"q", "k"}, {"y"}, "attn");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3,4,5] 'q'", "1 input -> [2,3,5,4] 'k'",
                                         "2 reshape([2,3,4,5]->[6,4,5]) [0] -> [6,4,5] 'attn'",
                                         "3 reshape([2,3,5,4]->[6,5,4]) [1] -> [6,5,4] 'attn'",
                                         "4 matmul [2,3] -> [6,4,4] 'attn'",
                                         "5 reshape([6,4,4]->[2,3,4,4]) [4] -> [2,3,4,4] 'attn'"}));
}

TEST(OnnxImport, MatMulInnerMismatchIsRejected) {
  Model m;
  m.input("a", {2, 3}).input("b", {4, 5}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"}, "mm");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'mm' (MatMul, opset 17): inner dimensions differ: [2,3] x [4,5]");
}

struct GemmCase {
  std::string name;
  std::int64_t trans_b;
  std::vector<std::int64_t> c_dims;  // {-1}: no C
  Lines expected;
  std::vector<float> bias;  // empty: no bias payload
};

class GemmVariant : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmVariant, Imports) {
  const GemmCase& c = GetParam();
  Model m;
  m.input("a", {2, 3}).output("y");
  // B holds the [out=2, in=3] weight {1..6} in whichever layout transB asks for.
  if (c.trans_b != 0) {
    m.init("b", {2, 3}, {1, 2, 3, 4, 5, 6});
  } else {
    m.init("b", {3, 2}, {1, 4, 2, 5, 3, 6});
  }
  std::vector<std::string> ins = {"a", "b"};
  if (c.c_dims != std::vector<std::int64_t>{-1}) {
    std::size_t count = 1;
    for (const auto d : c.c_dims)
      count *= static_cast<std::size_t>(d);
    m.init("c", c.c_dims, iota(count, 10.0f));
    ins.push_back("c");
  }
  auto& n = m.node("Gemm", ins, {"y"}, "fc");
  attr_i(n, "transB", c.trans_b);
  attr_f(n, "alpha", 1.0f);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), c.expected);
  const PayloadTensor& w = tensor_of(r, 1, "weight");
  EXPECT_EQ(dims(w.shape), "[2,3]");
  EXPECT_EQ(w.data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  const PayloadTensor* bias = r.payloads.find_tensor(1, "bias");
  if (c.bias.empty()) {
    EXPECT_EQ(bias, nullptr);
  } else {
    ASSERT_NE(bias, nullptr);
    EXPECT_EQ(bias->data, c.bias);
  }
}

const Lines kLinearOnly = {"0 input -> [2,3] 'a'", "1 linear [0] -> [2,2] 'fc'"};

INSTANTIATE_TEST_SUITE_P(
    Gemm, GemmVariant,
    ::testing::Values(GemmCase{"TransB0NoBias", 0, {-1}, kLinearOnly, {}},
                      GemmCase{"TransB1NoBias", 1, {-1}, kLinearOnly, {}},
                      GemmCase{"TransB1BiasN", 1, {2}, kLinearOnly, {10, 11}},
                      GemmCase{"TransB0Bias1xN", 0, {1, 2}, kLinearOnly, {10, 11}},
                      GemmCase{"ScalarBias", 1, {}, kLinearOnly, {10, 10}},
                      GemmCase{"SingleElementBias", 1, {1}, kLinearOnly, {10, 10}},
                      GemmCase{"MatrixBiasIsAnAdd",
                               1,
                               {2, 2},
                               Lines{"0 input -> [2,3] 'a'", "1 linear [0] -> [2,2] 'fc'",
                                     "2 const -> [2,2] 'c'", "3 add [1,2] -> [2,2] 'fc'"},
                               {}},
                      GemmCase{"ColumnBiasIsBroadcastAdd",
                               1,
                               {2, 1},
                               Lines{"0 input -> [2,3] 'a'", "1 linear [0] -> [2,2] 'fc'",
                                     "2 const -> [2,1] 'c'",
                                     "3 broadcast_to([2,1]->[2,2]) [2] -> [2,2] 'fc'",
                                     "4 add [1,3] -> [2,2] 'fc'"},
                               {}}),
    [](const auto& info) { return info.param.name; });

TEST(OnnxImport, GemmWithVariableBUsesMatmul) {
  Model m;
  m.input("a", {2, 3}).input("b", {4, 3}).output("y");
  attr_i(m.node("Gemm", {"a", "b"}, {"y"}, "g"), "transB", 1);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3] 'a'", "1 input -> [4,3] 'b'",
                   "2 permute(perm=1,0) [1] -> [3,4] 'g'", "3 matmul [0,2] -> [2,4] 'g'"}));
}

struct RejectCase {
  std::string name;
  std::string attr;
  float value;
  std::string message;
};

class GemmRejected : public ::testing::TestWithParam<RejectCase> {};

TEST_P(GemmRejected, NamesTheAttribute) {
  Model m;
  m.input("a", {2, 3}).output("y").init("b", {3, 2}, iota(6)).init("c", {2}, {0, 0});
  auto& n = m.node("Gemm", {"a", "b", "c"}, {"y"}, "fc");
  if (GetParam().attr == "transA") {
    attr_i(n, "transA", static_cast<std::int64_t>(GetParam().value));
  } else {
    attr_f(n, GetParam().attr, GetParam().value);
  }
  EXPECT_EQ(error_of(m), "m.onnx: node 'fc' (Gemm, opset 17): " + GetParam().message);
}
INSTANTIATE_TEST_SUITE_P(
    Gemm, GemmRejected,
    ::testing::Values(
        RejectCase{"Alpha", "alpha", 0.5f, "attribute alpha = 0.5 is not supported; supported: 1"},
        RejectCase{"Beta", "beta", 2.0f, "attribute beta = 2 is not supported; supported: 1"},
        RejectCase{"TransA", "transA", 1.0f,
                   "attribute transA = 1 is not supported; supported: 0"}),
    [](const auto& info) { return info.param.name; });

// ---- Conv and pooling ----

Model conv_model(const std::string& name = "conv1") {
  Model m(11);
  m.input("x", {1, 2, 5, 5}).output("y");
  m.init("w", {3, 2, 3, 3}, iota(54)).init("b", {3}, {0.5f, 1.5f, 2.5f});
  m.node("Conv", {"x", "w", "b"}, {"y"}, name);
  return m;
}

TEST(OnnxImport, ConvWithBiasPadsAndStrides) {
  Model m = conv_model();
  auto& n = *m.g().mutable_node(0);
  attr_ints(n, "pads", {1, 1, 1, 1});
  attr_ints(n, "strides", {2, 2});
  attr_ints(n, "kernel_shape", {3, 3});
  attr_ints(n, "dilations", {1, 1});
  attr_i(n, "group", 1);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [1,2,5,5] 'x'",
                                     "1 conv2d(2->3,k=3x3,s=2,p=1) [0] -> [1,3,3,3] 'conv1'"}));
  EXPECT_EQ(dims(tensor_of(r, 1, "weight").shape), "[3,2,3,3]");
  EXPECT_EQ(tensor_of(r, 1, "weight").data, iota(54));
  EXPECT_EQ(tensor_of(r, 1, "bias").data, (std::vector<float>{0.5f, 1.5f, 2.5f}));
  EXPECT_EQ(r.opset, 11);
}

TEST(OnnxImport, ConvAutoPadSame) {
  Model m = conv_model();
  attr_s(*m.g().mutable_node(0), "auto_pad", "SAME_UPPER");
  EXPECT_EQ(lines(ok(m).graph())[1], "1 conv2d(2->3,k=3x3,s=1,p=1) [0] -> [1,3,5,5] 'conv1'");
}

struct ConvReject {
  std::string name;
  std::function<void(onnx::NodeProto&)> edit;
  std::string message;
};

class ConvRejected : public ::testing::TestWithParam<ConvReject> {};

TEST_P(ConvRejected, NamesAttributeAndValue) {
  Model m = conv_model();
  GetParam().edit(*m.g().mutable_node(0));
  EXPECT_EQ(error_of(m), "m.onnx: node 'conv1' (Conv, opset 11): " + GetParam().message);
}
INSTANTIATE_TEST_SUITE_P(
    Conv, ConvRejected,
    ::testing::Values(
        ConvReject{"Group", [](auto& n) { attr_i(n, "group", 2); },
                   "attribute group = 2 is not supported; supported: 1"},
        ConvReject{"Dilations",
                   [](auto& n) {
                     attr_ints(n, "dilations", {2, 2});
                   },
                   "attribute dilations = [2,2] is not supported; supported: [1,1]"},
        ConvReject{"AsymmetricPads",
                   [](auto& n) {
                     attr_ints(n, "pads", {0, 1, 0, 1});
                   },
                   "attribute pads = [0,1,0,1] is not supported; supported: equal non-negative "
                   "pads on every side of H and W"},
        ConvReject{"UnequalStrides",
                   [](auto& n) {
                     attr_ints(n, "strides", {1, 2});
                   },
                   "attribute strides = [1,2] is not supported; supported: equal positive "
                   "strides on H and W"},
        ConvReject{"UnknownAttribute", [](auto& n) { attr_i(n, "frobnicate", 1); },
                   "attribute frobnicate is not supported for Conv"}),
    [](const auto& info) { return info.param.name; });

TEST(OnnxImport, ConvWeightMustBeConstant) {
  Model m(11);
  m.input("x", {1, 2, 5, 5}).input("w", {3, 2, 3, 3}).output("y");
  m.node("Conv", {"x", "w"}, {"y"}, "c");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'c' (Conv, opset 11): weight 'w' is a graph input, not a constant (an "
            "initializer or a Constant output); it must be one");
}

TEST(OnnxImport, Conv1dIsRejected) {
  Model m(11);
  m.input("x", {1, 2, 5}).output("y").init("w", {3, 2, 3}, iota(18));
  m.node("Conv", {"x", "w"}, {"y"}, "c");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'c' (Conv, opset 11): input [1,2,5] is not (N,C,H,W); only 2-D "
            "convolution is supported");
}

Model pool_model(const std::string& op, std::vector<std::int64_t> kernel = {2, 2}) {
  Model m(11);
  m.input("x", {1, 2, 6, 6}).output("y");
  attr_ints(m.node(op, {"x"}, {"y"}, "pool"), "kernel_shape", std::move(kernel));
  return m;
}

TEST(OnnxImport, MaxPoolPlainAndPadded) {
  Model m = pool_model("MaxPool");
  attr_ints(*m.g().mutable_node(0), "strides", {2, 2});
  EXPECT_EQ(lines(ok(m).graph())[1], "1 max_pool2d(k=2x2,s=2,p=0) [0] -> [1,2,3,3] 'pool'");
  Model p = pool_model("MaxPool", {3, 3});
  attr_ints(*p.g().mutable_node(0), "pads", {1, 1, 1, 1});
  EXPECT_EQ(lines(ok(p).graph())[1], "1 max_pool2d_pad(k=3x3,s=1,p=1) [0] -> [1,2,6,6] 'pool'");
}

TEST(OnnxImport, AveragePoolCountIncludePad) {
  Model m = pool_model("AveragePool", {3, 3});
  attr_ints(*m.g().mutable_node(0), "pads", {1, 1, 1, 1});
  attr_i(*m.g().mutable_node(0), "count_include_pad", 1);
  EXPECT_EQ(lines(ok(m).graph())[1], "1 avg_pool2d_pad(k=3x3,s=1,p=1) [0] -> [1,2,6,6] 'pool'");
  Model plain = pool_model("AveragePool", {2, 3});
  EXPECT_EQ(lines(ok(plain).graph())[1], "1 avg_pool2d(k=2x3,s=1,p=0) [0] -> [1,2,5,4] 'pool'");
}

TEST(OnnxImport, CeilModeAcceptedWhenSameSize) {
  Model m = pool_model("MaxPool");
  attr_ints(*m.g().mutable_node(0), "strides", {2, 2});
  attr_i(*m.g().mutable_node(0), "ceil_mode", 1);
  EXPECT_EQ(lines(ok(m).graph())[1], "1 max_pool2d(k=2x2,s=2,p=0) [0] -> [1,2,3,3] 'pool'");
}

struct PoolReject {
  std::string name;
  std::string op;
  std::function<void(onnx::NodeProto&)> edit;
  std::string message;
};

class PoolRejected : public ::testing::TestWithParam<PoolReject> {};

TEST_P(PoolRejected, NamesTheReason) {
  Model m = pool_model(GetParam().op, {3, 3});
  GetParam().edit(*m.g().mutable_node(0));
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'pool' (" + GetParam().op + ", opset 11): " + GetParam().message);
}
INSTANTIATE_TEST_SUITE_P(
    Pool, PoolRejected,
    ::testing::Values(
        PoolReject{"ExcludePad", "AveragePool",
                   [](auto& n) {
                     attr_ints(n, "pads", {1, 1, 1, 1});
                   },
                   "attribute count_include_pad = 0 with padding 1 is not supported "
                   "(avg_pool2d_pad counts the padding); supported: count_include_pad = 1, or "
                   "no padding"},
        PoolReject{"CeilMode", "AveragePool",
                   [](auto& n) {
                     attr_ints(n, "strides", {2, 2});
                     attr_i(n, "ceil_mode", 1);
                   },
                   "attribute ceil_mode = 1 is not supported; supported: 0, or 1 where it gives "
                   "the same output size as 0 (here it does not)"},
        PoolReject{"StorageOrder", "MaxPool", [](auto& n) { attr_i(n, "storage_order", 1); },
                   "attribute storage_order = 1 is not supported; supported: 0"},
        PoolReject{"Dilations", "MaxPool",
                   [](auto& n) {
                     attr_ints(n, "dilations", {2, 2});
                   },
                   "attribute dilations = [2,2] is not supported; supported: [1,1]"},
        PoolReject{"Indices", "MaxPool", [](auto& n) { n.add_output("idx"); },
                   "has a second output Indices ('idx'); only the first output is supported"},
        PoolReject{"UnequalStrides", "MaxPool",
                   [](auto& n) {
                     attr_ints(n, "strides", {1, 2});
                   },
                   "attribute strides = [1,2] is not supported; supported: equal positive "
                   "strides on H and W"}),
    [](const auto& info) { return info.param.name; });

TEST(OnnxImport, MaxPoolIndicesUsedAsGraphOutputIsRejected) {
  Model m = pool_model("MaxPool");
  m.g().mutable_node(0)->add_output("idx");
  m.g().mutable_output(0)->set_name("idx");
  EXPECT_NE(error_of(m).find("second output Indices ('idx')"), std::string::npos);
}

TEST(OnnxImport, Pool3dIsRejected) {
  Model m(11);
  m.input("x", {1, 2, 4, 4, 4}).output("y");
  attr_ints(m.node("MaxPool", {"x"}, {"y"}, "p"), "kernel_shape", {2, 2, 2});
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'p' (MaxPool, opset 11): input [1,2,4,4,4] is not (N,C,H,W); only 2-D "
            "max pooling is supported");
}

TEST(OnnxImport, GlobalAveragePool) {
  Model m;
  m.input("x", {2, 3, 7, 5}).output("y");
  m.node("GlobalAveragePool", {"x"}, {"y"}, "gap");
  EXPECT_EQ(lines(ok(m).graph())[1], "1 avg_pool2d(k=7x5,s=1,p=0) [0] -> [2,3,1,1] 'gap'");
}

// ---- normalization and softmax ----

Model bn_model(std::int64_t opset = 15) {
  Model m(opset);
  m.input("x", {1, 2, 3, 3}).output("y");
  m.init("s", {2}, {1, 2}).init("bias", {2}, {3, 4}).init("mean", {2}, {5, 6});
  m.init("var", {2}, {7, 8});
  m.node("BatchNormalization", {"x", "s", "bias", "mean", "var"}, {"y"}, "bn");
  return m;
}

TEST(OnnxImport, BatchNormalizationInference) {
  Model m = bn_model();
  attr_f(*m.g().mutable_node(0), "epsilon", 1e-3f);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [1,2,3,3] 'x'",
                                     "1 batch_norm2d_nchw_eval(c=2) [0] -> [1,2,3,3] 'bn'"}));
  EXPECT_EQ(tensor_of(r, 1, "scale").data, (std::vector<float>{1, 2}));
  EXPECT_EQ(tensor_of(r, 1, "bias").data, (std::vector<float>{3, 4}));
  EXPECT_EQ(tensor_of(r, 1, "mean").data, (std::vector<float>{5, 6}));
  EXPECT_EQ(tensor_of(r, 1, "var").data, (std::vector<float>{7, 8}));
  EXPECT_FLOAT_EQ(static_cast<float>(*r.payloads.find_attribute(1, "epsilon")), 1e-3f);
}

TEST(OnnxImport, BatchNormalizationTrainingIsRejected) {
  Model m = bn_model();
  attr_i(*m.g().mutable_node(0), "training_mode", 1);
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'bn' (BatchNormalization, opset 15): attribute training_mode = 1 is "
            "not supported; supported: 0 (inference)");
  Model outs = bn_model();
  outs.g().mutable_node(0)->add_output("running_mean");
  EXPECT_NE(error_of(outs).find("has 2 outputs (training form)"), std::string::npos);
}

TEST(OnnxImport, SoftmaxAxes) {
  Model m(13);
  m.input("x", {2, 3, 4}).output("y");
  attr_i(m.node("Softmax", {"x"}, {"y"}, "sm"), "axis", -2);
  EXPECT_EQ(lines(ok(m).graph())[1], "1 softmax(axis=1) [0] -> [2,3,4] 'sm'");
  Model d(13);
  d.input("x", {2, 3, 4}).output("y");
  d.node("Softmax", {"x"}, {"y"}, "sm");
  EXPECT_EQ(lines(ok(d).graph())[1], "1 softmax(axis=2) [0] -> [2,3,4] 'sm'");
}

TEST(OnnxImport, SoftmaxBeforeOpset13CoercesTo2d) {
  Model m(11);
  m.input("x", {2, 3, 4}).output("y");
  m.node("Softmax", {"x"}, {"y"}, "sm");  // default axis 1: rows of 3*4
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3,4] 'x'", "1 reshape([2,3,4]->[2,12]) [0] -> [2,12] 'sm'",
                   "2 softmax(axis=1) [1] -> [2,12] 'sm'",
                   "3 reshape([2,12]->[2,3,4]) [2] -> [2,3,4] 'sm'"}));
}

Model ln_model(std::vector<float> scale, std::vector<float> bias,
               std::vector<std::int64_t> scale_dims = {4},
               std::vector<std::int64_t> bias_dims = {4}) {
  Model m(17);
  m.input("x", {2, 4}).output("y").init("g", std::move(scale_dims), std::move(scale));
  std::vector<std::string> ins = {"x", "g"};
  if (!bias.empty()) {
    m.init("b", std::move(bias_dims), std::move(bias));
    ins.push_back("b");
  }
  m.node("LayerNormalization", ins, {"y"}, "ln");
  return m;
}

TEST(OnnxImport, LayerNormalizationIdentityAffineIsOneNode) {
  const ImportedModel ones_zeros = ok(ln_model({1, 1, 1, 1}, {0, 0, 0, 0}));
  EXPECT_EQ(lines(ones_zeros.graph()),
            (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'"}));
  EXPECT_EQ(ones_zeros.graph().output_id, 1u);
  EXPECT_EQ(lines(ok(ln_model({1, 1, 1, 1}, {})).graph()),
            (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'"}));
}

TEST(OnnxImport, LayerNormalizationScaleAndBias) {
  Model m(17);
  m.input("x", {2, 3, 4})
      .output("y")
      .init("g", {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
      .init("b", {4}, {0.5f, -1, 0, 2});
  attr_i(m.node("LayerNormalization", {"x", "g", "b"}, {"y"}, "ln"), "axis", 1);
  const ImportedModel r = ok(m);
  EXPECT_EQ(
      lines(r.graph()),
      (Lines{"0 input -> [2,3,4] 'x'", "1 layernorm(axis=1) [0] -> [2,3,4] 'ln'",
             "2 const -> [3,4] 'g'", "3 broadcast_to([3,4]->[2,3,4]) [2] -> [2,3,4] 'ln'",
             "4 mul_elem [1,3] -> [2,3,4] 'ln'", "5 const -> [4] 'b'",
             "6 broadcast_to([4]->[2,3,4]) [5] -> [2,3,4] 'ln'", "7 add [4,6] -> [2,3,4] 'ln'"}));
  EXPECT_EQ(r.graph().output_id, 7u);
  EXPECT_EQ(tensor_of(r, 2, "value").shape, (ir::Shape{{3, 4}}));
  EXPECT_EQ(tensor_of(r, 2, "value").data,
            (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(tensor_of(r, 5, "value").shape, (ir::Shape{{4}}));
  EXPECT_EQ(tensor_of(r, 5, "value").data, (std::vector<float>{0.5f, -1, 0, 2}));
}

TEST(OnnxImport, LayerNormalizationScaleOnly) {
  for (const bool with_zero_bias : {false, true}) {
    const ImportedModel r = ok(ln_model(
        {1, 2, 1, 1}, with_zero_bias ? std::vector<float>{0, 0, 0, 0} : std::vector<float>{}));
    EXPECT_EQ(lines(r.graph()),
              (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'",
                     "2 const -> [4] 'g'", "3 broadcast_to([4]->[2,4]) [2] -> [2,4] 'ln'",
                     "4 mul_elem [1,3] -> [2,4] 'ln'"}));
    EXPECT_EQ(tensor_of(r, 2, "value").data, (std::vector<float>{1, 2, 1, 1}));
    EXPECT_EQ(r.graph().output_id, 4u);
  }
}

TEST(OnnxImport, LayerNormalizationBiasOnly) {
  const ImportedModel r = ok(ln_model({1}, {0, 0, 1, 0}, {1}, {4}));
  EXPECT_EQ(
      lines(r.graph()),
      (Lines{"0 input -> [2,4] 'x'", "1 layernorm(axis=1) [0] -> [2,4] 'ln'", "2 const -> [4] 'b'",
             "3 broadcast_to([4]->[2,4]) [2] -> [2,4] 'ln'", "4 add [1,3] -> [2,4] 'ln'"}));
  EXPECT_EQ(tensor_of(r, 2, "value").data, (std::vector<float>{0, 0, 1, 0}));
  EXPECT_EQ(r.graph().output_id, 4u);
}

TEST(OnnxImport, LayerNormalizationRejections) {
  EXPECT_EQ(error_of(ln_model({1, 2, 3}, {}, {3})),
            "m.onnx: node 'ln' (LayerNormalization, opset 17): Scale 'g' has shape [3], which does "
            "not broadcast to the normalized dims [4] (X.shape[1:])");
  EXPECT_EQ(error_of(ln_model({1, 1, 1, 1}, {0, 0, 0, 0, 0, 0, 0, 0}, {4}, {2, 4})),
            "m.onnx: node 'ln' (LayerNormalization, opset 17): B 'b' has shape [2,4], which does "
            "not broadcast to the normalized dims [4] (X.shape[1:])");
  Model input(17);
  input.input("x", {2, 4}).input("g", {4}).output("y");
  input.node("LayerNormalization", {"x", "g"}, {"y"}, "ln");
  EXPECT_EQ(error_of(input),
            "m.onnx: node 'ln' (LayerNormalization, opset 17): Scale 'g' is a graph input, not a "
            "constant (an initializer or a Constant output); it must be one");
  Model eps = ln_model({1, 2, 1, 1}, {});
  attr_f(*eps.g().mutable_node(0), "epsilon", 1e-3f);
  EXPECT_NE(error_of(eps).find("attribute epsilon = "), std::string::npos);
  Model extra = ln_model({1, 1, 1, 1}, {});
  extra.g().mutable_node(0)->add_output("mean");
  extra.g().mutable_output(0)->set_name("mean");
  EXPECT_EQ(error_of(extra),
            "m.onnx: node 'ln' (LayerNormalization, opset 17): output 1 Mean ('mean') is used; "
            "only the first output is supported");
}

// ---- shape ops ----

TEST(OnnxImport, ReshapeResolvesZeroAndMinusOne) {
  Model m(14);
  m.input("x", {2, 3, 4}).output("y").init_i64("s", {0, -1});
  m.node("Reshape", {"x", "s"}, {"y"}, "r");
  EXPECT_EQ(lines(ok(m).graph())[1], "1 reshape([2,3,4]->[2,12]) [0] -> [2,12] 'r'");
  Model z(14);
  z.input("x", {2, 3, 4}).output("y").init_i64("s", {0, 0, -1});
  z.node("Reshape", {"x", "s"}, {"y"}, "r");
  EXPECT_EQ(ok(z).graph().nodes.size(), 1u);  // same shape: no node; output is the input
}

TEST(OnnxImport, ReshapeRejections) {
  Model m(14);
  m.input("x", {2, 3}).output("y").init_i64("s", {6});
  attr_i(m.node("Reshape", {"x", "s"}, {"y"}, "r"), "allowzero", 1);
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'r' (Reshape, opset 14): attribute allowzero = 1 is not supported; "
            "supported: 0");
  Model v(14);
  v.input("x", {2, 3}).input("s", {1}, onnx::TensorProto_DataType_INT64).output("y");
  v.node("Reshape", {"x", "s"}, {"y"}, "r");
  // The op's need for a constant is the reason, not the input's data type.
  EXPECT_EQ(error_of(v),
            "m.onnx: node 'r' (Reshape, opset 14): shape 's' is a graph input, not a constant (an "
            "initializer or a Constant output); it must be one");
  Model bad(14);
  bad.input("x", {2, 3}).output("y").init_i64("s", {4, -1});
  bad.node("Reshape", {"x", "s"}, {"y"}, "r");
  EXPECT_EQ(error_of(bad), "m.onnx: node 'r' (Reshape, opset 14): cannot reshape [2,3] to [4,-1]");
}

class FlattenAxis : public ::testing::TestWithParam<std::pair<std::int64_t, std::string>> {};

TEST_P(FlattenAxis, ReshapesTo2d) {
  Model m(13);
  m.input("x", {2, 3, 4}).output("y");
  attr_i(m.node("Flatten", {"x"}, {"y"}, "f"), "axis", GetParam().first);
  EXPECT_EQ(lines(ok(m).graph())[1], GetParam().second);
}
INSTANTIATE_TEST_SUITE_P(
    Flatten, FlattenAxis,
    ::testing::Values(std::pair{std::int64_t{0}, "1 reshape([2,3,4]->[1,24]) [0] -> [1,24] 'f'"},
                      std::pair{std::int64_t{1}, "1 reshape([2,3,4]->[2,12]) [0] -> [2,12] 'f'"},
                      std::pair{std::int64_t{-1}, "1 reshape([2,3,4]->[6,4]) [0] -> [6,4] 'f'"},
                      std::pair{std::int64_t{3}, "1 reshape([2,3,4]->[24,1]) [0] -> [24,1] 'f'"}));

TEST(OnnxImport, ConcatAndTranspose) {
  Model m;
  m.input("a", {2, 3}).input("b", {2, 5}).output("t");
  attr_i(m.node("Concat", {"a", "b"}, {"c"}, "cat"), "axis", -1);
  m.node("Transpose", {"c"}, {"t"}, "tr");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'a'", "1 input -> [2,5] 'b'",
                                         "2 concat(axis=1) [0,1] -> [2,8] 'cat'",
                                         "3 permute(perm=1,0) [2] -> [8,2] 'tr'"}));
  Model p;
  p.input("x", {2, 3, 4}).output("y");
  attr_ints(p.node("Transpose", {"x"}, {"y"}, "tr"), "perm", {0, 2, 1});
  EXPECT_EQ(lines(ok(p).graph())[1], "1 permute(perm=0,2,1) [0] -> [2,4,3] 'tr'");
}

TEST(OnnxImport, ReduceSumAxesInputKeepdims) {
  Model m(13);
  m.input("x", {2, 3, 4}).output("y").init_i64("ax", {-2});
  m.node("ReduceSum", {"x", "ax"}, {"y"}, "rs");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3,4] 'x'", "1 reduce_sum(axis=1) [0] -> [2,4] 'rs'",
                   "2 reshape([2,4]->[2,1,4]) [1] -> [2,1,4] 'rs'"}));
  Model k(13);
  k.input("x", {2, 3, 4}).output("y").init_i64("ax", {1});
  attr_i(k.node("ReduceSum", {"x", "ax"}, {"y"}, "rs"), "keepdims", 0);
  EXPECT_EQ(lines(ok(k).graph()),
            (Lines{"0 input -> [2,3,4] 'x'", "1 reduce_sum(axis=1) [0] -> [2,4] 'rs'"}));
}

TEST(OnnxImport, ReduceMeanAxesAttribute) {
  Model m(13);
  m.input("x", {2, 3, 4, 5}).output("y");
  auto& n = m.node("ReduceMean", {"x"}, {"y"}, "rm");
  attr_ints(n, "axes", {2, 3});
  attr_i(n, "keepdims", 0);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3,4,5] 'x'", "1 reduce_mean(axis=3) [0] -> [2,3,4] 'rm'",
                   "2 reduce_mean(axis=2) [1] -> [2,3] 'rm'"}));
}

TEST(OnnxImport, SqueezeUnsqueeze) {
  Model m(13);
  m.input("x", {2, 1, 3}).output("y").init_i64("a", {1}).init_i64("b", {0});
  m.node("Squeeze", {"x", "a"}, {"s"}, "sq");
  m.node("Unsqueeze", {"s", "b"}, {"y"}, "us");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,1,3] 'x'", "1 reshape([2,1,3]->[2,3]) [0] -> [2,3] 'sq'",
                   "2 reshape([2,3]->[1,2,3]) [1] -> [1,2,3] 'us'"}));
}

TEST(OnnxImport, IdentityAndDropoutAreRemoved) {
  Model m(13);
  m.input("x", {2, 3}).output("y");
  m.node("Identity", {"x"}, {"i"}, "id");
  m.node("Dropout", {"i"}, {"d"}, "drop");
  m.node("Relu", {"d"}, {"y"}, "relu");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [2,3] 'x'", "1 relu [0] -> [2,3] 'relu'"}));
  EXPECT_EQ(r.graph().output_id, 1u);
}

TEST(OnnxImport, IdentityOfSharedWeightFoldsIntoLinear) {
  Model m;
  m.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(6));
  m.node("Identity", {"w"}, {"w2"}, "share");
  m.node("MatMul", {"x", "w2"}, {"y"}, "mm");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'x'", "1 linear [0] -> [2,2] 'mm'"}));
}

// A graph input that is not float32 is rejected for its data type when a node consumes it as a
// tensor (or nothing consumes it), and for not being a constant when an op needs one there.
struct NonFloatInputCase {
  std::string name;
  std::function<void(Model&)> build;
  std::string expected;
};

class OnnxNonFloatInput : public ::testing::TestWithParam<NonFloatInputCase> {};

TEST_P(OnnxNonFloatInput, NamesTheRealReason) {
  Model m(13);
  m.input("x", {2, 3}).input("i", {2}, onnx::TensorProto_DataType_INT64).output("y");
  GetParam().build(m);
  EXPECT_EQ(error_of(m), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, OnnxNonFloatInput,
    ::testing::Values(
        NonFloatInputCase{"ConsumedAsTensor",
                          [](Model& m) {
                            m.node("Add", {"x", "i"}, {"y"}, "add");
                          },
                          "m.onnx: input 'i' has data type int64; only float32 tensors are "
                          "supported"},
        NonFloatInputCase{"AliasedThenConsumed",
                          [](Model& m) {
                            m.node("Identity", {"i"}, {"j"}, "id");
                            m.node("Add", {"x", "j"}, {"y"}, "add");
                          },
                          "m.onnx: input 'i' has data type int64; only float32 tensors are "
                          "supported"},
        NonFloatInputCase{"NeverConsumed", [](Model& m) { m.node("Relu", {"x"}, {"y"}, "r"); },
                          "m.onnx: input 'i' has data type int64; only float32 tensors are "
                          "supported"},
        NonFloatInputCase{"ReduceSumAxes",
                          [](Model& m) {
                            m.node("ReduceSum", {"x", "i"}, {"y"}, "sum");
                          },
                          "m.onnx: node 'sum' (ReduceSum, opset 13): axes 'i' is a graph input, "
                          "not a constant (an initializer or a Constant output); it must be one"},
        NonFloatInputCase{"UnsqueezeAxes",
                          [](Model& m) {
                            m.node("Unsqueeze", {"x", "i"}, {"y"}, "u");
                          },
                          "m.onnx: node 'u' (Unsqueeze, opset 13): axes 'i' is a graph input, "
                          "not a constant (an initializer or a Constant output); it must be one"}),
    [](const auto& info) { return info.param.name; });

TEST(OnnxImport, NonFloatInputAsGraphOutput) {
  Model m(13);
  m.input("x", {2, 3}).input("i", {2}, onnx::TensorProto_DataType_INT64).output("i");
  m.node("Relu", {"x"}, {"y"}, "r");
  EXPECT_EQ(error_of(m),
            "m.onnx: input 'i' has data type int64; only float32 tensors are supported");
}

TEST(OnnxImport, OnlyNonFloatInputs) {
  Model m(13);
  m.input("i", {2}, onnx::TensorProto_DataType_INT64).output("y");
  m.node("Relu", {"i"}, {"y"}, "r");
  EXPECT_EQ(error_of(m),
            "m.onnx: input 'i' has data type int64; only float32 tensors are supported");
}

TEST(OnnxImport, DropoutTrainingOrMaskIsRejected) {
  Model m(13);
  m.input("x", {2, 3}).output("m");
  m.node("Dropout", {"x"}, {"y", "m"}, "drop");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'drop' (Dropout, opset 13): output 1 mask ('m') is used; only the "
            "first output is supported");
  Model t(13);
  t.input("x", {2, 3}).input("train", {}, onnx::TensorProto_DataType_BOOL).output("y");
  t.node("Dropout", {"x", "", "train"}, {"y"}, "drop");
  EXPECT_EQ(error_of(t),
            "m.onnx: node 'drop' (Dropout, opset 13): input training_mode 'train' is not a "
            "constant false; only inference is supported");
}

// ---- Pad ----

Model pad_model(std::vector<std::int64_t> pads, const std::string& next) {
  Model m(13);
  m.input("x", {1, 2, 4, 4}).output("y").init_i64("pads", std::move(pads));
  if (next == "MaxPoolAfterRelu") {
    m.node("Relu", {"x"}, {"r"}, "relu");
    m.node("Pad", {"r", "pads"}, {"p"}, "pad");
  } else {
    m.node("Pad", {"x", "pads"}, {"p"}, "pad");
  }
  if (next == "Conv") {
    m.init("w", {3, 2, 3, 3}, iota(54));
    attr_ints(m.node("Conv", {"p", "w"}, {"y"}, "conv"), "pads", {1, 1, 1, 1});
  } else if (next == "AveragePool") {
    auto& n = m.node("AveragePool", {"p"}, {"y"}, "pool");
    attr_ints(n, "kernel_shape", {3, 3});
    attr_ints(n, "strides", {1, 1});
  } else if (next == "MaxPool" || next == "MaxPoolAfterRelu") {
    attr_ints(m.node("MaxPool", {"p"}, {"y"}, "pool"), "kernel_shape", {3, 3});
  } else {
    m.node(next, {"p"}, {"y"}, "next");
  }
  return m;
}

TEST(OnnxImport, ZeroPadIsRemoved) {
  EXPECT_EQ(lines(ok(pad_model({0, 0, 0, 0, 0, 0, 0, 0}, "Relu")).graph()),
            (Lines{"0 input -> [1,2,4,4] 'x'", "1 relu [0] -> [1,2,4,4] 'next'"}));
}

TEST(OnnxImport, PadFoldsIntoConvAndPools) {
  EXPECT_EQ(
      lines(ok(pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "Conv")).graph()),
      (Lines{"0 input -> [1,2,4,4] 'x'", "1 conv2d(2->3,k=3x3,s=1,p=2) [0] -> [1,3,6,6] 'conv'"}));
  EXPECT_EQ(lines(ok(pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "AveragePool")).graph()),
            (Lines{"0 input -> [1,2,4,4] 'x'",
                   "1 avg_pool2d_pad(k=3x3,s=1,p=1) [0] -> [1,2,4,4] 'pool'"}));
  EXPECT_EQ(lines(ok(pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "MaxPoolAfterRelu")).graph()),
            (Lines{"0 input -> [1,2,4,4] 'x'", "1 relu [0] -> [1,2,4,4] 'relu'",
                   "2 max_pool2d_pad(k=3x3,s=1,p=1) [1] -> [1,2,4,4] 'pool'"}));
}

TEST(OnnxImport, PadRejections) {
  EXPECT_EQ(error_of(pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "Relu")),
            "m.onnx: node 'pad' (Pad, opset 13): pads [0,0,1,1,0,0,1,1] cannot be folded: output "
            "'p' is consumed by node 'next' (Relu); nonzero pads fold only into a following Conv, "
            "MaxPool or AveragePool");
  EXPECT_EQ(error_of(pad_model({0, 0, 1, 2, 0, 0, 1, 2}, "Conv")),
            "m.onnx: node 'pad' (Pad, opset 13): pads [0,0,1,2,0,0,1,2] are not supported; "
            "supported: all zero, or equal non-negative pads on H and W of an (N,C,H,W) tensor "
            "folded into a following Conv, MaxPool or AveragePool");
  EXPECT_NE(error_of(pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "MaxPool"))
                .find("node 'pool' (MaxPool, opset 13): cannot fold the zero padding of Pad node "
                      "'pad'"),
            std::string::npos);
  Model reflect = pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "Conv");
  attr_s(*reflect.g().mutable_node(0), "mode", "reflect");
  EXPECT_EQ(error_of(reflect),
            "m.onnx: node 'pad' (Pad, opset 13): attribute mode = reflect is not supported; "
            "supported: constant");
}

// ---- constants, dtypes, inputs ----

TEST(OnnxImport, ConstantNodeBecomesConstPayload) {
  Model m;
  m.input("x", {3}).output("y");
  auto& c = m.node("Constant", {}, {"k"}, "k_node");
  auto& a = new_attr(c, "value", onnx::AttributeProto_AttributeType_TENSOR);
  fill_tensor(*a.mutable_t(), "", {3}, {1.5f, 2.5f, 3.5f}, false);
  m.node("Add", {"x", "k"}, {"y"}, "add");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [3] 'x'", "1 const -> [3] 'k_node'", "2 add [0,1] -> [3] 'add'"}));
  EXPECT_EQ(tensor_of(r, 1, "value").data, (std::vector<float>{1.5f, 2.5f, 3.5f}));
}

TEST(OnnxImport, UnnamedNodesGetGeneratedNames) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"a"});
  m.node("Tanh", {"a"}, {"y"});
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2] 'x'", "1 relu [0] -> [2] 'Relu_0'",
                                         "2 tanh [1] -> [2] 'Tanh_1'"}));
}

TEST(OnnxImport, DtypeRejectionsNameTheTensor) {
  Model in;
  in.input("x", {2}, onnx::TensorProto_DataType_UINT8).output("x");
  EXPECT_EQ(error_of(in),
            "m.onnx: input 'x' has data type uint8; only float32 tensors are supported");
  Model init;
  init.input("x", {2}).output("y");
  auto* t = init.g().add_initializer();
  t->set_name("d");
  t->set_data_type(onnx::TensorProto_DataType_DOUBLE);
  t->add_dims(2);
  t->add_double_data(1.0);
  t->add_double_data(2.0);
  init.node("Add", {"x", "d"}, {"y"}, "add");
  EXPECT_EQ(error_of(init),
            "m.onnx: node 'add' (Add, opset 17): tensor 'd' has data type float64; only float32 "
            "tensors are supported");
}

TEST(OnnxImport, TensorDataIsChecked) {
  Model count;
  count.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(5));
  count.node("MatMul", {"x", "w"}, {"y"}, "mm");
  EXPECT_EQ(error_of(count),
            "m.onnx: tensor 'w': raw_data holds 20 bytes, dims [3,2] of float32 need 24");
  Model ext;
  ext.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(6));
  auto* w = ext.g().mutable_initializer(0);
  w->clear_raw_data();
  w->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto* e = w->add_external_data();
  e->set_key("location");
  e->set_value("weights.bin");
  EXPECT_EQ(error_of(ext),
            "m.onnx: tensor 'w' keeps its data in an external file (external_data); external "
            "data is not supported");
}

TEST(OnnxImport, DynamicDimensionAndTheFix) {
  Model m;
  m.input("x", {-1, 3, 224, 224}).output("y");
  m.node("Relu", {"x"}, {"y"}, "r");
  EXPECT_EQ(error_of(m),
            "m.onnx: dimension 0 of input 'x' is dynamic ('batch'); fix it with --input-shape "
            "x=1,3,224,224");
  const ImportedModel r = ok(m, {.input_shapes = {{"x", {4, 3, 224, 224}}}});
  EXPECT_EQ(lines(r.graph())[0], "0 input -> [4,3,224,224] 'x'");
  EXPECT_EQ(error_of(m, {.input_shapes = {{"x", {4, 5, 224, 224}}}}),
            "m.onnx: input shape [4,5,224,224] given for input 'x' has 5 at dimension 1, the "
            "model fixes it to 3");
  EXPECT_EQ(error_of(m, {.input_shapes = {{"z", {1}}}}),
            "m.onnx: an input shape is given for 'z', which is not a graph input; inputs: 'x'");
}

// ---- broken files and model-level rejections ----

TEST(OnnxImport, EmptyTruncatedAndCorruptBytes) {
  Model m;
  m.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(6));
  m.node("MatMul", {"x", "w"}, {"y"}, "mm");
  const std::vector<std::byte> good = m.bytes();
  const auto run = [](std::span<const std::byte> b) {
    Expected<ImportedModel> r = import_onnx(b, "bad.onnx");
    EXPECT_FALSE(r.has_value());
    return r ? std::string() : r.error().message;
  };
  EXPECT_EQ(run({}), "bad.onnx: not a valid ONNX model: the input is empty");
  // Every truncation fails cleanly, with a parse error or a named missing part.
  for (std::size_t n = 1; n < good.size(); ++n) {
    Expected<ImportedModel> r = import_onnx(std::span(good).first(n), "bad.onnx");
    ASSERT_FALSE(r.has_value()) << n;
    EXPECT_EQ(r.error().kind, ErrorKind::invalid_input);
    EXPECT_EQ(r.error().message.rfind("bad.onnx: ", 0), 0u) << r.error().message;
  }
  EXPECT_EQ(run(std::span(good).first(good.size() - 3)).find("bad.onnx: not a valid ONNX model"),
            0u);
  std::vector<std::byte> corrupt(64, std::byte{0xFF});
  EXPECT_EQ(run(corrupt),
            "bad.onnx: not a valid ONNX model: the protobuf bytes are truncated or corrupt (64 "
            "bytes)");
  const std::string text = "{\"format\": \"torchlean.ir.v1\"}";
  std::vector<std::byte> json(text.size());
  std::memcpy(json.data(), text.data(), text.size());
  EXPECT_EQ(run(json).find("bad.onnx: not a valid ONNX model"), 0u);
}

// The bytes of `m` with its graph field's payload replaced by `graph_payload` (serialized
// GraphProto fields, in any order), after the model's other fields.
std::string with_graph_payload(const onnx::ModelProto& m, const std::string& graph_payload) {
  onnx::ModelProto rest = m;
  rest.clear_graph();
  return rest.SerializeAsString() +
         delimited_field(onnx::ModelProto::kGraphFieldNumber, graph_payload);
}

// The importer reads a graph's nodes one by one from the serialized bytes (onnx_model_split.hpp).
// Protobuf defines a message as the concatenation of its fields, so the same model may come with
// its graph in several pieces, nodes interleaved with other graph fields: each form imports
// exactly as the one ModelProto that protobuf parses from the bytes.
TEST(OnnxImport, GraphInPiecesImportsAsTheParsedModel) {
  Model head;  // ir_version, opset, producer; the graph's input and output
  head.input("x", {2, 3}).output("z");
  onnx::GraphProto part1;
  auto* relu = part1.add_node();
  relu->set_op_type("Relu");
  relu->set_name("r");
  relu->add_input("x");
  relu->add_output("y");
  onnx::GraphProto part2;
  fill_tensor(*part2.add_initializer(), "b", {3}, {1, 2, 3}, true);
  onnx::GraphProto part3;
  auto* add = part3.add_node();
  add->set_op_type("Add");
  add->set_name("a");
  add->add_input("y");
  add->add_input("b");
  add->add_output("z");
  // One graph field whose payload interleaves node, initializer, node; then the same model with
  // the graph split over two graph fields, the second one after the model's other fields.
  const std::string graph_head = head.proto().graph().SerializeAsString();
  onnx::ModelProto rest = head.proto();
  rest.clear_graph();
  const int graph_field = onnx::ModelProto::kGraphFieldNumber;
  const std::string interleaved =
      with_graph_payload(head.proto(), graph_head + part1.SerializeAsString() +
                                           part2.SerializeAsString() + part3.SerializeAsString());
  const std::string two_graphs =
      delimited_field(graph_field, part1.SerializeAsString() + graph_head) +
      rest.SerializeAsString() +
      delimited_field(graph_field, part2.SerializeAsString() + part3.SerializeAsString());
  const Lines expected = {"0 input -> [2,3] 'x'", "1 relu [0] -> [2,3] 'r'", "2 const -> [3] 'b'",
                          "3 broadcast_to([3]->[2,3]) [2] -> [2,3] 'a'",
                          "4 add [1,3] -> [2,3] 'a'"};
  for (const std::string* bytes : {&interleaved, &two_graphs}) {
    onnx::ModelProto parsed;
    ASSERT_TRUE(parsed.ParseFromString(*bytes));
    ASSERT_EQ(parsed.graph().node_size(), 2);
    Expected<ImportedModel> r = import_onnx(to_bytes(*bytes), "m.onnx");
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_EQ(lines(r->graph()), expected);
    EXPECT_EQ(r->producer, "test");
    EXPECT_EQ(r->opset, 17);
  }
}

// A graph field the node walk does not take (here a `node` field with the varint wire type,
// which protobuf keeps as an unknown field) sends the whole model to protobuf's full parse:
// accepted exactly as protobuf accepts it.
TEST(OnnxImport, UnusualFramingFallsBackToTheFullParse) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"}, "r");
  const std::string odd_node = varint_field(onnx::GraphProto::kNodeFieldNumber, 5);
  const std::string bytes =
      with_graph_payload(m.proto(), m.proto().graph().SerializeAsString() + odd_node);
  onnx::ModelProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  Expected<ImportedModel> r = import_onnx(to_bytes(bytes), "m.onnx");
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(lines(r->graph()), (Lines{"0 input -> [2] 'x'", "1 relu [0] -> [2] 'r'"}));
}

// Framing intact but a node's own bytes broken: the error names the node's position.
TEST(OnnxImport, CorruptNodeBytesNameTheNode) {
  Model m;
  m.input("x", {2}).output("z");
  m.node("Relu", {"x"}, {"y"}, "r");
  const std::string broken_node(6, '\xFF');  // a tag whose varint never ends
  const std::string bytes = with_graph_payload(
      m.proto(), m.proto().graph().SerializeAsString() +
                     delimited_field(onnx::GraphProto::kNodeFieldNumber, broken_node));
  Expected<ImportedModel> r = import_onnx(to_bytes(bytes), "bad.onnx");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "bad.onnx: not a valid ONNX model: the protobuf bytes of graph node 1 (0-based) are "
            "truncated or corrupt");
}

// The first problem in node order is the one reported, with or without payloads: moving a weight
// into its payload indexes every node's inputs, which must not report a corrupt node that comes
// after an unsupported operator (found by fuzz_onnx's differential check).
TEST(OnnxImport, FirstProblemInNodeOrderIsReportedWithOrWithoutPayloads) {
  Model m;
  m.input("x", {2, 3}).output("z").init("w", {3, 2}, iota(6));
  m.node("MatMul", {"x", "w"}, {"y"}, "mm");
  m.node("Celu", {"y"}, {"z"}, "celu");
  const std::string broken_node(6, '\xFF');
  const std::string bytes = with_graph_payload(
      m.proto(), m.proto().graph().SerializeAsString() +
                     delimited_field(onnx::GraphProto::kNodeFieldNumber, broken_node));
  OnnxImportOptions shapes_only;
  shapes_only.keep_payloads = false;
  for (const OnnxImportOptions& options : {OnnxImportOptions{}, shapes_only}) {
    Expected<ImportedModel> r = import_onnx(to_bytes(bytes), "bad.onnx", options);
    ASSERT_FALSE(r.has_value());
    EXPECT_TRUE(r.error().message.starts_with(
        "bad.onnx: node 'celu' (Celu, opset 17): operator Celu is not supported"))
        << r.error().message;
  }
}

// A chain of `n` Relu nodes x -> t0 -> ... -> y.
Model relu_chain(int n) {
  Model m;
  m.input("x", {2}).output("y");
  for (int i = 0; i < n; ++i) {
    m.node("Relu", {i == 0 ? "x" : "t" + std::to_string(i - 1)},
           {i == n - 1 ? "y" : "t" + std::to_string(i)}, "r" + std::to_string(i));
  }
  return m;
}

TEST(OnnxImport, LargeGraphImportsEveryNodeInOrder) {
  const Model m = relu_chain(20000);
  const ImportedModel r = ok(m);
  ASSERT_EQ(r.graph().nodes.size(), 20001u);
  for (std::size_t i = 1; i < r.graph().nodes.size(); ++i) {
    const ir::Node& node = r.graph().nodes[i];
    ASSERT_EQ(node.kind, OpKind::relu) << i;
    ASSERT_EQ(node.source_name, "r" + std::to_string(i - 1));
    ASSERT_EQ(node.parents, ir::Parents{static_cast<ir::NodeId>(i - 1)});
  }
  EXPECT_EQ(r.graph().output_id, 20000u);
}

// A failure in the middle of a large graph names the node; a corrupt node there is named by its
// position.
TEST(OnnxImport, LargeGraphFailuresNameTheNode) {
  Model unsupported = relu_chain(20000);
  unsupported.g().mutable_node(7000)->set_op_type("Celu");
  EXPECT_EQ(error_of(unsupported)
                .rfind("m.onnx: node 'r7000' (Celu, opset 17): operator Celu is "
                       "not supported; supported: ",
                       0),
            0u);

  Model head = relu_chain(20000);
  onnx::GraphProto nodes;
  nodes.mutable_node()->Swap(head.g().mutable_node());
  std::string graph = head.proto().graph().SerializeAsString();
  for (int i = 0; i < nodes.node_size(); ++i) {
    const std::string node =
        i == 12345 ? std::string(6, '\xFF') : nodes.node(i).SerializeAsString();
    graph += delimited_field(onnx::GraphProto::kNodeFieldNumber, node);
  }
  const std::string bytes = with_graph_payload(head.proto(), graph);
  Expected<ImportedModel> r = import_onnx(to_bytes(bytes), "bad.onnx");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "bad.onnx: not a valid ONNX model: the protobuf bytes of graph node 12345 (0-based) "
            "are truncated or corrupt");
}

TEST(OnnxImport, FileErrors) {
  Expected<ImportedModel> missing = import_onnx_file("/nonexistent/m.onnx");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message,
            "/nonexistent/m.onnx: cannot read ONNX model: no such file or directory");
  Expected<ImportedModel> dir = import_onnx_file(std::filesystem::temp_directory_path());
  ASSERT_FALSE(dir.has_value());
  EXPECT_NE(dir.error().message.find("cannot read ONNX model: is a directory"), std::string::npos);
}

TEST(OnnxImport, OpsetAndDomainRejections) {
  Model m(18);
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"}, "r");
  EXPECT_EQ(error_of(m),
            "m.onnx: opset 18 of the default ONNX domain is not supported; supported: 1..17");
  Model d;
  d.input("x", {2}).output("y");
  d.node("FusedThing", {"x"}, {"y"}, "f").set_domain("com.microsoft");
  EXPECT_EQ(error_of(d),
            "m.onnx: node 'f' (FusedThing, opset 17): domain 'com.microsoft' is not supported; "
            "supported: the default ONNX domain");
  Model noir;
  noir.proto().clear_ir_version();
  noir.input("x", {2}).output("x");
  EXPECT_EQ(error_of(noir), "m.onnx: not a valid ONNX model: ir_version is missing");
}

TEST(OnnxImport, UnsupportedOperatorListsSupported) {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Erf", {"x"}, {"y"}, "erf1");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'erf1' (Erf, opset 17): operator Erf is not supported; supported: Abs, "
            "Add, AveragePool, BatchNormalization, Concat, Constant, Conv, Cos, Div, Dropout, Exp, "
            "Flatten, Gemm, GlobalAveragePool, GlobalMaxPool, Identity, LayerNormalization, Log, "
            "MatMul, Max, MaxPool, Min, Mul, Pad, Reciprocal, ReduceMean, ReduceSum, Relu, "
            "Reshape, Sigmoid, Sin, Softmax, Sqrt, Squeeze, Sub, Tanh, Transpose, Unsqueeze");
}

TEST(OnnxImport, SeveralGraphOutputsAreRejected) {
  Model m;
  m.input("x", {2}).output("a").output("b");
  m.node("Relu", {"x"}, {"a"}, "r");
  m.node("Tanh", {"x"}, {"b"}, "t");
  EXPECT_EQ(error_of(m),
            "m.onnx: model has 2 graph outputs ('a', 'b'); the IR has exactly one output");
}

TEST(OnnxImport, SupportedOpsAreSorted) {
  const auto ops = supported_onnx_ops();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  EXPECT_TRUE(std::adjacent_find(ops.begin(), ops.end()) == ops.end());
}

TEST(OnnxImport, ProducerAndOpset) {
  Model m(13);
  m.proto().set_producer_version("1.0");
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"}, "r");
  const ImportedModel r = ok(m);
  EXPECT_EQ(r.producer, "test 1.0");
  EXPECT_EQ(r.opset, 13);
}

// ---- a few models of ONNX's own node-test corpus ----

struct CorpusCase {
  std::string test;
  std::string expected;  // the first node lines joined by '|', or "error: <fragment>"
};

class OnnxCorpus : public ::testing::TestWithParam<CorpusCase> {};

TEST_P(OnnxCorpus, Imports) {
  const std::filesystem::path path =
      std::filesystem::path(NNPLAN_ONNX_CONFORMANCE_DIR) / GetParam().test / "model.onnx";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  Expected<ImportedModel> r = import_onnx_file(path);
  const std::string& want = GetParam().expected;
  if (want.starts_with("error: ")) {
    ASSERT_FALSE(r.has_value());
    EXPECT_NE(r.error().message.find(want.substr(7)), std::string::npos) << r.error().message;
    return;
  }
  ASSERT_TRUE(r.has_value()) << r.error().message;
  std::string got;
  for (const std::string& l : lines(r->graph()))
    got += (got.empty() ? "" : "|") + l;
  EXPECT_EQ(got, want);
}
INSTANTIATE_TEST_SUITE_P(
    Corpus, OnnxCorpus,
    ::testing::Values(
        CorpusCase{"test_relu", "0 input -> [3,4,5] 'x'|1 relu [0] -> [3,4,5] 'Relu_0'"},
        CorpusCase{"test_add",
                   "0 input -> [3,4,5] 'x'|1 input -> [3,4,5] 'y'|2 add [0,1] -> [3,4,5] 'Add_0'"},
        CorpusCase{"test_matmul_2d",
                   "0 input -> [3,4] 'a'|1 input -> [4,3] 'b'|2 matmul [0,1] -> [3,3] 'MatMul_0'"},
        CorpusCase{"test_maxpool_2d_pads",
                   "0 input -> [1,3,28,28] 'x'|1 max_pool2d_pad(k=3x3,s=1,p=2) [0] -> [1,3,30,30] "
                   "'MaxPool_0'"},
        CorpusCase{"test_conv_with_strides_no_padding",
                   "error: weight 'W' is a graph input, not a constant"},
        CorpusCase{"test_add_uint8", "error: input 'x' has data type uint8"}),
    [](const auto& info) { return info.param.test; });

// ---- weights: left in the file's bytes, decoded only for payloads ----

// A model with every kind of weight use: conv weight and bias, batch norm parameters, Gemm with
// transB 0 and 1 and a row bias, MatMul by a constant, a constant broadcast into an Add, and a
// non-identity LayerNorm scale (its values decide the graph).
Model weighted_model() {
  Model m(17);
  m.input("x", {1, 2, 4, 4}).output("y");
  m.init("w", {3, 2, 3, 3}, iota(54)).init("b", {3}, {0.5f, 1.5f, 2.5f});
  m.init("s", {3}, {1, 2, 3}).init("bb", {3}, {0, 1, 0}).init("mu", {3}, {0, 0, 1});
  m.init("var", {3}, {1, 1, 2});
  attr_ints(m.node("Conv", {"x", "w", "b"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  m.node("BatchNormalization", {"c", "s", "bb", "mu", "var"}, {"n"}, "bn");
  m.node("GlobalAveragePool", {"n"}, {"p"}, "gap");
  m.node("Flatten", {"p"}, {"f"}, "flat");
  m.init("g1", {3, 4}, iota(12)).init("gb", {4}, {1, 2, 3, 4});
  m.node("Gemm", {"f", "g1", "gb"}, {"h"}, "gemm");
  m.init("g2", {5, 4}, iota(20, -3.0f));
  attr_i(m.node("Gemm", {"h", "g2"}, {"k"}, "gemm_t"), "transB", 1);
  m.init("mm", {5, 2}, iota(10)).init("two", {}, {2.0f});
  m.node("MatMul", {"k", "mm"}, {"l"}, "mm");
  m.node("Add", {"l", "two"}, {"z"}, "add");
  m.init("ln_g", {2}, {1, 3});
  attr_i(m.node("LayerNormalization", {"z", "ln_g"}, {"y"}, "ln"), "axis", 1);
  return m;
}

TEST(OnnxImport, WithoutPayloadsTheGraphIsTheSameAndNoWeightIsKept) {
  const ImportedModel full = ok(weighted_model());
  OnnxImportOptions shapes_only;
  shapes_only.keep_payloads = false;
  const ImportedModel planned = ok(weighted_model(), shapes_only);
  EXPECT_EQ(lines(planned.graph()), lines(full.graph()));
  EXPECT_EQ(lines(full.graph()).size(), 15u);  // the LayerNorm scale is not all ones: a mul_elem
  EXPECT_EQ(planned.graph().output_id, full.graph().output_id);
  EXPECT_TRUE(planned.payloads.tensors.empty());
  EXPECT_TRUE(planned.payloads.attributes.empty());
  // The full import decoded every weight from the file's bytes.
  EXPECT_EQ(tensor_of(full, 1, "weight").data, iota(54));
  EXPECT_EQ(tensor_of(full, 1, "bias").data, (std::vector<float>{0.5f, 1.5f, 2.5f}));
  EXPECT_EQ(tensor_of(full, 2, "var").data, (std::vector<float>{1, 1, 2}));
  EXPECT_EQ(full.payloads.tensors.size(), 12u);  // conv 2, bn 4, gemm 2 + 1, mm 1, consts 2
  EXPECT_TRUE(check_payloads(full.graph(), full.payloads).has_value());
}

TEST(OnnxImport, WithoutPayloadsWeightsAreStillChecked) {
  OnnxImportOptions shapes_only;
  shapes_only.keep_payloads = false;
  Model count;
  count.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(5));
  count.node("MatMul", {"x", "w"}, {"y"}, "mm");
  EXPECT_EQ(error_of(count, shapes_only),
            "m.onnx: tensor 'w': raw_data holds 20 bytes, dims [3,2] of float32 need 24");
  Model dtype;
  dtype.input("x", {3}).output("y").init_i64("w", {1, 2, 3});
  dtype.node("Add", {"x", "w"}, {"y"}, "add");
  EXPECT_EQ(error_of(dtype, shapes_only), error_of(dtype));
}

}  // namespace
}  // namespace nnplan::format
