// ir::WeightTensor and ir::WeightStore (ir/weights.hpp): typed views over bytes an owner keeps
// alive, the copy a misaligned view makes, the release hint reaching the owner, element-wise
// equality, and lookups in the store.
#include "nnplan/ir/weights.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace nnplan::ir {
namespace {

// Bytes a test owns, recording every range it is told to release.
class RecordingBytes final : public WeightBytes {
 public:
  explicit RecordingBytes(std::size_t n) : bytes_(n) {}
  void release(std::span<const std::byte> range) const noexcept override {
    released.push_back(range);
  }
  [[nodiscard]] std::byte* data() { return bytes_.data(); }
  [[nodiscard]] std::span<const std::byte> all() const { return bytes_; }

  mutable std::vector<std::span<const std::byte>> released;

 private:
  // std::vector<std::byte> from operator new: aligned to 16, enough for every dtype.
  std::vector<std::byte> bytes_;
};

Shape dims(std::initializer_list<Dim> d) {
  Shape s;
  for (const Dim x : d)
    s.dims.push_back(x);
  return s;
}

TEST(WeightTensor, AViewReadsTheOwnersBytesInPlace) {
  auto owner = std::make_shared<RecordingBytes>(64);
  const float values[] = {1.5F, -2.0F, 3.25F};
  std::memcpy(owner->data() + 16, values, sizeof values);
  const WeightTensor t =
      WeightTensor::view(dims({3}), DType::float32, owner->data() + 16, 3, owner);
  EXPECT_EQ(t.shape(), dims({3}));
  EXPECT_EQ(t.dtype(), DType::float32);
  EXPECT_EQ(t.size(), 3U);
  EXPECT_EQ(t.bytes().size(), 12U);
  EXPECT_EQ(static_cast<const void*>(t.floats().data()), owner->data() + 16);
  EXPECT_TRUE(t.views_into(owner->all()));
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1.5F, -2.0F, 3.25F}));
  // Other dtypes' views are empty, not reinterpreted.
  EXPECT_TRUE(t.ints().empty());
  EXPECT_TRUE(t.values<std::uint8_t>().empty());
}

TEST(WeightTensor, AMisalignedViewIsReadThroughAnAlignedCopy) {
  auto owner = std::make_shared<RecordingBytes>(64);
  const std::int64_t values[] = {-7, 1LL << 40};
  std::memcpy(owner->data() + 4, values, sizeof values);
  const WeightTensor t = WeightTensor::view(dims({2}), DType::int64, owner->data() + 4, 2, owner);
  // The view keeps the owner's bytes, but no accessor reads them at a misaligned address.
  EXPECT_TRUE(t.views_into(owner->all()));
  EXPECT_FALSE(t.aligned());
  EXPECT_FALSE(t.readable_in_place());
  EXPECT_TRUE(t.ints().empty());
  EXPECT_TRUE(t.bytes().empty());
  EXPECT_EQ(t.storage().data(), owner->data() + 4);
  EXPECT_EQ(t.storage().size(), 16U);
  // contiguous() copies it to an aligned buffer of its own; to_vector reads through one.
  const WeightTensor c = t.contiguous();
  EXPECT_TRUE(c.readable_in_place());
  EXPECT_FALSE(c.views_into(owner->all()));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(c.ints().data()) % alignof(std::int64_t), 0U);
  EXPECT_EQ(c.to_vector<std::int64_t>(), (std::vector<std::int64_t>{-7, 1LL << 40}));
  EXPECT_EQ(t.to_vector<std::int64_t>(), (std::vector<std::int64_t>{-7, 1LL << 40}));
  EXPECT_EQ(t, c);
  // Nothing was released: the view still reads the owner's bytes.
  EXPECT_TRUE(owner->released.empty());
  // The copy is its own: changing the source afterwards changes nothing in it.
  std::memset(owner->data(), 0, 64);
  EXPECT_EQ(c.ints()[1], 1LL << 40);
}

