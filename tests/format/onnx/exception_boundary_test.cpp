// No exception leaves import_onnx (src/format/onnx_import.cpp): an allocation failure injected
// through OnnxImportOptions::test_before_reading at each step becomes a resource_exhausted Error
// naming what was being read, and any other exception an internal Error with its what().
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

// What every out-of-memory message ends with (nnplan/exception_boundary.hpp).
constexpr const char* kOutOfMemoryHint =
    "; free memory or raise the process's memory limit (ulimit -v)";

Model small_model() {
  Model m;
  m.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(6));
  m.node("MatMul", {"x", "w"}, {"t"}, "mm");
  m.node("Relu", {"t"}, {"y"}, "r");
  return m;
}

// The steps an import of small_model() reads, in order.
std::vector<std::string> steps() {
  std::vector<std::string> seen;
  OnnxImportOptions options;
  options.test_before_reading = [&seen](const std::string& reading) { seen.push_back(reading); };
  EXPECT_TRUE(small_model().import(options).has_value());
  return seen;
}

TEST(OnnxExceptionBoundary, TheSeamSeesEveryStep) {
  EXPECT_EQ(steps(), (std::vector<std::string>{
                         "the protobuf bytes", "the model's opsets and outputs", "the initializers",
                         "the graph inputs", "graph node 0 (0-based)", "graph node 1 (0-based)",
                         "the graph outputs", "the imported graph"}));
}

TEST(OnnxExceptionBoundary, OutOfMemoryAtEachStepIsResourceExhausted) {
  for (const std::string& step : steps()) {
    OnnxImportOptions options;
    options.test_before_reading = [&step](const std::string& reading) {
      if (reading == step) throw std::bad_alloc();
    };
    const Expected<ImportedModel> r = small_model().import(options);
    ASSERT_FALSE(r.has_value()) << step;
    EXPECT_EQ(r.error().kind, ErrorKind::resource_exhausted) << step;
    EXPECT_EQ(r.error().message, "m.onnx: out of memory while reading " + step + kOutOfMemoryHint);
  }
}

TEST(OnnxExceptionBoundary, OtherExceptionsAreInternalWithTheirWhat) {
  OnnxImportOptions options;
  options.test_before_reading = [](const std::string& reading) {
    if (reading == "graph node 1 (0-based)") throw std::length_error("vector::reserve");
  };
  const Expected<ImportedModel> r = small_model().import(options);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, ErrorKind::internal);
  EXPECT_EQ(r.error().message,
            "m.onnx: internal error while reading graph node 1 (0-based): vector::reserve");
  options.test_before_reading = [](const std::string&) { throw 42; };
  const Expected<ImportedModel> odd = small_model().import(options);
  ASSERT_FALSE(odd.has_value());
  EXPECT_EQ(odd.error().kind, ErrorKind::internal);
  EXPECT_EQ(odd.error().message,
            "m.onnx: internal error while reading the protobuf bytes: an unknown exception");
}

TEST(OnnxExceptionBoundary, AnUnnamedSourceHasNoPrefix) {
  OnnxImportOptions options;
  options.test_before_reading = [](const std::string& reading) {
    if (reading == "the initializers") throw std::bad_alloc();
  };
  const std::vector<std::byte> bytes = small_model().bytes();
  const Expected<ImportedModel> r = import_onnx(bytes, "", options);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "out of memory while reading the initializers" + std::string(kOutOfMemoryHint));
}

}  // namespace
}  // namespace nnplan::format::onnx_test
