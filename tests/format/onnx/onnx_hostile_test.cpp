// Hostile ONNX models against the importer's checker rules, wire limits and message capping
// (src/format/onnx/checker_rules.cpp, wire_check.cpp, tensor_decoding.cpp): one row per case,
// each built with ONNX's protobuf classes or as raw wire bytes, with the error kind and a fragment
// of the message it must give. Every message must also stay short, however large the input.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <functional>
#include <string>
#include <vector>

#include "nnplan/format/limits.hpp"
#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

constexpr int kModelGraph = onnx::ModelProto::kGraphFieldNumber;

// A valid model: x [2] -> Relu 'r' -> y.
Model relu_model() {
  Model m;
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"}, "r");
  return m;
}

std::string serialized(Model m) {
  return m.proto().SerializeAsString();
}

// relu_model serialized with `extra` appended to its graph (fields merge into the graph).
std::string with_graph_fields(const std::string& extra) {
  return serialized(relu_model()) + delimited_field(kModelGraph, extra);
}

// relu_model whose node 'r' has `extra` appended to its serialized NodeProto.
std::string with_node_fields(const std::string& extra) {
  Model m = relu_model();
  onnx::NodeProto node = m.g().node(0);
  m.g().clear_node();
  return serialized(m) +
         delimited_field(kModelGraph, delimited_field(onnx::GraphProto::kNodeFieldNumber,
                                                      node.SerializeAsString() + extra));
}

// `count` copies of `piece`.
std::string repeated(const std::string& piece, std::size_t count) {
  std::string out;
  out.reserve(piece.size() * count);
  for (std::size_t i = 0; i < count; ++i)
    out += piece;
  return out;
}

// A graph whose node 0 is an If whose then_branch holds an If whose then_branch ... `levels` deep.
std::string nested_graphs(int levels) {
  std::string inner = wire::delimited_field(onnx::GraphProto::kNameFieldNumber, "g");
  for (int i = 0; i < levels; ++i) {
    onnx::NodeProto n;
    n.set_op_type("If");
    n.add_input("c");
    n.add_output("o");
    const std::string attr =
        delimited_field(onnx::AttributeProto::kNameFieldNumber, "then_branch") +
        varint_field(onnx::AttributeProto::kTypeFieldNumber,
                     onnx::AttributeProto_AttributeType_GRAPH) +
        delimited_field(onnx::AttributeProto::kGFieldNumber, inner);
    inner = delimited_field(onnx::GraphProto::kNodeFieldNumber,
                            n.SerializeAsString() +
                                delimited_field(onnx::NodeProto::kAttributeFieldNumber, attr)) +
            wire::delimited_field(onnx::GraphProto::kNameFieldNumber, "g");
  }
  Model m = relu_model();
  m.g().clear_node();
  return serialized(m) + delimited_field(kModelGraph, inner);
}

struct HostileCase {
  std::string name;
  std::function<std::string()> bytes;
  ErrorKind kind;
  std::string fragment;
};

void PrintTo(const HostileCase& c, std::ostream* os) {
  *os << c.name;
}

const ErrorKind kInvalid = ErrorKind::invalid_input;

