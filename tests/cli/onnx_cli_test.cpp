// End-to-end tests of ONNX input on the command line, run against the built binary: the graph
// subcommands (plan, verify, explain, dot) on `.onnx` files and on sniffed ones, `--input-shape`,
// `convert` (whose output plans to the same groups as the model), ONNX node names in every
// output, and exit codes for malformed models. Models come from the conformance corpus when it is
// present and are otherwise built here with ONNX's protobuf API.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>
#include "cli_runner.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "nnplan/format/payload_file.hpp"
#include "nnplan/format/plan_artifact.hpp"
#include "nnplan/format/tensor_file.hpp"
#include "nnplan/ir/weights.hpp"

namespace {

using namespace nnplan::cli_test;
namespace format = nnplan::format;
namespace ir = nnplan::ir;

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// The conformance model `test_name`, or empty when the corpus is not next to this checkout.
fs::path conformance_model(const std::string& test_name) {
  const fs::path path = fs::path(NNPLAN_ONNX_CONFORMANCE_DIR) / test_name / "model.onnx";
  return fs::exists(path) ? path : fs::path();
}

#define SKIP_WITHOUT_CORPUS(path)                                                     \
  if ((path).empty())                                                                 \
  GTEST_SKIP() << "ONNX conformance corpus not found at " NNPLAN_ONNX_CONFORMANCE_DIR \
                  " (set NNPLAN_ONNX_CONFORMANCE_DIR when configuring)"

// ---------------------------------------------------------------------------------------------
// Models built with ONNX's protobuf API

// A float32 tensor type; a negative dimension becomes the symbolic dimension `N`.
void set_tensor_type(onnx::ValueInfoProto& value, const std::string& name,
                     const std::vector<std::int64_t>& dims) {
  value.set_name(name);
  auto* tensor = value.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tensor->mutable_shape();
  for (std::int64_t d : dims) {
    auto* dim = shape->add_dim();
    if (d < 0) {
      dim->set_dim_param("N");
    } else {
      dim->set_dim_value(d);
    }
  }
}

onnx::NodeProto& add_node(onnx::GraphProto& graph, const std::string& op, const std::string& name,
                          const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto& node = *graph.add_node();
  node.set_op_type(op);
  node.set_name(name);
  for (const std::string& in : inputs)
    node.add_input(in);
  node.add_output(output);
  return node;
}

void add_initializer(onnx::GraphProto& graph, const std::string& name,
                     const std::vector<std::int64_t>& dims, float first) {
  onnx::TensorProto& t = *graph.add_initializer();
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  std::int64_t count = 1;
  for (std::int64_t d : dims) {
    t.add_dims(d);
    count *= d;
  }
  for (std::int64_t i = 0; i < count; ++i)
    t.add_float_data(first + 0.25f * static_cast<float>(i));
}

// An empty model of the default domain at opset 13 whose graph is named `name`.
onnx::ModelProto opset13_model(const std::string& name) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("nnplan-test");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  model.mutable_graph()->set_name(name);
  return model;
}

// x[B,4] -> Gemm 'model/fc' (W[3,4] with transB, b[3]) -> Relu 'model/act' -> Sigmoid 'model/out'.
// `batch` < 0 leaves the batch dimension symbolic.
std::string mlp_model_bytes(std::int64_t batch = 2) {
  onnx::ModelProto model = opset13_model("mlp");
  onnx::GraphProto& g = *model.mutable_graph();
  set_tensor_type(*g.add_input(), "x", {batch, 4});
  set_tensor_type(*g.add_output(), "y", {batch, 3});
  add_initializer(g, "W", {3, 4}, 0.5f);
  add_initializer(g, "b", {3}, -1.0f);
  onnx::NodeProto& gemm = add_node(g, "Gemm", "model/fc", {"x", "W", "b"}, "h");
  auto* trans_b = gemm.add_attribute();
  trans_b->set_name("transB");
  trans_b->set_type(onnx::AttributeProto::INT);
  trans_b->set_i(1);
  add_node(g, "Relu", "model/act", {"h"}, "a");
  add_node(g, "Sigmoid", "model/out", {"a"}, "y");
  std::string bytes;
  EXPECT_TRUE(model.SerializeToString(&bytes));
  return bytes;
}

fs::path write_mlp_model(const std::string& file_name, std::int64_t batch = 2) {
  const fs::path path = scratch_dir() / file_name;
  write_text(path, mlp_model_bytes(batch));
  return path;
}

// The group lines of a text report with the ` onnx=...` suffix removed.
std::vector<std::string> group_lines(const std::string& report) {
  std::vector<std::string> lines;
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("  group ")) continue;
    if (const auto at = line.find(" onnx="); at != std::string::npos) line.resize(at);
    lines.push_back(line);
  }
  return lines;
}

