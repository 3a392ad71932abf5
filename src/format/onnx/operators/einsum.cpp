// Einsum over float32 operands, as permutes, reshapes, reduce_sum and batched matmul nodes: the
// operands are contracted left to right, two at a time. Before a contraction each operand sums
// away the labels no other operand and not the output names; then the labels both share and a
// later operand or the output names are batch axes, the other shared ones are contracted, and
// the rest are the rows of the first and the columns of the second: one matmul of
// [batch, rows, shared] by [batch, shared, columns]. The last result sums away what the output
// does not name and is permuted into the output's order. An ellipsis stands for the same axes in
// every operand (right-aligned, of equal extents); without "->" the output is the ellipsis, then
// every label named once, in alphabetical order (ONNX's rule). A label named twice in one operand
// (a diagonal) is refused, as are labels of differing extents.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

namespace {

// A label: an equation letter, or an ellipsis axis (kEllipsis + its position among them).
using Label = int;
constexpr Label kEllipsis = 1000;

// An operand in flight: its node and one label per axis.
struct Term {
  NodeId id = 0;
  std::vector<Label> labels;
};

std::string label_text(Label l) {
  return l >= kEllipsis ? "... axis " + std::to_string(l - kEllipsis) : std::string(1, char(l));
}

// The labels of one side of the equation (an operand's or the output's), the ellipsis expanded
// to the last `ellipsis_axes` of `total_ellipsis` ellipsis labels.
struct Side {
  std::vector<Label> before;  // labels before the ellipsis (all of them without one)
  std::vector<Label> after;
  bool has_ellipsis = false;
};

Side parse_side(ImportContext& cx, const std::string& text, const std::string& equation) {
  Side side;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      if (side.has_ellipsis || text.compare(i, 3, "...") != 0) {
        cx.fail("equation '" + equation + "': '.' only as one ellipsis '...' per term");
      }
      side.has_ellipsis = true;
      i += 2;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) == 0) {
      cx.fail("equation '" + equation + "': '" + std::string(1, c) +
              "' is not a letter, ',', '->' or '...'");
    }
    (side.has_ellipsis ? side.after : side.before).push_back(c);
  }
  return side;
}

std::vector<Label> expand(const Side& side, std::size_t ellipsis_axes, std::size_t total) {
  std::vector<Label> out = side.before;
  for (std::size_t k = total - ellipsis_axes; k < total; ++k)
    out.push_back(kEllipsis + static_cast<Label>(k));
  out.insert(out.end(), side.after.begin(), side.after.end());
  return out;
}

bool contains(const std::vector<Label>& v, Label l) {
  return std::find(v.begin(), v.end(), l) != v.end();
}

// `t` with the labels outside `keep` summed away (highest axis first).
Term sum_away(ImportContext& cx, Term t, const std::vector<Label>& keep) {
  for (std::size_t i = t.labels.size(); i > 0; --i) {
    if (contains(keep, t.labels[i - 1])) continue;
    t.id = cx.add(OpKind::reduce_sum, {t.id},
                  ir::AxisParams{.axis = static_cast<std::uint32_t>(i - 1)});
    t.labels.erase(t.labels.begin() + static_cast<std::ptrdiff_t>(i - 1));
  }
  return t;
}

// `t` permuted so that its labels are `order` (a permutation of them).
Term permuted(ImportContext& cx, Term t, const std::vector<Label>& order) {
  std::vector<std::uint32_t> perm;
  bool identity = true;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto at = std::find(t.labels.begin(), t.labels.end(), order[i]) - t.labels.begin();
    perm.push_back(static_cast<std::uint32_t>(at));
    identity = identity && static_cast<std::size_t>(at) == i;
  }
  if (!identity) t.id = cx.add(OpKind::permute, {t.id}, ir::PermuteParams{.perm = std::move(perm)});
  t.labels = order;
  return t;
}

Dim product(const std::vector<Dim>& dims) {
  Dim p = 1;
  for (const Dim d : dims)
    p *= d;
  return p;
}

// a and b contracted over the labels they share that `keep` does not name.
Term contract(ImportContext& cx, Term a, Term b, const std::vector<Label>& keep,
              std::map<Label, Dim>& extent) {
  std::vector<Label> a_keep = keep;
  a_keep.insert(a_keep.end(), b.labels.begin(), b.labels.end());
  std::vector<Label> b_keep = keep;
  b_keep.insert(b_keep.end(), a.labels.begin(), a.labels.end());
  a = sum_away(cx, std::move(a), a_keep);
  b = sum_away(cx, std::move(b), b_keep);
  std::vector<Label> batch;
  std::vector<Label> shared;
  std::vector<Label> rows;
  std::vector<Label> columns;
  for (const Label l : a.labels) {
    if (!contains(b.labels, l)) {
      rows.push_back(l);
    } else {
      (contains(keep, l) ? batch : shared).push_back(l);
    }
  }
  for (const Label l : b.labels) {
    if (!contains(a.labels, l)) columns.push_back(l);
  }
  const auto extents = [&](const std::vector<Label>& labels) {
    std::vector<Dim> dims;
    for (const Label l : labels)
      dims.push_back(extent.at(l));
    return dims;
  };
  const Dim nb = product(extents(batch));
  const Dim m = product(extents(rows));
  const Dim k = product(extents(shared));
  const Dim n = product(extents(columns));
  std::vector<Label> a_order = batch;
  a_order.insert(a_order.end(), rows.begin(), rows.end());
  a_order.insert(a_order.end(), shared.begin(), shared.end());
  std::vector<Label> b_order = batch;
  b_order.insert(b_order.end(), shared.begin(), shared.end());
  b_order.insert(b_order.end(), columns.begin(), columns.end());
  a = permuted(cx, std::move(a), a_order);
  b = permuted(cx, std::move(b), b_order);
  const bool batched = !batch.empty();
  const NodeId lhs = cx.reshape(a.id, batched ? Shape{{nb, m, k}} : Shape{{m, k}});
  const NodeId rhs = cx.reshape(b.id, batched ? Shape{{nb, k, n}} : Shape{{k, n}});
  Term out;
  out.labels = batch;
  out.labels.insert(out.labels.end(), rows.begin(), rows.end());
  out.labels.insert(out.labels.end(), columns.begin(), columns.end());
  out.id = cx.reshape(cx.add(OpKind::matmul, {lhs, rhs}), Shape{extents(out.labels)});
  return out;
}

}  // namespace

