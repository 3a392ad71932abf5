// Graph documents (SPEC §6), `torchlean.ir.v1` and `nnplan.ir.v1`: every op kind round-trips
// through the writer and the reader, each legacy TorchLean kind reads as its current equivalent,
// output_ids and the legacy output_id, the format marker, float fields, the mask object, the
// examples read, pass ir::check and rewrite to their golden current-vocabulary form, and every
// malformed document (inline table and tests/data/graphs/bad_*.json) is an error whose one-line
// message names the source, the node and the field. No input crashes the reader.
#include "nnplan/format/ir_json.hpp"
#include "../ir/graph_fixtures.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "nnplan/ir/check.hpp"
#include "nnplan/ir/op_table.hpp"

namespace nnplan::format {
namespace {

using ir::Graph;
using ir::Node;
using ir::OpKind;
using ir::Shape;

const std::filesystem::path kSourceDir = NNPLAN_SOURCE_DIR;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string safe_name(std::string_view text) {
  std::string out;
  for (const char ch : text)
    out += std::isalnum(static_cast<unsigned char>(ch)) != 0 ? ch : '_';
  return out;
}

using ir::fixtures::shape;

bool is_extension(OpKind kind) {
  return ir::op_traits(kind).origin == ir::KindOrigin::nnplan;
}

// Compares `actual` with tests/golden/<file>; NNPLAN_UPDATE_GOLDEN=1 rewrites the file.
void expect_golden(const std::string& file, const std::string& actual) {
  const std::filesystem::path path = std::filesystem::path(NNPLAN_GOLDEN_DIR) / file;
  const char* update = std::getenv("NNPLAN_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out << actual;
    ASSERT_TRUE(out.good()) << "cannot write " << path;
    return;
  }
  ASSERT_TRUE(std::filesystem::is_regular_file(path))
      << "missing golden file " << path << " (run with NNPLAN_UPDATE_GOLDEN=1 to create it)";
  EXPECT_EQ(actual, read_text(path)) << "golden file " << path;
}

// ---------------------------------------------------------------------------------------------
// Round trips.

// Parameters of each OpParams alternative that differ from the defaults, so a field the writer
// or reader dropped would show; by alternative index.
std::vector<ir::OpParams> sample_params() {
  std::vector<ir::OpParams> out(std::variant_size_v<ir::OpParams>);
  const auto put = [&out](ir::OpParams p) { out[p.index()] = std::move(p); };
  put(std::monostate{});
  put(ir::ConstParams{.value_shape = shape({2, 3})});
  put(ir::PermuteParams{.perm = {2, 0, 1}});
  put(ir::SeedParams{.seed = 18446744073709551615u});
  put(ir::PoolParams{
      .spatial_rank = 3, .kernel = {3, 2, 1}, .stride = {4, 1, 2}, .padding = {5, 0, 1}});
  put(ir::BroadcastParams{.from = shape({}), .to = shape({4, 5})});
  put(ir::AxisParams{.axis = 4294967295u});
  put(ir::ConvParams{.spatial_rank = 3,
                     .kernel = {3, 5, 1},
                     .stride = {2, 1, 1},
                     .padding = {1, 0, 2},
                     .dilation = {1, 2, 1},
                     .padding_after = {0, 1, 2},
                     .groups = 2,
                     .channel_axis = 0,
                     .in_channels = 4,
                     .out_channels = 8,
                     .output_padding = {1, 0, 0}});
  put(ir::ChannelAxisParams{.channel_axis = 3, .channels = 16});
  put(ir::ReshapeParams{.in = shape({2, 3}), .out = shape({6})});
  put(ir::FlattenParams{.in = shape({1, 2, 3})});
  put(ir::TransposeParams{.axis1 = 2, .axis2 = 0});
  put(ir::MaskParams{.shape = shape({2, 3}), .allowed = {true, false, false, true, true, false}});
  put(ir::GeluParams{.approximate = ir::GeluApproximation::tanh});
  put(ir::ClampParams{.min = -0.5F, .max = std::nullopt});
  put(ir::ScaleParams{.factor = 0.125F});
  put(ir::SliceParams{.axis = 1, .start = 2, .end = 18446744073709551615u, .step = 3});
  put(ir::AttentionParams{.causal = true, .scale = 0.1F});
  put(ir::AlphaParams{.alpha = -0.375F});
  put(ir::TopKParams{.axis = 7, .largest = false});
  put(ir::CumSumParams{.axis = 5, .exclusive = true, .reverse = true});
  put(ir::ScatterParams{.axis = 3, .reduction = ir::ScatterReduction::mul});
  put(ir::GatherNdParams{.batch_dims = 2});
  put(ir::GridSampleParams{.mode = ir::SampleMode::cubic,
                           .padding_mode = ir::GridSamplePadding::reflection,
                           .align_corners = true});
  put(ir::ResizeParams{
      .mode = ir::SampleMode::cubic,
      .coordinate_transformation_mode = ir::CoordinateTransformation::tf_half_pixel_for_nn,
      .nearest_mode = ir::ResizeNearest::ceil,
      .cubic_coeff_a = -0.5F,
      .exclude_outside = true,
      .scales = {1.0F, 0.6F, 2.5F}});
  put(ir::MaxPoolIndicesParams{.spatial_rank = 1,
                               .kernel = {3},
                               .stride = {2},
                               .padding = {1},
                               .padding_after = {2},
                               .dilation = {2},
                               .storage_order = 1});
  put(ir::RoiAlignParams{
      .mode = ir::SampleMode::max,
      .coordinate_transformation_mode = ir::CoordinateTransformation::output_half_pixel,
      .sampling_ratio = 3,
      .spatial_scale = 0.0625F});
  put(ir::HardSigmoidParams{.alpha = 0.125F, .beta = 0.25F});
  put(ir::RecurrentParams{.hidden_size = 7,
                          .direction = ir::RecurrentDirection::bidirectional,
                          .linear_before_reset = true});
  return out;
}

bool has_field(OpKind kind, std::string_view field) {
  const auto fields = ir::op_traits(kind).fields;
  return std::find(fields.begin(), fields.end(), field) != fields.end();
}

// A node of `kind` with its alternative's sample parameters (conv has no output_padding, scatter_nd
// no axis).
Node sample_node(OpKind kind, ir::NodeId id) {
  static const std::vector<ir::OpParams> kSamples = sample_params();
  Node node{.id = id,
            .kind = kind,
            .parents = id == 0 ? std::vector<ir::NodeId>{} : std::vector<ir::NodeId>{0},
            .shape = shape({2, id + 1ULL}),
            .params = kSamples[ir::op_traits(kind).params],
            .source_name = id % 3 == 0 ? "model/" + std::string(ir::to_string(kind)) : ""};
  if (auto* conv = std::get_if<ir::ConvParams>(&node.params);
      conv != nullptr && !has_field(kind, "output_padding")) {
    conv->output_padding.clear();
  }
  if (auto* scatter = std::get_if<ir::ScatterParams>(&node.params);
      scatter != nullptr && !has_field(kind, "axis")) {
    scatter->axis = 0;
  }
  if (auto* recurrent = std::get_if<ir::RecurrentParams>(&node.params);
      recurrent != nullptr && !has_field(kind, "linear_before_reset")) {
    recurrent->linear_before_reset = false;
  }
  return node;
}

// One node of every kind. Shapes need not be consistent: the reader does not check them.
Graph every_kind_graph() {
  Graph g;
  g.input_id = 0;
  g.output_ids = {3, 1, 3};
  for (std::size_t k = 0; k < ir::kOpKindCount; ++k)
    g.nodes.push_back(sample_node(static_cast<OpKind>(k), static_cast<ir::NodeId>(k)));
  return g;
}

// A JSON value of the type of `field`.
std::string sample_value(std::string_view field) {
  if (field.ends_with("shape")) return "[1, 2]";
  if (field == "perm") return "[0]";
  if (field == "kernel" || field == "stride" || field == "padding" || field == "dilation" ||
      field == "padding_after" || field == "output_padding") {
    return "[1, 2]";
  }
  if (field == "mask") return R"({"shape": [2], "allowed": [true, false]})";
  if (field == "approximate") return R"("tanh")";
  if (field == "min" || field == "scale") return "0.5";
  if (field == "max") return "null";
  if (field == "factor") return "-2.5";
  if (field == "causal") return "true";
  if (field == "reduction") return R"("add")";
  if (field == "direction") return R"("reverse")";
  if (field == "mode") return R"("nearest")";
  if (field == "padding_mode") return R"("border")";
  if (field == "coordinate_transformation_mode") return R"("asymmetric")";
  if (field == "nearest_mode") return R"("ceil")";
  if (field == "cubic_coeff_a") return "-0.5";
  if (field == "scales") return "[1, 2.5]";
  if (field == "spatial_scale") return "0.25";
  if (field == "largest" || field == "exclusive" || field == "reverse" ||
      field == "linear_before_reset" || field == "align_corners" || field == "exclude_outside") {
    return "false";
  }
  return "1";
}

// A node document of `kind` with every field the op-kind table names for it.
std::string node_document(OpKind kind) {
  std::string node = R"({"id": 0, "kind": ")" + std::string(ir::to_string(kind)) +
                     R"(", "parents": [], "shape": [])";
  for (const std::string_view field : ir::op_traits(kind).fields) {
    node += ", \"" + std::string(field) + "\": " + sample_value(field);
  }
  node += "}";
  return R"({"format": ")" + std::string(is_extension(kind) ? kNnplanIrFormat : kIrFormat) +
         R"(", "input_id": 0, "output_ids": [0], "nodes": [)" + node + "]}";
}

TEST(IrJson, EveryOpKindRoundTrips) {
  const Graph g = every_kind_graph();
  ASSERT_EQ(g.nodes.size(), ir::kOpKindCount);
  const std::string text = write_ir_json(g);
  EXPECT_TRUE(text.starts_with("{\n  \"format\": \"nnplan.ir.v1\",\n")) << text.substr(0, 80);
  const auto back = parse_ir_json(text, "<memory>");
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, g);
  EXPECT_EQ(write_ir_json(*back), text);
  EXPECT_EQ(write_ir_json(g), text) << "writing twice gives identical bytes";
}

// Each kind alone, so a failure names the kind.
class IrJsonKindRoundTrip : public ::testing::TestWithParam<std::size_t> {};

TEST_P(IrJsonKindRoundTrip, WritesAndReadsBack) {
  const auto kind = static_cast<OpKind>(GetParam());
  const Graph g{.input_id = 0, .output_ids = {0}, .nodes = {sample_node(kind, 0)}};
  const std::string text = write_ir_json(g);
  const auto back = parse_ir_json(text, "<memory>");
  ASSERT_TRUE(back.has_value()) << back.error().message << "\n" << text;
  EXPECT_EQ(*back, g) << text;
  EXPECT_EQ(write_ir_json(*back), text);
}

// The format marker: nnplan.ir.v1 exactly for the extension kinds, and a torchlean.ir.v1
// document cannot hold one.
TEST_P(IrJsonKindRoundTrip, WritesNnplanFormatExactlyForExtensionKinds) {
  const auto kind = static_cast<OpKind>(GetParam());
  Graph g{.input_id = 0,
          .output_ids = {1},
          .nodes = {sample_node(OpKind::input, 0), sample_node(kind, 1)}};
  const std::string_view format = is_extension(kind) ? kNnplanIrFormat : kIrFormat;
  EXPECT_EQ(ir_format_for(g), format);
  const std::string text = write_ir_json(g);
  EXPECT_NE(text.find("\"format\": \"" + std::string(format) + "\""), std::string::npos) << text;

  // The same nodes under the other marker: nnplan.ir.v1 reads every kind, torchlean.ir.v1 only
  // TorchLean's.
  std::string other = text;
  const std::string_view other_format = is_extension(kind) ? kIrFormat : kNnplanIrFormat;
  other.replace(other.find(format), format.size(), other_format);
  const auto read = parse_ir_json(other, "<memory>");
  if (!is_extension(kind)) {
    ASSERT_TRUE(read.has_value()) << read.error().message;
    EXPECT_EQ(*read, g);
    EXPECT_EQ(write_ir_json(*read), text) << "written back as torchlean.ir.v1";
    return;
  }
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().message,
            "<memory>: node 1 (" + std::string(ir::to_string(kind)) +
                "): field kind: " + std::string(ir::to_string(kind)) +
                " is an nnplan extension kind; it needs format 'nnplan.ir.v1', and this "
                "document's format is 'torchlean.ir.v1'");
  EXPECT_EQ(read.error().position, 1u);
}

