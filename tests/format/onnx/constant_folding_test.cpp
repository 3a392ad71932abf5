// Constant folding at import time (onnx/constant_folding.hpp, onnx/folding/): each folded
// operator's values, the exporter chains that fold away, the provenance recorded on the nodes
// that consume folded constants, and the error paths.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <limits>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

constexpr int kI64 = onnx::TensorProto_DataType_INT64;
constexpr int kI32 = onnx::TensorProto_DataType_INT32;
constexpr int kBool = onnx::TensorProto_DataType_BOOL;
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

// An int64, int32 or bool initializer of any shape.
void init_ints(Model& m, const std::string& name, int dtype, std::vector<std::int64_t> d,
               std::vector<std::int64_t> values) {
  auto* t = m.g().add_initializer();
  t->set_name(name);
  t->set_data_type(dtype);
  for (const auto x : d)
    t->add_dims(x);
  for (const auto v : values) {
    if (dtype == kI64) {
      t->add_int64_data(v);
    } else {
      t->add_int32_data(static_cast<std::int32_t>(v));
    }
  }
}

// A scalar int64 initializer.
void scalar_i64(Model& m, const std::string& name, std::int64_t v) {
  init_ints(m, name, kI64, {}, {v});
}

// A folded value: the output constant's dimensions and its elements as floats.
struct Folded {
  std::string dims;
  std::vector<float> values;
  bool operator==(const Folded&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Folded& f) {
  os << f.dims << " {";
  for (std::size_t i = 0; i < f.values.size(); ++i)
    os << (i ? "," : "") << f.values[i];
  return os << "}";
}

// Imports `m` with tensor `name` cast to float32 as the graph output, and returns that constant.
// The model needs a graph input (`x`), which the fold does not use.
Folded folded(Model& m, const std::string& name) {
  attr_i(m.node("Cast", {name}, {"folded_out"}, "to_float"), "to", kFloat);
  m.output("folded_out");
  const ImportedModel r = ok(m);
  const ir::Node& out = r.graph().nodes[r.graph().output_ids.front()];
  EXPECT_EQ(out.kind, OpKind::const_) << ::testing::PrintToString(lines(r.graph()));
  if (out.kind != OpKind::const_) return {};
  const ir::WeightTensor& t = tensor_of(r, out.id, "value");
  return Folded{dims(t.shape()), t.to_vector<float>()};
}

Model with_input(std::int64_t opset = 17, std::vector<std::int64_t> x = {2, 3, 4}) {
  Model m(opset);
  m.input("x", std::move(x));
  return m;
}

// ---- Shape, Size ----

TEST(ConstantFolding, ShapeOfAnInputIsItsStaticShape) {
  Model m = with_input();
  m.node("Shape", {"x"}, {"s"}, "shape");
  EXPECT_EQ(folded(m, "s"), (Folded{"[3]", {2, 3, 4}}));
}

class ShapeStartEnd
    : public ::testing::TestWithParam<std::tuple<std::int64_t, std::int64_t, Folded>> {};

TEST_P(ShapeStartEnd, ClampsToTheRank) {
  const auto& [start, end, expected] = GetParam();
  Model m = with_input(15);
  auto& n = m.node("Shape", {"x"}, {"s"}, "shape");
  attr_i(n, "start", start);
  attr_i(n, "end", end);
  EXPECT_EQ(folded(m, "s"), expected);
}
INSTANTIATE_TEST_SUITE_P(
    Opset15, ShapeStartEnd,
    ::testing::Values(std::tuple{std::int64_t{1}, std::int64_t{3}, Folded{"[2]", {3, 4}}},
                      std::tuple{std::int64_t{-1}, std::int64_t{100}, Folded{"[1]", {4}}},
                      std::tuple{std::int64_t{-100}, std::int64_t{-1}, Folded{"[2]", {2, 3}}},
                      std::tuple{std::int64_t{2}, std::int64_t{1}, Folded{"[0]", {}}}));

TEST(ConstantFolding, SizeCountsTheElements) {
  Model m = with_input();
  m.node("Size", {"x"}, {"n"}, "size");
  EXPECT_EQ(folded(m, "n"), (Folded{"[]", {24}}));
}

TEST(ConstantFolding, ShapeOfAConstantDoesNotMaterializeIt) {
  Model m = with_input();
  m.init("w", {5, 6}, iota(30));
  m.node("Shape", {"w"}, {"s"}, "shape");
  EXPECT_EQ(folded(m, "s"), (Folded{"[2]", {5, 6}}));
}

// ---- Gather ----

TEST(ConstantFolding, GatherScalarAndVectorIndices) {
  Model m = with_input();
  init_ints(m, "d", kI64, {4}, {10, 20, 30, 40});
  scalar_i64(m, "i", -1);
  m.node("Gather", {"d", "i"}, {"g"}, "gather");
  EXPECT_EQ(folded(m, "g"), (Folded{"[]", {40}}));

  Model v = with_input();
  init_ints(v, "d", kI64, {4}, {10, 20, 30, 40});
  init_ints(v, "i", kI32, {2, 2}, {0, 3, -2, 1});
  v.node("Gather", {"d", "i"}, {"g"}, "gather");
  EXPECT_EQ(folded(v, "g"), (Folded{"[2,2]", {10, 40, 30, 20}}));
}

TEST(ConstantFolding, GatherOnAnInnerAxisOfFloats) {
  Model m = with_input();
  m.init("d", {2, 3}, iota(6));
  init_ints(m, "i", kI64, {2}, {2, 0});
  attr_i(m.node("Gather", {"d", "i"}, {"g"}, "gather"), "axis", -1);
  EXPECT_EQ(folded(m, "g"), (Folded{"[2,2]", {3, 1, 6, 4}}));
}

TEST(ConstantFolding, GatherIndexOutOfRange) {
  Model m = with_input();
  init_ints(m, "d", kI64, {3}, {1, 2, 3});
  scalar_i64(m, "i", 3);
  m.node("Gather", {"d", "i"}, {"g"}, "gather");
  m.output("g");
  EXPECT_EQ(error_of(m),
            "m.onnx: node 'gather' (Gather, opset 17): index 3 of 'i' is out of range "
            "for axis 0 of size 3 of 'd'");
}

// ---- Slice ----

struct SliceCase {
  std::vector<std::int64_t> starts, ends, axes, steps;
  Folded expected;
};

class SliceBounds : public ::testing::TestWithParam<SliceCase> {};

TEST_P(SliceBounds, FollowsOnnxClamping) {
  const SliceCase& c = GetParam();
  Model m = with_input(13);
  m.init("d", {2, 5}, iota(10, 0.0f));
  slice_node(m, "d", "s", "slice", c.starts, c.ends, c.axes, c.steps);
  EXPECT_EQ(folded(m, "s"), c.expected);
}
INSTANTIATE_TEST_SUITE_P(
    Opset13, SliceBounds,
    ::testing::Values(
        // the last three columns: a negative start, an end past the axis
        SliceCase{{-3}, {kInt64Max}, {1}, {}, {"[2,3]", {2, 3, 4, 7, 8, 9}}},
        // bounds far outside clamp to the axis
        SliceCase{{-100, 1}, {100, 3}, {}, {}, {"[2,2]", {1, 2, 6, 7}}},
        // backwards over the whole axis, with a negative axis
        SliceCase{{-1}, {kInt64Min}, {-1}, {-1}, {"[2,5]", {4, 3, 2, 1, 0, 9, 8, 7, 6, 5}}},
        // every second element, and an empty range
        SliceCase{{0}, {5}, {1}, {2}, {"[2,3]", {0, 2, 4, 5, 7, 9}}},
        SliceCase{{3}, {1}, {1}, {}, {"[2,0]", {}}},
        // steps without axes
        SliceCase{{1, 4}, {2, 0}, {}, {1, -2}, {"[1,2]", {9, 7}}}));

TEST(ConstantFolding, SliceBeforeOpset10ReadsAttributes) {
  Model m = with_input(9);
  init_ints(m, "d", kI64, {5}, {1, 2, 3, 4, 5});
  auto& n = m.node("Slice", {"d"}, {"s"}, "slice");
  attr_ints(n, "starts", {1});
  attr_ints(n, "ends", {-1});
  EXPECT_EQ(folded(m, "s"), (Folded{"[3]", {2, 3, 4}}));
}

TEST(ConstantFolding, SliceStepZeroIsRefused) {
  Model m = with_input(13);
  init_ints(m, "d", kI64, {5}, {1, 2, 3, 4, 5});
  m.init_i64("b", {0}).init_i64("e", {5}).init_i64("a", {0}).init_i64("st", {0});
  m.node("Slice", {"d", "b", "e", "a", "st"}, {"s"}, "slice");
  m.output("s");
  EXPECT_EQ(error_of(m), "m.onnx: node 'slice' (Slice, opset 13): steps [0] has a 0");
}

// ---- Concat, Unsqueeze, Squeeze, Reshape, Transpose ----

TEST(ConstantFolding, ConcatOfInt64AndOfFloatOnANegativeAxis) {
  Model m = with_input();
  m.init_i64("a", {1, 2}).init_i64("b", {3});
  attr_i(m.node("Concat", {"a", "b"}, {"c"}, "concat"), "axis", 0);
  EXPECT_EQ(folded(m, "c"), (Folded{"[3]", {1, 2, 3}}));

  Model f = with_input();
  f.init("a", {2, 1}, {1, 2}).init("b", {2, 2}, {3, 4, 5, 6});
  attr_i(f.node("Concat", {"a", "b"}, {"c"}, "concat"), "axis", -1);
  EXPECT_EQ(folded(f, "c"), (Folded{"[2,3]", {1, 3, 4, 2, 5, 6}}));
}

TEST(ConstantFolding, UnsqueezeAndSqueezeAxesFromInputOrAttribute) {
  Model m = with_input(13);
  init_ints(m, "d", kI64, {2}, {7, 8});
  m.init_i64("ax", {0, -1});
  m.node("Unsqueeze", {"d", "ax"}, {"u"}, "unsqueeze");
  EXPECT_EQ(folded(m, "u"), (Folded{"[1,2,1]", {7, 8}}));

  Model old = with_input(11);
  init_ints(old, "d", kI64, {1, 2, 1}, {7, 8});
  attr_ints(old.node("Squeeze", {"d"}, {"s"}, "squeeze"), "axes", {-1});
  EXPECT_EQ(folded(old, "s"), (Folded{"[1,2]", {7, 8}}));

  Model all = with_input(13);
  init_ints(all, "d", kI64, {1, 2, 1}, {7, 8});
  all.node("Squeeze", {"d"}, {"s"}, "squeeze");
  EXPECT_EQ(folded(all, "s"), (Folded{"[2]", {7, 8}}));
}

TEST(ConstantFolding, ReshapeZeroMinusOneAndAllowzero) {
  Model m = with_input(14);
  m.init("d", {2, 3}, iota(6));
  m.init_i64("s", {0, -1, 1});
  m.node("Reshape", {"d", "s"}, {"r"}, "reshape");
  EXPECT_EQ(folded(m, "r"), (Folded{"[2,3,1]", iota(6)}));

  Model z = with_input(14);
  z.init("d", {2, 3}, iota(6));
  z.init_i64("s", {0, -1});
  attr_i(z.node("Reshape", {"d", "s"}, {"r"}, "reshape"), "allowzero", 1);
  z.output("r");
  EXPECT_EQ(error_of(z),
            "m.onnx: node 'reshape' (Reshape, opset 14): shape [0,-1] has both 0 "
            "and -1, which allowzero = 1 forbids");
}

TEST(ConstantFolding, TransposeOfAConstant) {
  Model m = with_input();
  m.init("d", {2, 3}, iota(6));
  m.node("Transpose", {"d"}, {"t"}, "transpose");
  EXPECT_EQ(folded(m, "t"), (Folded{"[3,2]", {1, 4, 2, 5, 3, 6}}));
}

// ---- Cast ----

TEST(ConstantFolding, CastBetweenFloatIntAndBool) {
  Model m = with_input();
  m.init("f", {4}, {1.7f, -1.7f, 0.0f, 3.0f});
  attr_i(m.node("Cast", {"f"}, {"i"}, "cast"), "to", kI64);
  EXPECT_EQ(folded(m, "i"), (Folded{"[4]", {1, -1, 0, 3}}));

  Model b = with_input();
  b.init("f", {3}, {0.5f, 0.0f, -2.0f});
  attr_i(b.node("Cast", {"f"}, {"b"}, "cast"), "to", kBool);
  attr_i(b.node("Cast", {"b"}, {"i"}, "cast_back"), "to", kI32);
  EXPECT_EQ(folded(b, "i"), (Folded{"[3]", {1, 0, 1}}));

  Model old = with_input(5);
  old.init_i64("i", {4, -5});
  attr_s(old.node("Cast", {"i"}, {"f"}, "cast"), "to", "FLOAT");
  EXPECT_EQ(folded(old, "f"), (Folded{"[2]", {4, -5}}));
}

TEST(ConstantFolding, CastOutOfRangeIsRefused) {
  Model m = with_input();
  m.init("f", {1}, {1e10f});
  attr_i(m.node("Cast", {"f"}, {"i"}, "cast"), "to", kI32);
  m.output("i");
  EXPECT_EQ(unsupported_of(m),
            "node 0 'cast' (Cast): the float32 value 1e+10 of 'f' does not fit int32");
}

// ---- arithmetic ----

struct ArithCase {
  std::string op;
  std::vector<std::int64_t> a_dims, a, b_dims, b;
  Folded expected;
};

class IntArithmetic : public ::testing::TestWithParam<ArithCase> {};

TEST_P(IntArithmetic, BroadcastsAndTruncates) {
  const ArithCase& c = GetParam();
  Model m = with_input();
  init_ints(m, "a", kI64, c.a_dims, c.a);
  init_ints(m, "b", kI64, c.b_dims, c.b);
  m.node(c.op, {"a", "b"}, {"r"}, "op");
  EXPECT_EQ(folded(m, "r"), c.expected);
}
INSTANTIATE_TEST_SUITE_P(
    Int64, IntArithmetic,
    ::testing::Values(
        ArithCase{"Add", {2, 1}, {10, 20}, {3}, {1, 2, 3}, {"[2,3]", {11, 12, 13, 21, 22, 23}}},
        ArithCase{"Sub", {}, {5}, {3}, {1, 2, 3}, {"[3]", {4, 3, 2}}},
        ArithCase{"Mul", {2}, {3, 4}, {}, {-2}, {"[2]", {-6, -8}}},
        // int division truncates toward zero, whatever the signs
        ArithCase{"Div", {4}, {7, -7, 7, -7}, {4}, {2, 2, -2, -2}, {"[4]", {3, -3, -3, 3}}}));

// Mod: fmod 0 gives the divisor's sign (Python's %), fmod 1 the dividend's (C's fmod), as
// Swin's shifted-window padding arithmetic writes it over int64 constants.
TEST(ConstantFolding, ModFollowsTheSignTheAttributeNames) {
  Model m = with_input();
  init_ints(m, "a", kI64, {4}, {7, -7, 7, -7});
  init_ints(m, "b", kI64, {4}, {3, 3, -3, -3});
  m.node("Mod", {"a", "b"}, {"r"}, "mod");
  EXPECT_EQ(folded(m, "r"), (Folded{"[4]", {1, 2, -2, -1}}));

  Model f = with_input();
  init_ints(f, "a", kI64, {4}, {7, -7, 7, -7});
  init_ints(f, "b", kI64, {}, {3});
  attr_i(f.node("Mod", {"a", "b"}, {"r"}, "mod"), "fmod", 1);
  EXPECT_EQ(folded(f, "r"), (Folded{"[4]", {1, -1, 1, -1}}));

  Model x = with_input();
  x.init("a", {2}, {5.5f, -5.5f}).init("b", {}, {2.0f});
  attr_i(x.node("Mod", {"a", "b"}, {"r"}, "mod"), "fmod", 1);
  EXPECT_EQ(folded(x, "r"), (Folded{"[2]", {1.5f, -1.5f}}));

  Model edge = with_input();
  init_ints(edge, "a", kI64, {1}, {std::numeric_limits<std::int64_t>::min()});
  init_ints(edge, "b", kI64, {1}, {-1});
  edge.node("Mod", {"a", "b"}, {"r"}, "mod");
  EXPECT_EQ(folded(edge, "r"), (Folded{"[1]", {0}}));
}

TEST(ConstantFolding, ModErrors) {
  Model zero = with_input();
  scalar_i64(zero, "a", 5);
  scalar_i64(zero, "b", 0);
  zero.node("Mod", {"a", "b"}, {"r"}, "mod");
  zero.output("r");
  EXPECT_EQ(error_of(zero), "m.onnx: node 'mod' (Mod, opset 17): takes 5 modulo zero");

  Model floats = with_input();
  floats.init("a", {1}, {1.0f}).init("b", {1}, {2.0f});
  floats.node("Mod", {"a", "b"}, {"r"}, "mod");
  floats.output("r");
  EXPECT_EQ(error_of(floats),
            "m.onnx: node 'mod' (Mod, opset 17): fmod = 0 of float32 inputs; ONNX requires fmod "
            "= 1 for floating-point inputs");

  Model attr = with_input();
  scalar_i64(attr, "a", 5);
  scalar_i64(attr, "b", 2);
  attr_i(attr.node("Mod", {"a", "b"}, {"r"}, "mod"), "fmod", 2);
  attr.output("r");
  EXPECT_EQ(unsupported_of(attr),
            "node 0 'mod' (Mod): attribute fmod = 2 is not supported; supported: 0 or 1");
}

TEST(ConstantFolding, FloatArithmeticDividesExactly) {
  Model m = with_input();
  m.init("a", {2}, {1.0f, 3.0f}).init("b", {}, {4.0f});
  m.node("Div", {"a", "b"}, {"r"}, "div");
  EXPECT_EQ(folded(m, "r"), (Folded{"[2]", {0.25f, 0.75f}}));
}

TEST(ConstantFolding, IntArithmeticErrors) {
  Model over = with_input();
  scalar_i64(over, "a", kInt64Max);
  scalar_i64(over, "b", 2);
  over.node("Mul", {"a", "b"}, {"r"}, "mul");
  over.output("r");
  EXPECT_EQ(error_of(over),
            "m.onnx: node 'mul' (Mul, opset 17): 9223372036854775807 * 2 overflows int64");

  Model zero = with_input();
  scalar_i64(zero, "a", 1);
  scalar_i64(zero, "b", 0);
  zero.node("Div", {"a", "b"}, {"r"}, "div");
  zero.output("r");
  EXPECT_EQ(error_of(zero), "m.onnx: node 'div' (Div, opset 17): divides 1 by zero");

  Model shapes = with_input();
  init_ints(shapes, "a", kI64, {3}, {1, 2, 3});
  init_ints(shapes, "b", kI64, {2}, {1, 2});
  shapes.node("Add", {"a", "b"}, {"r"}, "add");
  shapes.output("r");
  EXPECT_EQ(error_of(shapes),
            "m.onnx: node 'add' (Add, opset 17): shapes [3] and [2] do not broadcast");

  Model types = with_input();
  init_ints(types, "a", kI64, {1}, {1});
  init_ints(types, "b", kI32, {1}, {1});
  types.node("Add", {"a", "b"}, {"r"}, "add");
  types.output("r");
  EXPECT_EQ(error_of(types),
            "m.onnx: node 'add' (Add, opset 17): inputs 'a' (int64) and 'b' "
            "(int32) have different data types");
}

// ---- comparisons, logic, Where ----

TEST(ConstantFolding, ComparisonsAndLogicMakeBool) {
  Model m = with_input();
  m.init_i64("a", {1, 2, 3}).init_i64("b", {2});
  m.node("Equal", {"a", "b"}, {"eq"}, "equal");
  m.node("Less", {"a", "b"}, {"lt"}, "less");
  m.node("Greater", {"a", "b"}, {"gt"}, "greater");
  m.node("Or", {"lt", "gt"}, {"ne"}, "or");
  m.node("Not", {"eq"}, {"ne2"}, "not");
  m.node("And", {"ne", "ne2"}, {"r"}, "and");
  EXPECT_EQ(folded(m, "r"), (Folded{"[3]", {1, 0, 1}}));

  Model lt = with_input();
  lt.init_i64("a", {1, 2, 3}).init_i64("b", {2});
  lt.node("Less", {"a", "b"}, {"r"}, "less");
  EXPECT_EQ(folded(lt, "r"), (Folded{"[3]", {1, 0, 0}}));
}

TEST(ConstantFolding, WhereBroadcastsItsThreeInputs) {
  Model m = with_input();
  init_ints(m, "c", kBool, {2, 1}, {1, 0});
  m.init("xs", {3}, {1, 2, 3}).init("y", {}, {-1});
  m.node("Where", {"c", "xs", "y"}, {"r"}, "where");
  EXPECT_EQ(folded(m, "r"), (Folded{"[2,3]", {1, 2, 3, -1, -1, -1}}));
}

// ---- ConstantOfShape, Expand, Range ----

TEST(ConstantFolding, ConstantOfShapeWithAndWithoutValue) {
  Model m = with_input();
  m.init_i64("s", {2, 2});
  m.node("ConstantOfShape", {"s"}, {"r"}, "fill");
  EXPECT_EQ(folded(m, "r"), (Folded{"[2,2]", {0, 0, 0, 0}}));

  Model v = with_input();
  v.init_i64("s", {3});
  auto& n = v.node("ConstantOfShape", {"s"}, {"r"}, "fill");
  auto& value = new_attr(n, "value", onnx::AttributeProto_AttributeType_TENSOR);
  value.mutable_t()->set_data_type(kI64);
  value.mutable_t()->add_dims(1);
  value.mutable_t()->add_int64_data(7);
  EXPECT_EQ(folded(v, "r"), (Folded{"[3]", {7, 7, 7}}));
}

TEST(ConstantFolding, ElementCapIsAClearError) {
  Model m = with_input();
  m.init_i64("s", {4096, 4097});
  m.node("ConstantOfShape", {"s"}, {"r"}, "fill");
  m.output("r");
  EXPECT_EQ(unsupported_of(m),
            "node 0 'fill' (ConstantOfShape): folding it would make a tensor of shape "
            "[4096,4097] (16781312 elements); constant folding is limited to 16777216 (2^24) "
            "elements per tensor");

  Model huge = with_input();
  huge.init_i64("s", {kInt64Max, kInt64Max});
  huge.node("ConstantOfShape", {"s"}, {"r"}, "fill");
  huge.output("r");
  EXPECT_EQ(unsupported_of(huge),
            "node 0 'fill' (ConstantOfShape): folding it would make a tensor of shape "
            "[9223372036854775807,9223372036854775807] (more than 2^64 elements); constant "
            "folding is limited to 16777216 (2^24) elements per tensor");

  Model empty = with_input();
  empty.init_i64("s", {0, kInt64Max});
  empty.node("ConstantOfShape", {"s"}, {"r"}, "fill");
  empty.output("r");
  EXPECT_EQ(error_of(empty),
            "m.onnx: node 'fill' (ConstantOfShape, opset 17): the result would "
            "have dimension 9223372036854775807; the limit is 281474976710656 "
            "(2^48)");

  Model range = with_input();
  scalar_i64(range, "a", 0);
  scalar_i64(range, "b", kInt64Max);
  scalar_i64(range, "d", 1);
  range.node("Range", {"a", "b", "d"}, {"r"}, "range");
  range.output("r");
  EXPECT_EQ(unsupported_of(range),
            "node 0 'range' (Range): folding it would make a tensor of shape "
            "[9223372036854775807] (9223372036854775807 elements); constant folding is limited "
            "to 16777216 (2^24) elements per tensor");
}

TEST(ConstantFolding, FloatResultOverTheCapImportsAsNodes) {
  // 4097 x 4096 elements is past the cap: Add, which the importer maps, is imported instead.
  Model m = with_input(17, {4097, 4096});
  m.init("a", {4097, 1}, std::vector<float>(4097, 1.0f))
      .init("b", {1, 4096}, std::vector<float>(4096, 2.0f));
  m.node("Add", {"a", "b"}, {"s"}, "add");
  m.node("Add", {"x", "s"}, {"y"}, "add_x");
  m.output("y");
  EXPECT_EQ(
      lines(ok(m).graph()),
      (Lines{"0 input -> [4097,4096] 'x'", "1 const -> [4097,1] 'a'", "2 const -> [1,4096] 'b'",
             "3 broadcast_to([4097,1]->[4097,4096]) [1] -> [4097,4096] 'add'",
             "4 broadcast_to([1,4096]->[4097,4096]) [2] -> [4097,4096] 'add'",
             "5 add [3,4] -> [4097,4096] 'add'", "6 add [0,5] -> [4097,4096] 'add_x'"}));
}

TEST(ConstantFolding, ExpandBroadcastsBothWays) {
  Model m = with_input();
  init_ints(m, "d", kI64, {3, 1}, {1, 2, 3});
  m.init_i64("s", {2, 1, 2});
  m.node("Expand", {"d", "s"}, {"r"}, "expand");
  EXPECT_EQ(folded(m, "r"), (Folded{"[2,3,2]", {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}}));

  Model bad = with_input();
  init_ints(bad, "d", kI64, {3}, {1, 2, 3});
  bad.init_i64("s", {2});
  bad.node("Expand", {"d", "s"}, {"r"}, "expand");
  bad.output("r");
  EXPECT_EQ(error_of(bad),
            "m.onnx: node 'expand' (Expand, opset 17): shapes [3] and [2] do not broadcast");
}

TEST(ConstantFolding, RangeOfIntsAndFloats) {
  Model up = with_input();
  scalar_i64(up, "a", 0);
  scalar_i64(up, "b", 10);
  scalar_i64(up, "d", 3);
  up.node("Range", {"a", "b", "d"}, {"r"}, "range");
  EXPECT_EQ(folded(up, "r"), (Folded{"[4]", {0, 3, 6, 9}}));

  Model down = with_input();
  scalar_i64(down, "a", 10);
  scalar_i64(down, "b", 0);
  scalar_i64(down, "d", -3);
  down.node("Range", {"a", "b", "d"}, {"r"}, "range");
  EXPECT_EQ(folded(down, "r"), (Folded{"[4]", {10, 7, 4, 1}}));

  Model f = with_input();
  f.init("a", {}, {0.0f}).init("b", {}, {1.0f}).init("d", {}, {0.25f});
  f.node("Range", {"a", "b", "d"}, {"r"}, "range");
  EXPECT_EQ(folded(f, "r"), (Folded{"[4]", {0, 0.25f, 0.5f, 0.75f}}));

  Model zero = with_input();
  scalar_i64(zero, "a", 0);
  scalar_i64(zero, "b", 10);
  scalar_i64(zero, "d", 0);
  zero.node("Range", {"a", "b", "d"}, {"r"}, "range");
  zero.output("r");
  EXPECT_EQ(error_of(zero), "m.onnx: node 'range' (Range, opset 17): Range delta 'd' is 0");
}

// ---- unary ----

struct UnaryCase {
  std::string op;
  std::vector<float> in;
  std::vector<float> out;
};

class FloatUnary : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(FloatUnary, FoldsElementwise) {
  const UnaryCase& c = GetParam();
  Model m = with_input();
  m.init("a", {static_cast<std::int64_t>(c.in.size())}, c.in);
  m.node(c.op, {"a"}, {"r"}, "op");
  EXPECT_EQ(folded(m, "r"), (Folded{"[" + std::to_string(c.in.size()) + "]", c.out}));
}
INSTANTIATE_TEST_SUITE_P(Float, FloatUnary,
                         ::testing::Values(UnaryCase{"Sqrt", {4, 9}, {2, 3}},
                                           UnaryCase{"Reciprocal", {4, -0.5f}, {0.25f, -2}},
                                           UnaryCase{"Neg", {1, -2}, {-1, 2}},
                                           UnaryCase{"Abs", {1, -2}, {1, 2}},
                                           UnaryCase{"Exp", {0}, {1}}, UnaryCase{"Log", {1}, {0}}));

TEST(ConstantFolding, NegOfInt64) {
  Model m = with_input();
  m.init_i64("a", {3, -4});
  m.node("Neg", {"a"}, {"r"}, "neg");
  EXPECT_EQ(folded(m, "r"), (Folded{"[2]", {-3, 4}}));

  Model over = with_input();
  over.init_i64("a", {kInt64Min});
  over.node("Neg", {"a"}, {"r"}, "neg");
  over.output("r");
  EXPECT_EQ(error_of(over),
            "m.onnx: node 'neg' (Neg, opset 17): the negation of "
            "-9223372036854775808 overflows int64");
}

// ---- chains and provenance ----

TEST(ConstantFolding, ShapeGatherUnsqueezeConcatReshapeLeavesOneReshape) {
  // What torch.onnx.export writes for x.reshape(x.size(0), -1).
  Model m = with_input(13);
  scalar_i64(m, "zero", 0);
  m.init_i64("axes", {0}).init_i64("minus_one", {-1});
  m.node("Shape", {"x"}, {"s"}, "shape");
  m.node("Gather", {"s", "zero"}, {"n"}, "gather");
  m.node("Unsqueeze", {"n", "axes"}, {"n1"}, "unsqueeze");
  attr_i(m.node("Concat", {"n1", "minus_one"}, {"target"}, "concat"), "axis", 0);
  m.node("Reshape", {"x", "target"}, {"y"}, "reshape");
  m.output("y");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [2,3,4] 'x'",
                                     "1 reshape([2,3,4]->[2,12]) [0] -> [2,12] 'reshape'"}));
  EXPECT_EQ(r.folded_sources, (std::map<ir::NodeId, std::vector<std::string>>{
                                  {1, {"shape", "gather", "unsqueeze", "concat"}}}));
}

