// `torchlean.ir.v1` graph documents (SPEC §6): every op kind round-trips through the writer and
// the reader, the examples read, pass ir::check and re-write byte for byte, and every malformed
// document (inline table and tests/data/graphs/bad_*.json) is an error whose one-line message
// names the source, the node and the field. No input crashes the reader.
#include "nnplan/format/ir_json.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
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

Shape shape(std::initializer_list<ir::Dim> dims) {
  return Shape{std::vector<ir::Dim>(dims)};
}

// ---------------------------------------------------------------------------------------------
// Round trips.

// Parameters of each OpParams alternative that differ from the defaults, so a field the writer
// or reader dropped would show; by alternative index.
const std::array<ir::OpParams, std::variant_size_v<ir::OpParams>> kSampleParams = {
    std::monostate{},
    ir::ConstParams{.value_shape = shape({2, 3})},
    ir::PermuteParams{.perm = {2, 0, 1}},
    ir::SeedParams{.seed = 18446744073709551615u},
    ir::PoolParams{.kh = 3, .kw = 2, .stride = 4, .padding = 5},
    ir::BroadcastParams{.from = shape({}), .to = shape({4, 5})},
    ir::AxisParams{.axis = 4294967295u},
    ir::Conv2dParams{
        .in_channels = 3, .out_channels = 16, .kh = 5, .kw = 7, .stride = 2, .padding = 1},
    ir::ChannelsParams{.channels = 16},
    ir::ReshapeParams{.in = shape({2, 3}), .out = shape({6})},
    ir::FlattenParams{.in = shape({1, 2, 3})},
};

bool has_field(OpKind kind, std::string_view field) {
  const auto fields = ir::op_traits(kind).fields;
  return std::find(fields.begin(), fields.end(), field) != fields.end();
}

// One node of every kind, with its alternative's sample parameters (a pool without a padding
// field keeps padding 0). Shapes need not be consistent: the reader does not check them.
Graph every_kind_graph() {
  Graph g;
  g.input_id = 0;
  g.output_id = 3;
  for (std::size_t k = 0; k < ir::kOpKindCount; ++k) {
    const auto kind = static_cast<OpKind>(k);
    Node node{.id = static_cast<ir::NodeId>(k),
              .kind = kind,
              .parents = k == 0 ? std::vector<ir::NodeId>{} : std::vector<ir::NodeId>{0},
              .shape = shape({2, k + 1}),
              .params = kSampleParams[ir::op_traits(kind).params],
              .source_name = k % 3 == 0 ? "model/" + std::string(ir::to_string(kind)) : ""};
    if (auto* pool = std::get_if<ir::PoolParams>(&node.params);
        pool && !has_field(kind, "padding")) {
      pool->padding = 0;
    }
    g.nodes.push_back(std::move(node));
  }
  return g;
}

// A node document of `kind` with every field the op-kind table names for it (lists for the
// shape and perm fields, 1 for the rest).
std::string node_document(OpKind kind) {
  std::string node = R"({"id": 0, "kind": ")" + std::string(ir::to_string(kind)) +
                     R"(", "parents": [], "shape": [])";
  for (const std::string_view field : ir::op_traits(kind).fields) {
    node += ", \"" + std::string(field) + "\": ";
    node += field.ends_with("shape") ? "[1, 2]" : field == "perm" ? "[0]" : "1";
  }
  node += "}";
  return R"({"format": "torchlean.ir.v1", "input_id": 0, "output_id": 0, "nodes": [)" + node + "]}";
}

TEST(IrJson, EveryOpKindRoundTrips) {
  const Graph g = every_kind_graph();
  ASSERT_EQ(g.nodes.size(), ir::kOpKindCount);
  const std::string text = write_ir_json(g);
  const auto back = parse_ir_json(text, "<memory>");
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, g);
  EXPECT_EQ(write_ir_json(*back), text);
  EXPECT_EQ(write_ir_json(g), text) << "writing twice gives identical bytes";
}

// Each kind alone, so a failure names the kind.
class IrJsonKindRoundTrip : public ::testing::TestWithParam<std::size_t> {};

TEST_P(IrJsonKindRoundTrip, WritesAndReadsBack) {
  const Graph all = every_kind_graph();
  Graph g{.input_id = 0, .output_id = 0, .nodes = {all.nodes[GetParam()]}};
  g.nodes[0].id = 0;
  g.nodes[0].parents = {};
  const std::string text = write_ir_json(g);
  const auto back = parse_ir_json(text, "<memory>");
  ASSERT_TRUE(back.has_value()) << back.error().message << "\n" << text;
  EXPECT_EQ(*back, g) << text;
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
  // Nothing but the kind's fields follows the node's shape.
  std::size_t keys = 0;
  for (std::size_t i = written.find("\": ", written.find("\"shape\": ") + 9);
       i != std::string::npos; i = written.find("\": ", i + 1))
    ++keys;
  EXPECT_EQ(keys, row.fields.size()) << written;

  // A field of another kind is refused, naming the kind's own fields.
  for (const std::string_view foreign : {"axis", "seed", "channels"}) {
    if (has_field(kind, foreign)) continue;
    std::string bad = text;
    bad.insert(bad.find("\"parents\""), "\"" + std::string(foreign) + "\": 1, ");
    const auto refused = parse_ir_json(bad, "<memory>");
    ASSERT_FALSE(refused.has_value()) << bad;
    EXPECT_NE(refused.error().message.find("field " + std::string(foreign) + ": not a field of " +
                                           std::string(row.spelling)),
              std::string::npos)
        << refused.error().message;
  }
}