// The reader builds the OpParams alternative the op-kind table names from exactly the kind's
// fields, and the writer emits them in the table's order.
TEST_P(IrJsonKindRoundTrip, ReadsTheTablesFieldsIntoTheTablesAlternative) {
  const auto kind = static_cast<OpKind>(GetParam());
  const ir::OpKindTraits& row = ir::op_traits(kind);
  const std::string text = node_document(kind);
  const auto g = parse_ir_json(text, "<memory>");
  ASSERT_TRUE(g.has_value()) << g.error().message << "\n" << text;
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].params.index(), row.params) << text;
  const std::string written = write_ir_json(*g);
  std::size_t at = written.find("\"shape\": ");
  for (const std::string_view field : row.fields) {
    const std::size_t next = written.find("\"" + std::string(field) + "\": ", at);
    ASSERT_NE(next, std::string::npos) << field << " missing or out of order in " << written;
    at = next;
  }
  // Nothing but the kind's fields follows the node's shape (the mask object has two keys).
  std::size_t keys = 0;
  for (std::size_t i = written.find("\": ", written.find("\"shape\": ") + 9);
       i != std::string::npos; i = written.find("\": ", i + 1))
    ++keys;
  EXPECT_EQ(keys, row.fields.size() + (has_field(kind, "mask") ? 2 : 0)) << written;

  // A field of another kind is refused, naming the kind's own fields.
  for (const std::string_view foreign : {"axis", "seed", "channels", "kH", "groups"}) {
    if (has_field(kind, foreign)) continue;
    std::string bad = text;
    bad.insert(bad.find("\"parents\""), "\"" + std::string(foreign) + "\": 1, ");
    const auto refused = parse_ir_json(bad, "<memory>");
    ASSERT_FALSE(refused.has_value()) << bad;
    EXPECT_NE(refused.error().message.find("field " + std::string(foreign) + ": not a field of " +
                                           std::string(row.spelling) + "; "),
              std::string::npos)
        << refused.error().message;
  }

  // Every op field is required.
  for (const std::string_view field : row.fields) {
    std::string bad = text;
    const std::size_t from = bad.find(", \"" + std::string(field) + "\": ");
    const std::string value = sample_value(field);
    bad.erase(from, 4 + field.size() + 2 + value.size() - 2 + 2);
    const auto refused = parse_ir_json(bad, "<memory>");
    ASSERT_FALSE(refused.has_value()) << bad;
    EXPECT_NE(refused.error().message.find("field " + std::string(field) +
                                           ": required field is missing; " +
                                           std::string(row.spelling) + " takes "),
              std::string::npos)
        << refused.error().message << "\n"
        << bad;
  }
}

INSTANTIATE_TEST_SUITE_P(AllKinds, IrJsonKindRoundTrip,
                         ::testing::Range<std::size_t>(0, ir::kOpKindCount),
                         [](const auto& info) { return safe_name(ir::kOpKindNames[info.param]); });

// grid_sample's modes spelled as GridSample-16 names them (nnplan's spelling before resize shared
// the field) still read; they are written as linear and cubic.
TEST(IrJson, GridSampleReadsItsEarlierModeSpellings) {
  for (const auto& [spelled, mode] : {std::pair{"bilinear", ir::SampleMode::linear},
                                      std::pair{"bicubic", ir::SampleMode::cubic}}) {
    const std::string text =
        std::string(R"({"format": "nnplan.ir.v1", "input_id": 0, "output_ids": [2], "nodes": [)") +
        R"({"id": 0, "kind": "input", "parents": [], "shape": [1, 1, 2, 2]},)" +
        R"({"id": 1, "kind": "input", "parents": [], "shape": [1, 3, 3, 2]},)" +
        R"({"id": 2, "kind": "grid_sample", "parents": [0, 1], "shape": [1, 1, 3, 3], "mode": ")" +
        spelled + R"(", "padding_mode": "zeros", "align_corners": false}]})";
    const auto g = parse_ir_json(text, "<memory>");
    ASSERT_TRUE(g.has_value()) << g.error().message;
    EXPECT_EQ(std::get<ir::GridSampleParams>(g->nodes[2].params).mode, mode) << spelled;
    EXPECT_NE(write_ir_json(*g).find(mode == ir::SampleMode::linear ? R"("mode": "linear")"
                                                                    : R"("mode": "cubic")"),
              std::string::npos);
  }
}

TEST(IrJson, CanonicalLayout) {
  Graph g;
  g.output_ids = {1, 2};
  g.nodes.push_back(Node{.id = 0, .kind = OpKind::input, .shape = shape({1, 3, 8, 8})});
  g.nodes.push_back(Node{.id = 1,
                         .kind = OpKind::conv,
                         .parents = {0},
                         .shape = shape({1, 4, 8, 8}),
                         .params =
                             ir::ConvParams{
                                 .spatial_rank = 2,
                                 .kernel = {3, 3},
                                 .stride = {1, 1},
                                 .padding = {1, 1},
                                 .dilation = {1, 1},
                                 .padding_after = {1, 1},
                                 .groups = 1,
                                 .channel_axis = 1,
                                 .in_channels = 3,
                                 .out_channels = 4,
                             },
                         .source_name = "conv \"1\"\n"});
  g.nodes.push_back(Node{.id = 2,
                         .kind = OpKind::hard_masked_softmax,
                         .parents = {1},
                         .shape = shape({1, 4, 8, 8}),
                         .params = ir::MaskParams{.shape = shape({2}), .allowed = {true, false}}});
  EXPECT_EQ(
      write_ir_json(g),
      "{\n"
      "  \"format\": \"torchlean.ir.v1\",\n"
      "  \"input_id\": 0,\n"
      "  \"output_ids\": [1, 2],\n"
      "  \"nodes\": [\n"
      "    {\"id\": 0, \"kind\": \"input\", \"parents\": [], \"shape\": [1, 3, 8, 8]},\n"
      "    {\"id\": 1, \"kind\": \"conv\", \"parents\": [0], \"shape\": [1, 4, 8, 8], "
      "\"spatial_rank\": 2, \"kernel\": [3, 3], \"stride\": [1, 1], \"padding\": [1, 1], "
      "\"dilation\": [1, 1], \"padding_after\": [1, 1], \"groups\": 1, \"channel_axis\": 1, "
      "\"in_channels\": 3, \"out_channels\": 4, \"name\": \"conv \\\"1\\\"\\n\"},\n"
      "    {\"id\": 2, \"kind\": \"hard_masked_softmax\", \"parents\": [1], \"shape\": [1, 4, "
      "8, 8], \"mask\": {\"shape\": [2], \"allowed\": [true, false]}}\n"
      "  ]\n"
      "}\n");

  Graph ext;
  ext.output_ids = {1};
  ext.nodes.push_back(Node{.id = 0, .kind = OpKind::input, .shape = shape({4})});
  ext.nodes.push_back(Node{.id = 1,
                           .kind = OpKind::clamp,
                           .parents = {0},
                           .shape = shape({4}),
                           .params = ir::ClampParams{.min = 0.0F, .max = 6.0F}});
  ext.nodes.push_back(Node{.id = 2,
                           .kind = OpKind::scaled_dot_product_attention,
                           .parents = {0, 0, 0},
                           .shape = shape({4}),
                           .params = ir::AttentionParams{.causal = false, .scale = std::nullopt}});
  ext.nodes.push_back(Node{.id = 3,
                           .kind = OpKind::gelu,
                           .parents = {0},
                           .shape = shape({4}),
                           .params = ir::GeluParams{.approximate = ir::GeluApproximation::none}});
  ext.nodes.push_back(Node{.id = 4,
                           .kind = OpKind::slice,
                           .parents = {0},
                           .shape = shape({2}),
                           .params = ir::SliceParams{.axis = 0, .start = 1, .end = 4, .step = 2}});
  ext.nodes.push_back(Node{.id = 5,
                           .kind = OpKind::scale,
                           .parents = {0},
                           .shape = shape({4}),
                           .params = ir::ScaleParams{.factor = 0.1F}});
  EXPECT_EQ(
      write_ir_json(ext),
      "{\n"
      "  \"format\": \"nnplan.ir.v1\",\n"
      "  \"input_id\": 0,\n"
      "  \"output_ids\": [1],\n"
      "  \"nodes\": [\n"
      "    {\"id\": 0, \"kind\": \"input\", \"parents\": [], \"shape\": [4]},\n"
      "    {\"id\": 1, \"kind\": \"clamp\", \"parents\": [0], \"shape\": [4], \"min\": 0, "
      "\"max\": 6},\n"
      "    {\"id\": 2, \"kind\": \"scaled_dot_product_attention\", \"parents\": [0, 0, 0], "
      "\"shape\": [4], \"causal\": false, \"scale\": null},\n"
      "    {\"id\": 3, \"kind\": \"gelu\", \"parents\": [0], \"shape\": [4], \"approximate\": "
      "\"none\"},\n"
      "    {\"id\": 4, \"kind\": \"slice\", \"parents\": [0], \"shape\": [2], \"axis\": 0, "
      "\"start\": 1, \"end\": 4, \"step\": 2},\n"
      "    {\"id\": 5, \"kind\": \"scale\", \"parents\": [0], \"shape\": [4], \"factor\": "
      "0.1}\n"
      "  ]\n"
      "}\n");
  const auto back = parse_ir_json(write_ir_json(ext), "<memory>");
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, ext);

  // A hand-built empty graph has no outputs: it is written, and the reader refuses it.
  EXPECT_EQ(write_ir_json(Graph{}),
            "{\n  \"format\": \"torchlean.ir.v1\",\n  \"input_id\": 0,\n  \"output_ids\": [],\n"
            "  \"nodes\": []\n}\n");
  const auto empty = parse_ir_json(write_ir_json(Graph{}), "<memory>");
  ASSERT_FALSE(empty.has_value());
  EXPECT_NE(empty.error().message.find("field output_ids: empty array"), std::string::npos);
  Graph no_nodes{.output_ids = {0}};
  const auto back_empty = parse_ir_json(write_ir_json(no_nodes), "<memory>");
  ASSERT_TRUE(back_empty.has_value()) << back_empty.error().message;
  EXPECT_EQ(*back_empty, no_nodes);
}

TEST(IrJson, ReadsAnyKeyOrderAndWhitespace) {
  const auto g = parse_ir_json(
      R"({"nodes":[{"shape":[1,3,4,4],"parents":[],"kind":"input","id":0},
                   {"padding":1,"name":"p","kH":2,"kind":"max_pool2d_pad","kW":2,"stride":2,
                    "id":1,"parents":[0],"shape":[1,3,3,3]},
                   {"stride":[1,1],"padding":[0,0],"spatial_rank":2,"kernel":[1,1],
                    "kind":"avg_pool","id":2,"parents":[1],"shape":[1,3,3,3]}],
          "output_ids":[2, 1],"format":"torchlean.ir.v1","input_id":0})",
      "<memory>");
  ASSERT_TRUE(g.has_value()) << g.error().message;
  ASSERT_EQ(g->nodes.size(), 3u);
  EXPECT_EQ(g->nodes[1].kind, OpKind::max_pool);
  EXPECT_EQ(g->nodes[1].params,
            ir::OpParams(ir::PoolParams{
                .spatial_rank = 2, .kernel = {2, 2}, .stride = {2, 2}, .padding = {1, 1}}));
  EXPECT_EQ(g->nodes[1].source_name, "p");
  EXPECT_EQ(g->nodes[2].params,
            ir::OpParams(ir::PoolParams{
                .spatial_rank = 2, .kernel = {1, 1}, .stride = {1, 1}, .padding = {0, 0}}));
  EXPECT_EQ(g->output_ids, (std::vector<ir::NodeId>{2, 1}));
  EXPECT_TRUE(ir::check(*g).has_value());
}

