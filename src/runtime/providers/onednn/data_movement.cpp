// onednn handlers: the data movement family, each one oneDNN reorder primitive reading the input
// through a strided view of the output's dims, so every output element is one input element,
// unchanged. broadcast (IR kind broadcast_to): stride 0 along every added or stretched axis;
// channels-last when its input is (same rank: the view walks the input's channels-last strides).
// permute (and transpose): the input's strides in the permuted order. slice: the input's strides
// from the first element taken, one reorder for the whole slice with step 1, one per plane of the
// sliced axis with a larger step. concat: every input in the output's layout (channels-last when
// its inputs are), inputs empty along the axis left out; along the innermost axis in memory
// (channels for channels-last, the last axis for flat) a copy loop of the provider's own (oneDNN
// 2.6's concat primitive took twice as long on DenseNet's many-input channel concats), along any
// other one reorder per input into its slice of the output (oneDNN 2.6's concat copies those
// slowly: ShuffleNet's channel concats, ceil_mode MaxPool's overhang rows). slice runs
// channels-last too (the input's channels-last strides). reshape: the bytes copied, or nothing
// when the output is the input's buffer. The chain reshape, permute, reshape: one reorder of the
// input seen as the first reshape's shape; on a channels-last value, where the chain is a channel
// shuffle, a loop of the provider's own interleaving the channel groups at each position, so
// ShuffleNet's units stay channels-last from one convolution to the next.
#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "runtime/providers/onednn/onednn_roots.hpp"

namespace nnplan::runtime::onednn {
namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/onednn/data_movement_test.cpp"};

// The IR's shape checks for `Op` (ir_shapes), then oneDNN's rank limit.
template <backend::BackendOp Op>
Expected<void> copy_shapes(const KernelCall& call) {
  if (auto ok = ir_shapes<Op>(call); !ok) return ok;
  return rank_limit(call);
}

// The input as a view of the output's dims: its strides (in `layout`) right-aligned, 0 where an
// axis is added or stretched from 1.
dnnl::memory::desc broadcast_view(const ir::Shape& in, const ir::Shape& out, TensorLayout layout) {
  const dnnl::memory::dims out_dims = dims_of(out);
  dnnl::memory::dims strides(out_dims.size(), 0);
  if (in.rank() > 0) {
    const dnnl::memory::dims in_strides = layout_strides(dims_of(in), layout);
    const std::size_t lead = out.rank() - in.rank();
    for (std::size_t i = 0; i < in.rank(); ++i) {
      strides[lead + i] = in.dims[i] == 1 && out.dims[lead + i] != 1 ? 0 : in_strides[i];
    }
  }
  return {out_dims, dnnl::memory::data_type::f32, strides};
}

Expected<std::unique_ptr<KernelState>> prepare_broadcast(const PrepareCall& call) {
  const TensorLayout layout = call.input_layout;
  if (auto ok = broadcast_layouts(call, "broadcast"); !ok) return std::unexpected(ok.error());
  return guarded_prepare(
      "create a reorder primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        // The input buffer holds only the input's elements: it is read through the view.
        return std::unique_ptr<KernelState>(
            reorder_state(call, broadcast_view(*call.input_shapes[0], call.output_shape, layout),
                          layout_desc(dims_of(call.output_shape), layout)));
      });
}

// A reorder from the view `view()` builds of input 0 to the dense flat output (the view built
// inside, so oneDNN's refusal of it is an error, not an exception).
template <class View>
Expected<std::unique_ptr<KernelState>> prepare_view_copy(const PrepareCall& call, View view) {
  return guarded_prepare(
      "create a reorder primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        return std::unique_ptr<KernelState>(
            reorder_state(call, view(), row_major_desc(dims_of(call.output_shape))));
      });
}

// The axes of the input each output axis walks: the node's perm, or the identity with a
// transpose's two axes swapped.
std::vector<std::uint32_t> permutation_of(const ir::Node& node, std::size_t rank) {
  if (const auto* p = std::get_if<ir::PermuteParams>(&node.params)) return p->perm;
  std::vector<std::uint32_t> perm(rank);
  for (std::size_t i = 0; i < rank; ++i)
    perm[i] = static_cast<std::uint32_t>(i);
  if (const auto* t = std::get_if<ir::TransposeParams>(&node.params)) {
    std::swap(perm[t->axis1], perm[t->axis2]);
  }
  return perm;
}