std::vector<HostileCase> hostile_cases() {
  return {
      // ---- ONNX checker rules ----
      {"two_nodes_produce_one_value",
       [] {
         Model m;
         m.input("x", {2}).output("y");
         m.node("Relu", {"x"}, {"h"}, "first");
         m.node("Tanh", {"x"}, {"h"}, "second");
         m.node("Sigmoid", {"h"}, {"y"}, "s");
         return serialized(m);
       },
       kInvalid,
       "m.onnx: node 'second' (Tanh, opset 17): output 'h' is already the output of graph node 0 "
       "('first', Relu); every value has exactly one producer in ONNX (SSA form): rename one of "
       "them"},
      {"unnamed_producers_named_by_index",
       [] {
         Model m;
         m.input("x", {2}).output("y");
         m.node("Relu", {"x"}, {"h"});
         m.node("Tanh", {"x"}, {"h"});
         m.node("Sigmoid", {"h"}, {"y"});
         return serialized(m);
       },
       kInvalid,
       "node 'Tanh_1' (Tanh, opset 17): output 'h' is already the output of graph node 0 "
       "('Relu_0', Relu)"},
      {"one_node_lists_an_output_twice",
       [] {
         Model m;
         m.input("x", {2}).output("y");
         m.node("Relu", {"x"}, {"y", "y"}, "r");
         return serialized(m);
       },
       kInvalid, "node 'r' (Relu, opset 17): output 'y' is listed twice among its outputs"},
      {"node_output_named_like_a_graph_input",
       [] {
         Model m;
         m.input("x", {2}).output("y");
         m.node("Relu", {"x"}, {"x"}, "r");
         m.node("Tanh", {"x"}, {"y"}, "t");
         return serialized(m);
       },
       kInvalid,
       "node 'r' (Relu, opset 17): output 'x' has the name of a graph input; every value "
       "has exactly one producer in ONNX (SSA form): rename the output"},
      {"node_output_named_like_an_initializer",
       [] {
         Model m;
         m.input("x", {2}).output("y").init("w", {2}, {1, 2});
         m.node("Relu", {"x"}, {"w"}, "r");
         m.node("Add", {"x", "w"}, {"y"}, "a");
         return serialized(m);
       },
       kInvalid, "node 'r' (Relu, opset 17): output 'w' has the name of an initializer"},
      {"attribute_repeated",
       [] {
         Model m;
         m.input("x", {2, 3}).output("y");
         onnx::NodeProto& n = m.node("Softmax", {"x"}, {"y"}, "sm");
         attr_i(n, "axis", 1);
         attr_i(n, "axis", 0);
         return serialized(m);
       },
       kInvalid,
       "m.onnx: node 'sm' (Softmax, opset 17): attribute 'axis' appears 2 times; an "
       "attribute may appear once per node: remove the repeats"},
      {"initializer_with_raw_data_and_float_data",
       [] {
         Model m;
         m.input("x", {2}).output("y").init("w", {2}, {1, 2}, /*raw=*/true);
         m.g().mutable_initializer(0)->add_float_data(3);
         m.g().mutable_initializer(0)->add_float_data(4);
         m.node("Add", {"x", "w"}, {"y"}, "a");
         return serialized(m);
       },
       kInvalid,
       "m.onnx: tensor 'w' holds its data in both raw_data and float_data; a tensor "
       "keeps its data in exactly one field: remove the other"},
      {"constant_with_raw_data_and_float_data",
       [] {
         Model m;
         m.input("x", {2}).output("y");
         onnx::NodeProto& c = m.node("Constant", {}, {"k"}, "c");
         onnx::TensorProto& t =
             *new_attr(c, "value", onnx::AttributeProto_AttributeType_TENSOR).mutable_t();
         fill_tensor(t, "", {2}, {1, 2}, /*raw=*/false);
         t.set_raw_data(std::string(8, '\0'));
         m.node("Add", {"x", "k"}, {"y"}, "a");
         return serialized(m);
       },
       kInvalid,
       "node 'c' (Constant, opset 17): tensor 'c' holds its data in both raw_data and "
       "float_data"},
      {"initializer_in_another_types_field",
       [] {
         Model m;
         m.input("x", {2}).output("y");
         onnx::TensorProto& t = *m.g().add_initializer();
         t.set_name("w");
         t.set_data_type(kFloat);
         t.add_dims(2);
         t.add_int64_data(1);
         t.add_int64_data(2);
         m.node("Add", {"x", "w"}, {"y"}, "a");
         return serialized(m);
       },
       kInvalid,
       "m.onnx: tensor 'w' of float32 holds its data in int64_data; float32 data belongs "
       "in float_data or raw_data"},
      {"default_domain_imported_twice",
       [] {
         Model m = relu_model();
         onnx::OperatorSetIdProto& again = *m.proto().add_opset_import();
         again.set_domain("ai.onnx");
         again.set_version(17);
         return serialized(m);
       },
       kInvalid,
       "m.onnx: opset_import lists the default ONNX domain twice: '' version 17 (entry 0) "
       "and 'ai.onnx' version 17 (entry 1); list it once ('' and 'ai.onnx' name the same "
       "domain)"},
      {"default_domain_with_conflicting_versions",
       [] {
         Model m = relu_model();
         onnx::OperatorSetIdProto& again = *m.proto().add_opset_import();
         again.set_domain("");
         again.set_version(11);
         return serialized(m);
       },
       kInvalid,
       "opset_import lists the default ONNX domain twice: '' version 17 (entry 0) and '' "
       "version 11 (entry 1)"},
      {"only_another_domain_imported",
       [] {
         Model m = relu_model();
         m.proto().mutable_opset_import(0)->set_domain("ai.onnx.preview.training");
         m.proto().mutable_opset_import(0)->set_version(1);
         return serialized(m);
       },
       ErrorKind::unsupported,
       "m.onnx: model imports no opset of the default ONNX domain, only "
       "'ai.onnx.preview.training'; supported: the default ONNX domain"},
      {"no_opset_imported",
       [] {
         Model m = relu_model();
         m.proto().clear_opset_import();
         return serialized(m);
       },
       kInvalid, "m.onnx: model imports no opset of the default ONNX domain"},
      {"custom_domain_imported_twice",
       [] {
         Model m = relu_model();
         for (const int v : {1, 2}) {
           onnx::OperatorSetIdProto& o = *m.proto().add_opset_import();
           o.set_domain("com.acme");
           o.set_version(v);
         }
         return serialized(m);
       },
       kInvalid,
       "opset_import lists domain 'com.acme' twice: 'com.acme' version 1 (entry 1) and "
       "'com.acme' version 2 (entry 2); list it once"},
      {"local_function_named_like_a_standard_operator",
       [] {
         Model m = relu_model();
         onnx::FunctionProto& f = *m.proto().add_functions();
         f.set_name("Relu");
         f.set_domain("");
         return serialized(m);
       },
       kInvalid,
       "m.onnx: model-local function 'Relu' (function 0) is in the default ONNX domain "
       "(''), which belongs to the standard operators; nnplan runs no model-local "
       "functions and will not let one shadow or extend them: give it a domain of its "
       "own"},
      {"local_function_in_ai_onnx",
       [] {
         Model m = relu_model();
         m.proto().add_functions()->set_name("MyGelu");
         m.proto().mutable_functions(0)->set_domain("ai.onnx");
         return serialized(m);
       },
       kInvalid,
       "model-local function 'MyGelu' (function 0) is in the default ONNX domain "
       "('ai.onnx')"},

      // ---- wire limits, checked before anything is parsed ----
      {"attribute_ints_past_the_list_limit",
       [] {
         const std::string attr =
             delimited_field(onnx::AttributeProto::kNameFieldNumber, "junk") +
             delimited_field(onnx::AttributeProto::kIntsFieldNumber,
                             std::string(kMaxOnnxFieldEntries + 1, '\x01'));  // packed varints
         return with_node_fields(delimited_field(onnx::NodeProto::kAttributeFieldNumber, attr));
       },
       kInvalid,
       "m.onnx: not a valid ONNX model: graph node 0 (0-based; 'r', Relu): field "
       "attribute[0].ints holds more than 1048576 entries; the limit is 1048576 entries "
       "per list (in attribute 'junk')"},
      {"attribute_floats_past_the_list_limit",
       [] {
         const std::string attr =
             delimited_field(onnx::AttributeProto::kNameFieldNumber, "f") +
             delimited_field(onnx::AttributeProto::kFloatsFieldNumber,
                             std::string(4 * (kMaxOnnxFieldEntries + 1), '\0'));
         return with_node_fields(delimited_field(onnx::NodeProto::kAttributeFieldNumber, attr));
       },
       kInvalid, "field attribute[0].floats holds more than 1048576 entries"},
      {"node_inputs_past_the_list_limit",
       [] {
         return with_node_fields(repeated(delimited_field(onnx::NodeProto::kInputFieldNumber, ""),
                                          kMaxOnnxFieldEntries));  // plus its own input 'x'
       },
       kInvalid, "graph node 0 (0-based; 'r', Relu): field input holds more than 1048576 entries"},
      {"metadata_entries_past_the_list_limit",
       [] {
         return serialized(relu_model()) +
                repeated(delimited_field(onnx::ModelProto::kMetadataPropsFieldNumber, ""),
                         kMaxOnnxFieldEntries + 1);
       },
       kInvalid,
       "m.onnx: not a valid ONNX model: field metadata_props holds more than 1048576 "
       "entries; the limit is 1048576 entries per list"},
      {"initializers_past_their_limit",
       [] {
         onnx::TensorProto t;
         t.set_data_type(kFloat);
         return with_graph_fields(repeated(
             delimited_field(onnx::GraphProto::kInitializerFieldNumber, t.SerializeAsString()),
             kMaxOnnxInitializers + 1));
       },
       kInvalid, "field graph.initializer holds more than 262144 entries; the limit is 262144"},
      {"initializers_split_over_two_graph_fields_counted_together",
       [] {
         onnx::TensorProto t;
         t.set_data_type(kFloat);
         const std::string half = repeated(
             delimited_field(onnx::GraphProto::kInitializerFieldNumber, t.SerializeAsString()),
             kMaxOnnxInitializers / 2 + 1);
         return with_graph_fields(half) + delimited_field(kModelGraph, half);
       },
       kInvalid, "field graph.initializer holds more than 262144 entries"},
      {"shape_dims_past_the_list_limit",
       [] {
         onnx::TensorShapeProto_Dimension d;
         d.set_dim_value(1);
         const std::string shape = repeated(
             delimited_field(onnx::TensorShapeProto::kDimFieldNumber, d.SerializeAsString()),
             kMaxOnnxFieldEntries + 1);
         onnx::ValueInfoProto vi;
         vi.set_name("z");
         vi.mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
         const std::string type =
             delimited_field(onnx::TypeProto::kTensorTypeFieldNumber,
                             varint_field(onnx::TypeProto_Tensor::kElemTypeFieldNumber, kFloat) +
                                 delimited_field(onnx::TypeProto_Tensor::kShapeFieldNumber, shape));
         const std::string input = delimited_field(onnx::ValueInfoProto::kNameFieldNumber, "z") +
                                   delimited_field(onnx::ValueInfoProto::kTypeFieldNumber, type);
         return with_graph_fields(delimited_field(onnx::GraphProto::kInputFieldNumber, input));
       },
       kInvalid,
       "field graph.input[1].type.tensor_type.shape.dim holds more than 1048576 "
       "entries; the limit is 1048576 entries per list (in input 'z')"},
      {"node_name_past_the_name_limit",
       [] {
         Model m = relu_model();
         m.g().mutable_node(0)->set_name(std::string(kMaxStringBytes + 1, 'n'));
         return serialized(m);
       },
       kInvalid, "field name is 65537 bytes; the limit is 65536 bytes (64 KiB) per name"},
      {"graph_field_of_the_wrong_wire_type",
       [] {
         Model m = relu_model();
         m.proto().clear_graph();
         return serialized(m) + varint_field(kModelGraph, 5);
       },
       kInvalid,
       "m.onnx: not a valid ONNX model: field graph (number 7) has wire type varint (0); "
       "the ONNX schema gives it length-delimited (2)"},
      {"attribute_field_of_the_wrong_wire_type",
       [] {
         return with_node_fields(
             delimited_field(onnx::NodeProto::kAttributeFieldNumber,
                             delimited_field(onnx::AttributeProto::kNameFieldNumber, "a") +
                                 delimited_field(onnx::AttributeProto::kIFieldNumber, "x")));
       },
       kInvalid,
       "graph node 0 (0-based; 'r', Relu): field attribute[0].i (number 3) has wire "
       "type length-delimited (2); the ONNX schema gives it varint (0) (in attribute "
       "'a')"},
      {"graphs_nested_past_protobufs_limit", [] { return nested_graphs(40); }, kInvalid,
       "m.onnx: not a valid ONNX model: graph node 0 (0-based; If): field "
       "attribute[0].g.node[0].attribute[0].(91 more).node[0].attribute[0].g.node[0] nests "
       "messages more than 100 levels deep; the limit is 100 levels (protobuf's recursion limit)"},

      // ---- messages cap what they echo ----
      {"long_node_name_capped",
       [] {
         Model m = relu_model();
         m.g().mutable_node(0)->set_name(std::string(60000, 'n'));
         m.g().mutable_node(0)->set_op_type("Gelu2");
         return serialized(m);
       },
       ErrorKind::unsupported,
       "node 0 '" + std::string(80, 'n') +
           "...' (60000 bytes) (Gelu2): operator Gelu2 is not supported"},
      {"long_op_type_capped",
       [] {
         Model m = relu_model();
         m.g().mutable_node(0)->set_op_type(std::string(60000, 'G'));
         return serialized(m);
       },
       ErrorKind::unsupported,
       "(" + std::string(80, 'G') + "... (60000 bytes)): operator " + std::string(80, 'G') +
           "... (60000 bytes) is not supported"},
      {"control_characters_in_a_name_escaped",
       [] {
         Model m;
         m.input("x", {2}).output("y");
         m.node("Relu", {"x\x1b[8m\n"}, {"y"}, "r");
         return serialized(m);
       },
       kInvalid,
       "input 'x\\x1b[8m\\n' is not produced by any earlier node, graph input or "
       "initializer"},
      {"long_input_name_capped",
       [] {
         Model m;
         m.input(std::string(50000, 'i'), {2}).output("y");
         m.node("Relu", {std::string(50000, 'i')}, {"y"}, "r");
         m.node("Tanh", {std::string(50000, 'i')}, {"y"}, "t");
         return serialized(m);
       },
       kInvalid, "output 'y' is already the output of graph node 0 ('r', Relu)"},
  };
}