// The writer stays total on hand-built graphs: another kind's parameters are replaced by the
// kind's defaults, invalid UTF-8 in a name by the text \xNN, and a non-finite float by null.
TEST(IrJson, WriterIsTotal) {
  Graph g;
  g.output_ids = {0};
  g.nodes.push_back(Node{.id = 0, .kind = OpKind::conv, .params = ir::AxisParams{.axis = 2}});
  g.nodes.push_back(Node{.id = 1, .kind = OpKind::relu, .source_name = "bad\xff"});
  g.nodes.push_back(Node{.id = 2,
                         .kind = OpKind::clamp,
                         .params = ir::ClampParams{.min = -std::numeric_limits<float>::infinity(),
                                                   .max = std::numeric_limits<float>::infinity()}});
  const std::string text = write_ir_json(g);
  const auto back = parse_ir_json(text, "<memory>");
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->nodes[0].params, ir::OpParams(ir::ConvParams{}));
  EXPECT_EQ(back->nodes[1].source_name, "bad\\xff");
  EXPECT_EQ(back->nodes[2].params, ir::OpParams(ir::ClampParams{}));

  g.nodes.push_back(
      Node{.id = 3, .kind = OpKind::scale, .params = ir::ScaleParams{.factor = std::nanf("")}});
  const std::string nan_text = write_ir_json(g);
  EXPECT_NE(nan_text.find("\"factor\": null"), std::string::npos) << nan_text;
  const auto refused = parse_ir_json(nan_text, "<memory>");
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(
      refused.error().message.find("node 3 (scale): field factor: expected a number, found null"),
      std::string::npos)
      << refused.error().message;
}

// ---------------------------------------------------------------------------------------------
// Floats.

std::string scale_document(std::string_view factor) {
  return R"({"format": "nnplan.ir.v1", "input_id": 0, "output_ids": [1], "nodes": [)"
         R"({"id": 0, "kind": "input", "parents": [], "shape": [2]}, )"
         R"({"id": 1, "kind": "scale", "parents": [0], "shape": [2], "factor": )" +
         std::string(factor) + "}]}";
}

std::optional<float> read_factor(std::string_view factor) {
  const auto g = parse_ir_json(scale_document(factor), "<memory>");
  if (!g) return std::nullopt;
  return std::get<ir::ScaleParams>(g->nodes[1].params).factor;
}

// Every finite float comes back bit for bit, through the shortest text that names it.
TEST(IrJson, FloatsRoundTripBitForBit) {
  std::vector<float> values = {0.0F,
                               -0.0F,
                               1.0F,
                               -1.0F,
                               0.1F,
                               1.0F / 3.0F,
                               16777216.0F,
                               16777218.0F,
                               1e10F,
                               FLT_MAX,
                               -FLT_MAX,
                               FLT_MIN,
                               std::numeric_limits<float>::denorm_min(),
                               -std::numeric_limits<float>::denorm_min(),
                               std::nextafter(FLT_MIN, 0.0F)};
  std::mt19937 rng(20261201);
  while (values.size() < 3000) {
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    if (std::isfinite(f)) values.push_back(f);
  }
  for (const float f : values) {
    Graph g{.output_ids = {0},
            .nodes = {Node{.id = 0,
                           .kind = OpKind::clamp,
                           .params = ir::ClampParams{.min = f, .max = std::nullopt}},
                      Node{.id = 1, .kind = OpKind::scale, .params = ir::ScaleParams{.factor = f}},
                      Node{.id = 2,
                           .kind = OpKind::scaled_dot_product_attention,
                           .params = ir::AttentionParams{.causal = true, .scale = f}}}};
    const std::string text = write_ir_json(g);
    const auto back = parse_ir_json(text, "<memory>");
    ASSERT_TRUE(back.has_value()) << back.error().message << "\n" << text;
    const float min = *std::get<ir::ClampParams>(back->nodes[0].params).min;
    const float factor = std::get<ir::ScaleParams>(back->nodes[1].params).factor;
    const float scale = *std::get<ir::AttentionParams>(back->nodes[2].params).scale;
    ASSERT_EQ(std::bit_cast<std::uint32_t>(min), std::bit_cast<std::uint32_t>(f)) << text;
    ASSERT_EQ(std::bit_cast<std::uint32_t>(factor), std::bit_cast<std::uint32_t>(f)) << text;
    ASSERT_EQ(std::bit_cast<std::uint32_t>(scale), std::bit_cast<std::uint32_t>(f)) << text;
    ASSERT_EQ(write_ir_json(*back), text);
  }
}

// Any JSON number reads as the nearest float; numbers past the float range, or nonzero and
// below it, are refused.
TEST(IrJson, ReadsAnyNumberAsTheNearestFloat) {
  EXPECT_EQ(read_factor("3"), 3.0F);
  EXPECT_EQ(read_factor("-2"), -2.0F);
  EXPECT_EQ(read_factor("2.5e-1"), 0.25F);
  EXPECT_EQ(read_factor("1E2"), 100.0F);
  EXPECT_EQ(read_factor("16777217"), 16777216.0F);
  EXPECT_EQ(read_factor("18446744073709551616"), 18446744073709551616.0F);
  EXPECT_EQ(read_factor("3.4028235e38"), FLT_MAX);
  EXPECT_EQ(read_factor("1e-45"), std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(read_factor("0.1"), 0.1F);
  EXPECT_EQ(read_factor("0.000"), 0.0F);
  const std::optional<float> negative_zero = read_factor("-0.0");
  ASSERT_TRUE(negative_zero.has_value());
  EXPECT_TRUE(std::signbit(*negative_zero));
  for (const char* refused : {"3.5e38", "-1e39", "1e-50", "-1e-46", "1e300"}) {
    const auto g = parse_ir_json(scale_document(refused), "<memory>");
    ASSERT_FALSE(g.has_value()) << refused;
    EXPECT_NE(g.error().message.find("node 1 (scale): field factor: " + std::string(refused) +
                                     " is out of range for a 32-bit float; magnitudes from "
                                     "1.4e-45 to 3.4028235e+38, or 0, are allowed"),
              std::string::npos)
        << g.error().message;
  }
}

// ---------------------------------------------------------------------------------------------
// TorchLean's legacy vocabulary.

struct LegacyCase {
  const char* name;
  std::string input_shape;  // the shape of node 0, the parent
  std::string node;         // node 1, as a legacy exporter wrote it
  OpKind kind;              // what it reads as
  ir::OpParams params;
};

std::vector<LegacyCase> legacy_cases() {
  const auto conv = [](std::uint32_t channel_axis) {
    return ir::ConvParams{.spatial_rank = 2,
                          .kernel = {3, 5},
                          .stride = {2, 2},
                          .padding = {1, 1},
                          .dilation = {1, 1},
                          .padding_after = {1, 1},
                          .groups = 1,
                          .channel_axis = channel_axis,
                          .in_channels = 3,
                          .out_channels = 4};
  };
  const std::string conv_fields =
      R"("inC": 3, "outC": 4, "kH": 3, "kW": 5, "stride": 2, "padding": 1)";
  const auto pool = [](std::uint32_t padding) {
    return ir::PoolParams{
        .spatial_rank = 2, .kernel = {2, 3}, .stride = {2, 2}, .padding = {padding, padding}};
  };
  return {
      {"conv2d_nchw", "[1, 3, 8, 8]",
       R"({"id": 1, "kind": "conv2d", "parents": [0], "shape": [1, 4, 4, 3], )" + conv_fields + "}",
       OpKind::conv, conv(1)},
      {"conv2d_chw", "[3, 8, 8]",
       R"({"id": 1, "kind": "conv2d", "parents": [0], "shape": [4, 4, 3], )" + conv_fields + "}",
       OpKind::conv, conv(0)},
      {"conv2d_rank5", "[2, 1, 3, 8, 8]",
       R"({"id": 1, "kind": "conv2d", "parents": [0], "shape": [2, 1, 4, 4, 3], )" + conv_fields +
           "}",
       OpKind::conv, conv(2)},
      {"conv2d_rank2_parent", "[8, 8]",
       R"({"id": 1, "kind": "conv2d", "parents": [0], "shape": [1], )" + conv_fields + "}",
       OpKind::conv, conv(1)},
      {"conv2d_parent_not_earlier", "[3, 8, 8]",
       R"({"id": 1, "kind": "conv2d", "parents": [7], "shape": [1], )" + conv_fields + "}",
       OpKind::conv, conv(1)},
      {"conv2d_fields_first", "[3, 8, 8]",
       R"({"padding": 1, "stride": 2, "kW": 5, "kH": 3, "outC": 4, "inC": 3, "id": 1,
           "parents": [0], "shape": [4, 4, 3], "kind": "conv2d"})",
       OpKind::conv, conv(0)},
      {"max_pool2d", "[1, 3, 8, 8]",
       R"({"id": 1, "kind": "max_pool2d", "parents": [0], "shape": [1, 3, 4, 3], "kH": 2, "kW": 3,
           "stride": 2})",
       OpKind::max_pool, pool(0)},
      {"max_pool2d_pad", "[1, 3, 8, 8]",
       R"({"id": 1, "kind": "max_pool2d_pad", "parents": [0], "shape": [1, 3, 5, 4], "kH": 2,
           "kW": 3, "stride": 2, "padding": 1})",
       OpKind::max_pool, pool(1)},
      {"avg_pool2d", "[3, 8, 8]",
       R"({"id": 1, "kind": "avg_pool2d", "parents": [0], "shape": [3, 4, 3], "kH": 2, "kW": 3,
           "stride": 2})",
       OpKind::avg_pool, pool(0)},
      {"avg_pool2d_pad", "[3, 8, 8]",
       R"({"id": 1, "kind": "avg_pool2d_pad", "parents": [0], "shape": [3, 5, 4], "kH": 2,
           "kW": 3, "stride": 2, "padding": 1})",
       OpKind::avg_pool, pool(1)},
      {"batch_norm2d_nchw_eval", "[1, 3, 8, 8]",
       R"({"id": 1, "kind": "batch_norm2d_nchw_eval", "parents": [0], "shape": [1, 3, 8, 8],
           "channels": 3})",
       OpKind::batch_norm_eval, ir::ChannelAxisParams{.channel_axis = 1, .channels = 3}},
      {"swap_first_two", "[2, 3]",
       R"({"id": 1, "kind": "swap_first_two", "parents": [0], "shape": [3, 2]})", OpKind::transpose,
       ir::TransposeParams{.axis1 = 0, .axis2 = 1}},
      {"transpose3d_last_two", "[4, 2, 3]",
       R"({"id": 1, "kind": "transpose3d_last_two", "parents": [0], "shape": [4, 3, 2]})",
       OpKind::transpose, ir::TransposeParams{.axis1 = 1, .axis2 = 2}},
      {"flatten_in_shape", "[2, 3]",
       R"({"id": 1, "kind": "flatten", "parents": [0], "shape": [6], "in_shape": [2, 3]})",
       OpKind::flatten, ir::FlattenParams{.in = shape({2, 3})}},
  };
}

void PrintTo(const LegacyCase& c, std::ostream* os) {
  *os << c.name;
}

