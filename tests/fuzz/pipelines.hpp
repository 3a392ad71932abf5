// The pipelines the libFuzzer targets drive, shared with tests/format/fuzz_regression_test.cpp
// so every crashing input found by fuzzing is replayed through exactly the same code. Each
// function takes untrusted bytes and must return (success or an error), never crash or throw.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nnplan/backend/acceptance.hpp"
#include "nnplan/backend/builtin_modules.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/backend/registry.hpp"
#include "nnplan/format/ir_json.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "nnplan/format/payload_file.hpp"
#include "nnplan/format/plan_artifact.hpp"
#include "nnplan/format/registry_file.hpp"
#include "nnplan/ir/check.hpp"

namespace nnplan::fuzz {

// What a pipeline reached; only for tests that want to see inputs get past parsing.
enum class Reached : std::uint8_t { rejected, checked, planned };

// check + plan + lower + gate under checked_cpu, and the artifact writer on the result.
inline Reached plan_checked(ir::Graph graph) {
  auto checked = ir::check(std::move(graph));
  if (!checked) return Reached::rejected;
  static const backend::BackendProfile profile =
      backend::make_profile(backend::MaintainedProfile::checked_cpu);
  const auto evaluation = backend::evaluate_graph(profile, *checked);
  (void)format::plan_artifact_json(profile, format::sha256_digest(""), checked->graph(),
                                   evaluation);
  return evaluation ? Reached::planned : Reached::checked;
}

// torchlean.ir.v1: parse_ir_json -> ir::check -> evaluate_graph (plan, lower, audit, gate).
inline Reached ir_json_pipeline(std::string_view text) {
  auto graph = format::parse_ir_json(text, "<fuzz>");
  if (!graph) return Reached::rejected;
  return plan_checked(std::move(*graph));
}

// ONNX: import_onnx -> ir::check (again, as a guard on the importer's own check) ->
// evaluate_graph.
inline Reached onnx_pipeline(std::span<const std::byte> bytes) {
  auto model = format::import_onnx(bytes, "<fuzz>");
  // Differential: the import the graph subcommands do (no payloads) decides the same way, with
  // the same message, and builds the same graph. Only external data differs: the import with
  // payloads reads it, and bytes come with no directory to read it from.
  format::OnnxImportOptions shapes_only;
  shapes_only.keep_payloads = false;
  const auto planned = format::import_onnx(bytes, "<fuzz>", shapes_only);
  const bool no_external_dir =
      planned && !model &&
      model.error().message.find("this import has no model directory to read it from") !=
          std::string::npos;
  if (no_external_dir) return plan_checked(ir::Graph(planned->graph()));
  if (planned.has_value() != model.has_value()) __builtin_trap();
  if (model && (planned->graph() != model->graph() || !planned->payloads.tensors.empty())) {
    __builtin_trap();
  }
  if (!model && planned.error().message != model.error().message) __builtin_trap();
  if (!model) return Reached::rejected;
  return plan_checked(std::move(model->checked).release());
}

// nnplan.capsules.v1: parse_registry_json -> Registry::create, Registry::with_modules on the
// builtins, the checked_cpu profile with the modules added -> plan a few ops.
inline Reached registry_pipeline(std::string_view text) {
  auto modules = format::parse_registry_json(text, "<fuzz>");
  if (!modules) return Reached::rejected;
  (void)format::write_registry_json(*modules);
  (void)backend::Registry::create(*modules);
  (void)backend::builtin_registry().with_modules(*modules);
  static const backend::BackendProfile base =
      backend::make_profile(backend::MaintainedProfile::checked_cpu);
  auto profile = base.with_capsule_modules(std::move(*modules));
  if (!profile) return Reached::checked;
  static constexpr std::array kOps = {backend::BackendOp::add, backend::BackendOp::relu,
                                      backend::BackendOp::matmul, backend::BackendOp::softmax,
                                      backend::BackendOp::bernoulli_mask};
  bool planned = false;
  for (const backend::BackendOp op : kOps) {
    const std::array one = {op};
    planned = backend::plan_ops(*profile, one).has_value() || planned;
  }
  planned = backend::plan_ops(*profile, kOps).has_value() || planned;
  return planned ? Reached::planned : Reached::checked;
}

// nnplan.plan.v1 through verify: parse_plan_artifact, rebuild the recorded profile as `nnplan
// verify` does (the maintained profile of that name with the recorded device, preference,
// assurance, vjp, target and lowering), re-plan `graph` (whose file bytes hash to `digest`) and
// diff the documents. diff_artifacts also sees the raw input, parsed or not.
inline Reached plan_artifact_pipeline(std::string_view text, const ir::CheckedGraph& graph,
                                      std::string_view digest) {
  auto artifact = format::parse_plan_artifact(text, "<fuzz>");
  if (!artifact) {
    (void)format::diff_artifacts(text, "{}");
    return Reached::rejected;
  }
  const format::RecordedProfile& recorded = artifact->profile;
  auto base = backend::profile_by_name(recorded.name);
  if (!base || !recorded.assurance || !recorded.target) return Reached::checked;
  backend::ProfileOverrides overrides{.device = recorded.device,
                                      .preference = recorded.preference,
                                      .assurance = recorded.assurance,
                                      .vjp_mode = recorded.vjp_mode,
                                      .target = recorded.target,
                                      .lowering = recorded.lowering};
  auto profile = backend::apply_overrides(std::move(*base), std::move(overrides));
  if (!profile) return Reached::checked;
  const auto evaluation = backend::evaluate_graph(*profile, graph);
  const std::string fresh = format::plan_artifact_json(*profile, digest, graph.graph(), evaluation);
  (void)format::diff_artifacts(artifact->document, fresh);
  return Reached::planned;
}

// nnplan.payloads.v1: parse_payloads -> write_payloads -> parse_payloads (what reads must write
// back to bytes that read as the same store, byte for byte on a second write) -> ir::check_weights
// against each of `graphs`, as the graph subcommands check the payload file beside a graph.
inline Reached payloads_pipeline(std::span<const std::byte> bytes,
                                 std::span<const ir::CheckedGraph* const> graphs) {
  auto store = format::parse_payloads(bytes, "<fuzz>");
  if (!store) return Reached::rejected;
  auto written = format::write_payloads(*store);
  if (written) {
    auto reread = format::parse_payloads(*written, "<fuzz>");
    if (!reread) __builtin_trap();
    auto rewritten = format::write_payloads(*reread);
    if (!rewritten || *rewritten != *written) __builtin_trap();
  }
  bool matched = false;
  for (const ir::CheckedGraph* graph : graphs) {
    matched = ir::check_weights(graph->graph(), *store).has_value() || matched;
  }
  return matched ? Reached::planned : Reached::checked;
}

}  // namespace nnplan::fuzz
