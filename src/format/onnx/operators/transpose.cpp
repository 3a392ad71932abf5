// Transpose: one `permute` node; without `perm`, the axes reversed.
#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

void import_transpose(ImportContext& cx) {
  cx.allow_attrs({"perm"});
  cx.require_inputs(1, 1);
  const ir::NodeId x = cx.tensor(cx.in_name(0));
  const std::size_t rank = cx.shape_of(x).rank();
  std::vector<std::uint32_t> perm;
  if (const auto p = cx.attr_ints("perm")) {
    for (const std::int64_t v : *p) {
      if (v < 0 || static_cast<std::size_t>(v) >= rank) {
        cx.fail_attr("perm", list_string(*p),
                     "a permutation of the " + str(ir::Dim{rank}) + " axes");
      }
      perm.push_back(static_cast<std::uint32_t>(v));
    }
  } else {
    for (std::size_t i = rank; i > 0; --i)
      perm.push_back(static_cast<std::uint32_t>(i - 1));
  }
  cx.define(cx.out_name(0),
            cx.add(ir::OpKind::permute, {x}, ir::PermuteParams{.perm = std::move(perm)}));
}

}  // namespace nnplan::format::onnx_import
