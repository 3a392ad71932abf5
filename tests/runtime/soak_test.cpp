// The soak test: one executor run 2000 times, each run on fresh inputs with its outputs dropped,
// holds its resident memory flat: what the process holds after the 2000th run is within
// kSoakGrowthBound of what it held after the 200th (the arena pool, oneDNN's primitives and the
// allocator's free lists are warm by then). Not under AddressSanitizer, whose quarantine keeps
// every freed block resident for a while by design.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <fstream>
#include <string>

#include "nnplan/runtime/executor.hpp"
#include "runtime_test_support.hpp"

namespace nnplan::runtime {
namespace {

constexpr int kSoakRuns = 2000;
constexpr int kSoakWarmRuns = 200;
constexpr std::size_t kSoakGrowthBound = std::size_t{2} << 20;  // 2 MiB

// This process's resident set, in bytes (the second field of /proc/self/statm, in pages).
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0;
  std::size_t resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// The resident growth from run kSoakWarmRuns to run kSoakRuns of `exec`.
std::size_t soak_growth(Executor& exec) {
  const IoBinding& input = exec.buffer().inputs()[0];
  std::size_t warm = 0;
  for (int r = 1; r <= kSoakRuns; ++r) {
    const std::vector<NamedTensor> inputs = {{input.name, testing::seeded_tensor(*input.shape, r)}};
    auto out = exec.run(inputs);
    EXPECT_TRUE(out.has_value()) << (out ? "" : out.error().message);
    if (!out) return 0;
    if (r == kSoakWarmRuns) warm = resident_bytes();
  }
  const std::size_t end = resident_bytes();
  return end > warm ? end - warm : 0;
}

TEST(Soak, TwoThousandRunsHoldResidentMemoryFlat) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's quarantine keeps freed blocks resident";
#endif
  for (const char* file : {"cnn.json", "transformer_block.json"}) {
    for (const auto profile : {
             backend::MaintainedProfile::checked_cpu,
#ifdef NNPLAN_HAVE_ONEDNN
             backend::MaintainedProfile::fast_cpu,
#endif
         }) {
      SCOPED_TRACE(std::string(file) + " " + std::string(backend::to_string(profile)));
      auto loaded = testing::load(testing::example_path(file));
      ASSERT_TRUE(loaded.has_value());
      const auto model =
          testing::planned(backend::make_profile(profile), loaded->graph, loaded->payloads);
      ASSERT_NE(model, nullptr);
      CompileOptions options;
      options.settings.threads = 1;
      auto buffer = testing::compiled(model, options);
      ASSERT_TRUE(buffer.has_value());
      Executor exec(std::move(*buffer));
      EXPECT_LE(soak_growth(exec), kSoakGrowthBound);
    }
  }
}

}  // namespace
}  // namespace nnplan::runtime
