// libFuzzer target: torchlean.ir.v1 reading, checking, planning, lowering and gating.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipelines.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)nnplan::fuzz::ir_json_pipeline(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