// An artifact's groups with `onnx_names` removed.
Json groups_without_names(const std::string& artifact) {
  Json groups = Json::parse(artifact)["groups"];
  for (Json& g : groups)
    g.erase("onnx_names");
  return groups;
}

// Converts `model`, then checks that planning the converted graph gives the model's groups, in
// the text report and in the artifact.
void expect_convert_keeps_groups(const fs::path& model, const std::string& stem) {
  const fs::path graph = scratch_dir() / (stem + ".json");
  const fs::path payloads = scratch_dir() / (stem + ".payloads");
  const CliResult converted = run_cli("convert " + model.string() + " -o " + graph.string());
  ASSERT_EQ(converted.exit_code, 0) << converted.err;
  EXPECT_TRUE(converted.out.starts_with("converted " + model.string())) << converted.out;
  EXPECT_TRUE(contains(converted.out, payloads.string())) << converted.out;
  ASSERT_TRUE(fs::exists(graph));
  ASSERT_TRUE(fs::exists(payloads));
  EXPECT_TRUE(contains(read_text(graph), "\"format\": \"torchlean.ir.v1\""));

  const CliResult from_onnx = run_cli("plan " + model.string());
  const CliResult from_json = run_cli("plan " + graph.string());
  ASSERT_EQ(from_onnx.exit_code, 0) << from_onnx.err;
  ASSERT_EQ(from_json.exit_code, 0) << from_json.err;
  EXPECT_FALSE(group_lines(from_onnx.out).empty()) << from_onnx.out;
  EXPECT_EQ(group_lines(from_onnx.out), group_lines(from_json.out));

  const CliResult onnx_json = run_cli("plan " + model.string() + " --json");
  const CliResult ir_json = run_cli("plan " + graph.string() + " --json");
  ASSERT_EQ(onnx_json.exit_code, 0) << onnx_json.err;
  ASSERT_EQ(ir_json.exit_code, 0) << ir_json.err;
  EXPECT_EQ(groups_without_names(onnx_json.out), groups_without_names(ir_json.out));
  // A torchlean.ir.v1 file's names are labels, not ONNX provenance.
  const Json ir_doc = Json::parse(ir_json.out);
  for (const Json& g : ir_doc["groups"])
    EXPECT_FALSE(g.contains("onnx_names"));
}

// ---------------------------------------------------------------------------------------------
// plan, verify, explain, dot on ONNX files

TEST(OnnxCliPlan, PlansAConformanceModel) {
  const fs::path model = conformance_model("test_relu");
  SKIP_WITHOUT_CORPUS(model);
  const CliResult r = run_cli("plan " + model.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(contains(r.out, "op=relu")) << r.out;
  EXPECT_TRUE(contains(r.out, "gate: accepted under assurance checked")) << r.out;
}

TEST(OnnxCliPlan, ArtifactDigestsTheModelFileAndVerifies) {
  const fs::path model = write_mlp_model("mlp.onnx");
  const CliResult r = run_cli("plan " + model.string() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["graph"]["digest"], nnplan::format::sha256_digest(read_text(model)));
  EXPECT_EQ(doc["accepted"], true);
  const fs::path artifact = scratch_dir() / "mlp.onnx.plan.json";
  write_text(artifact, r.out);
  const CliResult verified = run_cli("verify " + model.string() + " " + artifact.string());
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  EXPECT_TRUE(contains(verified.out, "verified:")) << verified.out;
}

TEST(OnnxCliPlan, OnnxNamesAreParallelToNodeIds) {
  const fs::path model = write_mlp_model("named.onnx");
  const CliResult r = run_cli("plan " + model.string() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  ASSERT_FALSE(doc["groups"].empty());
  std::vector<std::string> names;
  for (const Json& g : doc["groups"]) {
    ASSERT_TRUE(g.contains("onnx_names")) << g.dump();
    ASSERT_EQ(g["onnx_names"].size(), g["node_ids"].size()) << g.dump();
    // The names sit right after the ids and kinds they describe.
    auto it = g.begin();
    EXPECT_EQ((it++).key(), "node_ids");
    EXPECT_EQ((it++).key(), "kinds");
    EXPECT_EQ((it++).key(), "onnx_names");
    for (const Json& n : g["onnx_names"])
      names.push_back(n.get<std::string>());
  }
  for (const std::string expected : {"model/fc", "model/act", "model/out"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end())
        << expected << " in " << r.out;
  }
}

TEST(OnnxCliPlan, ReportGroupLinesNameTheOnnxNodes) {
  const fs::path model = write_mlp_model("report.onnx");
  const CliResult r = run_cli("plan " + model.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "onnx=model/fc")) << r.out;
  EXPECT_TRUE(contains(r.out, "onnx=model/act")) << r.out;
  EXPECT_TRUE(contains(r.out, "onnx=model/out")) << r.out;
}

TEST(OnnxCliPlan, ContentDecidesTheFormatWithoutAnExtension) {
  const CliResult onnx = run_cli("plan " + write_mlp_model("model_without_extension").string());
  EXPECT_EQ(onnx.exit_code, 0) << onnx.err;
  EXPECT_TRUE(contains(onnx.out, "onnx=model/fc")) << onnx.out;
  const fs::path json = scratch_dir() / "graph.txt";
  write_text(json, read_text(source("examples/mlp.json")));
  const CliResult ir = run_cli("plan " + json.string());
  EXPECT_EQ(ir.exit_code, 0) << ir.err;
  EXPECT_FALSE(contains(ir.out, "onnx=")) << ir.out;
}

TEST(OnnxCliExplain, ShowsTheOnnxNodeName) {
  const fs::path model = write_mlp_model("explain.onnx");
  const CliResult plan = run_cli("plan " + model.string() + " --json");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  // Find the node the importer made from the Relu, whatever its id.
  std::string relu_id;
  const Json doc = Json::parse(plan.out);
  for (const Json& g : doc["groups"]) {
    for (std::size_t i = 0; i < g["node_ids"].size(); ++i) {
      if (g["onnx_names"][i] == "model/act") relu_id = std::to_string(g["node_ids"][i].get<int>());
    }
  }
  ASSERT_FALSE(relu_id.empty()) << plan.out;
  const CliResult r = run_cli("explain " + model.string() + " --node " + relu_id);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "'model/act'")) << r.out;
  EXPECT_TRUE(contains(r.out, "onnx=model/act")) << r.out;
}

