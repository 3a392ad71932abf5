// The hostile-input table (issues 5 and 12): malformed, adversarial and oversized inputs for each
// of the five formats nnplan reads (torchlean.ir.v1 graphs, nnplan.capsules.v1 registries,
// nnplan.plan.v1 artifacts, nnplan.payloads.v1 indexes, ONNX models). Each row gives the input, the
// error kind it must produce and a fragment of the message naming where the problem is. None may
// crash, hang or allocate in proportion to a size the input merely claims (the sanitizer run checks
// memory). The limits exercised here are listed in docs/limits.md.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "nnplan/backend/acceptance.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/format/ir_json.hpp"
#include "nnplan/format/limits.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "nnplan/format/payload_file.hpp"
#include "nnplan/format/plan_artifact.hpp"
#include "nnplan/format/registry_file.hpp"
#include "nnplan/ir/check.hpp"
#include "registry_fixtures.hpp"

namespace nnplan::format {
namespace {

enum class Format { ir, registry, artifact, payloads, onnx };

struct HostileCase {
  std::string label;
  Format format;
  std::function<std::string()> input;
  ErrorKind kind;
  std::string fragment;
};

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i)
    out += s;
  return out;
}

std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// ---------------------------------------------------------------------------------------------
// torchlean.ir.v1

// A two-node graph whose second node is `node` (a JSON object's fields, without braces).
std::string ir_doc(std::string_view node, std::string_view extra_nodes = "") {
  return R"({"format": "torchlean.ir.v1", "input_id": 0, "output_ids": [1], "nodes": [)"
         R"({"id": 0, "kind": "input", "parents": [], "shape": [2, 3]}, {)" +
         std::string(node) + "}" + std::string(extra_nodes) + "]}";
}

constexpr std::string_view kRelu = R"("id": 1, "kind": "relu", "parents": [0], "shape": [2, 3])";

// ---------------------------------------------------------------------------------------------
// nnplan.capsules.v1

using fixtures::kMinimalRegistry;

std::string registry_with(std::string_view from, std::string_view to) {
  return replaced(std::string(kMinimalRegistry), from, to);
}

// A registry of `modules` modules with no capsules each.
std::string registry_of_modules(std::size_t modules) {
  std::string out = R"({"format": "nnplan.capsules.v1", "modules": [)";
  for (std::size_t i = 0; i < modules; ++i) {
    if (i != 0) out += ',';
    out += R"({"name": "m)" + std::to_string(i) + R"(", "capsules": []})";
  }
  return out + "]}";
}

// ---------------------------------------------------------------------------------------------
// nnplan.plan.v1

std::string valid_artifact() {
  auto graph = parse_ir_json(ir_doc(kRelu), "g.json");
  EXPECT_TRUE(graph.has_value());
  auto checked = ir::check(std::move(*graph));
  EXPECT_TRUE(checked.has_value());
  const auto profile = backend::make_profile(backend::MaintainedProfile::checked_cpu);
  return plan_artifact_json(
      profile, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      checked->graph(), backend::evaluate_graph(profile, *checked));
}

std::string artifact_with(std::string_view from, std::string_view to) {
  return replaced(valid_artifact(), from, to);
}

// ---------------------------------------------------------------------------------------------
// nnplan.payloads.v1

// A payload file of `index` and no data: magic, index length, index, zero padding.
std::string payload_file(const std::string& index) {
  const std::size_t data_start =
      (16 + index.size() + kPayloadAlignment - 1) / kPayloadAlignment * kPayloadAlignment;
  std::string out(data_start, '\0');
  std::memcpy(out.data(), kPayloadMagic.data(), kPayloadMagic.size());
  std::uint64_t length = index.size();
  for (std::size_t b = 0; b < 8; ++b) {
    out[8 + b] = static_cast<char>(length & 0xFF);
    length >>= 8;
  }
  std::memcpy(out.data() + 16, index.data(), index.size());
  return out;
}

// A valid index with one attribute (`attribute` replaces its fields when given).
std::string payload_index(std::string_view attribute = R"("node_id": 1, "name": "eps", "value": 1)",
                          std::string_view extra = "") {
  return R"({"format": "nnplan.payloads.v1", "data_bytes": 0, "entries": [], )" +
         std::string(extra) + R"("attributes": [{)" + std::string(attribute) + "}]}";
}

// `n` elements of `element` in an array under the unknown key "junk", as one JSON member.
std::string junk_member(std::size_t n, std::string_view element) {
  std::string out = "\"junk\": [";
  out.reserve(out.size() + n * (element.size() + 1) + 3);
  for (std::size_t i = 0; i < n; ++i) {
    if (i != 0) out += ',';
    out += element;
  }
  return out + "], ";
}

// A document of more than `limit` stored elements: `prefix`, then `limit` zeros in an array under
// the known member `key` (an unknown one would be refused by name without being built), `rest`.
std::string past_element_limit(std::string_view prefix, std::string_view key, std::size_t limit,
                               std::string_view rest) {
  std::string member = junk_member(limit, "0");
  member.replace(1, 4, key);  // "junk" -> key
  return std::string(prefix) + member + std::string(rest);
}

// ---------------------------------------------------------------------------------------------
// ONNX

