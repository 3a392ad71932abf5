// Graph planning end to end:
//   BM_PlanLowerGate/<chain|random_dag>/<n>: plan_graph + to_coalesced_lowering_plan + audit +
//     gate under checked_cpu on a graph checked outside the timed loop, the way accept_graph
//     runs them (the lowering takes the execution plan's kernel array over as its node array).
//     Reports nodes/s (items_per_second), `plan_bytes_per_node` (the bytes held by the planned
//     node kernels, the lowered groups and the audit rows, over n; vector capacities where the
//     type exposes them) and heap allocations per node inside the timed region.
//   BM_ScanGraph/chain/<n>: the memory floor, one read of every node's id and kind.
//   BM_GraphReport/chain/<n>: write_graph_report (the text of `nnplan plan`) of the coalesced
//     plan, into a sink that only counts the bytes; bytes/s and lines (groups) per second.
//   BM_ReadIrJson/<n>: parse_ir_json on the canonical text of a random DAG written by
//     write_ir_json (text built outside the loop); bytes/s and nodes/s.
// Graphs come from graph_generators.hpp. The largest ones take seconds to build, so the last
// graph built is kept in a one-slot cache: Google Benchmark calls a benchmark function several
// times while it sizes the iteration count, and only one big graph lives at a time.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "allocation_counter.hpp"
#include "graph_generators.hpp"
#include "nnplan/backend/acceptance.hpp"
#include "nnplan/backend/audit.hpp"
#include "nnplan/backend/gate.hpp"
#include "nnplan/backend/graph_plan.hpp"
#include "nnplan/backend/lowering.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/backend/report.hpp"
#include "nnplan/format/ir_json.hpp"
#include "nnplan/ir/check.hpp"

namespace {

using namespace nnplan;
using namespace nnplan::backend;
using bench::GraphShape;

struct CachedGraph {
  GraphShape shape = GraphShape::chain;
  std::size_t n = 0;
  std::optional<ir::CheckedGraph> graph;
};

// The checked graph for (shape, n), building it (and dropping the previous one) on a miss.
const ir::CheckedGraph* checked_graph(GraphShape shape, std::size_t n, std::string* error) {
  static CachedGraph cache;
  if (cache.graph && cache.shape == shape && cache.n == n) return &*cache.graph;
  cache.graph.reset();
  auto checked = ir::check(bench::make_graph(shape, n));
  if (!checked) {
    *error = render(checked.error());
    return nullptr;
  }
  cache = {shape, n, std::move(*checked)};
  return &*cache.graph;
}

// checked_graph for a benchmark: null after marking the benchmark skipped when the generated
// graph does not check.
const ir::CheckedGraph* graph_or_skip(benchmark::State& state, GraphShape shape, std::size_t n) {
  std::string error;
  const ir::CheckedGraph* graph = checked_graph(shape, n, &error);
  if (graph == nullptr) state.SkipWithError(("generated graph is malformed: " + error).c_str());
  return graph;
}

// What one pass produced, kept for the counters.
struct PassResult {
  std::size_t plan_bytes = 0;
  std::size_t planned = 0;
  std::size_t groups = 0;
  std::string error;
};

// plan_graph + coalesced lowering + audit + gate, as accept_graph runs them: the lowering takes
// the plan's kernel array over as its node array.
PassResult plan_lower_gate(const BackendProfile& profile, const ir::CheckedGraph& graph) {
  PassResult result;
  auto plan = plan_graph(profile, graph);
  if (!plan) {
    result.error = "planning failed: " + render(plan.error());
    return result;
  }
  GraphLoweringPlan lowering = to_coalesced_lowering_plan(std::move(*plan));
  ExecutionAudit audit = lowering.audit();
  std::vector<GateFailure> failures = gate(profile.config.assurance, audit);
  if (!failures.empty()) result.error = "the gate rejected the plan";
  result.plan_bytes = lowering.nodes.capacity() * sizeof(PlannedNodeKernel) +
                      lowering.groups.capacity() * sizeof(LoweredKernelGroup) +
                      audit.size() * sizeof(CapsuleId);
  result.planned = lowering.nodes.size();
  result.groups = lowering.groups.size();
  return result;
}

void BM_PlanLowerGate(benchmark::State& state, GraphShape shape) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const ir::CheckedGraph* graph = graph_or_skip(state, shape, n);
  if (graph == nullptr) return;
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  // One untimed pass first: right after building a 10^7-node graph the first pass measured about
  // three times slower than the ones after it on this machine (the lowering's arrays are the
  // first large allocations after the build), and that one-off cost is not the steady state.
  PassResult last = plan_lower_gate(profile, *graph);