TEST(OnnxCliDot, NodeLabelsShowTheOnnxNames) {
  const fs::path model = write_mlp_model("dot.onnx");
  const CliResult r = run_cli("dot " + model.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("digraph nnplan_plan {")) << r.out;
  EXPECT_TRUE(contains(r.out, "onnx=model/fc")) << r.out;
  EXPECT_TRUE(contains(r.out, "onnx=model/out")) << r.out;
}

// ---------------------------------------------------------------------------------------------
// --input-shape

// A dimension the model leaves open plans at 1, and a note says so and how to plan another size;
// --input-shape fixes it (no note). convert, whose JSON graph has static shapes only, needs it.
TEST(OnnxCliInputShape, FixesASymbolicDimension) {
  const fs::path model = write_mlp_model("dynamic.onnx", -1);
  const CliResult without = run_cli("plan " + model.string());
  EXPECT_EQ(without.exit_code, 0) << without.err;
  EXPECT_TRUE(contains(without.out, "gate: accepted")) << without.out;
  EXPECT_TRUE(
      contains(without.err,
               "note: the model leaves these input dimensions open; planned at: 'N' "
               "(input 'x' axis 0) = 1. nnplan run plans the shapes of its input files (of a "
               "model read from a file); "
               "--input-shape x=<N>,4 fixes them here"))
      << without.err;
  const CliResult with = run_cli("plan " + model.string() + " --input-shape x=5,4");
  EXPECT_EQ(with.exit_code, 0) << with.err;
  EXPECT_TRUE(contains(with.out, "gate: accepted")) << with.out;
  EXPECT_FALSE(contains(with.err, "note: the model leaves")) << with.err;
  const CliResult convert =
      run_cli("convert " + model.string() + " -o " + (scratch_dir() / "dyn.json").string());
  EXPECT_EQ(convert.exit_code, 4) << convert.err;
  EXPECT_TRUE(contains(
      convert.err, "dimension 0 of input 'x' is dynamic ('N'); fix it with --input-shape x=1,4"))
      << convert.err;
}