constexpr int kFloat = onnx::TensorProto_DataType_FLOAT;

// x [2,3] -> Relu -> y, with `edit` applied before serializing.
std::string onnx_model(const std::function<void(onnx::ModelProto&)>& edit = {}) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(17);
  auto* g = m.mutable_graph();
  auto* in = g->add_input();
  in->set_name("x");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(kFloat);
  tt->mutable_shape()->add_dim()->set_dim_value(2);
  tt->mutable_shape()->add_dim()->set_dim_value(3);
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->add_input("x");
  n->add_output("y");
  g->add_output()->set_name("y");
  if (edit) edit(m);
  return m.SerializeAsString();
}

// An Add of x and an initializer `w` set up by `fill`.
std::string onnx_with_initializer(const std::function<void(onnx::TensorProto&)>& fill) {
  return onnx_model([&fill](onnx::ModelProto& m) {
    auto* g = m.mutable_graph();
    auto* t = g->add_initializer();
    t->set_name("w");
    t->set_data_type(kFloat);
    fill(*t);
    auto* n = g->mutable_node(0);
    n->set_op_type("Add");
    n->add_input("w");
  });
}

std::string onnx_input_dims(std::vector<std::int64_t> dims) {
  return onnx_model([&dims](onnx::ModelProto& m) {
    auto* shape = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type();
    shape->clear_shape();
    for (const auto d : dims)
      shape->mutable_shape()->add_dim()->set_dim_value(d);
  });
}