Expected<std::unique_ptr<KernelState>> prepare_permute(const PrepareCall& call) {
  const ir::Shape& in = *call.input_shapes[0];
  const std::vector<std::uint32_t> perm = permutation_of(call.node, in.rank());
  const dnnl::memory::dims in_strides = layout_strides(dims_of(in), TensorLayout::flat);
  dnnl::memory::dims strides;
  for (const std::uint32_t axis : perm)
    strides.push_back(in_strides[axis]);
  if (in.rank() == 0) strides = {1};
  return prepare_view_copy(call, [&] {
    return dnnl::memory::desc(dims_of(call.output_shape), dnnl::memory::data_type::f32, strides);
  });
}

// A prepared slice. With step 1 the reorder reads one view of the input. A larger step has no
// such view oneDNN accepts (its strides must not let an axis's extent reach past the next
// larger stride), so the reorder copies one plane of the sliced axis at a time: `planes` launches,
// the input advancing `input_step` and the output `output_step` elements each.
struct SliceState : PrimitiveState {
  std::size_t planes = 0;
  dnnl::memory::dim input_offset = 0;
  dnnl::memory::dim input_step = 0;
  dnnl::memory::dim output_step = 0;
};

// Whether a slice may run channels-last: its value has 3 axes or more, so axis 1 is the channel
// axis of its input and output.
bool slice_takes_channels_last(const PrepareCall& call) {
  return call.output_shape.rank() >= 3;
}

Expected<std::unique_ptr<KernelState>> prepare_slice(const PrepareCall& call) {
  const auto& p = std::get<ir::SliceParams>(call.node.params);
  const ir::Shape& in = *call.input_shapes[0];
  const TensorLayout layout = call.input_layout;
  if (layout != call.output_layout ||
      (layout == TensorLayout::channels_last && !slice_takes_channels_last(call))) {
    return std::unexpected(
        unsupported("the slice was asked to run with its input " + std::string(to_string(layout)) +
                    " and its output " + std::string(to_string(call.output_layout)) +
                    "; it runs on one layout, channels-last only for values of rank 3 or more"));
  }
  const dnnl::memory::dims in_strides = layout_strides(dims_of(in), layout);
  const dnnl::memory::dims out_dims = dims_of(call.output_shape);
  const dnnl::memory::dims out_strides = layout_strides(out_dims, layout);
  const auto start =
      static_cast<dnnl::memory::dim>(std::min<std::uint64_t>(p.start, in.dims[p.axis]));
  return guarded_prepare(
      "create a reorder primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        auto state = std::make_unique<SliceState>();
        fill_state(*state, call);
        const bool stepped = p.step > 1 && out_dims[p.axis] > 1;
        dnnl::memory::dims dims = out_dims;
        if (stepped) dims[p.axis] = 1;
        const dnnl::memory::desc from(dims, dnnl::memory::data_type::f32, in_strides);
        const dnnl::memory::desc to(dims, dnnl::memory::data_type::f32, out_strides);
        state->primitive =
            dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), from, cpu_engine(), to));
        state->bindings = {{.arg = DNNL_ARG_FROM, .input = 0, .desc = from},
                           {.arg = DNNL_ARG_TO, .input = Binding::kOutput, .desc = to}};
        state->planes = stepped ? static_cast<std::size_t>(out_dims[p.axis]) : 1;
        state->input_offset = start * in_strides[p.axis];
        state->input_step = static_cast<dnnl::memory::dim>(p.step) * in_strides[p.axis];
        state->output_step = out_strides[p.axis];
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

// Whether a concat may run channels-last: its values (all of one rank) have 3 axes or more, so
// axis 1 is the channel axis of each.
bool concat_takes_channels_last(const PrepareCall& call) {
  return call.output_shape.rank() >= 3;
}

// A concat: along the innermost axis in memory (channels-last channels, a flat value's last
// axis), one pass over the output copying each input's run at every outer position, the
// positions split among the command's OpenMP threads; along any other axis, one reorder per
// input that is not empty along it, each writing the input into its slice of the output (a view
// of the output with the output's strides).
struct ConcatState : PrimitiveState {
  struct Part {
    int input = 0;
    dnnl::memory::desc from;
    dnnl::memory::desc into;
    dnnl::reorder copy;
  };
  std::vector<Part> parts;
  // Along the innermost axis in memory: at each of `positions` outer positions, each run's input
  // copies its `width` elements to the output's `offset` (`row` elements a position).
  struct Run {
    int input = 0;
    std::size_t width = 0;
    std::size_t offset = 0;
  };
  std::vector<Run> runs;
  std::size_t positions = 0;
  std::size_t row = 0;
};

