// Differential oracles (SPEC §12): seeded comparisons of one capsule of a fast provider (or one
// fused capsule's chain) with the reference provider. An oracle draws one case per seed: a small
// graph holding the op or chain under test fed by graph inputs, its weights and its input values.
// run_case plans the case under the profile under test (fast_cpu) and checks that the plan really
// runs the capsule under test there (for a fused capsule: one `fused` group naming it over exactly
// the chain), plans it under the reference profile (checked_cpu), compiles and runs both and
// compares every output element within the oracle's stated tolerance. The nnplan_oracles program
// (main.cpp) and the GoogleTest conformance_test.cpp run the rows of the conformance table
// (conformance_table.cpp); a capsule's fuzz-oracle evidence `<capsule>.oracle` resolves to its row
// (runtime/evidence.hpp). draws.hpp holds the shape and attribute draws several rows share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/planned_model.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/error.hpp"
#include "nnplan/format/payload_file.hpp"
#include "nnplan/ir/check.hpp"
#include "nnplan/runtime/executor.hpp"
#include "nnplan/runtime/handler_registry.hpp"
#include "nnplan/runtime/tensor.hpp"

namespace nnplan::oracles {

// An output element passes when |got - want| <= abs + rel * |want| + norm * max|want|, the max
// taken over that output tensor's finite reference values. `norm` admits the rounding of long
// reductions (matmul, conv), whose error scales with the size of the summed terms rather than
// with a result that cancelled to near zero. NaN matches only NaN, an infinity only itself.
struct Tolerance {
  double abs = 0;
  double rel = 0;
  double norm = 0;
};
// `abs 1e-05, rel 0.0001, norm 1e-05 (of max |reference|)`.
[[nodiscard]] std::string describe(const Tolerance& tolerance);

// Where a tensor's values are drawn from: uniform in [lo, hi), with a `zeros` share of exact zeros.
struct Values {
  float lo = -1.0F;
  float hi = 1.0F;
  double zeros = 0.1;
};

// A seeded source of shapes, attributes and values: one per case, so a case seed reproduces the
// case exactly.
class Draw {
 public:
  explicit Draw(std::uint64_t seed) : rng_(seed) {}
  // An integer in [lo, hi].
  [[nodiscard]] std::uint32_t between(std::uint32_t lo, std::uint32_t hi);
  [[nodiscard]] bool chance(double p);
  template <class T>
  [[nodiscard]] T pick(std::initializer_list<T> options) {
    return options.begin()[between(0, static_cast<std::uint32_t>(options.size() - 1))];
  }
  [[nodiscard]] float value(const Values& values);
  [[nodiscard]] std::vector<float> values(std::size_t count, const Values& values);
  // A symmetric range [-m, m) with m one of 1, 1, 4, 32: most cases near unit scale, some large.
  [[nodiscard]] Values signed_values();
  // A shape of rank in [min_rank, max_rank], each dimension in [1, max_dim], at most
  // `max_elements` elements (later dimensions shrink to fit).
  [[nodiscard]] ir::Shape shape(std::uint32_t min_rank, std::uint32_t max_rank,
                                std::uint32_t max_dim, std::size_t max_elements = 4096);

 private:
  std::mt19937_64 rng_;
};

// One drawn case: a checked graph, its weights, its input values, the nodes the capsule under
// test must run (the whole chain, root first, for a fused capsule) and the shapes and attributes
// drawn, as a report prints them.
struct OracleCase {
  std::shared_ptr<const ir::CheckedGraph> graph;
  std::shared_ptr<const ir::WeightStore> weights;
  std::vector<runtime::NamedTensor> inputs;
  std::vector<ir::NodeId> targets;
  std::string description;
};

// Builds one case node by node; shapes are inferred (ir::CheckedGraphBuilder). The first error
// (a node the oracle drew wrongly) is kept and reported by finish: an oracle bug, never a pass.
class CaseBuilder {
 public:
  explicit CaseBuilder(Draw& draw) : draw_(draw) {}
  [[nodiscard]] Draw& draw() { return draw_; }

  // A graph input `x<k>` of `shape` with values from `values`.
  ir::NodeId input(const ir::Shape& shape, const Values& values);
  // A node; `declared` is read only by kinds whose shape is declared (linear's last dimension).
  ir::NodeId add(ir::OpKind kind, std::vector<ir::NodeId> parents, ir::OpParams params = {},
                 ir::Shape declared = {});
  // The same, marked as a node the capsule under test must run (in chain order).
  ir::NodeId target(ir::OpKind kind, std::vector<ir::NodeId> parents, ir::OpParams params = {},
                    ir::Shape declared = {});
  // A const node holding `value` everywhere (as the importer pads max pools with -inf).
  ir::NodeId constant(const ir::Shape& shape, float value);
  // A float32 payload `name` of `node`, values from `values` (or exactly `data` when given).
  void weight(ir::NodeId node, std::string_view name, const ir::Shape& shape, const Values& values);
  void weight(ir::NodeId node, std::string_view name, const ir::Shape& shape,
              std::vector<float> data);
  void attribute(ir::NodeId node, std::string_view name, double value);
  // Appends `text` to the case's description.
  void note(std::string_view text);
  [[nodiscard]] ir::Shape shape_of(ir::NodeId node) const;
  // The parents of a node added so far (empty for an id not added).
  [[nodiscard]] std::vector<ir::NodeId> parents_of(ir::NodeId node) const;

