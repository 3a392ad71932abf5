// The shared pieces of the onednn handlers: engine, streams, descriptors, errors, the thread
// bound, constant memories, launch and the guards every capsule shares.
#include "runtime/providers/onednn/onednn_support.hpp"

#include <algorithm>

#include <omp.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace nnplan::runtime::onednn {

const dnnl::engine& cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& cpu_stream() {
  thread_local dnnl::stream stream(cpu_engine());
  return stream;
}

dnnl::memory::dims dims_of(const ir::Shape& shape) {
  if (shape.rank() == 0) return {1};
  dnnl::memory::dims dims;
  for (ir::Dim d : shape.dims)
    dims.push_back(static_cast<dnnl::memory::dim>(d));
  return dims;
}

dnnl::memory::desc row_major_desc(const dnnl::memory::dims& dims) {
  dnnl::memory::dims strides(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;)
    strides[i - 1] = strides[i] * dims[i];
  return {dims, dnnl::memory::data_type::f32, strides};
}

dnnl::memory::dims layout_strides(const dnnl::memory::dims& dims, TensorLayout layout) {
  dnnl::memory::dims strides(dims.size(), 1);
  if (layout == TensorLayout::flat || dims.size() < 3) {
    for (std::size_t i = dims.size(); i-- > 1;)
      strides[i - 1] = strides[i] * dims[i];
    return strides;
  }
  // Physical order: axis 0, the axes from 2 on, then axis 1.
  dnnl::memory::dim step = dims[1];
  for (std::size_t i = dims.size(); i-- > 2;) {
    strides[i] = step;
    step *= dims[i];
  }
  strides[0] = step;
  return strides;
}

dnnl::memory::desc layout_desc(const dnnl::memory::dims& dims, TensorLayout layout) {
  if (layout == TensorLayout::flat || dims.size() < 3) return row_major_desc(dims);
  return {dims, dnnl::memory::data_type::f32, layout_strides(dims, layout)};
}

dnnl::memory::desc any_desc(const dnnl::memory::dims& dims) {
  return {dims, dnnl::memory::data_type::f32, dnnl::memory::format_tag::any};
}

dnnl::memory::dim extent(const ir::Shape& shape, std::size_t begin, std::size_t end) {
  dnnl::memory::dim p = 1;
  for (std::size_t i = begin; i < end; ++i)
    p *= static_cast<dnnl::memory::dim>(shape.dims[i]);
  return p;
}

Error dnnl_failure(const dnnl::error& e, std::string_view what) {
  return make_error(ErrorKind::invalid_input, "oneDNN could not " + std::string(what) + ": " +
                                                  e.what() + " (status " +
                                                  std::to_string(static_cast<int>(e.status)) + ")");
}

Error unsupported(std::string message) {
  return make_error(ErrorKind::invalid_input, std::move(message));
}

ThreadLimit::ThreadLimit(int threads) {
  if (threads <= 0) return;
  saved_ = omp_get_max_threads();
  if (saved_ == threads) return;
  active_ = true;
  omp_set_num_threads(threads);
}

ThreadLimit::~ThreadLimit() {
  if (active_) omp_set_num_threads(saved_);
}

int threads_for(const PrepareCall& call) {
  std::size_t elements = element_count_of(call.output_shape);
  for (const ir::Shape* s : call.input_shapes)
    elements += element_count_of(*s);
  for (const WeightRef& w : call.weights.tensors) {
    if (w.tensor != nullptr) elements += w.tensor->size();
  }
  return elements < kOneThreadElements ? 1 : call.settings.threads;
}

void fill_state(PrimitiveState& state, const PrepareCall& call) {
  for (const ir::Shape* s : call.input_shapes)
    state.input_shapes.push_back(*s);
  state.output_shape = call.output_shape;
  state.threads = call.settings.threads;
}

std::unique_ptr<PrimitiveState> new_state(const PrepareCall& call) {
  auto state = std::make_unique<PrimitiveState>();
  fill_state(*state, call);
  return state;
}

std::unique_ptr<PrimitiveState> reorder_state(const PrepareCall& call,
                                              const dnnl::memory::desc& from,
                                              const dnnl::memory::desc& to) {
  auto state = new_state(call);
  state->primitive =
      dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), from, cpu_engine(), to));
  state->bindings = {{.arg = DNNL_ARG_FROM, .input = 0, .desc = from},
                     {.arg = DNNL_ARG_TO, .input = Binding::kOutput, .desc = to}};
  return state;
}