// Protobuf wire bytes: a field key (field number, wire type) and a varint.
std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string key(int field, int wire) {
  return varint((static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint64_t>(wire));
}

// ---------------------------------------------------------------------------------------------
// The table.

constexpr ErrorKind kInvalid = ErrorKind::invalid_input;

std::vector<HostileCase> cases() {
  const auto text = [](std::string s) { return [s] { return s; }; };
  std::vector<HostileCase> out = {
      // torchlean.ir.v1: structure.
      {"ir_empty", Format::ir, text(""), kInvalid, "g.json: empty document"},
      {"ir_whitespace", Format::ir, text(" \n\t "), kInvalid, "g.json: empty document"},
      {"ir_truncated", Format::ir, [] { return ir_doc(kRelu).substr(0, 80); }, kInvalid,
       "invalid JSON at line 1"},
      {"ir_bom_then_array", Format::ir, text("\xEF\xBB\xBF[]"), kInvalid,
       "g.json: expected a JSON object"},
      {"ir_top_array", Format::ir, text("[]"), kInvalid, "expected a JSON object"},
      {"ir_format_unknown", Format::ir,
       [] { return replaced(ir_doc(kRelu), "torchlean.ir.v1", "torchlean.ir.v2"); }, kInvalid,
       "field format: expected 'torchlean.ir.v1' or 'nnplan.ir.v1', found 'torchlean.ir.v2'"},
      {"ir_format_number", Format::ir,
       [] { return replaced(ir_doc(kRelu), "\"torchlean.ir.v1\"", "1"); }, kInvalid,
       "field format: expected a string, found 1"},
      {"ir_duplicate_root_key", Format::ir,
       [] {
         return replaced(ir_doc(kRelu), "\"input_id\": 0", "\"input_id\": 0, \"input_id\": 0");
       },
       kInvalid, "field input_id: repeated field"},
      {"ir_duplicate_node_key", Format::ir,
       [] { return ir_doc(std::string(kRelu) + R"(, "shape": [2, 3])"); }, kInvalid,
       "node 1 (relu): field shape: repeated field"},
      {"ir_input_id_negative", Format::ir,
       [] { return replaced(ir_doc(kRelu), "\"input_id\": 0", "\"input_id\": -1"); }, kInvalid,
       "field input_id: expected a non-negative integer, found -1"},
      {"ir_nodes_object", Format::ir,
       text(R"({"format": "torchlean.ir.v1", "input_id": 0, "output_id": 0, "nodes": {}})"),
       kInvalid, "field nodes: expected an array, found an object"},
      {"ir_node_string", Format::ir,
       text(R"({"format": "torchlean.ir.v1", "input_id": 0, "output_id": 0, "nodes": ["x"]})"),
       kInvalid, "node 0: expected an object, found \"x\""},
      {"ir_unknown_kind", Format::ir,
       [] { return ir_doc(R"("id": 1, "kind": "swish", "parents": [0], "shape": [2, 3])"); },
       kInvalid, "node 1: field kind: unknown op kind 'swish'"},
      {"ir_extension_kind_in_torchlean_format", Format::ir,
       [] {
         return ir_doc(
             R"("id": 1, "kind": "gelu", "parents": [0], "shape": [2, 3], "approximate": "none")");
       },
       kInvalid,
       "node 1 (gelu): field kind: gelu is an nnplan extension kind; it needs format "
       "'nnplan.ir.v1'"},
      {"ir_both_output_fields", Format::ir,
       [] {
         return replaced(ir_doc(kRelu), "\"output_ids\": [1]",
                         R"("output_ids": [1], "output_id": 1)");
       },
       kInvalid, "g.json: fields output_ids and output_id: both are given"},
      {"ir_output_ids_empty", Format::ir,
       [] { return replaced(ir_doc(kRelu), "\"output_ids\": [1]", R"("output_ids": [])"); },
       kInvalid, "g.json: field output_ids: empty array; a graph has at least one output"},
      {"ir_kind_case", Format::ir,
       [] { return ir_doc(R"("id": 1, "kind": "ReLU", "parents": [0], "shape": [2, 3])"); },
       kInvalid, "field kind: unknown op kind 'ReLU'"},
      {"ir_id_string", Format::ir,
       [] { return ir_doc(R"("id": "1", "kind": "relu", "parents": [0], "shape": [2, 3])"); },
       kInvalid, "field id: expected a non-negative integer, found \"1\""},
      {"ir_parents_object", Format::ir,
       [] { return ir_doc(R"("id": 1, "kind": "relu", "parents": {}, "shape": [2, 3])"); },
       kInvalid, "node 1 (relu): field parents: expected an array, found an object"},
      {"ir_shape_null", Format::ir,
       [] { return ir_doc(R"("id": 1, "kind": "relu", "parents": [0], "shape": null)"); }, kInvalid,
       "node 1 (relu): field shape: expected an array, found null"},
      {"ir_name_number", Format::ir, [] { return ir_doc(std::string(kRelu) + R"(, "name": 5)"); },
       kInvalid, "node 1 (relu): field name: expected a non-empty string, found 5"},
      {"ir_axis_bool", Format::ir,
       [] {
         return ir_doc(
             R"("id": 1, "kind": "softmax", "parents": [0], "shape": [2, 3], "axis": true)");
       },
       kInvalid, "node 1 (softmax): field axis: expected a non-negative integer, found true"},
      // torchlean.ir.v1: graph structure (reported by ir::check).
      {"ir_self_parent", Format::ir,
       [] { return ir_doc(R"("id": 1, "kind": "relu", "parents": [1], "shape": [2, 3])"); },
       kInvalid, "node 1 (relu)"},
      {"ir_cycle", Format::ir,
       [] {
         return replaced(ir_doc(R"("id": 1, "kind": "relu", "parents": [2], "shape": [2, 3])",
                                R"(, {"id": 2, "kind": "relu", "parents": [1], "shape": [2, 3]})"),
                         "\"output_ids\": [1]", "\"output_ids\": [2]");
       },
       kInvalid, "node 1 (relu)"},
      {"ir_parent_past_end", Format::ir,
       [] { return ir_doc(R"("id": 1, "kind": "relu", "parents": [99], "shape": [2, 3])"); },
       kInvalid, "node 1 (relu)"},
      {"ir_duplicate_id", Format::ir,
       [] { return ir_doc(R"("id": 0, "kind": "relu", "parents": [0], "shape": [2, 3])"); },
       kInvalid, "id differs from its index 1"},
      {"ir_non_contiguous_id", Format::ir,
       [] { return ir_doc(R"("id": 5, "kind": "relu", "parents": [0], "shape": [2, 3])"); },
       kInvalid, "id differs from its index 1"},
      {"ir_output_past_end", Format::ir,
       [] { return replaced(ir_doc(kRelu), "\"output_ids\": [1]", "\"output_ids\": [1, 7]"); },
       kInvalid, "output_ids[1] 7 does not name a node"},
      {"ir_legacy_output_past_end", Format::ir,
       [] { return replaced(ir_doc(kRelu), "\"output_ids\": [1]", "\"output_id\": 7"); }, kInvalid,
       "output_ids[0] 7 does not name a node"},
      // torchlean.ir.v1: dimensions, ranks and element counts.
      {"ir_dim_negative", Format::ir,
       [] { return ir_doc(R"("id": 1, "kind": "relu", "parents": [0], "shape": [2, -3])"); },
       kInvalid, "node 1 (relu): field shape[1]: expected a non-negative integer, found -3"},
      {"ir_dim_fractional", Format::ir,
       [] { return ir_doc(R"("id": 1, "kind": "relu", "parents": [0], "shape": [2.5, 3])"); },
       kInvalid, "node 1 (relu): field shape[0]: expected a non-negative integer, found 2.5"},
      {"ir_dim_exponent", Format::ir,
       [] { return ir_doc(R"("id": 1, "kind": "relu", "parents": [0], "shape": [2e0, 3])"); },
       kInvalid, "field shape[0]: expected a non-negative integer, found 2e0"},
      {"ir_dim_nan", Format::ir,
       [] { return ir_doc(R"("id": 1, "kind": "relu", "parents": [0], "shape": [NaN, 3])"); },
       kInvalid, "invalid JSON at line 1"},
      {"ir_dim_string_nan", Format::ir,
       [] { return ir_doc(R"("id": 1, "kind": "relu", "parents": [0], "shape": ["NaN", 3])"); },
       kInvalid, "field shape[0]: expected a non-negative integer, found \"NaN\""},
      {"ir_dim_past_u64", Format::ir,
       [] {
         return ir_doc(
             R"("id": 1, "kind": "relu", "parents": [0], "shape": [2, 99999999999999999999999])");
       },
       kInvalid, "field shape[1]: 99999999999999999999999 is out of range"},
      {"ir_dim_past_limit", Format::ir,
       [] {
         return ir_doc(R"("id": 1, "kind": "relu", "parents": [0], "shape": [0, 281474976710657])");
       },
       kInvalid,
       "node 1 (relu): field shape[1]: 281474976710657 exceeds the dimension limit of "
       "281474976710656 (2^48)"},
      {"ir_product_overflows", Format::ir,
       [] {
         return ir_doc(R"("id": 1, "kind": "relu", "parents": [0],)"
                       R"( "shape": [4294967296, 4294967296, 4294967296])");
       },
       kInvalid,
       "node 1 (relu): field shape: [4294967296,4294967296,4294967296] has more than 2^64 "
       "elements; the limit is 281474976710656 (2^48) per tensor"},
      {"ir_tensor_claims_a_petabyte", Format::ir,
       [] {
         return ir_doc(R"("id": 1, "kind": "const", "parents": [], "shape": [16777216, 16777217],)"
                       R"( "value_shape": [16777216, 16777217])");
       },
       kInvalid,
       "node 1 (const): field shape: [16777216,16777217] has 281474993487872 elements; the limit "
       "is "
       "281474976710656 (2^48) per tensor"},
      {"ir_rank_100", Format::ir,
       [] {
         return ir_doc(R"("id": 1, "kind": "relu", "parents": [0], "shape": [)" +
                       repeat("1, ", 99) + "1]");
       },
       kInvalid, "node 1 (relu): field shape: more than 64 entries; the limit is 64"},
      {"ir_perm_rank_100", Format::ir,
       [] {
         return ir_doc(R"("id": 1, "kind": "permute", "parents": [0], "shape": [2, 3], "perm": [)" +
                       repeat("0, ", 99) + "0]");
       },
       kInvalid, "node 1 (permute): field perm: more than 64 entries"},
      {"ir_kernel_rank_100", Format::ir,
       [] {
         return ir_doc(R"("id": 1, "kind": "conv", "parents": [0], "shape": [2, 3], "kernel": [)" +
                       repeat("1, ", 99) + "1]");
       },
       kInvalid, "node 1 (conv): field kernel: more than 64 entries; the limit is 64"},
      {"ir_mask_claims_2_48_elements", Format::ir,
       [] {
         return ir_doc(R"("id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2, 3],)"
                       R"( "mask": {"shape": [16777216, 16777216], "allowed": [true]})");
       },
       kInvalid,
       "node 1 (hard_masked_softmax): field mask.allowed: 1 entries, expected 281474976710656"},
      {"ir_mask_rank_100", Format::ir,
       [] {
         return ir_doc(R"("id": 1, "kind": "hard_masked_softmax", "parents": [0], "shape": [2, 3],)"
                       R"( "mask": {"allowed": [], "shape": [)" +
                       repeat("1, ", 99) + "1]}");
       },
       kInvalid, "field mask.shape: more than 64 entries; the limit is 64"},
      {"ir_factor_past_float", Format::ir,
       [] {
         return replaced(
             ir_doc(R"("id": 1, "kind": "scale", "parents": [0], "shape": [2, 3], "factor": 1e39)"),
             "torchlean.ir.v1", "nnplan.ir.v1");
       },
       kInvalid, "node 1 (scale): field factor: 1e39 is out of range for a 32-bit float"},
      {"ir_too_many_parents", Format::ir,
       [] {
         return ir_doc(R"("id": 1, "kind": "sum", "parents": [)" + repeat("0,", 70000) +
                       R"(0], "shape": [2, 3])");
       },
       kInvalid, "node 1 (sum): field parents: more than 65536 entries; the limit is 65536"},
      // torchlean.ir.v1: text.
      {"ir_deep_nesting", Format::ir,
       [] { return std::string(100000, '[') + std::string(100000, ']'); }, kInvalid,
       "g.json: expected a JSON object"},
      {"ir_deep_nesting_in_node", Format::ir,
       [] {
         return ir_doc(std::string(R"("id": 1, "kind": "relu", "parents": )") +
                       std::string(100000, '[') + std::string(100000, ']'));
       },
       kInvalid,
       "node 1 (relu): field parents[0]: expected a non-negative integer, found an array"},
      {"ir_deep_nesting_in_root", Format::ir,
       [] {
         return std::string(R"({"format": "torchlean.ir.v1", "nodes": [{"id": )") +
                std::string(100000, '[');
       },
       kInvalid, "g.json: node 0: field id: expected a non-negative integer, found an array"},
      {"ir_deep_nesting_in_mask", Format::ir,
       [] {
         return ir_doc(std::string(R"("id": 1, "kind": "hard_masked_softmax", "parents": [0], )"
                                   R"("shape": [2], "mask": {"shape": [1], "allowed": )") +
                       std::string(100000, '[') + std::string(100000, ']') + "}");
       },
       kInvalid,
       "node 1 (hard_masked_softmax): field mask.allowed[0]: expected true or false, found an "
       "array"},
      {"ir_huge_name", Format::ir,
       [] {
         return ir_doc(std::string(kRelu) + R"(, "name": ")" + std::string(70000, 'a') + "\"");
       },
       kInvalid, "node 1 (relu): field name: string of 70000 bytes; the limit is 65536 bytes"},
      {"ir_huge_kind", Format::ir,
       [] {
         return ir_doc(R"("id": 1, "kind": ")" + std::string(100000, 'k') +
                       R"(", "parents": [0], "shape": [2, 3])");
       },
       kInvalid, "node 1: field kind: string of 100000 bytes"},
      {"ir_invalid_utf8", Format::ir,
       [] { return ir_doc(std::string(kRelu) + ", \"name\": \"a\xFF\xFE\""); }, kInvalid,
       "invalid JSON at line 1"},
      {"ir_control_char_in_string", Format::ir,
       [] { return ir_doc(std::string(kRelu) + ", \"name\": \"a\x01\""); }, kInvalid,
       "invalid JSON at line 1"},
      {"ir_trailing_garbage", Format::ir, [] { return ir_doc(kRelu) + " x"; }, kInvalid,
       "invalid JSON at line 1"},
      {"ir_nul_then_content", Format::ir,
       [] { return ir_doc(kRelu) + std::string(1, '\0') + ir_doc(kRelu); }, kInvalid,
       "g.json: NUL byte at line 1, column"},

      // nnplan.capsules.v1.
      {"registry_empty", Format::registry, text(""), kInvalid, "r.json: empty document"},
      {"registry_truncated", Format::registry,
       [] { return std::string(kMinimalRegistry.substr(0, 120)); }, kInvalid,
       "r.json: invalid JSON at"},
      {"registry_bom_then_array", Format::registry, text("\xEF\xBB\xBF[]"), kInvalid,
       "r.json: expected a JSON object"},
      {"registry_format_unknown", Format::registry,
       [] { return registry_with("nnplan.capsules.v1", "nnplan.capsules.v9"); }, kInvalid,
       "field format: expected 'nnplan.capsules.v1', found 'nnplan.capsules.v9'"},
      {"registry_modules_object", Format::registry,
       text(R"({"format": "nnplan.capsules.v1", "modules": {}})"), kInvalid, "field modules"},
      {"registry_module_name_number", Format::registry,
       [] { return registry_with(R"("name": "acme")", R"("name": 7)"); }, kInvalid, "field name"},
      {"registry_duplicate_key", Format::registry,
       [] { return registry_with(R"("trust": "checked")", R"("trust": "checked", "trust": "x")"); },
       kInvalid, "trust"},
      {"registry_unknown_trust", Format::registry,
       [] { return registry_with(R"("trust": "checked")", R"("trust": "sorta")"); }, kInvalid,
       "'sorta'"},
      {"registry_unknown_claim_kind", Format::registry,
       [] { return registry_with(R"("kind": "shape-safety")", R"("kind": "shape-safe")"); },
       kInvalid, "'shape-safe'"},
      {"registry_unknown_evidence_kind", Format::registry,
       [] { return registry_with(R"("kind": "test-suite")", R"("kind": "vibes")"); }, kInvalid,
       "'vibes'"},
      {"registry_capsules_string", Format::registry,
       text(R"({"format": "nnplan.capsules.v1", "modules": [{"name": "a", "capsules": "x"}]})"),
       kInvalid, "field capsules"},
      {"registry_invalid_utf8", Format::registry,
       [] { return registry_with(R"("name": "acme")", "\"name\": \"ac\xC3\x28me\""); }, kInvalid,
       "r.json: invalid JSON at"},
      {"registry_deep_nesting", Format::registry,
       [] { return std::string(100000, '[') + std::string(100000, ']'); }, kInvalid,
       "r.json: JSON nesting reaches 65 levels at line 1, column 65; the limit is 64 levels"},
      {"registry_huge_string", Format::registry,
       [] {
         return registry_with(R"("name": "acme")", "\"name\": \"" + std::string(70000, 'a') + "\"");
       },
       kInvalid,
       "r.json: JSON string at line 2, column 23 is 70000 bytes long; the limit is 65536"},
      {"registry_too_many_modules", Format::registry, [] { return registry_of_modules(4097); },
       kInvalid, "field modules: holds 4097 modules; the limit is 4096"},

      // nnplan.plan.v1.
      {"artifact_empty", Format::artifact, text(""), kInvalid, "p.json: invalid JSON"},
      {"artifact_truncated", Format::artifact, [] { return valid_artifact().substr(0, 100); },
       kInvalid, "p.json: invalid JSON at"},
      {"artifact_bom_then_array", Format::artifact, text("\xEF\xBB\xBF[]"), kInvalid,
       "p.json: not an nnplan.plan.v1 artifact: expected a JSON object"},
      {"artifact_array", Format::artifact, text("[1, 2]"), kInvalid, "expected a JSON object"},
      {"artifact_wrong_format", Format::artifact,
       [] { return artifact_with("\"nnplan.plan.v1\"", "\"torchlean.ir.v1\""); }, kInvalid,
       "format is 'torchlean.ir.v1'"},
      {"artifact_accepted_string", Format::artifact,
       [] { return artifact_with("\"accepted\": true", "\"accepted\": \"true\""); }, kInvalid,
       "field accepted: expected a boolean"},
      {"artifact_unknown_device", Format::artifact,
       [] { return artifact_with("\"device\": \"cpu\"", "\"device\": \"gpu\""); }, kInvalid,
       "field profile.device: unknown device 'gpu'"},
      {"artifact_groups_number", Format::artifact,
       [] {
         auto doc = nlohmann::ordered_json::parse(valid_artifact());
         doc["groups"] = 5;
         return doc.dump();
       },
       kInvalid, "field groups: expected an array"},
      {"artifact_nodes_fractional", Format::artifact,
       [] { return artifact_with("\"nodes\": 2", "\"nodes\": 2.5"); }, kInvalid,
       "field graph.nodes: expected null or a non-negative integer"},
      {"artifact_deep_nesting", Format::artifact,
       [] { return "{\"format\": " + std::string(100000, '['); }, kInvalid,
       "p.json: JSON nesting reaches 65 levels at line 1, column 75"},
      {"artifact_deep_nesting_in_groups", Format::artifact,
       [] {
         return artifact_with("\"groups\": [", "\"groups\": [" + std::string(1000, '[') +
                                                   std::string(1000, ']') + ",");
       },
       kInvalid, "p.json: JSON nesting reaches 65 levels at line"},
      {"artifact_huge_string", Format::artifact,
       [] { return artifact_with("\"checked_cpu\"", "\"" + std::string(1 << 17, 'p') + "\""); },
       kInvalid, "p.json: JSON string at line"},
      {"artifact_invalid_utf8", Format::artifact,
       [] { return artifact_with("\"checked_cpu\"", "\"checked\xFF\""); }, kInvalid,
       "p.json: invalid JSON at"},

      // The shared strict JSON reader (json_document.hpp), across the three DOM formats: repeated
      // keys at several depths, NUL bytes, trailing content, the element limit, deep nesting.
      {"registry_repeated_module_key", Format::registry,
       [] { return registry_with(R"("name": "acme")", R"("name": "acme", "name": "acme")"); },
       kInvalid, "r.json: module 'acme': field name: field appears more than once (at line 2"},
      {"registry_repeated_key_in_evidence", Format::registry,
       [] {
         return registry_with(R"("kind": "test-suite", "name": "t")",
                              R"("kind": "test-suite", "name": "t", "name": "u")");
       },
       kInvalid,
       "r.json: module 'acme' capsule 'acme.relu': field contracts.value.evidence.name: field "
       "appears more than once (at line"},
      {"registry_nul_then_content", Format::registry,
       [] { return std::string(kMinimalRegistry) + std::string(1, '\0') + "{\"format\": 1}"; },
       kInvalid, "r.json: NUL byte at line"},
      {"registry_trailing_document", Format::registry,
       [] { return std::string(kMinimalRegistry) + "\n" + std::string(kMinimalRegistry); },
       kInvalid, "r.json: content after the end of the JSON document at line"},
      {"registry_element_limit", Format::registry,
       [] {
         std::string text = past_element_limit(R"({"format": "nnplan.capsules.v1", )", "modules",
                                               kMaxRegistryJsonElements, "");
         text.resize(text.size() - 2);  // the member's ", "
         return text + "}";
       },
       kInvalid,
       "r.json: JSON document holds more than 8388608 elements (at line 1, column 16777257); the "
       "limit is 8388608 elements"},
      {"registry_huge_unknown_field", Format::registry,
       [] {
         return R"({"format": "nnplan.capsules.v1", )" + junk_member(100000, "[]") +
                R"("modules": []})";
       },
       kInvalid, "r.json: field junk: unknown field; valid: format, modules"},
      {"payloads_repeated_top_level_key", Format::payloads,
       [] {
         return payload_file(payload_index(R"("node_id": 1, "name": "eps", "value": 1)",
                                           R"("format": "nnplan.payloads.v1", )"));
       },
       kInvalid, "m.payloads: index: field format appears more than once (at line 1, column 66)"},
      {"payloads_repeated_key_in_attribute", Format::payloads,
       [] {
         return payload_file(
             payload_index(R"("node_id": 1, "name": "eps", "value": 1, "value": 2)"));
       },
       kInvalid, "m.payloads: index: field attributes[0].value appears more than once (at line 1"},
      {"payloads_nul_then_content", Format::payloads,
       [] { return payload_file(payload_index() + std::string(1, '\0') + payload_index()); },
       kInvalid, "m.payloads: index: NUL byte at line 1, column"},
      {"payloads_trailing_content", Format::payloads,
       [] { return payload_file(payload_index() + " []"); }, kInvalid,
       "m.payloads: index: content after the end of the JSON document at line 1"},
      {"payloads_deep_nesting", Format::payloads,
       [] {
         return payload_file(payload_index(R"("node_id": 1, "name": "eps", "value": )" +
                                           std::string(100, '[') + std::string(100, ']')));
       },
       kInvalid, "m.payloads: index: JSON nesting reaches 65 levels at line 1, column"},
      {"payloads_huge_string", Format::payloads,
       [] {
         return payload_file(payload_index(R"("node_id": 1, "name": ")" + std::string(70000, 'n') +
                                           R"(", "value": 1)"));
       },
       kInvalid, "m.payloads: index: JSON string at line 1, column 104 is 70000 bytes long"},
      {"payloads_element_limit", Format::payloads,
       [] {
         return payload_file(past_element_limit(
             R"({"format": "nnplan.payloads.v1", "data_bytes": 0, "attributes": [], )", "entries",
             kMaxJsonElements, R"("x": 0})"));
       },
       kInvalid, "m.payloads: index: JSON document holds more than 16777216 elements"},
      {"artifact_repeated_groups_forged_first", Format::artifact,
       [] {
         return artifact_with("\"groups\": [",
                              R"("groups": [{"capsule": "forged.relu"}], "groups": [)");
       },
       kInvalid, "p.json: field groups appears more than once (at line"},
      {"artifact_repeated_key_in_group", Format::artifact,
       [] { return artifact_with("\"grouping\": ", "\"grouping\": \"x\", \"grouping\": "); },
       kInvalid, "p.json: field groups[0].grouping appears more than once (at line"},
      {"artifact_repeated_key_in_profile", Format::artifact,
       [] {
         return artifact_with("\"device\": \"cpu\"", "\"device\": \"cpu\", \"device\": \"cpu\"");
       },
       kInvalid, "p.json: field profile.device appears more than once (at line"},
      {"artifact_nul_then_tampered_copy", Format::artifact,
       [] {
         return valid_artifact() + std::string(1, '\0') +
                artifact_with("\"accepted\": true", "\"accepted\": false");
       },
       kInvalid, "p.json: NUL byte at line"},
      {"artifact_trailing_document", Format::artifact,
       [] { return valid_artifact() + valid_artifact(); }, kInvalid,
       "p.json: content after the end of the JSON document at line"},
      {"artifact_element_limit", Format::artifact,
       [] {
         return past_element_limit(R"({"format": "nnplan.plan.v1", )", "profile", 1 << 16,
                                   R"("graph": null})");
       },
       kInvalid, "p.json: JSON document holds more than 65536 elements"},
      {"artifact_huge_unknown_field", Format::artifact,
       [] {
         return R"({"format": "nnplan.plan.v1", )" + junk_member(1000000, "[]") +
                R"("graph": null})";
       },
       kInvalid, "p.json: field junk: unknown field; valid: format, profile, graph"},

      // ONNX.
      {"onnx_empty_graph", Format::onnx, text(""), kInvalid, "m.onnx"},
      {"onnx_garbage", Format::onnx, text("\xFF\xFF\xFF\xFF\xFF"), kInvalid, "m.onnx"},
      {"onnx_truncated", Format::onnx,
       [] {
         const std::string m = onnx_model();
         return m.substr(0, m.size() - 3);
       },
       kInvalid, "m.onnx"},
      {"onnx_wrong_wire_type_graph", Format::onnx,
       // ModelProto.graph (field 7) as a varint instead of a message.
       [] { return key(1, 0) + varint(8) + key(7, 0) + varint(5); }, kInvalid, "m.onnx"},
      {"onnx_length_past_end", Format::onnx, [] { return key(7, 2) + varint(1000000) + "abc"; },
       kInvalid, "m.onnx"},
      {"onnx_huge_length_claim", Format::onnx,
       [] { return key(7, 2) + varint(~std::uint64_t{0} >> 1); }, kInvalid, "m.onnx"},
      {"onnx_no_opset", Format::onnx,
       [] { return onnx_model([](onnx::ModelProto& m) { m.clear_opset_import(); }); }, kInvalid,
       "m.onnx"},
      {"onnx_unknown_op", Format::onnx,
       [] {
         return onnx_model(
             [](onnx::ModelProto& m) { m.mutable_graph()->mutable_node(0)->set_op_type("Gelu2"); });
       },
       ErrorKind::unsupported, "Gelu2"},
      {"onnx_input_negative_dim", Format::onnx,
       [] {
         return onnx_input_dims({2, -3});
       },
       ErrorKind::unsupported, "dimension 1 of input 'x' is dynamic"},
      {"onnx_input_dim_past_limit", Format::onnx,
       [] {
         return onnx_input_dims({2, std::int64_t{1} << 50});
       },
       kInvalid, "dimension 1 of input 'x' is 1125899906842624; the limit is 281474976710656"},
      {"onnx_input_rank_100", Format::onnx,
       [] { return onnx_input_dims(std::vector<std::int64_t>(100, 1)); }, kInvalid,
       "input 'x' has rank 100; the limit is 64"},
      {"onnx_initializer_claims_1tb", Format::onnx,
       [] {
         return onnx_with_initializer([](onnx::TensorProto& t) {
           t.add_dims(std::int64_t{1} << 38);  // 2^38 float32 = 1 TiB, with no data
         });
       },
       kInvalid, "tensor 'w': float_data holds 0 values, dims [274877906944] of float32 need"},
      {"onnx_initializer_raw_short", Format::onnx,
       [] {
         return onnx_with_initializer([](onnx::TensorProto& t) {
           t.add_dims(std::int64_t{1} << 38);
           t.set_raw_data("abcd");
         });
       },
       kInvalid, "tensor 'w': raw_data holds 4 bytes"},
      {"onnx_initializer_wrapping_byte_count", Format::onnx,
       [] {
         return onnx_with_initializer([](onnx::TensorProto& t) {
           t.add_dims(std::int64_t{1} << 62);  // 2^62 * 4 bytes wraps to 0 in 64 bits
           t.set_raw_data("");
         });
       },
       kInvalid, "tensor 'w' has dimension 4611686018427387904; the limit is"},
      {"onnx_initializer_overflow", Format::onnx,
       [] {
         return onnx_with_initializer([](onnx::TensorProto& t) {
           t.add_dims(std::int64_t{1} << 40);
           t.add_dims(std::int64_t{1} << 40);
         });
       },
       kInvalid, "tensor 'w' has more elements than fit in 64 bits"},
      {"onnx_initializer_negative_dim", Format::onnx,
       [] { return onnx_with_initializer([](onnx::TensorProto& t) { t.add_dims(-1); }); }, kInvalid,
       "tensor 'w' has negative dimension -1"},
      {"onnx_initializer_rank_100", Format::onnx,
       [] {
         return onnx_with_initializer([](onnx::TensorProto& t) {
           for (int i = 0; i < 100; ++i)
             t.add_dims(1);
           t.add_float_data(1.0f);
         });
       },
       kInvalid, "tensor 'w' has rank 100; the limit is 64"},
      {"onnx_cycle", Format::onnx,
       [] {
         return onnx_model([](onnx::ModelProto& m) {
           auto* n = m.mutable_graph()->mutable_node(0);
           n->set_op_type("Add");
           n->add_input("y");  // its own output
         });
       },
       kInvalid, "'y'"},
  };
  return out;
}

