// GELU (onnx/operators/gelu.cpp): the Erf and tanh patterns exporters write, each one `gelu`
// node, in every arrangement the importer accepts; near misses that fall back to the node-by-node
// import (where Erf is refused); and the Gelu operator of opset 20.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>
#include <algorithm>

#include <string>
#include <vector>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ::testing::HasSubstr;

constexpr float kSqrt2 = 1.4142135F;  // what torch writes: sqrt(2) rounded to float
constexpr float kInvSqrt2 = 0.70710678F;
constexpr float kBeta = 0.7978845608F;  // sqrt(2/pi)
constexpr float kKappa = 0.044715F;

// A Constant node writing scalar `v` (a 0-d float tensor) to `out`, as torch writes one.
void constant(Model& m, const std::string& out, float v) {
  onnx::NodeProto& n = m.node("Constant", {}, {out}, out + "_node");
  fill_tensor(*new_attr(n, "value", onnx::AttributeProto_AttributeType_TENSOR).mutable_t(), "", {},
              {v}, false);
}

// The Erf GELU: each constant a Constant node just before its use (or, with `inits`, an
// initializer), Div by sqrt(2) (or Mul by 1/sqrt(2)), the constants on the side `swap` says, and
// the 0.5 applied last (or to x first, before or after the Div).
struct ErfForm {
  std::string label;
  bool mul_inverse = false;  // Mul(x, 1/sqrt(2)) for the Div
  bool swap = false;         // constants first in Add and Mul, x second in Mul(x, .)
  int half = 0;              // 0: Mul(., 0.5) last; 1: Mul(x, 0.5) first; 2: after the Div
  bool inits = false;        // constants as initializers
};

void erf_gelu(Model& m, const ErfForm& f, const std::string& x = "x", const std::string& y = "g") {
  const auto c = [&](const std::string& name, float v) {
    if (f.inits) {
      m.init(name, {}, {v});
    } else {
      constant(m, name, v);
    }
  };
  const auto pair = [&](const std::string& a, const std::string& b) {
    return f.swap ? std::vector<std::string>{b, a} : std::vector<std::string>{a, b};
  };
  if (f.half == 1) {
    c("half", 0.5F);
    m.node("Mul", pair(x, "half"), {"h"}, "half_mul");
  }
  if (f.mul_inverse) {
    c("inv_sqrt2", kInvSqrt2);
    m.node("Mul", pair(x, "inv_sqrt2"), {"d"}, "div");
  } else {
    c("sqrt2", kSqrt2);
    m.node("Div", {x, "sqrt2"}, {"d"}, "div");
  }
  if (f.half == 2) {
    c("half", 0.5F);
    m.node("Mul", pair(x, "half"), {"h"}, "half_mul");
  }
  m.node("Erf", {"d"}, {"e"}, "erf");
  c("one", 1.0F);
  m.node("Add",
         f.swap ? std::vector<std::string>{"one", "e"} : std::vector<std::string>{"e", "one"},
         {"a"}, "add");
  if (f.half == 0) {
    m.node("Mul", pair(x, "a"), {"p"}, "mul");
    c("half", 0.5F);
    m.node("Mul",
           f.swap ? std::vector<std::string>{"half", "p"} : std::vector<std::string>{"p", "half"},
           {y}, "mul_1");
  } else {
    m.node("Mul", pair("h", "a"), {y}, "mul_1");
  }
}

class ErfGelu : public ::testing::TestWithParam<ErfForm> {};

TEST_P(ErfGelu, IsOneGeluNode) {
  Model m;
  m.input("x", {2, 3}).output("y");
  erf_gelu(m, GetParam());
  m.node("Relu", {"g"}, {"y"}, "after");
  const ImportedModel r = ok(m);
  // The gelu takes the name of the pattern's first node.
  const std::string first = GetParam().half == 1 ? "half_mul" : "div";
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 gelu(none) [0] -> [2,3] '" + first + "'",
                   "2 relu [1] -> [2,3] 'after'"}));
}

INSTANTIATE_TEST_SUITE_P(
    OnnxImport, ErfGelu,
    ::testing::Values(ErfForm{.label = "torch"},
                      ErfForm{.label = "mul_inverse", .mul_inverse = true},
                      ErfForm{.label = "swapped", .swap = true},
                      ErfForm{.label = "swapped_mul_inverse", .mul_inverse = true, .swap = true},
                      ErfForm{.label = "half_first", .half = 1},
                      ErfForm{.label = "half_after_div", .half = 2},
                      ErfForm{.label = "half_first_swapped", .swap = true, .half = 1},
                      ErfForm{.label = "initializers", .inits = true},
                      ErfForm{.label = "initializers_half_first", .half = 1, .inits = true}),
    [](const auto& info) { return info.param.label; });

