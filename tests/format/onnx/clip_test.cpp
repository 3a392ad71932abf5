// Clip, HardSigmoid and HardSwish (onnx/operators/clip.cpp): clamp nodes, with Clip's bounds from
// attributes before opset 11 and from constant inputs after; hard_sigmoid and hard_swish nodes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <limits>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ::testing::HasSubstr;

void scalar_constant(Model& m, const std::string& out, float v) {
  onnx::NodeProto& n = m.node("Constant", {}, {out}, out + "_node");
  fill_tensor(*new_attr(n, "value", onnx::AttributeProto_AttributeType_TENSOR).mutable_t(), "", {},
              {v}, false);
}

TEST(OnnxImport, ClipAsTorchWritesRelu6) {
  Model m(17);
  m.input("x", {1, 8}).output("y");
  scalar_constant(m, "lo", 0.0F);
  scalar_constant(m, "hi", 6.0F);
  m.node("Clip", {"x", "lo", "hi"}, {"y"}, "relu6");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [1,8] 'x'", "1 clamp(min=0,max=6) [0] -> [1,8] 'relu6'"}));
}

TEST(OnnxImport, ClipBoundsAreOptional) {
  Model m(13);
  m.input("x", {3}).output("a").output("b").output("c").init("lo", {}, {-1.5F});
  m.init("hi", {}, {2.0F});
  m.node("Clip", {"x", "lo"}, {"a"}, "min_only");
  m.node("Clip", {"x", "", "hi"}, {"b"}, "max_only");
  m.node("Clip", {"x"}, {"c"}, "none");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [3] 'x'", "1 clamp(min=-1.5,max=null) [0] -> [3] 'min_only'",
                   "2 clamp(min=null,max=2) [0] -> [3] 'max_only'",
                   "3 clamp(min=null,max=null) [0] -> [3] 'none'"}));
}

TEST(OnnxImport, ClipAttributesBeforeOpset11) {
  Model m(6);
  m.input("x", {3}).output("a").output("b");
  onnx::NodeProto& n = m.node("Clip", {"x"}, {"a"}, "both");
  attr_f(n, "min", 0.0F);
  attr_f(n, "max", 6.0F);
  attr_f(m.node("Clip", {"x"}, {"b"}, "max_only"), "max", 1.0F);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [3] 'x'", "1 clamp(min=0,max=6) [0] -> [3] 'both'",
                   "2 clamp(min=null,max=1) [0] -> [3] 'max_only'"}));
}

TEST(OnnxImport, ClipInfiniteBoundOnItsOwnSideIsNoBound) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  Model m(11);
  m.input("x", {3}).output("y").init("lo", {}, {-inf}).init("hi", {}, {inf});
  m.node("Clip", {"x", "lo", "hi"}, {"y"}, "c");
  EXPECT_EQ(lines(ok(m).graph())[1], "1 clamp(min=null,max=null) [0] -> [3] 'c'");
}

TEST(OnnxImport, ClipRefusals) {
  Model input(13);
  input.input("x", {3}).input("lo", {}).output("y");
  input.node("Clip", {"x", "lo"}, {"y"}, "c");
  EXPECT_THAT(unsupported_of(input), HasSubstr("'c' (Clip): min 'lo' is a graph input"));
  Model computed(13);
  computed.input("x", {3}).output("y").init("z", {}, {0.0F});
  computed.node("Relu", {"z"}, {"lo"}, "r");
  computed.node("Clip", {"x", "lo"}, {"y"}, "c");
  EXPECT_THAT(unsupported_of(computed), HasSubstr("min 'lo' is not a constant"));
  Model crossed(13);
  crossed.input("x", {3}).output("y").init("lo", {}, {2.0F}).init("hi", {}, {1.0F});
  crossed.node("Clip", {"x", "lo", "hi"}, {"y"}, "c");
  EXPECT_THAT(unsupported_of(crossed), HasSubstr("min 2 is above max 1"));
  Model nan(13);
  nan.input("x", {3}).output("y").init("lo", {}, {std::numeric_limits<float>::quiet_NaN()});
  nan.node("Clip", {"x", "lo"}, {"y"}, "c");
  EXPECT_THAT(unsupported_of(nan), HasSubstr("min is NaN"));
  Model vector(13);
  vector.input("x", {3}).output("y").init("lo", {2}, {0.0F, 1.0F});
  vector.node("Clip", {"x", "lo"}, {"y"}, "c");
  EXPECT_THAT(error_of(vector), HasSubstr("min 'lo' has 2 elements; Clip's bounds are scalars"));
}

TEST(OnnxImport, HardSigmoidIsOneNodeWithItsAlphaAndBeta) {
  Model m(17);
  m.input("x", {2, 3}).output("a").output("b");
  m.node("HardSigmoid", {"x"}, {"a"}, "hs");
  onnx::NodeProto& n = m.node("HardSigmoid", {"x"}, {"b"}, "hs2");
  attr_f(n, "alpha", 0.25F);
  attr_f(n, "beta", -1.0F);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 hard_sigmoid(alpha=0.2,beta=0.5) [0] -> [2,3] 'hs'",
                   "2 hard_sigmoid(alpha=0.25,beta=-1) [0] -> [2,3] 'hs2'"}));
}

TEST(OnnxImport, HardSwishIsOneNode) {
  Model m(14);
  m.input("x", {4}).output("y");
  m.node("HardSwish", {"x"}, {"y"}, "hsw");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [4] 'x'", "1 hard_swish [0] -> [4] 'hsw'"}));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
