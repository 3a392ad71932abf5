// Reference kernels: the convolution family (placeholder table until its handlers land).
#include "runtime/providers/reference/reference_handlers.hpp"

namespace nnplan::runtime::reference {

std::span<const ReferenceHandler> convolution_handlers() { return {}; }

}  // namespace nnplan::runtime::reference
