#include "runtime/providers/reference/reference_provider.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>

#include "nnplan/backend/builtin_modules.hpp"
#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {

std::string reference_capsule_name(backend::BackendOp op) {
  if (op == backend::BackendOp::scaled_dot_product_attention) return "reference.attention";
  return "reference." + std::string(backend::to_string(op));
}

std::span<const std::span<const ReferenceHandler>> handler_tables() {
  static const std::array tables = {
      elementwise_handlers(), linear_algebra_handlers(), convolution_handlers(),
      pooling_handlers(),     normalization_handlers(),  softmax_handlers(),
      attention_handlers(),   reduction_handlers(),      data_movement_handlers(),
      comparison_handlers(),  where_handlers(),          cast_handlers(),
      indexing_handlers(),    scatter_handlers(),        modulo_handlers(),
      recurrent_handlers(),   grid_sample_handlers(),    max_unpool_handlers(),
      resize_handlers(),      roi_align_handlers(),      max_pool_indices_handlers()};
  return tables;
}

void register_reference_handlers(HandlerRegistry& registry) {
  // Each handler is bound to the built-in capsule record it was written to.
  const backend::CapsuleModule module = backend::reference_module();
  for (const auto& table : handler_tables()) {
    for (const ReferenceHandler& row : table) {
      const std::string name = reference_capsule_name(row.op);
      std::optional<backend::KernelCapsule> declaration;
      for (const backend::KernelCapsule& c : module.capsules) {
        if (c.name == name && c.op == row.op) declaration = c;
      }
      auto added = registry.add({.name = name,
                                 .op = row.op,
                                 .provider = backend::Provider::reference,
                                 .device = backend::Device::cpu},
                                row.handler, std::move(declaration));
      if (!added) {
        std::fprintf(stderr, "nnplan: internal error: %s\n", added.error().message.c_str());
        std::abort();
      }
    }
  }
}

}  // namespace nnplan::runtime::reference