TEST(ConstantFolding, ConstantOfShapeEqualWhereExpandChain) {
  // What torch.onnx.export writes for bias.expand(x.shape) (the Where picks x's dims where the
  // target says -1), then the Add that consumes it.
  Model m = with_input(13, {2, 3});
  m.init("bias", {3}, {1, 2, 3});
  m.init_i64("target", {2, -1});
  m.init_i64("two", {2});
  auto& one = new_attr(m.node("ConstantOfShape", {"two"}, {"ones_f"}, "ones"), "value",
                       onnx::AttributeProto_AttributeType_TENSOR);
  fill_tensor(*one.mutable_t(), "", {1}, {1.0f}, false);
  attr_i(m.node("Cast", {"ones_f"}, {"ones_i"}, "ones_int"), "to", kI64);
  m.node("Neg", {"ones_i"}, {"minus"}, "minus");
  m.node("Equal", {"target", "minus"}, {"is_minus"}, "equal");
  m.node("Shape", {"x"}, {"xs"}, "xshape");
  m.node("Where", {"is_minus", "xs", "target"}, {"to"}, "where");
  m.node("Expand", {"bias", "to"}, {"b"}, "expand");
  m.node("Add", {"x", "b"}, {"y"}, "add");
  m.output("y");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [2,3] 'x'", "1 const -> [2,3] 'expand'",
                                     "2 add [0,1] -> [2,3] 'add'"}));
  EXPECT_EQ(tensor_of(r, 1, "value").to_vector<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  const std::vector<std::string> chain = {"ones",   "ones_int", "minus", "equal",
                                          "xshape", "where",    "expand"};
  EXPECT_EQ(r.folded_sources,
            (std::map<ir::NodeId, std::vector<std::string>>{{1, chain}, {2, chain}}));
}