class IrJsonLegacyKind : public ::testing::TestWithParam<LegacyCase> {};

// A legacy kind reads as its current equivalent, and is written in the current vocabulary.
TEST_P(IrJsonLegacyKind, ReadsAsTheCurrentKind) {
  const LegacyCase& c = GetParam();
  const std::string text =
      R"({"format": "torchlean.ir.v1", "input_id": 0, "output_id": 1, "nodes": [)"
      R"({"id": 0, "kind": "input", "parents": [], "shape": )" +
      c.input_shape + "},\n" + c.node + "]}";
  const auto g = parse_ir_json(text, "<memory>");
  ASSERT_TRUE(g.has_value()) << g.error().message;
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[1].kind, c.kind);
  EXPECT_EQ(g->nodes[1].params, c.params);
  EXPECT_EQ(g->output_ids, std::vector<ir::NodeId>{1});

  const std::string written = write_ir_json(*g);
  EXPECT_NE(written.find("\"kind\": \"" + std::string(ir::to_string(c.kind)) + "\""),
            std::string::npos)
      << written;
  EXPECT_NE(written.find("\"format\": \"torchlean.ir.v1\""), std::string::npos);
  EXPECT_NE(written.find("\"output_ids\": [1]"), std::string::npos);
  const auto back = parse_ir_json(written, "<memory>");
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, *g);

  // nnplan.ir.v1 is a superset: it reads the legacy kinds too.
  std::string nnplan = text;
  nnplan.replace(nnplan.find("torchlean.ir.v1"), 15, "nnplan.ir.v1");
  const auto superset = parse_ir_json(nnplan, "<memory>");
  ASSERT_TRUE(superset.has_value()) << superset.error().message;
  EXPECT_EQ(*superset, *g);
}

INSTANTIATE_TEST_SUITE_P(Table, IrJsonLegacyKind, ::testing::ValuesIn(legacy_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------------------------
// Examples: in the legacy vocabulary, read as current kinds; their current form is golden.

class IrJsonExample : public ::testing::TestWithParam<const char*> {};

TEST_P(IrJsonExample, ReadsChecksAndRewritesInTheCurrentVocabulary) {
  const auto path = kSourceDir / "examples" / (std::string(GetParam()) + ".json");
  const std::string text = read_text(path);
  ASSERT_FALSE(text.empty()) << path;
  const auto g = read_ir_file(path);
  ASSERT_TRUE(g.has_value()) << g.error().message;
  const auto checked = ir::check(*g);
  ASSERT_TRUE(checked.has_value()) << checked.error().message;
  // Every node carries its source name in the examples.
  for (const Node& n : g->nodes)
    EXPECT_FALSE(n.source_name.empty()) << n.id;
  const std::string current = write_ir_json(*g);
  expect_golden("graphs/" + std::string(GetParam()) + ".json", current);
  // The current form is canonical: it reads to the same graph and rewrites byte for byte.
  const auto again = parse_ir_json(current, "<memory>");
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_EQ(*again, *g);
  EXPECT_EQ(write_ir_json(*again), current);
}

INSTANTIATE_TEST_SUITE_P(Examples, IrJsonExample,
                         ::testing::Values("mlp", "cnn", "transformer_block"),
                         [](const auto& info) { return std::string(info.param); });

// ---------------------------------------------------------------------------------------------
// Top level: output_ids and the format marker.

TEST(IrJson, OutputIdsAndTheLegacyOutputId) {
  const std::string nodes =
      R"("nodes": [{"id": 0, "kind": "input", "parents": [], "shape": [2]},
                   {"id": 1, "kind": "relu", "parents": [0], "shape": [2]}])";
  const auto many = parse_ir_json(
      R"({"format": "torchlean.ir.v1", "input_id": 0, "output_ids": [1, 0, 1], )" + nodes + "}",
      "<memory>");
  ASSERT_TRUE(many.has_value()) << many.error().message;
  EXPECT_EQ(many->output_ids, (std::vector<ir::NodeId>{1, 0, 1}));
  EXPECT_NE(write_ir_json(*many).find("\"output_ids\": [1, 0, 1],"), std::string::npos);

  const auto legacy = parse_ir_json(
      R"({"format": "torchlean.ir.v1", "input_id": 0, "output_id": 1, )" + nodes + "}", "<memory>");
  ASSERT_TRUE(legacy.has_value()) << legacy.error().message;
  EXPECT_EQ(legacy->output_ids, std::vector<ir::NodeId>{1});
  EXPECT_NE(write_ir_json(*legacy).find("\"output_ids\": [1],"), std::string::npos);
  EXPECT_EQ(write_ir_json(*legacy).find("output_id\""), std::string::npos);
}

// An extension kind needs nnplan.ir.v1 wherever `format` stands in the document.
TEST(IrJson, ExtensionKindsNeedTheNnplanFormat) {
  const std::string nodes =
      R"("nodes": [{"id": 0, "kind": "input", "parents": [], "shape": [2]},
                   {"id": 1, "kind": "relu", "parents": [0], "shape": [2]},
                   {"id": 2, "kind": "gelu", "parents": [1], "shape": [2], "approximate": "tanh",
                    "name": "act"},
                   {"id": 3, "kind": "log_softmax", "parents": [2], "shape": [2], "axis": 0}])";
  const std::string expected =
      "<memory>: node 2 (gelu 'act'): field kind: gelu is an nnplan extension kind; it needs "
      "format 'nnplan.ir.v1', and this document's format is 'torchlean.ir.v1'";
  for (const std::string& text :
       {R"({"format": "torchlean.ir.v1", "input_id": 0, "output_ids": [3], )" + nodes + "}",
        R"({"input_id": 0, "output_ids": [3], )" + nodes + R"(, "format": "torchlean.ir.v1"})"}) {
    const auto g = parse_ir_json(text, "<memory>");
    ASSERT_FALSE(g.has_value()) << text;
    EXPECT_EQ(g.error().message, expected);
    EXPECT_EQ(g.error().position, 2u);
  }
  for (const std::string& text :
       {R"({"format": "nnplan.ir.v1", "input_id": 0, "output_ids": [3], )" + nodes + "}",
        R"({"input_id": 0, "output_ids": [3], )" + nodes + R"(, "format": "nnplan.ir.v1"})"}) {
    const auto g = parse_ir_json(text, "<memory>");
    ASSERT_TRUE(g.has_value()) << g.error().message;
    EXPECT_EQ(g->nodes[2].params,
              ir::OpParams(ir::GeluParams{.approximate = ir::GeluApproximation::tanh}));
  }
  // With the format unknown, the format's own problem is the one reported.
  const auto wrong = parse_ir_json(
      R"({"input_id": 0, "output_ids": [3], )" + nodes + R"(, "format": "onnx"})", "<memory>");
  ASSERT_FALSE(wrong.has_value());
  EXPECT_EQ(wrong.error().message,
            "<memory>: field format: expected 'torchlean.ir.v1' or 'nnplan.ir.v1', found 'onnx'");
  const auto missing =
      parse_ir_json(R"({"input_id": 0, "output_ids": [3], )" + nodes + "}", "<memory>");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "<memory>: field format: required field is missing");
}

// ---------------------------------------------------------------------------------------------
// Malformed documents.

struct BadDocument {
  const char* name;
  std::string text;
  const char* fragment;  // must appear in the message
  std::optional<std::size_t> position = std::nullopt;
};

constexpr std::string_view kInputNode =
    R"({"id": 0, "kind": "input", "parents": [], "shape": [2, 3]})";

// A document whose second node is `node`.
std::string with_node(std::string_view node) {
  return R"({"format": "torchlean.ir.v1", "input_id": 0, "output_id": 1, "nodes": [)" +
         std::string(kInputNode) + ",\n" + std::string(node) + "]}";
}

// The same in nnplan.ir.v1, for the extension kinds.
std::string with_nnplan_node(std::string_view node) {
  return R"({"format": "nnplan.ir.v1", "input_id": 0, "output_ids": [1], "nodes": [)" +
         std::string(kInputNode) + ",\n" + std::string(node) + "]}";
}

// A document with `fields` at the top level followed by a valid node list.
std::string with_root(std::string_view fields) {
  return "{" + std::string(fields) + R"(, "nodes": [)" + std::string(kInputNode) + "]}";
}

const std::string kValid =
    with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2, 3]})");

TEST(IrJson, DtypesOtherThanFloat32AreWrittenAndNeedTheNnplanFormat) {
  Graph g;
  g.input_id = 0;
  g.output_ids = {0, 1};
  g.nodes.push_back(
      Node{.id = 0, .kind = OpKind::input, .shape = shape({2}), .dtype = ir::DType::int64});
  g.nodes.push_back(Node{.id = 1,
                         .kind = OpKind::const_,
                         .shape = shape({3}),
                         .params = ir::ConstParams{shape({3})},
                         .dtype = ir::DType::boolean});
  const std::string text = write_ir_json(g);
  EXPECT_EQ(text,
            "{\n  \"format\": \"nnplan.ir.v1\",\n  \"input_id\": 0,\n  \"output_ids\": [0, 1],\n"
            "  \"nodes\": [\n"
            "    {\"id\": 0, \"kind\": \"input\", \"parents\": [], \"shape\": [2], \"dtype\": "
            "\"int64\"},\n"
            "    {\"id\": 1, \"kind\": \"const\", \"parents\": [], \"shape\": [3], "
            "\"value_shape\": [3], \"dtype\": \"bool\"}\n  ]\n}\n");
  const auto back = parse_ir_json(text, "<memory>");
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, g);
  // float32 is the default: written by no one, read from anyone.
  const auto plain = parse_ir_json(
      with_node(
          R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2, 3], "dtype": "float32"})"),
      "<memory>");
  ASSERT_TRUE(plain.has_value()) << plain.error().message;
  EXPECT_EQ(plain->nodes[1].dtype, ir::DType::float32);
  EXPECT_EQ(write_ir_json(*plain).find("dtype"), std::string::npos);

  const std::string nodes =
      R"("nodes": [{"id": 0, "kind": "input", "parents": [], "shape": [2], "dtype": "int64"}])";
  for (const std::string& doc :
       {R"({"format": "torchlean.ir.v1", "input_id": 0, "output_ids": [0], )" + nodes + "}",
        R"({"input_id": 0, "output_ids": [0], )" + nodes + R"(, "format": "torchlean.ir.v1"})"}) {
    const auto refused = parse_ir_json(doc, "<memory>");
    ASSERT_FALSE(refused.has_value()) << doc;
    EXPECT_EQ(refused.error().message,
              "<memory>: node 0 (input): field dtype: int64 values need format 'nnplan.ir.v1', "
              "and this document's format is 'torchlean.ir.v1'");
  }
  // Weights as values are nnplan's too: a conv with its weight as a parent needs nnplan.ir.v1,
  // and the writer says so.
  const std::string conv_fields =
      R"("spatial_rank": 1, "kernel": [3], "stride": [1], "padding": [1], "dilation": [1],
         "padding_after": [1], "groups": 1, "channel_axis": 1, "in_channels": 3,
         "out_channels": 3})";
  const std::string two_inputs =
      R"("nodes": [{"id": 0, "kind": "input", "parents": [], "shape": [1, 3, 4]},
                   {"id": 1, "kind": "input", "parents": [], "shape": [3, 3, 3]},
                   {"id": 2, "kind": "conv", "parents": [0, 1], "shape": [1, 3, 4], )" +
      conv_fields + "]}";
  const auto old_format = parse_ir_json(
      R"({"format": "torchlean.ir.v1", "input_id": 0, "output_ids": [2], )" + two_inputs,
      "<memory>");
  ASSERT_FALSE(old_format.has_value());
  EXPECT_EQ(old_format.error().message,
            "<memory>: node 2 (conv): field parents: conv with its weights as parents (weights as "
            "values) needs format 'nnplan.ir.v1', and this document's format is "
            "'torchlean.ir.v1'");
  const auto new_format = parse_ir_json(
      R"({"format": "nnplan.ir.v1", "input_id": 0, "output_ids": [2], )" + two_inputs, "<memory>");
  ASSERT_TRUE(new_format.has_value()) << new_format.error().message;
  EXPECT_EQ(new_format->nodes[2].parents.size(), 2U);
  EXPECT_TRUE(write_ir_json(*new_format).starts_with("{\n  \"format\": \"nnplan.ir.v1\""));

  const auto unknown = parse_ir_json(
      with_nnplan_node(
          R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2, 3], "dtype": "f16"})"),
      "<memory>");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(
      unknown.error().message,
      "<memory>: node 1 (relu): field dtype: expected 'float32', 'int64' or 'bool', found 'f16'");
  const auto number = parse_ir_json(
      with_nnplan_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2, 3], "dtype": 3})"),
      "<memory>");
  ASSERT_FALSE(number.has_value());
  EXPECT_EQ(number.error().message,
            "<memory>: node 1 (relu): field dtype: expected 'float32', 'int64' or 'bool', found 3");
}