// A packer's copy of a misaligned view tells the owner each block is no longer read once it is
// copied, in order, covering the whole view; the copy equals the view.
TEST(WeightTensor, AReleasingCopyReleasesEachBlockOnceCopied) {
  auto owner = std::make_shared<RecordingBytes>(64);
  const float values[] = {1.0F, 2.0F, 3.0F, 4.0F, 5.0F};
  std::memcpy(owner->data() + 2, values, sizeof values);
  const WeightTensor t = WeightTensor::view(dims({5}), DType::float32, owner->data() + 2, 5, owner);
  const WeightTensor c = t.contiguous_releasing(8);
  EXPECT_TRUE(c.readable_in_place());
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{1.0F, 2.0F, 3.0F, 4.0F, 5.0F}));
  ASSERT_EQ(owner->released.size(), 3U);
  EXPECT_EQ(owner->released[0].data(), owner->data() + 2);
  EXPECT_EQ(owner->released[0].size(), 8U);
  EXPECT_EQ(owner->released[1].data(), owner->data() + 10);
  EXPECT_EQ(owner->released[2].data(), owner->data() + 18);
  EXPECT_EQ(owner->released[2].size(), 4U);
  // A view readable in place is returned as it is, and a strided one is copied whole with
  // nothing released (its elements are read out of order).
  owner->released.clear();
  const WeightTensor aligned =
      WeightTensor::view(dims({2}), DType::float32, owner->data() + 16, 2, owner);
  EXPECT_EQ(aligned.contiguous_releasing(4).storage().data(), owner->data() + 16);
  const WeightTensor strided =
      WeightTensor::view(dims({2, 2}), DType::float32, owner->data() + 2, 4, owner).transposed();
  EXPECT_EQ(strided.contiguous_releasing(4), strided.contiguous());
  EXPECT_TRUE(owner->released.empty());
}

TEST(WeightTensor, AMisalignedTransposeIsCopiedInRowMajorOrder) {
  auto owner = std::make_shared<RecordingBytes>(64);
  const float values[] = {0.0F, 1.0F, 2.0F, 3.0F, 4.0F, 5.0F};
  std::memcpy(owner->data() + 2, values, sizeof values);
  const WeightTensor t =
      WeightTensor::view(dims({2, 3}), DType::float32, owner->data() + 2, 6, owner);
  const WeightTensor v = t.transposed();
  EXPECT_FALSE(v.readable_in_place());
  EXPECT_EQ(v.contiguous().to_vector<float>(),
            (std::vector<float>{0.0F, 3.0F, 1.0F, 4.0F, 2.0F, 5.0F}));
  // Transposed back: row-major again, still misaligned, so still read through a copy.
  EXPECT_FALSE(v.transposed().readable_in_place());
  EXPECT_EQ(v.transposed(), t);
}

TEST(WeightTensor, ReleaseTellsTheOwnerTheTensorsExactRange) {
  auto owner = std::make_shared<RecordingBytes>(64);
  const WeightTensor t =
      WeightTensor::view(dims({2, 2}), DType::float32, owner->data() + 32, 4, owner);
  t.release();
  ASSERT_EQ(owner->released.size(), 1U);
  EXPECT_EQ(owner->released[0].data(), owner->data() + 32);
  EXPECT_EQ(owner->released[0].size(), 16U);
  // An empty tensor releases nothing; a default one has no owner to tell.
  WeightTensor::view(dims({0}), DType::float32, owner->data(), 0, owner).release();
  WeightTensor{}.release();
  EXPECT_EQ(owner->released.size(), 1U);
}

TEST(WeightTensor, AdoptTakesTheVectorWithoutCopying) {
  std::vector<float> values(1000, 0.5F);
  const float* before = values.data();
  const WeightTensor t = WeightTensor::adopt(dims({10, 100}), std::move(values));
  EXPECT_EQ(t.floats().data(), before);
  EXPECT_EQ(t.size(), 1000U);
  const WeightTensor b = WeightTensor::adopt(dims({3}), std::vector<std::uint8_t>{1, 0, 1});
  EXPECT_EQ(b.dtype(), DType::boolean);
  EXPECT_EQ(b.to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{1, 0, 1}));
}

TEST(WeightTensor, CopiesShareTheBytesAndOutliveTheOriginal) {
  const float* data = nullptr;
  WeightTensor copy;
  {
    const WeightTensor t = WeightTensor::of_floats(dims({2}), std::vector<float>{4.0F, 5.0F});
    data = t.floats().data();
    copy = t;
  }
  EXPECT_EQ(copy.floats().data(), data);
  EXPECT_EQ(copy.to_vector<float>(), (std::vector<float>{4.0F, 5.0F}));
}

TEST(WeightTensor, ZerosIsFilledForEveryDtype) {
  EXPECT_EQ(WeightTensor::zeros(dims({2, 3}), DType::float32).to_vector<float>(),
            std::vector<float>(6, 0.0F));
  EXPECT_EQ(WeightTensor::zeros(dims({4}), DType::int64).to_vector<std::int64_t>(),
            std::vector<std::int64_t>(4, 0));
  EXPECT_EQ(WeightTensor::zeros(dims({5}), DType::boolean).bytes().size(), 5U);
  EXPECT_EQ(WeightTensor::zeros(dims({}), DType::float32).size(), 1U);
}

