// RNN, GRU and LSTM imports (operators/recurrent.cpp): a node of the defaults as one rnn, gru or
// lstm node with W, R and B as payloads (Y_h sliced from its Y, batch-first permuted), the
// unrolled graph's shape otherwise (one input projection per direction with bias Wb + Rb, one
// recurrent `linear` per step, no nodes for an unused output) and every refusal with its message.
// Their values are checked against a float64 oracle in tests/runtime/onnx_recurrent_run_test.cpp
// and by ONNX's own tests.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace recurrent_test {
namespace {

using ::testing::HasSubstr;

// A forward `op` over x [seq 3, batch 2, input 4] with hidden size 2 and constant W, R and B.
Model recurrence(const std::string& op, int opset = 14, std::int64_t seq = 3) {
  const std::int64_t g = op == "RNN" ? 1 : op == "GRU" ? 3 : 4;
  Model m(opset);
  m.input("x", {seq, 2, 4}).output("y").output("y_h");
  m.init("W", {1, g * 2, 4}, iota(static_cast<std::size_t>(g * 8)));
  m.init("R", {1, g * 2, 2}, iota(static_cast<std::size_t>(g * 4)));
  m.init("B", {1, g * 4}, iota(static_cast<std::size_t>(g * 4), 10.0F));
  m.node(op, {"x", "W", "R", "B"}, {"y", "y_h"}, "rec");
  return m;
}

onnx::NodeProto& node0(Model& m) {
  return m.g().mutable_node()->at(0);
}

// `m`'s node with activations that are not the defaults (so it is unrolled).
Model unrolled(Model m) {
  new_attr(node0(m), "activations", onnx::AttributeProto_AttributeType_STRINGS).add_strings("Relu");
  return m;
}

TEST(OnnxRecurrent, ANodeOfTheDefaultsIsOneNodeOfItsKind) {
  const ImportedModel r = ok(recurrence("RNN"));
  const Lines got = lines(r.graph());
  EXPECT_EQ(got[1], "1 rnn [0] -> [3,1,2,2] 'rec'");
  EXPECT_EQ(tensor_of(r, 1, "weight").shape(), (ir::Shape{{1, 2, 4}}));
  EXPECT_EQ(tensor_of(r, 1, "recurrence").shape(), (ir::Shape{{1, 2, 2}}));
  const auto bias = tensor_of(r, 1, "bias").values<float>();
  EXPECT_EQ(std::vector<float>(bias.begin(), bias.end()),
            (std::vector<float>{10.0F, 11.0F, 12.0F, 13.0F}));
  // Y_h: the last step of Y.
  EXPECT_EQ(got[2], "2 slice [1] -> [1,1,2,2] 'rec'");
  EXPECT_EQ(r.graph().nodes[2].params,
            (ir::OpParams{ir::SliceParams{.axis = 0, .start = 2, .end = 3}}));
  EXPECT_EQ(r.graph().nodes.back().kind, ir::OpKind::reshape);
  // GRU keeps linear_before_reset; a reverse direction's Y_h is its first step.
  Model gru = recurrence("GRU");
  attr_i(node0(gru), "linear_before_reset", 1);
  attr_s(node0(gru), "direction", "reverse");
  const ImportedModel g = ok(gru);
  EXPECT_EQ(g.graph().nodes[1].kind, ir::OpKind::gru);
  EXPECT_EQ(g.graph().nodes[1].params,
            (ir::OpParams{ir::RecurrentParams{.hidden_size = 2,
                                              .direction = ir::RecurrentDirection::reverse,
                                              .linear_before_reset = true}}));
  EXPECT_EQ(g.graph().nodes[2].params,
            (ir::OpParams{ir::SliceParams{.axis = 0, .start = 0, .end = 1}}));
}

TEST(OnnxRecurrent, BatchFirstIsPermutedAroundTheKind) {
  Model m(14);
  m.input("x", {2, 3, 4}).input("h0", {2, 1, 2}).output("y");
  m.init("W", {1, 8, 4}, iota(32)).init("R", {1, 8, 2}, iota(16));
  auto& n = m.node("LSTM", {"x", "W", "R", "", "", "h0"}, {"y"}, "rec");
  attr_i(n, "layout", 1);
  const ImportedModel r = ok(m);
  const Lines got = lines(r.graph());
  // x and h0 to [seq, batch, ...] and [dirs, batch, hidden]; Y back to [batch, seq, dirs, hidden].
  EXPECT_EQ(got[2], "2 permute(perm=1,0,2) [0] -> [3,2,4] 'rec'");
  EXPECT_EQ(got[3], "3 permute(perm=1,0,2) [1] -> [1,2,2] 'rec'");
  EXPECT_EQ(got[4], "4 lstm [2,3] -> [3,1,2,2] 'rec'");
  EXPECT_EQ(got[5], "5 permute(perm=2,0,1,3) [4] -> [2,3,1,2] 'rec'");
}

TEST(OnnxRecurrent, WhatTheKindsDoNotRunIsUnrolled) {
  const auto has_kind = [](const ImportedModel& r, ir::OpKind kind) {
    for (const ir::Node& n : r.graph().nodes)
      if (n.kind == kind) return true;
    return false;
  };
  EXPECT_FALSE(has_kind(ok(unrolled(recurrence("RNN"))), ir::OpKind::rnn));
  Model clip = recurrence("GRU");
  attr_f(node0(clip), "clip", 2.0F);
  EXPECT_FALSE(has_kind(ok(clip), ir::OpKind::gru));
  // LSTM's Y_c (the last cell state) is not among the lstm kind's outputs.
  Model y_c = recurrence("LSTM");
  y_c.output("y_c");
  node0(y_c).add_output("y_c");
  EXPECT_FALSE(has_kind(ok(y_c), ir::OpKind::lstm));
  Model forget = recurrence("LSTM");
  attr_i(node0(forget), "input_forget", 1);
  EXPECT_FALSE(has_kind(ok(forget), ir::OpKind::lstm));
  Model peepholes = recurrence("LSTM");
  peepholes.init("P", {1, 6}, iota(6));
  node0(peepholes).add_input("");
  node0(peepholes).add_input("");
  node0(peepholes).add_input("");
  node0(peepholes).add_input("P");
  EXPECT_FALSE(has_kind(ok(peepholes), ir::OpKind::lstm));
  // The defaults named explicitly are the defaults.
  Model named = recurrence("GRU");
  auto& a = new_attr(node0(named), "activations", onnx::AttributeProto_AttributeType_STRINGS);
  a.add_strings("Sigmoid");
  a.add_strings("Tanh");
  EXPECT_TRUE(has_kind(ok(named), ir::OpKind::gru));
}

TEST(OnnxRecurrent, TheInputProjectionIsOneLinearWithBothBiases) {
  const ImportedModel r = ok(unrolled(recurrence("RNN")));
  const Lines got = lines(r.graph());
  EXPECT_EQ(got[1], "1 linear [0] -> [3,2,2] 'rec'");
  EXPECT_EQ(tensor_of(r, 1, "weight").shape(), (ir::Shape{{2, 4}}));
  // Wb (10, 11) plus Rb (12, 13).
  const auto bias = tensor_of(r, 1, "bias").values<float>();
  EXPECT_EQ(std::vector<float>(bias.begin(), bias.end()), (std::vector<float>{22.0F, 24.0F}));
  int recurrent = 0;
  for (const ir::Node& n : r.graph().nodes)
    recurrent += n.kind == ir::OpKind::linear ? 1 : 0;
  EXPECT_EQ(recurrent, 1 + 3);                                  // the projection and one per step
  EXPECT_EQ(r.graph().nodes.back().kind, ir::OpKind::reshape);  // Y_h [1, 2, 2] from the last H
}

TEST(OnnxRecurrent, AnUnusedOutputAddsNoNodes) {
  Model m = recurrence("GRU");
  m.g().mutable_output()->DeleteSubrange(0, 1);  // only y_h is a graph output
  const ImportedModel r = ok(m);
  for (const ir::Node& n : r.graph().nodes)
    EXPECT_NE(n.kind, ir::OpKind::concat) << lines(r.graph()).back();
}

TEST(OnnxRecurrent, WeightsMustBeInitializers) {
  Model m(14);
  m.input("x", {3, 2, 4}).input("W", {1, 2, 4}).output("y");
  m.init("R", {1, 2, 2}, iota(4));
  m.node("RNN", {"x", "W", "R"}, {"y"}, "rec");
  EXPECT_THAT(unsupported_of(m),
              HasSubstr("node 0 'rec' (RNN): W 'W' is a graph input, not an initializer"));
}

TEST(OnnxRecurrent, SequenceLengthsMustAllBeTheSequence) {
  Model m = recurrence("LSTM");
  m.init_i64("lens", {3, 2});
  node0(m).add_input("lens");
  EXPECT_EQ(unsupported_of(m),
            "node 0 'rec' (LSTM): sequence_lens 'lens' holds 2; supported: every entry the "
            "sequence length 3");
  Model all = recurrence("LSTM");
  all.init_i64("lens", {3, 3});
  node0(all).add_input("lens");
  EXPECT_EQ(ok(all).graph().nodes[1].kind, ir::OpKind::lstm);
  Model runtime(14);
  runtime.input("x", {3, 2, 4}).input("lens", {2}, onnx::TensorProto_DataType_INT64).output("y");
  runtime.init("W", {1, 2, 4}, iota(8)).init("R", {1, 2, 2}, iota(4));
  runtime.node("RNN", {"x", "W", "R", "", "lens"}, {"y"}, "rec");
  EXPECT_THAT(unsupported_of(runtime),
              HasSubstr("sequence_lens 'lens' is a graph input, not a constant"));
}

TEST(OnnxRecurrent, ActivationsAreCheckedByNameAndCount) {
  Model unknown = recurrence("GRU");
  auto& a = new_attr(node0(unknown), "activations", onnx::AttributeProto_AttributeType_STRINGS);
  a.add_strings("Sigmoid");
  a.add_strings("Gelu");
  EXPECT_THAT(unsupported_of(unknown),
              HasSubstr("attribute activations = 'Gelu' is not supported; supported: Relu, Tanh, "
                        "Sigmoid, Softsign, Softplus, LeakyRelu, Elu, ThresholdedRelu, "
                        "HardSigmoid, Affine, ScaledTanh"));
  Model count = recurrence("LSTM");
  new_attr(node0(count), "activations", onnx::AttributeProto_AttributeType_STRINGS)
      .add_strings("Tanh");
  EXPECT_THAT(error_of(count),
              HasSubstr("activations lists 1 functions; LSTM with direction forward takes 3"));
  Model infinite = recurrence("RNN");
  new_attr(node0(infinite), "activations", onnx::AttributeProto_AttributeType_STRINGS)
      .add_strings("LeakyRelu");
  new_attr(node0(infinite), "activation_alpha", onnx::AttributeProto_AttributeType_FLOATS)
      .add_floats(std::numeric_limits<float>::infinity());
  EXPECT_THAT(
      unsupported_of(infinite),
      HasSubstr("activation LeakyRelu has alpha inf and beta 0; supported: finite numbers"));
}

TEST(OnnxRecurrent, AttributesAreChecked) {
  Model direction = recurrence("RNN");
  attr_s(node0(direction), "direction", "sideways");
  EXPECT_THAT(error_of(direction),
              HasSubstr("direction is 'sideways'; it is forward, reverse or bidirectional"));
  Model hidden = recurrence("RNN");
  attr_i(node0(hidden), "hidden_size", 5);
  EXPECT_THAT(error_of(hidden), HasSubstr("hidden_size is 5 but R 'R' has shape [1,2,2]"));
  Model layout = recurrence("RNN", 13);
  attr_i(node0(layout), "layout", 1);
  EXPECT_THAT(unsupported_of(layout), HasSubstr("attribute 'layout' is not supported for RNN"));
  Model bad_layout = recurrence("RNN");
  attr_i(node0(bad_layout), "layout", 2);
  EXPECT_THAT(error_of(bad_layout), HasSubstr("layout is 2; it is 0 or 1"));
  Model lbr = recurrence("LSTM");
  attr_i(node0(lbr), "linear_before_reset", 1);
  EXPECT_THAT(unsupported_of(lbr),
              HasSubstr("attribute 'linear_before_reset' is not supported for LSTM"));
  Model old_gru = recurrence("GRU", 2);
  attr_i(node0(old_gru), "linear_before_reset", 1);
  EXPECT_THAT(unsupported_of(old_gru),
              HasSubstr("attribute 'linear_before_reset' is not supported for GRU"));
  Model sequence_output = recurrence("LSTM", 6);
  attr_i(node0(sequence_output), "output_sequence", 1);
  EXPECT_EQ(ok(sequence_output).graph().nodes[1].kind, ir::OpKind::lstm);
  attr_i(node0(sequence_output), "layout", 0);
  EXPECT_THAT(unsupported_of(sequence_output),
              HasSubstr("attribute 'layout' is not supported for LSTM"));
  Model clip = recurrence("LSTM");
  attr_f(node0(clip), "clip", -1.0F);
  EXPECT_THAT(unsupported_of(clip), HasSubstr("clip is -1; supported: a positive finite number"));
}

TEST(OnnxRecurrent, OperandShapesAreChecked) {
  Model r_shape(14);
  r_shape.input("x", {3, 2, 4}).output("y");
  r_shape.init("W", {1, 6, 4}, iota(24)).init("R", {1, 5, 2}, iota(10));
  r_shape.node("GRU", {"x", "W", "R"}, {"y"}, "rec");
  EXPECT_THAT(error_of(r_shape),
              HasSubstr("R 'R' has shape [1,5,2]; it is [num_directions 1, 3 * hidden_size, "
                        "hidden_size]"));
  Model w_shape(14);
  w_shape.input("x", {3, 2, 4}).output("y");
  w_shape.init("W", {1, 2, 3}, iota(6)).init("R", {1, 2, 2}, iota(4));
  w_shape.node("RNN", {"x", "W", "R"}, {"y"}, "rec");
  EXPECT_THAT(error_of(w_shape), HasSubstr("W 'W' has shape [1,2,3]; expected [1,2,4]"));
  Model state(14);
  state.input("x", {3, 2, 4}).input("h0", {2, 2, 2}).output("y");
  state.init("W", {1, 2, 4}, iota(8)).init("R", {1, 2, 2}, iota(4));
  state.node("RNN", {"x", "W", "R", "", "", "h0"}, {"y"}, "rec");
  EXPECT_THAT(error_of(state), HasSubstr("initial_h 'h0' has shape [2,2,2]; expected [1,2,2]"));
  Model rank(14);
  rank.input("x", {3, 8}).output("y");
  rank.init("W", {1, 2, 8}, iota(16)).init("R", {1, 2, 2}, iota(4));
  rank.node("RNN", {"x", "W", "R"}, {"y"}, "rec");
  EXPECT_THAT(error_of(rank),
              HasSubstr("input X 'x' has shape [3,8]; it is [seq_length, batch, input_size]"));
}

TEST(OnnxRecurrent, TheUnrolledStepsAreBounded) {
  EXPECT_THAT(unsupported_of(unrolled(recurrence("RNN", 14, 5000))),
              HasSubstr("a sequence of 5000 steps in 1 direction(s) unrolls into more than 4096 "
                        "steps; supported: up to that many"));
  // One rnn node runs any length.
  EXPECT_EQ(ok(recurrence("RNN", 14, 5000)).graph().nodes[1].kind, ir::OpKind::rnn);
}

}  // namespace
}  // namespace recurrent_test
}  // namespace nnplan::format::onnx_test
