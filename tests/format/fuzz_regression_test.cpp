// Replays every input libFuzzer found crashing (tests/data/fuzz_regressions/<target>/) through
// the same pipeline as its target (tests/fuzz/pipelines.hpp): each must end in an error or a
// plan, never a crash, under the plain and the sanitizer builds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "../fuzz/pipelines.hpp"

namespace nnplan::fuzz {
namespace {

namespace fs = std::filesystem;
const fs::path kRegressions = fs::path(NNPLAN_SOURCE_DIR) / "tests" / "data" / "fuzz_regressions";

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The regression inputs of one target, sorted; none yet is fine.
std::vector<fs::path> inputs(const std::string& target) {
  std::vector<fs::path> files;
  const fs::path dir = kRegressions / target;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::ranges::sort(files);
  return files;
}

TEST(FuzzRegression, IrJson) {
  for (const fs::path& file : inputs("fuzz_ir_json")) {
    SCOPED_TRACE(file.string());
    (void)ir_json_pipeline(slurp(file));
  }
}

TEST(FuzzRegression, Registry) {
  for (const fs::path& file : inputs("fuzz_registry")) {
    SCOPED_TRACE(file.string());
    (void)registry_pipeline(slurp(file));
  }
}

TEST(FuzzRegression, PlanArtifact) {
  const fs::path mlp = fs::path(NNPLAN_SOURCE_DIR) / "examples" / "mlp.json";
  auto graph = format::read_ir_file(mlp);
  ASSERT_TRUE(graph.has_value());
  auto checked = ir::check(std::move(*graph));
  ASSERT_TRUE(checked.has_value());
  auto digest = format::file_digest(mlp);
  ASSERT_TRUE(digest.has_value());
  // The golden artifact for this graph must re-plan all the way (the pipeline is live).
  EXPECT_EQ(plan_artifact_pipeline(
                slurp(fs::path(NNPLAN_SOURCE_DIR) / "tests/golden/cli/plan_mlp_checked_cpu.json"),
                *checked, *digest),
            Reached::planned);
  for (const fs::path& file : inputs("fuzz_plan_artifact")) {
    SCOPED_TRACE(file.string());
    (void)plan_artifact_pipeline(slurp(file), *checked, *digest);
  }
}

TEST(FuzzRegression, Onnx) {
  for (const fs::path& file : inputs("fuzz_onnx")) {
    SCOPED_TRACE(file.string());
    const std::string bytes = slurp(file);
    (void)onnx_pipeline(std::as_bytes(std::span(bytes)));
  }
}

TEST(FuzzRegression, Payloads) {
  std::vector<ir::CheckedGraph> graphs;
  for (const char* name : {"mlp", "cnn", "transformer_block"}) {
    auto graph = format::read_ir_file(fs::path(NNPLAN_SOURCE_DIR) / "examples" /
                                      (std::string(name) + ".json"));
    ASSERT_TRUE(graph.has_value());
    auto checked = ir::check(std::move(*graph));
    ASSERT_TRUE(checked.has_value());
    graphs.push_back(std::move(*checked));
  }
  std::vector<const ir::CheckedGraph*> views;
  for (const ir::CheckedGraph& g : graphs)
    views.push_back(&g);
  // Each seed payload file matches one example graph (the pipeline is live).
  for (const char* name : {"mlp", "cnn", "transformer_block"}) {
    const std::string bytes =
        slurp(fs::path(NNPLAN_SOURCE_DIR) / "examples" / (std::string(name) + ".payloads"));
    EXPECT_EQ(payloads_pipeline(std::as_bytes(std::span(bytes)), views), Reached::planned) << name;
  }
  for (const fs::path& file : inputs("fuzz_payloads")) {
    SCOPED_TRACE(file.string());
    const std::string bytes = slurp(file);
    (void)payloads_pipeline(std::as_bytes(std::span(bytes)), views);
  }
}

// The pipelines reach planning on the seed examples, so the targets fuzz more than the parsers.
TEST(FuzzRegression, SeedsReachPlanning) {
  EXPECT_EQ(ir_json_pipeline(slurp(fs::path(NNPLAN_SOURCE_DIR) / "examples" / "mlp.json")),
            Reached::planned);
  EXPECT_EQ(
      registry_pipeline(slurp(fs::path(NNPLAN_SOURCE_DIR) / "tests/data/registries/acme.json")),
      Reached::planned);
}

}  // namespace
}  // namespace nnplan::fuzz
