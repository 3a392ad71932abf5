#include "nnplan/runtime/command_buffer.hpp"
#include "nnplan/runtime/thread_bound.hpp"

#include <string>

#include "runtime/compile/compile_passes.hpp"

namespace nnplan::runtime {
namespace {

std::string output_name(const CompileOptions& options, std::size_t position, std::size_t count) {
  if (position < options.output_names.size() && !options.output_names[position].empty()) {
    return options.output_names[position];
  }
  return count == 1 ? "output" : "output" + std::to_string(position);
}

}  // namespace

Expected<CommandBuffer> compile(std::shared_ptr<const backend::PlannedModel> model,
                                const HandlerRegistry& handlers, const CompileOptions& options) {
  namespace passes = compile_passes;
  if (model == nullptr) {
    return std::unexpected(make_error(ErrorKind::invalid_input, "no planned model to compile"));
  }
  if (!model->accepted()) {
    return std::unexpected(
        make_error(ErrorKind::rejected_by_policy,
                   "the plan was rejected by its gate under assurance " +
                       std::string(backend::label(model->profile().config.assurance)) +
                       "; only an accepted plan is compiled"));
  }
  if (auto ok = check_threads(options.settings.threads, "threads"); !ok) {
    return std::unexpected(std::move(ok.error()));
  }
  auto bound = passes::bind(*model, handlers);
  if (!bound) return std::unexpected(std::move(bound.error()));
  passes::choose_layouts(*bound, *model, handlers, options);
  std::vector<IoBinding> inputs = std::move(bound->inputs);
  auto planned = passes::emit_commands(std::move(*bound), *model, handlers);
  if (!planned) return std::unexpected(std::move(planned.error()));
  if (auto ok = passes::prepare(planned->commands, *model, options); !ok) {
    return std::unexpected(std::move(ok.error()));
  }

  CommandBuffer buffer;
  buffer.memory_ = passes::plan_liveness(*planned);
  buffer.model_ = model;
  buffer.commands_ = std::move(planned->commands);
  buffer.inputs_ = std::move(inputs);
  buffer.dense_weights_ = std::move(planned->dense_weights);
  buffer.output_sources_ = std::move(planned->output_sources);
  const ir::Graph& graph = model->graph();
  for (std::size_t k = 0; k < graph.output_ids.size(); ++k) {
    const ir::NodeId listed = graph.output_ids[k];
    buffer.outputs_.push_back({.name = output_name(options, k, graph.output_ids.size()),
                               .node_id = listed,
                               .shape = &graph.nodes[listed].shape,
                               .dtype = graph.nodes[listed].dtype});
  }
  return buffer;
}

std::vector<backend::GroupLayout> group_layouts(const CommandBuffer& buffer) {
  std::vector<backend::GroupLayout> groups(buffer.model().lowering().groups.size());
  for (const Command& c : buffer.commands()) {
    if (c.group >= groups.size()) continue;
    backend::GroupLayout& g = groups[c.group];
    if (c.reorder) {
      ++(c.reorder->to == TensorLayout::channels_last ? g.to_channels_last : g.to_flat);
      continue;
    }
    ++g.commands;
    if (c.layout == TensorLayout::channels_last) ++g.channels_last;
  }
  return groups;
}

Expected<std::vector<backend::GroupLayout>> group_layouts(
    std::shared_ptr<const backend::PlannedModel> model) {
  if (!model->accepted()) {
    return std::unexpected(make_error(ErrorKind::rejected_by_policy,
                                      "the gate rejects the plan, so it is not compiled"));
  }
  auto buffer = compile(std::move(model));
  if (!buffer) {
    Error e = std::move(buffer.error());
    e.message = "compiling the plan failed: " + e.message;
    return std::unexpected(std::move(e));
  }
  return group_layouts(*buffer);
}

}  // namespace nnplan::runtime
