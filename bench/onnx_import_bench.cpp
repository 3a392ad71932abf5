// ONNX import benchmarks:
//   BM_ImportOnnx/resnet18: import_onnx on a serialized ResNet-18-shaped model (69 ONNX nodes,
//     about 11.7 million float weights as raw_data initializers), keeping the weights as payloads
//     (what `nnplan convert` needs); .../without_payloads: keep_payloads = false, what the graph
//     subcommands (`nnplan plan`) import.
//   BM_ImportOnnx/chain/<n>: import_onnx on a chain of n nodes alternating Relu and Add(x, x) on
//     a [1,16] input; several n to show the time is linear in the model's size.
//   BM_ParseOnnxProto/<model>: ModelProto::ParseFromArray of the whole model (every node its own
//     message), against the importer's split (src/format/onnx/model_split.hpp).
//   BM_ParseOnnxNodes/<model>: the protobuf floor under the importer: each node's serialized
//     NodeProto parsed once into one reused message, as the importer does.
//   BM_ImportOnnx/vit/12/{exported,folded}/without_payloads: ViT-B/16 as torch.onnx.export
//     writes it (Reshape shapes and Slice bounds computed by Shape/Gather/... nodes, which the
//     importer folds) and with that arithmetic already replaced by constants: the difference is
//     what constant folding costs.
//   BM_ImportPlanOnnx/<model>: what `nnplan plan MODEL.onnx` does in process, minus reading the
//     file, hashing it and printing: import_onnx without payloads (which checks the graph as it
//     builds it) + evaluate_graph (plan, lower, audit, gate) under checked_cpu, freeing included.
// Models come from onnx_model_generators.hpp and are serialized outside the timed loop; freeing
// the imported model is not timed. Counters: items_per_second = ONNX graph nodes/s,
// bytes_per_second = serialized model bytes/s, `ir_nodes` = nodes of the imported IR graph,
// `allocs_per_node` = heap allocations inside the timed region over the ONNX node count.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "allocation_counter.hpp"
#include "nnplan/backend/acceptance.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "onnx_model_generators.hpp"

