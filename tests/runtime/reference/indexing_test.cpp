// The reference kernels whose indices are a runtime int64 value. gather_elements: hand cases along
// every axis, negative indices, every dtype, indices shorter than the data, a float64 oracle (an
// index computation written here), the guard's refusal of an index out of range naming it, and the
// VJP by hand (repeated indices add) and by finite differences. gather with its indices as input 1
// (an embedding lookup): hand cases of every dtype with negative indices, the guard's refusals, and
// the VJP by finite differences. gather_nd: ONNX's examples (elements, slices, a batch axis),
// negative indices, int64 data, the guard's refusals and the VJP by finite differences.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "reference_test_support.hpp"

namespace nnplan::runtime::reference {
namespace indexing_test {
namespace {

using backend::BackendOp;
using namespace testing;
using ir::DType;
using ir::OpKind;

ir::Node gather_node(const ir::Shape& indices, std::uint32_t axis, DType dtype = DType::float32) {
  return {.id = 2,
          .kind = OpKind::gather_elements,
          .parents = {0, 1},
          .shape = indices,
          .params = ir::AxisParams{.axis = axis},
          .dtype = dtype};
}

Tensor ints(std::initializer_list<ir::Dim> dims, std::vector<std::int64_t> v) {
  return Tensor::of(shape_of(dims), std::move(v));
}

Expected<Tensor> run(const ir::Node& node, const Tensor& data, const Tensor& indices,
                     BackendOp op = BackendOp::gather_elements) {
  const TensorRef refs[] = {view(data), view(indices)};
  Tensor out = zeros(node.shape, node.dtype);
  const KernelCall call{.node = node, .inputs = refs, .weights = {}, .output = mutable_view(out)};
  const HandlerDefinition& h = handler(op);
  if (auto ok = h.shape_guard(call); !ok) return std::unexpected(ok.error());
  if (auto ok = h.layout_guard(call); !ok) return std::unexpected(ok.error());
  h.forward(call);
  return out;
}

// ONNX's own examples: axis 1 of [[1,2],[3,4]] with [[0,0],[1,0]], axis 0 of a 3x3 with negative
// indices.
TEST(reference_gather_elements_forward_tests, hand_cases) {
  auto y = run(gather_node(shape_of({2, 2}), 1), tensor({2, 2}, {1, 2, 3, 4}),
               ints({2, 2}, {0, 0, 1, 0}));
  ASSERT_TRUE(y.has_value()) << y.error().message;
  EXPECT_EQ(y->floats(), (std::vector<float>{1, 1, 4, 3}));
  auto z = run(gather_node(shape_of({2, 3}), 0), tensor({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
               ints({2, 3}, {-1, -2, 0, -2, 0, 0}));
  ASSERT_TRUE(z.has_value()) << z.error().message;
  EXPECT_EQ(z->floats(), (std::vector<float>{7, 5, 3, 4, 2, 3}));
  // int64 and bool data; NaN passes unchanged.
  auto i = run(gather_node(shape_of({3}), 0, DType::int64), ints({2}, {INT64_MIN, 5}),
               ints({3}, {1, 0, 1}));
  ASSERT_TRUE(i.has_value());
  EXPECT_EQ(i->ints(), (std::vector<std::int64_t>{5, INT64_MIN, 5}));
  auto n = run(gather_node(shape_of({1}), 0), tensor({2}, {kNaN, 1}), ints({1}, {0}));
  ASSERT_TRUE(n.has_value());
  EXPECT_TRUE(std::isnan(n->floats()[0]));
}
// Random [3,4,5] data, indices [2,6,3] along axis 1 (shorter on the other axes): each output
// against the element an index computation written here names.
TEST(reference_gather_elements_forward_tests, float64_oracle) {
  const Tensor x = random_tensor(shape_of({3, 4, 5}), 41);
  std::vector<std::int64_t> idx;
  for (int k = 0; k < 36; ++k)
    idx.push_back((k * 7) % 8 - 4);  // -4 .. 3
  const Tensor indices = ints({2, 6, 3}, idx);
  auto y = run(gather_node(shape_of({2, 6, 3}), 1), x, indices);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  for (std::size_t a = 0; a < 2; ++a) {
    for (std::size_t b = 0; b < 6; ++b) {
      for (std::size_t c = 0; c < 3; ++c) {
        std::int64_t k = idx[(a * 6 + b) * 3 + c];
        if (k < 0) k += 4;
        const double want = x.floats()[(a * 4 + static_cast<std::size_t>(k)) * 5 + c];
        EXPECT_EQ(static_cast<double>(y->floats()[(a * 6 + b) * 3 + c]), want);
      }
    }
  }
}
TEST(reference_gather_elements_forward_tests, shape_guard) {
  const Tensor x = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  auto past = run(gather_node(shape_of({2, 1}), 1), x, ints({2, 1}, {0, 3}));
  ASSERT_FALSE(past.has_value());
  EXPECT_EQ(past.error().message,
            "index 3 (element 1 of the indices) is out of range for axis 1 of extent 3; indices "
            "lie in [-3, 2]");
  auto before = run(gather_node(shape_of({1, 1}), 0), x, ints({1, 1}, {-3}));
  ASSERT_FALSE(before.has_value());
  EXPECT_EQ(before.error().message,
            "index -3 (element 0 of the indices) is out of range for axis 0 of extent 2; indices "
            "lie in [-2, 1]");
  auto floats = run(gather_node(shape_of({2, 1}), 1), x, tensor({2, 1}, {0, 1}));
  ASSERT_FALSE(floats.has_value());
  EXPECT_EQ(floats.error().message,
            "input 1 has dtype float32; gather_elements takes int64 indices");
}

// Each gradient goes to the element its index read; two indices reading one element add.
TEST(reference_gather_elements_vjp_tests, by_hand) {
  const Tensor x = tensor({2, 2}, {1, 2, 3, 4});
  const Tensor indices = ints({2, 3}, {1, 1, 0, 0, -1, 0});
  const ir::Node node = gather_node(shape_of({2, 3}), 1);
  auto y = run(node, x, indices);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  const Tensor g = tensor({2, 3}, {1, 10, 100, 1000, 10000, 100000});
  const VjpGradients grads =
      run_vjp(handler(BackendOp::gather_elements), node, {x, indices}, *y, g);
  EXPECT_EQ(grads.inputs[0].floats(), (std::vector<float>{100, 11, 101000, 10000}));
}
TEST(reference_gather_elements_vjp_tests, finite_differences) {
  const Tensor x = random_tensor(shape_of({3, 4}), 51);
  const Tensor indices = ints({3, 2}, {0, 3, 2, 2, -1, 1});
  const ir::Node node = gather_node(shape_of({3, 2}), 1);
  const Tensor g = random_tensor(shape_of({3, 2}), 52);
  auto y = run(node, x, indices);
  ASSERT_TRUE(y.has_value());
  const VjpGradients grads =
      run_vjp(handler(BackendOp::gather_elements), node, {x, indices}, *y, g);
  Tensor probe = x;
  for (std::size_t e = 0; e < x.size(); ++e) {
    const float h = 1e-2F;
    const float v = probe.floats()[e];
    probe.floats()[e] = v + h;
    const Tensor up = *run(node, probe, indices);
    probe.floats()[e] = v - h;
    const Tensor down = *run(node, probe, indices);
    probe.floats()[e] = v;
    double dot = 0.0;
    for (std::size_t i = 0; i < g.size(); ++i)
      dot += static_cast<double>(g.floats()[i]) * (up.floats()[i] - down.floats()[i]) / (2 * h);
    EXPECT_NEAR(grads.inputs[0].floats()[e], dot, 1e-4) << e;
  }
}

// gather with int64 indices as input 1: the data's axis replaced by the indices' shape.
ir::Node gather_by_value(const ir::Shape& data, std::uint32_t axis, const ir::Shape& indices,
                         DType dtype = DType::float32) {
  ir::Shape out;
  out.dims.assign(data.dims.begin(), data.dims.begin() + axis);
  out.dims.insert(out.dims.end(), indices.dims.begin(), indices.dims.end());
  out.dims.insert(out.dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  return {.id = 2,
          .kind = OpKind::gather,
          .parents = {0, 1},
          .shape = out,
          .params = ir::AxisParams{.axis = axis},
          .dtype = dtype};
}

// Rows of an embedding table by token id, a negative id counting from the end; int64 and bool data
// are gathered alike.
TEST(reference_gather_by_value_forward_tests, hand_cases) {
  const Tensor table = tensor({3, 2}, {1, 2, 3, 4, 5, 6});
  auto rows = run(gather_by_value(table.shape, 0, shape_of({2, 2})), table,
                  ints({2, 2}, {2, -1, 0, -3}), BackendOp::gather);
  ASSERT_TRUE(rows.has_value()) << rows.error().message;
  EXPECT_EQ(rows->shape, shape_of({2, 2, 2}));
  EXPECT_EQ(rows->floats(), (std::vector<float>{5, 6, 5, 6, 1, 2, 1, 2}));
  auto column =
      run(gather_by_value(table.shape, 1, shape_of({})), table, ints({}, {-1}), BackendOp::gather);
  ASSERT_TRUE(column.has_value()) << column.error().message;
  EXPECT_EQ(column->floats(), (std::vector<float>{2, 4, 6}));
  const Tensor longs = ints({4}, {INT64_MIN, 7, 8, INT64_MAX});
  auto i = run(gather_by_value(longs.shape, 0, shape_of({3}), DType::int64), longs,
               ints({3}, {3, 0, -3}), BackendOp::gather);
  ASSERT_TRUE(i.has_value()) << i.error().message;
  EXPECT_EQ(i->ints(), (std::vector<std::int64_t>{INT64_MAX, INT64_MIN, 7}));
  const Tensor flags = Tensor::of(shape_of({2}), std::vector<std::uint8_t>{0, 1});
  auto b = run(gather_by_value(flags.shape, 0, shape_of({3}), DType::boolean), flags,
               ints({3}, {1, 1, 0}), BackendOp::gather);
  ASSERT_TRUE(b.has_value()) << b.error().message;
  EXPECT_EQ(b->bools(), (std::vector<std::uint8_t>{1, 1, 0}));
}

TEST(reference_gather_by_value_forward_tests, guards_name_the_index) {
  const Tensor table = tensor({3, 2}, {1, 2, 3, 4, 5, 6});
  const ir::Node node = gather_by_value(table.shape, 0, shape_of({2}));
  auto past = run(node, table, ints({2}, {0, 3}), BackendOp::gather);
  ASSERT_FALSE(past.has_value());
  EXPECT_EQ(past.error().message,
            "input 1 has shape [2]; gather needs values in [-3, 3) (axis 0 of input 0 [3,2]), "
            "element 1 is 3");
  auto before = run(node, table, ints({2}, {-4, 0}), BackendOp::gather);
  ASSERT_FALSE(before.has_value());
  EXPECT_EQ(before.error().message,
            "input 1 has shape [2]; gather needs values in [-3, 3) (axis 0 of input 0 [3,2]), "
            "element 0 is -4");
  auto floats = run(node, table, tensor({2}, {0, 1}), BackendOp::gather);
  ASSERT_FALSE(floats.has_value());
  EXPECT_EQ(floats.error().message,
            "input 1 has shape [2]; gather needs int64 values, not float32");
  auto wrong_dtype = run(gather_by_value(table.shape, 0, shape_of({2}), DType::int64), table,
                         ints({2}, {0, 1}), BackendOp::gather);
  ASSERT_FALSE(wrong_dtype.has_value());
  EXPECT_EQ(wrong_dtype.error().message,
            "the output has dtype int64; gather writes the data's, float32");
}

// The gradient scatters back to the rows read (repeated and negative ids add), checked against
// central differences of <g, gather(x)>.
TEST(reference_gather_by_value_vjp_tests, finite_differences) {
  const Tensor x = random_tensor(shape_of({4, 3}), 53);
  const Tensor indices = ints({2, 3}, {1, -3, 0, 3, -1, 2});
  const ir::Node node = gather_by_value(x.shape, 0, indices.shape);
  const Tensor g = random_tensor(node.shape, 54);
  auto y = run(node, x, indices, BackendOp::gather);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  const VjpGradients grads = run_vjp(handler(BackendOp::gather), node, {x, indices}, *y, g);
  Tensor probe = x;
  for (std::size_t e = 0; e < x.size(); ++e) {
    const float h = 1e-2F;
    const float v = probe.floats()[e];
    probe.floats()[e] = v + h;
    const Tensor up = *run(node, probe, indices, BackendOp::gather);
    probe.floats()[e] = v - h;
    const Tensor down = *run(node, probe, indices, BackendOp::gather);
    probe.floats()[e] = v;
    double dot = 0.0;
    for (std::size_t i = 0; i < g.size(); ++i)
      dot += static_cast<double>(g.floats()[i]) * (up.floats()[i] - down.floats()[i]) / (2 * h);
    EXPECT_NEAR(grads.inputs[0].floats()[e], dot, 1e-4) << e;
  }
  // Row 1 is read by ids 1 and -3: its gradient is the sum of the two cotangent rows.
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_FLOAT_EQ(grads.inputs[0].floats()[3 + c], g.floats()[c] + g.floats()[3 + c]);
  }
}

// gather_nd with int64 indices (..., k) after `batch` shared axes.
ir::Node gather_nd_node(const ir::Shape& data, const ir::Shape& indices, std::uint32_t batch,
                        DType dtype = DType::float32) {
  const std::size_t k = indices.dims.back();
  ir::Shape out;
  out.dims.assign(indices.dims.begin(), indices.dims.end() - 1);
  out.dims.insert(out.dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(batch + k),
                  data.dims.end());
  return {.id = 2,
          .kind = OpKind::gather_nd,
          .parents = {0, 1},
          .shape = out,
          .params = ir::GatherNdParams{.batch_dims = batch},
          .dtype = dtype};
}

// ONNX's GatherND examples: elements, slices, a batch axis; negative indices; int64 data.
TEST(reference_gather_nd_forward_tests, hand_cases) {
  const Tensor m = tensor({2, 2}, {0, 1, 2, 3});
  auto elements = run(gather_nd_node(m.shape, shape_of({2, 2}), 0), m, ints({2, 2}, {0, 0, 1, 1}),
                      BackendOp::gather_nd);
  ASSERT_TRUE(elements.has_value()) << elements.error().message;
  EXPECT_EQ(elements->floats(), (std::vector<float>{0, 3}));
  auto rows = run(gather_nd_node(m.shape, shape_of({2, 1}), 0), m, ints({2, 1}, {1, -2}),
                  BackendOp::gather_nd);
  ASSERT_TRUE(rows.has_value()) << rows.error().message;
  EXPECT_EQ(rows->floats(), (std::vector<float>{2, 3, 0, 1}));
  const Tensor cube = tensor({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto batched = run(gather_nd_node(cube.shape, shape_of({2, 1}), 1), cube, ints({2, 1}, {1, 0}),
                     BackendOp::gather_nd);
  ASSERT_TRUE(batched.has_value()) << batched.error().message;
  EXPECT_EQ(batched->shape, shape_of({2, 2}));
  EXPECT_EQ(batched->floats(), (std::vector<float>{2, 3, 4, 5}));
  const Tensor longs = ints({3}, {INT64_MIN, 5, INT64_MAX});
  auto i = run(gather_nd_node(longs.shape, shape_of({2, 1}), 0, DType::int64), longs,
               ints({2, 1}, {2, 0}), BackendOp::gather_nd);
  ASSERT_TRUE(i.has_value()) << i.error().message;
  EXPECT_EQ(i->ints(), (std::vector<std::int64_t>{INT64_MAX, INT64_MIN}));
}

TEST(reference_gather_nd_forward_tests, guards_name_the_index) {
  const Tensor m = tensor({2, 3}, {0, 1, 2, 3, 4, 5});
  auto past = run(gather_nd_node(m.shape, shape_of({2, 2}), 0), m, ints({2, 2}, {0, 0, 1, 3}),
                  BackendOp::gather_nd);
  ASSERT_FALSE(past.has_value());
  EXPECT_EQ(past.error().message,
            "index 3 (element 3 of the indices) is out of range for axis 1 of extent 3; indices "
            "lie in [-3, 2]");
  auto floats = run(gather_nd_node(m.shape, shape_of({1, 1}), 0), m, tensor({1, 1}, {0}),
                    BackendOp::gather_nd);
  ASSERT_FALSE(floats.has_value());
  EXPECT_EQ(floats.error().message, "input 1 has dtype float32; gather_nd takes int64 indices");
}

// Each gathered slice's gradient goes back to the slice it read (rows read twice add), checked by
// finite differences.
TEST(reference_gather_nd_vjp_tests, finite_differences) {
  const Tensor x = random_tensor(shape_of({2, 4, 3}), 57);
  const Tensor indices = ints({2, 3, 1}, {1, -1, 1, 0, 2, 2});
  const ir::Node node = gather_nd_node(x.shape, indices.shape, 1);
  const Tensor g = random_tensor(node.shape, 58);
  auto y = run(node, x, indices, BackendOp::gather_nd);
  ASSERT_TRUE(y.has_value()) << y.error().message;
  const VjpGradients grads = run_vjp(handler(BackendOp::gather_nd), node, {x, indices}, *y, g);
  Tensor probe = x;
  for (std::size_t e = 0; e < x.size(); ++e) {
    const float h = 1e-2F;
    const float v = probe.floats()[e];
    probe.floats()[e] = v + h;
    const Tensor up = *run(node, probe, indices, BackendOp::gather_nd);
    probe.floats()[e] = v - h;
    const Tensor down = *run(node, probe, indices, BackendOp::gather_nd);
    probe.floats()[e] = v;
    double dot = 0.0;
    for (std::size_t i = 0; i < g.size(); ++i)
      dot += static_cast<double>(g.floats()[i]) * (up.floats()[i] - down.floats()[i]) / (2 * h);
    EXPECT_NEAR(grads.inputs[0].floats()[e], dot, 1e-4) << e;
  }
}

}  // namespace
}  // namespace indexing_test
}  // namespace nnplan::runtime::reference