std::vector<BadDocument> bad_documents() {
  return {
      {"empty", "", "<memory>: empty document; expected a JSON object"},
      {"whitespace", " \n\t ", "empty document"},
      {"open_brace", "{", "<memory>: invalid JSON at line 1, column 2"},
      {"truncated", kValid.substr(0, kValid.size() / 2),
       "invalid JSON at line 1, column 96: syntax error while parsing value - invalid string: "
       "missing closing quote"},
      {"top_level_array", "[]",
       "<memory>: expected a JSON object with fields format, input_id, output_ids and nodes, found "
       "an array"},
      {"top_level_number", "42", "found 42"},
      {"trailing_garbage", kValid + " {}", "invalid JSON"},
      {"comment", "// graph\n" + kValid, "invalid JSON at line 1, column 1"},
      {"nan", with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [NaN]})"),
       "invalid JSON at line 2"},
      {"infinity", with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [Infinity]})"),
       "invalid JSON at line 2"},
      {"number_overflow",
       with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [1e400]})"),
       "invalid JSON at line 2, column 57: number overflow parsing '1e400'"},
      {"invalid_utf8", with_node("{\"id\": 1, \"kind\": \"relu\", \"name\": \"\xff\"}"),
       "invalid JSON at line 2"},
      {"wrong_format", with_root(R"("format": "torchlean.ir.v2", "input_id": 0, "output_id": 0)"),
       "<memory>: field format: expected 'torchlean.ir.v1' or 'nnplan.ir.v1', found "
       "'torchlean.ir.v2'"},
      {"format_not_string", with_root(R"("format": 1, "input_id": 0, "output_id": 0)"),
       "field format: expected a string, found 1"},
      {"missing_format", with_root(R"("input_id": 0, "output_id": 0)"),
       "<memory>: field format: required field is missing"},
      {"missing_input_id", with_root(R"("format": "torchlean.ir.v1", "output_id": 0)"),
       "field input_id: required field is missing"},
      {"output_id_string",
       with_root(R"("format": "torchlean.ir.v1", "input_id": 0, "output_id": "1")"),
       "field output_id: expected a non-negative integer, found \"1\""},
      {"input_id_too_big",
       with_root(R"("format": "torchlean.ir.v1", "input_id": 4294967296, "output_id": 0)"),
       "field input_id: 4294967296 is out of range; the maximum is 4294967295"},
      {"repeated_root_key",
       with_root(R"("format": "torchlean.ir.v1", "format": "torchlean.ir.v1", "input_id": 0)"),
       "field format: repeated field"},
      {"unknown_root_field",
       with_root(R"("format": "torchlean.ir.v1", "input_id": 0, "output_id": 0, "version": 1)"),
       "field version: unknown field; valid: format, input_id, output_ids (or the legacy "
       "output_id), "
       "nodes"},
      {"missing_nodes", R"({"format": "torchlean.ir.v1", "input_id": 0, "output_id": 0})",
       "field nodes: required field is missing"},
      {"nodes_object",
       R"({"format": "torchlean.ir.v1", "input_id": 0, "output_id": 0, "nodes": {}})",
       "field nodes: expected an array, found an object"},
      {"nodes_null",
       R"({"format": "torchlean.ir.v1", "input_id": 0, "output_id": 0, "nodes": null})",
       "field nodes: expected an array, found null"},
      {"node_not_object", with_node("1"), "<memory>: node 1: expected an object, found 1"},
      {"node_array", with_node("[]"), "node 1: expected an object, found an array"},
      {"missing_id", with_node(R"({"kind": "relu", "parents": [0], "shape": [2, 3]})"),
       "<memory>: node 1 (relu): field id: required field is missing", 1},
      {"id_string", with_node(R"({"id": "1", "kind": "relu", "parents": [0], "shape": [2, 3]})"),
       "node 1 (relu): field id: expected a non-negative integer, found \"1\"", 1},
      {"id_negative", with_node(R"({"id": -1, "kind": "relu", "parents": [0], "shape": [2, 3]})"),
       "node 1 (relu): field id: expected a non-negative integer, found -1"},
      {"id_true", with_node(R"({"id": true, "kind": "relu", "parents": [0], "shape": [2, 3]})"),
       "field id: expected a non-negative integer, found true"},
      {"missing_kind", with_node(R"({"id": 1, "parents": [0], "shape": [2, 3]})"),
       "node 1: field kind: required field is missing"},
      {"unknown_kind", with_node(R"({"id": 1, "kind": "swish", "parents": [0], "shape": [2, 3]})"),
       "node 1: field kind: unknown op kind 'swish'; valid: input, const, detach"},
      {"unknown_kind_lists_legacy",
       with_node(R"({"id": 1, "kind": "conv3d", "parents": [0], "shape": [2, 3]})"),
       "scaled_dot_product_attention, leaky_relu, elu, softsign, floor, ceil, round, sign, tan, "
       "asin, "
       "acos, atan, sinh, cosh, asinh, acosh, atanh, reduce_max, reduce_min, reduce_prod, argmax, "
       "argmin, equal, less, less_or_equal, greater, greater_or_equal, and, or, xor, not, where, "
       "cast, erf, pow, gather_elements, top_k, cum_sum, scatter_elements, scatter_nd, gather_nd, "
       "mod, fmod, rnn, gru, lstm, grid_sample, max_unpool, resize, roi_align, max_pool_indices, "
       "hard_sigmoid, hard_swish, silu; "
       "legacy: conv2d, max_pool2d, "
       "max_pool2d_pad, avg_pool2d, "
       "avg_pool2d_pad, batch_norm2d_nchw_eval, swap_first_two, transpose3d_last_two"},
      {"kind_number", with_node(R"({"id": 1, "kind": 3, "parents": [0], "shape": [2, 3]})"),
       "node 1: field kind: expected a string, found 3"},
      {"parents_not_array",
       with_node(R"({"id": 1, "kind": "relu", "parents": 0, "shape": [2, 3]})"),
       "node 1 (relu): field parents: expected an array, found 0"},
      {"parent_string",
       with_node(R"({"id": 1, "kind": "relu", "parents": ["0"], "shape": [2, 3]})"),
       "node 1 (relu): field parents[0]: expected a non-negative integer, found \"0\""},
      {"missing_parents", with_node(R"({"id": 1, "kind": "relu", "shape": [2, 3]})"),
       "node 1 (relu): field parents: required field is missing"},
      {"missing_shape", with_node(R"({"id": 1, "kind": "relu", "parents": [0]})"),
       "node 1 (relu): field shape: required field is missing"},
      {"shape_object", with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": {}})"),
       "node 1 (relu): field shape: expected an array, found an object"},
      {"fractional_dim",
       with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2.5, 3]})"),
       "node 1 (relu): field shape[0]: expected a non-negative integer, found 2.5"},
      {"float_dim", with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2, 3.0]})"),
       "field shape[1]: expected a non-negative integer, found 3.0"},
      {"exponent_dim", with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2e0]})"),
       "field shape[0]: expected a non-negative integer, found 2e0"},
      {"negative_dim", with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [-2, 3]})"),
       "field shape[0]: expected a non-negative integer, found -2"},
      {"huge_dim",
       with_node(
           R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2, 18446744073709551616]})"),
       "node 1 (relu): field shape[1]: 18446744073709551616 is out of range; the maximum is "
       "18446744073709551615"},
      {"nested_dim", with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [[2], 3]})"),
       "field shape[0]: expected a non-negative integer, found an array"},
      {"conv_missing_kh",
       with_node(R"({"id": 1, "kind": "conv2d", "parents": [0], "shape": [2, 3], "inC": 1,
                     "outC": 1, "kW": 1, "stride": 1, "padding": 0})"),
       "node 1 (conv2d): field kH: required field is missing; conv2d takes inC, outC, kH, kW, "
       "stride, padding"},
      {"conv_negative_kh",
       with_node(R"({"id": 1, "kind": "conv2d", "parents": [0], "shape": [2, 3], "inC": 1,
                     "outC": 1, "kH": -1, "kW": 1, "stride": 1, "padding": 0})"),
       "<memory>: node 1 (conv2d): field kH: expected a non-negative integer, found -1"},
      {"conv_kh_too_big",
       with_node(R"({"id": 1, "kind": "conv2d", "parents": [0], "shape": [2, 3], "inC": 1,
                     "outC": 1, "kH": 4294967296, "kW": 1, "stride": 1, "padding": 0})"),
       "node 1 (conv2d): field kH: 4294967296 is out of range; the maximum is 4294967295"},
      {"bad_field_before_kind",
       with_node(R"({"stride": "2", "id": 1, "parents": [0], "shape": [2, 3], "kH": 2, "kW": 2,
                     "kind": "max_pool2d"})"),
       "node 1 (max_pool2d): field stride: expected a non-negative integer, found \"2\""},
      {"field_of_other_kind",
       with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2, 3], "axis": 1})"),
       "node 1 (relu): field axis: not a field of relu; relu takes no op fields"},
      {"padding_on_unpadded_pool",
       with_node(R"({"id": 1, "kind": "max_pool2d", "parents": [0], "shape": [2, 3], "kH": 2,
                     "kW": 2, "stride": 2, "padding": 0})"),
       "node 1 (max_pool2d): field padding: not a field of max_pool2d; max_pool2d takes kH, kW, "
       "stride"},
      {"unknown_field",
       with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2, 3], "foo": 1})"),
       "node 1 (relu): field foo: unknown field; relu takes id, kind, parents, shape, name, dtype"},
      {"unknown_field_nested_value",
       with_node(R"({"id": 1, "foo": {"a": [1, {"b": [[]]}]}, "kind": "softmax",
                     "parents": [0], "shape": [2, 3], "axis": 0})"),
       "node 1 (softmax): field foo: unknown field; softmax takes id, kind, parents, shape, axis, "
       "name"},
      {"unknown_field_unknown_kind",
       with_node(R"({"id": 1, "foo": 1, "parents": [0], "shape": [2, 3]})"),
       "node 1: field foo: unknown field; valid: id, kind, parents, shape, name, dtype and the op "
       "fields"},
      {"repeated_node_key",
       with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2, 3], "shape": [2, 3]})"),
       "node 1 (relu): field shape: repeated field"},
      {"name_number",
       with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2, 3], "name": 5})"),
       "node 1 (relu): field name: expected a non-empty string, found 5"},
      {"name_empty",
       with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2, 3], "name": ""})"),
       "field name: expected a non-empty string, found \"\""},
      {"named_node",
       with_node(R"({"id": 1, "kind": "relu", "name": "act", "parents": [0], "shape": [-1]})"),
       "node 1 (relu 'act'): field shape[0]"},
      {"id_differs_from_index",
       with_node(R"({"id": 7, "kind": "relu", "parents": [0], "shape": [2, 3], "bar": 0})"),
       "node 1 (id 7, relu): field bar: unknown field"},
      {"perm_negative",
       with_node(
           R"({"id": 1, "kind": "permute", "parents": [0], "shape": [3, 2], "perm": [1, -1]})"),
       "node 1 (permute): field perm[1]: expected a non-negative integer, found -1"},
      {"perm_not_array",
       with_node(R"({"id": 1, "kind": "permute", "parents": [0], "shape": [3, 2], "perm": 1})"),
       "node 1 (permute): field perm: expected an array, found 1"},
      {"seed_too_big", with_node(R"({"id": 1, "kind": "rand_uniform", "parents": [], "shape": [2],
                     "seed": 18446744073709551616})"),
       "node 1 (rand_uniform): field seed: 18446744073709551616 is out of range"},
      {"seed_fractional",
       with_node(R"({"id": 1, "kind": "bernoulli_mask", "parents": [0], "shape": [2],
                     "seed": 0.5})"),
       "node 1 (bernoulli_mask): field seed: expected a non-negative integer, found 0.5"},
      {"broadcast_missing_to",
       with_node(R"({"id": 1, "kind": "broadcast_to", "parents": [0], "shape": [2, 3],
                     "from_shape": [2, 3]})"),
       "node 1 (broadcast_to): field to_shape: required field is missing; broadcast_to takes "
       "from_shape, to_shape"},
      {"reshape_out_not_array",
       with_node(R"({"id": 1, "kind": "reshape", "parents": [0], "shape": [6],
                     "in_shape": [2, 3], "out_shape": "6"})"),
       "node 1 (reshape): field out_shape: expected an array, found \"6\""},
      {"flatten_with_out_shape",
       with_node(R"({"id": 1, "kind": "flatten", "parents": [0], "shape": [6],
                     "in_shape": [2, 3], "out_shape": [6]})"),
       "node 1 (flatten): field out_shape: not a field of flatten; flatten takes in_shape"},
      {"const_value_shape_null",
       with_node(R"({"id": 1, "kind": "const", "parents": [], "shape": [2],
                     "value_shape": null})"),
       "node 1 (const): field value_shape: expected an array, found null"},
      {"axis_object", with_node(R"({"id": 1, "kind": "concat", "parents": [0, 0], "shape": [4, 3],
                     "axis": {"value": 0}})"),
       "node 1 (concat): field axis: expected a non-negative integer, found an object"},
      {"channels_missing",
       with_node(R"({"id": 1, "kind": "batch_norm2d_nchw_eval", "parents": [0], "shape": [2, 3]})"),
       "node 1 (batch_norm2d_nchw_eval): field channels: required field is missing"},
      {"long_string_is_cut",
       with_node(R"({"id": 1, "kind": ")" + std::string(5000, 'x') + R"(", "parents": [0]})"),
       "unknown op kind 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'"},

      // Top level: output_ids and the legacy output_id.
      {"both_output_fields",
       with_root(
           R"("format": "torchlean.ir.v1", "input_id": 0, "output_ids": [0], "output_id": 0)"),
       "<memory>: fields output_ids and output_id: both are given; a graph gives one of them "
       "(output_id is the legacy form of a single output)"},
      {"both_output_fields_other_order",
       with_root(
           R"("format": "torchlean.ir.v1", "output_id": 0, "input_id": 0, "output_ids": [0])"),
       "<memory>: fields output_ids and output_id: both are given"},
      {"no_output_field", with_root(R"("format": "torchlean.ir.v1", "input_id": 0)"),
       "<memory>: field output_ids: required field is missing (or the legacy output_id, a single "
       "output)"},
      {"output_ids_empty",
       with_root(R"("format": "torchlean.ir.v1", "input_id": 0, "output_ids": [])"),
       "<memory>: field output_ids: empty array; a graph has at least one output"},
      {"output_ids_number",
       with_root(R"("format": "torchlean.ir.v1", "input_id": 0, "output_ids": 1)"),
       "<memory>: field output_ids: expected an array, found 1"},
      {"output_ids_object",
       with_root(R"("format": "torchlean.ir.v1", "input_id": 0, "output_ids": {"0": 1})"),
       "<memory>: field output_ids: expected an array, found an object"},
      {"output_ids_negative",
       with_root(R"("format": "torchlean.ir.v1", "input_id": 0, "output_ids": [0, -1])"),
       "<memory>: field output_ids[1]: expected a non-negative integer, found -1"},
      {"output_ids_too_big",
       with_root(R"("format": "torchlean.ir.v1", "input_id": 0, "output_ids": [4294967296])"),
       "<memory>: field output_ids[0]: 4294967296 is out of range; the maximum is 4294967295"},
      {"output_ids_nested",
       with_root(R"("format": "torchlean.ir.v1", "input_id": 0, "output_ids": [[0]])"),
       "<memory>: field output_ids[0]: expected a non-negative integer, found an array"},
      {"output_ids_repeated",
       with_root(
           R"("format": "torchlean.ir.v1", "input_id": 0, "output_ids": [0], "output_ids": [0])"),
       "<memory>: field output_ids: repeated field"},
      {"output_id_array",
       with_root(R"("format": "torchlean.ir.v1", "input_id": 0, "output_id": [0])"),
       "<memory>: field output_id: expected a non-negative integer, found an array"},
      // Legacy kinds keep their own field lists and name their kind as written.
      {"conv2d_unknown_field",
       with_node(R"({"id": 1, "kind": "conv2d", "parents": [0], "shape": [2, 3], "inC": 1,
                     "outC": 1, "kH": 1, "kW": 1, "stride": 1, "padding": 0, "bias": true})"),
       "node 1 (conv2d): field bias: unknown field; conv2d takes id, kind, parents, shape, inC, "
       "outC, kH, kW, stride, padding, name"},
      {"conv2d_current_field",
       with_node(R"({"id": 1, "kind": "conv2d", "parents": [0], "shape": [2, 3], "inC": 1,
                     "outC": 1, "kH": 1, "kW": 1, "stride": 1, "padding": 0, "groups": 1})"),
       "node 1 (conv2d): field groups: not a field of conv2d; conv2d takes inC, outC, kH, kW, "
       "stride, padding"},
      {"conv2d_stride_array",
       with_node(R"({"id": 1, "kind": "conv2d", "parents": [0], "shape": [2, 3], "inC": 1,
                     "outC": 1, "kH": 1, "kW": 1, "stride": [1, 1], "padding": 0})"),
       "node 1 (conv2d): field stride: expected a non-negative integer, found an array"},
      {"conv2d_stride_array_before_kind",
       with_node(R"({"id": 1, "stride": [1, 1], "kind": "conv2d", "parents": [0], "shape": [2, 3],
                     "inC": 1, "outC": 1, "kH": 1, "kW": 1, "padding": 0})"),
       "node 1 (conv2d): field stride: expected a non-negative integer, found an array"},
      {"conv2d_padding_negative_before_kind",
       with_node(R"({"id": 1, "padding": -1, "kind": "conv2d", "parents": [0], "shape": [2, 3],
                     "inC": 1, "outC": 1, "kH": 1, "kW": 1, "stride": 1})"),
       "node 1 (conv2d): field padding: expected a non-negative integer, found -1"},
      {"conv_legacy_field",
       with_node(R"({"id": 1, "kind": "conv", "parents": [0], "shape": [2, 3], "kH": 1})"),
       "node 1 (conv): field kH: not a field of conv; conv takes spatial_rank, kernel, stride, "
       "padding, dilation, padding_after, groups, channel_axis, in_channels, out_channels"},
      {"max_pool_stride_integer",
       with_node(R"({"id": 1, "kind": "max_pool", "parents": [0], "shape": [2, 3],
                     "spatial_rank": 1, "kernel": [1], "stride": 1, "padding": [0]})"),
       "node 1 (max_pool): field stride: expected an array, found 1"},
      {"max_pool_stride_integer_before_kind",
       with_node(R"({"id": 1, "stride": 1, "kind": "max_pool", "parents": [0], "shape": [2, 3],
                     "spatial_rank": 1, "kernel": [1], "padding": [0]})"),
       "node 1 (max_pool): field stride: expected an array, found 1"},
      {"max_pool_stride_entry_before_kind",
       with_node(R"({"id": 1, "stride": [1, "2"], "kind": "max_pool", "parents": [0],
                     "shape": [2, 3], "spatial_rank": 1, "kernel": [1], "padding": [0]})"),
       "node 1 (max_pool): field stride[1]: expected a non-negative integer, found \"2\""},
      {"max_pool_stride_object_before_kind",
       with_node(R"({"id": 1, "stride": {}, "kind": "max_pool", "parents": [0], "shape": [2, 3],
                     "spatial_rank": 1, "kernel": [1], "padding": [0]})"),
       "node 1 (max_pool): field stride: expected an array, found an object"},
      {"undecided_stride_comes_first",
       with_node(R"({"id": 1, "stride": 1, "foo": 2, "kind": "max_pool", "parents": [0],
                     "shape": [2, 3]})"),
       "node 1 (max_pool): field stride: expected an array, found 1"},
      {"earlier_problem_beats_undecided_stride",
       with_node(R"({"id": 1, "foo": 2, "stride": 1, "kind": "max_pool", "parents": [0],
                     "shape": [2, 3]})"),
       "node 1 (max_pool): field foo: unknown field; max_pool takes id, kind, parents, shape, "
       "spatial_rank, kernel, stride, padding, name"},
      {"undecided_stride_with_unknown_kind",
       with_node(R"({"id": 1, "stride": [1], "kind": "pool", "parents": [0], "shape": [2, 3]})"),
       "node 1: field kind: unknown op kind 'pool'"},
      {"flatten_both_shapes",
       with_node(R"({"id": 1, "kind": "flatten", "parents": [0], "shape": [6],
                     "value_shape": [2, 3], "in_shape": [2, 3]})"),
       "node 1 (flatten): field in_shape: not a field of flatten; flatten takes value_shape"},
      {"flatten_no_shape",
       with_node(R"({"id": 1, "kind": "flatten", "parents": [0], "shape": [6]})"),
       "node 1 (flatten): field value_shape: required field is missing; flatten takes "
       "value_shape"},
      {"batch_norm_eval_missing_axis",
       with_node(R"({"id": 1, "kind": "batch_norm_eval", "parents": [0], "shape": [2, 3],
                     "channels": 3})"),
       "node 1 (batch_norm_eval): field channel_axis: required field is missing; batch_norm_eval "
       "takes channel_axis, channels"},
      {"swap_first_two_with_axis",
       with_node(R"({"id": 1, "kind": "swap_first_two", "parents": [0], "shape": [3, 2],
                     "axis1": 0})"),
       "node 1 (swap_first_two): field axis1: not a field of swap_first_two; swap_first_two takes "
       "no op fields"},
      // Lists of 32-bit integers.
      {"kernel_negative", with_node(R"({"id": 1, "kind": "conv", "parents": [0], "shape": [2, 3],
                     "kernel": [3, -1]})"),
       "<memory>: node 1 (conv): field kernel[1]: expected a non-negative integer, found -1"},
      {"kernel_too_big", with_node(R"({"id": 1, "kind": "conv", "parents": [0], "shape": [2, 3],
                     "kernel": [4294967296]})"),
       "node 1 (conv): field kernel[0]: 4294967296 is out of range; the maximum is 4294967295"},
      {"dilation_not_array",
       with_node(R"({"id": 1, "kind": "conv", "parents": [0], "shape": [2, 3], "dilation": 1})"),
       "node 1 (conv): field dilation: expected an array, found 1"},
      {"padding_after_fraction",
       with_node(R"({"id": 1, "kind": "conv", "parents": [0], "shape": [2, 3],
                     "padding_after": [0.5]})"),
       "node 1 (conv): field padding_after[0]: expected a non-negative integer, found 0.5"},
      {"output_padding_on_conv",
       with_node(R"({"id": 1, "kind": "conv", "parents": [0], "shape": [2, 3],
                     "output_padding": [0]})"),
       "node 1 (conv): field output_padding: not a field of conv; conv takes spatial_rank"},
      // 64-bit integers, booleans, strings of a closed set.
      {"slice_step_negative",
       with_nnplan_node(R"({"id": 1, "kind": "slice", "parents": [0], "shape": [2, 3],
                            "axis": 0, "start": 0, "end": 1, "step": -1})"),
       "node 1 (slice): field step: expected a non-negative integer, found -1"},
      {"slice_end_too_big",
       with_nnplan_node(R"({"id": 1, "kind": "slice", "parents": [0], "shape": [2, 3],
                            "end": 18446744073709551616})"),
       "node 1 (slice): field end: 18446744073709551616 is out of range; the maximum is "
       "18446744073709551615"},
      {"slice_start_fraction",
       with_nnplan_node(R"({"id": 1, "kind": "slice", "parents": [0], "shape": [2, 3],
                            "start": 1.5})"),
       "node 1 (slice): field start: expected a non-negative integer, found 1.5"},
      {"causal_number",
       with_nnplan_node(R"({"id": 1, "kind": "scaled_dot_product_attention", "parents": [0, 0, 0],
                            "shape": [2, 3], "causal": 1, "scale": null})"),
       "node 1 (scaled_dot_product_attention): field causal: expected true or false, found 1"},
      {"causal_string",
       with_nnplan_node(R"({"id": 1, "kind": "scaled_dot_product_attention", "parents": [0, 0, 0],
                            "shape": [2, 3], "causal": "true", "scale": null})"),
       "field causal: expected true or false, found \"true\""},
      {"causal_null",
       with_nnplan_node(R"({"id": 1, "kind": "scaled_dot_product_attention", "parents": [0, 0, 0],
                            "shape": [2, 3], "causal": null, "scale": null})"),
       "field causal: expected true or false, found null"},
      {"approximate_unknown",
       with_nnplan_node(R"({"id": 1, "kind": "gelu", "parents": [0], "shape": [2, 3],
                            "approximate": "erf"})"),
       "node 1 (gelu): field approximate: expected 'none' or 'tanh', found 'erf'"},
      {"approximate_number",
       with_nnplan_node(R"({"id": 1, "kind": "gelu", "parents": [0], "shape": [2, 3],
                            "approximate": 0})"),
       "node 1 (gelu): field approximate: expected 'none' or 'tanh', found 0"},
      {"approximate_null",
       with_nnplan_node(R"({"id": 1, "kind": "gelu", "parents": [0], "shape": [2, 3],
                            "approximate": null})"),
       "node 1 (gelu): field approximate: expected 'none' or 'tanh', found null"},
      {"direction_unknown",
       with_nnplan_node(R"({"id": 1, "kind": "gru", "parents": [0], "shape": [2, 3],
                            "hidden_size": 3, "direction": "backward",
                            "linear_before_reset": false})"),
       "node 1 (gru): field direction: expected 'forward', 'reverse' or 'bidirectional', found "
       "'backward'"},
      // resize: its enum fields and its list of numbers.
      {"coordinate_transformation_unknown",
       with_nnplan_node(R"({"id": 1, "kind": "resize", "parents": [0], "shape": [4, 6],
                            "mode": "linear", "coordinate_transformation_mode": "corners",
                            "nearest_mode": "floor", "cubic_coeff_a": -0.75,
                            "exclude_outside": false, "scales": [2, 2]})"),
       "node 1 (resize): field coordinate_transformation_mode: expected 'half_pixel', "
       "'pytorch_half_pixel', 'align_corners', 'asymmetric', 'tf_half_pixel_for_nn' or "
       "'output_half_pixel', found 'corners'"},
      {"resize_mode_unknown",
       with_nnplan_node(R"({"id": 1, "kind": "resize", "parents": [0], "shape": [4, 6],
                            "mode": "bilinear", "coordinate_transformation_mode": "half_pixel",
                            "nearest_mode": "floor", "cubic_coeff_a": -0.75,
                            "exclude_outside": false, "scales": [2, 2]})"),
       "node 1 (resize): field mode: expected 'nearest', 'linear', 'cubic', 'avg' or 'max', found "
       "'bilinear'"},
      {"resize_scale_string",
       with_nnplan_node(R"({"id": 1, "kind": "resize", "parents": [0], "shape": [4, 6],
                            "mode": "linear", "coordinate_transformation_mode": "half_pixel",
                            "nearest_mode": "floor", "cubic_coeff_a": -0.75,
                            "exclude_outside": false, "scales": [2, "2"]})"),
       "node 1 (resize): field scales[1]: expected a number, found \"2\""},
      {"resize_scale_array",
       with_nnplan_node(R"({"id": 1, "kind": "resize", "parents": [0], "shape": [4, 6],
                            "mode": "linear", "coordinate_transformation_mode": "half_pixel",
                            "nearest_mode": "floor", "cubic_coeff_a": -0.75,
                            "exclude_outside": false, "scales": [[2], 2]})"),
       "node 1 (resize): field scales[0]: expected a number, found an array"},
      {"resize_scales_number",
       with_nnplan_node(R"({"id": 1, "kind": "resize", "parents": [0], "shape": [4, 6],
                            "mode": "linear", "coordinate_transformation_mode": "half_pixel",
                            "nearest_mode": "floor", "cubic_coeff_a": -0.75,
                            "exclude_outside": false, "scales": 2})"),
       "node 1 (resize): field scales: expected an array, found 2"},
      // Floats and nullable floats.
      {"clamp_min_string",
       with_nnplan_node(R"({"id": 1, "kind": "clamp", "parents": [0], "shape": [2, 3],
                            "min": "x", "max": null})"),
       "<memory>: node 1 (clamp): field min: expected a number or null, found \"x\""},
      {"clamp_max_bool",
       with_nnplan_node(R"({"id": 1, "kind": "clamp", "parents": [0], "shape": [2, 3],
                            "min": null, "max": true})"),
       "node 1 (clamp): field max: expected a number or null, found true"},
      {"clamp_max_array",
       with_nnplan_node(R"({"id": 1, "kind": "clamp", "parents": [0], "shape": [2, 3],
                            "min": null, "max": [1]})"),
       "node 1 (clamp): field max: expected a number or null, found an array"},
      {"clamp_missing_max",
       with_nnplan_node(R"({"id": 1, "kind": "clamp", "parents": [0], "shape": [2, 3],
                            "min": 0})"),
       "node 1 (clamp): field max: required field is missing; clamp takes min, max"},
      {"clamp_min_too_big",
       with_nnplan_node(R"({"id": 1, "kind": "clamp", "parents": [0], "shape": [2, 3],
                            "min": -1e39, "max": null})"),
       "node 1 (clamp): field min: -1e39 is out of range for a 32-bit float"},
      {"scale_factor_null",
       with_nnplan_node(R"({"id": 1, "kind": "scale", "parents": [0], "shape": [2, 3],
                            "factor": null})"),
       "node 1 (scale): field factor: expected a number, found null"},
      {"scale_factor_string",
       with_nnplan_node(R"({"id": 1, "kind": "scale", "parents": [0], "shape": [2, 3],
                            "factor": "2"})"),
       "node 1 (scale): field factor: expected a number, found \"2\""},
      {"scale_factor_object",
       with_nnplan_node(R"({"id": 1, "kind": "scale", "parents": [0], "shape": [2, 3],
                            "factor": {}})"),
       "node 1 (scale): field factor: expected a number, found an object"},
      {"scale_factor_tiny",
       with_nnplan_node(R"({"id": 1, "kind": "scale", "parents": [0], "shape": [2, 3],
                            "factor": 1e-60})"),
       "node 1 (scale): field factor: 1e-60 is out of range for a 32-bit float"},
      {"attention_scale_string",
       with_nnplan_node(R"({"id": 1, "kind": "scaled_dot_product_attention", "parents": [0, 0, 0],
                            "shape": [2, 3], "causal": false, "scale": "auto"})"),
       "node 1 (scaled_dot_product_attention): field scale: expected a number or null, found "
       "\"auto\""},
      // hard_masked_softmax's mask.
      {"mask_array",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2, 3],
                     "mask": [true]})"),
       "node 1 (hard_masked_softmax): field mask: expected an object {\"shape\": [...], "
       "\"allowed\": [...]}, found an array"},
      {"mask_null",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2, 3],
                     "mask": null})"),
       "node 1 (hard_masked_softmax): field mask: expected an object {\"shape\": [...], "
       "\"allowed\": [...]}, found null"},
      {"mask_missing_allowed",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2, 3],
                     "mask": {"shape": [3]}})"),
       "node 1 (hard_masked_softmax): field mask.allowed: required field is missing; mask takes "
       "shape, allowed"},
      {"mask_missing_shape",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2, 3],
                     "mask": {"allowed": [true]}})"),
       "node 1 (hard_masked_softmax): field mask.shape: required field is missing"},
      {"mask_unknown_key",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2, 3],
                     "mask": {"shape": [1], "allowed": [true], "values": {"a": [1]}}})"),
       "node 1 (hard_masked_softmax): field mask.values: unknown field; mask takes shape, allowed"},
      {"mask_repeated_key",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2, 3],
                     "mask": {"shape": [1], "shape": [1], "allowed": [true]}})"),
       "node 1 (hard_masked_softmax): field mask.shape: repeated field"},
      {"mask_count_short",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2, 2],
                     "mask": {"allowed": [true, false, true], "shape": [2, 2]}})"),
       "node 1 (hard_masked_softmax): field mask.allowed: 3 entries, expected 4 (one per element "
       "of mask.shape [2,2])"},
      {"mask_count_long",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2],
                     "mask": {"shape": [], "allowed": [true, false]}})"),
       "field mask.allowed: 2 entries, expected 1 (one per element of mask.shape [])"},
      {"mask_allowed_number",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2],
                     "mask": {"shape": [2], "allowed": [true, 1]}})"),
       "node 1 (hard_masked_softmax): field mask.allowed[1]: expected true or false, found 1"},
      {"mask_allowed_nested",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2],
                     "mask": {"shape": [2], "allowed": [[true], false]}})"),
       "field mask.allowed[0]: expected true or false, found an array"},
      {"mask_allowed_object",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2],
                     "mask": {"shape": [2], "allowed": {}}})"),
       "field mask.allowed: expected an array, found an object"},
      {"mask_shape_negative",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2],
                     "mask": {"shape": [-2], "allowed": []}})"),
       "node 1 (hard_masked_softmax): field mask.shape[0]: expected a non-negative integer, found "
       "-2"},
      {"mask_shape_number",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2],
                     "mask": {"shape": 2, "allowed": [true, true]}})"),
       "field mask.shape: expected an array, found 2"},
      {"mask_shape_dim_past_limit",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2],
                     "mask": {"shape": [281474976710657], "allowed": []}})"),
       "field mask.shape[0]: 281474976710657 exceeds the dimension limit of 281474976710656 "
       "(2^48)"},
      {"mask_shape_too_many_elements",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2],
                     "mask": {"shape": [16777216, 16777216, 2], "allowed": []}})"),
       "field mask.shape: [16777216,16777216,2] has 562949953421312 elements; the limit is "
       "281474976710656 (2^48) per tensor"},
      {"mask_shape_product_overflows",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2],
                     "mask": {"shape": [4294967296, 4294967296, 4294967296], "allowed": []}})"),
       "has more than 2^64 elements"},
      {"mask_on_softmax",
       with_node(R"({"id": 1, "kind": "softmax", "parents": [0], "shape": [2], "axis": 0,
                     "mask": {"shape": [2], "allowed": [true, true]}})"),
       "node 1 (softmax): field mask: not a field of softmax; softmax takes axis"},
      {"mask_problem_before_later_field",
       with_node(R"({"id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2],
                     "mask": {"shape": [2], "allowed": [1, 1]}, "foo": 1})"),
       "field mask.allowed[0]: expected true or false, found 1"},
  };
}