// The artifact records each open dimension and the size it was planned at (fixed: given by
// --input-shape), and verify reproduces it; a model without open dimensions records none.
TEST(OnnxCliInputShape, TheArtifactRecordsTheOpenDimensions) {
  const fs::path model = write_mlp_model("dynamic_artifact.onnx", -1);
  const fs::path artifact = scratch_dir() / "dynamic_artifact.plan.json";
  const CliResult open = run_cli("plan " + model.string() + " -o " + artifact.string());
  ASSERT_EQ(open.exit_code, 0) << open.err;
  EXPECT_EQ(Json::parse(read_text(artifact))["graph"]["symbolic_dims"],
            Json::parse(R"([{"input": "x", "axis": 0, "name": "N", "size": 1, "fixed": false}])"));
  const CliResult verified = run_cli("verify " + model.string() + " " + artifact.string());
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  const CliResult fixed = run_cli("plan " + model.string() + " --input-shape x=3,4 --json");
  ASSERT_EQ(fixed.exit_code, 0) << fixed.err;
  EXPECT_EQ(Json::parse(fixed.out)["graph"]["symbolic_dims"],
            Json::parse(R"([{"input": "x", "axis": 0, "name": "N", "size": 3, "fixed": true}])"));
  // Planned at 3, the artifact is not the plan at 1: verify says so.
  const fs::path at_three = scratch_dir() / "dynamic_at_three.plan.json";
  write_text(at_three, fixed.out);
  const CliResult differs = run_cli("verify " + model.string() + " " + at_three.string());
  EXPECT_EQ(differs.exit_code, 1) << differs.out;
  EXPECT_TRUE(contains(differs.out,
                       "note: the artifact was planned for other sizes of the model's open "
                       "dimensions; pass --input-shape x=3,4 as when it was planned"))
      << differs.out;
  const CliResult same =
      run_cli("verify " + model.string() + " " + at_three.string() + " --input-shape x=3,4");
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  const CliResult fixed_model =
      run_cli("plan " + write_mlp_model("static.onnx", 2).string() + " --json");
  ASSERT_EQ(fixed_model.exit_code, 0) << fixed_model.err;
  EXPECT_FALSE(Json::parse(fixed_model.out)["graph"].contains("symbolic_dims"));
}

// The report page says, first among its caveats, which sizes the plan of a model with open
// dimensions was made for.
TEST(OnnxCliInputShape, TheReportSaysWhichSizesThePlanWasMadeFor) {
  const fs::path model = write_mlp_model("dynamic_report.onnx", -1);
  const CliResult open = run_cli("report " + model.string() + " --no-picture");
  ASSERT_EQ(open.exit_code, 0) << open.err;
  EXPECT_TRUE(contains(open.out,
                       "<p id=\"open-dims-caveat\">Open dimensions: the model leaves input "
                       "dimensions open, and this plan was made for &#39;N&#39; (input &#39;x&#39; "
                       "axis 0) = 1. Other sizes are planned and gated again before they run"))
      << open.out.substr(0, 3000);
  const CliResult fixed = run_cli("report " + model.string() + " --no-picture --input-shape x=7,4");
  ASSERT_EQ(fixed.exit_code, 0) << fixed.err;
  EXPECT_TRUE(contains(fixed.out, "axis 0) = 7. Other sizes")) << fixed.out.substr(0, 3000);
  // The page of a plan no capsule completes says it too.
  const CliResult unplanned =
      run_cli("report " + model.string() + " --no-picture --assurance verified");
  EXPECT_EQ(unplanned.exit_code, 1) << unplanned.err;
  EXPECT_TRUE(contains(unplanned.out, "axis 0) = 1. Other sizes")) << unplanned.out.substr(0, 3000);
  const CliResult none =
      run_cli("report " + write_mlp_model("static_report.onnx", 2).string() + " --no-picture");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_FALSE(contains(none.out, "open-dims-caveat"));
}

// nnplan run on a model with an open batch dimension and no --input-shape plans the shape of the
// input file: the outputs are those of a run with that shape fixed up front, bit for bit, and
// the trace names the shapes it was compiled for.
TEST(OnnxCliRun, OpenDimensionsTakeTheSizeOfTheInputFile) {
  const fs::path model = write_mlp_model("dynamic_run.onnx", -1);
  for (const std::uint64_t batch : {5u, 2u, 1u}) {
    SCOPED_TRACE(batch);
    std::vector<float> values(batch * 4);
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = 0.125f * static_cast<float>(i) - 1;
    const fs::path x = scratch_dir() / ("x" + std::to_string(batch) + ".npy");
    ASSERT_TRUE(format::write_tensor_file(
                    x, ir::WeightTensor::adopt(ir::Shape{{batch, 4}}, std::move(values)))
                    .has_value());
    const fs::path open_out = scratch_dir() / "open_y.npy";
    const fs::path fixed_out = scratch_dir() / "fixed_y.npy";
    const fs::path trace = scratch_dir() / "open.trace.json";
    const CliResult open =
        run_cli("run " + model.string() + " --input x=" + x.string() +
                " --output y=" + open_out.string() + " --trace " + trace.string());
    ASSERT_EQ(open.exit_code, 0) << open.err;
    EXPECT_TRUE(contains(open.out, "symbolic dimensions: 'N' (input 'x' axis 0) = " +
                                       std::to_string(batch) + " (planned for these sizes)"))
        << open.out;
    EXPECT_FALSE(contains(open.err, "planned at")) << open.err;
    const CliResult fixed = run_cli("run " + model.string() + " --input x=" + x.string() +
                                    " --input-shape x=" + std::to_string(batch) +
                                    ",4 --output y=" + fixed_out.string());
    ASSERT_EQ(fixed.exit_code, 0) << fixed.err;
    auto a = format::read_tensor_file(open_out);
    auto b = format::read_tensor_file(fixed_out);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->shape(), (ir::Shape{{batch, 3}}));
    EXPECT_EQ(a->to_vector<float>(), b->to_vector<float>());
    const Json other = Json::parse(read_text(trace))["otherData"];
    EXPECT_EQ(other["input_shapes"]["x"], Json::array({batch, 4})) << other.dump();
    EXPECT_EQ(other["symbolic_dims"],
              Json::parse(R"([{"axis": 0, "input": "x", "name": "N", "size": )" +
                          std::to_string(batch) + "}]"))
        << other.dump();
  }
}

