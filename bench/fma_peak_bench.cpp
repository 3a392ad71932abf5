// One core's floating-point peak, the denominator of "fraction of the FMA peak" in
// docs/benchmarks.md: chains of fused multiply-adds on 256-bit (AVX2 + FMA) and, where the CPU
// has it, 512-bit (AVX-512F) float vectors, enough independent accumulators to cover the FMA
// latency of both pipes. Counter `flops` is float operations per second (2 per lane per FMA).
// Run it alone on a quiet machine: `nnplan_bench --benchmark_filter=FmaPeak`.
#include <benchmark/benchmark.h>
#include <immintrin.h>

namespace {

constexpr int kChains = 12;
constexpr int kSteps = 4096;

__attribute__((target("avx2,fma"))) void fma_peak_256(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    state.SkipWithError("this CPU has no AVX2 and FMA");
    return;
  }
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999F);
  const __m256 b = _mm256_set1_ps(0.001F);
  for (auto _ : state) {
    for (int s = 0; s < kSteps; ++s) {
      for (int i = 0; i < kChains; ++i)
        acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    }
    benchmark::DoNotOptimize(acc);
  }
  state.counters["flops"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kSteps * kChains * 8 * 2,
                         benchmark::Counter::kIsRate);
}

__attribute__((target("avx512f"))) void fma_peak_512(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx512f")) {
    state.SkipWithError("this CPU has no AVX-512F");
    return;
  }
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i)
    acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999F);
  const __m512 b = _mm512_set1_ps(0.001F);
  for (auto _ : state) {
    for (int s = 0; s < kSteps; ++s) {
      for (int i = 0; i < kChains; ++i)
        acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
    benchmark::DoNotOptimize(acc);
  }
  state.counters["flops"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kSteps * kChains * 16 * 2,
                         benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(fma_peak_256)->Name("FmaPeak/avx2_fma_256bit");
BENCHMARK(fma_peak_512)->Name("FmaPeak/avx512f_512bit");
