// The onednn recurrent handlers (onednn.rnn, onednn.gru, onednn.lstm) against the reference
// provider within each capsule's conformance tolerance (tests/oracles/conformance_table.cpp):
// every direction, with one batch row and several (the bidirectional output reordered from
// oneDNN's [seq, batch, directions * hidden]), initial states given or zero, bias or none, gru
// with and without linear_before_reset; one thread for one batch row; the guard's refusal of a
// wrong initial state.
#include <gtest/gtest.h>

#include <string>

#include "onednn_test_support.hpp"

namespace nnplan::runtime::onednn {
namespace {

using namespace testing;

struct RecurrentCase {
  ir::OpKind kind = ir::OpKind::lstm;
  ir::RecurrentDirection direction = ir::RecurrentDirection::forward;
  ir::Dim seq = 5, batch = 3, input = 7, hidden = 6;
  std::size_t states = 0;
  bool bias = true;
  bool linear_before_reset = false;
};

Command recurrent_case(const RecurrentCase& c) {
  const ir::Dim dirs = ir::direction_count(c.direction);
  const ir::Dim rows = ir::recurrent_gates(c.kind) * c.hidden;
  Command cmd;
  std::vector<ir::NodeId> parents = {0};
  cmd.inputs.push_back(random_tensor(shape_of({c.seq, c.batch, c.input}), 51));
  for (std::size_t i = 0; i < c.states; ++i) {
    parents.push_back(static_cast<ir::NodeId>(i + 1));
    cmd.inputs.push_back(
        random_tensor(shape_of({dirs, c.batch, c.hidden}), 52 + static_cast<std::uint32_t>(i)));
  }
  const auto id = static_cast<ir::NodeId>(c.states + 1);
  cmd.chain.push_back(node(id, c.kind, parents, shape_of({c.seq, dirs, c.batch, c.hidden}),
                           ir::RecurrentParams{.hidden_size = c.hidden,
                                               .direction = c.direction,
                                               .linear_before_reset = c.linear_before_reset}));
  cmd.store.tensors[{id, "weight"}] = payload(shape_of({dirs, rows, c.input}), 55, -0.5F, 0.5F);
  cmd.store.tensors[{id, "recurrence"}] =
      payload(shape_of({dirs, rows, c.hidden}), 56, -0.5F, 0.5F);
  if (c.bias) {
    cmd.store.tensors[{id, "bias"}] = payload(shape_of({dirs, 2 * rows}), 57, -0.5F, 0.5F);
  }
  return cmd;
}

void expect_every_form(ir::OpKind kind, const std::string& capsule) {
  for (const auto direction : {ir::RecurrentDirection::forward, ir::RecurrentDirection::reverse,
                               ir::RecurrentDirection::bidirectional}) {
    for (const ir::Dim batch : {ir::Dim{1}, ir::Dim{3}}) {
      for (std::size_t states = 0; states <= (kind == ir::OpKind::lstm ? 2U : 1U); ++states) {
        for (const bool lbr : {false, true}) {
          if (lbr && kind != ir::OpKind::gru) continue;
          SCOPED_TRACE("direction " + std::to_string(static_cast<int>(direction)) + " batch " +
                       std::to_string(batch) + " states " + std::to_string(states) +
                       (lbr ? " lbr" : ""));
          expect_matches_reference(capsule, recurrent_case({.kind = kind,
                                                            .direction = direction,
                                                            .batch = batch,
                                                            .states = states,
                                                            .bias = states != 1,
                                                            .linear_before_reset = lbr}));
        }
      }
    }
  }
}

TEST(onednn_rnn_forward_tests, MatchesReference) {
  expect_every_form(ir::OpKind::rnn, "onednn.rnn");
}
TEST(onednn_gru_forward_tests, MatchesReference) {
  expect_every_form(ir::OpKind::gru, "onednn.gru");
}
TEST(onednn_lstm_forward_tests, MatchesReference) {
  expect_every_form(ir::OpKind::lstm, "onednn.lstm");
}

// A layer over one batch row runs on one thread whatever the bound (each time step is a
// matrix-vector product); over several rows, and large enough, on the bound.
TEST(onednn_gru_forward_tests, OneBatchRowRunsOnOneThread) {
  const auto threads_of = [](ir::Dim batch) {
    const Command c = recurrent_case({.kind = ir::OpKind::gru,
                                      .direction = ir::RecurrentDirection::bidirectional,
                                      .seq = 32,
                                      .batch = batch,
                                      .input = 64,
                                      .hidden = 128});
    auto state = prepare_onednn("onednn.gru", c, 2);
    EXPECT_TRUE(state.has_value()) << state.error().message;
    return state ? static_cast<const PrimitiveState&>(**state).threads : -1;
  };
  EXPECT_EQ(threads_of(1), 1);
  EXPECT_EQ(threads_of(4), 2);
}

TEST(onednn_lstm_forward_tests, RefusesAWrongInitialState) {
  Command c = recurrent_case({.states = 1});
  c.inputs[1] = random_tensor(shape_of({1, 2, 6}), 1);
  const std::string m = refusal("onednn.lstm", c);
  EXPECT_NE(m.find("parent 1 (initial h) has shape [1,2,6]; expected [1,3,6]"), std::string::npos)
      << m;
}

}  // namespace
}  // namespace nnplan::runtime::onednn
