// BM_PlanOps/<profile>/<n>: plan_ops over n ops drawn (seeded) from every op of the vocabulary
// that the profile can plan, under its declared availability. Reports ops/s and heap
// allocations per op inside the timed call.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "allocation_counter.hpp"
#include "nnplan/backend/profile.hpp"

namespace {

using namespace nnplan::backend;

// Every op the profile plans; ops it cannot plan (fft_fno on cpu, sin on cuda, ...) would end the
// run at the first failure and measure nothing.
std::vector<BackendOp> plannable_ops(const BackendProfile& profile) {
  std::vector<BackendOp> ops;
  for (std::size_t i = 0; i < kBackendOpCount; ++i) {
    const BackendOp op = static_cast<BackendOp>(i);
    const BackendOp one[] = {op};
    if (plan_ops(profile, one)) ops.push_back(op);
  }
  return ops;
}

void BM_PlanOps(benchmark::State& state, MaintainedProfile which) {
  const BackendProfile profile = make_profile(which);
  const std::vector<BackendOp> vocabulary = plannable_ops(profile);
  std::mt19937 rng(20261129);
  std::uniform_int_distribution<std::size_t> pick(0, vocabulary.size() - 1);
  std::vector<BackendOp> ops(static_cast<std::size_t>(state.range(0)));
  for (BackendOp& op : ops)
    op = vocabulary[pick(rng)];

  std::uint64_t allocations = 0;
  for (auto _ : state) {
    const std::uint64_t before = nnplan::bench::allocation_count();
    auto plan = plan_ops(profile, ops);
    allocations += nnplan::bench::allocation_count() - before;
    if (!plan) state.SkipWithError("planning failed");
    benchmark::DoNotOptimize(plan);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["vocabulary"] = static_cast<double>(vocabulary.size());
  state.counters["allocs_per_op"] =
      static_cast<double>(allocations) / static_cast<double>(state.iterations() * state.range(0));
}

BENCHMARK_CAPTURE(BM_PlanOps, checked_cpu, MaintainedProfile::checked_cpu)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanOps, checked_cuda, MaintainedProfile::checked_cuda)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
