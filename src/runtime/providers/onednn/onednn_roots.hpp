// The primitives a fused command is built on (SPEC §7, §12): conv, linear and matmul, each
// prepared with the post-ops of the chain's later nodes, and the element-wise chains (with the
// broadcast layout rule they share with onednn.broadcast). The single-op capsules prepare the
// same primitives with no post-ops; fused.cpp supplies the post-ops and the bindings of their
// extra operands (a binary add's residual).
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/providers/onednn/onednn_support.hpp"

namespace nnplan::runtime::onednn {

// The eltwise algorithm and parameters of a unary node (see eltwise_of below).
struct EltwiseOp {
  dnnl::algorithm algorithm = dnnl::algorithm::eltwise_relu;
  float alpha = 0.0F;
  float beta = 0.0F;
};

// One post-op of a fused chain: an eltwise, or a binary add of call input `input` (the residual,
// of the root's output shape).
struct PostOpStep {
  bool binary_add = false;
  EltwiseOp eltwise;
  int input = 0;
};

// The post-ops appended to a root primitive, in chain order.
struct PostOps {
  std::vector<PostOpStep> steps;
};

// `post_ops` as oneDNN post-ops on a primitive whose destination is `dst` (the call's output as
// it lies in memory). Given `seed`, the first binary add becomes a sum post-op: the destination is
// to hold that residual before the primitive runs, and *seed names its call input (left kNoSeed
// when there is no add). Every other binary add's operand is bound (laid out as `dst`) into
// `bindings`.
[[nodiscard]] dnnl::post_ops materialize(const PostOps& post_ops, const dnnl::memory::desc& dst,
                                         std::vector<Binding>& bindings, int* seed = nullptr);

// Each prepares the root `call.node` (its shapes from call.input_shapes and call.node.shape)
// with `post_ops`; an unsupported parameter combination is an invalid_input error saying why.
[[nodiscard]] Expected<std::unique_ptr<KernelState>> prepare_matmul_with(const PrepareCall& call,
                                                                         const PostOps& post_ops);
[[nodiscard]] Expected<std::unique_ptr<KernelState>> prepare_linear_with(const PrepareCall& call,
                                                                         const PostOps& post_ops);
[[nodiscard]] Expected<std::unique_ptr<KernelState>> prepare_conv_with(const PrepareCall& call,
                                                                       const PostOps& post_ops);

// A batch_norm root (normalization.cpp) with, when `relu`, the relu after it applied by the
// primitive itself (oneDNN's fuse_norm_relu); and whether it may run channels-last (channel axis
// 1 of a value of rank 3 or more, statistics as payloads).
[[nodiscard]] Expected<std::unique_ptr<KernelState>> prepare_batch_norm_with(
    const PrepareCall& call, bool relu);
[[nodiscard]] bool batch_norm_takes_channels_last(const PrepareCall& call);

// The chains rooted at an element-wise op (fused_elementwise.cpp): sigmoid then mul, and
// broadcast then mul. Each prepares `call.chain` as the fused guard has checked it.
[[nodiscard]] Expected<std::unique_ptr<KernelState>> prepare_sigmoid_mul(const PrepareCall& call);
[[nodiscard]] Expected<std::unique_ptr<KernelState>> prepare_broadcast_mul(const PrepareCall& call);
// Runs a prepared sigmoid, mul command: its state, or, for a gate whose two operands arrive in
// one buffer, the swish it prepared for that case.
void sigmoid_mul_forward(const KernelCall& call);
// oneDNN's memory descriptors hold at most DNNL_MAX_NDIMS axes and the IR allows more: nothing
// when every input and the output fit, else an error naming the operand (data_movement.cpp).
[[nodiscard]] Expected<void> rank_limit(const KernelCall& call);
// Nothing when `chain` runs the pattern the fused capsule `capsule` declares in onednn_module():
// one node per op, each of a kind that runs that op, each later node reading the previous node's
// value once; else the error naming both (fused.cpp, for the chains handled outside it).
[[nodiscard]] Expected<void> check_chain(std::string_view capsule,
                                         std::span<const ir::Node* const> chain);
// Whether a broadcast of call input 0 to the output's shape (onednn.broadcast, and the root of
// onednn.broadcast_mul) may run channels-last: the input and output have one rank (3 or more),
// so axis 1 is the channel axis of both (data_movement.cpp).
[[nodiscard]] bool broadcast_takes_channels_last(const PrepareCall& call);
// Nothing when the call's input and output layouts are ones such a broadcast runs on (one layout;
// channels-last only as broadcast_takes_channels_last allows); else the error, naming `what`.
[[nodiscard]] Expected<void> broadcast_layouts(const PrepareCall& call, std::string_view what);

// The oneDNN eltwise algorithm and its alpha, beta that compute a unary node, from its row of
// eltwise_ops.def (gelu with its approximation, clamp with its bounds, an absent bound infinite,
// leaky_relu and elu with their alpha); an error for a kind with no row.
[[nodiscard]] Expected<EltwiseOp> eltwise_of(const ir::Node& node);

// Whether a conv call (a conv capsule or a fused chain rooted at one) should run channels-last:
// oneDNN chooses that layout when left to choose, or has a jit kernel for it where it would
// choose a blocked one. Then the command buffer keeps its operands channels-last (kernel.hpp,
// LayoutSupport::channels_last). Only for channel axis 1.
[[nodiscard]] bool conv_prefers_channels_last(const PrepareCall& call);
// The onednn limits on a conv call beyond the IR's (spatial rank 1 to 3); shared by the
// conv guard, the fused conv guards and prepare.
[[nodiscard]] Expected<void> conv_limits(const ir::Node& node);
// The onednn limits on a matmul call (rank at most 12 once promoted).
[[nodiscard]] Expected<void> matmul_limits(const ir::Shape& a, const ir::Shape& b);

}  // namespace nnplan::runtime::onednn