// a[N,4] + b[N,4] -> y: two inputs that share the open dimension N.
fs::path write_pair_model(const std::string& file_name) {
  onnx::ModelProto model = opset13_model("pair");
  onnx::GraphProto& g = *model.mutable_graph();
  set_tensor_type(*g.add_input(), "a", {-1, 4});
  set_tensor_type(*g.add_input(), "b", {-1, 4});
  set_tensor_type(*g.add_output(), "y", {-1, 4});
  add_node(g, "Add", "sum", {"a", "b"}, "y");
  const fs::path path = scratch_dir() / file_name;
  write_text(path, model.SerializeAsString());
  return path;
}

fs::path write_ones(const std::string& file_name, std::uint64_t rows) {
  const fs::path path = scratch_dir() / file_name;
  EXPECT_TRUE(
      format::write_tensor_file(
          path, ir::WeightTensor::adopt(ir::Shape{{rows, 4}}, std::vector<float>(rows * 4, 1.0F)))
          .has_value());
  return path;
}

// Inputs that share an open dimension: the files must agree on it, naming the files when they do
// not; an --input-shape for one of them fixes it for both; the note's fix names both.
TEST(OnnxCliRun, InputsThatShareAnOpenDimension) {
  const fs::path model = write_pair_model("pair.onnx");
  const fs::path a3 = write_ones("a3.npy", 3);
  const fs::path b3 = write_ones("b3.npy", 3);
  const fs::path b5 = write_ones("b5.npy", 5);
  const CliResult ok = run_cli("run " + model.string() + " --input a=" + a3.string() +
                               " --input b=" + b3.string() + " --quiet");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(contains(ok.out, "output 'y' [3,4]: min 2 max 2")) << ok.out;
  const CliResult differ =
      run_cli("run " + model.string() + " --input a=" + a3.string() + " --input b=" + b5.string());
  EXPECT_EQ(differ.exit_code, 3);
  EXPECT_TRUE(contains(differ.err, "bad-input: input 'b' (" + b5.string() +
                                       "): dimension 'N' is 5 here but 3 in " + a3.string() +
                                       "; the model names both 'N', one size"))
      << differ.err;
  const CliResult unnamed = run_cli("run " + model.string() + " --input " + a3.string());
  EXPECT_EQ(unnamed.exit_code, 3);
  EXPECT_TRUE(contains(unnamed.err, "--input '" + a3.string() +
                                        "' names no input; the model has 2: 'a' [N,4], 'b' "
                                        "[N,4]; write NAME=FILE"))
      << unnamed.err;
  const CliResult wrong = run_cli("run " + model.string() + " --input A=" + a3.string());
  EXPECT_EQ(wrong.exit_code, 3);
  EXPECT_TRUE(contains(wrong.err,
                       "--input 'A' is not an input of the model; did you mean 'a'? "
                       "its inputs: 'a' [N,4], 'b' [N,4]"))
      << wrong.err;
  const CliResult given =
      run_cli("run " + model.string() + " --input-shape a=3,4 --input a=" + a3.string() +
              " --input b=" + b5.string());
  EXPECT_EQ(given.exit_code, 3);
  EXPECT_TRUE(contains(given.err, "bad-input: input 'b' (" + b5.string() +
                                      "): dimension 'N' is 5 here but 3 in --input-shape a"))
      << given.err;
  const CliResult planned = run_cli("plan " + model.string() + " --input-shape a=7,4");
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  EXPECT_FALSE(contains(planned.err, "note: the model leaves")) << planned.err;
  const CliResult note = run_cli("plan " + model.string());
  EXPECT_TRUE(contains(note.err, "--input-shape a=<N>,4 --input-shape b=<N>,4 fixes them here"))
      << note.err;
}

