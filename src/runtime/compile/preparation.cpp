// compile's last pass: each command's prepared state, built once by its handler's prepare
// (oneDNN primitives, packed weights) and shared by every run of the buffer (compile_passes.hpp).
#include "runtime/compile/compile_passes.hpp"

namespace nnplan::runtime::compile_passes {

PrepareCall prepare_call(const Command& command, std::span<const ir::Shape* const> input_shapes,
                         const ir::Shape& output_shape, const backend::PlannedModel& model,
                         const CompileOptions& options, TensorLayout from, TensorLayout to) {
  return PrepareCall{.node = *command.node,
                     .chain = command.chain,
                     .input_shapes = input_shapes,
                     .weights = {.tensors = command.weights,
                                 .store = model.weights().get(),
                                 .node_id = command.node->id},
                     .output_shape = output_shape,
                     .settings = options.settings,
                     .input_layout = from,
                     .output_layout = to};
}

Expected<void> prepare(std::span<Command> commands, const backend::PlannedModel& model,
                       const CompileOptions& options) {
  for (Command& c : commands) {
    if (c.handler.prepare == nullptr) continue;
    std::vector<const ir::Shape*> shapes;
    for (const ValueSlot& in : c.inputs)
      shapes.push_back(in.shape);
    const TensorLayout from = c.reorder ? c.reorder->from : c.layout;
    const TensorLayout to = c.reorder ? c.reorder->to : c.layout;
    auto state =
        c.handler.prepare(prepare_call(c, shapes, *c.output.shape, model, options, from, to));
    if (!state) {
      Error e = std::move(state.error());
      const backend::KernelCapsule& capsule = model.lowering().registry->capsule(c.capsule);
      e.message = group_label(c.group, capsule) + ": " + ir::describe(*c.node) +
                  (c.reorder ? ": the reorder could not prepare its launch: "
                             : ": the handler could not prepare its launch: ") +
                  e.message;
      return std::unexpected(std::move(e));
    }
    c.state = std::shared_ptr<const KernelState>(std::move(*state));
  }
  return {};
}

}  // namespace nnplan::runtime::compile_passes
