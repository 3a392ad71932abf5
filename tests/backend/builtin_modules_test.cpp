// The built-in capsule modules (SPEC §4): every capsule aligned; the exact capsule set, names and
// order per module; trust, VJP modes, layouts, evidence kinds and numerics as specified; the
// default module order and the optional libtorch module.
#include "nnplan/backend/builtin_modules.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"

namespace nnplan::backend {
namespace {

using Op = BackendOp;

// SPEC §4's reductions, accumulations and max_pool, typed here rather than taken from the code.
const std::set<Op> kOrderedReductions = {Op::reduce_sum,
                                         Op::reduce_mean,
                                         Op::reduce_max,
                                         Op::reduce_min,
                                         Op::reduce_prod,
                                         Op::matmul,
                                         Op::linear,
                                         Op::mse_loss,
                                         Op::layer_norm,
                                         Op::batch_norm,
                                         Op::conv,
                                         Op::conv_transpose,
                                         Op::avg_pool,
                                         Op::smooth_max_pool,
                                         Op::softmax,
                                         Op::log_softmax,
                                         Op::scaled_dot_product_attention,
                                         Op::hard_masked_softmax,
                                         Op::max_pool,
                                         Op::cum_sum,
                                         Op::scatter_elements,
                                         Op::scatter_nd,
                                         Op::rnn,
                                         Op::gru,
                                         Op::lstm,
                                         Op::grid_sample,
                                         Op::resize,
                                         Op::roi_align};

std::vector<Op> all_ops() {
  std::vector<Op> out;
  for (std::size_t i = 0; i < kBackendOpCount; ++i)
    out.push_back(static_cast<Op>(i));
  return out;
}

std::vector<KernelCapsule> all_builtin_capsules() {
  std::vector<KernelCapsule> out;
  for (const CapsuleModule& m :
       {attention_module(), native_cuda_module(), reference_module(), libtorch_module()}) {
    out.insert(out.end(), m.capsules.begin(), m.capsules.end());
  }
  return out;
}

std::vector<std::string> names(const CapsuleModule& m) {
  std::vector<std::string> out;
  for (const KernelCapsule& c : m.capsules)
    out.push_back(c.name);
  return out;
}

const KernelCapsule* find(const CapsuleModule& m, Op op) {
  for (const KernelCapsule& c : m.capsules) {
    if (c.op == op) return &c;
  }
  return nullptr;
}

class EveryBuiltinCapsuleTest : public ::testing::TestWithParam<KernelCapsule> {};

TEST_P(EveryBuiltinCapsuleTest, IsAlignedAndForwardCapable) {
  const KernelCapsule& c = GetParam();
  EXPECT_TRUE(contracts_aligned(c)) << c.name;
  EXPECT_TRUE(c.supports_forward) << c.name;
  EXPECT_TRUE(well_formed_for_planning(c)) << c.name;
}

TEST_P(EveryBuiltinCapsuleTest, ClaimsCiteTheOpSpec) {
  const KernelCapsule& c = GetParam();
  EXPECT_EQ(c.value.claim.spec, "Spec." + std::string(to_string(c.op)));
  EXPECT_EQ(c.vjp.claim.spec, "Spec." + std::string(to_string(c.op)));
  EXPECT_EQ(c.vjp.claim.mode, c.vjp_mode);
  EXPECT_EQ(c.layout.claim.layout,
            c.provider == Provider::reference
                ? Layout::canonical_tensor
                : (c.provider == Provider::libtorch ? Layout::libtorch_cuda_view
                                                    : Layout::flat_row_major));
}

TEST_P(EveryBuiltinCapsuleTest, EvidenceKinds) {
  const KernelCapsule& c = GetParam();
  EXPECT_EQ(c.shape.evidence.kind, EvidenceKind::runtime_guard) << c.name;
  EXPECT_EQ(c.layout.evidence.kind, EvidenceKind::runtime_guard) << c.name;
  EXPECT_EQ(c.value.evidence.kind, c.provider == Provider::libtorch ? EvidenceKind::trusted_boundary
                                                                    : EvidenceKind::test_suite)
      << c.name;
  EXPECT_EQ(c.vjp.evidence.kind, EvidenceKind::test_suite) << c.name;
  for (ContractField f :
       {ContractField::shape, ContractField::layout, ContractField::value, ContractField::vjp}) {
    EXPECT_FALSE(c.contract(f).evidence.name.empty()) << c.name << " " << to_string(f);
  }
}

INSTANTIATE_TEST_SUITE_P(AllModules, EveryBuiltinCapsuleTest,
                         ::testing::ValuesIn(all_builtin_capsules()),
                         [](const ::testing::TestParamInfo<KernelCapsule>& info) {
                           return fixtures::test_name(info.param.name + "_" +
                                                      std::string(to_string(info.param.device)));
                         });

TEST(BuiltinModules, DefaultOrder) {
  std::vector<std::string> module_names;
  for (const CapsuleModule& m : builtin_modules())
    module_names.push_back(m.name);
  EXPECT_EQ(module_names, (std::vector<std::string>{"attention", "native-cuda", "reference"}));
  EXPECT_EQ(attention_module().name, "attention");
  EXPECT_EQ(native_cuda_module().name, "native-cuda");
  EXPECT_EQ(reference_module().name, "reference");
  EXPECT_EQ(libtorch_module().name, "libtorch");
}

TEST(BuiltinModules, RegistryIsTheFlattenedDefaults) {
  const Registry& r = builtin_registry();
  EXPECT_EQ(r.modules(), builtin_modules());
  EXPECT_EQ(r.size(), 2u + 44u + 98u);
  EXPECT_EQ(r.capsule(0).name, "native_cuda.flash_attention");
  EXPECT_EQ(r.capsule(1).name, "torchlean.composed_attention");
  EXPECT_EQ(r.capsule(2).name, "native_cuda.rand_uniform");
  EXPECT_EQ(r.capsule(46).name, "reference.rand_uniform");
  EXPECT_EQ(r.capsule(89).name, "reference.attention");
  EXPECT_EQ(r.capsule(90).name, "reference.hard_masked_softmax");
  EXPECT_EQ(r.capsule(93).name, "reference.softsign");
  EXPECT_EQ(r.capsule(106).name, "reference.atanh");
  EXPECT_EQ(r.capsule(109).name, "reference.reduce_prod");
  EXPECT_EQ(r.capsule(111).name, "reference.argmin");
  EXPECT_EQ(r.capsule(121).name, "reference.where");
  EXPECT_EQ(r.capsule(122).name, "reference.cast");
  // The optional libtorch module extends the defaults without a clash.
  auto with_libtorch = Registry::create(
      {attention_module(), native_cuda_module(), reference_module(), libtorch_module()});
  ASSERT_TRUE(with_libtorch.has_value()) << with_libtorch.error().message;
  EXPECT_EQ(with_libtorch->size(), 145u);
}

TEST(BuiltinModules, CountsPerModule) {
  EXPECT_EQ(attention_module().capsules.size(), 2u);
  EXPECT_EQ(native_cuda_module().capsules.size(), 44u);
  EXPECT_EQ(reference_module().capsules.size(), 98u);
  EXPECT_EQ(libtorch_module().capsules.size(), 1u);
}

// reference: one cpu capsule per op except fft_fno and selective_scan, in vocabulary order.
TEST(ReferenceModule, ExactNamesInOpOrder) {
  std::vector<std::string> expected;
  for (Op op : all_ops()) {
    if (op == Op::fft_fno || op == Op::selective_scan) continue;
    expected.push_back(op == Op::scaled_dot_product_attention
                           ? "reference.attention"
                           : "reference." + std::string(to_string(op)));
  }
  EXPECT_EQ(names(reference_module()), expected);
  EXPECT_EQ(expected.back(), "reference.silu");
  EXPECT_EQ(expected.front(), "reference.rand_uniform");
}

// native-cuda: every op of TorchLean's vocabulary except sin, cos and attention, in vocabulary
// order; none of nnplan's extension ops.
TEST(NativeCudaModule, ExactNamesInOpOrder) {
  std::vector<std::string> expected;
  for (Op op : all_ops()) {
    if (op == Op::sin || op == Op::cos || op == Op::scaled_dot_product_attention ||
        is_extension_op(op)) {
      continue;
    }
    expected.push_back("native_cuda." + std::string(to_string(op)));
  }
  EXPECT_EQ(names(native_cuda_module()), expected);
  EXPECT_EQ(expected.back(), "native_cuda.hard_masked_softmax");
}

class PerOpTest : public ::testing::TestWithParam<Op> {};

TEST_P(PerOpTest, ReferenceCapsule) {
  const Op op = GetParam();
  const CapsuleModule m = reference_module();
  const KernelCapsule* c = find(m, op);
  if (op == Op::fft_fno || op == Op::selective_scan) {
    EXPECT_EQ(c, nullptr);
    return;
  }
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->provider, Provider::reference);
  EXPECT_EQ(c->device, Device::cpu);
  EXPECT_EQ(c->trust_level, TrustLevel::checked);
  // The ops with no derivative (SPEC §6): the random sources, the int64 indices of argmax,
  // argmin and top_k, the bool values of the comparisons and logic ops, and cast.
  const bool no_derivative = !requires_vjp(op);
  EXPECT_EQ(c->vjp_mode, no_derivative ? VjpMode::none : VjpMode::torchlean_tape);
  EXPECT_EQ(c->layout.claim.layout, Layout::canonical_tensor);
  const NumericalPolicy expected{.rounding = Rounding::scalar_context,
                                 .subnormals = Subnormals::implementation_defined,
                                 .contraction = Contraction::na,
                                 .reduction = kOrderedReductions.contains(op)
                                                  ? ReductionOrder::fixed_left
                                                  : ReductionOrder::na};
  EXPECT_EQ(c->numerical, expected) << label(c->numerical);
}

TEST_P(PerOpTest, NativeCudaCapsule) {
  const Op op = GetParam();
  const CapsuleModule m = native_cuda_module();
  const KernelCapsule* c = find(m, op);
  if (op == Op::sin || op == Op::cos || op == Op::scaled_dot_product_attention ||
      is_extension_op(op)) {
    EXPECT_EQ(c, nullptr);
    return;
  }
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->name, "native_cuda." + std::string(to_string(op)));
  EXPECT_EQ(c->provider, Provider::native_cuda);
  EXPECT_EQ(c->device, Device::cuda);
  EXPECT_EQ(c->trust_level, TrustLevel::checked);
  const bool forward_only =
      op == Op::rand_uniform || op == Op::bernoulli_mask || op == Op::selective_scan;
  EXPECT_EQ(c->vjp_mode, forward_only ? VjpMode::none : VjpMode::backend_vjp);
  EXPECT_EQ(c->layout.claim.layout, Layout::flat_row_major);
  const NumericalPolicy expected{.rounding = Rounding::nearest_even,
                                 .subnormals = Subnormals::implementation_defined,
                                 .contraction = Contraction::implementation_defined,
                                 .reduction = kOrderedReductions.contains(op)
                                                  ? ReductionOrder::implementation_defined
                                                  : ReductionOrder::na};
  EXPECT_EQ(c->numerical, expected) << label(c->numerical);
}

