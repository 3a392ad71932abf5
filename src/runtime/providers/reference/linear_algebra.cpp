// Reference kernels: the linear algebra family. matmul (torch.matmul: batch axes broadcast, a
// rank-1 operand promoted to a row on the left or a column on the right) and linear (x W^T + b
// over the last axis). Every dot product accumulates in float32 left to right over its
// contraction index, starting from 0.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "nnplan/ir/payload_shapes.hpp"
#include "runtime/providers/reference/reference_handlers.hpp"
#include "runtime/providers/reference/row_major.hpp"

namespace nnplan::runtime::reference {
namespace {

Expected<void> fail(Error e) {
  return std::unexpected(std::move(e));
}

Expected<void> wrong_kind(const ir::Node& node, std::string_view handler) {
  return fail(make_error(ErrorKind::invalid_input,
                         "the node is a " + std::string(ir::to_string(node.kind)) +
                             "; this handler runs " + std::string(handler)));
}

// The geometry of one matmul: `batch` output matrices of m x n, each the product of an m x k
// matrix of input 0 and a k x n matrix of input 1 (a rank-1 operand is one such matrix). The
// offsets of each output matrix's operands come from a walk over the output's batch axes with
// broadcast axes at stride 0.
struct MatmulShape {
  std::size_t m = 1;
  std::size_t k = 1;
  std::size_t n = 1;
  std::vector<std::size_t> batch_dims;  // the output's batch axes
  std::vector<std::size_t> a_strides;   // per batch axis, in elements of input 0 (0: broadcast)
  std::vector<std::size_t> b_strides;   // per batch axis, in elements of input 1 (0: broadcast)
};

// The output shape torch.matmul gives for `a` x `b` (the rule of ir/check.cpp), or an error
// naming the operand that does not fit.
Expected<ir::Shape> matmul_output_shape(const ir::Shape& a, const ir::Shape& b) {
  if (a.rank() == 0)
    return std::unexpected(operand_error("input 0", a, "matmul needs rank at least 1"));
  if (b.rank() == 0)
    return std::unexpected(operand_error("input 1", b, "matmul needs rank at least 1"));
  const std::size_t ar = a.rank();
  const std::size_t br = b.rank();
  const ir::Dim ka = a.dims[ar - 1];
  const std::size_t b_k_axis = br == 1 ? 0 : br - 2;
  if (b.dims[b_k_axis] != ka) {
    return std::unexpected(operand_error("input 1", b,
                                         "matmul needs " + std::to_string(ka) +
                                             " (the last dimension of input 0 " + ir::to_string(a) +
                                             ") on axis " + std::to_string(b_k_axis)));
  }
  const std::size_t a_batch = ar > 2 ? ar - 2 : 0;
  const std::size_t b_batch = br > 2 ? br - 2 : 0;
  const std::size_t batch = std::max(a_batch, b_batch);
  ir::Shape out;
  for (std::size_t i = 0; i < batch; ++i) {
    const ir::Dim da = i + a_batch >= batch ? a.dims[i + a_batch - batch] : 1;
    const ir::Dim db = i + b_batch >= batch ? b.dims[i + b_batch - batch] : 1;
    if (da != db && da != 1 && db != 1) {
      return std::unexpected(operand_error(
          "input 1", b,
          "matmul needs batch axes that broadcast with those of input 0 " + ir::to_string(a)));
    }
    out.dims.push_back(da == 1 ? db : da);
  }
  if (ar != 1) out.dims.push_back(a.dims[ar - 2]);
  if (br != 1) out.dims.push_back(b.dims[br - 1]);
  return out;
}

MatmulShape matmul_shape(const ir::Shape& a, const ir::Shape& b) {
  const std::size_t ar = a.rank();
  const std::size_t br = b.rank();
  MatmulShape s;
  s.m = ar == 1 ? 1 : static_cast<std::size_t>(a.dims[ar - 2]);
  s.k = static_cast<std::size_t>(a.dims[ar - 1]);
  s.n = br == 1 ? 1 : static_cast<std::size_t>(b.dims[br - 1]);
  const std::size_t a_batch = ar > 2 ? ar - 2 : 0;
  const std::size_t b_batch = br > 2 ? br - 2 : 0;
  const std::size_t batch = std::max(a_batch, b_batch);
  s.batch_dims.assign(batch, 1);
  s.a_strides.assign(batch, 0);
  s.b_strides.assign(batch, 0);
  // Walk the batch axes from the innermost out, growing each operand's stride as its own axes pass.
  std::size_t a_stride = s.m * s.k;
  std::size_t b_stride = s.k * s.n;
  for (std::size_t i = batch; i-- > 0;) {
    const std::size_t da = i + a_batch >= batch ? a.dims[i + a_batch - batch] : 1;
    const std::size_t db = i + b_batch >= batch ? b.dims[i + b_batch - batch] : 1;
    s.batch_dims[i] = da == 1 ? db : da;
    s.a_strides[i] = da == 1 ? 0 : a_stride;
    s.b_strides[i] = db == 1 ? 0 : b_stride;
    a_stride *= da;
    b_stride *= db;
  }
  return s;
}

// Calls body(a_offset, b_offset, out_offset) for each output matrix in row-major batch order.
template <class Body>
void for_each_batch(const MatmulShape& s, Body&& body) {
  std::size_t count = 1;
  for (std::size_t d : s.batch_dims)
    count *= d;
  std::vector<std::size_t> index(s.batch_dims.size(), 0);
  std::size_t a_off = 0;
  std::size_t b_off = 0;
  for (std::size_t t = 0; t < count; ++t) {
    body(a_off, b_off, t * s.m * s.n);
    for (std::size_t i = index.size(); i-- > 0;) {
      ++index[i];
      a_off += s.a_strides[i];
      b_off += s.b_strides[i];
      if (index[i] < s.batch_dims[i]) break;
      a_off -= s.a_strides[i] * index[i];
      b_off -= s.b_strides[i] * index[i];
      index[i] = 0;
    }
  }
}

Expected<void> matmul_shape_guard(const KernelCall& call) {
  if (call.node.kind != ir::OpKind::matmul) return wrong_kind(call.node, "matmul");
  if (auto ok = check_arity_and_output(call, 2); !ok) return ok;
  const ir::Shape& a = *call.inputs[0].shape;
  const ir::Shape& b = *call.inputs[1].shape;
  auto out = matmul_output_shape(a, b);
  if (!out) return fail(out.error());
  if (*out != *call.output.shape) {
    return fail(operand_error("the output", *call.output.shape,
                              "matmul of " + ir::to_string(a) + " x " + ir::to_string(b) +
                                  " gives " + ir::to_string(*out)));
  }
  return {};
}

}  // namespace

// out[i,j] = sum over p of a[i,p] * b[p,j] per output matrix: acc = 0, then acc = acc + a*b for
// p = 0 .. k-1 (the output element is the accumulator; the j loop runs innermost over
// independent outputs).
void matmul_forward(const KernelCall& call) {
  const MatmulShape s = matmul_shape(*call.inputs[0].shape, *call.inputs[1].shape);
  const float* a = call.inputs[0].data<float>();
  const float* b = call.inputs[1].data<float>();
  float* out = call.output.data<float>();
  for_each_batch(s, [&](std::size_t a_off, std::size_t b_off, std::size_t o_off) {
    for (std::size_t i = 0; i < s.m; ++i) {
      float* row = out + o_off + i * s.n;
      for (std::size_t j = 0; j < s.n; ++j)
        row[j] = 0.0F;
      for (std::size_t p = 0; p < s.k; ++p) {
        const float av = a[a_off + i * s.k + p];
        const float* brow = b + b_off + p * s.n;
        for (std::size_t j = 0; j < s.n; ++j)
          row[j] = row[j] + av * brow[j];
      }
    }
  });
}

// dA[i,p] += g[i,j] * b[p,j] and dB[p,j] += a[i,p] * g[i,j]: each gradient element is its own
// accumulator, its products added in output-batch order (row-major, so broadcast batches sum
// left to right), then over j (for dA) or i (for dB) ascending.
void matmul_vjp(const VjpCall& call) {
  const MatmulShape s = matmul_shape(*call.inputs[0].shape, *call.inputs[1].shape);
  const float* a = call.inputs[0].data<float>();
  const float* b = call.inputs[1].data<float>();
  const float* g = call.output_grad.data<float>();
  float* da = call.input_grads[0].data<float>();
  float* db = call.input_grads[1].data<float>();
  for_each_batch(s, [&](std::size_t a_off, std::size_t b_off, std::size_t o_off) {
    for (std::size_t i = 0; i < s.m; ++i) {
      const float* grow = g + o_off + i * s.n;
      for (std::size_t p = 0; p < s.k; ++p) {
        const float* brow = b + b_off + p * s.n;
        float acc = da[a_off + i * s.k + p];
        for (std::size_t j = 0; j < s.n; ++j)
          acc = acc + grow[j] * brow[j];
        da[a_off + i * s.k + p] = acc;
      }
      for (std::size_t p = 0; p < s.k; ++p) {
        const float av = a[a_off + i * s.k + p];
        float* dbrow = db + b_off + p * s.n;
        for (std::size_t j = 0; j < s.n; ++j)
          dbrow[j] = dbrow[j] + av * grow[j];
      }
    }
  });
}

namespace {

Expected<void> linear_shape_guard(const KernelCall& call) {
  if (call.node.kind != ir::OpKind::linear) return wrong_kind(call.node, "linear");
  if (auto ok = check_arity_and_output(call, 1); !ok) return ok;
  const ir::Shape& x = *call.inputs[0].shape;
  const ir::Shape& y = *call.output.shape;
  if (x.rank() == 0) return fail(operand_error("input 0", x, "linear needs rank at least 1"));
  if (y.rank() != x.rank()) {
    return fail(
        operand_error("the output", y, "linear needs the rank of input 0 " + ir::to_string(x)));
  }
  for (std::size_t i = 0; i + 1 < x.rank(); ++i) {
    if (y.dims[i] != x.dims[i]) {
      return fail(operand_error("the output", y,
                                "linear needs the leading axes of input 0 " + ir::to_string(x)));
    }
  }
  const ir::Shape* const parents[] = {&x};
  auto want_w = ir::payload_shape(call.node, ir::PayloadShape::linear_weight, parents);
  if (!want_w) return fail(std::move(want_w.error()));
  const ir::WeightTensor* w = call.weights.find("weight");
  if (w == nullptr) {
    return fail(
        make_error(ErrorKind::invalid_input,
                   "the weight is missing; linear needs one of shape " + ir::to_string(*want_w)));
  }
  if (w->dtype() != ir::DType::float32 || w->shape() != *want_w) {
    return fail(operand_error("the weight", w->shape(),
                              "linear needs float32 " + ir::to_string(*want_w) +
                                  " (out, in) for input " + ir::to_string(x) + " and output " +
                                  ir::to_string(y)));
  }
  if (const ir::WeightTensor* bias = call.weights.find("bias"); bias != nullptr) {
    auto want_b = ir::payload_shape(call.node, ir::PayloadShape::linear_bias, parents);
    if (!want_b) return fail(std::move(want_b.error()));
    if (bias->dtype() != ir::DType::float32 || bias->shape() != *want_b) {
      return fail(operand_error("the bias", bias->shape(),
                                "linear needs float32 " + ir::to_string(*want_b) + " (out)"));
    }
  }
  return {};
}

// linear's extents: `rows` rows (every axis of x but the last) of `in` features each, `out`
// features out.
struct LinearExtents {
  std::size_t in = 0;
  std::size_t out = 0;
  std::size_t rows = 1;
};

LinearExtents linear_extents(const ir::Shape& x, const ir::Shape& y) {
  return {.in = static_cast<std::size_t>(x.dims.back()),
          .out = static_cast<std::size_t>(y.dims.back()),
          .rows = extent_product(x, 0, x.rank() - 1)};
}

}  // namespace

// y[r,o] = (sum over i of x[r,i] * w[o,i]) + bias[o]: acc = 0, then acc = acc + x*w for i = 0 ..
// in-1, then the bias added last (when there is one).
void linear_forward(const KernelCall& call) {
  const auto [in, out, rows] = linear_extents(*call.inputs[0].shape, *call.output.shape);
  const float* x = call.inputs[0].data<float>();
  const float* w = call.weights.find("weight")->floats().data();
  const ir::WeightTensor* bias = call.weights.find("bias");
  float* y = call.output.data<float>();
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xrow = x + r * in;
    for (std::size_t o = 0; o < out; ++o) {
      const float* wrow = w + o * in;
      float acc = 0.0F;
      for (std::size_t i = 0; i < in; ++i)
        acc = acc + xrow[i] * wrow[i];
      if (bias != nullptr) acc = acc + bias->floats()[o];
      y[r * out + o] = acc;
    }
  }
}

// dx[r,i] += g[r,o] * w[o,i] (o ascending), dW[o,i] += g[r,o] * x[r,i] and db[o] += g[r,o] (r
// ascending): each gradient element is its own accumulator.
void linear_vjp(const VjpCall& call) {
  const auto [in, out, rows] = linear_extents(*call.inputs[0].shape, *call.output.shape);
  const float* x = call.inputs[0].data<float>();
  const float* w = call.weights.find("weight")->floats().data();
  const float* g = call.output_grad.data<float>();
  float* dx = call.input_grads[0].data<float>();
  float* dw = weight_grad(call, "weight");
  float* db = weight_grad(call, "bias");
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xrow = x + r * in;
    float* dxrow = dx + r * in;
    for (std::size_t o = 0; o < out; ++o) {
      const float gv = g[r * out + o];
      const float* wrow = w + o * in;
      for (std::size_t i = 0; i < in; ++i)
        dxrow[i] = dxrow[i] + gv * wrow[i];
      if (dw != nullptr) {
        float* dwrow = dw + o * in;
        for (std::size_t i = 0; i < in; ++i)
          dwrow[i] = dwrow[i] + gv * xrow[i];
      }
      if (db != nullptr) db[o] = db[o] + gv;
    }
  }
}

namespace {

constexpr TestSuiteRef kTests{.source = "tests/runtime/reference/linear_algebra_test.cpp"};

constexpr ReferenceHandler kHandlers[] = {
    {.op = backend::BackendOp::matmul,
     .handler = {.symbol = "nnplan::runtime::reference::matmul_forward",
                 .forward = matmul_forward,
                 .vjp = matmul_vjp,
                 .shape_guard = matmul_shape_guard,
                 .layout_guard = canonical_layout_guard,
                 .forward_tests = kTests,
                 .vjp_tests = kTests}},
    {.op = backend::BackendOp::linear,
     .handler = {.symbol = "nnplan::runtime::reference::linear_forward",
                 .forward = linear_forward,
                 .vjp = linear_vjp,
                 .shape_guard = linear_shape_guard,
                 .layout_guard = canonical_layout_guard,
                 .forward_tests = kTests,
                 .vjp_tests = kTests}},
};

}  // namespace

std::span<const ReferenceHandler> linear_algebra_handlers() {
  return kHandlers;
}

}  // namespace nnplan::runtime::reference
