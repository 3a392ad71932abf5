// The draws several oracles share (oracle.hpp): convolution and pooling geometry, matmul operand
// shapes, clamp bounds and gelu approximations, each covering what the ONNX importer produces for
// the op (src/format/onnx/operators/) and what the IR allows beyond it. Each draw adds its nodes
// to a CaseBuilder and notes what it drew, so a failure report names every shape and attribute.
#pragma once

#include <cstdint>

#include "oracle.hpp"

namespace nnplan::oracles {

// A graph input feeding one conv (or conv_transpose) node, marked as a target, with its weight
// and (usually) bias: 1-D, 2-D or 3-D; groups 1, a few, or depthwise (groups = input channels,
// one or two outputs per group); stride 1..3; dilation 1 or 2; padding drawn separately before
// and after each axis (the importer's asymmetric pads and auto_pad); for conv_transpose an
// output_padding below the stride or dilation. Weights and inputs in a signed range of 1 to 32.
// Returns the conv node.
ir::NodeId draw_conv(CaseBuilder& b, bool transposed);

// A graph input feeding one max_pool or avg_pool node, marked as a target: 1-D to 3-D windows
// over (N, C, spatial...), kernel 1..3 or the whole axis (the importer's global pools), stride
// 1..3, symmetric padding below the kernel (avg_pool counts it: count_include_pad = 1, the only
// form the IR has). For max_pool, sometimes the importer's encoding of asymmetric pads and
// ceil_mode: -inf borders concatenated onto a spatial axis before the pool. Returns the pool.
ir::NodeId draw_pool(CaseBuilder& b, bool max);

// Two graph inputs and a matmul node, marked as a target: the importer's forms ([M,K] x [K,N],
// and [B,M,K] x [B,K,N] with equal batch) and the IR's general one (ranks 1 to 4, rank-1
// operands promoted, batch axes broadcast with some extents 1). Returns the matmul.
ir::NodeId draw_matmul(CaseBuilder& b);

// A graph input and a linear node over it, marked as a target: input rank 2 to 4 (Gemm's
// matrices, MatMul by a constant on batched inputs), weight [out, in], bias usually present.
ir::NodeId draw_linear(CaseBuilder& b);

// Clamp bounds as the importer writes them: both (Clip, ReLU6 as 0..6), only a min, only a max,
// or equal bounds; noted.
ir::ClampParams draw_clamp(CaseBuilder& b, const Values& values);

// gelu exact (erf) or with the tanh approximation; noted.
ir::GeluParams draw_gelu(CaseBuilder& b);

// A graph input of rank 1 to 4 (at most 4096 elements) with values from `values`, and one
// element-wise `kind` node over it, marked as a target. Returns the node.
ir::NodeId draw_unary(CaseBuilder& b, ir::OpKind kind, const Values& values,
                      ir::OpParams params = {});

// Whether draw_operand may draw a broadcast operand. A mul's is not: fast_cpu fuses broadcast,
// mul into onednn.broadcast_mul, whose own oracle draws it.
enum class Operand : std::uint8_t { may_broadcast, same_shape };

// Two operands of one shape (rank 1 to 4), the second from draw_operand, in either order, and one
// binary `kind` node over them, marked as a target. Returns the node.
ir::NodeId draw_binary(CaseBuilder& b, ir::OpKind kind, Operand operand = Operand::may_broadcast);

// A second operand of `shape` for a binary op: a graph input of that shape, or (importer-style
// numpy broadcasting, unless `operand` is same_shape) a broadcast_to of a smaller input whose
// axes are 1 or dropped, or the value `self` itself when `self` is given and has that shape.
// Noted.
ir::NodeId draw_operand(CaseBuilder& b, const ir::Shape& shape, const Values& values,
                        std::optional<ir::NodeId> self = std::nullopt,
                        Operand operand = Operand::may_broadcast);

// A broadcast_to of a new graph input to `to`, as numpy broadcasting and the importer's Expand
// write it: the input is `to`'s trailing axes (some leading ones dropped), each 1 or `to`'s
// extent. Noted. Returns the broadcast node, marked as a target when `target`.
ir::NodeId draw_broadcast_to(CaseBuilder& b, const ir::Shape& to, const Values& values,
                             bool target = false);

}  // namespace nnplan::oracles