void PrintTo(const BadDocument& c, std::ostream* os) {
  *os << c.name;
}

class IrJsonBadDocument : public ::testing::TestWithParam<BadDocument> {};

TEST_P(IrJsonBadDocument, IsAnInvalidInputErrorNamingTheLocation) {
  const BadDocument& c = GetParam();
  const auto g = parse_ir_json(c.text, "<memory>");
  ASSERT_FALSE(g.has_value()) << c.text;
  EXPECT_EQ(g.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(g.error().message.find(c.fragment), std::string::npos)
      << "message:  " << g.error().message << "\nexpected: " << c.fragment;
  EXPECT_EQ(g.error().message.find('\n'), std::string::npos) << "messages are one line";
  // The longest is an unknown kind's list of every valid kind; a 5000-byte value is cut.
  EXPECT_LT(g.error().message.size(), 1200u);
  if (c.position) {
    EXPECT_EQ(g.error().position, c.position);
  }
}

INSTANTIATE_TEST_SUITE_P(Table, IrJsonBadDocument, ::testing::ValuesIn(bad_documents()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(IrJson, BadDocumentTableIsLarge) {
  EXPECT_GE(bad_documents().size(), 120u);
}

// ---------------------------------------------------------------------------------------------
// Malformed graph files: some fail in the reader, the rest parse and fail ir::check.

enum class Stage { read, check };

struct BadFile {
  const char* file;
  Stage stage;
  const char* fragment;
};

const std::vector<BadFile> kBadFiles = {
    {"bad_format.json", Stage::read,
     "field format: expected 'torchlean.ir.v1' or 'nnplan.ir.v1', found 'onnx'"},
    {"bad_unknown_kind.json", Stage::read,
     "node 2 (gelu): field kind: gelu is an nnplan extension kind; it needs format "
     "'nnplan.ir.v1'"},
    {"bad_missing_kh.json", Stage::read, "node 1 (conv2d 'conv1'): field kH: required field is"},
    {"bad_negative_dim.json", Stage::read,
     "node 1 (relu): field shape[1]: expected a "
     "non-negative integer, found -4"},
    {"bad_field_of_other_kind.json", Stage::read, "node 2 (relu): field axis: not a field of relu"},
    {"bad_unknown_field.json", Stage::read, "node 1 (linear): field weights: unknown field"},
    {"bad_repeated_key.json", Stage::read, "node 1 (relu): field parents: repeated field"},
    {"bad_truncated.json", Stage::read,
     "invalid JSON at line 7, column 58: syntax error while parsing array - unexpected end of "
     "input"},
    {"bad_top_level_array.json", Stage::read, "expected a JSON object"},
    {"bad_huge_dim.json", Stage::read, "field shape[0]: 99999999999999999999 is out of range"},
    {"bad_nan.json", Stage::read,
     "invalid JSON at line 7, column 57: syntax error while parsing value - invalid literal"},
    {"bad_empty_graph.json", Stage::check, "graph has no nodes"},
    {"bad_cycle.json", Stage::check, "node 1 (relu): parent 2 is not below the node"},
    {"bad_self_parent.json", Stage::check, "node 1 (relu): parent 1 is not below the node"},
    {"bad_parent_past_end.json", Stage::check, "node 2 (add): parent 9 does not exist"},
    {"bad_duplicate_ids.json", Stage::check, "node 1 (relu): id differs from its index 2"},
    {"bad_noncontiguous_ids.json", Stage::check, "node 3 (tanh): id differs from its index 2"},
    {"bad_shape_mismatch.json", Stage::check,
     "node 1 (relu): declared shape [2,4] differs from inferred [2,3]"},
    {"bad_matmul_inner.json", Stage::check, "node 2 (matmul): inner dimensions differ"},
    {"bad_concat_one_parent.json", Stage::check,
     "node 1 (concat): has 1 parent, expected at "
     "least 2"},
    {"bad_add_arity.json", Stage::check, "node 1 (add): has 1 parent, expected 2"},
    {"bad_conv_channels.json", Stage::check,
     "node 1 (conv): parent [1,3,8,8] has 3 channels on axis 1, "
     "expected in_channels 4"},
    {"bad_conv_window.json", Stage::check,
     "node 1 (conv): window of 5 on axis 2 does not fit its padded extent 3"},
    {"bad_pool_stride_zero.json", Stage::check, "node 1 (max_pool): stride [0,0] holds 0"},
    {"bad_softmax_axis.json", Stage::check, "node 1 (softmax): axis 2 is out of range for [2,3]"},
    {"bad_permute_repeat.json", Stage::check, "node 1 (permute): perm [0,0] repeats axis 0"},
    {"bad_broadcast.json", Stage::check, "node 1 (broadcast_to): cannot broadcast [3] to [2,4]"},
    {"bad_reshape_count.json", Stage::check,
     "node 1 (reshape): reshape from [2,3] to [4,2] "
     "changes the element count"},
    {"bad_flatten_input.json", Stage::check,
     "node 1 (flatten): parent shape [2,3] differs from "
     "value_shape [3,2]"},
    {"bad_input_id.json", Stage::check, "input_id 5 does not name a node"},
    {"bad_input_not_input.json", Stage::check,
     "input_id 1 names node 1 (relu), expected an "
     "input node"},
    {"bad_batchnorm_rank.json", Stage::check,
     "node 1 (batch_norm_eval): parent [3,8,8] has 8 "
     "channels on axis 1, expected channels 3"},
    {"bad_transpose3d_rank.json", Stage::check,
     "node 1 (transpose): axis 2 is out of range for [2,3]"},
    {"bad_bernoulli_parent.json", Stage::check,
     "node 2 (bernoulli_mask): keep-probability parent "
     "must be a scalar"},
    {"bad_const_shape.json", Stage::check,
     "node 1 (const 'bias'): declared shape [2] differs "
     "from inferred [3]"},
};

void PrintTo(const BadFile& c, std::ostream* os) {
  *os << c.file;
}

class IrJsonBadFile : public ::testing::TestWithParam<BadFile> {};

TEST_P(IrJsonBadFile, FailsWithItsFragment) {
  const BadFile& c = GetParam();
  const auto path = kSourceDir / "tests" / "data" / "graphs" / c.file;
  ASSERT_TRUE(std::filesystem::is_regular_file(path)) << path;
  const auto g = read_ir_file(path);
  if (c.stage == Stage::read) {
    ASSERT_FALSE(g.has_value()) << c.file << " should not parse";
    EXPECT_EQ(g.error().kind, ErrorKind::invalid_input);
    EXPECT_TRUE(g.error().message.starts_with(path.string() + ": ")) << g.error().message;
    EXPECT_NE(g.error().message.find(c.fragment), std::string::npos)
        << "message:  " << g.error().message << "\nexpected: " << c.fragment;
    return;
  }
  ASSERT_TRUE(g.has_value()) << c.file << " should parse: " << g.error().message;
  const auto checked = ir::check(*g);
  ASSERT_FALSE(checked.has_value()) << c.file << " should fail ir::check";
  EXPECT_EQ(checked.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(checked.error().message.find(c.fragment), std::string::npos)
      << "message:  " << checked.error().message << "\nexpected: " << c.fragment;
  // The reader reproduces what it read, broken or not.
  const auto again = parse_ir_json(write_ir_json(*g), "<memory>");
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, *g);
}

INSTANTIATE_TEST_SUITE_P(Files, IrJsonBadFile, ::testing::ValuesIn(kBadFiles),
                         [](const auto& info) {
                           return safe_name(
                               std::string_view(info.param.file)
                                   .substr(0, std::string_view(info.param.file).size() - 5));
                         });

// Every bad_*.json under tests/data/graphs has a row, so no file goes untested.
TEST(IrJson, EveryBadFileHasARow) {
  std::size_t files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(kSourceDir / "tests" / "data" / "graphs")) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("bad_")) continue;
    ++files;
    bool listed = false;
    for (const BadFile& c : kBadFiles)
      listed = listed || name == c.file;
    EXPECT_TRUE(listed) << name;
  }
  EXPECT_EQ(files, kBadFiles.size());
  EXPECT_GE(files, 25u);
}

