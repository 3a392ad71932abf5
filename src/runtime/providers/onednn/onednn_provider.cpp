#include "runtime/providers/onednn/onednn_provider.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>

#include "nnplan/backend/builtin_modules.hpp"
#include "runtime/providers/onednn/onednn_handlers.hpp"
#include "runtime/providers/onednn/onednn_support.hpp"

namespace nnplan::runtime::onednn {

void register_onednn_handlers(HandlerRegistry& registry) {
  // Each handler is bound to the built-in capsule record it was written to.
  const backend::CapsuleModule module = backend::onednn_module();
  const std::array tables = {matmul_handlers(),        convolution_handlers(), pooling_handlers(),
                             normalization_handlers(), softmax_handlers(),     eltwise_handlers(),
                             binary_handlers(),        fused_handlers(),       attention_handlers(),
                             data_movement_handlers(), recurrent_handlers(),   resize_handlers(),
                             reduction_handlers()};
  for (const auto& table : tables) {
    for (const OnednnHandler& row : table) {
      std::optional<backend::KernelCapsule> declaration;
      for (const backend::KernelCapsule& c : module.capsules) {
        if (c.name == row.capsule && c.op == row.op) declaration = c;
      }
      auto added = registry.add({.name = std::string(row.capsule),
                                 .op = row.op,
                                 .provider = backend::Provider::onednn,
                                 .device = backend::Device::cpu},
                                row.handler, std::move(declaration));
      if (!added) {
        std::fprintf(stderr, "nnplan: internal error: %s\n", added.error().message.c_str());
        std::abort();
      }
    }
  }
  if (auto added = registry.add_reorder(backend::Provider::onednn, reorder_handler()); !added) {
    std::fprintf(stderr, "nnplan: internal error: %s\n", added.error().message.c_str());
    std::abort();
  }
}

namespace {

std::string isa_name(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41:
      return "sse41";
    case dnnl::cpu_isa::avx:
      return "avx";
    case dnnl::cpu_isa::avx2:
      return "avx2";
    case dnnl::cpu_isa::avx2_vnni:
      return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic:
      return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops:
      return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core:
      return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx";
    case dnnl::cpu_isa::all:
      return "all";
  }
  return "unknown";
}

}  // namespace

ProviderFinding probe_onednn() {
  ProviderFinding f{.name = std::string(backend::to_string(backend::Provider::onednn))};
  const dnnl_version_t* v = dnnl_version();
  const std::string version =
      std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
  try {
    (void)cpu_engine();
  } catch (const dnnl::error& e) {
    f.evidence = "oneDNN " + version + " is linked but its CPU engine failed: " + e.what();
    return f;
  }
  f.confirmed = true;
  f.version = version;
  f.evidence = "oneDNN " + version + " linked (CPU runtime " +
               (v->cpu_runtime == DNNL_RUNTIME_OMP ? std::string("OpenMP") : std::string("other")) +
               "); CPU engine created; dispatches to ISA " +
               isa_name(dnnl::get_effective_cpu_isa());
  return f;
}

}  // namespace nnplan::runtime::onednn
