// Graph files: format detection by extension and content, reading either format once with the
// digest of the bytes read, the shared checked graph, and the failures with what they record
// (digest when the bytes were read, node count when the file parsed).
#include "nnplan/format/graph_file.hpp"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "nnplan/format/plan_artifact.hpp"

namespace nnplan::format {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "nnplan_graph_file_test";
  fs::create_directories(dir);
  return dir / name;
}

fs::path write(const std::string& name, const std::string& bytes) {
  const fs::path path = scratch(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const fs::path kMlp = fs::path(NNPLAN_SOURCE_DIR) / "examples/mlp.json";
const fs::path kMalformedShape =
    fs::path(NNPLAN_SOURCE_DIR) / "tests/data/graphs/cli_malformed_shape.json";

// input x [1,4] -> Relu -> y, as ONNX bytes.
std::string relu_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  auto* g = m.mutable_graph();
  auto* in = g->add_input();
  in->set_name("x");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(1);
  tt->mutable_shape()->add_dim()->set_dim_value(4);
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->set_name("act");
  n->add_input("x");
  n->add_output("y");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

struct DetectCase {
  std::string name;
  std::string bytes;
  GraphFileFormat expected;
};

TEST(DetectGraphFormat, ExtensionFirstThenContent) {
  const std::vector<DetectCase> cases = {
      {"m.onnx", "{}", GraphFileFormat::onnx},
      {"M.ONNX", "{}", GraphFileFormat::onnx},
      {"g.json", "\x08\x07", GraphFileFormat::torchlean_ir},
      {"g.JSON", "\x08\x07", GraphFileFormat::torchlean_ir},
      {"object.graph", "  \n{\"format\": 1}", GraphFileFormat::torchlean_ir},
      {"array.graph", "\t[1]", GraphFileFormat::torchlean_ir},
      {"model.pb", "\x08\x07\x12", GraphFileFormat::onnx},
      {"blank.graph", "  \n ", GraphFileFormat::torchlean_ir},
      {"empty.graph", "", GraphFileFormat::torchlean_ir},
  };
  for (const DetectCase& c : cases) {
    EXPECT_EQ(detect_graph_format(write(c.name, c.bytes)), c.expected) << c.name;
  }
  EXPECT_EQ(detect_graph_format("/nonexistent/model"), GraphFileFormat::torchlean_ir);
}

TEST(DetectGraphFormat, LeadingBytesDecideForOtherNames) {
  EXPECT_EQ(graph_format_of(" \n{"), GraphFileFormat::torchlean_ir);
  EXPECT_EQ(graph_format_of("["), GraphFileFormat::torchlean_ir);
  EXPECT_EQ(graph_format_of(""), GraphFileFormat::torchlean_ir);
  EXPECT_EQ(graph_format_of(std::string_view("\0", 1)), GraphFileFormat::onnx);
  EXPECT_EQ(graph_format_of("\x08\x07"), GraphFileFormat::onnx);
  EXPECT_EQ(graph_format_from_extension("a/b.Onnx"), GraphFileFormat::onnx);
  EXPECT_EQ(graph_format_from_extension("b.json"), GraphFileFormat::torchlean_ir);
  EXPECT_EQ(graph_format_from_extension("b.pb"), std::nullopt);
  EXPECT_EQ(graph_format_from_extension("/dev/stdin"), std::nullopt);
}

TEST(ReadGraphFile, PipeIsReadOnceAndItsFormatTakenFromTheBytes) {
  for (const fs::path& file : {kMlp, write("relu.model", relu_model())}) {
    const std::string command = "cat " + file.string();
    FILE* pipe = ::popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    const fs::path path = "/dev/fd/" + std::to_string(::fileno(pipe));
    auto loaded = read_graph_file(path, {.digest = true});
    ::pclose(pipe);
    ASSERT_TRUE(loaded.has_value()) << render(loaded.error().error);
    EXPECT_EQ(loaded->format, file == kMlp ? GraphFileFormat::torchlean_ir : GraphFileFormat::onnx);
    EXPECT_EQ(loaded->digest, sha256_digest(read(file)));
  }
}

TEST(ReadGraphFile, ReadsTorchleanIrWithTheDigestOfItsBytes) {
  auto loaded = read_graph_file(kMlp, {.digest = true});
  ASSERT_TRUE(loaded.has_value()) << render(loaded.error().error);
  EXPECT_EQ(loaded->path, kMlp.string());
  EXPECT_EQ(loaded->format, GraphFileFormat::torchlean_ir);
  EXPECT_FALSE(loaded->onnx());
  EXPECT_EQ(loaded->digest, sha256_digest(read(kMlp)));
  ASSERT_NE(loaded->graph, nullptr);
  EXPECT_FALSE(loaded->graph->graph().nodes.empty());
  // Without the request there is no digest.
  auto plain = read_graph_file(kMlp);
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->digest, std::nullopt);
  EXPECT_EQ(plain->graph->graph(), loaded->graph->graph());
}

TEST(ReadGraphFile, ReadsOnnxWithoutPayloads) {
  const std::string bytes = relu_model();
  const fs::path path = write("relu.model", bytes);  // detected by content
  auto loaded = read_graph_file(path, {.digest = true});
  ASSERT_TRUE(loaded.has_value()) << render(loaded.error().error);
  EXPECT_TRUE(loaded->onnx());
  EXPECT_EQ(loaded->digest, sha256_digest(bytes));
  ASSERT_EQ(loaded->graph->graph().nodes.size(), 2u);
  EXPECT_EQ(loaded->graph->graph().nodes[1].source_name, "act");
}

TEST(ReadGraphFile, PassesInputShapesToTheImporter) {
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(relu_model()));
  m.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_param("batch");
  const fs::path path = write("dynamic.onnx", m.SerializeAsString());
  auto dynamic = read_graph_file(path);
  ASSERT_FALSE(dynamic.has_value());
  GraphFileOptions options;
  options.onnx.input_shapes["x"] = {3, 4};
  auto fixed = read_graph_file(path, options);
  ASSERT_TRUE(fixed.has_value()) << render(fixed.error().error);
  EXPECT_EQ(fixed->graph->graph().nodes[0].shape, (ir::Shape{{3, 4}}));
}

