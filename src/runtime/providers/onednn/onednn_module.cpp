// The onednn provider's capsule module (SPEC §12): one capsule per op it runs, then the fused
// capsules with their patterns. Plain data, built into the backend layer (builtin_modules.hpp) so
// the fast_cpu profile plans without the runtime; the handlers of these capsules are this folder's.
// The eltwise ops come from eltwise_ops.def, the table their handlers read too.
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/builtin_modules.hpp"

namespace nnplan::backend {
namespace {

// One capsule of the onednn module: `op` alone, or the chain `pattern` (root first).
// `special`: how the capsule's results differ from the reference provider's where NaN or an
// infinity is involved, "" when they do not (the conformance table's special-value draws check
// both: tests/oracles/conformance_table.cpp).
KernelCapsule onednn_capsule(BackendOp op, std::vector<BackendOp> pattern, std::string name,
                             std::string notes, std::string_view special = {}) {
  KernelCapsule c = make_builtin_capsule({
      .name = std::move(name),
      .op = op,
      .provider = Provider::onednn,
      .device = Device::cpu,
      .trust = TrustLevel::fuzzed,
      .vjp = VjpMode::none,
      .layout = Layout::flat_row_major,
      .numerical = {.rounding = Rounding::implementation_defined,
                    .subnormals = Subnormals::implementation_defined,
                    .contraction = Contraction::implementation_defined,
                    .reduction = has_reduction_order(op) ? ReductionOrder::implementation_defined
                                                         : ReductionOrder::na},
      .notes = std::move(notes),
  });
  c.pattern = std::move(pattern);
  std::string chain;
  for (BackendOp p : c.pattern)
    chain += (chain.empty() ? "" : ", ") + std::string(to_string(p));
  const std::string what = c.pattern.empty() ? std::string(to_string(op)) : "the chain " + chain;
  c.value.summary = "forward values agree with the reference provider's " + what +
                    " within the oracle's stated tolerance" +
                    (special.empty() ? ", NaN and infinity included"
                                     : " on finite inputs; " + std::string(kSpecialValueCaveat) +
                                           std::string(special));
  c.value.evidence = {EvidenceKind::fuzz_oracle, c.name + ".oracle"};
  c.vjp.evidence = {EvidenceKind::test_suite, "onednn.forward_only_tests"};
  return c;
}

// What the eltwise table (eltwise_ops.def) says of how oneDNN's `op` differs from the reference
// on NaN; "" when it does not.
std::string eltwise_nan_note(BackendOp op) {
  switch (op) {
#define NNPLAN_ONEDNN_ELTWISE(eltwise_op, algorithm, alpha, beta, nan_note) \
  case BackendOp::eltwise_op:                                               \
    return nan_note;
#include "eltwise_ops.def"
    default:
      break;
  }
  return "";
}

}  // namespace

CapsuleModule onednn_module() {
  using enum BackendOp;
  CapsuleModule m{.name = "onednn", .capsules = {}};
  // The conv family runs channels-last where the command buffer keeps its operands so (its
  // reorders are commands of their own), else on the src and dst layouts oneDNN prefers, which
  // the launch reorders its flat operands into and the result back from.
  const std::string staged =
      ", channels-last between onednn commands where oneDNN runs that layout (reorder commands "
      "around it), else on the src and dst layouts it prefers (reordered from and to the flat "
      "buffers inside the launch)";
  const std::string relu_nan = eltwise_nan_note(relu);
  const std::string clip_nan = eltwise_nan_note(clamp);
  const auto single = [&](BackendOp op, std::string_view primitive, std::string_view more = "",
                          std::string_view special = "") {
    m.capsules.push_back(onednn_capsule(
        op, {}, "onednn." + std::string(to_string(op)),
        "oneDNN " + std::string(primitive) + " primitive" + std::string(more), special));
  };
  single(matmul, "matmul");
  single(linear, "inner product");
  // oneDNN multiplies the zero padding by the weights; the reference skips it.
  const std::string padding_nan =
      "an infinite weight that meets the zero padding gives NaN (0 times infinity) where the "
      "reference, which skips the padding, gives a number or an infinity";
  single(conv, "convolution", staged, padding_nan);
  single(conv_transpose, "deconvolution",
         ", on the src and dst layouts it prefers (reordered from and to the flat buffers inside "
         "the launch)");
  single(max_pool, "pooling (max)", "",
         "a NaN in a window may be passed over, and a window of only NaN and -inf gives "
         "-3.40282347e+38 (oneDNN's pooling starts from the lowest float)");
  single(avg_pool, "pooling (avg)");
  single(batch_norm, "batch normalization (inference)");
  single(layer_norm, "layer normalization");
  const std::string_view softmax_nan =
      "a NaN in a row may give numbers (0, -inf) where the reference gives NaN (oneDNN's maximum "
      "of the row passes over NaN)";
  single(softmax, "softmax", "", softmax_nan);
  single(log_softmax, "softmax (logsoftmax)", "", softmax_nan);
  single(hard_masked_softmax, "binary min",
         " with the mask (+inf where allowed, -inf where not: a forbidden position is -inf "
         "whatever it holds) and a softmax primitive in place; a row the mask blocks everywhere "
         "written as zeros",
         "a NaN at an allowed position may give numbers where the reference gives NaN (oneDNN's "
         "min makes it +inf, and its maximum of the row passes over NaN), and in a row that "
         "comes out NaN the forbidden positions are NaN too, where the reference keeps them 0");
#define NNPLAN_ONEDNN_ELTWISE(op, algorithm, alpha, beta, nan_note) \
  single(op, "eltwise", "", nan_note);
#include "eltwise_ops.def"
  single(hard_sigmoid, "eltwise", " (linear, alpha x + beta, then clip to [0, 1]: two passes)",
         "NaN becomes 0 (oneDNN's clip)");
  for (BackendOp op : {add, sub, mul})
    single(op, "binary");
  for (BackendOp op : {max, min}) {
    single(op, "binary", "", "a NaN first operand gives the second operand (oneDNN's max and min)");
  }
  // The copies compute nothing: no multiply-add to contract, and every value leaves as it came
  // (the reference's copies make the same claim).
  const auto copy = [&](BackendOp op, std::string_view view) {
    single(op, "reorder", view);
    m.capsules.back().numerical.rounding = Rounding::scalar_context;
    m.capsules.back().numerical.contraction = Contraction::na;
  };
  copy(broadcast, " reading the input with stride 0 along each added or stretched axis: a copy");
  copy(permute, " reading the input through its strides in the permuted order: a copy");
  copy(slice,
       " reading the input from the first element taken, the sliced axis's stride times the "
       "step: a copy");
  copy(concat,
       " per input into its slice of the output (along the innermost axis in memory instead a "
       "loop of the provider's own: memcpy of each input's run at every outer position, the "
       "positions split among the command's OpenMP threads), each input in the output's layout, "
       "channels-last when every input is: a copy");
  m.capsules.push_back(onednn_capsule(
      reshape, {}, "onednn.reshape",
      "the provider's own: the input's bytes copied unchanged in row-major order, any dtype "
      "(nothing to do when the output is the input's buffer): a copy"));
  m.capsules.back().numerical.rounding = Rounding::scalar_context;
  m.capsules.back().numerical.contraction = Contraction::na;
  const std::string one_layer =
      ", one layer in forward inference; weights reordered once into the layout it prefers, "
      "gates in its order";
  single(rnn, "vanilla RNN (tanh)", one_layer);
  single(gru, "GRU (linear-before-reset GRU when the node says so)", one_layer);
  single(lstm, "LSTM", one_layer);
  single(reduce_sum, "reduction (sum)", "; also `sum`, every axis at once");
  single(reduce_mean, "reduction (mean)");
  for (BackendOp op : {reduce_max, reduce_min})
    single(op, "reduction", "",
           "a NaN input may be passed over, and a reduction of only NaN and infinities of the "
           "passed-over sign gives -3.40282347e+38 for max, 3.40282347e+38 for min where the "
           "reference gives the infinity (oneDNN's max and min)");
  single(reduce_prod, "reduction (mul)");
  single(resize, "resampling (linear)",
         " where its mapping is ONNX's (linear, half_pixel or pytorch_half_pixel, scale = "
         "output / input, the last 1 to 3 axes resized), coordinates and weights in float32; "
         "else oneDNN matmul primitives, one per resized axis, by the axis's interpolation "
         "matrix (at most 2^24 entries)",
         "on the matmul path a NaN or infinity in the input makes NaN every output whose lines "
         "along the resized axes meet it, with H and W resized its whole image plane (zero "
         "weights times it), and outputs the reference gives as NaN may be infinities");
  m.capsules.push_back(onednn_capsule(
      scaled_dot_product_attention, {}, "onednn.attention",
      "oneDNN matmul (scores, scaled and causally masked by post-ops), softmax and matmul "
      "primitives",
      "a NaN or infinity in Q, K or V may make NaN outputs the reference gives as numbers (the "
      "mask is added to the scores, and the softmax's maximum passes over NaN), and numbers "
      "where it gives NaN"));
  const auto fused = [&](std::vector<BackendOp> pattern, std::string_view post_ops,
                         std::string_view nan = "") {
    std::string name = "onednn";
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      name += (i == 0 ? "." : "_") + std::string(to_string(pattern[i]));
    }
    const BackendOp root = pattern[0];
    m.capsules.push_back(onednn_capsule(root, std::move(pattern), std::move(name),
                                        "one oneDNN primitive with post-ops " +
                                            std::string(post_ops) +
                                            (root == conv ? staged : std::string()),
                                        root != conv  ? std::string(nan)
                                        : nan.empty() ? padding_nan
                                                      : std::string(nan) + "; " + padding_nan));
  };
  // The special-value draws find the fused relu giving NaN for some of the convolution's
  // infinities where the reference's relu gives 0.
  const std::string conv_relu_nan =
      relu_nan + "; an infinity in the input may give NaN where the reference gives 0";
  fused({conv, relu}, "eltwise relu", conv_relu_nan);
  fused({conv, add, relu},
        "sum (the residual, copied into the destination before the convolution runs; a binary add "
        "reading it where some window covers only padding), eltwise relu",
        conv_relu_nan);
  fused({conv, clamp}, "eltwise clip", clip_nan);
  fused({conv, hard_swish}, "eltwise hardswish");
  fused({conv, hard_sigmoid}, "eltwise linear (alpha x + beta) then eltwise clip to [0, 1]",
        "NaN becomes 0 (oneDNN's clip)");
  fused({conv, silu}, "eltwise swish (alpha 1: x / (1 + exp(-x)))");
  fused({linear, relu}, "eltwise relu", relu_nan);
  fused({linear, gelu}, "eltwise gelu");
  fused({matmul, add}, "binary add");
  m.capsules.push_back(onednn_capsule(
      batch_norm, {batch_norm, relu}, "onednn.batch_norm_relu",
      "one oneDNN batch normalization primitive (inference) with its fused ReLU "
      "(fuse_norm_relu)",
      "NaN becomes 0 in its jit kernels (a maximum with 0), its plain kernel keeps NaN "
      "(ncsp_bnorm, for some flat values)"));
  // Chains rooted at an element-wise op run on oneDNN's element-wise primitives, not post-ops.
  const auto chain = [&](BackendOp root, BackendOp next, std::string notes) {
    m.capsules.push_back(onednn_capsule(
        root, {root, next},
        "onednn." + std::string(to_string(root)) + "_" + std::string(to_string(next)),
        std::move(notes)));
  };
  chain(sigmoid, mul,
        "oneDNN eltwise swish (x times logistic(x)) when the mul's other operand is the sigmoid's "
        "input (SiLU), one pass; otherwise eltwise logistic into the output, then binary mul by "
        "the other operand in place (the swish when both operands arrive in one buffer, a value "
        "and its detach)");
  chain(broadcast, mul,
        "oneDNN binary mul reading the broadcast's input directly (oneDNN broadcasts its size-1 "
        "axes), so no broadcast copy is written");
  m.capsules.push_back(onednn_capsule(
      reshape, {reshape, permute, reshape}, "onednn.reshape_permute_reshape",
      "one oneDNN reorder primitive reading the input as the first reshape's shape through its "
      "strides in the permuted order; on a channels-last value, where the chain is a channel "
      "shuffle (the channel axis split in two, the two swapped, merged back: ShuffleNet's), a "
      "loop of the provider's own interleaving the channel groups at each position, the "
      "positions split among the command's OpenMP threads: a copy"));
  m.capsules.back().numerical.rounding = Rounding::scalar_context;
  m.capsules.back().numerical.contraction = Contraction::na;
  return m;
}

}  // namespace nnplan::backend
