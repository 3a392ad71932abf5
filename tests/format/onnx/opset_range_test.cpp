// The opsets an operator row covers (onnx/operator_table.cpp): models of opsets 18 to 20 read where
// every operator they use reads the same as at 17, else refused naming the operator and both
// opsets; an operator in a model older than the opset that introduced it is an invalid model.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ::testing::HasSubstr;

class Opset18To20 : public ::testing::TestWithParam<int> {};

TEST_P(Opset18To20, UnchangedOperatorsImport) {
  Model m(GetParam());
  m.input("x", {2, 3}).output("y").init("w", {3, 4}, iota(12));
  m.node("MatMul", {"x", "w"}, {"h"}, "mm");
  m.node("Relu", {"h"}, {"r"}, "relu");
  attr_i(m.node("Softmax", {"r"}, {"y"}, "sm"), "axis", -1);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 linear [0] -> [2,4] 'mm'",
                   "2 relu [1] -> [2,4] 'relu'", "3 softmax(axis=1) [2] -> [2,4] 'sm'"}));
}

TEST_P(Opset18To20, ReduceMeanReadsItsAxesInput) {
  Model m(GetParam());
  m.input("x", {2, 3}).output("y").init_i64("axes", {1});
  attr_i(m.node("ReduceMean", {"x", "axes"}, {"y"}, "mean"), "keepdims", 0);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 reduce_mean(axis=1) [0] -> [2] 'mean'"}));
}

TEST_P(Opset18To20, ChangedOperatorsAreRefusedNamingBothOpsets) {
  Model m(GetParam());
  m.input("x", {1, 1, 2, 2}).output("y").init_i64("pads", {0, 0, 0, 0, 0, 0, 0, 0});
  m.node("Pad", {"x", "pads"}, {"y"}, "pad");
  EXPECT_THAT(
      unsupported_of(m),
      HasSubstr("'pad' (Pad): operator Pad is supported up to opset 17; its definition changed "
                "after that, and the model's opset is " +
                std::to_string(GetParam())));
}

// An operator in a model older than the opset that introduced it is not ONNX: an invalid model,
// named as such, not an operator nnplan lacks.
TEST(OnnxImportOpsetRange, AnOperatorBeforeItsFirstOpsetIsAnInvalidModel) {
  Model m(6);
  m.input("x", {2}).output("y");
  m.node("Atan", {"x"}, {"y"}, "atan");
  EXPECT_THAT(error_of(m),
              HasSubstr("node 'atan' (Atan, opset 6): operator Atan does not exist before opset "
                        "7; a model that uses it declares that opset or a later one"));
  Model at7(7);
  at7.input("x", {2}).output("y");
  at7.node("Atan", {"x"}, {"y"}, "atan");
  EXPECT_EQ(lines(ok(at7).graph()), (Lines{"0 input -> [2] 'x'", "1 atan [0] -> [2] 'atan'"}));
}

INSTANTIATE_TEST_SUITE_P(OnnxImport, Opset18To20, ::testing::Values(18, 19, 20));

}  // namespace
}  // namespace nnplan::format::onnx_test
