// Helpers for the ONNX importer's tests (tests/format/onnx/*_test.cpp): small ModelProtos built
// with ONNX's own protobuf classes (Model), imported and rendered one line per IR node
// (`id kind(params) [parents] -> shape 'source'`), and the error of an import that fails.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <source_location>
#include <string>
#include <variant>
#include <vector>

#include "../protobuf_wire.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "nnplan/ir/check.hpp"

namespace nnplan::format::onnx_test {

using ir::OpKind;
using wire::delimited_field;
using wire::to_bytes;
using wire::varint_field;
using Lines = std::vector<std::string>;

constexpr int kFloat = onnx::TensorProto_DataType_FLOAT;

inline std::string dims(const ir::Shape& s) {
  return ir::to_string(s);
}

// The shortest decimal that reads back as `f`.
inline std::string fmt_float(float f) {
  std::array<char, 64> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), f);
  return std::string(buf.data(), r.ptr);
}

// Per-axis lists joined by 'x': `3x3`.
inline std::string per_axis(const std::vector<std::uint32_t>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i)
    out += (i ? "x" : "") + std::to_string(values[i]);
  return out;
}

// One line per node: `id kind(params) [parents] -> shape 'source'`. Window parameters read
// `k=` kernel, `s=` stride, `p=` padding (before), `pa=` padding after, `d=` dilation, `g=` groups,
// `op=` output padding, and `axis=` the channel axis.
inline std::string line(const ir::Node& n) {
  std::string out = std::to_string(n.id) + " " + std::string(ir::to_string(n.kind));
  std::visit(
      [&](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, ir::PermuteParams>) {
          out += "(perm=";
          for (std::size_t i = 0; i < p.perm.size(); ++i)
            out += (i ? "," : "") + std::to_string(p.perm[i]);
          out += ")";
        } else if constexpr (std::is_same_v<P, ir::PoolParams>) {
          out += "(k=" + per_axis(p.kernel) + ",s=" + per_axis(p.stride) +
                 ",p=" + per_axis(p.padding) + ")";
        } else if constexpr (std::is_same_v<P, ir::BroadcastParams>) {
          out += "(" + dims(p.from) + "->" + dims(p.to) + ")";
        } else if constexpr (std::is_same_v<P, ir::AxisParams>) {
          out += "(axis=" + std::to_string(p.axis) + ")";
        } else if constexpr (std::is_same_v<P, ir::ConvParams>) {
          out += "(" + std::to_string(p.in_channels) + "->" + std::to_string(p.out_channels) +
                 ",k=" + per_axis(p.kernel) + ",s=" + per_axis(p.stride) +
                 ",p=" + per_axis(p.padding) + ",pa=" + per_axis(p.padding_after) +
                 ",d=" + per_axis(p.dilation) + ",g=" + std::to_string(p.groups);
          if (!p.output_padding.empty()) out += ",op=" + per_axis(p.output_padding);
          out += ",axis=" + std::to_string(p.channel_axis) + ")";
        } else if constexpr (std::is_same_v<P, ir::ChannelAxisParams>) {
          out +=
              "(axis=" + std::to_string(p.channel_axis) + ",c=" + std::to_string(p.channels) + ")";
        } else if constexpr (std::is_same_v<P, ir::TransposeParams>) {
          out += "(" + std::to_string(p.axis1) + "," + std::to_string(p.axis2) + ")";
        } else if constexpr (std::is_same_v<P, ir::ReshapeParams>) {
          out += "(" + dims(p.in) + "->" + dims(p.out) + ")";
        } else if constexpr (std::is_same_v<P, ir::GeluParams>) {
          out += p.approximate == ir::GeluApproximation::tanh ? "(tanh)" : "(none)";
        } else if constexpr (std::is_same_v<P, ir::ClampParams>) {
          const auto bound = [](const std::optional<float>& b) {
            return b ? fmt_float(*b) : std::string("null");
          };
          out += "(min=" + bound(p.min) + ",max=" + bound(p.max) + ")";
        } else if constexpr (std::is_same_v<P, ir::ScaleParams>) {
          out += "(factor=" + fmt_float(p.factor) + ")";
        } else if constexpr (std::is_same_v<P, ir::AlphaParams>) {
          out += "(alpha=" + fmt_float(p.alpha) + ")";
        } else if constexpr (std::is_same_v<P, ir::HardSigmoidParams>) {
          out += "(alpha=" + fmt_float(p.alpha) + ",beta=" + fmt_float(p.beta) + ")";
        } else if constexpr (std::is_same_v<P, ir::CumSumParams>) {
          out += "(axis=" + std::to_string(p.axis) + (p.exclusive ? ",exclusive" : "") +
                 (p.reverse ? ",reverse" : "") + ")";
        } else if constexpr (std::is_same_v<P, ir::ScatterParams>) {
          static constexpr const char* kReductions[] = {"none", "add", "mul"};
          out += "(axis=" + std::to_string(p.axis) + "," +
                 kReductions[static_cast<int>(p.reduction)] + ")";
        } else if constexpr (std::is_same_v<P, ir::GatherNdParams>) {
          out += "(batch_dims=" + std::to_string(p.batch_dims) + ")";
        } else if constexpr (std::is_same_v<P, ir::TopKParams>) {
          out += "(axis=" + std::to_string(p.axis) + (p.largest ? ",largest" : ",smallest") + ")";
        }
      },
      n.params);
  if (!n.parents.empty()) {
    out += " [";
    for (std::size_t i = 0; i < n.parents.size(); ++i)
      out += (i ? "," : "") + std::to_string(n.parents[i]);
    out += "]";
  }
  return out + " -> " + dims(n.shape) + " '" + n.source_name + "'";
}

