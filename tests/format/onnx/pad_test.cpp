// Pad (onnx/operators/pad.cpp): zero pads removed, spatial pads folded into the next window op.
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

TEST(OnnxImport, PadRejections) {
  EXPECT_EQ(unsupported_of(pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "Relu")),
            "node 0 'pad' (Pad): pads [0,0,1,1,0,0,1,1] cannot be folded: output "
            "'p' is consumed by node 'next' (Relu); nonzero pads fold only into a following Conv, "
            "MaxPool or AveragePool");
  EXPECT_EQ(unsupported_of(pad_model({0, 0, 1, 2, 0, 0, 1, 2}, "Conv")),
            "node 0 'pad' (Pad): pads [0,0,1,2,0,0,1,2] are not supported; "
            "supported: all zero, or equal non-negative pads on H and W of an (N,C,H,W) tensor "
            "folded into a following Conv, MaxPool or AveragePool");
  EXPECT_NE(unsupported_of(pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "MaxPool"))
                .find("node 1 'pool' (MaxPool): cannot fold the zero padding of Pad node 'pad'"),
            std::string::npos);
  // SAME padding is computed from the op's input, which the fold replaces by the unpadded one.
  for (const char* next : {"Conv", "AveragePool", "MaxPoolAfterRelu"}) {
    for (const char* same : {"SAME_UPPER", "SAME_LOWER"}) {
      Model m = pad_model({0, 0, 1, 1, 0, 0, 1, 1}, next);
      onnx::NodeProto& op = *m.g().mutable_node(m.g().node_size() - 1);
      op.clear_attribute();
      if (std::string(next) != "Conv") attr_ints(op, "kernel_shape", {3, 3});
      attr_s(op, "auto_pad", same);
      EXPECT_EQ(unsupported_of(m), "node " + std::to_string(m.g().node_size() - 1) + " '" +
                                       op.name() + "' (" + op.op_type() +
                                       "): attribute auto_pad = " + same +
                                       " after the folded Pad node 'pad' is not supported; "
                                       "export with explicit pads");
    }
  }
  // VALID adds no padding of its own: the folded padding is all there is.
  Model valid = pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "AveragePool");
  attr_s(*valid.g().mutable_node(1), "auto_pad", "VALID");
  EXPECT_EQ(
      lines(ok(valid).graph()),
      (Lines{"0 input -> [1,2,4,4] 'x'", "1 avg_pool(k=3x3,s=1x1,p=1x1) [0] -> [1,2,4,4] 'pool'"}));
  Model reflect = pad_model({0, 0, 1, 1, 0, 0, 1, 1}, "Conv");
  attr_s(*reflect.g().mutable_node(0), "mode", "reflect");
  EXPECT_EQ(unsupported_of(reflect),
            "node 0 'pad' (Pad): attribute mode = reflect is not supported; "
            "supported: constant");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