// A model that cannot be planned with its open dimensions at 1 (a 5-wide kernel on a 1-pixel
// image) runs on files of other sizes: run reads them before it plans, and plans once. plan says
// what the failure at 1 may come from and which flag plans the sizes run.
TEST(OnnxCliRun, OpenDimensionsAreSizedBeforeTheModelIsPlanned) {
  onnx::ModelProto model = opset13_model("conv5");
  onnx::GraphProto& g = *model.mutable_graph();
  set_tensor_type(*g.add_input(), "x", {1, 3, -1, -1});
  set_tensor_type(*g.add_output(), "y", {1, 4, -1, -1});
  add_initializer(g, "W", {4, 3, 5, 5}, 0.0f);
  add_node(g, "Conv", "conv", {"x", "W"}, "y");
  const fs::path path = scratch_dir() / "conv5.onnx";
  write_text(path, model.SerializeAsString());
  const fs::path x = scratch_dir() / "conv5_x.npy";
  ASSERT_TRUE(format::write_tensor_file(x, ir::WeightTensor::adopt(ir::Shape{{1, 3, 8, 8}},
                                                                   std::vector<float>(192, 1.0F)))
                  .has_value());
  const CliResult ran = run_cli("run " + path.string() + " --input " + x.string() + " --quiet");
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_TRUE(contains(ran.out, "output 'y' [1,4,4,4]")) << ran.out;
  const CliResult planned = run_cli("plan " + path.string());
  EXPECT_EQ(planned.exit_code, 3);
  EXPECT_TRUE(contains(planned.err,
                       "the dimensions the model leaves open were planned at 1 ('N' "
                       "(input 'x' axis 2) = 1, 'N' (input 'x' axis 3) = 1), which "
                       "this failure may come from; plan the sizes you run with "
                       "--input-shape x=1,3,<N>,<N>"))
      << planned.err;
}

// What run says when the input files cannot give an open dimension its size.
TEST(OnnxCliRun, OpenDimensionsNeedTheirInputFiles) {
  const fs::path model = write_mlp_model("dynamic_refused.onnx", -1);
  const CliResult none = run_cli("run " + model.string());
  EXPECT_EQ(none.exit_code, 3);
  EXPECT_TRUE(contains(none.err,
                       "nnplan: error: bad-input: no --input given for 'x', whose shape [N,4] the "
                       "model leaves open (its file gives the sizes); the model's inputs: 'x' "
                       "[N,4]; e.g. --input x=x.npy"))
      << none.err;
  const fs::path wrong = scratch_dir() / "wrong_width.npy";
  ASSERT_TRUE(format::write_tensor_file(
                  wrong, ir::WeightTensor::adopt(ir::Shape{{2, 3}}, std::vector<float>(6, 1.0F)))
                  .has_value());
  const CliResult width = run_cli("run " + model.string() + " --input x=" + wrong.string());
  EXPECT_EQ(width.exit_code, 3);
  EXPECT_TRUE(contains(width.err, "bad-input: input 'x' (" + wrong.string() +
                                      "): shape [2,3]; the model expects [N,4]"))
      << width.err;
  const fs::path empty = write_ones("empty_batch.npy", 0);
  const CliResult zero = run_cli("run " + model.string() + " --input x=" + empty.string());
  EXPECT_EQ(zero.exit_code, 3);
  EXPECT_TRUE(contains(zero.err, "bad-input: input 'x' (" + empty.string() +
                                     "): shape [0,4] has an empty dimension; nnplan runs inputs "
                                     "of at least one element"))
      << zero.err;
}

// An --input-shape naming an input the model lacks is a usage error (exit 2), for every command
// that reads a graph, with the closest input name suggested.
TEST(OnnxCliInputShape, AnInputTheModelLacksIsAUsageError) {
  const fs::path model = write_mlp_model("dynamic.onnx", -1);
  for (const std::string command : {"plan", "run", "report", "explain --node 1"}) {
    SCOPED_TRACE(command);
    const CliResult r = run_cli(command + " " + model.string() + " --input-shape X=5,4");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err,
                         "an input shape is given for 'X', which is not a graph input; "
                         "did you mean 'x'? inputs: 'x'"))
        << r.err;
  }
  // No artifact for it either: the model is not malformed.
  const CliResult json = run_cli("plan " + model.string() + " --input-shape X=5,4 --json");
  EXPECT_EQ(json.exit_code, 2) << json.err;
  EXPECT_TRUE(json.out.empty()) << json.out;
  const CliResult convert =
      run_cli("convert " + model.string() + " -o " +
              (fs::path(testing::TempDir()) / "lacks.json").string() + " --input-shape y=5,4");
  EXPECT_EQ(convert.exit_code, 2) << convert.err;
  EXPECT_TRUE(contains(convert.err, "'y', which is not a graph input; inputs: 'x'")) << convert.err;
}

struct InputShapeCase {
  std::string name;
  std::string flags;
  std::string fragment;
};