Expected<void> run(const HostileCase& c, const std::string& input) {
  switch (c.format) {
    case Format::ir: {
      auto graph = parse_ir_json(input, "g.json");
      if (!graph) return std::unexpected(std::move(graph.error()));
      auto checked = ir::check(std::move(*graph));
      if (!checked) return std::unexpected(std::move(checked.error()));
      return {};
    }
    case Format::registry: {
      auto modules = parse_registry_json(input, "r.json");
      if (!modules) return std::unexpected(std::move(modules.error()));
      return {};
    }
    case Format::artifact: {
      auto artifact = parse_plan_artifact(input, "p.json");
      if (!artifact) return std::unexpected(std::move(artifact.error()));
      return {};
    }
    case Format::payloads: {
      const auto bytes = std::as_bytes(std::span(input.data(), input.size()));
      auto store = parse_payloads(bytes, "m.payloads");
      if (!store) return std::unexpected(std::move(store.error()));
      return {};
    }
    case Format::onnx: {
      const auto bytes = std::as_bytes(std::span(input.data(), input.size()));
      auto model = import_onnx(bytes, "m.onnx");
      if (!model) return std::unexpected(std::move(model.error()));
      auto checked = ir::check(model->graph());
      if (!checked) return std::unexpected(std::move(checked.error()));
      return {};
    }
  }
  return {};
}

