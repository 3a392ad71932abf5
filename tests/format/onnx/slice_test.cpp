// Slice, Split and Gather on floats (onnx/operators/slice.cpp): slice nodes per changed axis,
// bounds normalized as ONNX does, one slice per used Split output, constant Gather indices as a
// slice and a reshape, Gather with runtime int64 indices (or of int64 data) as a gather whose
// indices are its second parent, and what each rejects.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <limits>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// `slice(axis=a,start:end:step)` of node `id`.
std::string slice_of(const ImportedModel& m, ir::NodeId id) {
  const ir::Node& n = m.graph().nodes.at(id);
  if (n.kind != OpKind::slice) return std::string(ir::to_string(n.kind));
  const auto& p = std::get<ir::SliceParams>(n.params);
  return "slice(axis=" + std::to_string(p.axis) + "," + std::to_string(p.start) + ":" +
         std::to_string(p.end) + ":" + std::to_string(p.step) + ")";
}

void scalar_i64(Model& m, const std::string& name, std::int64_t v) {
  auto* t = m.g().add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto_DataType_INT64);
  t->add_int64_data(v);
}

struct SliceCase {
  std::vector<std::int64_t> starts, ends, axes, steps;
  std::vector<std::string> slices;  // slice_of each emitted node, in order
  std::string shape;                // the result's shape
};

class OnnxSlice : public ::testing::TestWithParam<SliceCase> {};

TEST_P(OnnxSlice, NormalizesBoundsPerAxis) {
  const SliceCase& c = GetParam();
  Model m;
  m.input("x", {4, 6, 8}).output("y");
  slice_node(m, "x", "y", "s", c.starts, c.ends, c.axes, c.steps);
  const ImportedModel r = ok(m);
  const auto& nodes = r.graph().nodes;
  ASSERT_EQ(nodes.size(), c.slices.size() + 1);
  for (std::size_t i = 0; i < c.slices.size(); ++i) {
    EXPECT_EQ(slice_of(r, static_cast<ir::NodeId>(i + 1)), c.slices[i]);
    EXPECT_EQ(nodes[i + 1].parents[0], i);  // a chain from the input
    EXPECT_EQ(nodes[i + 1].source_name, "s");
  }
  EXPECT_EQ(dims(nodes[r.graph().output_ids[0]].shape), c.shape);
}

INSTANTIATE_TEST_SUITE_P(Cases, OnnxSlice,
                         ::testing::Values(
                             // vit_b_16's q/k/v split on the last axis
                             SliceCase{{0}, {4}, {-1}, {}, {"slice(axis=2,0:4:1)"}, "[4,6,4]"},
                             SliceCase{{4}, {8}, {-1}, {}, {"slice(axis=2,4:8:1)"}, "[4,6,4]"},
                             // negative bounds count from the end; INT64_MAX ends clamp
                             SliceCase{{-3}, {kMax}, {1}, {}, {"slice(axis=1,3:6:1)"}, "[4,3,8]"},
                             SliceCase{{-100}, {-1}, {0}, {}, {"slice(axis=0,0:3:1)"}, "[3,6,8]"},
                             // two axes, no axes input (0, 1), a step
                             SliceCase{{1, 0}, {3, 6}, {}, {}, {"slice(axis=0,1:3:1)"}, "[2,6,8]"},
                             SliceCase{{0, 1},
                                       {kMax, kMax},
                                       {2, 1},
                                       {3, 2},
                                       {"slice(axis=2,0:8:3)", "slice(axis=1,1:6:2)"},
                                       "[4,3,3]"},
                             // the whole axis: no node; an empty range is extent 0
                             SliceCase{{0}, {kMax}, {1}, {}, {}, "[4,6,8]"},
                             SliceCase{{5}, {2}, {1}, {}, {"slice(axis=1,5:2:1)"}, "[4,0,8]"}));

TEST(OnnxSlice, BeforeOpset10FromAttributes) {
  Model m(9);
  m.input("x", {4, 6}).output("y");
  auto& n = m.node("Slice", {"x"}, {"y"}, "s");
  attr_ints(n, "starts", {-2});
  attr_ints(n, "ends", {kMax});
  attr_ints(n, "axes", {1});
  const ImportedModel r = ok(m);
  EXPECT_EQ(slice_of(r, 1), "slice(axis=1,4:6:1)");
  EXPECT_EQ(lines(r.graph())[1], "1 slice [0] -> [4,2] 's'");
}