class OnnxHostile : public ::testing::TestWithParam<HostileCase> {};

// The message and its notes, one per line, but for the list of supported operators that ends the
// report of unsupported nodes (it is nnplan's, not the input's).
std::string said_about_the_input(const Error& e) {
  std::string out = e.message;
  for (const std::string& note : e.notes)
    if (!note.starts_with("supported operators: ")) out += "\n" + note;
  return out;
}

TEST_P(OnnxHostile, RefusedWithItsMessage) {
  const HostileCase& c = GetParam();
  Expected<ImportedModel> r = import_onnx(wire::to_bytes(c.bytes()), "m.onnx");
  ASSERT_FALSE(r.has_value()) << "imported unexpectedly";
  const std::string text = said_about_the_input(r.error());
  EXPECT_EQ(r.error().kind, c.kind) << text.substr(0, 1000);
  EXPECT_NE(text.find(c.fragment), std::string::npos) << text.substr(0, 1000);
  // However large the input, the message quotes at most a few hundred bytes of it.
  EXPECT_LT(text.size(), 1000U);
}

INSTANTIATE_TEST_SUITE_P(Rows, OnnxHostile, ::testing::ValuesIn(hostile_cases()),
                         [](const auto& info) { return info.param.name; });

// Fields the importer does not read are checked on the wire and dropped: a model carrying a large
// doc string, metadata, value_info and unknown fields imports as the model without them.
TEST(OnnxHostileAccepted, UnreadFieldsAreDroppedNotRefused) {
  Model rich = relu_model();
  rich.proto().set_doc_string(std::string(1 << 20, 'd'));
  for (int i = 0; i < 1000; ++i) {
    onnx::StringStringEntryProto& e = *rich.proto().add_metadata_props();
    e.set_key("k" + std::to_string(i));
  }
  rich.g().add_value_info()->set_name("y");
  const std::string bytes = serialized(rich) + delimited_field(1000, std::string(1 << 20, 'u'));
  Expected<ImportedModel> r = import_onnx(wire::to_bytes(bytes), "m.onnx");
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(lines(r->graph()), (Lines{"0 input -> [2] 'x'", "1 relu [0] -> [2] 'r'"}));
}

// Nesting just inside protobuf's limit is still accepted by the wire check (the model is then
// refused for its If, an unsupported operator, not for its depth).
TEST(OnnxHostileAccepted, NestingWithinTheLimitPassesTheWireCheck) {
  Expected<ImportedModel> r = import_onnx(wire::to_bytes(nested_graphs(32)), "m.onnx");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, ErrorKind::unsupported) << r.error().message;
  EXPECT_NE(render(r.error()).find("operator If is not supported"), std::string::npos)
      << render(r.error());
}

}  // namespace
}  // namespace nnplan::format::onnx_test