Expected<std::unique_ptr<KernelState>> prepare_concat(const PrepareCall& call) {
  const auto axis = static_cast<std::size_t>(std::get<ir::AxisParams>(call.node.params).axis);
  const TensorLayout layout = call.input_layout;
  if (layout != call.output_layout ||
      (layout == TensorLayout::channels_last && !concat_takes_channels_last(call))) {
    return std::unexpected(unsupported(
        "the concat was asked to run with its inputs " + std::string(to_string(layout)) +
        " and its output " + std::string(to_string(call.output_layout)) +
        "; it runs on one layout, channels-last only for values of rank 3 or more"));
  }
  return guarded_prepare(
      "create a concat's reorders", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        auto state = std::make_unique<ConcatState>();
        fill_state(*state, call);
        // An empty output has nothing to write: no primitive (concat_forward returns first).
        if (element_count_of(call.output_shape) == 0) {
          return std::unique_ptr<KernelState>(std::move(state));
        }
        const auto dst = layout_desc(dims_of(call.output_shape), layout);
        const std::size_t innermost =
            layout == TensorLayout::channels_last ? 1 : call.output_shape.rank() - 1;
        if (axis == innermost) {
          // Along the innermost axis in memory every input is many short runs: one pass over
          // the output interleaves them, position by position.
          state->row = static_cast<std::size_t>(call.output_shape.dims[axis]);
          state->positions = element_count_of(call.output_shape) / state->row;
          std::size_t offset = 0;
          for (std::size_t i = 0; i < call.input_shapes.size(); ++i) {
            const auto width = static_cast<std::size_t>(call.input_shapes[i]->dims[axis]);
            if (width == 0) continue;
            state->runs.push_back({.input = static_cast<int>(i), .width = width, .offset = offset});
            offset += width;
          }
          return std::unique_ptr<KernelState>(std::move(state));
        }
        dnnl::memory::dims offsets(call.output_shape.rank(), 0);
        for (std::size_t i = 0; i < call.input_shapes.size(); ++i) {
          const dnnl::memory::dims dims = dims_of(*call.input_shapes[i]);
          if (dims[axis] == 0) continue;
          ConcatState::Part part{.input = static_cast<int>(i),
                                 .from = layout_desc(dims, layout),
                                 .into = dst.submemory_desc(dims, offsets),
                                 .copy = {}};
          part.copy = dnnl::reorder(
              dnnl::reorder::primitive_desc(cpu_engine(), part.from, cpu_engine(), part.into));
          state->parts.push_back(std::move(part));
          offsets[axis] += dims[axis];
        }
        return std::unique_ptr<KernelState>(std::move(state));
      });
}