TEST(OnnxSlice, Rejects) {
  const auto model = [](std::vector<std::int64_t> axes, std::vector<std::int64_t> steps) {
    Model m;
    m.input("x", {4, 6}).output("y");
    m.init_i64("starts", std::vector<std::int64_t>(axes.size(), 0));
    m.init_i64("ends", std::vector<std::int64_t>(axes.size(), 2));
    m.init_i64("axes", axes).init_i64("steps", steps);
    m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"}, "s");
    return m;
  };
  EXPECT_EQ(unsupported_of(model({1}, {-1})),
            "node 0 's' (Slice): steps [-1] has negative step -1 on axis 1; only positive steps "
            "are supported");
  EXPECT_EQ(error_of(model({1}, {0})),
            "m.onnx: node 's' (Slice, opset 17): steps [0] has a 0 step");
  EXPECT_EQ(error_of(model({1, -1}, {1, 1})),
            "m.onnx: node 's' (Slice, opset 17): axes [1,-1] repeat axis 1");
  EXPECT_EQ(error_of(model({2}, {1})),
            "m.onnx: node 's' (Slice, opset 17): axis 2 is out of range for rank 2");
  Model g;  // starts computed at run time
  g.input("x", {4, 6}).input("st", {1}, onnx::TensorProto_DataType_INT64).output("y");
  g.init_i64("ends", {2});
  g.node("Slice", {"x", "st", "ends"}, {"y"}, "s");
  EXPECT_EQ(unsupported_of(g).substr(0, 61),
            "node 0 's' (Slice): starts 'st' is a graph input, not a const");
}

TEST(OnnxSplit, OneSlicePerUsedOutput) {
  // gpt_block: the fused qkv projection split on axis 2 by a constant split input.
  Model m;
  m.input("x", {1, 32, 384}).output("q").output("v");
  m.init_i64("split", {128, 128, 128});
  attr_i(m.node("Split", {"x", "split"}, {"q", "k", "v"}, "sp"), "axis", 2);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [1,32,384] 'x'", "1 slice [0] -> [1,32,128] 'sp'",
                                     "2 slice [0] -> [1,32,128] 'sp'"}));
  EXPECT_EQ(slice_of(r, 1), "slice(axis=2,0:128:1)");
  EXPECT_EQ(slice_of(r, 2), "slice(axis=2,256:384:1)");  // k is unused
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{1, 2}));
}

TEST(OnnxSplit, SizesFromAttributeOrEqualParts) {
  Model a(11);  // the split attribute before opset 13, a negative axis
  a.input("x", {2, 5}).output("a").output("b");
  auto& n = a.node("Split", {"x"}, {"a", "b"}, "sp");
  attr_i(n, "axis", -1);
  attr_ints(n, "split", {2, 3});
  const ImportedModel ra = ok(a);
  EXPECT_EQ(slice_of(ra, 1), "slice(axis=1,0:2:1)");
  EXPECT_EQ(slice_of(ra, 2), "slice(axis=1,2:5:1)");
  Model e;  // equal parts (shufflenet's chunk) with no split given
  e.input("x", {1, 4, 3}).output("a").output("b");
  attr_i(e.node("Split", {"x"}, {"a", "b"}, "sp"), "axis", 1);
  const ImportedModel re = ok(e);
  EXPECT_EQ(slice_of(re, 1), "slice(axis=1,0:2:1)");
  EXPECT_EQ(slice_of(re, 2), "slice(axis=1,2:4:1)");
  Model u;
  u.input("x", {1, 5}).output("a").output("b");
  attr_i(u.node("Split", {"x"}, {"a", "b"}, "sp"), "axis", 1);
  EXPECT_EQ(
      error_of(u),
      "m.onnx: node 'sp' (Split, opset 17): axis 1 of [1,5] does not split into 2 equal parts");
}

TEST(OnnxSplit, RejectsSizesThatDoNotAddUp) {
  Model m;
  m.input("x", {1, 6}).output("a").output("b");
  m.init_i64("split", {2, 3});
  attr_i(m.node("Split", {"x", "split"}, {"a", "b"}, "sp"), "axis", 1);
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'sp' (Split, opset 17): split [2,3] sums to 5, not to the extent 6 of "
            "axis 1 of [1,6]");
  Model c;
  c.input("x", {1, 6}).output("a").output("b");
  c.init_i64("split", {6});
  attr_i(c.node("Split", {"x", "split"}, {"a", "b"}, "sp"), "axis", 1);
  EXPECT_EQ(error_of(c),
            "m.onnx: node 'sp' (Split, opset 17): split [6] has 1 entries for 2 outputs");
}

TEST(OnnxGather, ScalarIndexIsASliceDroppingTheAxis) {
  // vit_b_16's class token: x[:, 0]
  Model m;
  m.input("x", {1, 197, 768}).output("y");
  scalar_i64(m, "i", 0);
  attr_i(m.node("Gather", {"x", "i"}, {"y"}, "g"), "axis", 1);
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [1,197,768] 'x'", "1 slice [0] -> [1,1,768] 'g'",
                                     "2 reshape([1,1,768]->[1,768]) [1] -> [1,768] 'g'"}));
  EXPECT_EQ(slice_of(r, 1), "slice(axis=1,0:1:1)");
  Model n;  // a negative index counts from the end
  n.input("x", {3, 4}).output("y");
  scalar_i64(n, "i", -1);
  n.node("Gather", {"x", "i"}, {"y"}, "g");
  const ImportedModel rn = ok(n);
  EXPECT_EQ(slice_of(rn, 1), "slice(axis=0,2:3:1)");
  EXPECT_EQ(dims(rn.graph().nodes[2].shape), "[4]");
}