TEST(ConstantFolding, FoldedWeightsAreProvenanceOfTheLinearNode) {
  Model m = with_input(13, {2, 3});
  m.init("w", {4, 3}, iota(12));
  m.node("Transpose", {"w"}, {"wt"}, "transpose_w");
  m.node("MatMul", {"x", "wt"}, {"y"}, "matmul");
  m.output("y");
  const ImportedModel r = ok(m);
  ASSERT_EQ(r.graph().nodes.size(), 2u);
  EXPECT_EQ(r.graph().nodes[1].kind, OpKind::linear);
  EXPECT_EQ(r.folded_sources,
            (std::map<ir::NodeId, std::vector<std::string>>{{1, {"transpose_w"}}}));
}

TEST(ConstantFolding, ProvenanceNamesEachFoldedNodeOnceInNodeOrder) {
  // A diamond: Shape feeds both Gathers, and each folded node is named once.
  Model m = with_input(13);
  scalar_i64(m, "i0", 0);
  scalar_i64(m, "i1", 1);
  m.init_i64("axes", {0});
  m.node("Shape", {"x"}, {"s"}, "shape");
  m.node("Gather", {"s", "i1"}, {"d1"}, "g1");
  m.node("Gather", {"s", "i0"}, {"d0"}, "g0");
  m.node("Mul", {"d0", "d1"}, {"rows"}, "rows");
  m.node("Unsqueeze", {"rows", "axes"}, {"rows1"}, "rows1");
  m.node("Gather", {"s", "i0"}, {"unused"}, "unused");
  m.init_i64("minus_one", {-1});
  attr_i(m.node("Concat", {"rows1", "minus_one"}, {"target"}, "concat"), "axis", 0);
  m.node("Reshape", {"x", "target"}, {"y"}, "reshape");
  m.output("y");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph())[1], "1 reshape([2,3,4]->[6,4]) [0] -> [6,4] 'reshape'");
  EXPECT_EQ(r.folded_sources, (std::map<ir::NodeId, std::vector<std::string>>{
                                  {1, {"shape", "g1", "g0", "rows", "rows1", "concat"}}}));
}

