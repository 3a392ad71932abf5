// Writer of `torchlean.ir.v1` and `nnplan.ir.v1` graph documents: the current vocabulary only,
// `nnplan.ir.v1` exactly when a node has an nnplan extension kind, each kind's op fields in the
// order of its row in ir/op_kinds.def, floats in their shortest round-tripping form.
#include "nnplan/format/ir_json.hpp"
#include "nnplan/text_escape.hpp"

#include <array>
#include <charconv>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <utility>
#include <variant>

#include "ir_json_fields.hpp"

namespace nnplan::format {
namespace {

using namespace ir_json;
using Json = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// The writer.

void append_uint(std::string& out, std::uint64_t value) {
  std::array<char, 24> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), result.ptr);
}

template <class T>
void append_list(std::string& out, std::span<const T> values) {
  out += '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i != 0) out += ", ";
    append_uint(out, values[i]);
  }
  out += ']';
}

void append_key(std::string& out, std::string_view key) {
  out += ", \"";
  out += key;
  out += "\": ";
}

void append_value(std::string& out, std::uint32_t value) {
  append_uint(out, value);
}
void append_value(std::string& out, std::uint64_t value) {
  append_uint(out, value);
}
void append_value(std::string& out, bool value) {
  out += value ? "true" : "false";
}
// The shortest text that reads back as the same float; negative zero as -0.0, which reads back
// as a float (-0 would read as the integer 0). JSON has no infinities or NaN, and the reader
// never makes one: a non-finite value, which only a hand-built graph holds, is written as null.
void append_value(std::string& out, float value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  if (value == 0.0F && std::signbit(value)) {
    out += "-0.0";
    return;
  }
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), result.ptr);
}
void append_value(std::string& out, const std::optional<float>& value) {
  if (!value) {
    out += "null";
    return;
  }
  append_value(out, *value);
}
void append_value(std::string& out, ir::GeluApproximation value) {
  out += '"';
  out += enum_name(kGeluApproximationNames, value);
  out += '"';
}
void append_value(std::string& out, ir::ScatterReduction value) {
  out += '"';
  out += enum_name(kScatterReductionNames, value);
  out += '"';
}
void append_value(std::string& out, ir::RecurrentDirection value) {
  out += '"';
  out += enum_name(kRecurrentDirectionNames, value);
  out += '"';
}
void append_value(std::string& out, ir::SampleMode value) {
  out += '"';
  out += enum_name(kSampleModeNames, value);
  out += '"';
}
void append_value(std::string& out, ir::GridSamplePadding value) {
  out += '"';
  out += enum_name(kGridSamplePaddingNames, value);
  out += '"';
}
void append_value(std::string& out, ir::CoordinateTransformation value) {
  out += '"';
  out += enum_name(kCoordinateTransformationNames, value);
  out += '"';
}
void append_value(std::string& out, ir::ResizeNearest value) {
  out += '"';
  out += enum_name(kResizeNearestNames, value);
  out += '"';
}
void append_value(std::string& out, const std::vector<float>& value) {
  out += '[';
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (i != 0) out += ", ";
    append_value(out, value[i]);
  }
  out += ']';
}
void append_value(std::string& out, const Shape& value) {
  append_list<ir::Dim>(out, value.dims);
}
void append_value(std::string& out, const std::vector<std::uint32_t>& value) {
  append_list<std::uint32_t>(out, value);
}
void append_value(std::string& out, const ir::MaskParams& value) {
  out += "{\"shape\": ";
  append_list<ir::Dim>(out, value.shape.dims);
  out += ", \"allowed\": [";
  for (std::size_t i = 0; i < value.allowed.size(); ++i) {
    if (i != 0) out += ", ";
    out += value.allowed[i] ? "true" : "false";
  }
  out += "]}";
}

// The op fields of `node`, in its kind's order, from its parameters as alternative P; the
// alternative's defaults when the variant holds another one (the writer stays total on graphs
// built by hand).
template <class P>
void append_params(std::string& out, const Node& node, std::span<const Field> fields) {
  const P defaults{};
  const P* held = std::get_if<P>(&node.params);
  const P& params = held != nullptr ? *held : defaults;
  for (const Field f : fields) {
    ParamsFields<P>::each([&](Field member_field, auto member) {
      if (member_field != f) return;
      append_key(out, name_of(f));
      append_value(out, member(params));
    });
  }
}

template <std::size_t... I>
constexpr std::array<void (*)(std::string&, const Node&, std::span<const Field>), sizeof...(I)>
params_writers(std::index_sequence<I...>) {
  return {&append_params<std::variant_alternative_t<I, ir::OpParams>>...};
}

void append_op_fields(std::string& out, const Node& node) {
  static constexpr auto kWriters =
      params_writers(std::make_index_sequence<std::variant_size_v<ir::OpParams>>{});
  kWriters[ir::op_traits(node.kind).params](out, node, op_fields(node.kind));
}

}  // namespace

std::string_view ir_format_for(const ir::Graph& graph) {
  for (const Node& node : graph.nodes) {
    // Extension kinds, int64 and bool values, and weights as values exist only in nnplan's
    // superset.
    if (ir::op_traits(node.kind).origin == ir::KindOrigin::nnplan ||
        node.dtype != ir::DType::float32 ||
        ir::takes_weights_as_values(ir::op_traits(node.kind).payloads, node.parents.size())) {
      return kNnplanIrFormat;
    }
  }
  return kIrFormat;
}

std::string write_ir_json(const ir::Graph& graph) {
  std::string out;
  out.reserve(96 + graph.nodes.size() * 80);
  out += "{\n  \"format\": \"";
  out += ir_format_for(graph);
  out += "\",\n  \"input_id\": ";
  append_uint(out, graph.input_id);
  out += ",\n  \"output_ids\": ";
  append_list<ir::NodeId>(out, graph.output_ids);
  out += ",\n  \"nodes\": [";
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    out += i == 0 ? "\n    {\"id\": " : ",\n    {\"id\": ";
    append_uint(out, node.id);
    out += ", \"kind\": \"";
    out += kind_name(node.kind);
    out += '"';
    append_key(out, "parents");
    append_list<ir::NodeId>(out, node.parents);
    append_key(out, "shape");
    append_list<ir::Dim>(out, node.shape.dims);
    append_op_fields(out, node);
    if (node.dtype != ir::DType::float32) {
      append_key(out, "dtype");
      out += '"';
      out += ir::to_string(node.dtype);
      out += '"';
    }
    if (!node.source_name.empty()) {
      append_key(out, "name");
      // Bytes that are not UTF-8 are written as the text `\xNN`, as in every JSON output.
      out += Json(valid_utf8(node.source_name) ? node.source_name : utf8_escaped(node.source_name))
                 .dump(-1, ' ', false);
    }
    out += '}';
  }
  out += graph.nodes.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace nnplan::format