inline Lines lines(const ir::Graph& g) {
  Lines out;
  for (const auto& n : g.nodes)
    out.push_back(line(n));
  return out;
}

inline onnx::AttributeProto& new_attr(onnx::NodeProto& n, const std::string& name,
                                      onnx::AttributeProto_AttributeType type) {
  onnx::AttributeProto& a = *n.add_attribute();
  a.set_name(name);
  a.set_type(type);
  return a;
}
inline void attr_i(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
  new_attr(n, name, onnx::AttributeProto_AttributeType_INT).set_i(v);
}
inline void attr_f(onnx::NodeProto& n, const std::string& name, float v) {
  new_attr(n, name, onnx::AttributeProto_AttributeType_FLOAT).set_f(v);
}
inline void attr_s(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  new_attr(n, name, onnx::AttributeProto_AttributeType_STRING).set_s(v);
}
inline void attr_ints(onnx::NodeProto& n, const std::string& name, std::vector<std::int64_t> v) {
  auto& a = new_attr(n, name, onnx::AttributeProto_AttributeType_INTS);
  for (const auto x : v)
    a.add_ints(x);
}

inline std::vector<float> iota(std::size_t n, float start = 1.0f) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = start + static_cast<float>(i);
  return v;
}

inline void fill_tensor(onnx::TensorProto& t, const std::string& name, std::vector<std::int64_t> d,
                        const std::vector<float>& values, bool raw) {
  t.set_name(name);
  t.set_data_type(kFloat);
  for (const auto x : d)
    t.add_dims(x);
  if (raw) {
    t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
  } else {
    for (const float f : values)
      t.add_float_data(f);
  }
}

class Model {
 public:
  explicit Model(std::int64_t opset = 17) {
    m_.set_ir_version(8);
    m_.set_producer_name("test");
    auto* o = m_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
  }
  onnx::GraphProto& g() { return *m_.mutable_graph(); }
  onnx::ModelProto& proto() { return m_; }

  // -1 is a symbolic dimension named "batch".
  Model& input(const std::string& name, std::vector<std::int64_t> d, int dtype = kFloat) {
    auto* vi = g().add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(dtype);
    auto* shape = tt->mutable_shape();
    for (const auto x : d) {
      if (x < 0) {
        shape->add_dim()->set_dim_param("batch");
      } else {
        shape->add_dim()->set_dim_value(x);
      }
    }
    return *this;
  }
  Model& output(const std::string& name) {
    g().add_output()->set_name(name);
    return *this;
  }
  Model& init(const std::string& name, std::vector<std::int64_t> d, std::vector<float> values,
              bool raw = true) {
    fill_tensor(*g().add_initializer(), name, std::move(d), values, raw);
    return *this;
  }
  Model& init_bool(const std::string& name, std::vector<std::int64_t> d,
                   const std::vector<bool>& values) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_BOOL);
    for (const auto x : d)
      t->add_dims(x);
    for (const bool b : values)
      t->add_int32_data(b ? 1 : 0);
    return *this;
  }
  Model& init_i64(const std::string& name, std::vector<std::int64_t> values) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_INT64);
    t->add_dims(static_cast<std::int64_t>(values.size()));
    for (const auto v : values)
      t->add_int64_data(v);
    return *this;
  }
  onnx::NodeProto& node(const std::string& op, std::vector<std::string> ins,
                        std::vector<std::string> outs, const std::string& name = "") {
    auto* n = g().add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : ins)
      n->add_input(i);
    for (const auto& o : outs)
      n->add_output(o);
    return *n;
  }
  std::vector<std::byte> bytes() const {
    const std::string s = m_.SerializeAsString();
    std::vector<std::byte> out(s.size());
    if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());
    return out;
  }
  Expected<ImportedModel> import(const OnnxImportOptions& options = {}) const {
    return import_onnx(bytes(), "m.onnx", options);
  }

 private:
  onnx::ModelProto m_;
};