TEST(OnnxImport, ErfGeluAsAGraphOutputAndTwice) {
  Model m;
  m.input("x", {4}).output("g").output("g2");
  erf_gelu(m, {});
  // A second GELU on the first's output, with initializers of other names.
  m.init("s2", {}, {kSqrt2}).init("o2", {}, {1.0F}).init("h2", {}, {0.5F});
  m.node("Div", {"g", "s2"}, {"d2"}, "div2");
  m.node("Erf", {"d2"}, {"e2"}, "erf2");
  m.node("Add", {"e2", "o2"}, {"a2"}, "add2");
  m.node("Mul", {"g", "a2"}, {"p2"}, "mul2");
  m.node("Mul", {"p2", "h2"}, {"g2"}, "mul2_1");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [4] 'x'", "1 gelu(none) [0] -> [4] 'div'",
                                     "2 gelu(none) [1] -> [4] 'div2'"}));
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{1, 2}));
}

TEST(OnnxImport, ErfGeluOfAComputedTensorKeepsItsParent) {
  Model m;
  m.input("in", {2, 5}).output("y");
  m.node("Sigmoid", {"in"}, {"x"}, "sig");
  erf_gelu(m, {.half = 1});
  m.node("Sigmoid", {"g"}, {"y"}, "sig2");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,5] 'in'", "1 sigmoid [0] -> [2,5] 'sig'",
                   "2 gelu(none) [1] -> [2,5] 'half_mul'", "3 sigmoid [2] -> [2,5] 'sig2'"}));
}

// Near misses of the Erf form: each falls back to the node-by-node import, its Erf an erf node.
struct ErfMiss {
  std::string label;
  void (*spoil)(Model&);
};

class ErfGeluNearMiss : public ::testing::TestWithParam<ErfMiss> {};

TEST_P(ErfGeluNearMiss, FallsBackToAnErfNode) {
  Model m;
  m.input("x", {2, 3}).output("g");
  erf_gelu(m, {.inits = true});
  GetParam().spoil(m);
  const ImportedModel r = ok(m);
  const auto& nodes = r.graph().nodes;
  EXPECT_TRUE(std::any_of(nodes.begin(), nodes.end(),
                          [](const ir::Node& n) { return n.kind == ir::OpKind::erf; }));
  EXPECT_TRUE(std::none_of(nodes.begin(), nodes.end(),
                           [](const ir::Node& n) { return n.kind == ir::OpKind::gelu; }));
}

onnx::TensorProto& init_named(Model& m, const std::string& name) {
  for (auto& t : *m.g().mutable_initializer())
    if (t.name() == name) return t;
  ADD_FAILURE() << "no initializer " << name;
  return *m.g().mutable_initializer(0);
}

INSTANTIATE_TEST_SUITE_P(
    OnnxImport, ErfGeluNearMiss,
    ::testing::Values(
        ErfMiss{"erf_used_twice",
                [](Model& m) {
                  m.output("e2");
                  m.node("Relu", {"e"}, {"e2"}, "other_use");
                }},
        ErfMiss{"erf_is_a_graph_output", [](Model& m) { m.output("e"); }},
        ErfMiss{"add_used_twice",
                [](Model& m) {
                  m.output("a2");
                  m.node("Relu", {"a"}, {"a2"}, "other_use");
                }},
        ErfMiss{"div_by_1_5",
                [](Model& m) { fill_tensor(init_named(m, "sqrt2"), "sqrt2", {}, {1.5F}, true); }},
        ErfMiss{"sqrt2_off_by_2e_6",
                [](Model& m) {
                  fill_tensor(init_named(m, "sqrt2"), "sqrt2", {}, {kSqrt2 * (1 + 2e-6F)}, true);
                }},
        ErfMiss{"add_2",
                [](Model& m) { fill_tensor(init_named(m, "one"), "one", {}, {2.0F}, true); }},
        ErfMiss{"half_0_4999",
                [](Model& m) { fill_tensor(init_named(m, "half"), "half", {}, {0.4999F}, true); }},
        ErfMiss{"sqrt2_not_a_scalar",
                [](Model& m) {
                  fill_tensor(init_named(m, "sqrt2"), "sqrt2", {3}, {kSqrt2, kSqrt2, kSqrt2}, true);
                }},
        // The constant has rank 3, so the Div's result would be (1,2,3), not x's shape.
        ErfMiss{"constant_of_higher_rank",
                [](Model& m) {
                  fill_tensor(init_named(m, "one"), "one", {1, 1, 1}, {1.0F}, true);
                }},
        ErfMiss{"other_tensor_multiplied",
                [](Model& m) {
                  m.input("z", {2, 3});
                  m.g().mutable_node(3)->set_input(0, "z");  // Mul(z, a) instead of Mul(x, a)
                }}),
    [](const auto& info) { return info.param.label; });

TEST(OnnxImport, NodesImportedWithAGeluAreNotListedWhenAnotherIsUnsupported) {
  Model m;
  m.input("x", {2, 3}).output("y");
  erf_gelu(m, {});
  m.node("Det", {"g"}, {"y"}, "det");
  EXPECT_THAT(unsupported_of(m), HasSubstr("'det' (Det): operator Det is not supported"));
}

TEST(OnnxImport, LoneErfIsAnErfNode) {
  Model m;
  m.input("x", {3}).output("y");
  m.node("Erf", {"x"}, {"y"}, "my_erf");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [3] 'x'", "1 erf [0] -> [3] 'my_erf'"}));
}

