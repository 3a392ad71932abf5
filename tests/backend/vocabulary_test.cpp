// Every closed vocabulary of SPEC §1–§4, §9 and §10: the exact spellings (typed here from the SPEC,
// not copied from the tables), round trips through to_string/parse_*, and the unknown-name error
// that lists every valid spelling, and the "<invalid>" spelling of a value outside the enum.
// Also requires_vjp and BackendPreference.
#include "nnplan/backend/vocabulary.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "capsule_fixtures.hpp"
#include "nnplan/backend/admissibility.hpp"
#include "nnplan/backend/assurance_policy.hpp"
#include "nnplan/backend/contract.hpp"
#include "nnplan/backend/execution_config.hpp"
#include "nnplan/backend/numerical_policy.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/backend/target.hpp"

namespace nnplan::backend {
namespace {

using fixtures::test_name;

// One vocabulary: its name in error messages, the SPEC spellings in enumerator order, and
// type-erased to_string / parse_* over enumerator indices.
struct VocabularyCase {
  std::string what;
  std::vector<std::string> spellings;
  std::size_t table_size;
  std::function<std::string(std::size_t)> name_of;
  std::function<Expected<std::size_t>(std::string_view)> parse;
};

void PrintTo(const VocabularyCase& c, std::ostream* os) {
  *os << c.what;
}

template <class E, std::size_t N, class Parse>
VocabularyCase vocabulary(std::string what, const std::array<std::string_view, N>& table,
                          std::vector<std::string> spellings, Parse parse) {
  return {.what = std::move(what),
          .spellings = std::move(spellings),
          .table_size = table.size(),
          .name_of = [](std::size_t i) { return std::string(to_string(static_cast<E>(i))); },
          .parse = [parse](std::string_view s) -> Expected<std::size_t> {
            auto parsed = parse(s);
            if (!parsed) return std::unexpected(parsed.error());
            return static_cast<std::size_t>(*parsed);
          }};
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i != 0) out += ", ";
    out += names[i];
  }
  return out;
}