TEST(WeightTensor, EqualityComparesShapeDtypeAndElements) {
  const auto a = WeightTensor::of_floats(dims({2}), std::vector<float>{0.0F, 1.0F});
  EXPECT_EQ(a, WeightTensor::of_floats(dims({2}), std::vector<float>{-0.0F, 1.0F}));
  EXPECT_NE(a, WeightTensor::of_floats(dims({1, 2}), std::vector<float>{0.0F, 1.0F}));
  EXPECT_NE(a, WeightTensor::of_floats(dims({2}), std::vector<float>{0.0F, 2.0F}));
  EXPECT_NE(a, WeightTensor::of_ints(dims({2}), std::vector<std::int64_t>{0, 1}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto n = WeightTensor::of_floats(dims({1}), std::vector<float>{nan});
  EXPECT_NE(n, n);
  EXPECT_EQ(WeightTensor::of_ints(dims({2}), std::vector<std::int64_t>{3, 4}),
            WeightTensor::of_ints(dims({2}), std::vector<std::int64_t>{3, 4}));
}

// A [2, 3] float tensor 0..5 in bytes `owner` keeps, at offset 16.
WeightTensor two_by_three(const std::shared_ptr<RecordingBytes>& owner) {
  const float values[] = {0.0F, 1.0F, 2.0F, 3.0F, 4.0F, 5.0F};
  std::memcpy(owner->data() + 16, values, sizeof values);
  return WeightTensor::view(dims({2, 3}), DType::float32, owner->data() + 16, 6, owner);
}

TEST(WeightTensor, TransposedIsAStridedViewOfTheSameBytes) {
  auto owner = std::make_shared<RecordingBytes>(64);
  const WeightTensor t = two_by_three(owner);
  EXPECT_TRUE(t.readable_in_place());
  EXPECT_EQ(t.strides(), (std::vector<std::size_t>{3, 1}));
  const WeightTensor v = t.transposed();
  EXPECT_EQ(v.shape(), dims({3, 2}));
  EXPECT_FALSE(v.readable_in_place());
  EXPECT_EQ(v.strides(), (std::vector<std::size_t>{1, 3}));
  EXPECT_EQ(v.size(), 6U);
  // It reads the owner's bytes: no copy was made, and the viewed range is the original's.
  EXPECT_TRUE(v.views_into(owner->all()));
  EXPECT_EQ(v.storage().data(), owner->data() + 16);
  EXPECT_EQ(v.storage().size(), 24U);
  // Row-major accessors give nothing for a strided view.
  EXPECT_TRUE(v.bytes().empty());
  EXPECT_TRUE(v.floats().empty());
  // The dense copy holds element (n, k) = t(k, n), in its own buffer.
  const WeightTensor d = v.contiguous();
  EXPECT_TRUE(d.readable_in_place());
  EXPECT_EQ(d.shape(), dims({3, 2}));
  EXPECT_FALSE(d.views_into(owner->all()));
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{0.0F, 3.0F, 1.0F, 4.0F, 2.0F, 5.0F}));
  // Transposing back gives a dense view of the original bytes.
  const WeightTensor back = v.transposed();
  EXPECT_TRUE(back.readable_in_place());
  EXPECT_EQ(back.floats().data(), t.floats().data());
  EXPECT_EQ(back, t);
  // Nothing was released by any of it.
  EXPECT_TRUE(owner->released.empty());
}

TEST(WeightTensor, ARankThreeTransposeReversesEveryAxis) {
  std::vector<float> values(24);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i);
  const WeightTensor t = WeightTensor::of_floats(dims({2, 3, 4}), values);
  const WeightTensor v = t.transposed();
  EXPECT_EQ(v.shape(), dims({4, 3, 2}));
  EXPECT_EQ(v.strides(), (std::vector<std::size_t>{1, 4, 12}));
  const std::vector<float> got = v.contiguous().to_vector<float>();
  ASSERT_EQ(got.size(), 24U);
  // got[a][b][c] = t[c][b][a]
  for (std::size_t a = 0; a < 4; ++a) {
    for (std::size_t b = 0; b < 3; ++b) {
      for (std::size_t c = 0; c < 2; ++c)
        EXPECT_EQ(got[a * 6 + b * 2 + c], values[c * 12 + b * 4 + a]) << a << b << c;
    }
  }
}

