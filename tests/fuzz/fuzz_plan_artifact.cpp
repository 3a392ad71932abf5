// libFuzzer target: nnplan.plan.v1 artifacts through verify. Each input is parsed as an
// artifact, the recorded profile is rebuilt and examples/mlp.json is re-planned under it, then
// the documents are diffed, as `nnplan verify examples/mlp.json INPUT` does.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "pipelines.hpp"

namespace {

struct FixedGraph {
  nnplan::ir::CheckedGraph graph;
  std::string digest;
};

const FixedGraph& fixed_graph() {
  static const FixedGraph fixed = [] {
    const std::string path = std::string(NNPLAN_SOURCE_DIR) + "/examples/mlp.json";
    auto graph = nnplan::format::read_ir_file(path);
    if (!graph) {
      std::fprintf(stderr, "fuzz_plan_artifact: cannot read %s\n", path.c_str());
      std::abort();
    }
    auto checked = nnplan::ir::check(std::move(*graph));
    auto digest = nnplan::format::file_digest(path);
    if (!checked || !digest) std::abort();
    return FixedGraph{std::move(*checked), std::move(*digest)};
  }();
  return fixed;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)fixed_graph();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const FixedGraph& fixed = fixed_graph();
  (void)nnplan::fuzz::plan_artifact_pipeline(
      std::string_view(reinterpret_cast<const char*>(data), size), fixed.graph, fixed.digest);
  return 0;
}