std::vector<VocabularyCase> all_vocabularies() {
  return {
      vocabulary<Device>(
          "device", kDeviceNames,
          {"cpu", "cuda", "rocm", "metal", "wasm", "tpu", "trainium", "custom", "external"},
          parse_device),
      vocabulary<Provider>(
          "provider", kProviderNames,
          {"reference", "torchlean", "native-cuda", "libtorch", "aten", "mps", "webgpu", "cublas",
           "cudnn", "cufft", "xla", "neuron", "custom-chip", "external", "onednn"},
          parse_provider),
      vocabulary<BackendOp>(
          "backend op", kBackendOpNames,
          {"rand_uniform", "bernoulli_mask", "add", "sub", "mul", "scale", "abs", "sqrt", "clamp",
           "max", "min", "relu", "gelu", "sigmoid", "tanh", "softplus", "exp", "log", "sin", "cos",
           "inv", "safe_log", "log_softmax", "softmax", "reduce_sum", "reduce_mean", "reshape",
           "permute", "broadcast", "concat", "slice", "gather", "scatter_add", "matmul", "linear",
           "mse_loss", "layer_norm", "batch_norm", "conv", "conv_transpose", "max_pool",
           "smooth_max_pool", "avg_pool", "fft_fno", "selective_scan",
           "scaled_dot_product_attention", "hard_masked_softmax",
           // nnplan's extension ops (SPEC §6)
           "leaky_relu", "elu", "softsign", "floor", "ceil", "round", "sign", "tan", "asin", "acos",
           "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "reduce_max", "reduce_min",
           "reduce_prod", "argmax", "argmin", "equal", "less", "less_or_equal", "greater",
           "greater_or_equal", "and", "or", "xor", "not", "where", "cast", "erf", "pow",
           "gather_elements", "top_k", "cum_sum", "scatter_elements", "scatter_nd", "gather_nd",
           "mod", "fmod", "rnn", "gru", "lstm", "grid_sample", "max_unpool", "resize", "roi_align",
           "max_pool_indices", "hard_sigmoid", "hard_swish", "silu"},
          parse_backend_op),
      vocabulary<TrustLevel>("trust level", kTrustLevelNames,
                             {"verified", "checked", "fuzzed", "trusted-external"},
                             parse_trust_level),
      vocabulary<VjpMode>("vjp mode", kVjpModeNames, {"none", "torchlean-tape", "backend-vjp"},
                          parse_vjp_mode),
      vocabulary<AssurancePreset>("assurance policy", kAssurancePresetNames,
                                  {"verified", "checked", "external"}, parse_assurance_preset),
      vocabulary<ContractField>("contract field", kContractFieldNames,
                                {"shape", "layout", "value", "vjp"}, parse_contract_field),
      vocabulary<Layout>("layout", kLayoutNames,
                         {"canonical-tensor", "flat-row-major", "libtorch-cuda-view"},
                         parse_layout),
      vocabulary<ClaimKind>(
          "claim kind", kClaimKindNames,
          {"shape-safety", "layout-compatibility", "value-refinement", "vjp-refinement"},
          parse_claim_kind),
      vocabulary<EvidenceKind>("evidence kind", kEvidenceKindNames,
                               {"theorem", "checker", "runtime-guard", "test-suite", "fuzz-oracle",
                                "trusted-boundary", "not-provided"},
                               parse_evidence_kind),
      vocabulary<Disposition>(
          "disposition", kDispositionNames,
          {"proved", "checked", "guarded", "tested", "fuzzed", "trusted", "missing"},
          parse_disposition),
      vocabulary<ProvenanceKind>("provenance kind", kProvenanceKindNames,
                                 {"source-file", "native-symbol", "note"}, parse_provenance_kind),
      vocabulary<Rounding>(
          "rounding", kRoundingNames,
          {"scalar-context", "nearest-even", "directed", "implementation-defined", "unspecified"},
          parse_rounding),
      vocabulary<Subnormals>(
          "subnormals", kSubnormalsNames,
          {"gradual-underflow", "flush-to-zero", "implementation-defined", "unspecified"},
          parse_subnormals),
      vocabulary<Contraction>("contraction", kContractionNames,
                              {"separate", "fused", "implementation-defined", "n/a", "unspecified"},
                              parse_contraction),
      vocabulary<ReductionOrder>(
          "reduction", kReductionOrderNames,
          {"fixed-left", "fixed-tree", "implementation-defined", "n/a", "unspecified"},
          parse_reduction_order),
      vocabulary<RejectionReason>(
          "rejection reason", kRejectionReasonNames,
          {"forward-unsupported", "contracts-misaligned", "trust-not-admitted", "provider-excluded",
           "wrong-device", "vjp-incompatible", "unavailable-device", "unavailable-provider"},
          parse_rejection_reason),
      vocabulary<OperatingSystem>("operating system", kOperatingSystemNames,
                                  {"linux", "macos", "windows", "wasi", "unknown"},
                                  parse_operating_system),
      vocabulary<Architecture>("architecture", kArchitectureNames,
                               {"x86_64", "aarch64", "wasm32", "unknown"}, parse_architecture),
      vocabulary<Accelerator>(
          "accelerator", kAcceleratorNames,
          {"none", "cuda", "rocm", "metal", "wasm", "tpu", "trainium", "custom", "external"},
          parse_accelerator),
      vocabulary<BuildFeature>(
          "build feature", kBuildFeatureNames,
          {"native-cuda", "libtorch", "aten", "mps", "webgpu", "cublas", "cudnn", "cufft", "xla",
           "neuron", "custom-chip", "external-provider", "onednn"},
          parse_build_feature),
      vocabulary<TargetPreset>(
          "target preset", kTargetPresetNames,
          {"portable-cpu", "linux-cpu", "macos-cpu", "windows-cpu", "linux-cuda",
           "linux-cuda-libtorch", "windows-cuda", "windows-cuda-libtorch", "linux-rocm",
           "macos-metal", "wasm", "linux-tpu", "linux-trainium", "custom-chip", "external",
           "linux-cpu-onednn"},
          parse_target_preset),
      vocabulary<LoweringMode>("lowering mode", kLoweringModeNames,
                               {"singleton", "coalesced", "fused"}, parse_lowering_mode),
      vocabulary<MaintainedProfile>(
          "profile", kMaintainedProfileNames,
          {"checked_cpu", "checked_linux_x86_64_cpu", "checked_macos_aarch64_cpu",
           "checked_windows_x86_64_cpu", "checked_cuda", "libtorch_forward_cuda", "fast_cpu"},
          parse_maintained_profile),
  };
}