  // The case, with `outputs` as the graph's outputs (the last node when empty).
  [[nodiscard]] Expected<OracleCase> finish(std::vector<ir::NodeId> outputs = {}) &&;

 private:
  Draw& draw_;
  ir::CheckedGraphBuilder graph_;
  ir::WeightStore weights_;
  std::vector<runtime::NamedTensor> inputs_;
  std::vector<ir::NodeId> targets_;
  std::string description_;
  std::optional<Error> error_;
};

// What a row's capsule claims where NaN or an infinity is involved (its value summary says the
// same: backend::special_value_caveat), as the special-value draws (RunSetup::special_values)
// check it.
enum class SpecialValues : std::uint8_t {
  // NaN exactly where the reference gives NaN, each infinity where it gives that infinity.
  as_reference,
  // Where the reference gives NaN or an infinity, any value; every other element as the reference.
  may_lose_special,
  // Elements where either side is NaN are not compared; every other one as the reference.
  may_make_nan,
};

// One row of the conformance table (conformance_table.cpp): the capsule under test
// (`onednn.conv`), the tolerance its outputs meet against the reference and why, and `build`, which
// draws one case into the builder. Its name is the capsule's fuzz-oracle evidence name.
struct Oracle {
  std::string_view capsule;
  Tolerance tolerance;
  // Why the tolerance is what it is: where the two providers' arithmetic differs.
  std::string_view reason;
  void (*build)(CaseBuilder&) = nullptr;
  // What the draws cover, for --list.
  std::string_view covers;
  SpecialValues special = SpecialValues::as_reference;
  // Whether the special-value draws plant in weights too, not only in inputs. Off only where the
  // claim says what a special weight does and no comparison could hold it (a NaN the capsule
  // clips to a bound); another row draws that weight's effect.
  bool special_weights = true;

  // `<capsule>.oracle`: the evidence name a capsule cites for this row (`onednn.conv.oracle`).
  [[nodiscard]] std::string name() const { return std::string(capsule) + ".oracle"; }
};

// The conformance table's rows, in capsule order.
[[nodiscard]] std::span<const Oracle> registered_oracles();
// The row whose name is `name`, or null.
[[nodiscard]] const Oracle* find_oracle(std::string_view name);

// What is wrong with the table's rows against the capsules of `profile`, one line each: a row
// whose capsule is not in the registry or does not cite the row as its value evidence, two rows of
// one capsule, and a capsule of a provider other than the reference whose fuzz-oracle evidence
// names no row.
[[nodiscard]] std::vector<std::string> registration_problems(
    std::span<const Oracle> oracles, const backend::BackendProfile& profile);

// The worst element of a comparison: the one whose error is the largest share of what the
// tolerance allows there (or the first NaN/infinity mismatch, or a shape or count mismatch).
struct Comparison {
  bool passed = true;
  std::string problem;  // set for a shape, count or special-value mismatch
  std::size_t output = 0;
  std::size_t element = 0;
  double got = 0;
  double want = 0;
  double error = 0;
  double allowed = 0;
  // error / allowed at the worst element (infinite where nothing is allowed and it differs).
  double share = 0;
};
// Elements `special` leaves uncompared are skipped.
[[nodiscard]] Comparison compare(std::span<const runtime::Tensor> got,
                                 std::span<const runtime::Tensor> want, const Tolerance& tolerance,
                                 SpecialValues special = SpecialValues::as_reference);

// Nothing when `model` runs the capsule named `capsule` on exactly `targets`: for a fused
// capsule, one `fused` group naming it whose nodes are `targets` in order; otherwise every target
// node planned with that capsule outside any fused group. Else an error saying what the plan ran
// instead (kind rejected_by_policy): the oracle would compare some other code.
[[nodiscard]] Expected<void> check_choice(const backend::PlannedModel& model,
                                          std::string_view capsule,
                                          std::span<const ir::NodeId> targets);

// What a case is planned and run under.
struct RunSetup {
  backend::BackendProfile under_test = backend::make_profile(backend::MaintainedProfile::fast_cpu);
  backend::BackendProfile reference =
      backend::make_profile(backend::MaintainedProfile::checked_cpu);
  const runtime::HandlerRegistry* handlers = &runtime::builtin_handlers();
  // Whether run_case checks that the plan under test runs the capsule under test; off only for
  // nnplan_oracles --reference-only, which checks the draws in a build without the provider.
  bool check_choice = true;
  // Whether run_case replaces some input and weight elements by NaN, +inf, -inf and -0 after the
  // draw (about one in sixteen, from a draw of their own so the case is otherwise the same), and
  // compares as the row's special-value claim says.
  bool special_values = false;
  // Applied to the outputs under test before they are compared (the self-tests plant a wrong
  // result with it); empty in the program.
  std::function<void(std::vector<runtime::Tensor>&)> tamper;
};

// One case's verdict. `report` is the full failure report (seed, shapes and attributes, worst
// element and both values, how to reproduce it), or a one-line summary when it passed.
struct CaseResult {
  bool passed = false;
  double share = 0;  // the worst element's share of its allowed error
  std::string report;
};

// Draws case `seed` of `oracle`, plans, checks the choice, runs and compares.
[[nodiscard]] CaseResult run_case(const Oracle& oracle, std::uint64_t seed, const RunSetup& setup);

// Whether `handlers` holds any handler of `provider`: a build without the provider skips its
// oracles rather than failing them.
[[nodiscard]] bool provider_built(const runtime::HandlerRegistry& handlers,
                                  backend::Provider provider);

}  // namespace nnplan::oracles