  std::uint64_t allocations = 0;
  for (auto _ : state) {
    const std::uint64_t before = bench::allocation_count();
    last = plan_lower_gate(profile, *graph);
    allocations += bench::allocation_count() - before;
    if (!last.error.empty()) {
      state.SkipWithError(last.error.c_str());
      break;
    }
    benchmark::ClobberMemory();
  }
  const auto items = static_cast<double>(state.iterations()) * static_cast<double>(n);
  state.SetItemsProcessed(static_cast<std::int64_t>(items));
  state.counters["plan_bytes_per_node"] =
      static_cast<double>(last.plan_bytes) / static_cast<double>(n);
  state.counters["allocs_per_node"] = static_cast<double>(allocations) / items;
  state.counters["planned_nodes"] = static_cast<double>(last.planned);
  state.counters["groups"] = static_cast<double>(last.groups);
}

BENCHMARK_CAPTURE(BM_PlanLowerGate, chain, GraphShape::chain)
    ->RangeMultiplier(10)
    ->Range(10'000, 10'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanLowerGate, random_dag, GraphShape::random_dag)
    ->RangeMultiplier(10)
    ->Range(10'000, 10'000'000)
    ->Unit(benchmark::kMillisecond);

void BM_GraphReport(benchmark::State& state, GraphShape shape) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const ir::CheckedGraph* graph = graph_or_skip(state, shape, n);
  if (graph == nullptr) return;
  const BackendProfile profile = make_profile(MaintainedProfile::checked_cpu);
  const auto evaluation = evaluate_graph(profile, *graph);
  if (!evaluation) {
    state.SkipWithError(("planning failed: " + render(evaluation.error())).c_str());
    return;
  }
  std::size_t bytes = 0;
  const std::function<void(std::string_view)> count = [&bytes](std::string_view piece) {
    bytes += piece.size();
    benchmark::DoNotOptimize(piece.data());
  };
  for (auto _ : state) {
    write_graph_report(profile, *evaluation, &graph->graph(), count);
  }
  const auto passes = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
  state.SetItemsProcessed(
      static_cast<std::int64_t>(passes * static_cast<double>(evaluation->lowering.groups.size())));
  state.counters["report_bytes"] = static_cast<double>(bytes) / passes;
}

BENCHMARK_CAPTURE(BM_GraphReport, chain, GraphShape::chain)
    ->RangeMultiplier(10)
    ->Range(10'000, 1'000'000)
    ->Unit(benchmark::kMillisecond);

// The floor under BM_PlanLowerGate: one pass that reads each node's id and kind and nothing
// else. IR nodes are 144-byte structs, so at 10^6 nodes and beyond this is memory traffic.
void BM_ScanGraph(benchmark::State& state, GraphShape shape) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const ir::CheckedGraph* graph = graph_or_skip(state, shape, n);
  if (graph == nullptr) return;
  for (auto _ : state) {
    std::uint64_t sum = 0;
    for (const ir::Node& node : graph->graph().nodes) {
      sum += node.id ^ static_cast<std::uint64_t>(node.kind);
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(n));
}

BENCHMARK_CAPTURE(BM_ScanGraph, chain, GraphShape::chain)
    ->RangeMultiplier(10)
    ->Range(10'000, 10'000'000)
    ->Unit(benchmark::kMillisecond);

void BM_ReadIrJson(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  // Built once per process: the text alone is about a hundred bytes per node.
  static std::string text;
  static std::size_t text_nodes = 0;
  if (text_nodes != n) {
    text = format::write_ir_json(bench::make_graph(GraphShape::random_dag, n));
    text_nodes = n;
  }
  std::uint64_t allocations = 0;
  for (auto _ : state) {
    const std::uint64_t before = bench::allocation_count();
    auto graph = format::parse_ir_json(text, "<memory>");
    allocations += bench::allocation_count() - before;
    if (!graph) {
      state.SkipWithError(("parse failed: " + render(graph.error())).c_str());
      break;
    }
    benchmark::DoNotOptimize(graph);
    // Freeing the graph is not reading it.
    state.PauseTiming();
    { const ir::Graph dead = std::move(*graph); }
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(n));
  state.counters["allocs_per_node"] =
      static_cast<double>(allocations) /
      (static_cast<double>(state.iterations()) * static_cast<double>(n));
  state.counters["bytes_per_node"] = static_cast<double>(text.size()) / static_cast<double>(n);
}

BENCHMARK(BM_ReadIrJson)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace
