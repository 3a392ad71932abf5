// The probe's isolation (cuda_probe.hpp, isolated_call.hpp): the CUDA driver and cuBLAS are loaded
// and queried in a child process with a deadline, so fake drivers (tests/runtime/fake_cuda) that
// crash, abort, hang, exit or lie become findings while this test process goes on; a plan asks
// for the driver only when it has a CUDA group (probe_options_for).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "nnplan/backend/profile.hpp"
#include "nnplan/format/probe_json.hpp"
#include "nnplan/runtime/probe.hpp"
#include "nnplan/runtime/refusal.hpp"
#include "nnplan/text_escape.hpp"
#include "runtime/isolated_call.hpp"
#include "runtime_test_support.hpp"

namespace nnplan::runtime {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

std::string fake_library(const std::string& mode, const std::string& soname = "libcuda.so.1") {
  return std::string(NNPLAN_FAKE_CUDA_DIR) + "/" + mode + "/" + soname;
}

HostProbe probe_with_fake(const std::string& mode, milliseconds deadline = kDriverProbeDeadline) {
  return probe_host({.cuda_library = fake_library(mode),
                     .cublas_libraries = {fake_library("cublas_ok", "libcublas.so.12")},
                     .deadline = deadline});
}

TEST(IsolatedCall, ReturnsTheChildsBytes) {
  const auto answer = call_isolated(
      "the test", [] { return std::string("a\0b", 3); }, milliseconds(5000), 16);
  ASSERT_TRUE(answer.has_value()) << answer.error();
  EXPECT_EQ(*answer, std::string("a\0b", 3));
  const auto empty = call_isolated(
      "the test", [] { return std::string(); }, milliseconds(5000), 16);
  ASSERT_TRUE(empty.has_value()) << empty.error();
  EXPECT_EQ(*empty, "");
}

TEST(IsolatedCall, SaysHowTheChildEnded) {
  const auto killed = call_isolated(
      "the test",
      []() -> std::string {
        std::signal(SIGTERM, SIG_DFL);
        std::raise(SIGTERM);
        return "unreached";
      },
      milliseconds(5000), 16);
  ASSERT_FALSE(killed.has_value());
  EXPECT_THAT(killed.error(), HasSubstr("the test was killed by signal 15 ("));
  EXPECT_THAT(killed.error(), HasSubstr(") before it answered"));

  const auto exited = call_isolated(
      "the test", []() -> std::string { ::_exit(0); }, milliseconds(5000), 16);
  ASSERT_FALSE(exited.has_value());
  EXPECT_EQ(exited.error(), "the test exited with status 0 before it answered");

  const auto threw = call_isolated(
      "the test", []() -> std::string { throw std::runtime_error("no"); }, milliseconds(5000), 16);
  ASSERT_FALSE(threw.has_value());
  EXPECT_EQ(threw.error(), "the test exited with status 70 before it answered");

  const auto large = call_isolated(
      "the test", [] { return std::string(100000, 'x'); }, milliseconds(5000), 1000);
  ASSERT_FALSE(large.has_value());
  EXPECT_EQ(large.error(), "the test answered with more than 1000 bytes and was stopped");
}

TEST(IsolatedCall, StopsAChildPastTheDeadline) {
  const auto start = std::chrono::steady_clock::now();
  const auto hung = call_isolated(
      "the test",
      []() -> std::string {
        for (;;)
          ::pause();
      },
      milliseconds(300), 16);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(hung.has_value());
  EXPECT_EQ(hung.error(), "the test did not answer within 300 ms and was stopped");
  EXPECT_LT(took, std::chrono::seconds(5));
}

// A child that closes its pipe and then never ends is stopped at the deadline, not waited for.
TEST(IsolatedCall, StopsAChildThatClosesItsPipeAndStays) {
  const auto start = std::chrono::steady_clock::now();
  const auto silent = call_isolated(
      "the test",
      []() -> std::string {
        ::close_range(3, ~0U, 0);
        for (;;)
          ::pause();
      },
      milliseconds(300), 16);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_FALSE(silent.has_value());
  EXPECT_EQ(silent.error(), "the test was killed by signal 9 (Killed) before it answered");
}

// The success path of the probe, through a fake driver that behaves: what the child found comes
// back whole.
TEST(ProbeIsolation, AWorkingDriverIsReadBackFromTheChild) {
  const HostProbe probe = probe_with_fake("ok");
  ASSERT_TRUE(probe.cuda.has_value()) << probe.cuda.error().message;
  EXPECT_EQ(probe.cuda->library, fake_library("ok"));
  EXPECT_EQ(probe.cuda->driver_version, 12040);
  EXPECT_EQ(probe.cuda->devices,
            (std::vector<CudaDevice>{
                {.ordinal = 0, .name = "Fake GPU 9000", .compute_major = 9, .compute_minor = 0}}));
  EXPECT_TRUE(confirms(probe, backend::Device::cuda));
  EXPECT_EQ(probe_finding(probe, backend::Device::cuda),
            fake_library("ok") + ": driver 12.4, 1 device: Fake GPU 9000 (compute 9.0)");
  ASSERT_TRUE(probe.cublas.has_value()) << probe.cublas.error().message;
  EXPECT_EQ(probe.cublas->version, "12.4.5");
}

struct Misbehaviour {
  const char* mode;
  std::string said;
};

TEST(ProbeIsolation, AMisbehavingDriverIsAFindingNotACrash) {
#if defined(__SANITIZE_ADDRESS__)
  // The sanitizers end a crashing child their own way (an abort, a leak report's exit status).
  const std::string crashed = "before it answered";
  const std::string aborted = crashed;
  const std::string exited = crashed;
#else
  const std::string crashed = "was killed by signal 11 (Segmentation fault) before it answered";
  const std::string aborted = "was killed by signal 6 (Aborted) before it answered";
  const std::string exited = "exited with status 0 before it answered";
#endif
  const Misbehaviour cases[] = {
      {"crash", crashed},
      {"abort", aborted},
      {"exit", exited},
      {"hang", "did not answer within 500 ms and was stopped"},
      {"many_devices",
       "cuDeviceGetCount reported 2147483647 devices; nnplan believes 0 to 64, so the driver is "
       "not usable"},
  };
  for (const Misbehaviour& c : cases) {
    SCOPED_TRACE(c.mode);
    const auto start = std::chrono::steady_clock::now();
    // Only the hanging driver meets the deadline; the others end at once, and a longer deadline
    // keeps a loaded machine (a sanitizer build beside the tests) from making them time out.
    const bool hangs = std::string(c.mode) == "hang";
    const HostProbe probe = probe_with_fake(c.mode, milliseconds(hangs ? 500 : 5000));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    ASSERT_FALSE(probe.cuda.has_value());
    const std::string& message = probe.cuda.error().message;
    EXPECT_EQ(probe.cuda.error().kind, ErrorKind::unavailable);
    if (std::string(c.mode) != "many_devices") {
      EXPECT_TRUE(message.starts_with("the CUDA driver probe (" + fake_library(c.mode) + ") "))
          << message;
      EXPECT_THAT(message, HasSubstr("; nnplan takes it as not usable on this machine"));
    }
    EXPECT_THAT(message, HasSubstr(c.said));
    EXPECT_FALSE(confirms(probe, backend::Device::cuda));
    EXPECT_FALSE(confirms(probe, backend::Provider::native_cuda));
    EXPECT_FALSE(confirms(probe, backend::Provider::cublas));
    EXPECT_EQ(probe_finding(probe, backend::Device::cuda), message);
  }
}

TEST(ProbeIsolation, ACrashingCublasIsAFinding) {
  const HostProbe probe =
      probe_host({.cuda_library = fake_library("ok"),
                  .cublas_libraries = {fake_library("cublas_crash", "libcublas.so.12")}});
  ASSERT_TRUE(probe.cuda.has_value()) << probe.cuda.error().message;
  ASSERT_FALSE(probe.cublas.has_value());
  EXPECT_THAT(probe.cublas.error().message, HasSubstr("the cuBLAS probe "));
  EXPECT_THAT(probe.cublas.error().message, HasSubstr("before it answered"));
  EXPECT_FALSE(confirms(probe, backend::Provider::cublas));
}

// Device names are kept as the driver wrote them, at most 256 bytes even with no terminating zero;
// the JSON document escapes what is not UTF-8 and stays valid.
TEST(ProbeIsolation, OddDeviceNamesAreKeptAndEscaped) {
  const HostProbe probe = probe_with_fake("odd_names");
  ASSERT_TRUE(probe.cuda.has_value()) << probe.cuda.error().message;
  ASSERT_EQ(probe.cuda->devices.size(), 2U);
  EXPECT_EQ(probe.cuda->devices[0].name, "Fake \xff\xfe GPU\nverdict: accepted \x1b[31mred");
  EXPECT_EQ(probe.cuda->devices[1].name, std::string(256, 'A'));
  const std::string json = format::probe_json(probe, check_target(probe, backend::Target{}));
  EXPECT_TRUE(valid_utf8(json));
  const auto document = nlohmann::json::parse(json);
  EXPECT_EQ(document.dump().find('\x1b'), std::string::npos);
  EXPECT_THAT(json, HasSubstr("Fake \\\\xff\\\\xfe GPU\\nverdict: accepted \\u001b[31mred"));
}

TEST(ProbeIsolation, ACpuPlanAsksForNoDriver) {
  const auto loaded = testing::load(testing::example_path("cnn.json"));
  ASSERT_TRUE(loaded.has_value());
  const auto cpu = testing::planned_cpu(loaded->graph, loaded->payloads);
  ASSERT_NE(cpu, nullptr);
  const ProbeOptions cpu_options = probe_options_for(*cpu);
  EXPECT_FALSE(cpu_options.cuda);
  EXPECT_FALSE(cpu_options.cublas);
  const auto cuda =
      testing::planned(backend::make_profile(backend::MaintainedProfile::checked_cuda),
                       loaded->graph, loaded->payloads);
  ASSERT_NE(cuda, nullptr);
  const ProbeOptions cuda_options = probe_options_for(*cuda);
  EXPECT_TRUE(cuda_options.cuda);

  // Not asked for, a hanging driver is never loaded.
  ProbeOptions lazy = cpu_options;
  lazy.cuda_library = fake_library("hang");
  const auto start = std::chrono::steady_clock::now();
  const HostProbe probe = probe_host(lazy);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
  ASSERT_FALSE(probe.cuda.has_value());
  EXPECT_EQ(probe.cuda.error().message, "not probed: the plan uses no CUDA device or provider");
  EXPECT_TRUE(probe.cublas.error().message.starts_with("not probed: "));
  EXPECT_FALSE(confirms(probe, backend::Device::cuda));
}

}  // namespace
}  // namespace nnplan::runtime
