#include "constant_folding.hpp"

#include <algorithm>
#include <array>
#include <memory>

#include "folding/evaluators.hpp"
#include "folding/fold_args.hpp"
#include "import_context.hpp"
#include "operator_table.hpp"

namespace nnplan::format::onnx_import {
namespace {

using namespace folding;

struct FoldRule {
  std::string_view op_type;
  ConstTensor (*fold)(FoldArgs&) = nullptr;
  // Input 0 is read for its shape only (Shape, Size): any tensor with a static shape folds.
  bool shape_only = false;
};

constexpr std::array kFoldRules = {
    FoldRule{"Abs", fold_abs},
    FoldRule{"Add", fold_add},
    FoldRule{"And", fold_and},
    FoldRule{"Cast", fold_cast},
    FoldRule{"Concat", fold_concat},
    FoldRule{"ConstantOfShape", fold_constant_of_shape},
    FoldRule{"Div", fold_div},
    FoldRule{"Equal", fold_equal},
    FoldRule{"Exp", fold_exp},
    FoldRule{"Expand", fold_expand},
    FoldRule{"Gather", fold_gather},
    FoldRule{"Greater", fold_greater},
    FoldRule{"Less", fold_less},
    FoldRule{"Log", fold_log},
    FoldRule{"Mod", fold_mod},
    FoldRule{"Mul", fold_mul},
    FoldRule{"Neg", fold_neg},
    FoldRule{"Not", fold_not},
    FoldRule{"Or", fold_or},
    FoldRule{"Range", fold_range},
    FoldRule{"Reciprocal", fold_reciprocal},
    FoldRule{"Reshape", fold_reshape},
    FoldRule{"Shape", fold_shape, true},
    FoldRule{"Size", fold_size, true},
    FoldRule{"Slice", fold_slice},
    FoldRule{"Sqrt", fold_sqrt},
    FoldRule{"Squeeze", fold_squeeze},
    FoldRule{"Sub", fold_sub},
    FoldRule{"Transpose", fold_transpose},
    FoldRule{"Unsqueeze", fold_unsqueeze},
    FoldRule{"Where", fold_where},
};
static_assert(std::ranges::is_sorted(kFoldRules, {}, &FoldRule::op_type));

const FoldRule* find_rule(std::string_view op_type) {
  const auto it = std::ranges::lower_bound(kFoldRules, op_type, {}, &FoldRule::op_type);
  return it != kFoldRules.end() && it->op_type == op_type ? &*it : nullptr;
}

}  // namespace

bool folds_op_type(std::string_view op_type) {
  return find_rule(op_type) != nullptr;
}

void merge_folded(std::vector<FoldedSource>& into, const std::vector<FoldedSource>& from) {
  if (from.empty()) return;
  if (into.empty()) {
    into = from;
    return;
  }
  std::vector<FoldedSource> merged;
  merged.reserve(std::min(into.size() + from.size(), kMaxFoldedSources));
  const auto by_index = [](const FoldedSource& a, const FoldedSource& b) {
    return a.index < b.index;
  };
  std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(merged),
                 by_index);
  if (merged.size() > kMaxFoldedSources) merged.resize(kMaxFoldedSources);
  into = std::move(merged);
}

bool fold_node(ImportContext& cx) {
  const FoldRule* rule = find_rule(cx.op_type());
  if (rule == nullptr) return false;
  const bool imports = find_operator(cx.op_type(), cx.opset()) != nullptr;
  std::vector<ConstPtr> inputs(static_cast<std::size_t>(cx.input_count()));
  for (int i = 0; i < cx.input_count(); ++i) {
    if (!cx.has_in(i)) continue;
    ConstPtr c = cx.constant(cx.in_name(i));
    if (c == nullptr) {
      // A Shape or Size of a tensor that is no constant reads its static shape.
      if (rule->shape_only && i == 0) continue;
      return false;
    }
    if (!foldable_dtype(c->dtype)) {
      if (imports) return false;  // the importer names the data type
      cx.unsupported("input " + quoted_name(cx.in_name(i)) + " has data type " +
                     dtype_name(c->dtype) +
                     "; constant folding reads float32, int64, int32 and bool tensors");
    }
    inputs[static_cast<std::size_t>(i)] = std::move(c);
  }
  if (cx.output_count() > 1) {
    cx.fail("has " + str(cx.output_count()) + " outputs, expected 1");
  }
  FoldArgs args(cx, inputs, imports);
  ConstTensor out;
  try {
    out = rule->fold(args);
  } catch (const FoldDeclined&) {
    return false;
  }
  out.source = std::string(cx.node_name());
  for (const ConstPtr& c : inputs)
    if (c != nullptr) merge_folded(out.folded_from, c->folded_from);
  merge_folded(out.folded_from,
               {FoldedSource{.index = cx.node_index(), .name = std::string(cx.node_name())}});
  if (!cx.out_name(0).empty()) {
    cx.define_constant(cx.out_name(0), std::make_shared<ConstTensor>(std::move(out)));
  }
  return true;
}

}  // namespace nnplan::format::onnx_import
