// Edge cases of the window importers (onnx/operators/pooling.cpp, conv.cpp,
// window_attributes.cpp): a ceil_mode whose last window would start in the trailing padding (it
// is dropped, and no padding is added), ceil_mode after a folded Pad (the Pad's zeros are input),
// and ConvTranspose paddings whose split ONNX's readers disagree on (refused).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ::testing::HasSubstr;

TEST(OnnxWindowEdges, CeilModeWindowStartingPastTheInputIsDropped) {
  // Extent 5, kernel 1, stride 3: ceil would give 3 windows, but the third starts at 6, past the
  // input; PyTorch and ONNX keep 2, the floor size, and nothing is padded.
  Model m;
  m.input("x", {1, 1, 5}).output("y");
  auto& pool = m.node("MaxPool", {"x"}, {"y"}, "pool");
  attr_ints(pool, "kernel_shape", {1});
  attr_ints(pool, "strides", {3});
  attr_i(pool, "ceil_mode", 1);
  EXPECT_EQ(lines(ok(m).graph()),
            (Lines{"0 input -> [1,1,5] 'x'", "1 max_pool(k=1,s=3,p=0) [0] -> [1,1,2] 'pool'"}));
}

TEST(OnnxWindowEdges, AveragePoolCeilModeOfTheSameSizeImports) {
  // Extent 5, kernel 2, stride 2, pads 1: ceil and floor both give 3 windows.
  Model m;
  m.input("x", {1, 1, 5}).output("y");
  auto& pool = m.node("AveragePool", {"x"}, {"y"}, "pool");
  attr_ints(pool, "kernel_shape", {2});
  attr_ints(pool, "strides", {2});
  attr_ints(pool, "pads", {1, 1});
  attr_i(pool, "ceil_mode", 1);
  attr_i(pool, "count_include_pad", 1);
  EXPECT_EQ(lines(ok(m).graph())[1], "1 avg_pool(k=2,s=2,p=1) [0] -> [1,1,3] 'pool'");
}

TEST(OnnxWindowEdges, CeilModeAfterAFoldedPadCountsThePadAsInput) {
  // Relu -> Pad 1 -> MaxPool(k=2, s=2, ceil) on extent 5: the padded input has 7 elements, the
  // last window starts at 6 < 7, so ONNX gives 4 windows.
  Model m(11);
  m.input("x", {1, 1, 5, 5}).output("y");
  m.node("Relu", {"x"}, {"r"}, "relu");
  m.init_i64("pads", {0, 0, 1, 1, 0, 0, 1, 1});
  m.node("Pad", {"r", "pads"}, {"p"}, "pad");
  auto& pool = m.node("MaxPool", {"p"}, {"y"}, "pool");
  attr_ints(pool, "kernel_shape", {2, 2});
  attr_ints(pool, "strides", {2, 2});
  attr_i(pool, "ceil_mode", 1);
  const Lines got = lines(ok(m).graph());
  ASSERT_FALSE(got.empty());
  EXPECT_THAT(got.back(), HasSubstr("-> [1,1,4,4] 'pool'"));
}

Model conv_transpose(std::vector<std::int64_t> input_dims, std::int64_t kernel = 3) {
  Model m;
  m.input("x", std::move(input_dims)).output("y");
  m.init("w", {1, 1, kernel, kernel}, std::vector<float>(kernel * kernel, 1.0F));
  return m;
}

TEST(OnnxWindowEdges, ConvTransposeSameWithOutputPaddingIsRefused) {
  // Kernel 2, stride 2: SAME needs no padding, but output_padding would grow the output.
  Model m = conv_transpose({1, 1, 4, 4}, 2);
  auto& up = m.node("ConvTranspose", {"x", "w"}, {"y"}, "up");
  attr_ints(up, "strides", {2, 2});
  attr_ints(up, "output_padding", {1, 1});
  attr_s(up, "auto_pad", "SAME_UPPER");
  EXPECT_THAT(unsupported_of(m),
              HasSubstr("attribute output_padding = [1,1] is not supported; supported: all zero "
                        "with auto_pad SAME_UPPER"));
}

TEST(OnnxWindowEdges, ConvTransposeSameWithAnOddTotalIsRefused) {
  // Stride 2, kernel 3: the full extent is (4-1)*2+3 = 9, SAME wants 8, a total padding of 1.
  Model m = conv_transpose({1, 1, 4, 4});
  auto& up = m.node("ConvTranspose", {"x", "w"}, {"y"}, "up");
  attr_ints(up, "strides", {2, 2});
  attr_s(up, "auto_pad", "SAME_LOWER");
  EXPECT_THAT(unsupported_of(m), HasSubstr("the total padding of each axis is even (here it is 1"));
}

TEST(OnnxWindowEdges, ConvTransposeOutputShapeSplitsAnEvenTotalEqually) {
  Model even = conv_transpose({1, 1, 4, 4});
  auto& a = even.node("ConvTranspose", {"x", "w"}, {"y"}, "up");
  attr_ints(a, "strides", {2, 2});
  attr_ints(a, "output_shape", {7, 7});  // 9 - 7 = 2: one on each side
  EXPECT_EQ(lines(ok(even).graph()).back(),
            "1 conv_transpose(1->1,k=3x3,s=2x2,p=1x1,pa=1x1,d=1x1,g=1,op=0x0,axis=1) [0] -> "
            "[1,1,7,7] 'up'");
  Model odd = conv_transpose({1, 1, 4, 4});
  auto& b = odd.node("ConvTranspose", {"x", "w"}, {"y"}, "up");
  attr_ints(b, "strides", {2, 2});
  attr_ints(b, "output_shape", {8, 8});  // 9 - 8 = 1
  EXPECT_THAT(unsupported_of(odd),
              HasSubstr("sizes that leave an even total padding on each spatial axis (here 1"));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