struct FailureCase {
  std::string name;
  fs::path path;
  bool ask_digest = false;
  bool input_shapes = false;  // pass an input shape for `x`
  std::string message_start;  // the error message begins with this
  bool digest = false;        // the failure records a digest
  std::optional<std::size_t> nodes;
};

TEST(ReadGraphFile, FailuresRecordWhatWasLearned) {
  const std::vector<FailureCase> cases = {
      {"missing", "/nonexistent/graph.json", true, false,
       "/nonexistent/graph.json: cannot read graph file", false, std::nullopt},
      {"missing_onnx", "/nonexistent/model.onnx", true, false,
       "/nonexistent/model.onnx: cannot read ONNX model", false, std::nullopt},
      {"not_json", write("bad.json", "{\"format\": "), true, false,
       scratch("bad.json").string() + ": ", true, std::nullopt},
      {"fails_check", kMalformedShape, true, false,
       kMalformedShape.string() + ": node 1 (relu 'act')", true, std::size_t{2}},
      {"fails_check_no_digest", kMalformedShape, false, false,
       kMalformedShape.string() + ": node 1 (relu 'act')", false, std::size_t{2}},
      {"corrupt_onnx", write("corrupt.onnx", "\x08\x07\x12\xff\xff\xff"), true, false,
       scratch("corrupt.onnx").string(), true, std::nullopt},
      {"input_shapes_for_json", kMlp, false, true,
       "input shapes apply to ONNX models; " + kMlp.string() +
           " is a torchlean.ir.v1 graph, whose shapes are declared in the file",
       false, std::nullopt},
  };
  for (const FailureCase& c : cases) {
    GraphFileOptions options;
    options.digest = c.ask_digest;
    if (c.input_shapes) options.onnx.input_shapes["x"] = {1};
    auto loaded = read_graph_file(c.path, options);
    ASSERT_FALSE(loaded.has_value()) << c.name;
    const GraphFileFailure& f = loaded.error();
    EXPECT_EQ(f.error.kind, ErrorKind::invalid_input) << c.name;
    EXPECT_TRUE(f.error.message.starts_with(c.message_start)) << c.name << ": " << f.error.message;
    EXPECT_EQ(f.digest.has_value(), c.digest) << c.name;
    if (c.digest) {
      EXPECT_EQ(f.digest, sha256_digest(read(c.path))) << c.name;
    }
    EXPECT_EQ(f.nodes, c.nodes) << c.name;
  }
}

}  // namespace
}  // namespace nnplan::format

