// The canonical-tensor layout guard shared by every reference capsule.
#include <gtest/gtest.h>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace {

using testing::shape_of;

ir::Node relu_node(ir::Shape shape) {
  return {.id = 1, .kind = ir::OpKind::relu, .parents = {0}, .shape = std::move(shape)};
}

TEST(CanonicalLayoutGuard, AcceptsDisjointBuffers) {
  const ir::Node node = relu_node(shape_of({4}));
  std::vector<float> in(4), out(4);
  const TensorRef inputs[] = {float_view(in.data(), &node.shape)};
  const KernelCall call{
      .node = node, .inputs = inputs, .weights = {}, .output = float_view(out.data(), &node.shape)};
  EXPECT_TRUE(canonical_layout_guard(call).has_value());
  EXPECT_TRUE(canonical_layout_guard_in_place(call).has_value());
}

TEST(CanonicalLayoutGuard, RefusesOverlapUnlessInPlaceExactly) {
  const ir::Node node = relu_node(shape_of({4}));
  std::vector<float> buf(8);
  const TensorRef same[] = {float_view(buf.data(), &node.shape)};
  const KernelCall in_place{
      .node = node, .inputs = same, .weights = {}, .output = float_view(buf.data(), &node.shape)};
  auto r = canonical_layout_guard(in_place);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "the output buffer overlaps input 0 (canonical-tensor layout needs disjoint operands)");
  EXPECT_TRUE(canonical_layout_guard_in_place(in_place).has_value());

  const KernelCall shifted{.node = node,
                           .inputs = same,
                           .weights = {},
                           .output = float_view(buf.data() + 2, &node.shape)};
  EXPECT_FALSE(canonical_layout_guard_in_place(shifted).has_value());
}

TEST(CanonicalLayoutGuard, RefusesNullAndMisaligned) {
  const ir::Node node = relu_node(shape_of({4}));
  std::vector<float> in(5), out(4);
  const TensorRef null_in[] = {{.bytes = nullptr, .shape = &node.shape}};
  const KernelCall a{.node = node,
                     .inputs = null_in,
                     .weights = {},
                     .output = float_view(out.data(), &node.shape)};
  EXPECT_EQ(canonical_layout_guard(a).error().message, "input 0 is null");
  const auto* odd = reinterpret_cast<const std::byte*>(in.data()) + 1;
  const TensorRef misaligned[] = {{.bytes = odd, .shape = &node.shape}};
  const KernelCall b{.node = node,
                     .inputs = misaligned,
                     .weights = {},
                     .output = float_view(out.data(), &node.shape)};
  EXPECT_EQ(canonical_layout_guard(b).error().message, "input 0 is not aligned to a float");
}

TEST(CheckArityAndOutput, NamesTheMismatch) {
  const ir::Node node = relu_node(shape_of({4}));
  std::vector<float> in(4), out(6);
  const ir::Shape wrong = shape_of({2, 3});
  const TensorRef inputs[] = {float_view(in.data(), &node.shape)};
  const KernelCall call{
      .node = node, .inputs = inputs, .weights = {}, .output = float_view(out.data(), &wrong)};
  EXPECT_EQ(check_arity_and_output(call, 1).error().message,
            "the output has shape [2,3]; the node declares [4]");
  EXPECT_EQ(check_arity_and_output(call, 2).error().message, "1 inputs given; relu takes 2");
}

}  // namespace
}  // namespace nnplan::runtime::reference