void concat_forward(const KernelCall& call) {
  if (call.output.size() == 0) return;
  const auto& state = static_cast<const ConcatState&>(*call.state);
  if (!state.runs.empty()) {
    // No oneDNN primitive, so no shared scratchpad: copies of the command may run at once.
    const ThreadLimit limit(state.threads);
    float* out = call.output.data<float>();
    // The inputs' buffers, found before the parallel loop (nothing in it may throw).
    std::vector<const float*> sources;
    sources.reserve(state.runs.size());
    for (const ConcatState::Run& r : state.runs) {
      sources.push_back(call.inputs[static_cast<std::size_t>(r.input)].data<float>());
    }
    const auto positions = static_cast<std::ptrdiff_t>(state.positions);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t p = 0; p < positions; ++p) {
      const auto at = static_cast<std::size_t>(p);
      float* to = out + at * state.row;
      for (std::size_t k = 0; k < state.runs.size(); ++k) {
        const ConcatState::Run& r = state.runs[k];
        std::memcpy(to + r.offset, sources[k] + at * r.width, r.width * sizeof(float));
      }
    }
    return;
  }
  launch(call, state, "run a concat's reorders", [&](dnnl::stream& stream) {
    for (const ConcatState::Part& part : state.parts) {
      dnnl::memory from(
          part.from, cpu_engine(),
          const_cast<float*>(call.inputs[static_cast<std::size_t>(part.input)].data<float>()));
      dnnl::memory into(part.into, cpu_engine(), call.output.data<float>());
      part.copy.execute(stream, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, into}});
    }
  });
}
void broadcast_forward(const KernelCall& call) {
  execute(call);
}
void permute_forward(const KernelCall& call) {
  execute(call);
}
void slice_forward(const KernelCall& call) {
  if (call.output.size() == 0) return;
  const auto& state = static_cast<const SliceState&>(*call.state);
  launch(call, state, "run a prepared primitive", [&](dnnl::stream& stream) {
    const float* in = call.inputs[0].data<float>() + state.input_offset;
    float* out = call.output.data<float>();
    for (std::size_t j = 0; j < state.planes; ++j) {
      dnnl::memory from(
          state.bindings[0].desc, cpu_engine(),
          const_cast<float*>(in + static_cast<dnnl::memory::dim>(j) * state.input_step));
      dnnl::memory to(state.bindings[1].desc, cpu_engine(),
                      out + static_cast<dnnl::memory::dim>(j) * state.output_step);
      state.primitive.execute(stream, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
    }
  });
}

// reshape: the input's bytes in row-major order, unchanged, of any dtype; nothing to do when the
// output is the input's buffer (the handler is in-place safe). Its state holds only the shapes it
// was prepared for.
void reshape_forward(const KernelCall& call) {
  copy_elements(call.inputs[0], call.output);
}

Expected<std::unique_ptr<KernelState>> prepare_reshape(const PrepareCall& call) {
  return std::unique_ptr<KernelState>(new_state(call));
}

// A reshape, permute, reshape chain. Flat: one reorder reading the input as the first reshape's
// shape through the permuted strides into the permute's shape, row-major (the second reshape's
// bytes). Channels-last, a channel shuffle: at each of `positions` positions the `groups` runs of
// `width` channels are interleaved, channel j of run i going to j * groups + i.
struct ShuffleState : PrimitiveState {
  std::size_t positions = 0;
  std::size_t groups = 0;
  std::size_t width = 0;
};

// The chain's permutation, when the chain is reshape, permute (or transpose), reshape.
std::vector<std::uint32_t> chain_permutation(const PrepareCall& call) {
  return permutation_of(*call.chain[1], call.chain[0]->shape.rank());
}

// Whether the chain is a channel shuffle: input [N, C, spatial...] (rank 3 or more), the first
// reshape splitting C into [G, C / G], the permute swapping those two axes only, and the second
// reshape giving back the input's shape. Only such a chain runs channels-last.
bool shuffle_takes_channels_last(const PrepareCall& call) {
  if (call.chain.size() != 3 || call.input_shapes.empty()) return false;
  const ir::Shape& in = *call.input_shapes[0];
  const ir::Shape& split = call.chain[0]->shape;
  if (in.rank() < 3 || split.rank() != in.rank() + 1 || call.output_shape != in) return false;
  if (split.dims[0] != in.dims[0] || split.dims[1] * split.dims[2] != in.dims[1]) return false;
  for (std::size_t i = 2; i < in.rank(); ++i) {
    if (split.dims[i + 1] != in.dims[i]) return false;
  }
  const std::vector<std::uint32_t> perm = chain_permutation(call);
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const std::size_t want = i == 1 ? 2 : i == 2 ? 1 : i;
    if (perm[i] != want) return false;
  }
  return true;
}

