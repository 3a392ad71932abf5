// Runtime benchmarks (SPEC §11, issue 14 "Run the plan"):
//   BM_DispatchChain/<n>: Executor::run of a compiled chain of n tiny commands (Relu and
//     Add(x, x) alternating on [1,16], from relu_add_chain_onnx), inputs bound and outputs
//     allocated once per run as in `nnplan run`. `per_command` is the wall time of a run over its
//     commands (what dispatch costs when the kernels do next to nothing); `commands` the count.
//   BM_CompileResNet18, BM_CompileResNet50: runtime::compile of a ResNet-shaped model
//     (onnx_model_generators.hpp) imported with its weights and planned under checked_cpu outside
//     the timed loop; freeing the command buffer is timed too. Counters: `commands`, the memory
//     plan's `peak_arena_bytes` and `no_reuse_bytes` (the sum of every arena value's aligned
//     size), and `arena_reuse_ratio` = peak_arena_bytes / no_reuse_bytes.
// The models are generated in memory, so the benchmarks need no downloaded model.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "nnplan/backend/planned_model.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "nnplan/runtime/command_buffer.hpp"
#include "nnplan/runtime/executor.hpp"
#include "onnx_model_generators.hpp"

namespace {

using namespace nnplan;

// Imports the serialized model with its weights and plans it under checked_cpu; the error's
// rendering when either fails or the gate rejects the plan.
Expected<std::shared_ptr<const backend::PlannedModel>> planned_model(
    const onnx::ModelProto& proto, const std::string& name) {
  const std::string bytes = bench::serialize_onnx(proto);
  auto imported = format::import_onnx(std::as_bytes(std::span(bytes.data(), bytes.size())), name);
  if (!imported) return std::unexpected(std::move(imported.error()));
  auto graph = std::make_shared<const ir::CheckedGraph>(std::move(imported->checked));
  auto weights = std::make_shared<const ir::WeightStore>(std::move(imported->payloads));
  auto model = backend::plan_model(backend::make_profile(backend::MaintainedProfile::checked_cpu),
                                   std::move(graph), std::move(weights));
  if (!model) return std::unexpected(std::move(model.error()));
  if (!model->accepted()) {
    return std::unexpected(
        make_error(ErrorKind::rejected_by_policy, name + ": the plan was rejected by its gate"));
  }
  return std::make_shared<const backend::PlannedModel>(std::move(*model));
}

void BM_DispatchChain(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto model = planned_model(bench::relu_add_chain_onnx(n), "chain");
  if (!model) {
    state.SkipWithError(render(model.error()).c_str());
    return;
  }
  auto buffer = runtime::compile(*model);
  if (!buffer) {
    state.SkipWithError(render(buffer.error()).c_str());
    return;
  }
  const double commands = static_cast<double>(buffer->commands().size());
  runtime::Executor executor(std::move(*buffer));
  const runtime::IoBinding& input = executor.buffer().inputs().front();
  runtime::Tensor x = runtime::zeros(*input.shape);
  for (std::size_t i = 0; i < x.size(); ++i)
    x.floats()[i] = static_cast<float>(i) - 7.5F;
  const std::vector<runtime::NamedTensor> inputs{{input.name, std::move(x)}};
  for (auto _ : state) {
    auto outputs = executor.run(inputs);
    if (!outputs) {
      state.SkipWithError(render(outputs.error()).c_str());
      return;
    }
    benchmark::DoNotOptimize(outputs);
  }
  state.counters["commands"] = commands;
  state.counters["per_command"] = benchmark::Counter(
      commands, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_CompileResNet(benchmark::State& state, int depth) {
  const std::string name = "resnet" + std::to_string(depth);
  auto model = planned_model(depth == 18 ? bench::resnet18_onnx() : bench::resnet50_onnx(), name);
  if (!model) {
    state.SkipWithError(render(model.error()).c_str());
    return;
  }
  std::optional<runtime::CommandBuffer> last;
  for (auto _ : state) {
    auto buffer = runtime::compile(*model);
    if (!buffer) {
      state.SkipWithError(render(buffer.error()).c_str());
      return;
    }
    benchmark::DoNotOptimize(buffer);
    last = std::move(*buffer);
  }
  const auto peak = static_cast<double>(last->peak_arena_bytes());
  const auto no_reuse = static_cast<double>(last->no_reuse_bytes());
  state.counters["commands"] = static_cast<double>(last->commands().size());
  state.counters["peak_arena_bytes"] = peak;
  state.counters["no_reuse_bytes"] = no_reuse;
  state.counters["arena_reuse_ratio"] = peak / no_reuse;
}

void register_runtime_benchmarks() {
  benchmark::RegisterBenchmark("BM_DispatchChain", BM_DispatchChain)
      ->Arg(10'000)
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
  for (const int depth : {18, 50}) {
    benchmark::RegisterBenchmark(("BM_CompileResNet" + std::to_string(depth)).c_str(),
                                 BM_CompileResNet, depth)
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
}

[[maybe_unused]] const bool registered = (register_runtime_benchmarks(), true);

}  // namespace