void import_einsum(ImportContext& cx) {
  cx.allow_attrs({"equation"});
  cx.require_inputs(1, 64);
  std::string equation;
  for (const char c : cx.attr_string("equation", ""))
    if (c != ' ') equation += c;
  const std::size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> operand_texts;
  for (std::size_t start = 0;;) {
    const std::size_t comma = lhs.find(',', start);
    operand_texts.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const auto operands = static_cast<std::size_t>(cx.input_count());
  if (operand_texts.size() != operands) {
    cx.fail("equation '" + equation + "' names " + std::to_string(operand_texts.size()) +
            " operands; the node has " + std::to_string(operands) + " inputs");
  }
  std::vector<Side> sides;
  std::vector<Term> terms;
  std::size_t ellipsis_axes = 0;
  std::vector<std::size_t> own_ellipsis(operands, 0);
  for (std::size_t i = 0; i < operands; ++i) {
    sides.push_back(parse_side(cx, operand_texts[i], equation));
    const NodeId x = cx.tensor(cx.in_name(static_cast<int>(i)));
    if (cx.ir_node(x).dtype != ir::DType::float32) {
      cx.unsupported("input " + quoted_name(cx.in_name(static_cast<int>(i))) + " has dtype " +
                     std::string(ir::to_string(cx.ir_node(x).dtype)) +
                     "; nnplan runs Einsum on float32 values only");
    }
    const std::size_t rank = cx.shape_of(x).rank();
    const std::size_t named = sides[i].before.size() + sides[i].after.size();
    if (named > rank || (!sides[i].has_ellipsis && named != rank)) {
      cx.fail("equation '" + equation + "' names " + std::to_string(named) + " axes of input " +
              quoted_name(cx.in_name(static_cast<int>(i))) + ", which has rank " +
              std::to_string(rank));
    }
    own_ellipsis[i] = rank - named;
    ellipsis_axes = std::max(ellipsis_axes, own_ellipsis[i]);
    terms.push_back(Term{.id = x, .labels = {}});
  }
  std::map<Label, Dim> extent;
  std::map<Label, int> uses;
  for (std::size_t i = 0; i < operands; ++i) {
    terms[i].labels = expand(sides[i], own_ellipsis[i], ellipsis_axes);
    const Shape& shape = cx.shape_of(terms[i].id);
    for (std::size_t a = 0; a < terms[i].labels.size(); ++a) {
      const Label l = terms[i].labels[a];
      if (std::count(terms[i].labels.begin(), terms[i].labels.end(), l) > 1) {
        cx.unsupported("equation '" + equation + "' names label '" + label_text(l) +
                       "' twice in input " + std::to_string(i) +
                       " (a diagonal); nnplan's Einsum takes each label once per operand");
      }
      const auto [it, fresh] = extent.emplace(l, shape.dims[a]);
      if (!fresh && it->second != shape.dims[a]) {
        cx.fail("equation '" + equation + "': label '" + label_text(l) + "' has extent " +
                str(it->second) + " in one input and " + str(shape.dims[a]) + " in input " +
                std::to_string(i) + " (only equal extents contract)");
      }
      ++uses[l];
    }
  }
  std::vector<Label> output;
  if (arrow == std::string::npos) {
    for (std::size_t k = 0; k < ellipsis_axes; ++k)
      output.push_back(kEllipsis + static_cast<Label>(k));
    for (const auto& [l, n] : uses) {
      if (l < kEllipsis && n == 1) output.push_back(l);
    }
  } else {
    const Side out = parse_side(cx, equation.substr(arrow + 2), equation);
    if (!out.has_ellipsis && ellipsis_axes > 0) {
      // numpy sums the ellipsis axes away when the output leaves them out; ONNX keeps them.
      cx.fail("equation '" + equation + "': the inputs have '...' and the output does not");
    }
    output = expand(out, ellipsis_axes, ellipsis_axes);
    for (const Label l : output) {
      if (std::count(output.begin(), output.end(), l) > 1 || !extent.contains(l)) {
        cx.fail("equation '" + equation + "': output label '" + label_text(l) +
                "' is repeated or names no input axis");
      }
    }
  }
  Term result = terms[0];
  for (std::size_t i = 1; i < operands; ++i) {
    std::vector<Label> keep = output;
    for (std::size_t j = i + 1; j < operands; ++j)
      keep.insert(keep.end(), terms[j].labels.begin(), terms[j].labels.end());
    result = contract(cx, std::move(result), terms[i], keep, extent);
  }
  result = permuted(cx, sum_away(cx, std::move(result), output), output);
  cx.define(cx.out_name(0), result.id);
}

}  // namespace nnplan::format::onnx_import