Expected<std::unique_ptr<KernelState>> prepare_shuffle(const PrepareCall& call) {
  const TensorLayout layout = call.input_layout;
  if (layout != call.output_layout ||
      (layout == TensorLayout::channels_last && !shuffle_takes_channels_last(call))) {
    return std::unexpected(unsupported(
        "the reshape, permute, reshape chain was asked to run with its input " +
        std::string(to_string(layout)) + " and its output " +
        std::string(to_string(call.output_layout)) +
        "; it runs on one layout, channels-last only as a channel shuffle (the channel axis split "
        "in two, the two swapped, merged back)"));
  }
  if (layout == TensorLayout::channels_last) {
    auto state = std::make_unique<ShuffleState>();
    fill_state(*state, call);
    const ir::Shape& split = call.chain[0]->shape;
    state->groups = static_cast<std::size_t>(split.dims[1]);
    state->width = static_cast<std::size_t>(split.dims[2]);
    const std::size_t channels = state->groups * state->width;
    state->positions = channels == 0 ? 0 : element_count_of(call.output_shape) / channels;
    return std::unique_ptr<KernelState>(std::move(state));
  }
  const ir::Shape& split = call.chain[0]->shape;
  const std::vector<std::uint32_t> perm = chain_permutation(call);
  const dnnl::memory::dims split_strides = layout_strides(dims_of(split), TensorLayout::flat);
  dnnl::memory::dims strides;
  for (const std::uint32_t axis : perm)
    strides.push_back(split_strides[axis]);
  if (split.rank() == 0) strides = {1};  // dims_of gives a scalar one axis of extent 1
  const dnnl::memory::dims permuted = dims_of(call.chain[1]->shape);
  return guarded_prepare(
      "create a reorder primitive", [&]() -> Expected<std::unique_ptr<KernelState>> {
        const ThreadLimit limit(call.settings.threads);
        return std::unique_ptr<KernelState>(
            reorder_state(call, dnnl::memory::desc(permuted, dnnl::memory::data_type::f32, strides),
                          row_major_desc(permuted)));
      });
}

void shuffle_forward(const KernelCall& call) {
  const auto* shuffle = dynamic_cast<const ShuffleState*>(call.state);
  if (shuffle == nullptr) {
    execute(call);
    return;
  }
  const ThreadLimit limit(shuffle->threads);
  const float* in = call.inputs[0].data<float>();
  float* out = call.output.data<float>();
  const std::size_t groups = shuffle->groups;
  const std::size_t width = shuffle->width;
  const std::size_t row = groups * width;
  const auto positions = static_cast<std::ptrdiff_t>(shuffle->positions);
  if (groups == 2) {
    // ShuffleNet's: two runs interleaved, a loop the compiler vectorizes (unpack low and high).
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t p = 0; p < positions; ++p) {
      const float* a = in + static_cast<std::size_t>(p) * row;
      const float* b = a + width;
      float* to = out + static_cast<std::size_t>(p) * row;
      for (std::size_t j = 0; j < width; ++j) {
        to[2 * j] = a[j];
        to[2 * j + 1] = b[j];
      }
    }
    return;
  }
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t p = 0; p < positions; ++p) {
    const float* from = in + static_cast<std::size_t>(p) * row;
    float* to = out + static_cast<std::size_t>(p) * row;
    for (std::size_t j = 0; j < width; ++j) {
      for (std::size_t i = 0; i < groups; ++i)
        to[j * groups + i] = from[i * width + j];
    }
  }
}

// The shuffle's guard: the chain is reshape, permute (or transpose), reshape, each reading the
// previous node's value; each node, seen as its own call, passes the IR's shape rule for its op;
// then oneDNN's rank limit on the values the reorder reads and writes.
Expected<void> shuffle_shapes(const KernelCall& call) {
  using backend::BackendOp;
  constexpr std::array kChain = {BackendOp::reshape, BackendOp::permute, BackendOp::reshape};
  if (auto ok = check_chain("onednn.reshape_permute_reshape", call.chain); !ok) return ok;
  if (call.inputs.size() != 1) {
    return std::unexpected(unsupported(std::to_string(call.inputs.size()) +
                                       " inputs given; onednn.reshape_permute_reshape takes 1"));
  }
  for (std::size_t k = 0; k < kChain.size(); ++k) {
    const ir::Node& node = *call.chain[k];
    const TensorRef operand{.bytes = nullptr, .shape = &call.chain[k - (k > 0 ? 1 : 0)]->shape};
    const std::span<const TensorRef> inputs =
        k == 0 ? call.inputs : std::span<const TensorRef>(&operand, 1);
    const MutableTensorRef out{.bytes = nullptr, .shape = &node.shape};
    const KernelCall node_call{.node = node,
                               .inputs = inputs,
                               .weights = {},
                               .output = k + 1 == kChain.size() ? call.output : out};
    if (auto ok = ir_shape_guard(node_call, kChain[k]); !ok) return ok;
    if (k == 1) {
      if (auto ok = rank_limit(node_call); !ok) return ok;
    }
  }
  return {};
}

constexpr GuardFn kShapes = copy_shapes<backend::BackendOp::broadcast>;
constexpr GuardFn kPermuteShapes = copy_shapes<backend::BackendOp::permute>;
constexpr GuardFn kSliceShapes = copy_shapes<backend::BackendOp::slice>;
constexpr GuardFn kConcatShapes = copy_shapes<backend::BackendOp::concat>;

