#include "nnplan/backend/numerical_policy.hpp"

namespace nnplan::backend {

std::string label(const NumericalPolicy& policy) {
  std::string out = "round=";
  out += to_string(policy.rounding);
  out += ",subnormal=";
  out += to_string(policy.subnormals);
  out += ",contract=";
  out += to_string(policy.contraction);
  out += ",reduce=";
  out += to_string(policy.reduction);
  return out;
}

}  // namespace nnplan::backend
