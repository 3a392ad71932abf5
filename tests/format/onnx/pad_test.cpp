// Pad (onnx/operators/pad.cpp): zero pads removed, spatial pads folded into the next window op.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

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
      (Lines{"0 input -> [1,2,4,4] 'x'",
             "1 conv(2->3,k=3x3,s=1x1,p=2x2,pa=2x2,d=1x1,g=1,axis=1) [0] -> [1,3,6,6] 'conv'"}));
  EXPECT_EQ(
      lines(ok(pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "AveragePool")).graph()),
      (Lines{"0 input -> [1,2,4,4] 'x'", "1 avg_pool(k=3x3,s=1x1,p=1x1) [0] -> [1,2,4,4] 'pool'"}));
  EXPECT_EQ(lines(ok(pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "MaxPoolAfterRelu")).graph()),
            (Lines{"0 input -> [1,2,4,4] 'x'", "1 relu [0] -> [1,2,4,4] 'relu'",
                   "2 max_pool(k=3x3,s=1x1,p=1x1) [1] -> [1,2,4,4] 'pool'"}));
}

// A Pad that does not fold is explicit: constant blocks concatenated, gathers for edge and
// reflect, slices for negative pads.
TEST(OnnxImport, PadsThatDoNotFoldAreExplicit) {
  // Consumed by a Relu: zero blocks on H and W.
  EXPECT_EQ(
      lines(ok(pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "Relu")).graph()),
      (Lines{"0 input -> [1,2,4,4] 'x'", "1 const -> [1,2,1,4] 'pad'", "2 const -> [1,2,1,4] 'pad'",
             "3 concat(axis=2) [1,0,2] -> [1,2,6,4] 'pad'", "4 const -> [1,2,6,1] 'pad'",
             "5 const -> [1,2,6,1] 'pad'", "6 concat(axis=3) [4,3,5] -> [1,2,6,6] 'pad'",
             "7 relu [6] -> [1,2,6,6] 'next'"}));
  // Unequal pads before a Conv, and a MaxPool over a value that may be negative.
  EXPECT_EQ(lines(ok(pad_model({0, 0, 1, 2, 0, 0, 1, 2}, "Conv")).graph()).size(), 8U);
  EXPECT_EQ(ok(pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "MaxPool")).graph().nodes.back().kind,
            ir::OpKind::max_pool);
  // SAME padding after it is computed from the padded input: explicit, not folded.
  Model same = pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "Conv");
  onnx::NodeProto& conv = *same.g().mutable_node(1);
  conv.clear_attribute();
  attr_s(conv, "auto_pad", "SAME_UPPER");
  EXPECT_EQ(ok(same).graph().nodes[3].kind, ir::OpKind::concat);
  // Reflect and edge: one gather per padded axis, at the indices the mode reads.
  Model reflect = pad_model({0, 0, 2, 1, 0, 0, 1, 1}, "Conv");
  attr_s(*reflect.g().mutable_node(0), "mode", "reflect");
  const ImportedModel r = ok(reflect);
  EXPECT_EQ(lines(r.graph())[1], "1 gather(axis=2) [0] -> [1,2,7,4] 'pad'");
  const auto ints = [](std::span<const std::int64_t> v) {
    return std::vector<std::int64_t>(v.begin(), v.end());
  };
  EXPECT_EQ(ints(tensor_of(r, 1, "indices").ints()),
            (std::vector<std::int64_t>{2, 1, 0, 1, 2, 3, 2}));
  EXPECT_EQ(ints(tensor_of(r, 2, "indices").ints()), (std::vector<std::int64_t>{1, 0, 1, 2, 3, 2}));
  Model edge = pad_model({0, 0, 2, 0, 0, 0, 1, 0}, "Conv");
  attr_s(*edge.g().mutable_node(0), "mode", "edge");
  EXPECT_EQ(ints(tensor_of(ok(edge), 1, "indices").ints()),
            (std::vector<std::int64_t>{0, 0, 0, 1, 2, 3, 3}));
  // Negative pads crop.
  EXPECT_EQ(lines(ok(pad_model({0, 0, -1, 0, 0, 0, 0, -2}, "Relu")).graph()),
            (Lines{"0 input -> [1,2,4,4] 'x'", "1 slice [0] -> [1,2,3,4] 'pad'",
                   "2 slice [1] -> [1,2,3,2] 'pad'", "3 relu [2] -> [1,2,3,2] 'next'"}));
  // Refusals.
  Model wrap = pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "Conv");
  attr_s(*wrap.g().mutable_node(0), "mode", "wrap");
  EXPECT_EQ(unsupported_of(wrap),
            "node 0 'pad' (Pad): attribute mode = wrap is not supported; supported: constant, "
            "edge, reflect");
  EXPECT_THAT(error_of(pad_model({0, 0, -5, 0, 0, 0, 0, 0}, "Relu")),
              ::testing::HasSubstr("crop more than axis 2 of [1,2,4,4] holds"));
  // A pad of 2^40 would be a constant block of 2^43 floats: refused before anything is allocated.
  EXPECT_THAT(unsupported_of(pad_model({0, 0, 0, 0, 0, 0, 0, std::int64_t{1} << 40}, "Relu")),
              ::testing::HasSubstr("needs a constant block of more than 16777216 elements"));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
