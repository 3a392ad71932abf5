// BM_ParseRegistry/<capsules>: parse_registry_json over a registry document of `capsules`
// capsules in 16 modules (the most one registry may hold is 65,536). Each capsule is the shape
// of examples/registries/acme.json's with only the required fields and the numerical policy,
// renamed per capsule and written without indentation, as a generator would write a large
// registry: at 848 bytes a capsule the 65,536-capsule document is 55.6 MB, under the 64 MiB
// registry file limit (the built-in capsules, with their summaries, would not fit). Reports
// capsules/s and the document's size.
#include <benchmark/benchmark.h>

#include <string>

#include "nnplan/format/registry_file.hpp"

namespace {

std::string capsule_json(std::size_t i) {
  const std::string name = "acme.relu" + std::to_string(i);
  return R"({"name":")" + name +
         R"(","op":"relu","provider":"external","device":"external","trust":"checked",)"
         R"("supports_forward":true,"vjp":"torchlean-tape","contracts":{"shape":{"claim":)"
         R"({"kind":"shape-safety","op":"relu"},"evidence":{"kind":"runtime-guard","name":")" +
         name +
         R"(.shape"}},"layout":{"claim":{"kind":"layout-compatibility","op":"relu",)"
         R"("layout":"flat-row-major"},"evidence":{"kind":"runtime-guard","name":")" +
         name +
         R"(.layout"}},"value":{"claim":{"kind":"value-refinement","op":"relu",)"
         R"("spec":"Spec.relu"},"evidence":{"kind":"test-suite","name":")" +
         name +
         R"(.value"}},"vjp":{"claim":{"kind":"vjp-refinement","op":"relu",)"
         R"("spec":"Spec.relu","mode":"torchlean-tape"},"evidence":{"kind":"test-suite",)"
         R"("name":")" +
         name +
         R"(.vjp"}}},"numerical":{"rounding":"nearest-even",)"
         R"("subnormals":"implementation-defined","contraction":"n/a","reduction":"n/a"}})";
}

std::string registry_document(std::size_t capsules) {
  constexpr std::size_t kModules = 16;
  std::string out = R"({"format":"nnplan.capsules.v1","modules":[)";
  std::size_t next = 0;
  for (std::size_t m = 0; m < kModules; ++m) {
    out += m == 0 ? "" : ",";
    out += R"({"name":"acme)" + std::to_string(m) + R"(","capsules":[)";
    const std::size_t end = (m + 1) * capsules / kModules;
    for (std::size_t first = next; next < end; ++next)
      out += (next == first ? "" : ",") + capsule_json(next);
    out += "]}";
  }
  return out + "]}";
}

void BM_ParseRegistry(benchmark::State& state) {
  const auto capsules = static_cast<std::size_t>(state.range(0));
  const std::string text = registry_document(capsules);
  if (text.size() > nnplan::format::kMaxRegistryFileBytes) {
    state.SkipWithError("the document is over the registry file limit");
    return;
  }
  for (auto _ : state) {
    auto modules = nnplan::format::parse_registry_json(text, "bench.json");
    if (!modules) {
      state.SkipWithError(modules.error().message.c_str());
      break;
    }
    benchmark::DoNotOptimize(modules);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}

BENCHMARK(BM_ParseRegistry)->Arg(4096)->Arg(65536)->Unit(benchmark::kMillisecond);

}  // namespace