TEST(WeightTensor, TransposeLeavesVectorsAndUnitAxesDense) {
  const auto vec = WeightTensor::of_floats(dims({3}), std::vector<float>{1.0F, 2.0F, 3.0F});
  EXPECT_TRUE(vec.transposed().readable_in_place());
  EXPECT_EQ(vec.transposed(), vec);
  // [1, 3] -> [3, 1]: the same bytes in the same order, so no strides are needed.
  const auto row = WeightTensor::of_floats(dims({1, 3}), std::vector<float>{1.0F, 2.0F, 3.0F});
  const WeightTensor col = row.transposed();
  EXPECT_TRUE(col.readable_in_place());
  EXPECT_EQ(col.shape(), dims({3, 1}));
  EXPECT_EQ(col.floats().data(), row.floats().data());
}

TEST(WeightTensor, EqualityAndReleaseSeeThroughStrides) {
  auto owner = std::make_shared<RecordingBytes>(64);
  const WeightTensor v = two_by_three(owner).transposed();
  EXPECT_EQ(v, v.contiguous());
  EXPECT_EQ(v, WeightTensor::of_floats(dims({3, 2}),
                                       std::vector<float>{0.0F, 3.0F, 1.0F, 4.0F, 2.0F, 5.0F}));
  EXPECT_NE(v, WeightTensor::of_floats(dims({3, 2}),
                                       std::vector<float>{0.0F, 1.0F, 2.0F, 3.0F, 4.0F, 5.0F}));
  // Release hands back every byte the view reads.
  v.release();
  ASSERT_EQ(owner->released.size(), 1U);
  EXPECT_EQ(owner->released[0].data(), owner->data() + 16);
  EXPECT_EQ(owner->released[0].size(), 24U);
}

TEST(WeightTensor, ATransposeOfATensorThatDoesNotFillItsShapeOnlyReversesTheShape) {
  // Five elements for a [2, 3] shape: check_weights reports the count; transposed adds no
  // strides that would read past the elements.
  const auto t =
      WeightTensor::of_floats(dims({2, 3}), std::vector<float>{1.0F, 2.0F, 3.0F, 4.0F, 5.0F});
  const WeightTensor v = t.transposed();
  EXPECT_EQ(v.shape(), dims({3, 2}));
  EXPECT_TRUE(v.readable_in_place());
  EXPECT_EQ(v.size(), 5U);
  EXPECT_EQ(v.floats().data(), t.floats().data());
}

TEST(WeightStore, FindsTensorsAndAttributesByNodeAndName) {
  WeightStore store;
  store.tensors[{3, "weight"}] = WeightTensor::of_floats(dims({1}), std::vector<float>{2.0F});
  store.attributes[{3, "epsilon"}] = 1e-5;
  ASSERT_NE(store.find_tensor(3, "weight"), nullptr);
  EXPECT_EQ(store.find_tensor(3, "weight")->floats()[0], 2.0F);
  EXPECT_EQ(store.find_tensor(3, "bias"), nullptr);
  EXPECT_EQ(store.find_tensor(4, "weight"), nullptr);
  EXPECT_EQ(store.find_attribute(3, "epsilon"), 1e-5);
  EXPECT_EQ(store.find_attribute(3, "weight"), std::nullopt);
}

TEST(DType, SpellingsAndWidthsRoundTrip) {
  for (const DType d : {DType::float32, DType::int64, DType::boolean}) {
    EXPECT_EQ(parse_enum<DType>(kDTypeNames, to_string(d), "dtype"), d);
  }
  EXPECT_EQ(to_string(DType::boolean), "bool");
  EXPECT_EQ(size_of(DType::float32), 4U);
  EXPECT_EQ(size_of(DType::int64), 8U);
  EXPECT_EQ(size_of(DType::boolean), 1U);
  EXPECT_FALSE(parse_enum<DType>(kDTypeNames, "float64", "dtype").has_value());
}

}  // namespace
}  // namespace nnplan::ir

namespace nnplan::ir {
namespace {

TEST(CheckWeights, AConstsValueHasTheConstsDtype) {
  Graph g;
  g.output_ids = {1};
  g.nodes.push_back(Node{.id = 0, .kind = OpKind::input, .shape = dims({1})});
  g.nodes.push_back(Node{.id = 1,
                         .kind = OpKind::const_,
                         .shape = dims({2}),
                         .params = ConstParams{dims({2})},
                         .dtype = DType::int64});
  WeightStore store;
  store.tensors[{1, "value"}] = WeightTensor::of_ints(dims({2}), std::vector<std::int64_t>{4, -4});
  EXPECT_TRUE(check_weights(g, store).has_value());
  store.tensors[{1, "value"}] = WeightTensor::of_floats(dims({2}), std::vector<float>{4, -4});
  const auto refused = check_weights(g, store);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().message,
            "node 1 (const): payload value: dtype float32, expected int64");
}

}  // namespace
}  // namespace nnplan::ir