TEST(ConstantFolding, ProvenanceOfALongChainKeepsTheFirst256Names) {
  Model m = with_input(13);
  scalar_i64(m, "v0", 4);
  for (int i = 0; i < 300; ++i) {
    m.node("Neg", {"v" + std::to_string(i)}, {"v" + std::to_string(i + 1)},
           "neg" + std::to_string(i));
  }
  m.init_i64("axes", {0});
  m.node("Unsqueeze", {"v300", "axes"}, {"last"}, "last");
  m.init_i64("minus_one", {-1});
  attr_i(m.node("Concat", {"minus_one", "last"}, {"target"}, "concat"), "axis", 0);
  m.node("Reshape", {"x", "target"}, {"y"}, "reshape");
  m.output("y");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph())[1], "1 reshape([2,3,4]->[6,4]) [0] -> [6,4] 'reshape'");
  ASSERT_EQ(r.folded_sources.size(), 1u);
  const std::vector<std::string>& names = r.folded_sources.begin()->second;
  ASSERT_EQ(names.size(), 256u);
  EXPECT_EQ(names.front(), "neg0");
  EXPECT_EQ(names.back(), "neg255");
}

TEST(ConstantFolding, NodesThatConsumeNoFoldedConstantHaveNoProvenance) {
  Model m = with_input(13, {2, 3});
  m.init_i64("s", {6});
  m.node("Reshape", {"x", "s"}, {"y"}, "reshape");
  m.output("y");
  EXPECT_TRUE(ok(m).folded_sources.empty());
}