// ---------------------------------------------------------------------------------------------
// Files and robustness.

TEST(IrJson, UnreadablePathsNameThePath) {
  const auto missing = read_ir_file(kSourceDir / "tests" / "data" / "graphs" / "nope.json");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(missing.error().message.find("nope.json: cannot read graph file: no such file"),
            std::string::npos)
      << missing.error().message;

  const auto directory = read_ir_file(kSourceDir / "tests" / "data" / "graphs");
  ASSERT_FALSE(directory.has_value());
  EXPECT_NE(directory.error().message.find("graphs: cannot read graph file: is a directory"),
            std::string::npos)
      << directory.error().message;
}

TEST(IrJson, RefusesFilesOverTheLimit) {
  const auto path = std::filesystem::temp_directory_path() / "nnplan_ir_json_too_big.json";
  {
    std::ofstream out(path, std::ios::binary);
    out << "{}";
  }
  // A sparse file: its size is past the limit without writing a gigabyte.
  std::filesystem::resize_file(path, kMaxIrFileBytes + 1);
  const auto g = read_ir_file(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(g.has_value());
  EXPECT_NE(g.error().message.find("graph file is 1073741825 bytes; the limit is 1073741824"),
            std::string::npos)
      << g.error().message;
}

// Containers nested far deeper than any stack would take recursively.
TEST(IrJson, DeepNestingIsNotACrash) {
  const std::size_t depth = 200000;
  const std::string deep = std::string(depth, '[') + std::string(depth, ']');
  const auto in_field = parse_ir_json(
      with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2, 3], "x": )" + deep + "}"),
      "<memory>");
  ASSERT_FALSE(in_field.has_value());
  EXPECT_NE(in_field.error().message.find("field x: unknown field"), std::string::npos);
  const auto at_top = parse_ir_json(deep, "<memory>");
  ASSERT_FALSE(at_top.has_value());
  const auto unclosed = parse_ir_json(std::string(depth, '{'), "<memory>");
  ASSERT_FALSE(unclosed.has_value());
}