namespace nnplan::format {
namespace {

const fs::path kMlpPayloads = fs::path(NNPLAN_SOURCE_DIR) / "examples/mlp.payloads";
const fs::path kCnnPayloads = fs::path(NNPLAN_SOURCE_DIR) / "examples/cnn.payloads";

// A copy of examples/mlp.json in a directory of its own, with `payloads` beside it when given.
fs::path mlp_copy(const std::string& dir, const std::optional<std::string>& payloads) {
  const fs::path graph = scratch(dir + "/mlp.json");
  fs::create_directories(graph.parent_path());
  fs::remove(graph.parent_path() / "mlp.payloads");
  std::ofstream(graph, std::ios::binary) << read(kMlp);
  if (payloads) std::ofstream(graph.parent_path() / "mlp.payloads", std::ios::binary) << *payloads;
  return graph;
}

TEST(GraphPayloads, PayloadFileBesideTheGraphIsReadAndChecked) {
  EXPECT_EQ(payload_path_for("examples/mlp.json"), fs::path("examples/mlp.payloads"));
  EXPECT_EQ(payload_path_for("model"), fs::path("model.payloads"));
  auto loaded = read_graph_file(kMlp);
  ASSERT_TRUE(loaded.has_value()) << render(loaded.error().error);
  EXPECT_EQ(loaded->weights.status, WeightsCheck::Status::checked);
  EXPECT_EQ(loaded->weights.payload_path, kMlpPayloads.string());
  EXPECT_EQ(loaded->weights.tensors, 4U);  // two linear layers, weight and bias each
  EXPECT_EQ(loaded->weights.describe(kMlp.string()),
            "weights: 4 tensors and 0 attributes in " + kMlpPayloads.string() + " match the graph");
}

TEST(GraphPayloads, GraphWithoutPayloadFilePlansAndSaysNothingWasChecked) {
  const fs::path graph = mlp_copy("no_payloads", std::nullopt);
  auto loaded = read_graph_file(graph);
  ASSERT_TRUE(loaded.has_value()) << render(loaded.error().error);
  EXPECT_EQ(loaded->weights.status, WeightsCheck::Status::absent);
  EXPECT_EQ(loaded->weights.describe(graph.string()),
            "weights: not checked: no payload file " + payload_path_for(graph).string() +
                " beside " + graph.string() + " (planning needs none)");
}

TEST(GraphPayloads, GarbagePayloadFileFailsTheLoadNamingIt) {
  const fs::path graph = mlp_copy("garbage_payloads", std::string("not a payload file"));
  auto loaded = read_graph_file(graph, {.digest = true});
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(loaded.error().error.kind, ErrorKind::invalid_input);
  EXPECT_TRUE(loaded.error().error.message.starts_with(payload_path_for(graph).string() + ": "))
      << loaded.error().error.message;
  // The graph itself was read: the failure keeps its digest and node count.
  EXPECT_EQ(loaded.error().digest, sha256_digest(read(kMlp)));
  EXPECT_EQ(loaded.error().nodes, 5U);
}

TEST(GraphPayloads, PayloadsOfAnotherGraphDoNotMatch) {
  const fs::path graph = mlp_copy("cnn_payloads", read(kCnnPayloads));
  auto loaded = read_graph_file(graph);
  ASSERT_FALSE(loaded.has_value());
  EXPECT_TRUE(
      loaded.error().error.message.starts_with(payload_path_for(graph).string() + ": node "))
      << loaded.error().error.message;
}

TEST(GraphPayloads, IncompletePayloadFileIsRefused) {
  const std::string whole = read(kMlpPayloads);
  const fs::path graph = mlp_copy("short_payloads", whole.substr(0, whole.size() - 4));
  auto loaded = read_graph_file(graph);
  ASSERT_FALSE(loaded.has_value());
  EXPECT_TRUE(loaded.error().error.message.find("truncated") != std::string::npos)
      << loaded.error().error.message;
}

TEST(GraphPayloads, CheckCanBeTurnedOffAndDoesNotApplyToOnnxOrPipes) {
  const fs::path graph = mlp_copy("off", std::string("garbage"));
  auto off = read_graph_file(graph, {.check_payloads = false});
  ASSERT_TRUE(off.has_value()) << render(off.error().error);
  EXPECT_EQ(off->weights.status, WeightsCheck::Status::not_checked);

  auto onnx = read_graph_file(write("weights.onnx", relu_model()));
  ASSERT_TRUE(onnx.has_value()) << render(onnx.error().error);
  EXPECT_EQ(onnx->weights.status, WeightsCheck::Status::in_model);

  const std::string command = "cat " + kMlp.string();
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  const std::string path = "/dev/fd/" + std::to_string(::fileno(pipe));
  auto piped = read_graph_file(path);
  ::pclose(pipe);
  ASSERT_TRUE(piped.has_value()) << render(piped.error().error);
  EXPECT_EQ(piped->weights.status, WeightsCheck::Status::not_looked);
  EXPECT_EQ(piped->weights.describe(path),
            "weights: not checked: " + path +
                " is not a regular file, so no payload file lies beside it (planning needs none)");
}

}  // namespace
}  // namespace nnplan::format