class VocabularyTest : public ::testing::TestWithParam<VocabularyCase> {};

TEST_P(VocabularyTest, ToStringGivesTheSpecSpellingOfEveryEnumerator) {
  const VocabularyCase& v = GetParam();
  ASSERT_EQ(v.table_size, v.spellings.size()) << v.what << ": enumerator count";
  for (std::size_t i = 0; i < v.spellings.size(); ++i) {
    EXPECT_EQ(v.name_of(i), v.spellings[i]) << v.what << " enumerator " << i;
  }
}

TEST_P(VocabularyTest, ParseInvertsToString) {
  const VocabularyCase& v = GetParam();
  for (std::size_t i = 0; i < v.spellings.size(); ++i) {
    auto parsed = v.parse(v.spellings[i]);
    ASSERT_TRUE(parsed.has_value()) << v.what << " '" << v.spellings[i] << "'";
    EXPECT_EQ(*parsed, i);
    EXPECT_EQ(v.name_of(*parsed), v.spellings[i]);
  }
}

TEST_P(VocabularyTest, UnknownNamesFailListingEveryValidName) {
  const VocabularyCase& v = GetParam();
  const std::string first = v.spellings.front();
  std::string upper = first;
  for (char& ch : upper)
    ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  for (const std::string& bad : {std::string("no-such-name"), std::string(), upper, " " + first,
                                 first + " ", first + "x", first.substr(0, first.size() - 1)}) {
    auto parsed = v.parse(bad);
    ASSERT_FALSE(parsed.has_value()) << v.what << " accepted '" << bad << "'";
    EXPECT_EQ(parsed.error().kind, ErrorKind::invalid_input);
    // Between the name and the list, a suggestion where one is close (spelling_hint_test.cpp);
    // a spelling differing only in case always gets the one it spells.
    const std::string& message = parsed.error().message;
    EXPECT_TRUE(message.starts_with("unknown " + v.what + " '" + bad + "'; ")) << message;
    EXPECT_TRUE(message.ends_with("valid: " + joined(v.spellings))) << message;
    const std::string suggested = "did you mean '" + first + "'? ";
    if (bad == upper && upper != first) {
      EXPECT_NE(message.find(suggested), std::string::npos) << message;
    }
    if (bad == "no-such-name" || bad.empty()) {
      EXPECT_EQ(message, "unknown " + v.what + " '" + bad + "'; valid: " + joined(v.spellings));
    }
  }
}

// A value outside the enum (a cast, never a parse) reads as "<invalid>", never past the table.
TEST_P(VocabularyTest, ValuesPastTheLastEnumeratorSpellInvalid) {
  const VocabularyCase& v = GetParam();
  for (const std::size_t i : {v.table_size, v.table_size + 1, std::size_t{255}}) {
    EXPECT_EQ(v.name_of(i), "<invalid>") << v.what << " value " << i;
  }
  EXPECT_FALSE(v.parse("<invalid>").has_value()) << v.what;
}

INSTANTIATE_TEST_SUITE_P(AllVocabularies, VocabularyTest, ::testing::ValuesIn(all_vocabularies()),
                         [](const ::testing::TestParamInfo<VocabularyCase>& info) {
                           return test_name(info.param.what);
                         });

// Spot checks of the spellings most likely to drift (hyphen versus underscore, `n/a`).
TEST(VocabularySpellings, LiteralSpecSpellings) {
  struct Case {
    std::string_view actual;
    std::string_view expected;
  };
  const Case cases[] = {
      {to_string(Provider::native_cuda), "native-cuda"},
      {to_string(Provider::custom_chip), "custom-chip"},
      {to_string(TrustLevel::trusted_external), "trusted-external"},
      {to_string(VjpMode::torchlean_tape), "torchlean-tape"},
      {to_string(VjpMode::backend_vjp), "backend-vjp"},
      {to_string(BackendOp::scaled_dot_product_attention), "scaled_dot_product_attention"},
      {to_string(BackendOp::smooth_max_pool), "smooth_max_pool"},
      {to_string(Contraction::na), "n/a"},
      {to_string(ReductionOrder::na), "n/a"},
      {to_string(Rounding::scalar_context), "scalar-context"},
      {to_string(Subnormals::flush_to_zero), "flush-to-zero"},
      {to_string(Layout::libtorch_cuda_view), "libtorch-cuda-view"},
      {to_string(EvidenceKind::not_provided), "not-provided"},
      {to_string(ProvenanceKind::native_symbol), "native-symbol"},
      {to_string(RejectionReason::unavailable_provider), "unavailable-provider"},
      {to_string(OperatingSystem::linux_os), "linux"},
      {to_string(BuildFeature::external_provider), "external-provider"},
      {to_string(TargetPreset::windows_cuda_libtorch), "windows-cuda-libtorch"},
      {to_string(MaintainedProfile::checked_macos_aarch64_cpu), "checked_macos_aarch64_cpu"},
  };
  for (const Case& c : cases)
    EXPECT_EQ(c.actual, c.expected);
}