// Seeded mutations of a valid document: the reader answers every one with a graph or an
// invalid_input error, never a crash or an internal error.
TEST(IrJson, MutatedDocumentsNeverCrash) {
  const std::string base = read_text(kSourceDir / "examples" / "cnn.json");
  ASSERT_FALSE(base.empty());
  constexpr std::string_view kAlphabet = "{}[]:,\"-.0123456789eE+ \nabcnulltrue\\\x01\xff";
  std::mt19937_64 rng(20240611);
  for (int round = 0; round < 3000; ++round) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0:
          text[at] = kAlphabet[rng() % kAlphabet.size()];
          break;
        case 1:
          text.erase(at, 1 + rng() % 8);
          break;
        case 2:
          text.insert(at, 1, kAlphabet[rng() % kAlphabet.size()]);
          break;
        default:
          text.resize(at);
          break;
      }
    }
    const auto g = parse_ir_json(text, "<fuzz>");
    if (!g.has_value()) {
      ASSERT_EQ(g.error().kind, ErrorKind::invalid_input) << g.error().message << "\n" << text;
      ASSERT_EQ(g.error().message.find('\n'), std::string::npos);
    } else {
      // Whatever parses re-reads to the same graph.
      const auto again = parse_ir_json(write_ir_json(*g), "<fuzz>");
      ASSERT_TRUE(again.has_value());
      ASSERT_EQ(*again, *g);
    }
  }
}

}  // namespace
}  // namespace nnplan::format