dnnl::memory constant_memory(const ir::WeightTensor& weight, const dnnl::memory::desc& plain,
                             const dnnl::memory::desc& target) {
  dnnl::memory dst(target, cpu_engine());
  if (weight.readable_in_place()) {
    const std::span<const float> data = weight.floats();
    if (data.empty()) {
      // nothing to copy
    } else if (target == plain) {
      std::memcpy(dst.get_data_handle(), data.data(), data.size() * sizeof(float));
    } else {
      // The reorder reads the weight's own bytes (a view into a mapped file, say): no staging
      // copy. oneDNN takes a non-const handle; a reorder never writes its source.
      dnnl::memory src(plain, cpu_engine(), const_cast<float*>(data.data()));
      dnnl::reorder(src, dst).execute(cpu_stream(), src, dst);
      cpu_stream().wait();
    }
  } else if (weight.size() == 0) {
    // nothing to copy
  } else if (weight.aligned() && weight.dtype() == ir::DType::float32 &&
             dims_of(weight.shape()) == plain.dims() && plain == row_major_desc(plain.dims())) {
    // A strided view (a weight seen transposed): the reorder reads it through its strides.
    dnnl::memory::dims strides;
    for (const std::size_t s : weight.strides())
      strides.push_back(static_cast<dnnl::memory::dim>(s));
    const dnnl::memory::desc strided(plain.dims(), dnnl::memory::data_type::f32, strides);
    const std::span<const std::byte> bytes = weight.storage();
    dnnl::memory src(strided, cpu_engine(), const_cast<std::byte*>(bytes.data()));
    dnnl::reorder(src, dst).execute(cpu_stream(), src, dst);
    cpu_stream().wait();
  } else {
    // A misaligned view, or a strided one whose dims or axis order the handler changes: packed
    // from a temporary aligned copy (the view's pages released as they are copied).
    dnnl::memory packed = constant_memory(weight.contiguous_releasing(), plain, target);
    weight.release();
    return packed;
  }
  weight.release();
  return dst;
}

Binding staged_binding(int arg, int input, const dnnl::memory::desc& plain,
                       const dnnl::memory::desc& chosen) {
  Binding b{.arg = arg, .input = input, .desc = plain};
  if (chosen == plain) return b;
  b.staged = chosen;
  b.into_staged =
      dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), plain, cpu_engine(), chosen));
  b.out_of_staged =
      dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), chosen, cpu_engine(), plain));
  return b;
}

namespace {

// The calling thread's scratch buffers for staged bindings, one per staged binding of a launch
// (in binding order), each grown to the largest size asked of it and kept for the thread's life.
class ThreadScratch {
 public:
  void* get(std::size_t slot, std::size_t bytes) {
    if (slot >= buffers_.size()) buffers_.resize(slot + 1);
    Buffer& b = buffers_[slot];
    if (b.bytes < bytes) {
      constexpr std::size_t kAlign = 64;
      const std::size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
      b.data.reset(static_cast<std::byte*>(std::aligned_alloc(kAlign, rounded)));
      if (b.data == nullptr) {
        std::fprintf(stderr, "nnplan: out of memory for a %zu-byte onednn scratch buffer\n",
                     rounded);
        std::abort();
      }
      b.bytes = rounded;
    }
    return b.data.get();
  }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  struct Buffer {
    std::unique_ptr<std::byte, Free> data;
    std::size_t bytes = 0;
  };
  std::vector<Buffer> buffers_;
};

ThreadScratch& thread_scratch() {
  thread_local ThreadScratch scratch;
  return scratch;
}

}  // namespace

