#include "nnplan/ir/payload_shapes.hpp"

#include <string>
#include <utility>
#include <variant>

namespace nnplan::ir {

Expected<Shape> payload_shape(const Node& node, PayloadShape rule,
                              std::span<const Shape* const> parents) {
  const auto malformed = [&node](std::string problem) {
    return std::unexpected(
        make_error(ErrorKind::invalid_input, describe(node) + ": " + std::move(problem)));
  };
  // The shape of the node's one parent, or the problem.
  const auto only_parent = [&](std::string_view expectation) -> Expected<const Shape*> {
    if (node.parents.size() != 1) return malformed(std::string(expectation));
    if (parents.empty() || parents[0] == nullptr) {
      return malformed("parent " + std::to_string(node.parents[0]) + " does not exist");
    }
    return parents[0];
  };
  switch (rule) {
    case PayloadShape::value_shape:
      if (const auto* p = std::get_if<ConstParams>(&node.params)) return p->value_shape;
      return node.shape;
    case PayloadShape::linear_weight:
    case PayloadShape::linear_bias: {
      auto parent = only_parent("linear takes one parent");
      if (!parent) return std::unexpected(std::move(parent.error()));
      if ((*parent)->dims.empty() || node.shape.dims.empty()) {
        return malformed("linear needs a parent and a result of rank 1 or more");
      }
      const Dim out = node.shape.dims.back();
      if (rule == PayloadShape::linear_weight) return Shape{{out, (*parent)->dims.back()}};
      return Shape{{out}};
    }
    case PayloadShape::conv_weight:
    case PayloadShape::conv_transpose_weight:
    case PayloadShape::conv_bias: {
      const auto* p = std::get_if<ConvParams>(&node.params);
      if (p == nullptr) return malformed("parameters are not conv parameters");
      if (p->groups == 0) return malformed("groups is 0");
      if (rule == PayloadShape::conv_bias) return Shape{{p->out_channels}};
      Shape weight;
      if (rule == PayloadShape::conv_weight) {
        weight.dims.assign({p->out_channels, p->in_channels / p->groups});
      } else {
        weight.dims.assign({p->in_channels, p->out_channels / p->groups});
      }
      weight.dims.insert(weight.dims.end(), p->kernel.begin(), p->kernel.end());
      return weight;
    }
    case PayloadShape::channels: {
      const auto* p = std::get_if<ChannelAxisParams>(&node.params);
      if (p == nullptr) return malformed("parameters are not batch_norm_eval parameters");
      return Shape{{p->channels}};
    }
    case PayloadShape::normalized:
    case PayloadShape::gather_indices: {
      const auto* p = std::get_if<AxisParams>(&node.params);
      if (p == nullptr || node.parents.size() != 1)
        return malformed("takes one parent and an axis");
      auto parent = only_parent("takes one parent and an axis");
      if (!parent) return std::unexpected(std::move(parent.error()));
      const Dims& in = (*parent)->dims;
      if (p->axis >= in.size()) return malformed("axis is out of range for its parent");
      if (rule == PayloadShape::normalized) return Shape{Dims(in.begin() + p->axis, in.end())};
      // The declared shape's axes that replace `axis`.
      const std::size_t kept = in.size() - 1;
      if (node.shape.dims.size() < kept) return malformed("declared shape is too short");
      const auto first = node.shape.dims.begin() + p->axis;
      return Shape{Dims(first, first + (node.shape.dims.size() - kept))};
    }
    case PayloadShape::recurrent_weight:
    case PayloadShape::recurrent_recurrence:
    case PayloadShape::recurrent_bias: {
      const auto* p = std::get_if<RecurrentParams>(&node.params);
      if (p == nullptr) return malformed("parameters are not recurrent parameters");
      if (node.parents.empty() || parents.empty() || parents[0] == nullptr) {
        return malformed("takes the sequence X as parent 0");
      }
      if (parents[0]->rank() != 3) return malformed("X is not of rank 3");
      const Dim dirs = direction_count(p->direction);
      const Dim rows = recurrent_gates(node.kind) * p->hidden_size;
      if (rule == PayloadShape::recurrent_bias) return Shape{{dirs, 2 * rows}};
      const Dim cols =
          rule == PayloadShape::recurrent_weight ? parents[0]->dims[2] : p->hidden_size;
      return Shape{{dirs, rows, cols}};
    }
    case PayloadShape::none:
      break;
  }
  return malformed("takes no payloads");
}

}  // namespace nnplan::ir
