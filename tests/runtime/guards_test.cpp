// The guards every provider shares (src/runtime/guards.hpp): ir_shape_guard accepts exactly the
// calls the IR's shape rule and the op table's payload slots allow, each refusal with its message.
#include "runtime/guards.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nnplan/format/payload_file.hpp"

namespace nnplan::runtime {
namespace {

using backend::BackendOp;
using ir::OpKind;

ir::Shape dims(std::initializer_list<ir::Dim> d) {
  return ir::Shape{ir::Dims(d.begin(), d.end())};
}

// A call of `node` on inputs of `inputs` shapes, output of `output`, payloads from `store`.
struct Call {
  ir::Node node;
  std::vector<ir::Shape> inputs;
  ir::Shape output;
  ir::WeightStore store;

  [[nodiscard]] std::string refusal(BackendOp op) const {
    std::vector<TensorRef> refs;
    for (const ir::Shape& s : inputs)
      refs.push_back({.bytes = nullptr, .shape = &s});
    std::vector<WeightRef> weights;
    for (const ir::PayloadSlot& slot : ir::op_traits(node.kind).payloads) {
      if (!slot.attribute) weights.push_back({slot.name, store.find_tensor(node.id, slot.name)});
    }
    const KernelCall call{.node = node,
                          .inputs = refs,
                          .weights = {.tensors = weights, .store = &store, .node_id = node.id},
                          .output = {.bytes = nullptr, .shape = &output}};
    const auto ok = ir_shape_guard(call, op);
    return ok ? std::string() : ok.error().message;
  }
};

Call add_call() {
  return {.node = {.id = 2, .kind = OpKind::add, .parents = {0, 1}, .shape = dims({2, 3})},
          .inputs = {dims({2, 3}), dims({2, 3})},
          .output = dims({2, 3}),
          .store = {}};
}

Call linear_call() {
  Call c{.node = {.id = 1, .kind = OpKind::linear, .parents = {0}, .shape = dims({4, 3})},
         .inputs = {dims({4, 6})},
         .output = dims({4, 3}),
         .store = {}};
  c.store.tensors[{1, "weight"}] =
      ir::WeightTensor::adopt<float>(dims({3, 6}), std::vector<float>(18));
  return c;
}

TEST(IrShapeGuard, AcceptsWhatTheIrRuleAllows) {
  EXPECT_EQ(add_call().refusal(BackendOp::add), "");
  EXPECT_EQ(linear_call().refusal(BackendOp::linear), "") << "the bias is optional";
}

TEST(IrShapeGuard, RefusesAnotherOpsKind) {
  EXPECT_EQ(add_call().refusal(BackendOp::sub), "node kind add does not run on the sub kernel");
}

TEST(IrShapeGuard, RefusesAnInputCountOtherThanTheParents) {
  Call c = add_call();
  c.inputs.pop_back();
  EXPECT_EQ(c.refusal(BackendOp::add), "1 inputs given; add takes 2");
}

TEST(IrShapeGuard, RefusesInputsTheRuleRefuses) {
  Call c = add_call();
  c.inputs[1] = dims({3, 2});
  EXPECT_EQ(c.refusal(BackendOp::add),
            "node 2 (add): parent shapes differ: [2,3] and [3,2] (broadcasting must be explicit)");
}

TEST(IrShapeGuard, RefusesADeclaredShapeTheInputsDoNotGive) {
  Call c = add_call();
  c.inputs = {dims({3, 2}), dims({3, 2})};
  EXPECT_EQ(c.refusal(BackendOp::add),
            "node 2 (add): its inputs give the shape [3,2], the node declares [2,3]");
}

TEST(IrShapeGuard, RefusesAnOutputOfAnotherShape) {
  Call c = add_call();
  c.output = dims({6});
  EXPECT_EQ(c.refusal(BackendOp::add), "the output has shape [6]; the node declares [2,3]");
}

TEST(IrShapeGuard, RefusesAMissingOrMisshapenPayload) {
  Call missing = linear_call();
  missing.store.tensors.clear();
  EXPECT_EQ(missing.refusal(BackendOp::linear),
            "payload weight is missing; linear needs one of shape [3,6]");
  Call wrong = linear_call();
  wrong.store.tensors[{1, "weight"}] =
      ir::WeightTensor::adopt<float>(dims({3, 5}), std::vector<float>(15));
  EXPECT_EQ(wrong.refusal(BackendOp::linear),
            "payload weight has shape [3,5]; linear needs float32 [3,6]");
  Call short_data = linear_call();
  short_data.store.tensors[{1, "weight"}] =
      ir::WeightTensor::adopt(dims({3, 6}), std::vector<float>(5));
  EXPECT_EQ(short_data.refusal(BackendOp::linear),
            "payload weight has shape [3,6]; linear needs float32 [3,6]");
  Call bias = linear_call();
  bias.store.tensors[{1, "bias"}] =
      ir::WeightTensor::adopt<float>(dims({6}), std::vector<float>(6));
  EXPECT_EQ(bias.refusal(BackendOp::linear),
            "payload bias has shape [6]; linear needs float32 [3]");
}

TEST(IrShapeGuard, RefusesAMissingRequiredAttribute) {
  Call c{.node = {.id = 1,
                  .kind = OpKind::batch_norm_eval,
                  .parents = {0},
                  .shape = dims({2, 3}),
                  .params = ir::ChannelAxisParams{.channel_axis = 1, .channels = 3}},
         .inputs = {dims({2, 3})},
         .output = dims({2, 3}),
         .store = {}};
  for (const char* name : {"scale", "bias", "mean", "var"}) {
    c.store.tensors[{1, name}] = ir::WeightTensor::adopt<float>(dims({3}), std::vector<float>(3));
  }
  EXPECT_EQ(c.refusal(BackendOp::batch_norm), "batch_norm_eval needs the attribute epsilon");
  c.store.attributes[{1, "epsilon"}] = 1e-5;
  EXPECT_EQ(c.refusal(BackendOp::batch_norm), "");
}

}  // namespace
}  // namespace nnplan::runtime
