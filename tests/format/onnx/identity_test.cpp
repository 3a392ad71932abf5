// Identity and Dropout (onnx/operators/identity.cpp): removed, unless Dropout trains (a used mask
// is all true). Cast and CastLike of a value computed at run time (onnx/operators/cast.cpp):
// removed when the type is the value's own, a cast node between float32, int64 and bool, refused
// naming both types otherwise.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

TEST(OnnxImport, IdentityAndDropoutAreRemoved) {
  Model m(13);
  m.input("x", {2, 3}).output("y");
  m.node("Identity", {"x"}, {"i"}, "id");
  m.node("Dropout", {"i"}, {"d"}, "drop");
  m.node("Relu", {"d"}, {"y"}, "relu");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [2,3] 'x'", "1 relu [0] -> [2,3] 'relu'"}));
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{1u}));
}

TEST(OnnxImport, IdentityOfSharedWeightFoldsIntoLinear) {
  Model m;
  m.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(6));
  m.node("Identity", {"w"}, {"w2"}, "share");
  m.node("MatMul", {"x", "w2"}, {"y"}, "mm");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'x'", "1 linear [0] -> [2,2] 'mm'"}));
}

// In inference Dropout's mask is all true: not(x < x), bool from opset 10, the input's float32
// before.
TEST(OnnxImport, DropoutsMaskIsAllTrue) {
  Model m(13);
  m.input("x", {2, 3}).output("m");
  m.node("Dropout", {"x"}, {"y", "m"}, "drop");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [2,3] 'x'", "1 less [0,0] -> [2,3] 'drop'",
                                     "2 not [1] -> [2,3] 'drop'"}));
  EXPECT_EQ(r.graph().nodes[2].dtype, ir::DType::boolean);
  Model old(7);
  old.input("x", {2, 3}).output("m");
  old.node("Dropout", {"x"}, {"y", "m"}, "drop");
  EXPECT_EQ(ok(old).graph().nodes.back().kind, ir::OpKind::cast);
}

TEST(OnnxImport, DropoutTrainingIsRejected) {
  Model t(13);
  t.input("x", {2, 3}).input("train", {}, onnx::TensorProto_DataType_BOOL).output("y");
  t.node("Dropout", {"x", "", "train"}, {"y"}, "drop");
  EXPECT_EQ(unsupported_of(t),
            "node 0 'drop' (Dropout): input training_mode 'train' is not a constant false, and "
            "ratio is not a constant 0; only inference is supported");
  // A constant true with a ratio other than 0 drops elements at random.
  Model half(13);
  half.input("x", {2, 3}).output("y").init("ratio", {}, {0.5F});
  half.init_bool("train", {}, {true});
  half.node("Dropout", {"x", "ratio", "train"}, {"y"}, "drop");
  EXPECT_EQ(unsupported_of(half),
            "node 0 'drop' (Dropout): input training_mode 'train' is not a constant false, and "
            "ratio is not a constant 0; only inference is supported");
}

// Training with ratio 0 keeps every element (ONNX's reference returns the input and an all-true
// mask): Swin's attention dropout as torchvision 0.14 exports it.
TEST(OnnxImport, DropoutTrainingWithRatioZeroIsTheIdentity) {
  Model m(13);
  m.input("x", {2, 3}).output("y").output("m").init("ratio", {}, {0.0F});
  m.init_bool("train", {}, {true});
  m.node("Dropout", {"x", "ratio", "train"}, {"d", "m"}, "drop");
  m.node("Relu", {"d"}, {"y"}, "relu");
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [2,3] 'x'", "1 less [0,0] -> [2,3] 'drop'",
                   "2 not [1] -> [2,3] 'drop'", "3 relu [0] -> [2,3] 'relu'"}));
}

TEST(OnnxImport, CastToTheValuesOwnTypeIsRemoved) {
  Model m(15);
  m.input("x", {2, 3}).output("y").init("like", {1}, {0.0F});
  attr_i(m.node("Cast", {"x"}, {"c"}, "cast"), "to", onnx::TensorProto_DataType_FLOAT);
  m.node("CastLike", {"c", "like"}, {"l"}, "castlike");
  m.node("Relu", {"l"}, {"y"}, "relu");
  EXPECT_EQ(lines(ok(m).graph()), (Lines{"0 input -> [2,3] 'x'", "1 relu [0] -> [2,3] 'relu'"}));
  // Opset 1 spells the type.
  Model old(1);
  old.input("x", {2}).output("y");
  attr_s(old.node("Cast", {"x"}, {"y"}, "cast"), "to", "FLOAT");
  EXPECT_EQ(lines(ok(old).graph()), (Lines{"0 input -> [2] 'x'"}));
}

// A cast between float32, int64 and bool is a cast node declaring the target dtype.
TEST(OnnxImport, CastBetweenFloatInt64AndBoolIsACastNode) {
  for (const auto& [to, dtype] : std::vector<std::pair<int, ir::DType>>{
           {onnx::TensorProto_DataType_INT64, ir::DType::int64},
           {onnx::TensorProto_DataType_BOOL, ir::DType::boolean}}) {
    Model m(13);
    m.input("x", {2}).output("y");
    attr_i(m.node("Cast", {"x"}, {"y"}, "cast"), "to", to);
    const ImportedModel r = ok(m);
    EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [2] 'x'", "1 cast [0] -> [2] 'cast'"}));
    EXPECT_EQ(r.graph().nodes[1].dtype, dtype);
  }
  Model back(13);
  back.input("b", {2}, onnx::TensorProto_DataType_BOOL).output("y");
  attr_i(back.node("Cast", {"b"}, {"y"}, "cast"), "to", onnx::TensorProto_DataType_FLOAT);
  EXPECT_EQ(ok(back).graph().nodes[1].dtype, ir::DType::float32);
  // CastLike takes the target from its second input, a constant or a value.
  Model like(15);
  like.input("x", {2}).output("y").init_i64("i", {1});
  like.node("CastLike", {"x", "i"}, {"y"}, "castlike");
  EXPECT_EQ(ok(like).graph().nodes[1].dtype, ir::DType::int64);
}

TEST(OnnxImport, CastToAnotherTypeIsRefusedNamingBoth) {
  Model m(13);
  m.input("x", {2}).output("y");
  attr_i(m.node("Cast", {"x"}, {"y"}, "cast"), "to", onnx::TensorProto_DataType_DOUBLE);
  EXPECT_EQ(unsupported_of(m),
            "node 0 'cast' (Cast): a cast of a float32 value computed at run time to float64 is "
            "not supported; supported: a cast to float32, int64 or bool");
  Model unnamed(1);
  unnamed.input("x", {2}).output("y");
  attr_s(unnamed.node("Cast", {"x"}, {"y"}, "cast"), "to", "REAL");
  EXPECT_THAT(error_of(unnamed), ::testing::HasSubstr("attribute to = 'REAL' names no data type"));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
