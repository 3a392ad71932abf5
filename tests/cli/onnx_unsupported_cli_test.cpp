// The command line on a valid ONNX model with unsupported parts (exit 4, every unsupported node
// listed on stderr, error kind `unsupported` in the artifact), and on a model whose weights lie in
// external data (planned without the data file; converted from it).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "../format/onnx/onnx_test_models.hpp"
#include "cli_runner.hpp"

namespace {

using namespace nnplan::cli_test;
using nnplan::format::onnx_test::iota;
using nnplan::format::onnx_test::Model;

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// x [1,4] -> Det 'det' -> a; x -> Mish 'mish' -> b; Add 'add' (a, b) -> y.
fs::path two_unsupported_model() {
  Model m;
  m.input("x", {1, 4}).output("y");
  m.node("Det", {"x"}, {"a"}, "det");
  m.node("Mish", {"x"}, {"b"}, "mish");
  m.node("Add", {"a", "b"}, {"y"}, "add");
  const fs::path path = scratch_dir() / "two_unsupported.onnx";
  write_text(path, m.proto().SerializeAsString());
  return path;
}

TEST(OnnxCliUnsupported, EveryUnsupportedNodeIsListedAndTheExitIsFour) {
  const fs::path model = two_unsupported_model();
  for (const std::string command : {"plan", "explain", "dot", "convert"}) {
    std::string args = command + " " + model.string();
    if (command == "explain") args += " --node 0";
    if (command == "convert") args += " -o " + (scratch_dir() / "two.json").string();
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 4) << command << ": " << r.out << r.err;
    const std::vector<std::string> lines = lines_of(r.err);
    ASSERT_EQ(lines.size(), 5u) << command << ": " << r.err;
    EXPECT_EQ(lines[0], "nnplan: error: " + model.string() +
                            ": nnplan does not support 2 nodes of this model (opset 17)");
    EXPECT_EQ(lines[1], "  node 0 'det' (Det): operator Det is not supported");
    EXPECT_EQ(lines[2], "  node 1 'mish' (Mish): operator Mish is not supported");
    EXPECT_EQ(lines[3], "  1 node depends on them and was not imported");
    EXPECT_TRUE(lines[4].starts_with("  supported operators: Abs, Acos, ")) << lines[4];
  }
  EXPECT_FALSE(fs::exists(scratch_dir() / "two.json"));
}

TEST(OnnxCliUnsupported, TheArtifactRecordsAnUnsupportedError) {
  const fs::path model = two_unsupported_model();
  const fs::path artifact = scratch_dir() / "two.plan.json";
  const CliResult r = run_cli("plan " + model.string() + " --json -o " + artifact.string());
  EXPECT_EQ(r.exit_code, 4) << r.err;
  for (const std::string& text : {r.out, read_text(artifact)}) {
    const Json doc = Json::parse(text);
    EXPECT_EQ(doc["accepted"], false);
    EXPECT_EQ(doc["error"]["kind"], "unsupported");
    EXPECT_EQ(doc["error"]["op"], nullptr);
    const std::string message = doc["error"]["message"];
    EXPECT_TRUE(message.starts_with(model.string() +
                                    ": nnplan does not support 2 nodes of this model (opset 17)"
                                    "; node 0 'det' (Det): operator Det is not supported; node 1 "
                                    "'mish' (Mish): operator Mish is not supported; 1 node "
                                    "depends on them and was not imported; supported operators: "
                                    "Abs, "))
        << message;
  }
}

// x [2,3] · w [3,2], w in external data file `location` (`w.bin`) beside the model.
fs::path external_data_model(const std::string& dir_name, const std::string& location = "w.bin") {
  const fs::path dir = scratch_dir() / dir_name;
  fs::remove_all(dir);
  Model m;
  m.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(6));
  m.node("MatMul", {"x", "w"}, {"y"}, "mm");
  onnx::TensorProto& w = *m.g().mutable_initializer(0);
  w.clear_raw_data();
  w.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto* entry = w.add_external_data();
  entry->set_key("location");
  entry->set_value(location);
  const fs::path path = dir / "model.onnx";
  write_text(path, m.proto().SerializeAsString());
  return path;
}

TEST(OnnxCliExternalData, PlanningNeedsNoDataFile) {
  const fs::path model = external_data_model("external_plan");
  for (const std::string command : {"plan", "explain", "dot"}) {
    std::string args = command + " " + model.string();
    if (command == "explain") args += " --node 1";
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.out << r.err;
  }
  const fs::path artifact = planned_artifact(model.string(), "external.plan.json");
  const CliResult verified = run_cli("verify " + model.string() + " " + artifact.string());
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
}

TEST(OnnxCliExternalData, ConvertReadsTheDataFileBesideTheModel) {
  const fs::path model = external_data_model("external_convert");
  const fs::path graph = model.parent_path() / "model.json";
  const CliResult missing = run_cli("convert " + model.string() + " -o " + graph.string());
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_TRUE(contains(missing.err, "tensor 'w' keeps its data in external file 'w.bin', which "
                                    "does not exist in the model's directory"))
      << missing.err;
  EXPECT_FALSE(fs::exists(graph));

  const std::vector<float> values = iota(6);
  write_text(model.parent_path() / "w.bin",
             std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
  const CliResult converted = run_cli("convert " + model.string() + " -o " + graph.string());
  ASSERT_EQ(converted.exit_code, 0) << converted.err;
  EXPECT_TRUE(contains(converted.out, "1 payload tensor (24 bytes)")) << converted.out;
  const CliResult planned = run_cli("plan " + graph.string());
  EXPECT_EQ(planned.exit_code, 0) << planned.err;
}

// A file the model keeps its weights in is an input of every command that reads the model: run's
// --output and --trace, and plan's, dot's and report's -o, onto it are usage errors that leave
// it as it was (the model would no longer load).
TEST(OnnxCliExternalData, NoCommandWritesOverTheDataFile) {
  // Named .npy, so that run's --output takes its extension and reaches the check.
  const fs::path model = external_data_model("external_no_overwrite", "w.npy");
  const fs::path data = model.parent_path() / "w.npy";
  const std::vector<float> values = iota(6);
  const std::string bytes(reinterpret_cast<const char*>(values.data()), values.size() * 4);
  write_text(data, bytes);
  const fs::path x = model.parent_path() / "x.npy";
  const std::vector<std::string> commands = {
      "run " + model.string() + " --quiet --output y=" + data.string(),
      "run " + model.string() + " --quiet --trace " + data.string(),
      "plan " + model.string() + " -o " + data.string(),
      "dot " + model.string() + " -o " + data.string(),
      "report " + model.string() + " --no-picture -o " + data.string()};
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const CliResult r = run_cli(command);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, data.string() + ": the output would overwrite the input " +
                                    data.string() + "; choose another output path"))
        << r.err;
    EXPECT_EQ(read_text(data), bytes);
  }
}

}  // namespace
