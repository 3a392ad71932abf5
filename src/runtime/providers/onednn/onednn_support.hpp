// What every onednn handler shares (SPEC §12): the CPU engine and a stream per calling thread,
// memory descriptors for the flat row-major tensors at a capsule's boundary, the conversion of
// oneDNN's exceptions into nnplan errors, the bound on a launch's OpenMP threads, and the prepared
// state every handler keeps: one primitive, its constant operands (weights already reordered into
// the primitive's preferred layout, bias, statistics) and the descriptors a launch binds the
// call's input and output buffers with. The per-family files (matmul.cpp ... fused.cpp) build that
// state in their prepare functions; `execute` runs it.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "nnplan/error.hpp"
#include "nnplan/ir/graph.hpp"
#include "nnplan/runtime/kernel.hpp"
#include "runtime/guards.hpp"
#include "runtime/providers/onednn/onednn_handlers.hpp"

namespace nnplan::runtime::onednn {

// The process's oneDNN CPU engine, created on first use.
[[nodiscard]] const dnnl::engine& cpu_engine();
// The calling thread's in-order stream on cpu_engine().
[[nodiscard]] dnnl::stream& cpu_stream();

// The dims of `shape` (a scalar is one element: {1}).
[[nodiscard]] dnnl::memory::dims dims_of(const ir::Shape& shape);
// A float32 descriptor of `dims` in plain row-major order (the last axis dense).
[[nodiscard]] dnnl::memory::desc row_major_desc(const dnnl::memory::dims& dims);
// A float32 descriptor of `dims` laid out as `layout` (kernel.hpp): row-major, or with axis 1
// moved last (dims of rank 3 or more; a smaller rank has no channels-last of its own).
[[nodiscard]] dnnl::memory::desc layout_desc(const dnnl::memory::dims& dims, TensorLayout layout);
// The strides of layout_desc(dims, layout), in elements.
[[nodiscard]] dnnl::memory::dims layout_strides(const dnnl::memory::dims& dims,
                                                TensorLayout layout);
// A float32 descriptor of `dims` whose layout the primitive chooses (format_tag::any).
[[nodiscard]] dnnl::memory::desc any_desc(const dnnl::memory::dims& dims);
// The product of shape's axes [begin, end) (1 when empty).
[[nodiscard]] dnnl::memory::dim extent(const ir::Shape& shape, std::size_t begin, std::size_t end);

// An error for a oneDNN exception raised while `what`: oneDNN's message and status.
[[nodiscard]] Error dnnl_failure(const dnnl::error& e, std::string_view what);
// An invalid_input error with `message`.
[[nodiscard]] Error unsupported(std::string message);

// Bounds the calling thread's OpenMP team (oneDNN's CPU runtime) to `threads` while alive;
// `threads` 0 leaves the default. Primitives are created and executed under the same bound, so
// their per-thread scratch sizes agree.
class ThreadLimit {
 public:
  explicit ThreadLimit(int threads);
  ~ThreadLimit();
  ThreadLimit(const ThreadLimit&) = delete;
  ThreadLimit& operator=(const ThreadLimit&) = delete;