void execute(const KernelCall& call) {
  // An empty output has nothing to write (and oneDNN 2.6's simple reorder divides by zero on a
  // zero-volume tensor).
  if (call.output.size() == 0) return;
  const auto& state = static_cast<const PrimitiveState&>(*call.state);
  const std::lock_guard<std::mutex> one_launch_at_a_time(state.launch);
  if (!state.output_fill.empty()) {
    const ir::Shape& shape = state.output_shape;
    std::size_t outer = 1;
    std::size_t inner = 1;
    for (std::size_t i = 0; i < state.fill_axis; ++i)
      outer *= shape.dims[i];
    for (std::size_t i = state.fill_axis + 1; i < shape.rank(); ++i)
      inner *= shape.dims[i];
    float* out = call.output.data<float>();
    for (std::size_t o = 0; o < outer; ++o) {
      for (const float value : state.output_fill) {
        std::fill_n(out, inner, value);
        out += inner;
      }
    }
  }
  try {
    const ThreadLimit limit(state.threads);
    dnnl::stream& stream = cpu_stream();
    const auto input_data = [&](int input) {
      return const_cast<float*>(call.inputs[static_cast<std::size_t>(input)].data<float>());
    };
    std::unordered_map<int, dnnl::memory> args = state.constants;
    // The staged output and its scratch, reordered out once the primitive has run.
    const Binding* staged_output = nullptr;
    dnnl::memory user_output;
    dnnl::memory scratch_output;
    std::size_t slot = 0;
    for (const Binding& b : state.bindings) {
      const bool is_output = b.input == Binding::kOutput;
      void* data = is_output ? static_cast<void*>(call.output.data<float>()) : input_data(b.input);
      dnnl::memory user(b.desc, cpu_engine(), data);
      if (b.staged.is_zero()) {
        if (b.seed != Binding::kNoSeed && b.desc.get_size() != 0) {
          std::memcpy(data, input_data(b.seed), b.desc.get_size());
        }
        args.insert_or_assign(b.arg, user);
        continue;
      }
      dnnl::memory scratch(b.staged, cpu_engine(),
                           thread_scratch().get(slot++, b.staged.get_size()));
      if (!is_output) {
        b.into_staged.execute(stream, user, scratch);
      } else {
        if (b.seed != Binding::kNoSeed) {
          dnnl::memory seed(b.desc, cpu_engine(), input_data(b.seed));
          b.into_staged.execute(stream, seed, scratch);
        }
        staged_output = &b;
        user_output = user;
        scratch_output = scratch;
      }
      args.insert_or_assign(b.arg, scratch);
    }
    state.primitive.execute(stream, args);
    if (staged_output != nullptr) {
      staged_output->out_of_staged.execute(stream, scratch_output, user_output);
    }
    stream.wait();
  } catch (const dnnl::error& e) {
    std::fprintf(stderr, "nnplan: internal error: %s: %s\n", ir::describe(call.node).c_str(),
                 dnnl_failure(e, "run a prepared primitive").message.c_str());
    std::abort();
  }
}

void launch_failed(const KernelCall& call, const dnnl::error& e, std::string_view what) {
  std::fprintf(stderr, "nnplan: internal error: %s: %s\n", ir::describe(call.node).c_str(),
               dnnl_failure(e, what).message.c_str());
  std::abort();
}

Expected<void> check_prepared(const KernelCall& call) {
  const auto* state = dynamic_cast<const PrimitiveState*>(call.state);
  if (state == nullptr) {
    return std::unexpected(unsupported(
        "the handler was not prepared: onednn handlers build their primitive when the command "
        "buffer is compiled"));
  }
  if (call.inputs.size() != state->input_shapes.size()) {
    return std::unexpected(unsupported(std::to_string(call.inputs.size()) +
                                       " inputs given; the primitive was prepared for " +
                                       std::to_string(state->input_shapes.size())));
  }
  for (std::size_t i = 0; i < call.inputs.size(); ++i) {
    if (*call.inputs[i].shape != state->input_shapes[i]) {
      return std::unexpected(
          operand_error("input " + std::to_string(i), *call.inputs[i].shape,
                        "the primitive was prepared for " + ir::to_string(state->input_shapes[i])));
    }
  }
  if (*call.output.shape != state->output_shape) {
    return std::unexpected(
        operand_error("the output", *call.output.shape,
                      "the primitive was prepared for " + ir::to_string(state->output_shape)));
  }
  return {};
}

Expected<void> precheck(const PrepareCall& call, GuardFn shapes) {
  std::vector<TensorRef> inputs;
  for (const ir::Shape* s : call.input_shapes)
    inputs.push_back({.bytes = nullptr, .shape = s});
  const KernelCall probe{.node = call.node,
                         .inputs = inputs,
                         .weights = call.weights,
                         .output = {.bytes = nullptr, .shape = &call.output_shape},
                         .chain = call.chain,
                         .state = nullptr};
  return shapes(probe);
}

Expected<void> flat_row_major_guard(const KernelCall& call) {
  return canonical_layout_guard(call);
}

Expected<void> flat_row_major_guard_in_place(const KernelCall& call) {
  return canonical_layout_guard_in_place(call);
}

}  // namespace nnplan::runtime::onednn
