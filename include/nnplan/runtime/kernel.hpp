// The handler interface (SPEC §11): what one command of a command buffer calls. A handler is the
// code behind one capsule: a forward kernel, the reverse rule a tape consumes (the vector-Jacobian
// product), and the shape and layout guards that run before every launch under the names the
// capsule's evidence gives. Handlers are plain functions over views: the command buffer owns every
// buffer, and a handler never allocates the tensors it returns. A handler may prepare state once,
// when the buffer is compiled (packed weights, a oneDNN primitive): the buffer owns that state and
// passes it to every launch; it does not change between launches.
//
// A command runs one node, or one fused chain (SPEC §7): the chain's nodes root first, its inputs
// the root's parents followed by each later node's extra operand (the parent that is not the
// previous node's value), in chain order, and its output the last node's value.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "nnplan/error.hpp"
#include "nnplan/ir/graph.hpp"
#include "nnplan/ir/weights.hpp"
#include "nnplan/runtime/tensor.hpp"

namespace nnplan::runtime {

// One payload tensor of a node (ir/weights.hpp), resolved when the buffer is compiled:
// `name` is the slot's name ("weight", "bias", "indices"); `tensor` is the store's, or the
// buffer's copy of one that is not readable in place (HandlerDefinition::reads_weight_views),
// and null for an optional slot the graph leaves empty.
struct WeightRef {
  std::string_view name;
  const ir::WeightTensor* tensor = nullptr;
};

// A node's payloads: its tensors in slot order and its attributes ("epsilon").
struct NodeWeights {
  std::span<const WeightRef> tensors;
  const ir::WeightStore* store = nullptr;  // for attributes; null when the graph has none
  ir::NodeId node_id = 0;