// A Slice node (opset 10 on) of `data` with constant starts, ends and, when not empty, axes and
// steps as int64 initializers; its output is `out`.
inline onnx::NodeProto& slice_node(Model& m, const std::string& data, const std::string& out,
                                   const std::string& name, std::vector<std::int64_t> starts,
                                   std::vector<std::int64_t> ends,
                                   std::vector<std::int64_t> axes = {},
                                   std::vector<std::int64_t> steps = {}) {
  m.init_i64("starts", std::move(starts)).init_i64("ends", std::move(ends));
  std::vector<std::string> ins{data, "starts", "ends"};
  if (!axes.empty()) {
    m.init_i64("axes", std::move(axes));
    ins.push_back("axes");
  }
  if (!steps.empty()) {
    if (ins.size() == 3) ins.push_back("");
    m.init_i64("steps", std::move(steps));
    ins.push_back("steps");
  }
  return m.node("Slice", ins, {out}, name);
}

// Stands in for a failed import, already reported, so that the test goes on to fail its checks:
// a graph of one [1] input, which is also its output.
inline ImportedModel failed_import() {
  ir::Graph graph;
  graph.nodes.push_back(ir::Node{.id = 0, .kind = ir::OpKind::input, .shape = ir::Shape{{1}}});
  graph.output_ids = {0};
  Expected<ir::CheckedGraph> checked = ir::check(std::move(graph));
  EXPECT_TRUE(checked.has_value());
  return ImportedModel{.checked = std::move(*checked)};
}

// Imports and returns the model, failing the test with the error when import fails.
inline ImportedModel ok(const Model& m, const OnnxImportOptions& options = {}) {
  Expected<ImportedModel> r = m.import(options);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  if (!r) return failed_import();
  EXPECT_TRUE(ir::check(r->graph()).has_value());
  return std::move(*r);
}

// The message of an import that fails with an error of `kind`.
inline std::string error_of(const Model& m, const OnnxImportOptions& options = {},
                            ErrorKind kind = ErrorKind::invalid_input,
                            const std::source_location& where = std::source_location::current()) {
  Expected<ImportedModel> r = m.import(options);
  EXPECT_FALSE(r.has_value()) << "imported unexpectedly:\n"
                              << (r ? ::testing::PrintToString(lines(r->graph())) : "");
  if (r) return {};
  EXPECT_EQ(to_string(r.error().kind), std::string(to_string(kind)))
      << where.file_name() << ":" << where.line() << ": " << r.error().message;
  return r.error().message;
}

// The error of an import that fails as unsupported: a valid model nnplan cannot import yet.
inline Error unsupported_error(
    const Model& m, const OnnxImportOptions& options = {},
    const std::source_location& where = std::source_location::current()) {
  Expected<ImportedModel> r = m.import(options);
  EXPECT_FALSE(r.has_value()) << "imported unexpectedly:\n"
                              << (r ? ::testing::PrintToString(lines(r->graph())) : "");
  if (r) return {};
  EXPECT_EQ(to_string(r.error().kind), std::string(to_string(ErrorKind::unsupported)))
      << where.file_name() << ":" << where.line() << ": " << r.error().message;
  return std::move(r.error());
}

// What an unsupported import says. A model-level refusal (the opset, the graph outputs, a dynamic
// input) is its message. Unsupported nodes are listed one per note after a header line, followed
// by the dependents line and the supported operators; for a model with exactly one unsupported
// node this is that node's line (`node 0 'conv1' (Conv): <reason>`), and the test fails when the
// error lists more.
inline std::string unsupported_of(
    const Model& m, const OnnxImportOptions& options = {},
    const std::source_location& where = std::source_location::current()) {
  const Error e = unsupported_error(m, options, where);
  if (e.notes.empty()) return e.message;
  EXPECT_EQ(e.notes.size(), 3u) << where.file_name() << ":" << where.line()
                                << ": not one unsupported node: " << render(e);
  EXPECT_NE(e.message.find(": nnplan does not support 1 node of this model"), std::string::npos)
      << where.file_name() << ":" << where.line() << ": " << e.message;
  return e.notes.front();
}

inline const ir::WeightTensor& tensor_of(const ImportedModel& m, ir::NodeId id,
                                         const std::string& name) {
  const ir::WeightTensor* t = m.payloads.find_tensor(id, name);
  EXPECT_NE(t, nullptr) << "no payload " << name << " on node " << id;
  static const ir::WeightTensor kEmpty;
  return t != nullptr ? *t : kEmpty;
}

}  // namespace nnplan::format::onnx_test
