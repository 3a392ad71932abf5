#include "runtime/providers/reference/reference_provider.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>

#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {

std::string reference_capsule_name(backend::BackendOp op) {
  if (op == backend::BackendOp::scaled_dot_product_attention) return "reference.attention";
  return "reference." + std::string(backend::to_string(op));
}

void register_reference_handlers(HandlerRegistry& registry) {
  const std::array tables = {elementwise_handlers(),   linear_algebra_handlers(),
                             convolution_handlers(),   pooling_handlers(),
                             normalization_handlers(), softmax_handlers(),
                             attention_handlers(),     reduction_handlers(),
                             data_movement_handlers()};
  for (const auto& table : tables) {
    for (const ReferenceHandler& row : table) {
      auto added = registry.add({.name = reference_capsule_name(row.op),
                                 .op = row.op,
                                 .provider = backend::Provider::reference,
                                 .device = backend::Device::cpu},
                                row.handler);
      if (!added) {
        std::fprintf(stderr, "nnplan: internal error: %s\n", added.error().message.c_str());
        std::abort();
      }
    }
  }
}

}  // namespace nnplan::runtime::reference
