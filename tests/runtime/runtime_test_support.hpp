// Shared helpers for the runtime-core tests (command buffer, executor, trace): load an example
// graph with its weights, plan it under a profile, compile it, and make seeded input tensors.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "nnplan/backend/planned_model.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/format/graph_file.hpp"
#include "nnplan/format/payload_file.hpp"
#include "nnplan/ir/check.hpp"
#include "nnplan/runtime/command_buffer.hpp"
#include "nnplan/runtime/executor.hpp"
#include "nnplan/runtime/tensor.hpp"

namespace nnplan::runtime::testing {

// examples/<name> under the source tree.
inline std::string example_path(const std::string& name) {
  return std::string(NNPLAN_SOURCE_DIR) + "/examples/" + name;
}

// A graph file read with its weights; fails the test when it does not load.
inline std::optional<format::LoadedGraph> load(const std::string& path, bool keep_weights = true) {
  auto loaded = format::read_graph_file(path, {.keep_weights = keep_weights});
  if (!loaded) {
    ADD_FAILURE() << path << ": " << render(loaded.error().error);
    return std::nullopt;
  }
  return std::move(*loaded);
}

// `graph` checked, as a shared value; fails the test when the graph is malformed.
inline std::shared_ptr<const ir::CheckedGraph> checked_graph(ir::Graph graph) {
  auto checked = ir::check(std::move(graph));
  if (!checked) {
    ADD_FAILURE() << "test graph is malformed: " << render(checked.error());
    return nullptr;
  }
  return std::make_shared<const ir::CheckedGraph>(std::move(*checked));
}

// The planned model of `graph` under `profile`; null (and a failure) when planning fails.
inline std::shared_ptr<const backend::PlannedModel> planned(
    const backend::BackendProfile& profile, std::shared_ptr<const ir::CheckedGraph> graph,
    std::shared_ptr<const ir::WeightStore> weights = nullptr) {
  auto model = backend::plan_model(profile, std::move(graph), std::move(weights));
  if (!model) {
    ADD_FAILURE() << "planning failed: " << render(model.error());
    return nullptr;
  }
  return std::make_shared<const backend::PlannedModel>(std::move(*model));
}

inline std::shared_ptr<const backend::PlannedModel> planned_cpu(
    std::shared_ptr<const ir::CheckedGraph> graph,
    std::shared_ptr<const ir::WeightStore> weights = nullptr) {
  return planned(backend::make_profile(backend::MaintainedProfile::checked_cpu), std::move(graph),
                 std::move(weights));
}

// The command buffer of `model` with the built-in handlers; nullopt (and a failure) on error.
inline std::optional<CommandBuffer> compiled(std::shared_ptr<const backend::PlannedModel> model,
                                             const CompileOptions& options = {}) {
  auto buffer = compile(std::move(model), builtin_handlers(), options);
  if (!buffer) {
    ADD_FAILURE() << "compile failed: " << render(buffer.error());
    return std::nullopt;
  }
  return std::move(*buffer);
}

// A tensor of `shape` with values uniform in [lo, hi) from `seed`.
inline Tensor seeded_tensor(const ir::Shape& shape, std::uint64_t seed, float lo = -1.0F,
                            float hi = 1.0F) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Tensor t = zeros(shape);
  for (float& v : t.floats())
    v = dist(rng);
  return t;
}

// A float32 payload tensor of `shape` with seeded values.
inline ir::WeightTensor seeded_payload(const ir::Shape& shape, std::uint64_t seed) {
  Tensor t = seeded_tensor(shape, seed);
  return ir::WeightTensor::adopt<float>(shape, std::move(t.floats()));
}

// Runs `exec` serially on `threads` seeded inputs (seeds from `seed`), then from `threads` threads
// at once, `runs` times each: the number of concurrent runs per thread whose outputs were not
// bit-identical to that input's serial run (all zero when concurrent runs are safe).
inline std::vector<int> concurrent_mismatches(Executor& exec, std::uint64_t seed, int threads = 4,
                                              int runs = 100) {
  const IoBinding& input = exec.buffer().inputs()[0];
  std::vector<std::vector<NamedTensor>> inputs;
  std::vector<std::vector<Tensor>> serial;
  for (int k = 0; k < threads; ++k) {
    inputs.push_back({{input.name, seeded_tensor(*input.shape, seed + k)}});
    auto out = exec.run(inputs.back());
    EXPECT_TRUE(out.has_value()) << (out ? "" : out.error().message);
    serial.push_back(out ? std::move(*out) : std::vector<Tensor>{});
  }
  const auto same = [](const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i].shape != b[i].shape || a[i].byte_size() != b[i].byte_size() ||
          std::memcmp(a[i].bytes(), b[i].bytes(), a[i].byte_size()) != 0) {
        return false;
      }
    }
    return true;
  };
  std::vector<int> mismatches(static_cast<std::size_t>(threads), 0);
  std::vector<std::thread> workers;
  for (int k = 0; k < threads; ++k) {
    workers.emplace_back([&, k] {
      const auto at = static_cast<std::size_t>(k);
      for (int r = 0; r < runs; ++r) {
        auto out = exec.run(inputs[at]);
        if (!out || !same(*out, serial[at])) ++mismatches[at];
      }
    });
  }
  for (std::thread& w : workers)
    w.join();
  return mismatches;
}

}  // namespace nnplan::runtime::testing