TEST_P(PerOpTest, HasReductionOrder) {
  EXPECT_EQ(has_reduction_order(GetParam()), kOrderedReductions.contains(GetParam()));
}

TEST_P(PerOpTest, SpecName) {
  EXPECT_EQ(spec_name(GetParam()), "Spec." + std::string(to_string(GetParam())));
}

INSTANTIATE_TEST_SUITE_P(EveryOp, PerOpTest, ::testing::ValuesIn(all_ops()),
                         [](const ::testing::TestParamInfo<Op>& info) {
                           return std::string(to_string(info.param));
                         });

TEST(HasReductionOrder, TwentyEightOps) {
  int count = 0;
  for (Op op : all_ops())
    count += has_reduction_order(op) ? 1 : 0;
  EXPECT_EQ(count, 28);
  EXPECT_EQ(kOrderedReductions.size(), 28u);
}

TEST(AttentionModule, FlashThenComposed) {
  const CapsuleModule m = attention_module();
  ASSERT_EQ(m.capsules.size(), 2u);
  const KernelCapsule& flash = m.capsules[0];
  EXPECT_EQ(flash.name, "native_cuda.flash_attention");
  EXPECT_EQ(flash.op, Op::scaled_dot_product_attention);
  EXPECT_EQ(flash.provider, Provider::native_cuda);
  EXPECT_EQ(flash.device, Device::cuda);
  EXPECT_EQ(flash.trust_level, TrustLevel::checked);
  EXPECT_EQ(flash.vjp_mode, VjpMode::backend_vjp);
  EXPECT_EQ(flash.layout.claim.layout, Layout::flat_row_major);
  EXPECT_EQ(label(flash.numerical),
            "round=nearest-even,subnormal=implementation-defined,contract=fused,reduce="
            "implementation-defined");

  const KernelCapsule& composed = m.capsules[1];
  EXPECT_EQ(composed.name, "torchlean.composed_attention");
  EXPECT_EQ(composed.op, Op::scaled_dot_product_attention);
  EXPECT_EQ(composed.provider, Provider::torchlean);
  EXPECT_EQ(composed.device, Device::cuda);
  EXPECT_EQ(composed.trust_level, TrustLevel::checked);
  EXPECT_EQ(composed.vjp_mode, VjpMode::torchlean_tape);
  EXPECT_EQ(composed.layout.claim.layout, Layout::flat_row_major);
  EXPECT_EQ(label(composed.numerical),
            "round=nearest-even,subnormal=implementation-defined,contract=implementation-"
            "defined,reduce=implementation-defined");
}

