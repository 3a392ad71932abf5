#include "nnplan/runtime/executor.hpp"

#include "nnplan/spelling_hint.hpp"

#include <chrono>
#include <cstring>
#include <new>

namespace nnplan::runtime {
namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Error bad_input(std::string message) {
  return make_error(ErrorKind::bad_input, std::move(message));
}

std::string described(const IoBinding& b) {
  return "'" + b.name + "' " + ir::to_string(*b.shape);
}

std::string input_list(std::span<const IoBinding> inputs) {
  std::string s;
  for (const IoBinding& b : inputs) s += (s.empty() ? "" : ", ") + described(b);
  return s.empty() ? "none" : s;
}

// The position of each graph input in `given`, or the error naming what does not fit.
Expected<std::vector<const Tensor*>> bind_inputs(std::span<const IoBinding> expected,
                                                 std::span<const NamedTensor> given) {
  std::vector<const Tensor*> bound(expected.size(), nullptr);
  for (const NamedTensor& g : given) {
    std::size_t k = 0;
    while (k < expected.size() && expected[k].name != g.name) ++k;
    if (k == expected.size()) {
      std::vector<std::string_view> names;
      for (const IoBinding& e : expected)
        names.push_back(e.name);
      return std::unexpected(bad_input("input '" + g.name + "' is not an input of the model; " +
                                       did_you_mean(g.name, names) +
                                       "its inputs: " + input_list(expected)));
    }
    if (bound[k] != nullptr) {
      return std::unexpected(bad_input("input '" + g.name + "' is given twice"));
    }
    if (g.tensor.dtype() != expected[k].dtype) {
      return std::unexpected(
          bad_input("input '" + g.name + "' has dtype " + std::string(to_string(g.tensor.dtype())) +
                    "; the model expects " + std::string(to_string(expected[k].dtype))));
    }
    if (g.tensor.shape != *expected[k].shape) {
      return std::unexpected(bad_input("input '" + g.name + "' has shape " +
                                       ir::to_string(g.tensor.shape) + "; the model expects " +
                                       ir::to_string(*expected[k].shape)));
    }
    if (g.tensor.size() != element_count_of(g.tensor.shape)) {
      return std::unexpected(bad_input("input '" + g.name + "' holds " +
                                       std::to_string(g.tensor.size()) + " values; its shape " +
                                       ir::to_string(g.tensor.shape) + " needs " +
                                       std::to_string(element_count_of(g.tensor.shape))));
    }
    bound[k] = &g.tensor;
  }
  for (std::size_t k = 0; k < expected.size(); ++k) {
    if (bound[k] == nullptr) {
      return std::unexpected(bad_input("input " + described(expected[k]) +
                                       " is not given; the model's inputs: " +
                                       input_list(expected)));
    }
  }
  return bound;
}

}  // namespace

void Executor::ArenaDeleter::operator()(std::byte* p) const {
  ::operator delete[](p, std::align_val_t{kArenaAlignment});
}

Executor::Executor(CommandBuffer buffer) : buffer_(std::move(buffer)), origin_ns_(now_ns()) {
  idle_arenas_.push_back(take_arena());
}

Executor::Arena Executor::take_arena() {
  {
    const std::lock_guard lock(arenas_mutex_);
    if (!idle_arenas_.empty()) {
      Arena arena = std::move(idle_arenas_.back());
      idle_arenas_.pop_back();
      return arena;
    }
  }
  const std::size_t bytes = std::max<std::size_t>(buffer_.peak_arena_bytes(), kArenaAlignment);
  return Arena(static_cast<std::byte*>(::operator new[](bytes, std::align_val_t{kArenaAlignment})));
}

void Executor::give_back(Arena arena) {
  const std::lock_guard lock(arenas_mutex_);
  idle_arenas_.push_back(std::move(arena));
}

Expected<std::vector<Tensor>> Executor::run(std::span<const NamedTensor> inputs,
                                            ExecutionTrace* trace) {
  auto bound = bind_inputs(buffer_.inputs(), inputs);
  if (!bound) return std::unexpected(std::move(bound.error()));
  std::vector<Tensor> outputs;
  outputs.reserve(buffer_.outputs().size());
  for (const IoBinding& o : buffer_.outputs())
    outputs.push_back(zeros(*o.shape, o.dtype));

  // The run's arena, back in the pool however the run ends.
  struct Lease {
    Executor& executor;
    Arena arena;
    ~Lease() { executor.give_back(std::move(arena)); }
  } lease{*this, take_arena()};
  std::byte* const arena = lease.arena.get();
  const auto address = [&](const ValueSlot& s) -> std::byte* {
    switch (s.home) {
      case ValueHome::input:
        return const_cast<std::byte*>((*bound)[s.index]->bytes());
      case ValueHome::weight:
        return const_cast<std::byte*>(s.weight);
      case ValueHome::arena:
        return arena + s.index;
      case ValueHome::output:
        return outputs[s.index].bytes();
    }
    return nullptr;
  };

  const std::uint32_t run_index = runs_.fetch_add(1);
  std::vector<TensorRef> scratch;
  const ir::WeightStore* store = buffer_.model().weights().get();
  const auto commands = buffer_.commands();
  for (std::uint32_t i = 0; i < commands.size(); ++i) {
    const Command& c = commands[i];
    const std::int64_t start = trace != nullptr ? now_ns() : 0;
    scratch.clear();
    for (const ValueSlot& s : c.inputs)
      scratch.push_back({address(s), s.shape, s.dtype});
    const KernelCall call{.node = *c.node,
                          .inputs = scratch,
                          .weights = {.tensors = c.weights, .store = store, .node_id = c.node->id},
                          .output = {address(c.output), c.output.shape, c.output.dtype},
                          .chain = c.chain,
                          .state = c.state.get()};
    for (const CommandGuard& g : c.guards) {
      if (auto ok = g.check(call); !ok) {
        return std::unexpected(make_error(
            ErrorKind::guard_failed,
            ir::describe(*c.node) + ": capsule '" + buffer_.capsule(c).name + "': guard '" +
                std::string(g.name) + "' refused the launch: " + ok.error().message));
      }
    }
    c.handler.forward(call);
    if (trace != nullptr) {
      const std::int64_t end = now_ns();
      trace->events.push_back({.command = i,
                               .run = run_index,
                               .start_ns = start - origin_ns_,
                               .duration_ns = end - start});
    }
  }
  const auto sources = buffer_.output_sources();
  for (std::size_t k = 0; k < sources.size(); ++k) {
    if (!sources[k]) continue;
    std::memcpy(outputs[k].bytes(), address(*sources[k]), outputs[k].byte_size());
  }
  return outputs;
}

}  // namespace nnplan::runtime