// ---- what does not fold ----

TEST(ConstantFolding, AFoldOnlyOperatorOverATensorIsUnsupported) {
  // Range over a non-constant float tensor: Range imports only as a fold; its output's shape
  // would be the input's values. The message names the input computed at run time.
  Model m = with_input();
  m.node("Range", {"x", "x", "x"}, {"y"}, "range");
  m.output("y");
  EXPECT_EQ(unsupported_of(m),
            "node 0 'range' (Range): input 'x' is computed at run time; Range's output shape "
            "would depend on its values, and nnplan plans static shapes (it evaluates Range at "
            "import when its inputs are constants)");
}

TEST(ConstantFolding, AnOperatorThatAlsoImportsIsImportedOverATensor) {
  // Gather of a non-constant float tensor with a constant index: not folded but imported.
  Model m = with_input();
  scalar_i64(m, "i", 0);
  m.node("Gather", {"x", "i"}, {"y"}, "gather");
  m.output("y");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()), (Lines{"0 input -> [2,3,4] 'x'", "1 slice [0] -> [1,3,4] 'gather'",
                                     "2 reshape([1,3,4]->[3,4]) [1] -> [3,4] 'gather'"}));
}

TEST(ConstantFolding, ShapeOfARejectedInputGivesItsReason) {
  Model m = with_input();
  m.input("ids", {2, 5}, onnx::TensorProto_DataType_UINT8);
  m.node("Shape", {"ids"}, {"s"}, "shape");
  m.output("s");
  // Listed as the node that consumes it, like any rejected graph input.
  EXPECT_EQ(unsupported_of(m),
            "node 0 'shape' (Shape): input 'ids' has data type uint8; only float32, int64 and "
            "bool tensors are supported");
}