TEST(VocabularySpellings, ErrorKindSpellings) {
  struct Case {
    ErrorKind kind;
    std::string_view expected;
  };
  for (const Case& c :
       {Case{ErrorKind::invalid_input, "invalid-input"}, Case{ErrorKind::not_found, "not-found"},
        Case{ErrorKind::rejected_by_policy, "rejected-by-policy"},
        Case{ErrorKind::unavailable, "unavailable"}, Case{ErrorKind::internal, "internal"}}) {
    EXPECT_EQ(std::string_view(to_string(c.kind)), c.expected);
  }
}

TEST(VocabularySpellings, DeviceErrorMessageIsExact) {
  auto parsed = parse_device("gpu");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_EQ(parsed.error().message,
            "unknown device 'gpu'; valid: cpu, cuda, rocm, metal, wasm, tpu, trainium, custom, "
            "external");
}

// The ops SPEC §6 says have no derivative: the random sources, argmax, argmin, top_k and
// max_pool_indices (int64 indices), mod (int64 remainders), the comparisons and logic ops, and
// cast.
bool has_no_derivative(BackendOp op) {
  using enum BackendOp;
  for (BackendOp o :
       {rand_uniform, bernoulli_mask, argmax, argmin, equal, less, less_or_equal, greater,
        greater_or_equal, and_, or_, xor_, not_, cast, top_k, mod, max_pool_indices}) {
    if (op == o) return true;
  }
  return false;
}

// requires_vjp is false exactly for the ops without a derivative.
class RequiresVjpTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(RequiresVjpTest, FalseOnlyForOpsWithoutADerivative) {
  const auto op = static_cast<BackendOp>(GetParam());
  const bool no_derivative = has_no_derivative(op);
  EXPECT_EQ(requires_vjp(op), !no_derivative) << to_string(op);
}

INSTANTIATE_TEST_SUITE_P(EveryOp, RequiresVjpTest,
                         ::testing::Range<std::size_t>(0, kBackendOpCount),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return std::string(to_string(static_cast<BackendOp>(info.param)));
                         });

TEST(RequiresVjp, ExactlySeventeenOpsHaveNoVjp) {
  std::vector<std::string_view> without;
  for (std::size_t i = 0; i < kBackendOpCount; ++i) {
    const auto op = static_cast<BackendOp>(i);
    if (!requires_vjp(op)) without.push_back(to_string(op));
  }
  EXPECT_EQ(without, (std::vector<std::string_view>{
                         "rand_uniform", "bernoulli_mask", "argmax", "argmin", "equal", "less",
                         "less_or_equal", "greater", "greater_or_equal", "and", "or", "xor", "not",
                         "cast", "top_k", "mod", "max_pool_indices"}));
  EXPECT_EQ(kBackendOpCount, 100u);
}

