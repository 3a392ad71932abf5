// Reference kernels: the elementwise family's table, the rows of its three files joined
// (elementwise_unary.cpp, elementwise_binary.cpp, random_sources.cpp).
#include <vector>

#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {

std::span<const ReferenceHandler> elementwise_handlers() {
  static const std::vector<ReferenceHandler> table = [] {
    std::vector<ReferenceHandler> rows;
    for (auto part :
         {elementwise_unary_handlers(), elementwise_binary_handlers(), random_source_handlers()}) {
      rows.insert(rows.end(), part.begin(), part.end());
    }
    return rows;
  }();
  return table;
}

}  // namespace nnplan::runtime::reference