INSTANTIATE_TEST_SUITE_P(AllKinds, IrJsonKindRoundTrip,
                         ::testing::Range<std::size_t>(0, ir::kOpKindCount),
                         [](const auto& info) { return safe_name(ir::kOpKindNames[info.param]); });

TEST(IrJson, CanonicalLayout) {
  Graph g;
  g.output_id = 1;
  g.nodes.push_back(Node{.id = 0, .kind = OpKind::input, .shape = shape({1, 3, 8, 8})});
  g.nodes.push_back(Node{
      .id = 1,
      .kind = OpKind::conv2d,
      .parents = {0},
      .shape = shape({1, 4, 8, 8}),
      .params =
          ir::Conv2dParams{
              .in_channels = 3, .out_channels = 4, .kh = 3, .kw = 3, .stride = 1, .padding = 1},
      .source_name = "conv \"1\"\n"});
  EXPECT_EQ(write_ir_json(g),
            "{\n"
            "  \"format\": \"torchlean.ir.v1\",\n"
            "  \"input_id\": 0,\n"
            "  \"output_id\": 1,\n"
            "  \"nodes\": [\n"
            "    {\"id\": 0, \"kind\": \"input\", \"parents\": [], \"shape\": [1, 3, 8, 8]},\n"
            "    {\"id\": 1, \"kind\": \"conv2d\", \"parents\": [0], \"shape\": [1, 4, 8, 8], "
            "\"inC\": 3, \"outC\": 4, \"kH\": 3, \"kW\": 3, \"stride\": 1, \"padding\": 1, "
            "\"name\": \"conv \\\"1\\\"\\n\"}\n"
            "  ]\n"
            "}\n");
  EXPECT_EQ(write_ir_json(Graph{}),
            "{\n  \"format\": \"torchlean.ir.v1\",\n  \"input_id\": 0,\n  \"output_id\": 0,\n"
            "  \"nodes\": []\n}\n");
  const auto empty = parse_ir_json(write_ir_json(Graph{}), "<memory>");
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(*empty, Graph{});
}

TEST(IrJson, ReadsAnyKeyOrderAndWhitespace) {
  const auto g = parse_ir_json(
      R"({"nodes":[{"shape":[1,3,4,4],"parents":[],"kind":"input","id":0},
                   {"padding":1,"name":"p","kH":2,"kind":"max_pool2d_pad","kW":2,"stride":2,
                    "id":1,"parents":[0],"shape":[1,3,3,3]}],
          "output_id":1,"format":"torchlean.ir.v1","input_id":0})",
      "<memory>");
  ASSERT_TRUE(g.has_value()) << g.error().message;
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[1].params,
            ir::OpParams(ir::PoolParams{.kh = 2, .kw = 2, .stride = 2, .padding = 1}));
  EXPECT_EQ(g->nodes[1].source_name, "p");
  EXPECT_EQ(g->output_id, 1u);
  EXPECT_TRUE(ir::check(*g).has_value());
}

// The writer stays total on hand-built graphs: another kind's parameters are replaced by the
// kind's defaults, and invalid UTF-8 in a name by U+FFFD.
TEST(IrJson, WriterIsTotal) {
  Graph g;
  g.nodes.push_back(Node{.id = 0, .kind = OpKind::conv2d, .params = ir::AxisParams{.axis = 2}});
  g.nodes.push_back(Node{.id = 1, .kind = OpKind::relu, .source_name = "bad\xff"});
  const auto back = parse_ir_json(write_ir_json(g), "<memory>");
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->nodes[0].params, ir::OpParams(ir::Conv2dParams{}));
  EXPECT_EQ(back->nodes[1].source_name, "bad\xEF\xBF\xBD");
}

// ---------------------------------------------------------------------------------------------
// Examples.

class IrJsonExample : public ::testing::TestWithParam<const char*> {};