 private:
  int saved_ = 0;
  bool active_ = false;
};

// Where one launch-time argument of the primitive comes from: input `input` of the call, or the
// call's output when `input` is kOutput, viewed through `desc` (how the buffer lies: flat,
// channels-last, or a strided view of it). When the
// primitive runs on another layout (`staged` non-empty: a blocked layout oneDNN chose), the
// launch passes it a scratch buffer of that layout instead: an input is reordered into it
// (`into_staged`) before the primitive runs, the output reordered out of it (`out_of_staged`)
// after. `seed`, when not kNoSeed, is the call input the destination holds before the primitive
// runs (a sum post-op's residual): copied into the output, or reordered into its scratch.
struct Binding {
  static constexpr int kOutput = -1;
  static constexpr int kNoSeed = -1;
  int arg = 0;
  int input = kOutput;
  dnnl::memory::desc desc;
  dnnl::memory::desc staged;
  dnnl::reorder into_staged;
  dnnl::reorder out_of_staged;
  int seed = kNoSeed;
};

// A binding of `arg` to call input `input` (or the output), whose primitive runs on `chosen`:
// staged through a scratch buffer when `chosen` differs from `plain`, the reorders built here.
[[nodiscard]] Binding staged_binding(int arg, int input, const dnnl::memory::desc& plain,
                                     const dnnl::memory::desc& chosen);

// A prepared onednn command: its primitive, the constant arguments it owns (packed weights,
// bias, statistics), the bindings of the call's buffers, the shapes it was prepared for and its
// thread bound.
struct PrimitiveState : KernelState {
  dnnl::primitive primitive;
  std::unordered_map<int, dnnl::memory> constants;
  std::vector<Binding> bindings;
  std::vector<ir::Shape> input_shapes;
  ir::Shape output_shape;
  int threads = 0;
  // When not empty, execute() first fills the output with one value per channel (axis
  // `fill_axis` of the output): the positions the primitive leaves unwritten then hold it (a
  // conv_transpose's output padding past every position an input reaches holds the bias).
  std::vector<float> output_fill;
  std::size_t fill_axis = 1;
  // Held for the whole of a launch: oneDNN 2.6 (built without concurrent execution) keeps one
  // library-managed scratchpad per primitive, so two threads running copies of one command
  // buffer at once must not run the same primitive together; they take turns per command.
  mutable std::mutex launch;
};

// A state for `call` with its shapes and thread bound filled in (primitive and arguments left to
// the family's prepare); `fill_state` does the same for a state type derived from it.
[[nodiscard]] std::unique_ptr<PrimitiveState> new_state(const PrepareCall& call);
void fill_state(PrimitiveState& state, const PrepareCall& call);

// A state for `call` whose primitive is a reorder of call input 0, viewed through `from`, into
// the output, laid out as `to`: every copy the provider makes (reorder commands, broadcast,
// permute, slice). oneDNN's exceptions propagate: call it inside guarded_prepare.
[[nodiscard]] std::unique_ptr<PrimitiveState> reorder_state(const PrepareCall& call,
                                                            const dnnl::memory::desc& from,
                                                            const dnnl::memory::desc& to);

// `weight` (laid out as `plain`; a strided view of plain's dims is read through its own strides)
// copied into a new memory of layout `target` (a reorder when it differs from `plain`): the
// weights a primitive keeps in its preferred layout. The primitive
// never reads `weight` again, so its bytes are released (ir::WeightTensor::release: a mapped
// file's pages go back to the system) and the weight is held once, packed.
[[nodiscard]] dnnl::memory constant_memory(const ir::WeightTensor& weight,
                                           const dnnl::memory::desc& plain,
                                           const dnnl::memory::desc& target);

// Runs the prepared primitive on the call's buffers and waits for it (nothing for an empty
// output), staging the bindings that
// need it through scratch buffers owned by the calling thread, under the state's `launch` lock
// (copies of a command buffer sharing one state may run on several threads; the same command
// runs on one of them at a time). A oneDNN failure here is a bug the guards should have caught:
// it is reported on stderr and aborts.
void execute(const KernelCall& call);

// A launch of a handler's own primitives: `body(stream)` under `state`'s lock and thread bound,
// then the stream drained; a oneDNN failure is reported on stderr naming the node and `what` the
// launch was doing, and aborts (as in execute).
[[noreturn]] void launch_failed(const KernelCall& call, const dnnl::error& e,
                                std::string_view what);
template <class Body>
void launch(const KernelCall& call, const PrimitiveState& state, std::string_view what,
            Body&& body) {
  const std::lock_guard<std::mutex> one_launch_at_a_time(state.launch);
  try {
    const ThreadLimit limit(state.threads);
    dnnl::stream& stream = cpu_stream();
    body(stream);
    stream.wait();
  } catch (const dnnl::error& e) {
    launch_failed(call, e, what);
  }
}

// The guard part every onednn shape guard ends with: the call carries the state its prepare
// built, and its input and output shapes are the ones that state was prepared for.
[[nodiscard]] Expected<void> check_prepared(const KernelCall& call);

// The shape checks of a handler of `Op` with no limits of its own: the IR's rule over the call
// (runtime/guards.hpp, ir_shape_guard).
template <backend::BackendOp Op>
Expected<void> ir_shapes(const KernelCall& call) {
  return ir_shape_guard(call, Op);
}

// The layout guard of every onednn capsule (flat-row-major): every operand a non-null (unless
// empty), float-aligned dense row-major view; the output overlaps no input, except that an
// in-place handler's output may be exactly input 0.
[[nodiscard]] Expected<void> flat_row_major_guard(const KernelCall& call);
[[nodiscard]] Expected<void> flat_row_major_guard_in_place(const KernelCall& call);

// Runs a handler's shape checks (`shapes`: its guard without check_prepared) on what prepare
// sees: the call's input and output shapes with no data bound.
[[nodiscard]] Expected<void> precheck(const PrepareCall& call, GuardFn shapes);

// A shape guard: `Shapes`, then check_prepared.
template <GuardFn Shapes>
Expected<void> prepared_guard(const KernelCall& call) {
  if (auto ok = Shapes(call); !ok) return ok;
  return check_prepared(call);
}

// The threads a command prepared for `call` runs on: one when it touches fewer than
// kOneThreadElements elements (its inputs, its output and its weights together), where waking a
// second thread costs more than it saves; else the call's bound (0: every core).
inline constexpr std::size_t kOneThreadElements = std::size_t{1} << 15;
[[nodiscard]] int threads_for(const PrepareCall& call);

// A prepare: `Shapes` on the prepared shapes first (so compile refuses a call the guard would,
// with the guard's message), then `Body`, with the threads threads_for gives.
template <GuardFn Shapes, PrepareFn Body>
Expected<std::unique_ptr<KernelState>> checked_prepare(const PrepareCall& call) {
  if (auto ok = precheck(call, Shapes); !ok) return std::unexpected(ok.error());
  PrepareCall sized = call;
  sized.settings.threads = threads_for(call);
  return Body(sized);
}

// Turns a prepare body that throws dnnl::error into an Expected, naming `what` it was building.
template <class Body>
Expected<std::unique_ptr<KernelState>> guarded_prepare(std::string_view what, Body&& body) {
  try {
    return body();
  } catch (const dnnl::error& e) {
    return std::unexpected(dnnl_failure(e, what));
  }
}

}  // namespace nnplan::runtime::onednn
