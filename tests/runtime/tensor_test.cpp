// Runtime tensors (runtime/tensor.hpp) and their conversion to and from the tensors files hold
// (format/runtime_tensor.hpp): every dtype's elements, bytes and views, a read as another dtype
// refused, and a round trip through a strided weight view.
#include "nnplan/runtime/tensor.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "nnplan/format/runtime_tensor.hpp"
#include "nnplan/ir/weights.hpp"

namespace {

using nnplan::ir::DType;
using nnplan::ir::Shape;
using nnplan::runtime::Tensor;
namespace ir = nnplan::ir;
namespace runtime = nnplan::runtime;
namespace format = nnplan::format;

Shape dims_of(std::initializer_list<ir::Dim> dims) {
  Shape s;
  for (const ir::Dim d : dims)
    s.dims.push_back(d);
  return s;
}

TEST(RuntimeTensor, EachDtypeHoldsItsOwnElements) {
  const Tensor f = Tensor::of(dims_of({2}), std::vector<float>{1.5F, -2});
  const Tensor i = Tensor::of(dims_of({3}), std::vector<std::int64_t>{-1, 0, 1LL << 40});
  const Tensor b = Tensor::of(dims_of({2, 2}), std::vector<std::uint8_t>{1, 0, 0, 1});
  EXPECT_EQ(f.dtype(), DType::float32);
  EXPECT_EQ(i.dtype(), DType::int64);
  EXPECT_EQ(b.dtype(), DType::boolean);
  EXPECT_EQ(f.size(), 2U);
  EXPECT_EQ(i.size(), 3U);
  EXPECT_EQ(b.size(), 4U);
  EXPECT_EQ(f.byte_size(), 8U);
  EXPECT_EQ(i.byte_size(), 24U);
  EXPECT_EQ(b.byte_size(), 4U);
  EXPECT_EQ(i.ints()[2], 1LL << 40);
  EXPECT_EQ(b.bools(), (std::vector<std::uint8_t>{1, 0, 0, 1}));
  std::int64_t second = 0;
  std::memcpy(&second, i.bytes() + sizeof(std::int64_t), sizeof second);
  EXPECT_EQ(second, 0);
}

TEST(RuntimeTensor, ReadingAnotherDtypeThrows) {
  Tensor i = Tensor::of(dims_of({1}), std::vector<std::int64_t>{7});
  try {
    (void)i.floats();
    FAIL() << "an int64 tensor was read as float32";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "a tensor of dtype int64 read as float32");
  }
  const runtime::TensorRef ref = runtime::view(i);
  EXPECT_EQ(ref.dtype, DType::int64);
  EXPECT_EQ(ref.data<std::int64_t>()[0], 7);
  EXPECT_THROW((void)ref.data<float>(), std::logic_error);
  EXPECT_THROW((void)runtime::mutable_view(i).values(), std::logic_error);
  EXPECT_THROW((void)i.bools(), std::logic_error);
}

TEST(RuntimeTensor, ZerosOfEveryDtype) {
  const Tensor f = runtime::zeros(dims_of({2, 3}));
  EXPECT_EQ(f.floats(), std::vector<float>(6, 0.0F));
  const Tensor i = runtime::zeros(dims_of({4}), DType::int64);
  EXPECT_EQ(i.ints(), std::vector<std::int64_t>(4, 0));
  const Tensor b = runtime::zeros(dims_of({}), DType::boolean);
  EXPECT_EQ(b.bools(), std::vector<std::uint8_t>{0});
  const Tensor empty = runtime::zeros(dims_of({0, 3}), DType::int64);
  EXPECT_EQ(empty.size(), 0U);
}

TEST(RuntimeTensor, MutableViewWritesThroughAndReadsAsConst) {
  Tensor b = runtime::zeros(dims_of({3}), DType::boolean);
  const runtime::MutableTensorRef out = runtime::mutable_view(b);
  out.data<std::uint8_t>()[1] = 1;
  const runtime::TensorRef in = out;
  EXPECT_EQ(in.dtype, DType::boolean);
  EXPECT_EQ(in.elements<std::uint8_t>()[1], 1);
  EXPECT_EQ(b.bools(), (std::vector<std::uint8_t>{0, 1, 0}));
}

TEST(RuntimeTensorConversion, EveryDtypeRoundTripsThroughAWeightTensor) {
  const std::vector<Tensor> tensors = {
      Tensor::of(dims_of({2, 2}), std::vector<float>{0.5F, -1, 2, 3}),
      Tensor::of(dims_of({3}), std::vector<std::int64_t>{-5, 9, 1LL << 50}),
      Tensor::of(dims_of({2}), std::vector<std::uint8_t>{0, 1}),
      Tensor::of(dims_of({0}), std::vector<std::int64_t>{}),
  };
  for (const Tensor& t : tensors) {
    SCOPED_TRACE(ir::to_string(t.dtype()));
    const ir::WeightTensor w = format::to_weight_tensor(t);
    EXPECT_EQ(w.dtype(), t.dtype());
    EXPECT_EQ(w.shape(), t.shape);
    EXPECT_EQ(w.size(), t.size());
    EXPECT_EQ(format::to_runtime_tensor(w), t);
  }
}

TEST(RuntimeTensorConversion, AStridedViewBecomesRowMajor) {
  // [[1, 2, 3], [4, 5, 6]] seen transposed: [[1, 4], [2, 5], [3, 6]].
  const ir::WeightTensor w =
      ir::WeightTensor::adopt(dims_of({2, 3}), std::vector<std::int64_t>{1, 2, 3, 4, 5, 6});
  const ir::WeightTensor t = w.transposed();
  ASSERT_FALSE(t.readable_in_place());
  const Tensor got = format::to_runtime_tensor(t);
  EXPECT_EQ(got.shape, dims_of({3, 2}));
  EXPECT_EQ(got.ints(), (std::vector<std::int64_t>{1, 4, 2, 5, 3, 6}));
}

}  // namespace
