// libFuzzer target: nnplan.payloads.v1 files (header, JSON index, data section) through the reader,
// the writer and the check against the example graphs, as the graph subcommands read the payload
// file beside a graph.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "pipelines.hpp"

namespace {

struct ExampleGraphs {
  std::vector<nnplan::ir::CheckedGraph> graphs;
  std::vector<const nnplan::ir::CheckedGraph*> views;
};

const ExampleGraphs& example_graphs() {
  static const ExampleGraphs examples = [] {
    ExampleGraphs out;
    for (const char* name : {"mlp", "cnn", "transformer_block"}) {
      const std::string path = std::string(NNPLAN_SOURCE_DIR) + "/examples/" + name + ".json";
      auto graph = nnplan::format::read_ir_file(path);
      if (!graph) {
        std::fprintf(stderr, "fuzz_payloads: cannot read %s\n", path.c_str());
        std::abort();
      }
      auto checked = nnplan::ir::check(std::move(*graph));
      if (!checked) std::abort();
      out.graphs.push_back(std::move(*checked));
    }
    for (const nnplan::ir::CheckedGraph& g : out.graphs)
      out.views.push_back(&g);
    return out;
  }();
  return examples;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)example_graphs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)nnplan::fuzz::payloads_pipeline(std::as_bytes(std::span(data, size)),
                                        example_graphs().views);
  return 0;
}