// `1,1,...,1` with `rank` entries.
std::string dims_text(std::size_t rank) {
  std::string out = "1";
  for (std::size_t i = 1; i < rank; ++i)
    out += ",1";
  return out;
}

class OnnxCliInputShapeErrors : public testing::TestWithParam<InputShapeCase> {};

TEST_P(OnnxCliInputShapeErrors, ExitTwoWithAClearMessage) {
  const InputShapeCase& c = GetParam();
  const fs::path model = write_mlp_model("shapes.onnx");
  for (const std::string command : {"plan", "dot", "convert"}) {
    std::string args = command + " " + model.string() + " " + c.flags;
    if (command == "convert") args += " -o " + (scratch_dir() / "s.json").string();
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "nnplan: error: --input-shape")) << command << ": " << r.err;
    EXPECT_TRUE(contains(r.err, c.fragment)) << command << ": " << r.err;
    EXPECT_EQ(r.out, "");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, OnnxCliInputShapeErrors,
    testing::Values(InputShapeCase{"no_equals", "--input-shape x", "no '='"},
                    InputShapeCase{"empty_name", "--input-shape =1,4", "the input name is empty"},
                    InputShapeCase{"no_dims", "--input-shape x=", "no dimensions"},
                    InputShapeCase{"letter", "--input-shape x=1,a", "dimension 'a'"},
                    InputShapeCase{"empty_dim", "--input-shape x=1,,4", "dimension ''"},
                    InputShapeCase{"zero", "--input-shape x=0,4", "dimension '0'"},
                    InputShapeCase{"negative", "--input-shape x=-1,4", "dimension '-1'"},
                    InputShapeCase{"overflow", "--input-shape x=99999999999999999999999,4",
                                   "dimension 99999999999999999999999 is out of range; the limit "
                                   "is 281474976710656 (2^48)"},
                    InputShapeCase{"dimension_limit", "--input-shape x=18446744073709551615,4",
                                   "--input-shape: input shape for 'x' has 18446744073709551615 at "
                                   "dimension 0, which exceeds the dimension limit of "
                                   "281474976710656 (2^48)"},
                    InputShapeCase{"rank_limit", "--input-shape x=" + dims_text(100),
                                   "--input-shape: input shape for 'x' has rank 100; the limit is "
                                   "64 (the maximum rank)"},
                    InputShapeCase{"sixty_thousand_dims", "--input-shape x=" + dims_text(60000),
                                   "--input-shape: input shape for 'x' has rank 60000; the limit "
                                   "is 64"},
                    InputShapeCase{"element_limit", "--input-shape x=65536,65536,65536,2",
                                   "--input-shape: input shape for 'x' has 562949953421312 "
                                   "elements; the limit is 281474976710656 (2^48) per tensor"},
                    InputShapeCase{"twice", "--input-shape x=1,4 --input-shape x=2,4",
                                   "input 'x' is given twice"}),
    [](const testing::TestParamInfo<InputShapeCase>& info) { return info.param.name; });

TEST(OnnxCliInputShape, IsAUsageErrorForAJsonGraph) {
  const CliResult r = run_cli("plan " + source("examples/mlp.json") + " --input-shape x=1,4");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "nnplan: error: --input-shape: input shapes apply to ONNX models; " +
                                  source("examples/mlp.json") + " is a torchlean.ir.v1 graph"))
      << r.err;
}

// ---------------------------------------------------------------------------------------------
// Malformed models

struct BadModelCase {
  std::string name;
  std::string bytes;
};

std::vector<BadModelCase> bad_models() {
  const std::string good = mlp_model_bytes();
  return {
      {"empty", ""},
      {"truncated", good.substr(0, good.size() / 2)},
      {"garbage", std::string("\xff\xff\xff\xff\x0f not a protobuf at all", 28)},
  };
}

TEST(OnnxCliMalformed, EveryGraphCommandExitsThreeNamingTheFile) {
  for (const BadModelCase& c : bad_models()) {
    const fs::path model = scratch_dir() / ("bad_" + c.name + ".onnx");
    write_text(model, c.bytes);
    for (const std::string command : {"plan", "explain", "dot", "convert"}) {
      std::string args = command + " " + model.string();
      if (command == "explain") args += " --node 0";
      if (command == "convert") args += " -o " + (scratch_dir() / "bad.json").string();
      const CliResult r = run_cli(args);
      EXPECT_EQ(r.exit_code, 3) << c.name << " " << command << ": " << r.out << r.err;
      EXPECT_TRUE(r.err.starts_with("nnplan: error: "))
          << c.name << " " << command << ": " << r.err;
      EXPECT_TRUE(contains(r.err, model.string())) << c.name << " " << command << ": " << r.err;
    }
  }
}

