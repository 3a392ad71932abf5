#include "nnplan/ir/op_kind.hpp"

#include "nnplan/ir/op_table.hpp"

namespace nnplan::ir {

Arity arity_of(OpKind kind) {
  return op_traits(kind).arity;
}

}  // namespace nnplan::ir
