// GatherElements (operators/gather_elements.cpp) and the two losses (operators/losses.cpp) as
// imported graphs: the nodes of ONNX's function bodies for each form, and every refusal with its
// message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace losses_test {
namespace {

constexpr int kI64 = onnx::TensorProto_DataType_INT64;

TEST(OnnxGatherElements, OneNodeOverRuntimeOrConstantIndices) {
  Model m(13);
  m.input("x", {2, 3}).input("i", {2, 4}, kI64).output("y");
  attr_i(m.node("GatherElements", {"x", "i"}, {"y"}, "ge"), "axis", -1);
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'x'", "1 input -> [2,4] 'i'",
                                         "2 gather_elements(axis=1) [0,1] -> [2,4] 'ge'"}));
  Model c(13);
  c.input("x", {2, 3}).output("y");
  auto* t = c.g().add_initializer();
  t->set_name("i");
  t->set_data_type(kI64);
  t->add_dims(1);
  t->add_dims(3);
  for (const std::int64_t v : {1, 0, 1})
    t->add_int64_data(v);
  c.node("GatherElements", {"x", "i"}, {"y"}, "ge");
  EXPECT_EQ(lines(ok(c).graph()), (Lines{"0 input -> [2,3] 'x'", "1 const -> [1,3] 'i'",
                                         "2 gather_elements(axis=0) [0,1] -> [1,3] 'ge'"}));
}

TEST(OnnxGatherElements, Refusals) {
  Model rank(13);
  rank.input("x", {2, 3}).input("i", {2}, kI64).output("y");
  rank.node("GatherElements", {"x", "i"}, {"y"}, "ge");
  EXPECT_THAT(error_of(rank), ::testing::HasSubstr("indices 'i' have shape [2] and data [2,3]; "
                                                   "GatherElements takes indices of the data's "
                                                   "rank"));
  Model longer(13);
  longer.input("x", {2, 3}).input("i", {3, 3}, kI64).output("y");
  attr_i(longer.node("GatherElements", {"x", "i"}, {"y"}, "ge"), "axis", 1);
  EXPECT_THAT(error_of(longer), ::testing::HasSubstr("are longer than data [2,3] on axis 0"));
  Model floats(13);
  floats.input("x", {2, 3}).input("i", {2, 3}).output("y");
  floats.node("GatherElements", {"x", "i"}, {"y"}, "ge");
  EXPECT_THAT(error_of(floats), ::testing::HasSubstr("gather_elements takes int64 indices"));
}

// NLL with no weight and no ignore_index, reduction mean: gather, negate, sum, times 1 / count.
TEST(OnnxLosses, NllMeanIsGatherNegateSumAndScale) {
  Model m(13);
  m.input("x", {3, 5}).input("t", {3}, kI64).output("y");
  m.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, "nll");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [3,5] 'x'", "1 input -> [3] 't'",
                                         "2 reshape([3]->[3,1]) [1] -> [3,1] 'nll'",
                                         "3 gather_elements(axis=1) [0,2] -> [3,1] 'nll'",
                                         "4 scale(factor=-1) [3] -> [3,1] 'nll'",
                                         "5 sum [4] -> [] 'nll'", "6 const -> [] 'nll'",
                                         "7 inv [6] -> [] 'nll'", "8 mul_elem [5,7] -> [] 'nll'"}));
}

// SoftmaxCrossEntropyLoss is the NLL of log_softmax over the classes; its second output is that.
TEST(OnnxLosses, SoftmaxCrossEntropyGivesItsLogProbabilities) {
  Model m(13);
  m.input("x", {2, 4}).input("t", {2}, kI64).output("y").output("logp");
  attr_s(m.node("SoftmaxCrossEntropyLoss", {"x", "t"}, {"y", "logp"}, "sce"), "reduction", "none");
  const ImportedModel r = ok(m);
  EXPECT_EQ(
      lines(r.graph()),
      (Lines{"0 input -> [2,4] 'x'", "1 input -> [2] 't'",
             "2 log_softmax(axis=1) [0] -> [2,4] 'sce'", "3 reshape([2]->[2,1]) [1] -> [2,1] 'sce'",
             "4 gather_elements(axis=1) [2,3] -> [2,1] 'sce'",
             "5 scale(factor=-1) [4] -> [2,1] 'sce'", "6 reshape([2,1]->[2]) [5] -> [2] 'sce'"}));
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{6, 2}));
}

TEST(OnnxLosses, Refusals) {
  const auto nll = [](std::vector<std::int64_t> x, std::vector<std::int64_t> t, int target_type,
                      const std::string& reduction) {
    Model m(13);
    m.input("x", std::move(x)).input("t", std::move(t), target_type).output("y");
    attr_s(m.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, "nll"), "reduction", reduction);
    return m;
  };
  EXPECT_THAT(error_of(nll({2, 3}, {2}, kI64, "max")),
              ::testing::HasSubstr("reduction is 'max'; it is none, sum or mean"));
  EXPECT_THAT(error_of(nll({2, 3}, {3}, kI64, "sum")),
              ::testing::HasSubstr("target 't' has shape [3]; input [2,3] needs [2]"));
  EXPECT_THAT(error_of(nll({6}, {6}, kI64, "sum")),
              ::testing::HasSubstr("input 'x' has shape [6]; the loss takes (N, C) or (N, C, d1, "
                                   "...)"));
  EXPECT_EQ(unsupported_of(nll({2, 3}, {2}, onnx::TensorProto_DataType_FLOAT, "sum")),
            "node 0 'nll' (NegativeLogLikelihoodLoss): target 't' has dtype float32; supported: "
            "int64 class indices");
  Model w(13);
  w.input("x", {2, 3}).input("t", {2}, kI64).output("y");
  w.init("w", {2}, {1.0F, 2.0F});
  w.node("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"y"}, "nll");
  EXPECT_THAT(error_of(w), ::testing::HasSubstr("weight 'w' has shape [2]; input [2,3] needs [3]"));
}

}  // namespace
}  // namespace losses_test
}  // namespace nnplan::format::onnx_test