// The tanh GELU as torch writes it (x*(x*x), constants first in Mul) and as Hugging Face's
// gelu_new writes it (Pow(x, 3), 0.5*x first).
void torch_tanh_gelu(Model& m, float kappa = kKappa) {
  m.node("Mul", {"x", "x"}, {"xx"}, "sq");
  m.node("Mul", {"x", "xx"}, {"cube"}, "cube");
  constant(m, "kappa", kappa);
  m.node("Mul", {"kappa", "cube"}, {"k"}, "kappa_mul");
  m.node("Add", {"x", "k"}, {"i"}, "inner");
  constant(m, "beta", kBeta);
  m.node("Mul", {"beta", "i"}, {"s"}, "beta_mul");
  m.node("Tanh", {"s"}, {"t"}, "tanh");
  constant(m, "one", 1.0F);
  m.node("Add", {"one", "t"}, {"a"}, "add");
  m.node("Mul", {"x", "a"}, {"p"}, "mul");
  constant(m, "half", 0.5F);
  m.node("Mul", {"half", "p"}, {"g"}, "mul_1");
}

void hf_tanh_gelu(Model& m) {
  m.init("half", {}, {0.5F}).init("three", {}, {3.0F}).init("kappa", {}, {kKappa});
  m.init("beta", {}, {kBeta}).init("one", {}, {1.0F});
  m.node("Mul", {"half", "x"}, {"h"}, "half_mul");
  m.node("Pow", {"x", "three"}, {"cube"}, "pow");
  m.node("Mul", {"kappa", "cube"}, {"k"}, "kappa_mul");
  m.node("Add", {"x", "k"}, {"i"}, "inner");
  m.node("Mul", {"beta", "i"}, {"s"}, "beta_mul");
  m.node("Tanh", {"s"}, {"t"}, "tanh");
  m.node("Add", {"one", "t"}, {"a"}, "add");
  m.node("Mul", {"h", "a"}, {"g"}, "mul_1");
}

TEST(OnnxImport, TanhGeluAsTorchWritesIt) {
  Model m;
  m.input("x", {2, 8}).output("g");
  torch_tanh_gelu(m);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,8] 'x'", "1 gelu(tanh) [0] -> [2,8] 'sq'"}));
}

TEST(OnnxImport, TanhGeluWithPowAndTheHalfFirst) {
  Model m;
  m.input("x", {2, 8}).output("g");
  hf_tanh_gelu(m);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,8] 'x'", "1 gelu(tanh) [0] -> [2,8] 'half_mul'"}));
}

TEST(OnnxImport, TanhGeluWithPowFirst) {
  Model m;
  m.input("x", {2, 8}).output("g");
  hf_tanh_gelu(m);
  m.g().mutable_node()->SwapElements(0, 1);  // Pow before Mul(0.5, x)
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,8] 'x'", "1 gelu(tanh) [0] -> [2,8] 'pow'"}));
}

TEST(OnnxImport, TanhGeluNearMissesImportNodeByNode) {
  // kappa 0.05: every node imported as itself.
  Model m;
  m.input("x", {4}).output("g");
  torch_tanh_gelu(m, 0.05F);
  const Lines got = lines(ok(m).graph());
  ASSERT_EQ(got.size(), 18u) << ::testing::PrintToString(got);
  EXPECT_EQ(got[1], "1 mul_elem [0,0] -> [4] 'sq'");
  EXPECT_EQ(got[2], "2 mul_elem [0,1] -> [4] 'cube'");
  EXPECT_EQ(got[10], "10 tanh [9] -> [4] 'tanh'");

  // The cube also a graph output: used outside the pattern.
  Model o;
  o.input("x", {4}).output("g").output("cube");
  torch_tanh_gelu(o);
  const Lines got_o = lines(ok(o).graph());
  for (const std::string& l : got_o)
    EXPECT_THAT(l, ::testing::Not(HasSubstr("gelu"))) << l;
  EXPECT_EQ(got_o[1], "1 mul_elem [0,0] -> [4] 'sq'");
}

TEST(OnnxImport, GeluOperatorOfOpset20) {
  Model m(20);
  m.input("x", {2, 3}).output("y").output("z");
  m.node("Gelu", {"x"}, {"y"}, "g");
  attr_s(m.node("Gelu", {"x"}, {"z"}, "gt"), "approximate", "tanh");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'x'", "1 gelu(none) [0] -> [2,3] 'g'",
                                         "2 gelu(tanh) [0] -> [2,3] 'gt'"}));
  Model bad(20);
  bad.input("x", {2, 3}).output("y");
  attr_s(bad.node("Gelu", {"x"}, {"y"}, "g"), "approximate", "erf");
  EXPECT_THAT(error_of(bad),
              HasSubstr("attribute approximate = 'erf' is not a GELU approximation"));
  Model early(17);
  early.input("x", {2, 3}).output("y");
  early.node("Gelu", {"x"}, {"y"}, "g");
  EXPECT_THAT(error_of(early),
              HasSubstr("(Gelu, opset 17): operator Gelu does not exist before opset 20"));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