// The shape of an int64 input folds like any other: a graph output of it is an int64 const.
TEST(ConstantFolding, ShapeOfAnInt64InputIsAnInt64Constant) {
  Model m = with_input();
  m.input("ids", {2, 5}, kI64);
  m.node("Shape", {"ids"}, {"s"}, "shape");
  m.output("s");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [2,3,4] 'x'", "1 input -> [2,5] 'ids'", "2 const -> [2] 'shape'"}));
  EXPECT_EQ(r.graph().nodes[2].dtype, ir::DType::int64);
}

TEST(ConstantFolding, AnInputOfAnotherDataTypeIsNamed) {
  Model m = with_input();
  auto* t = m.g().add_initializer();
  t->set_name("d");
  t->set_data_type(onnx::TensorProto_DataType_DOUBLE);
  t->add_dims(1);
  t->add_double_data(1.0);
  attr_i(m.node("Cast", {"d"}, {"f"}, "cast"), "to", kFloat);
  m.output("f");
  // Cast also imports (over a value computed at run time), so the importer names the type.
  EXPECT_EQ(unsupported_of(m),
            "node 0 'cast' (Cast): tensor 'd' has data type float64; only float32, int64 and "
            "bool tensors are supported");
  // A fold-only operator names what constant folding reads.
  Model eq = with_input();
  auto* d = eq.g().add_initializer();
  d->set_name("d");
  d->set_data_type(onnx::TensorProto_DataType_DOUBLE);
  d->add_dims(1);
  d->add_double_data(1.0);
  eq.node("Range", {"d", "d", "d"}, {"e"}, "range");
  eq.output("e");
  EXPECT_EQ(unsupported_of(eq),
            "node 0 'range' (Range): input 'd' has data type float64; constant folding reads "
            "float32, int64, int32 and bool tensors");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
