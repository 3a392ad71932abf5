// libFuzzer target: ONNX import, checking and planning.
#include <cstddef>
#include <cstdint>
#include <span>

#include "pipelines.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)nnplan::fuzz::onnx_pipeline(std::as_bytes(std::span(data, size)));
  return 0;
}
