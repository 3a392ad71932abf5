// BatchNormalization, inference form only: one batch_norm_eval node (channel axis 1) over an
// (N,C,...) input, with scale, bias, mean and var [C] as payloads when all four are constants,
// else as its parents 1 to 4 (weights as values: graph inputs, as in a model exported with
// export_params=False, or computed; a constant among them becomes a `const` node), and epsilon
// as a payload attribute.
#include <array>
#include <cmath>
#include <limits>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::OpKind;
using ir::Shape;

void import_batch_normalization(ImportContext& cx) {
  cx.allow_attrs({"epsilon", "momentum", "training_mode", "spatial", "is_test", "consumed_inputs"});
  cx.require_inputs(5, 5);
  if (const std::int64_t t = cx.attr_int("training_mode", 0); t != 0) {
    cx.fail_attr("training_mode", str(t), "0 (inference)");
  }
  if (const std::int64_t s = cx.attr_int("spatial", 1); s != 1) {
    cx.fail_attr("spatial", str(s), "1");
  }
  for (int i = 1; i < cx.output_count(); ++i) {
    if (!cx.out_name(i).empty()) {
      cx.unsupported("has " + str(cx.output_count()) +
                     " outputs (training form); only the inference form with one output is "
                     "supported");
    }
  }
  const NodeId x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(x);
  if (xs.rank() < 2) cx.unsupported("input " + to_string(xs) + " is not (N,C,...)");
  const Dim c = xs.dims[1];
  if (constexpr Dim kMax = std::numeric_limits<std::uint32_t>::max(); c > kMax) {
    cx.fail("input " + to_string(xs) + " has too many channels: " + str(c) + ", the limit is " +
            str(kMax));
  }
  std::array<ir::WeightTensor, 4> p;
  constexpr std::array<std::string_view, 4> kRoles = {"scale", "bias", "mean", "var"};
  const auto check_dims = [&](std::size_t i, const std::vector<Dim>& dims) {
    if (dims != std::vector<Dim>{c}) {
      cx.fail(std::string(kRoles[i]) + " " + quoted_name(cx.in_name(static_cast<int>(i) + 1)) +
              " " + list_string(dims) + " is not [" + str(c) + "]");
    }
  };
  bool as_values = false;
  for (int i = 1; i <= 4; ++i)
    as_values = as_values || cx.constant(cx.in_name(i)) == nullptr;
  ir::Parents parents = {x};
  for (std::size_t i = 0; i < 4; ++i) {
    const std::string_view name = cx.in_name(static_cast<int>(i) + 1);
    if (as_values) {
      const NodeId v = cx.float_value(name, kRoles[i]);
      check_dims(i, std::vector<Dim>(cx.shape_of(v).dims.begin(), cx.shape_of(v).dims.end()));
      parents.push_back(v);
      continue;
    }
    ConstPtr t = cx.float_constant(name, kRoles[i]);
    check_dims(i, t->dims);
    p[i] = cx.payload_tensor(t, Shape{t->dims});
  }
  const float eps = cx.attr_float("epsilon", 1e-5f);
  if (!std::isfinite(eps) || eps < 0) cx.fail_attr("epsilon", str(eps), "finite, >= 0");
  const NodeId id =
      cx.add(OpKind::batch_norm_eval, std::move(parents),
             ir::ChannelAxisParams{.channel_axis = 1, .channels = static_cast<std::uint32_t>(c)});
  for (std::size_t i = 0; i < 4 && !as_values; ++i)
    cx.set_payload(id, std::string(kRoles[i]), std::move(p[i]));
  cx.set_attribute(id, "epsilon", static_cast<double>(eps));
  cx.define(cx.out_name(0), id);
}

}  // namespace nnplan::format::onnx_import