TEST(OnnxGather, ContiguousIndicesAreOneSlice) {
  Model m;
  m.input("x", {5, 3}).output("y");
  m.init_i64("i", {1, 2, 3});
  m.node("Gather", {"x", "i"}, {"y"}, "g");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [5,3] 'x'", "1 slice [0] -> [3,3] 'g'"}));
  EXPECT_EQ(slice_of(r, 1), "slice(axis=0,1:4:1)");
}

TEST(OnnxGather, OtherIndicesAreAGatherWithAnInt64Payload) {
  Model m;
  m.input("x", {5, 3}).output("y");
  m.init_i64("i", {4, -5, 4});
  m.node("Gather", {"x", "i"}, {"y"}, "g");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [5,3] 'x'", "1 gather(axis=0) [0] -> [3,3] 'g'"}));
  const ir::WeightTensor& t = tensor_of(r, 1, "indices");
  EXPECT_EQ(t.dtype(), ir::DType::int64);
  EXPECT_EQ(dims(t.shape()), "[3]");
  EXPECT_EQ(t.to_vector<std::int64_t>(), (std::vector<std::int64_t>{4, 0, 4}));
}

// An embedding lookup: token ids arrive at run time and become the gather's second parent.
TEST(OnnxGather, RuntimeIndicesAreTheSecondParent) {
  Model m;
  m.input("ids", {2, 7}, onnx::TensorProto_DataType_INT64).output("y");
  m.init("table", {10, 4}, std::vector<float>(40, 0.5F));
  m.node("Gather", {"table", "ids"}, {"y"}, "g");
  const ImportedModel r = ok(m);
  const ir::Graph& g = r.graph();
  ASSERT_EQ(g.nodes.back().kind, OpKind::gather);
  EXPECT_EQ(g.nodes.back().parents.size(), 2U);
  EXPECT_EQ(dims(g.nodes.back().shape), "[2,7,4]");
  EXPECT_EQ(g.nodes.back().dtype, ir::DType::float32);
  EXPECT_EQ(g.nodes[g.nodes.back().parents[1]].dtype, ir::DType::int64);
}

// int64 data with constant indices: the indices become an int64 const parent, kept as written
// (the kernel wraps a negative one).
TEST(OnnxGather, Int64DataTakesItsIndicesAsAConstant) {
  Model m;
  m.input("x", {5}, onnx::TensorProto_DataType_INT64).output("y");
  m.init_i64("i", {4, -5});
  m.node("Gather", {"x", "i"}, {"y"}, "g");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [5] 'x'", "1 const -> [2] 'g'",
                                     "2 gather(axis=0) [0,1] -> [2] 'g'"}));
  EXPECT_EQ(r.graph().nodes[2].dtype, ir::DType::int64);
  EXPECT_EQ(tensor_of(r, 1, "value").to_vector<std::int64_t>(), (std::vector<std::int64_t>{4, -5}));
  Model far;
  far.input("x", {5}, onnx::TensorProto_DataType_INT64).output("y");
  far.init_i64("i", {5});
  far.node("Gather", {"x", "i"}, {"y"}, "g");
  EXPECT_EQ(error_of(far),
            "m.onnx: node 'g' (Gather, opset 17): index 5 is out of range for axis 0 of [5]");
}

// Runtime indices of another dtype (bool here) are unsupported, naming the one taken.
TEST(OnnxGather, RuntimeIndicesOtherThanInt64AreUnsupported) {
  Model m;
  m.input("ids", {3}, onnx::TensorProto_DataType_BOOL).output("y");
  m.init("table", {10, 4}, std::vector<float>(40, 0.5F));
  m.node("Gather", {"table", "ids"}, {"y"}, "g");
  const Error e = unsupported_error(m);
  ASSERT_FALSE(e.notes.empty());
  EXPECT_EQ(e.notes[0], "node 0 'g' (Gather): indices 'ids' have dtype bool; supported: int64");
}

TEST(OnnxGather, Rejects) {
  const auto model = [](std::vector<std::int64_t> indices) {
    Model m;
    m.input("x", {5, 3}).output("y");
    m.init_i64("i", indices);
    m.node("Gather", {"x", "i"}, {"y"}, "g");
    return m;
  };
  EXPECT_EQ(error_of(model({5})),
            "m.onnx: node 'g' (Gather, opset 17): index 5 is out of range for axis 0 of [5,3]");
  EXPECT_EQ(error_of(model({-6})),
            "m.onnx: node 'g' (Gather, opset 17): index -6 is out of range for axis 0 of [5,3]");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
