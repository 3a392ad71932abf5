// BM_ParseRegistry/<capsules>: parse_registry_json over a registry document of `capsules`
// capsules in 16 modules (the most one registry may hold is 65,536). The capsules are the
// built-in ones, cycled and renamed, with their provenance lists and notes dropped and the
// document written without indentation, so that the 65,536-capsule document stays under the
// 64 MiB registry file limit, as a real file must. Reports capsules/s and the document's size.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nnplan/backend/builtin_modules.hpp"
#include "nnplan/format/registry_file.hpp"

namespace {

using namespace nnplan::backend;

std::string registry_document(std::size_t capsules) {
  const auto builtin = builtin_registry().capsules();
  constexpr std::size_t kModules = 16;
  std::vector<CapsuleModule> modules(kModules);
  for (std::size_t m = 0; m < kModules; ++m)
    modules[m].name = "bench" + std::to_string(m);
  for (std::size_t i = 0; i < capsules; ++i) {
    KernelCapsule c = builtin[i % builtin.size()];
    c.name += "." + std::to_string(i);
    for (ContractDescriptor* d : {&c.shape, &c.layout, &c.value, &c.vjp})
      d->provenance.clear();
    c.notes.clear();
    modules[i * kModules / capsules].capsules.push_back(std::move(c));
  }
  return nlohmann::ordered_json::parse(nnplan::format::write_registry_json(modules)).dump();
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
