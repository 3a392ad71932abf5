#include "nnplan/ir/graph.hpp"

namespace nnplan::ir {

std::string describe(const Node& node) {
  std::string out = "node ";
  out += std::to_string(node.id);
  out += " (";
  out += to_string(node.kind);
  if (!node.source_name.empty()) {
    out += " '";
    out += node.source_name;
    out += '\'';
  }
  out += ')';
  return out;
}

}  // namespace nnplan::ir