TEST_P(IrJsonExample, ReadsChecksAndRewritesByteForByte) {
  const auto path = kSourceDir / "examples" / (std::string(GetParam()) + ".json");
  const std::string text = read_text(path);
  ASSERT_FALSE(text.empty()) << path;
  const auto g = read_ir_file(path);
  ASSERT_TRUE(g.has_value()) << g.error().message;
  const auto checked = ir::check(*g);
  ASSERT_TRUE(checked.has_value()) << checked.error().message;
  EXPECT_EQ(write_ir_json(*g), text);
  // Every node carries its source name in the examples.
  for (const Node& n : g->nodes)
    EXPECT_FALSE(n.source_name.empty()) << n.id;
}

INSTANTIATE_TEST_SUITE_P(Examples, IrJsonExample,
                         ::testing::Values("mlp", "cnn", "transformer_block"),
                         [](const auto& info) { return std::string(info.param); });

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

// A document with `fields` at the top level followed by a valid node list.
std::string with_root(std::string_view fields) {
  return "{" + std::string(fields) + R"(, "nodes": [)" + std::string(kInputNode) + "]}";
}

const std::string kValid =
    with_node(R"({"id": 1, "kind": "relu", "parents": [0], "shape": [2, 3]})");

std::vector<BadDocument> bad_documents() {
  return {
      {"empty", "", "<memory>: empty document; expected a JSON object"},
      {"whitespace", " \n\t ", "empty document"},
      {"open_brace", "{", "<memory>: invalid JSON at line 1, column 2"},
      {"truncated", kValid.substr(0, kValid.size() / 2),
       "invalid JSON at line 1, column 96: syntax error while parsing value - invalid string: "
       "missing closing quote"},
      {"top_level_array", "[]",
       "<memory>: expected a JSON object with fields format, input_id, output_id and nodes, found "
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
       "<memory>: field format: expected 'torchlean.ir.v1', found 'torchlean.ir.v2'"},
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
       "field version: unknown field; valid: format, input_id, output_id, nodes"},
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
      {"unknown_kind", with_node(R"({"id": 1, "kind": "gelu", "parents": [0], "shape": [2, 3]})"),
       "node 1: field kind: unknown op kind 'gelu'; valid: input, const, permute"},
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
       "node 1 (relu): field foo: unknown field; relu takes id, kind, parents, shape, name"},
      {"unknown_field_nested_value",
       with_node(R"({"id": 1, "foo": {"a": [1, {"b": [[]]}]}, "kind": "softmax",
                     "parents": [0], "shape": [2, 3], "axis": 0})"),
       "node 1 (softmax): field foo: unknown field; softmax takes id, kind, parents, shape, axis, "
       "name"},
      {"unknown_field_unknown_kind",
       with_node(R"({"id": 1, "foo": 1, "parents": [0], "shape": [2, 3]})"),
       "node 1: field foo: unknown field; valid: id, kind, parents, shape, name and the op fields"},
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
  EXPECT_LT(g.error().message.size(), 1000u);
  if (c.position) {
    EXPECT_EQ(g.error().position, c.position);
  }
}

INSTANTIATE_TEST_SUITE_P(Table, IrJsonBadDocument, ::testing::ValuesIn(bad_documents()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(IrJson, BadDocumentTableIsLarge) {
  EXPECT_GE(bad_documents().size(), 30u);
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
    {"bad_format.json", Stage::read, "field format: expected 'torchlean.ir.v1', found 'onnx'"},
    {"bad_unknown_kind.json", Stage::read, "node 2: field kind: unknown op kind 'gelu'"},
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
     "node 1 (conv2d): parent [1,3,8,8] has 3 channels, "
     "expected in_channels 4"},
    {"bad_conv_window.json", Stage::check, "node 1 (conv2d): kernel 5x5 does not fit input 3x3"},
    {"bad_pool_stride_zero.json", Stage::check, "node 1 (max_pool2d): stride 0 is not allowed"},
    {"bad_softmax_axis.json", Stage::check, "node 1 (softmax): axis 2 is out of range for [2,3]"},
    {"bad_permute_repeat.json", Stage::check, "node 1 (permute): perm [0,0] repeats axis 0"},
    {"bad_broadcast.json", Stage::check, "node 1 (broadcast_to): cannot broadcast [3] to [2,4]"},
    {"bad_reshape_count.json", Stage::check,
     "node 1 (reshape): reshape from [2,3] to [4,2] "
     "changes the element count"},
    {"bad_flatten_input.json", Stage::check,
     "node 1 (flatten): parent shape [2,3] differs from "
     "flatten input [3,2]"},
    {"bad_input_id.json", Stage::check, "input_id 5 does not name a node"},
    {"bad_input_not_input.json", Stage::check,
     "input_id 1 names node 1 (relu), expected an "
     "input node"},
    {"bad_batchnorm_rank.json", Stage::check,
     "node 1 (batch_norm2d_nchw_eval): expects a parent "
     "of shape (N,C,H,W)"},
    {"bad_transpose3d_rank.json", Stage::check,
     "node 1 (transpose3d_last_two): expects a parent "
     "of rank 3"},
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
