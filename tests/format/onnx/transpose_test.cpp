// Transpose (onnx/operators/transpose.cpp): the given permutation, or the axes reversed;
// DepthToSpace and SpaceToDepth (onnx/operators/depth_to_space.cpp), permutes of blocks.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

TEST(OnnxImport, TransposeByPermOrReversed) {
  Model p;
  p.input("x", {2, 3, 4}).output("y");
  attr_ints(p.node("Transpose", {"x"}, {"y"}, "tr"), "perm", {0, 2, 1});
  EXPECT_EQ(lines(ok(p).graph())[1], "1 permute(perm=0,2,1) [0] -> [2,4,3] 'tr'");
  Model r;
  r.input("x", {2, 3, 4}).output("y");
  r.node("Transpose", {"x"}, {"y"}, "tr");
  EXPECT_EQ(lines(ok(r).graph())[1], "1 permute(perm=2,1,0) [0] -> [4,3,2] 'tr'");
}

TEST(OnnxImport, TransposeOutOfRangePermIsRejected) {
  Model p;
  p.input("x", {2, 3}).output("y");
  attr_ints(p.node("Transpose", {"x"}, {"y"}, "tr"), "perm", {0, 2});
  EXPECT_EQ(unsupported_of(p),
            "node 0 'tr' (Transpose): attribute perm = [0,2] is not supported; "
            "supported: a permutation of the 2 axes");
}

// DepthToSpace (DCR and CRD) and SpaceToDepth: reshape into blocks, permute, reshape back.
TEST(OnnxImport, DepthToSpaceAndSpaceToDepthMoveBlocks) {
  const auto depth_to_space = [](const std::string& mode) {
    Model m;
    m.input("x", {1, 8, 2, 3}).output("y");
    auto& n = m.node("DepthToSpace", {"x"}, {"y"}, "d2s");
    attr_i(n, "blocksize", 2);
    if (!mode.empty()) attr_s(n, "mode", mode);
    return m;
  };
  EXPECT_EQ(lines(ok(depth_to_space("")).graph()),
            (Lines{"0 input -> [1,8,2,3] 'x'",
                   "1 reshape([1,8,2,3]->[1,2,2,2,2,3]) [0] -> [1,2,2,2,2,3] 'd2s'",
                   "2 permute(perm=0,3,4,1,5,2) [1] -> [1,2,2,2,3,2] 'd2s'",
                   "3 reshape([1,2,2,2,3,2]->[1,2,4,6]) [2] -> [1,2,4,6] 'd2s'"}));
  EXPECT_EQ(lines(ok(depth_to_space("CRD")).graph())[2],
            "2 permute(perm=0,1,4,2,5,3) [1] -> [1,2,2,2,3,2] 'd2s'");
  EXPECT_EQ(error_of(depth_to_space("XYZ")),
            "m.onnx: node 'd2s' (DepthToSpace, opset 17): attribute mode = 'XYZ' is no "
            "DepthToSpace mode; ONNX defines DCR and CRD");
  Model s;
  s.input("x", {1, 2, 4, 6}).output("y");
  attr_i(s.node("SpaceToDepth", {"x"}, {"y"}, "s2d"), "blocksize", 2);
  EXPECT_EQ(lines(ok(s).graph()),
            (Lines{"0 input -> [1,2,4,6] 'x'",
                   "1 reshape([1,2,4,6]->[1,2,2,2,3,2]) [0] -> [1,2,2,2,3,2] 's2d'",
                   "2 permute(perm=0,3,5,1,2,4) [1] -> [1,2,2,2,2,3] 's2d'",
                   "3 reshape([1,2,2,2,2,3]->[1,8,2,3]) [2] -> [1,8,2,3] 's2d'"}));
  Model odd;
  odd.input("x", {1, 2, 5, 6}).output("y");
  attr_i(odd.node("SpaceToDepth", {"x"}, {"y"}, "s2d"), "blocksize", 2);
  EXPECT_EQ(error_of(odd),
            "m.onnx: node 's2d' (SpaceToDepth, opset 17): spatial size 5 x 6 does not divide into "
            "blocks of 2 x 2");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
