// TopK (onnx/operators/top_k.cpp): a top_k node of int64 indices and, where the Values output is
// used, a gather_elements of the input by them; k as the attribute (opset 1) or a constant input
// (10 on), largest and sorted (11 on), negative axes; and what each form refuses.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace top_k_test {
namespace {

// TopK of x [3, 5] at `opset`, with k = `k` (an attribute before opset 10, else an initializer).
Model top_k_model(std::int64_t opset, std::int64_t k, bool values_used = true) {
  Model m(opset);
  m.input("x", {3, 5});
  if (values_used) m.output("v");
  m.output("i");
  if (opset < 10) {
    attr_i(m.node("TopK", {"x"}, {"v", "i"}, "t"), "k", k);
  } else {
    m.init_i64("k", {k});
    m.node("TopK", {"x", "k"}, {"v", "i"}, "t");
  }
  return m;
}

TEST(OnnxTopK, IndicesAndTheValuesTheyRead) {
  for (const std::int64_t opset : {1, 10, 11, 17}) {
    SCOPED_TRACE(opset);
    const ImportedModel r = ok(top_k_model(opset, 2));
    EXPECT_EQ(lines(r.graph()),
              (Lines{"0 input -> [3,5] 'x'", "1 top_k(axis=1,largest) [0] -> [3,2] 't'",
                     "2 gather_elements(axis=1) [0,1] -> [3,2] 't'"}));
    EXPECT_EQ(r.graph().nodes[1].dtype, ir::DType::int64);
    EXPECT_EQ(r.graph().nodes[2].dtype, ir::DType::float32);
  }
}

TEST(OnnxTopK, UnusedValuesAreNotRead) {
  const ImportedModel r = ok(top_k_model(17, 5, /*values_used=*/false));
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [3,5] 'x'", "1 top_k(axis=1,largest) [0] -> [3,5] 't'"}));
}

TEST(OnnxTopK, SmallestAlongANegativeAxis) {
  Model m(11);
  m.input("x", {3, 5}).output("v").output("i");
  m.init_i64("k", {0});
  onnx::NodeProto& n = m.node("TopK", {"x", "k"}, {"v", "i"}, "t");
  attr_i(n, "axis", -2);
  attr_i(n, "largest", 0);
  attr_i(n, "sorted", 0);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [3,5] 'x'", "1 top_k(axis=0,smallest) [0] -> [0,5] 't'",
                   "2 gather_elements(axis=0) [0,1] -> [0,5] 't'"}));
}

TEST(OnnxTopK, Refusals) {
  EXPECT_EQ(error_of(top_k_model(17, 6)),
            "m.onnx: node 't' (TopK, opset 17): k = 6 is outside [0, 5], axis 1 of [3,5]");
  EXPECT_EQ(error_of(top_k_model(1, -1)),
            "m.onnx: node 't' (TopK, opset 1): k = -1 is outside [0, 5], axis 1 of [3,5]");
  Model no_k(1);
  no_k.input("x", {3, 5}).output("i");
  no_k.node("TopK", {"x"}, {"v", "i"}, "t");
  EXPECT_EQ(error_of(no_k), "m.onnx: node 't' (TopK, opset 1): attribute k is missing");
  Model two(17);
  two.input("x", {3, 5}).output("i");
  two.init_i64("k", {1, 2});
  two.node("TopK", {"x", "k"}, {"v", "i"}, "t");
  EXPECT_EQ(error_of(two), "m.onnx: node 't' (TopK, opset 17): K has 2 values; it must hold one");
  Model runtime_k(17);
  runtime_k.input("x", {3, 5}).input("k", {1}, onnx::TensorProto_DataType_INT64).output("i");
  runtime_k.node("TopK", {"x", "k"}, {"v", "i"}, "t");
  const std::string runtime_note = unsupported_error(runtime_k).notes.at(0);
  EXPECT_NE(runtime_note.find("K 'k' is a graph input, not a constant"), std::string::npos)
      << runtime_note;
  Model largest(17);
  largest.input("x", {3, 5}).output("i");
  largest.init_i64("k", {1});
  attr_i(largest.node("TopK", {"x", "k"}, {"v", "i"}, "t"), "largest", 2);
  EXPECT_EQ(unsupported_error(largest).notes.at(0),
            "node 0 't' (TopK): attribute largest = 2 is not supported; supported: 0 or 1");
  Model ints(17);
  ints.input("x", {3, 5}, onnx::TensorProto_DataType_INT64).output("i");
  ints.init_i64("k", {1});
  ints.node("TopK", {"x", "k"}, {"v", "i"}, "t");
  EXPECT_EQ(unsupported_error(ints).notes.at(0),
            "node 0 't' (TopK): input 'x' has dtype int64; supported: float32");
}

}  // namespace
}  // namespace top_k_test
}  // namespace nnplan::format::onnx_test