  // The tensor of slot `name`, or null when the slot is empty or absent.
  [[nodiscard]] const ir::WeightTensor* find(std::string_view name) const {
    for (const WeightRef& w : tensors) {
      if (w.name == name) return w.tensor;
    }
    return nullptr;
  }
  // The attribute `name`, or nullopt.
  [[nodiscard]] std::optional<double> attribute(std::string_view name) const {
    return store == nullptr ? std::nullopt : store->find_attribute(node_id, name);
  }
};

// How a value's elements lie in memory (SPEC §12). `flat`: dense row-major, as every value at a
// command buffer's boundary (graph inputs, weights, graph outputs) and at every capsule's layout
// contract. `channels_last`: the same elements with axis 1 (the channel axis) moved last, (N,
// spatial..., C), dense and of the same size; only values of rank 3 or more take it, and only
// between two commands whose handlers run on it. Every change between the two is a reorder
// command of its own in the command buffer and the trace.
enum class TensorLayout : std::uint8_t { flat, channels_last };

[[nodiscard]] constexpr std::string_view to_string(TensorLayout layout) {
  switch (layout) {
    case TensorLayout::flat:
      return "flat";
    case TensorLayout::channels_last:
      return "channels-last";
  }
  return "flat";
}

// Which layouts a handler runs on.
enum class LayoutSupport : std::uint8_t {
  // every input and the output flat (every reference handler)
  flat_only,
  // runs on the layout all its inputs share and writes its output in it (element-wise ops over
  // operands of one shape; pooling and batch norm with the channel axis at 1; broadcast between
  // two shapes of one rank), where its `takes_channels_last`, when set, allows the call
  any_shared,
  // runs with every input and the output channels-last where its `takes_channels_last` says the
  // library's fastest kernel for the call takes that layout; else flat
  channels_last,
};

// What a handler prepared at compile time; each handler derives its own type.
struct KernelState {
  virtual ~KernelState() = default;
};

// The launch-independent settings a buffer is compiled with.
struct KernelSettings {
  // Threads a multi-threaded provider (onednn) may use per launch; 0 leaves its default (every
  // core). The reference provider ignores it and runs on the calling thread.
  int threads = 0;
};

// One forward launch: the node (its kind and parameters; for a fused chain, the root), its
// inputs, its payloads (for a fused chain, the root's), and the output to fill. `chain` lists
// the command's nodes: just `node` for a plain command, root first for a fused one. `state` is
// what the handler's prepare returned (null when it has none). `output` may alias `inputs[0]`
// only when the handler declared `in_place_safe`.
struct KernelCall {
  const ir::Node& node;
  std::span<const TensorRef> inputs;
  NodeWeights weights;
  MutableTensorRef output;
  std::span<const ir::Node* const> chain = {};
  const KernelState* state = nullptr;
};

// What a handler's prepare sees when the buffer is compiled: the launch's node, chain and
// payloads, its inputs' and output's shapes (data is not bound yet), the layouts its inputs
// arrive in and its output is to be written in (both the same for a kernel; a reorder changes
// one into the other) and the settings.
struct PrepareCall {
  const ir::Node& node;
  std::span<const ir::Node* const> chain;
  std::span<const ir::Shape* const> input_shapes;
  NodeWeights weights;
  const ir::Shape& output_shape;
  KernelSettings settings;
  TensorLayout input_layout = TensorLayout::flat;
  TensorLayout output_layout = TensorLayout::flat;
};

// One reverse launch: the forward launch's node, inputs, weights and output value, the gradient
// of the loss with respect to the output, and the gradients to produce. `input_grads` has one
// entry per input (same shapes); `weight_grads` one per entry of `weights.tensors` (same shapes;
// an entry with a null `data` is not wanted: an empty optional slot, or an int64 tensor). Every
// gradient buffer arrives zero-filled and the VJP adds its contribution into it, so a tape can
// accumulate several consumers of one value.
struct VjpCall {
  const ir::Node& node;
  std::span<const TensorRef> inputs;
  NodeWeights weights;
  TensorRef output;
  TensorRef output_grad;
  std::span<const MutableTensorRef> input_grads;
  std::span<const MutableTensorRef> weight_grads;
};

using ForwardFn = void (*)(const KernelCall&);
// Builds a command's state once; an error (say, a shape the library cannot run) fails compile.
using PrepareFn = Expected<std::unique_ptr<KernelState>> (*)(const PrepareCall&);
// Whether a call (described flat) may run, or runs fastest, channels-last (LayoutSupport).
using LayoutPreferenceFn = bool (*)(const PrepareCall&);
using VjpFn = void (*)(const VjpCall&);
// A guard: nothing when the call is one the kernel handles in bounds, else an error whose message
// says what is wrong with which operand and its shape ("input 0 has shape [2,3]; conv needs rank
// 4 (N, C, spatial...)"). The runtime adds the node, capsule and guard names.
using GuardFn = Expected<void> (*)(const KernelCall&);

// Where a capsule's test-suite evidence resolves: the GoogleTest suite of that name (the evidence
// name with every '.' as '_', so `reference.conv.forward_tests` is `reference_conv_forward_tests`)
// in `nnplan_tests`, defined in `source` (relative to the repository root).
struct TestSuiteRef {
  std::string_view source;
};

// Everything registered for one capsule.
struct HandlerDefinition {
  // The symbol the trace names: the forward function's qualified name.
  std::string_view symbol;
  ForwardFn forward = nullptr;
  // Null for a forward-only capsule (vjp mode none).
  VjpFn vjp = nullptr;
  GuardFn shape_guard = nullptr;
  GuardFn layout_guard = nullptr;
  // Null when the handler keeps no state.
  PrepareFn prepare = nullptr;
  // Whether the output may share its buffer with input 0, also where another input is that same
  // buffer (a value read twice, or through a detach): element-wise ops that read each input
  // element before writing the same output element.
  bool in_place_safe = false;
  // Whether the handler reads its weights only while preparing, through their views
  // (ir::WeightTensor::strides, contiguous): a weight that is not readable in place (a MatMul
  // weight seen transposed, an initializer at a misaligned offset of the file) reaches it as it
  // is, and the handler releases it once packed. Every other handler is given readable copies of
  // such weights, made when the buffer is compiled and kept by it.
  bool reads_weight_views = false;
  // The layouts the handler runs on, and the check LayoutSupport describes (required for
  // channels_last; optional for any_shared).
  LayoutSupport layouts = LayoutSupport::flat_only;
  LayoutPreferenceFn takes_channels_last = nullptr;
  // The files holding the forward and VJP test suites.
  TestSuiteRef forward_tests;
  TestSuiteRef vjp_tests;
};

}  // namespace nnplan::runtime