constexpr OnednnHandler kHandlers[] = {
    {.capsule = "onednn.broadcast",
     .op = backend::BackendOp::broadcast,
     .handler = {.symbol = "nnplan::runtime::onednn::broadcast_forward",
                 .forward = broadcast_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<kShapes>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<kShapes, prepare_broadcast>,
                 .layouts = LayoutSupport::any_shared,
                 .takes_channels_last = broadcast_takes_channels_last,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
    {.capsule = "onednn.permute",
     .op = backend::BackendOp::permute,
     .handler = {.symbol = "nnplan::runtime::onednn::permute_forward",
                 .forward = permute_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<kPermuteShapes>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<kPermuteShapes, prepare_permute>,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
    {.capsule = "onednn.slice",
     .op = backend::BackendOp::slice,
     .handler = {.symbol = "nnplan::runtime::onednn::slice_forward",
                 .forward = slice_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<kSliceShapes>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<kSliceShapes, prepare_slice>,
                 .layouts = LayoutSupport::any_shared,
                 .takes_channels_last = slice_takes_channels_last,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
    {.capsule = "onednn.reshape",
     .op = backend::BackendOp::reshape,
     .handler = {.symbol = "nnplan::runtime::onednn::reshape_forward",
                 .forward = reshape_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<ir_shapes<backend::BackendOp::reshape>>,
                 .layout_guard = flat_row_major_guard_in_place,
                 .prepare =
                     checked_prepare<ir_shapes<backend::BackendOp::reshape>, prepare_reshape>,
                 .in_place_safe = true,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
    {.capsule = "onednn.reshape_permute_reshape",
     .op = backend::BackendOp::reshape,
     .handler = {.symbol = "nnplan::runtime::onednn::shuffle_forward",
                 .forward = shuffle_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<shuffle_shapes>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<shuffle_shapes, prepare_shuffle>,
                 .layouts = LayoutSupport::any_shared,
                 .takes_channels_last = shuffle_takes_channels_last,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
    {.capsule = "onednn.concat",
     .op = backend::BackendOp::concat,
     .handler = {.symbol = "nnplan::runtime::onednn::concat_forward",
                 .forward = concat_forward,
                 .vjp = nullptr,
                 .shape_guard = prepared_guard<kConcatShapes>,
                 .layout_guard = flat_row_major_guard,
                 .prepare = checked_prepare<kConcatShapes, prepare_concat>,
                 .layouts = LayoutSupport::any_shared,
                 .takes_channels_last = concat_takes_channels_last,
                 .forward_tests = kTests,
                 .vjp_tests = kForwardOnlyTests}},
};

}  // namespace

Expected<void> rank_limit(const KernelCall& call) {
  for (std::size_t i = 0; i < call.inputs.size(); ++i) {
    if (call.inputs[i].rank() > DNNL_MAX_NDIMS) {
      return std::unexpected(operand_error("input " + std::to_string(i), *call.inputs[i].shape,
                                           "onednn " + std::string(ir::to_string(call.node.kind)) +
                                               " needs rank at most " +
                                               std::to_string(DNNL_MAX_NDIMS)));
    }
  }
  if (call.output.rank() > DNNL_MAX_NDIMS) {
    return std::unexpected(operand_error("the output", *call.output.shape,
                                         "onednn " + std::string(ir::to_string(call.node.kind)) +
                                             " needs rank at most " +
                                             std::to_string(DNNL_MAX_NDIMS)));
  }
  return {};
}

bool broadcast_takes_channels_last(const PrepareCall& call) {
  return !call.input_shapes.empty() && call.input_shapes[0]->rank() == call.output_shape.rank() &&
         call.output_shape.rank() >= 3;
}

Expected<void> broadcast_layouts(const PrepareCall& call, std::string_view what) {
  const TensorLayout layout = call.input_layout;
  if (layout == call.output_layout &&
      (layout == TensorLayout::flat || broadcast_takes_channels_last(call))) {
    return {};
  }
  return std::unexpected(unsupported(
      "the " + std::string(what) + " was asked to run with its input " +
      std::string(to_string(layout)) + " and its output " +
      std::string(to_string(call.output_layout)) +
      "; it runs on one layout, channels-last only from an input of the output's rank"));
}

std::span<const OnednnHandler> data_movement_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::onednn
