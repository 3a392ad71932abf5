// Graphs with several outputs through every graph subcommand (plan, verify, explain, dot,
// convert), from torchlean.ir.v1 JSON and from ONNX; convert's format marker: torchlean.ir.v1
// for a graph of TorchLean kinds only, nnplan.ir.v1 once an nnplan extension kind appears, with
// the converted graph planning to the model's groups either way; and `explain` naming the ONNX
// nodes constant folding evaluated for a node.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "../format/onnx/onnx_test_models.hpp"
#include "cli_runner.hpp"

namespace {

using namespace nnplan::cli_test;
using nnplan::format::onnx_test::Model;
using Json = nlohmann::ordered_json;

// x [2,4] -> relu (output 0) -> tanh (output 1); the first output is also the second's input.
constexpr const char* kTwoOutputs = R"({
  "format": "torchlean.ir.v1",
  "input_id": 0,
  "output_ids": [1, 2],
  "nodes": [
    {"id": 0, "kind": "input", "parents": [], "shape": [2, 4]},
    {"id": 1, "kind": "relu", "parents": [0], "shape": [2, 4]},
    {"id": 2, "kind": "tanh", "parents": [1], "shape": [2, 4]}
  ]
}
)";

fs::path write_scratch(const std::string& name, const std::string& text) {
  const fs::path path = scratch_dir() / name;
  write_text(path, text);
  return path;
}

fs::path write_model(const std::string& name, const Model& m) {
  const auto bytes = m.bytes();
  return write_scratch(name, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

Json groups_of(const std::string& artifact) {
  Json groups = Json::parse(artifact)["groups"];
  for (Json& g : groups)
    g.erase("onnx_names");
  return groups;
}

TEST(MultiOutputCli, EverySubcommandTakesAGraphWithTwoOutputs) {
  const fs::path graph = write_scratch("two_outputs.json", kTwoOutputs);
  const CliResult plan = run_cli("plan " + graph.string());
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_TRUE(contains(plan.out, "op=relu")) << plan.out;
  EXPECT_TRUE(contains(plan.out, "op=tanh")) << plan.out;

  const fs::path artifact = planned_artifact(graph.string(), "two_outputs.plan.json");
  const CliResult verify = run_cli("verify " + graph.string() + " " + artifact.string());
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_TRUE(contains(verify.out, "verified:")) << verify.out;

  const CliResult explain = run_cli("explain " + graph.string() + " --node 2");
  EXPECT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_TRUE(contains(explain.out, "tanh")) << explain.out;

  const CliResult dot = run_cli("dot " + graph.string());
  EXPECT_EQ(dot.exit_code, 0) << dot.err;
  EXPECT_TRUE(dot.out.starts_with("digraph")) << dot.out;
}

TEST(MultiOutputCli, OnnxOutputsSurviveConvertInOrder) {
  Model m;
  m.input("x", {2, 4}).output("t").output("r");
  m.node("Relu", {"x"}, {"r"}, "act");
  m.node("Tanh", {"r"}, {"t"}, "squash");
  const fs::path model = write_model("two_outputs.onnx", m);
  const fs::path graph = scratch_dir() / "two_outputs_converted.json";
  const CliResult converted = run_cli("convert " + model.string() + " -o " + graph.string());
  ASSERT_EQ(converted.exit_code, 0) << converted.err;
  const Json doc = Json::parse(read_text(graph));
  EXPECT_EQ(doc["format"], "torchlean.ir.v1");
  // The ONNX graph's outputs in its order: t (tanh, node 2) before r (relu, node 1).
  EXPECT_EQ(doc["output_ids"], Json::parse("[2, 1]"));

  const CliResult from_onnx = run_cli("plan " + model.string() + " --json");
  const CliResult from_json = run_cli("plan " + graph.string() + " --json");
  ASSERT_EQ(from_onnx.exit_code, 0) << from_onnx.err;
  ASSERT_EQ(from_json.exit_code, 0) << from_json.err;
  EXPECT_EQ(groups_of(from_onnx.out), groups_of(from_json.out));
}

TEST(MultiOutputCli, ConvertMarksAnExtensionKindGraphAsNnplanIr) {
  // ConvTranspose is the nnplan extension kind conv_transpose.
  Model m;
  m.input("x", {1, 2, 3, 3}).output("y");
  m.init("w", {2, 1, 2, 2}, std::vector<float>(8, 0.5F));
  auto& up = m.node("ConvTranspose", {"x", "w"}, {"y"}, "up");
  nnplan::format::onnx_test::attr_ints(up, "strides", {2, 2});
  const fs::path model = write_model("up.onnx", m);
  const fs::path graph = scratch_dir() / "up.json";
  const CliResult converted = run_cli("convert " + model.string() + " -o " + graph.string());
  ASSERT_EQ(converted.exit_code, 0) << converted.err;
  const std::string text = read_text(graph);
  EXPECT_TRUE(contains(text, "\"format\": \"nnplan.ir.v1\"")) << text;
  EXPECT_TRUE(contains(text, "\"kind\": \"conv_transpose\"")) << text;
  EXPECT_TRUE(contains(text, "\"shape\": [1, 1, 6, 6]")) << text;

  const CliResult from_onnx = run_cli("plan " + model.string() + " --json");
  const CliResult from_json = run_cli("plan " + graph.string() + " --json");
  ASSERT_EQ(from_onnx.exit_code, 0) << from_onnx.err;
  ASSERT_EQ(from_json.exit_code, 0) << from_json.err;
  EXPECT_EQ(groups_of(from_onnx.out), groups_of(from_json.out));
}

TEST(FoldedProvenanceCli, ExplainNamesTheFoldedNodesANodeConsumed) {
  // x [2,3,4] reshaped to [2,12] by a shape the exporter computed: Shape -> Gather -> Unsqueeze
  // -> Concat, all evaluated at import.
  Model m;
  m.input("x", {2, 3, 4}).output("y");
  m.init_i64("zero", {0});
  m.init_i64("rest", {-1});
  m.node("Shape", {"x"}, {"s"}, "/Shape");
  auto& gather = m.node("Gather", {"s", "zero"}, {"n"}, "/Gather");
  nnplan::format::onnx_test::attr_i(gather, "axis", 0);
  auto& concat = m.node("Concat", {"n", "rest"}, {"shape"}, "/Concat");
  nnplan::format::onnx_test::attr_i(concat, "axis", 0);
  m.node("Reshape", {"x", "shape"}, {"y"}, "/Reshape");
  const fs::path model = write_model("folded.onnx", m);
  const CliResult plan = run_cli("plan " + model.string());
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const CliResult explain = run_cli("explain " + model.string() + " --node 1");
  ASSERT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_TRUE(contains(explain.out, "node 1 (reshape '/Reshape')")) << explain.out;
  EXPECT_TRUE(contains(explain.out, "folded at import: /Shape, /Gather, /Concat\n")) << explain.out;
}

}  // namespace