// A valid model with an operator nnplan does not import yet: exit 4 (DESIGN.md), naming the node.
TEST(OnnxCliUnsupported, EveryGraphCommandExitsFourNamingTheNode) {
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(mlp_model_bytes()));
  model.mutable_graph()->mutable_node(2)->set_op_type("Mish");
  std::string bytes;
  ASSERT_TRUE(model.SerializeToString(&bytes));
  const fs::path path = scratch_dir() / "mish.onnx";
  write_text(path, bytes);
  for (const std::string command : {"plan", "explain", "dot", "convert"}) {
    std::string args = command + " " + path.string();
    if (command == "explain") args += " --node 0";
    if (command == "convert") args += " -o " + (scratch_dir() / "mish.json").string();
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 4) << command << ": " << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "model/out")) << command << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "Mish")) << command << ": " << r.err;
  }
}

TEST(OnnxCliMalformed, PlanJsonRecordsAMalformedGraph) {
  const fs::path model = scratch_dir() / "corrupt.onnx";
  write_text(model, "\x08\x07\x12\xff\xff\xff");
  const CliResult r = run_cli("plan " + model.string() + " --json");
  EXPECT_EQ(r.exit_code, 3);
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["error"]["kind"], "malformed-graph");
  EXPECT_EQ(doc["graph"]["digest"], nnplan::format::sha256_digest(read_text(model)));
}

// ---------------------------------------------------------------------------------------------
// convert

TEST(OnnxCliConvert, ConformanceModelPlansToTheSameGroups) {
  const fs::path model = conformance_model("test_relu");
  SKIP_WITHOUT_CORPUS(model);
  expect_convert_keeps_groups(model, "conformance_relu");
}

TEST(OnnxCliConvert, BuiltModelPlansToTheSameGroupsAndKeepsEveryWeight) {
  const fs::path model = write_mlp_model("convert.onnx");
  expect_convert_keeps_groups(model, "converted_mlp");
  const auto payloads = nnplan::format::read_payload_file(scratch_dir() / "converted_mlp.payloads");
  ASSERT_TRUE(payloads) << nnplan::render(payloads.error());
  std::size_t values = 0;
  bool found_weight_values = false;
  for (const auto& [key, tensor] : payloads->tensors) {
    values += tensor.floats().size();
    if (tensor.floats().size() == 12 && tensor.floats()[0] == 0.5f &&
        tensor.floats()[11] == 3.25f) {
      found_weight_values = true;
    }
  }
  // W (12 values, possibly transposed into [out, in]) and b (3 values).
  EXPECT_EQ(values, 15u);
  EXPECT_TRUE(found_weight_values);
}

TEST(OnnxCliConvert, SummaryCountsNodesAndPayloads) {
  const fs::path model = write_mlp_model("summary.onnx");
  const fs::path graph = scratch_dir() / "summary.json";
  const CliResult r = run_cli("convert " + model.string() + " -o " + graph.string() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["format"], "nnplan.convert.v1");
  EXPECT_EQ(doc["opset"], 13);
  EXPECT_EQ(doc["payloads"], (scratch_dir() / "summary.payloads").string());
  EXPECT_EQ(doc["payload_bytes"], 15 * 4);
  EXPECT_GE(doc["nodes"].get<int>(), 4);
}

TEST(OnnxCliConvert, RefusesToOverwriteTheGraphWithPayloads) {
  const fs::path model = write_mlp_model("clash.onnx");
  const CliResult r =
      run_cli("convert " + model.string() + " -o " + (scratch_dir() / "g.payloads").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "would overwrite the graph")) << r.err;
}

// A directory where the payload file goes: refused before anything is written, so no graph file
// is left behind without its payloads.
TEST(OnnxCliConvert, APayloadPathThatIsADirectoryLeavesNoGraphBehind) {
  const fs::path model = write_mlp_model("payload_dir.onnx");
  const fs::path dir = scratch_dir() / "convert_payload_dir";
  fs::create_directories(dir / "g.payloads");
  const CliResult r = run_cli("convert " + model.string() + " -o " + (dir / "g.json").string());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "nnplan: error: " + (dir / "g.payloads").string() +
                       ": cannot write output file: is a directory\n");
  EXPECT_FALSE(fs::exists(dir / "g.json"));
}

TEST(OnnxCliConvert, NeedsAnOutput) {
  const CliResult r = run_cli("convert " + write_mlp_model("no_output.onnx").string());
  EXPECT_EQ(r.exit_code, 2);
}

TEST(OnnxCliHelp, ConvertHasHelpWithAnExample) {
  const CliResult r = run_cli("convert --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "Example: nnplan convert")) << r.out;
  EXPECT_TRUE(contains(r.out, "--input-shape")) << r.out;
}

}  // namespace
