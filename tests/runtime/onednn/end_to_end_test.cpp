// The onednn provider end to end: examples/mlp.json, cnn.json and transformer_block.json planned
// under profile fast_cpu (onednn preferred, fused lowering), compiled and run by the Executor,
// agree with the same graphs under checked_cpu (the reference provider) within 1e-4 relative +
// 1e-5 absolute, with oneDNN's default threads and with the bound at 1 and 2 threads; four
// threads running one fast_cpu executor at once get what its serial runs get.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../runtime_test_support.hpp"
#include "nnplan/runtime/executor.hpp"
#include "nnplan/runtime/handler_registry.hpp"
#include "onednn_test_support.hpp"

namespace nnplan::runtime {
namespace {

using testing::compiled;
using testing::example_path;
using testing::load;
using testing::planned;
using testing::seeded_tensor;

TEST(onednn_end_to_end, ExamplesUnderFastCpuMatchCheckedCpu) {
  for (const char* file : {"mlp.json", "cnn.json", "transformer_block.json"}) {
    SCOPED_TRACE(file);
    auto loaded = load(example_path(file));
    ASSERT_TRUE(loaded.has_value());
    const auto fast = planned(backend::make_profile(backend::MaintainedProfile::fast_cpu),
                              loaded->graph, loaded->payloads);
    const auto checked = planned(backend::make_profile(backend::MaintainedProfile::checked_cpu),
                                 loaded->graph, loaded->payloads);
    ASSERT_TRUE(fast && checked);
    auto reference = compiled(checked);
    ASSERT_TRUE(reference.has_value());
    const Tensor input = seeded_tensor(*reference->inputs()[0].shape, 7);
    const std::vector<NamedTensor> inputs = {{reference->inputs()[0].name, input}};
    Executor ref_exec(std::move(*reference));
    auto want = ref_exec.run(inputs);
    ASSERT_TRUE(want.has_value()) << render(want.error());
    for (int threads : {0, 1, 2}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      CompileOptions options;
      options.settings.threads = threads;
      auto buffer = compiled(fast, options);
      ASSERT_TRUE(buffer.has_value());
      Executor exec(std::move(*buffer));
      auto got = exec.run(inputs);
      ASSERT_TRUE(got.has_value()) << render(got.error());
      ASSERT_EQ(got->size(), want->size());
      for (std::size_t i = 0; i < got->size(); ++i) {
        onednn::testing::expect_close((*got)[i], (*want)[i], 1e-4, 1e-5);
      }
    }
  }
}

// The onednn commands of one executor used by four threads at once (each primitive runs for one
// launch at a time; each run has its own arena): bit-identical to the serial runs.
TEST(onednn_end_to_end, ConcurrentRunsOfOneExecutorGiveTheSerialOutputs) {
  for (const char* file : {"cnn.json", "transformer_block.json"}) {
    SCOPED_TRACE(file);
    auto loaded = load(example_path(file));
    ASSERT_TRUE(loaded.has_value());
    const auto fast = planned(backend::make_profile(backend::MaintainedProfile::fast_cpu),
                              loaded->graph, loaded->payloads);
    ASSERT_TRUE(fast);
    CompileOptions options;
    options.settings.threads = 1;
    auto buffer = compiled(fast, options);
    ASSERT_TRUE(buffer.has_value());
    Executor exec(std::move(*buffer));
    EXPECT_EQ(testing::concurrent_mismatches(exec, 60), std::vector<int>(4, 0));
  }
}

}  // namespace
}  // namespace nnplan::runtime
