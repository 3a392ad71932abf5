#include "nnplan/format/trace_json.hpp"

#include <nlohmann/json.hpp>

#include "json_common.hpp"

namespace nnplan::format {

// The command buffer's and trace's types, all of them written here.
using namespace runtime;  // NOLINT(google-build-using-namespace)

std::string chrome_trace_json(const CommandBuffer& buffer, const ExecutionTrace& trace,
                              const TraceMetadata& metadata) {
  using nlohmann::json;
  const backend::BackendProfile& profile = buffer.model().profile();
  json events = json::array();
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"tid", 1},
                    {"args", {{"name", "nnplan run " + metadata.graph_path}}}});
  events.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"tid", 1},
                    {"args", {{"name", "executor (calling thread)"}}}});
  const auto commands = buffer.commands();
  // One complete event ("ph": "X") of a command's timing on the executor's thread.
  const auto complete_event = [&](std::string name, std::string_view provider,
                                  const CommandTiming& t, json args) {
    events.push_back({{"name", std::move(name)},
                      {"cat", std::string(provider)},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", 1},
                      {"ts", static_cast<double>(t.start_ns) / 1000.0},
                      {"dur", static_cast<double>(t.duration_ns) / 1000.0},
                      {"args", std::move(args)}});
  };
  for (const CommandTiming& t : trace.events) {
    const Command& c = commands[t.command];
    const backend::KernelCapsule& capsule = buffer.capsule(c);
    // A fused command is named after its chain ("conv+relu", or the ONNX names joined by '+',
    // a name repeated by the next node given once: an ONNX node the importer made two nodes of)
    // and lists every source node; a plain one has a chain of one.
    std::string node_name;
    std::string last_piece;
    json ids = json::array();
    json names = json::array();
    json kinds = json::array();
    for (const ir::Node* n : c.chain) {
      const std::string piece =
          n->source_name.empty() ? std::string(ir::to_string(n->kind)) : n->source_name;
      if (piece != last_piece) node_name += (node_name.empty() ? "" : "+") + piece;
      last_piece = piece;
      ids.push_back(n->id);
      kinds.push_back(std::string(ir::to_string(n->kind)));
      names.push_back(n->source_name);
    }
    // Names line up with node_ids; a command none of whose nodes has a name (a graph built in
    // memory, unnamed ONNX nodes) lists none.
    bool named = false;
    for (const ir::Node* n : c.chain)
      named = named || !n->source_name.empty();
    if (!named) names = json::array();
    if (c.reorder) {
      // A reorder belongs to no capsule: it names the value it copies, the two layouts, and
      // the group of the command that needed it.
      json args = {{"reorder",
                    {{"from", std::string(to_string(c.reorder->from))},
                     {"to", std::string(to_string(c.reorder->to))}}},
                   {"handler", std::string(c.handler.symbol)},
                   {"provider", std::string(backend::to_string(capsule.provider))},
                   {"device", std::string(backend::to_string(capsule.device))},
                   {"kind", std::string(ir::to_string(c.node->kind))},
                   {"group", c.group},
                   {"command", t.command},
                   {"run", t.run},
                   {"node_ids", std::move(ids)},
                   {"kinds", std::move(kinds)}};
      args["node_names"] = std::move(names);
      complete_event("reorder " + node_name, backend::to_string(capsule.provider), t,
                     std::move(args));
      continue;
    }
    json args = {
        {"capsule", capsule.name},
        {"handler", std::string(c.handler.symbol)},
        {"provider", std::string(backend::to_string(capsule.provider))},
        {"device", std::string(backend::to_string(capsule.device))},
        {"op", std::string(backend::to_string(capsule.op))},
        {"kind", std::string(ir::to_string(c.node->kind))},
        {"group", c.group},
        {"grouping",
         std::string(backend::to_string(buffer.model().lowering().groups[c.group].grouping))},
        {"layout", std::string(to_string(c.layout))},
        {"command", t.command},
        {"run", t.run},
        {"node_ids", std::move(ids)},
        {"kinds", std::move(kinds)}};
    if (capsule.is_fused()) {
      json pattern = json::array();
      for (backend::BackendOp op : capsule.pattern) {
        pattern.push_back(std::string(backend::to_string(op)));
      }
      args["pattern"] = std::move(pattern);
    }
    args["node_names"] = std::move(names);
    complete_event(node_name, backend::to_string(capsule.provider), t, std::move(args));
  }
  json other = {{"format", std::string(kTraceFormat)},
                {"graph", metadata.graph_path},
                {"profile", profile.name},
                {"lowering", std::string(backend::to_string(profile.lowering))},
                {"commands", commands.size()},
                {"peak_arena_bytes", buffer.peak_arena_bytes()},
                {"no_reuse_bytes", buffer.no_reuse_bytes()}};
  other["graph_digest"] = metadata.graph_digest ? json(*metadata.graph_digest) : json(nullptr);
  json input_shapes = json::object();
  for (const runtime::IoBinding& in : buffer.inputs()) {
    input_shapes[in.name] =
        json(std::vector<ir::Dim>(in.shape->dims.begin(), in.shape->dims.end()));
  }
  other["input_shapes"] = std::move(input_shapes);
  json symbolic = json::array();
  for (const SymbolicDim& d : metadata.symbolic_dims) {
    symbolic.push_back({{"input", d.input}, {"axis", d.axis}, {"name", d.name}, {"size", d.size}});
  }
  other["symbolic_dims"] = std::move(symbolic);
  if (metadata.shape_cache) {
    other["shape_cache"] = {{"compiled_for_this_run", metadata.shape_cache->compiled_for_this_run},
                            {"entries", metadata.shape_cache->entries},
                            {"limit", metadata.shape_cache->limit}};
  }
  json doc = {{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ms"},
              {"otherData", std::move(other)}};
  detail::escape_invalid_utf8(doc);
  return doc.dump(1) + "\n";
}

}  // namespace nnplan::format