namespace {

using namespace nnplan;

struct SerializedModel {
  std::string name;
  std::string bytes;
  std::size_t onnx_nodes = 0;
};

// One model alive at a time: Google Benchmark calls each function several times while it sizes
// the iteration count, and the 10^6-node chain is tens of megabytes.
const SerializedModel& serialized_model(const std::string& name, std::size_t chain_nodes) {
  static SerializedModel cache;
  if (cache.name == name && !cache.bytes.empty()) return cache;
  cache = {};
  // "vit/<layers>/exported" (shape arithmetic in the graph) or "vit/<layers>/folded".
  const auto vit = [&name] {
    const std::size_t slash = name.find('/', 4);
    return bench::vit_onnx(std::stoi(name.substr(4, slash - 4)),
                           name.substr(slash + 1) == "exported");
  };
  const onnx::ModelProto model = name.starts_with("vit/") ? vit()
                                 : chain_nodes == 0       ? bench::resnet18_onnx()
                                                          : bench::relu_add_chain_onnx(chain_nodes);
  cache = {name, bench::serialize_onnx(model), static_cast<std::size_t>(model.graph().node_size())};
  return cache;
}

void set_counters(benchmark::State& state, const SerializedModel& model,
                  std::uint64_t allocations) {
  const auto iterations = static_cast<std::int64_t>(state.iterations());
  state.SetBytesProcessed(iterations * static_cast<std::int64_t>(model.bytes.size()));
  state.SetItemsProcessed(iterations * static_cast<std::int64_t>(model.onnx_nodes));
  state.counters["allocs_per_node"] =
      static_cast<double>(allocations) /
      (static_cast<double>(state.iterations()) * static_cast<double>(model.onnx_nodes));
  state.counters["onnx_nodes"] = static_cast<double>(model.onnx_nodes);
}

void BM_ImportOnnx(benchmark::State& state, const std::string& name, std::size_t chain_nodes,
                   bool keep_payloads) {
  const SerializedModel& model = serialized_model(name, chain_nodes);
  const auto bytes = std::as_bytes(std::span(model.bytes.data(), model.bytes.size()));
  format::OnnxImportOptions options;
  options.keep_payloads = keep_payloads;
  std::uint64_t allocations = 0;
  std::size_t ir_nodes = 0;
  for (auto _ : state) {
    const std::uint64_t before = bench::allocation_count();
    auto imported = format::import_onnx(bytes, name, options);
    allocations += bench::allocation_count() - before;
    if (!imported) {
      state.SkipWithError(("import failed: " + render(imported.error())).c_str());
      return;
    }
    benchmark::DoNotOptimize(imported);
    ir_nodes = imported->graph().nodes.size();
    // Freeing the model is not importing it.
    state.PauseTiming();
    { const format::ImportedModel dead = std::move(*imported); }
    state.ResumeTiming();
  }
  set_counters(state, model, allocations);
  state.counters["ir_nodes"] = static_cast<double>(ir_nodes);
}

void BM_ParseOnnxProto(benchmark::State& state, const std::string& name, std::size_t chain_nodes) {
  const SerializedModel& model = serialized_model(name, chain_nodes);
  std::uint64_t allocations = 0;
  for (auto _ : state) {
    const std::uint64_t before = bench::allocation_count();
    std::optional<onnx::ModelProto> parsed(std::in_place);
    if (!parsed->ParseFromArray(model.bytes.data(), static_cast<int>(model.bytes.size()))) {
      state.SkipWithError("protobuf parse failed");
      return;
    }
    allocations += bench::allocation_count() - before;
    benchmark::DoNotOptimize(parsed);
    state.PauseTiming();
    parsed.reset();
    state.ResumeTiming();
  }
  set_counters(state, model, allocations);
}

void BM_ImportPlanOnnx(benchmark::State& state, const std::string& name, std::size_t chain_nodes) {
  const SerializedModel& model = serialized_model(name, chain_nodes);
  const auto bytes = std::as_bytes(std::span(model.bytes.data(), model.bytes.size()));
  const backend::BackendProfile profile =
      backend::make_profile(backend::MaintainedProfile::checked_cpu);
  format::OnnxImportOptions options;
  options.keep_payloads = false;  // as read_graph_file imports for `nnplan plan`
  std::uint64_t allocations = 0;
  for (auto _ : state) {
    const std::uint64_t before = bench::allocation_count();
    auto imported = format::import_onnx(bytes, name, options);
    if (!imported) {
      state.SkipWithError(("import failed: " + render(imported.error())).c_str());
      return;
    }
    auto evaluation = backend::evaluate_graph(profile, imported->checked);
    allocations += bench::allocation_count() - before;
    if (!evaluation) {
      state.SkipWithError(("planning failed: " + render(evaluation.error())).c_str());
      return;
    }
    benchmark::DoNotOptimize(evaluation);
    // Freeing is timed here, as the CLI frees everything before it exits.
  }
  set_counters(state, model, allocations);
}

void BM_ParseOnnxNodes(benchmark::State& state, const std::string& name, std::size_t chain_nodes) {
  const SerializedModel& model = serialized_model(name, chain_nodes);
  std::vector<std::string> nodes;
  {
    onnx::ModelProto parsed;
    if (!parsed.ParseFromString(model.bytes)) {
      state.SkipWithError("protobuf parse failed");
      return;
    }
    for (const onnx::NodeProto& node : parsed.graph().node())
      nodes.push_back(node.SerializeAsString());
  }
  std::uint64_t allocations = 0;
  onnx::NodeProto scratch;
  for (auto _ : state) {
    const std::uint64_t before = bench::allocation_count();
    std::size_t inputs = 0;
    for (const std::string& bytes : nodes) {
      if (!scratch.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        state.SkipWithError("node parse failed");
        return;
      }
      inputs += static_cast<std::size_t>(scratch.input_size());
    }
    allocations += bench::allocation_count() - before;
    benchmark::DoNotOptimize(inputs);
  }
  set_counters(state, model, allocations);
}

void register_onnx_benchmarks() {
  // Wall time, and the process's CPU time.
  const auto wall_and_process_time = [](benchmark::internal::Benchmark* b) {
    b->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
  };
  wall_and_process_time(benchmark::RegisterBenchmark(
      "BM_ImportOnnx/resnet18", BM_ImportOnnx, std::string("resnet18"), std::size_t{0}, true));
  wall_and_process_time(benchmark::RegisterBenchmark("BM_ImportOnnx/resnet18/without_payloads",
                                                     BM_ImportOnnx, std::string("resnet18"),
                                                     std::size_t{0}, false));
  for (const std::size_t n : {std::size_t{2'000}, std::size_t{4'096}, std::size_t{10'000},
                              std::size_t{100'000}, std::size_t{1'000'000}}) {
    const std::string name = "chain/" + std::to_string(n);
    wall_and_process_time(benchmark::RegisterBenchmark(("BM_ImportOnnx/" + name).c_str(),
                                                       BM_ImportOnnx, name, n, true));
  }
  benchmark::RegisterBenchmark("BM_ParseOnnxProto/resnet18", BM_ParseOnnxProto,
                               std::string("resnet18"), std::size_t{0})
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_ParseOnnxProto/chain/100000", BM_ParseOnnxProto,
                               std::string("chain/100000"), std::size_t{100'000})
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_ParseOnnxNodes/chain/100000", BM_ParseOnnxNodes,
                               std::string("chain/100000"), std::size_t{100'000})
      ->Unit(benchmark::kMillisecond);
  wall_and_process_time(benchmark::RegisterBenchmark(
      "BM_ImportPlanOnnx/resnet18", BM_ImportPlanOnnx, std::string("resnet18"), std::size_t{0}));
  for (const std::size_t n : {std::size_t{10'000}, std::size_t{100'000}}) {
    const std::string name = "chain/" + std::to_string(n);
    wall_and_process_time(benchmark::RegisterBenchmark(("BM_ImportPlanOnnx/" + name).c_str(),
                                                       BM_ImportPlanOnnx, name, n));
  }
  // ViT-B/16 (12 blocks) and shallower copies, to show the cost per block is constant; and the
  // same 12 blocks with the shape arithmetic already folded, to show what folding costs.
  for (const int layers : {3, 6, 12}) {
    const std::string name = "vit/" + std::to_string(layers) + "/exported";
    wall_and_process_time(benchmark::RegisterBenchmark(("BM_ImportPlanOnnx/" + name).c_str(),
                                                       BM_ImportPlanOnnx, name, std::size_t{0}));
  }
  for (const char* variant : {"exported", "folded"}) {
    const std::string name = std::string("vit/12/") + variant;
    wall_and_process_time(benchmark::RegisterBenchmark(
        ("BM_ImportOnnx/" + name + "/without_payloads").c_str(), BM_ImportOnnx, name,
        std::size_t{0}, false));
  }
}

[[maybe_unused]] const bool registered = (register_onnx_benchmarks(), true);

}  // namespace