// TorchLean's 47 ops first, then nnplan's extension ops.
TEST(ExtensionOps, FollowTorchLeansVocabulary) {
  std::vector<std::string_view> extension;
  for (std::size_t i = 0; i < kBackendOpCount; ++i) {
    const auto op = static_cast<BackendOp>(i);
    EXPECT_EQ(is_extension_op(op), i >= 47u) << to_string(op);
    if (is_extension_op(op)) extension.push_back(to_string(op));
  }
  EXPECT_EQ(extension, (std::vector<std::string_view>{"leaky_relu",
                                                      "elu",
                                                      "softsign",
                                                      "floor",
                                                      "ceil",
                                                      "round",
                                                      "sign",
                                                      "tan",
                                                      "asin",
                                                      "acos",
                                                      "atan",
                                                      "sinh",
                                                      "cosh",
                                                      "asinh",
                                                      "acosh",
                                                      "atanh",
                                                      "reduce_max",
                                                      "reduce_min",
                                                      "reduce_prod",
                                                      "argmax",
                                                      "argmin",
                                                      "equal",
                                                      "less",
                                                      "less_or_equal",
                                                      "greater",
                                                      "greater_or_equal",
                                                      "and",
                                                      "or",
                                                      "xor",
                                                      "not",
                                                      "where",
                                                      "cast",
                                                      "erf",
                                                      "pow",
                                                      "gather_elements",
                                                      "top_k",
                                                      "cum_sum",
                                                      "scatter_elements",
                                                      "scatter_nd",
                                                      "gather_nd",
                                                      "mod",
                                                      "fmod",
                                                      "rnn",
                                                      "gru",
                                                      "lstm",
                                                      "grid_sample",
                                                      "max_unpool",
                                                      "resize",
                                                      "roi_align",
                                                      "max_pool_indices",
                                                      "hard_sigmoid",
                                                      "hard_swish",
                                                      "silu"}));
}

// BackendPreference: `auto`, `prefer <provider>`, `only <provider>`.
TEST(BackendPreferenceSpelling, RoundTripsForEveryProvider) {
  EXPECT_EQ(to_string(BackendPreference::automatic()), "auto");
  auto parsed_auto = parse_backend_preference("auto");
  ASSERT_TRUE(parsed_auto.has_value());
  EXPECT_EQ(*parsed_auto, BackendPreference::automatic());
  for (std::size_t i = 0; i < kProviderNames.size(); ++i) {
    const auto p = static_cast<Provider>(i);
    for (const BackendPreference& pref :
         {BackendPreference::prefer(p), BackendPreference::only(p)}) {
      const std::string text = to_string(pref);
      auto parsed = parse_backend_preference(text);
      ASSERT_TRUE(parsed.has_value()) << text;
      EXPECT_EQ(*parsed, pref) << text;
    }
  }
}

TEST(BackendPreferenceSpelling, LiteralSpellings) {
  EXPECT_EQ(to_string(BackendPreference::prefer(Provider::native_cuda)), "prefer native-cuda");
  EXPECT_EQ(to_string(BackendPreference::only(Provider::libtorch)), "only libtorch");
  EXPECT_EQ(to_string(BackendPreference::prefer(Provider::custom_chip)), "prefer custom-chip");
}

TEST(BackendPreferenceSpelling, ParseErrors) {
  struct Case {
    std::string text;
    std::string message_fragment;
  };
  const Case cases[] = {
      {"", "unknown backend preference ''; valid: auto, prefer <provider>, only <provider>"},
      {"automatic",
       "unknown backend preference 'automatic'; valid: auto, prefer <provider>, only <provider>"},
      {"Auto", "unknown backend preference 'Auto'"},
      {"prefer", "unknown backend preference 'prefer'"},
      {"only", "unknown backend preference 'only'"},
      {"prefer_native-cuda", "unknown backend preference 'prefer_native-cuda'"},
      {"Prefer native-cuda", "unknown backend preference 'Prefer native-cuda'"},
      {"prefer gpu", "unknown provider 'gpu'; valid: reference, torchlean, native-cuda"},
      {"only native_cuda", "unknown provider 'native_cuda'"},
      {"prefer ", "unknown provider ''"},
      {"only  libtorch", "unknown provider ' libtorch'"},
      {"prefer libtorch ", "unknown provider 'libtorch '"},
  };
  for (const Case& c : cases) {
    auto parsed = parse_backend_preference(c.text);
    ASSERT_FALSE(parsed.has_value()) << "accepted '" << c.text << "'";
    EXPECT_EQ(parsed.error().kind, ErrorKind::invalid_input) << c.text;
    EXPECT_NE(parsed.error().message.find(c.message_fragment), std::string::npos)
        << c.text << ": " << parsed.error().message;
  }
  // The provider error names every provider.
  auto bad = parse_backend_preference("only gpu");
  ASSERT_FALSE(bad.has_value());
  for (std::string_view name : kProviderNames) {
    EXPECT_NE(bad.error().message.find(name), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace nnplan::backend