TEST(HostileInputs, TableHasAtLeastSixtyCases) {
  EXPECT_GE(cases().size(), 60u);
}

TEST(HostileInputs, EachIsRefusedWithItsKindAndLocation) {
  for (const HostileCase& c : cases()) {
    SCOPED_TRACE(c.label);
    const std::string input = c.input();
    const auto result = run(c, input);
    if (result.has_value()) {
      ADD_FAILURE() << "accepted";
      continue;
    }
    EXPECT_EQ(result.error().kind, c.kind) << result.error().message;
    EXPECT_NE(result.error().message.find(c.fragment), std::string::npos)
        << "message: " << result.error().message;
    EXPECT_EQ(result.error().message.find('\n'), std::string::npos);
  }
}

// A UTF-8 byte order mark before a JSON document is skipped (nlohmann's lexer does so, and RFC
// 8259 lets parsers ignore it): the document reads as it would without it.
TEST(HostileInputs, ByteOrderMarkIsAccepted) {
  const std::string bom = "\xEF\xBB\xBF";
  EXPECT_TRUE(parse_ir_json(bom + ir_doc(kRelu), "g.json").has_value());
  EXPECT_TRUE(parse_registry_json(bom + std::string(kMinimalRegistry), "r.json").has_value());
  EXPECT_TRUE(parse_plan_artifact(bom + valid_artifact(), "p.json").has_value());
}

// The registry limit on capsules counts all modules together.
TEST(HostileInputs, RegistryCapsuleCountIsBounded) {
  std::string capsules;
  for (std::size_t i = 0; i <= kMaxRegistryCapsules / 16; ++i)
    capsules += std::string(i == 0 ? "" : ",") + "{}";
  std::string doc = R"({"format": "nnplan.capsules.v1", "modules": [)";
  for (int m = 0; m < 16; ++m)
    doc += std::string(m == 0 ? "" : ",") + R"({"name": "m", "capsules": [)" + capsules + "]}";
  doc += "]}";
  const auto result = parse_registry_json(doc, "r.json");
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().kind, kInvalid);
  EXPECT_NE(result.error().message.find("capsules; the limit is 65536"), std::string::npos)
      << result.error().message;
}

}  // namespace
}  // namespace nnplan::format
