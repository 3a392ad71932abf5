// libFuzzer target: nnplan.capsules.v1 registry files, the registry rules and planning with them.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipelines.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)nnplan::fuzz::registry_pipeline(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