TEST(LibtorchModule, SdpaForward) {
  const CapsuleModule m = libtorch_module();
  ASSERT_EQ(m.capsules.size(), 1u);
  const KernelCapsule& c = m.capsules[0];
  EXPECT_EQ(c.name, "libtorch.sdpa_forward");
  EXPECT_EQ(c.op, Op::scaled_dot_product_attention);
  EXPECT_EQ(c.provider, Provider::libtorch);
  EXPECT_EQ(c.device, Device::cuda);
  EXPECT_EQ(c.trust_level, TrustLevel::trusted_external);
  EXPECT_EQ(c.vjp_mode, VjpMode::torchlean_tape);
  EXPECT_EQ(c.value.evidence.kind, EvidenceKind::trusted_boundary);
  EXPECT_EQ(disposition(c.value.evidence.kind), Disposition::trusted);
  EXPECT_FALSE(c.value.evidence.name.empty());
  EXPECT_EQ(c.layout.claim.layout, Layout::libtorch_cuda_view);
  const NumericalPolicy all_implementation_defined{
      .rounding = Rounding::implementation_defined,
      .subnormals = Subnormals::implementation_defined,
      .contraction = Contraction::implementation_defined,
      .reduction = ReductionOrder::implementation_defined};
  EXPECT_EQ(c.numerical, all_implementation_defined);
  // Provenance points at the native symbol; it is not evidence.
  ASSERT_EQ(c.value.provenance.size(), 1u);
  EXPECT_EQ(c.value.provenance[0].kind, ProvenanceKind::native_symbol);
  EXPECT_EQ(c.value.provenance[0].symbol, "at::scaled_dot_product_attention");
}

// Only the libtorch module contains a trusted-external capsule.
TEST(BuiltinModules, OnlyLibtorchIsTrustedExternal) {
  for (const KernelCapsule& c : all_builtin_capsules()) {
    EXPECT_EQ(c.trust_level == TrustLevel::trusted_external, c.provider == Provider::libtorch)
        << c.name;
  }
}

}  // namespace
}  // namespace nnplan::backend
