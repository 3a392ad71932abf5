// ONNX operators that import as several IR nodes, run end to end (import, plan under checked_cpu
// and fast_cpu, compile, run): the Reduce operators against a float64 oracle written here from
// ONNX's definitions, over several axes with and without keepdims (ReduceLogSumExp stays finite
// where exp(x) overflows float32 and keeps -inf and inf slices exact); bilinear Resize against the
// values PyTorch's F.interpolate gives with align_corners False and True; a classification head
// ending in ArgMax gives int64 indices under both profiles; the two losses with class weights and
// ignore_index against a float64 oracle, and a target outside the classes refused by a guard; a
// runtime Where mask made by a comparison; Conv and ConvTranspose whose weight and bias are graph
// inputs (weights as values) giving what the same model with them as initializers gives; Einsum
// (contractions, batch axes, sums, transposes, an ellipsis, three operands) against a float64
// sum over every assignment of its labels; SiLU after a convolution and a depthwise one against
// the same model imported as sigmoid and mul nodes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../format/onnx/onnx_test_models.hpp"
#include "nnplan/runtime/executor.hpp"
#include "runtime_test_support.hpp"

namespace nnplan::runtime {
// A namespace of this file's own: the unity build puts several test files in one translation
// unit, and their file-local helpers must not meet.
namespace onnx_operators_run_test {
namespace {

using format::onnx_test::attr_i;
using format::onnx_test::attr_ints;
using format::onnx_test::attr_s;
using format::onnx_test::Model;

constexpr float kInf = std::numeric_limits<float>::infinity();

// Imports `m`, plans it under `profile`, compiles and runs it on `inputs`: the outputs or the
// run's error; none (and a test failure) when a step before the run fails.
std::optional<Expected<std::vector<Tensor>>> run_inputs(const Model& m,
                                                        const std::vector<NamedTensor>& inputs,
                                                        backend::MaintainedProfile profile) {
  auto imported = m.import();
  if (!imported) {
    ADD_FAILURE() << imported.error().message;
    return std::nullopt;
  }
  auto model =
      testing::planned(backend::make_profile(profile),
                       std::make_shared<const ir::CheckedGraph>(std::move(imported->checked)),
                       std::make_shared<const ir::WeightStore>(std::move(imported->payloads)));
  if (!model) return std::nullopt;
  auto buffer = testing::compiled(model);
  if (!buffer) return std::nullopt;
  Executor exec(std::move(*buffer));
  return exec.run(inputs);
}

// The same on x bound to input "x": the outputs, or none (and a test failure) when a step fails.
std::optional<std::vector<Tensor>> run_model(const Model& m, const Tensor& x,
                                             backend::MaintainedProfile profile) {
  auto out = run_inputs(m, {{"x", x}}, profile);
  if (!out) return std::nullopt;
  if (!*out) {
    ADD_FAILURE() << out->error().message;
    return std::nullopt;
  }
  return std::move(**out);
}

// Runs a one-node model `op` over x [2, 3, 4] with `axes` and `keepdims` under `profile`.
std::vector<float> run_reduce(const std::string& op, const std::vector<std::int64_t>& axes,
                              bool keepdims, const Tensor& x, backend::MaintainedProfile profile) {
  Model m(13);
  m.input("x", {2, 3, 4}).output("y");
  auto& node = m.node(op, {"x"}, {"y"}, "r");
  if (!axes.empty()) attr_ints(node, "axes", axes);
  attr_i(node, "keepdims", keepdims ? 1 : 0);
  const auto out = run_model(m, x, profile);
  return out ? (*out)[0].floats() : std::vector<float>{};
}

// The float64 reduction of x [2, 3, 4] over `axes` (every axis when empty), in row-major order
// of the kept elements: `finish(values of one slice)`.
std::vector<double> oracle(const Tensor& x, std::vector<std::int64_t> axes,
                           const std::function<double(const std::vector<double>&)>& finish) {
  const std::int64_t dims[3] = {2, 3, 4};
  bool reduced[3] = {axes.empty(), axes.empty(), axes.empty()};
  for (std::int64_t a : axes)
    reduced[a < 0 ? a + 3 : a] = true;
  std::vector<double> out;
  for (std::int64_t i = 0; i < (reduced[0] ? 1 : 2); ++i) {
    for (std::int64_t j = 0; j < (reduced[1] ? 1 : 3); ++j) {
      for (std::int64_t k = 0; k < (reduced[2] ? 1 : 4); ++k) {
        std::vector<double> slice;
        for (std::int64_t a = 0; a < dims[0]; ++a) {
          for (std::int64_t b = 0; b < dims[1]; ++b) {
            for (std::int64_t c = 0; c < dims[2]; ++c) {
              if ((!reduced[0] && a != i) || (!reduced[1] && b != j) || (!reduced[2] && c != k)) {
                continue;
              }
              slice.push_back(x.floats()[static_cast<std::size_t>((a * 3 + b) * 4 + c)]);
            }
          }
        }
        out.push_back(finish(slice));
      }
    }
  }
  return out;
}

double sum_of(const std::vector<double>& v, const std::function<double(double)>& f) {
  double s = 0;
  for (double e : v)
    s += f(e);
  return s;
}

struct ReduceCase {
  std::string op;
  std::function<double(const std::vector<double>&)> finish;
};

std::vector<ReduceCase> cases() {
  const auto id = [](double v) { return v; };
  return {
      {"ReduceSum", [=](const auto& v) { return sum_of(v, id); }},
      {"ReduceMean", [=](const auto& v) { return sum_of(v, id) / static_cast<double>(v.size()); }},
      {"ReduceMax", [](const auto& v) { return *std::max_element(v.begin(), v.end()); }},
      {"ReduceMin", [](const auto& v) { return *std::min_element(v.begin(), v.end()); }},
      {"ReduceProd",
       [](const auto& v) {
         double p = 1;
         for (double e : v)
           p *= e;
         return p;
       }},
      {"ReduceSumSquare", [](const auto& v) { return sum_of(v, [](double e) { return e * e; }); }},
      {"ReduceL1", [](const auto& v) { return sum_of(v, [](double e) { return std::fabs(e); }); }},
      {"ReduceL2",
       [](const auto& v) { return std::sqrt(sum_of(v, [](double e) { return e * e; })); }},
      {"ReduceLogSum", [=](const auto& v) { return std::log(sum_of(v, id)); }},
      {"ReduceLogSumExp",
       [](const auto& v) { return std::log(sum_of(v, [](double e) { return std::exp(e); })); }},
  };
}

TEST(OnnxReduceRun, EveryReduceOperatorMatchesItsDefinition) {
  // Positive inputs, so that ReduceLogSum is defined and ReduceProd stays near 1.
  const Tensor x = testing::seeded_tensor(ir::Shape{{2, 3, 4}}, 31, 0.5F, 1.5F);
  const std::vector<std::vector<std::int64_t>> axes_cases = {{}, {1}, {0, 2}, {-1}, {2, 0, 1}};
  for (const ReduceCase& c : cases()) {
    for (const auto& axes : axes_cases) {
      for (const bool keepdims : {true, false}) {
        const std::vector<double> want = oracle(x, axes, c.finish);
        for (const auto profile :
             {backend::MaintainedProfile::checked_cpu, backend::MaintainedProfile::fast_cpu}) {
          SCOPED_TRACE(c.op + " axes " + std::to_string(axes.size()) + " keepdims " +
                       std::to_string(keepdims) + " " + std::string(backend::to_string(profile)));
          const std::vector<float> got = run_reduce(c.op, axes, keepdims, x, profile);
          ASSERT_EQ(got.size(), want.size());
          for (std::size_t i = 0; i < got.size(); ++i)
            EXPECT_NEAR(got[i], want[i], 1e-5 * std::fabs(want[i]) + 1e-6) << "element " << i;
        }
      }
    }
  }
}

// exp(100) overflows float32; the shifted form gives 100 + log(sum(exp(x - 100))). A slice of
// -inf gives -inf, one holding inf gives inf, as log(sum(exp(x))) does in exact arithmetic.
TEST(OnnxReduceRun, ReduceLogSumExpNeitherOverflowsNorLosesInfinities) {
  std::vector<float> values(24, 0.0F);
  for (std::size_t i = 0; i < 4; ++i)
    values[i] = 100.0F + static_cast<float>(i);  // slice (0, 0, ·)
  for (std::size_t i = 4; i < 8; ++i)
    values[i] = -kInf;  // slice (0, 1, ·)
  values[8] = kInf;     // slice (0, 2, ·)
  const Tensor x = Tensor::of(ir::Shape{{2, 3, 4}}, values);
  for (const auto profile :
       {backend::MaintainedProfile::checked_cpu, backend::MaintainedProfile::fast_cpu}) {
    const std::vector<float> got = run_reduce("ReduceLogSumExp", {2}, false, x, profile);
    ASSERT_EQ(got.size(), 6U);
    const double want = 103.0 + std::log(1.0 + std::exp(-1.0) + std::exp(-2.0) + std::exp(-3.0));
    EXPECT_NEAR(got[0], want, 1e-4);
    EXPECT_EQ(got[1], -kInf);
    EXPECT_EQ(got[2], kInf);
    EXPECT_NEAR(got[3], std::log(4.0), 1e-5);
  }
}

// Runs a one-node Resize of x [1, 1, 2, 2] by 2 on both spatial axes, `mode` and `ctm`.
std::vector<float> run_resize(const std::string& mode, const std::string& ctm,
                              backend::MaintainedProfile profile) {
  Model m(13);
  m.input("x", {1, 1, 2, 2}).output("y");
  m.init("roi", {0}, {});
  m.init("scales", {4}, {1.0F, 1.0F, 2.0F, 2.0F});
  auto& node = m.node("Resize", {"x", "roi", "scales"}, {"y"}, "up");
  format::onnx_test::attr_s(node, "mode", mode);
  format::onnx_test::attr_s(node, "coordinate_transformation_mode", ctm);
  const auto out =
      run_model(m, Tensor::of(ir::Shape{{1, 1, 2, 2}}, std::vector<float>{1, 2, 3, 4}), profile);
  return out ? (*out)[0].floats() : std::vector<float>{};
}

// torch.nn.functional.interpolate(x, scale_factor=2, mode="bilinear", align_corners=...) of
// [[1, 2], [3, 4]], which torch.onnx exports as Resize linear with half_pixel (False) or
// align_corners (True).
TEST(OnnxResizeRun, BilinearMatchesPyTorch) {
  const std::vector<double> half_pixel = {1.0, 1.25, 1.75, 2.0, 1.5, 1.75, 2.25, 2.5,
                                          2.5, 2.75, 3.25, 3.5, 3.0, 3.25, 3.75, 4.0};
  const double t = 1.0 / 3.0;
  const std::vector<double> corners = {1,     1 + t,     1 + 2 * t, 2,         1 + 2 * t, 2,
                                       2 + t, 2 + 2 * t, 2 + t,     2 + 2 * t, 3,         3 + t,
                                       3,     3 + t,     3 + 2 * t, 4};
  for (const auto profile :
       {backend::MaintainedProfile::checked_cpu, backend::MaintainedProfile::fast_cpu}) {
    SCOPED_TRACE(std::string(backend::to_string(profile)));
    for (const auto& [ctm, want] :
         {std::pair{"half_pixel", half_pixel}, std::pair{"align_corners", corners}}) {
      const std::vector<float> got = run_resize("linear", ctm, profile);
      ASSERT_EQ(got.size(), want.size()) << ctm;
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-6) << ctm << " element " << i;
    }
  }
}

// logits = x · W, then ArgMax over the classes: the int64 index of each row's largest logit.
TEST(OnnxArgMaxRun, AClassificationHeadGivesInt64Indices) {
  Model m(13);
  m.input("x", {3, 2}).output("label");
  m.init("w", {2, 4}, {1, 0, 0, 2, 0, 1, 3, 0});
  m.node("MatMul", {"x", "w"}, {"logits"}, "fc");
  auto& arg = m.node("ArgMax", {"logits"}, {"label"}, "argmax");
  attr_i(arg, "axis", 1);
  attr_i(arg, "keepdims", 0);
  for (const auto profile :
       {backend::MaintainedProfile::checked_cpu, backend::MaintainedProfile::fast_cpu}) {
    SCOPED_TRACE(std::string(backend::to_string(profile)));
    // Rows (1, 0), (0, 1), (1, 1): logits (1, 0, 0, 2), (0, 1, 3, 0), (1, 1, 3, 2).
    const auto out =
        run_model(m, Tensor::of(ir::Shape{{3, 2}}, std::vector<float>{1, 0, 0, 1, 1, 1}), profile);
    ASSERT_TRUE(out.has_value());
    ASSERT_EQ(out->size(), 1U);
    EXPECT_EQ((*out)[0].dtype(), ir::DType::int64);
    EXPECT_EQ((*out)[0].ints(), (std::vector<std::int64_t>{3, 2, 2}));
  }
}

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss with a class weight and ignore_index, each
// reduction, against a float64 oracle written here from ONNX's definition, under both profiles.
TEST(OnnxLossRun, NllAndSoftmaxCrossEntropyMatchTheirDefinition) {
  // x [N=3, C=4, d=2], targets [3, 2] with one ignored element (index -1) and weights [4].
  const Tensor x =
      Tensor::of(ir::Shape{{3, 4, 2}},
                 std::vector<float>{-0.5F,  -1.5F, -2.F,  -0.25F, -1.F,  -3.F,  -0.75F, -2.5F,
                                    -1.25F, -0.5F, -2.F,  -1.F,   -0.1F, -4.F,  -3.F,   -0.2F,
                                    -2.F,   -1.F,  -0.3F, -0.6F,  -1.1F, -2.2F, -0.9F,  -1.7F});
  const Tensor t = Tensor::of(ir::Shape{{3, 2}}, std::vector<std::int64_t>{0, 3, -1, 1, 2, 3});
  const std::vector<double> w = {0.5, 2.0, 1.0, 3.0};
  for (const bool softmax : {false, true}) {
    // log-probabilities: x itself (NLL) or its log_softmax over the classes (cross entropy).
    std::vector<double> logp(24);
    for (std::size_t n = 0; n < 3; ++n) {
      for (std::size_t d = 0; d < 2; ++d) {
        double sum = 0.0;
        for (std::size_t c = 0; c < 4; ++c)
          sum += std::exp(static_cast<double>(x.floats()[(n * 4 + c) * 2 + d]));
        for (std::size_t c = 0; c < 4; ++c) {
          const double v = x.floats()[(n * 4 + c) * 2 + d];
          logp[(n * 4 + c) * 2 + d] = softmax ? v - std::log(sum) : v;
        }
      }
    }
    std::vector<double> loss(6, 0.0);
    double weight_sum = 0.0;
    for (std::size_t i = 0; i < 6; ++i) {
      const std::int64_t k = t.ints()[i];
      if (k == -1) continue;
      const std::size_t n = i / 2;
      const std::size_t d = i % 2;
      loss[i] = -logp[(n * 4 + static_cast<std::size_t>(k)) * 2 + d] * w[k];
      weight_sum += w[k];
    }
    double total = 0.0;
    for (double l : loss)
      total += l;
    for (const std::string reduction : {"none", "sum", "mean"}) {
      Model m(13);
      m.input("x", {3, 4, 2}).input("t", {3, 2}, onnx::TensorProto_DataType_INT64).output("y");
      m.init("w", {4}, {0.5F, 2.0F, 1.0F, 3.0F});
      auto& node = m.node(softmax ? "SoftmaxCrossEntropyLoss" : "NegativeLogLikelihoodLoss",
                          {"x", "t", "w"}, {"y"}, "loss");
      format::onnx_test::attr_s(node, "reduction", reduction);
      attr_i(node, "ignore_index", -1);
      for (const auto profile :
           {backend::MaintainedProfile::checked_cpu, backend::MaintainedProfile::fast_cpu}) {
        SCOPED_TRACE(std::string(softmax ? "sce " : "nll ") + reduction + " " +
                     std::string(backend::to_string(profile)));
        const auto out = run_inputs(m, {{"x", x}, {"t", t}}, profile);
        ASSERT_TRUE(out && *out) << (out ? (*out).error().message : "");
        const std::vector<float>& y = (**out)[0].floats();
        const std::vector<double> want = reduction == "none" ? loss
                                         : reduction == "sum"
                                             ? std::vector<double>{total}
                                             : std::vector<double>{total / weight_sum};
        ASSERT_EQ(y.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i)
          EXPECT_NEAR(y[i], want[i], 1e-5 + 1e-5 * std::abs(want[i])) << i;
      }
    }
  }
}

// A target outside the classes (not ignore_index) stops the run before anything reads it: the
// gather's guard names the node and the index.
TEST(OnnxLossRun, ATargetOutsideTheClassesIsAGuardFailure) {
  Model m(13);
  m.input("x", {2, 3}).input("t", {2}, onnx::TensorProto_DataType_INT64).output("y");
  m.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}, "nll");
  const Tensor x = Tensor::of(ir::Shape{{2, 3}}, std::vector<float>(6, -1.0F));
  const Tensor t = Tensor::of(ir::Shape{{2}}, std::vector<std::int64_t>{1, 3});
  const auto out = run_inputs(m, {{"x", x}, {"t", t}}, backend::MaintainedProfile::checked_cpu);
  ASSERT_TRUE(out.has_value());
  ASSERT_FALSE(out->has_value());
  EXPECT_EQ(out->error().kind, ErrorKind::guard_failed);
  EXPECT_NE(out->error().message.find("'nll'"), std::string::npos) << out->error().message;
  EXPECT_NE(out->error().message.find("index 3 (element 1 of the indices) is out of range for "
                                      "axis 1 of extent 3"),
            std::string::npos)
      << out->error().message;
}

// A runtime condition selects between two values, and comparisons make it, under both profiles
// (they run on the reference provider under fast_cpu: oneDNN has no bool values).
TEST(OnnxWhereRun, ARuntimeMaskFromAComparison) {
  Model m(13);
  m.input("x", {2, 3}).output("y");
  m.init("zero", {}, {0.0F});
  m.init("ten", {1, 3}, {10.0F, 20.0F, 30.0F});
  m.node("Greater", {"x", "zero"}, {"pos"}, "gt");
  m.node("Where", {"pos", "x", "ten"}, {"y"}, "where");
  const Tensor x =
      Tensor::of(ir::Shape{{2, 3}}, std::vector<float>{1.0F, -1.0F, 2.0F, -kInf, 0.0F, 5.0F});
  for (const auto profile :
       {backend::MaintainedProfile::checked_cpu, backend::MaintainedProfile::fast_cpu}) {
    const auto out = run_model(m, x, profile);
    ASSERT_TRUE(out.has_value());
    EXPECT_EQ((*out)[0].floats(), (std::vector<float>{1.0F, 20.0F, 2.0F, 10.0F, 20.0F, 5.0F}));
  }
}

// The decomposed operators against values worked out by hand from ONNX's definitions, NaN and
// infinities included, under both profiles.
TEST(OnnxDecompositionsRun, ThresholdShrinkClassifyHardmaxTile) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  const Tensor x =
      Tensor::of(ir::Shape{{2, 3}}, std::vector<float>{0.5F, 2.0F, kNaN, -kInf, -0.75F, 1.0F});
  const auto run_unary = [&](const std::string& op, backend::MaintainedProfile profile) {
    Model m(17);
    m.input("x", {2, 3}).output("y");
    m.node(op, {"x"}, {"y"}, "n");
    return run_model(m, x, profile);
  };
  for (const auto profile :
       {backend::MaintainedProfile::checked_cpu, backend::MaintainedProfile::fast_cpu}) {
    SCOPED_TRACE(std::string(backend::to_string(profile)));
    auto t = run_unary("ThresholdedRelu", profile);  // alpha 1: kept where x > 1
    ASSERT_TRUE(t);
    EXPECT_EQ((*t)[0].floats(), (std::vector<float>{0, 2.0F, 0, 0, 0, 0}));
    auto s = run_unary("Shrink", profile);  // lambd 0.5, bias 0
    ASSERT_TRUE(s);
    EXPECT_EQ((*s)[0].floats(), (std::vector<float>{0, 2.0F, 0, -kInf, -0.75F, 1.0F}));
    auto nan = run_unary("IsNaN", profile);
    ASSERT_TRUE(nan);
    EXPECT_EQ((*nan)[0].bools(), (std::vector<std::uint8_t>{0, 0, 1, 0, 0, 0}));
    auto inf = run_unary("IsInf", profile);
    ASSERT_TRUE(inf);
    EXPECT_EQ((*inf)[0].bools(), (std::vector<std::uint8_t>{0, 0, 0, 1, 0, 0}));
    auto hard = run_unary("Hardmax", profile);  // the first NaN wins its row, as argmax's
    ASSERT_TRUE(hard);
    EXPECT_EQ((*hard)[0].floats(), (std::vector<float>{0, 0, 1, 0, 0, 1}));
    Model tile(17);
    tile.input("x", {2, 3}).output("y").init_i64("r", {1, 2});
    tile.node("Tile", {"x", "r"}, {"y"}, "t");
    auto tiled = run_model(tile, x, profile);
    ASSERT_TRUE(tiled);
    const std::vector<float>& v = (*tiled)[0].floats();
    ASSERT_EQ(v.size(), 12U);
    for (std::size_t r = 0; r < 2; ++r) {
      for (std::size_t c = 0; c < 6; ++c) {
        const float want = x.floats()[r * 3 + c % 3];
        EXPECT_TRUE(v[r * 6 + c] == want || (std::isnan(want) && std::isnan(v[r * 6 + c])));
      }
    }
  }
}

// Pad in each mode, and cropping, against numpy.pad's values for [[1, 2, 3], [4, 5, 6]].
TEST(OnnxPadRun, EveryModeMatchesNumpy) {
  const Tensor x = Tensor::of(ir::Shape{{2, 3}}, std::vector<float>{1, 2, 3, 4, 5, 6});
  const auto run_pad = [&](const std::string& mode, std::vector<std::int64_t> pads,
                           backend::MaintainedProfile profile) {
    Model m(13);
    m.input("x", {2, 3}).output("y").init_i64("pads", std::move(pads));
    m.init("v", {}, {-1.0F});
    format::onnx_test::attr_s(m.node("Pad", {"x", "pads", "v"}, {"y"}, "pad"), "mode", mode);
    auto out = run_model(m, x, profile);
    return out ? (*out)[0].floats() : std::vector<float>{};
  };
  for (const auto profile :
       {backend::MaintainedProfile::checked_cpu, backend::MaintainedProfile::fast_cpu}) {
    // numpy.pad(x, ((0, 0), (2, 1)), mode) for reflect and edge; constant -1 with ((1, 0), (0, 1)).
    EXPECT_EQ(run_pad("reflect", {0, 2, 0, 1}, profile),
              (std::vector<float>{3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5}));
    EXPECT_EQ(run_pad("edge", {0, 2, 0, 1}, profile),
              (std::vector<float>{1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6}));
    EXPECT_EQ(run_pad("constant", {1, 0, 0, 1}, profile),
              (std::vector<float>{-1, -1, -1, -1, 1, 2, 3, -1, 4, 5, 6, -1}));
    // A negative pad crops: x[:, 1:] with a column of -1 after it.
    EXPECT_EQ(run_pad("constant", {0, -1, 0, 1}, profile),
              (std::vector<float>{2, 3, -1, 5, 6, -1}));
  }
}

// `got` is `want` bit for bit under checked_cpu (the same float32 operations), and within
// oneDNN's rounding under fast_cpu.
void expect_same_as(const std::vector<float>& got, const std::vector<float>& want,
                    backend::MaintainedProfile profile) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (profile == backend::MaintainedProfile::checked_cpu) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::abs(want[i]))) << "element " << i;
    }
  }
}

// Weights as values: a Conv (with a relu after it, which fast_cpu fuses) and a ConvTranspose whose
// weight and bias arrive as graph inputs give, under both profiles, what the same models give
// with them as initializers; doubled weights and bias give double the output.
// Einsum by its definition: for every assignment of the labels, the product of the operands'
// elements, summed into the output element the output labels pick (labels: letters, no ellipsis).
std::vector<double> einsum_oracle(const std::string& equation,
                                  const std::vector<const Tensor*>& operands) {
  const std::size_t arrow = equation.find("->");
  std::vector<std::string> terms;
  std::string term;
  for (const char c : equation.substr(0, arrow)) {
    if (c == ',') {
      terms.push_back(term);
      term.clear();
    } else {
      term += c;
    }
  }
  terms.push_back(term);
  const std::string out = equation.substr(arrow + 2);
  std::map<char, std::size_t> extent;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    for (std::size_t a = 0; a < terms[i].size(); ++a)
      extent[terms[i][a]] = static_cast<std::size_t>(operands[i]->shape.dims[a]);
  }
  std::vector<char> labels;
  for (const auto& [l, e] : extent)
    labels.push_back(l);
  std::size_t out_count = 1;
  for (const char l : out)
    out_count *= extent[l];
  std::vector<double> result(out_count, 0.0);
  std::map<char, std::size_t> at;
  const auto offset = [&](const std::string& t) {
    std::size_t o = 0;
    for (const char l : t)
      o = o * extent[l] + at[l];
    return o;
  };
  const std::function<void(std::size_t)> walk = [&](std::size_t k) {
    if (k == labels.size()) {
      double p = 1.0;
      for (std::size_t i = 0; i < terms.size(); ++i)
        p *= operands[i]->floats()[offset(terms[i])];
      result[offset(out)] += p;
      return;
    }
    for (at[labels[k]] = 0; at[labels[k]] < extent[labels[k]]; ++at[labels[k]])
      walk(k + 1);
  };
  walk(0);
  return result;
}

struct EinsumCase {
  std::string equation;         // what the node says
  std::string oracle_equation;  // the same with letters only
  std::vector<std::vector<std::int64_t>> shapes;
};

TEST(OnnxEinsumRun, MatchesItsDefinition) {
  const std::vector<EinsumCase> cases = {
      {"ij,jk->ik", "ij,jk->ik", {{3, 4}, {4, 5}}},
      // MaxViT's attention: scores, then the weighted values.
      {"B G H I D, B G H J D -> B G H I J",
       "BGHID,BGHJD->BGHIJ",
       {{1, 2, 3, 4, 5}, {1, 2, 3, 6, 5}}},
      {"B G H I J, B G H J D -> B G H I D",
       "BGHIJ,BGHJD->BGHID",
       {{1, 2, 3, 4, 6}, {1, 2, 3, 6, 5}}},
      {"ij->ji", "ij->ji", {{3, 4}}},
      {"ijk->i", "ijk->i", {{2, 3, 4}}},
      {"i,i", "i,i->", {{5}, {5}}},
      {"ij,jk", "ij,jk->ik", {{2, 3}, {3, 4}}},
      {"i,j->ij", "i,j->ij", {{3}, {4}}},
      {"...ij,...jk->...ik", "aij,ajk->aik", {{2, 3, 4}, {2, 4, 5}}},
      {"bij,bkj->bki", "bij,bkj->bki", {{2, 3, 4}, {2, 5, 4}}},
      // A label summed in one operand only, and three operands.
      {"ijm,jk->ik", "ijm,jk->ik", {{2, 3, 2}, {3, 4}}},
      {"ij,jk,kl->li", "ij,jk,kl->li", {{2, 3}, {3, 4}, {4, 2}}},
  };
  for (const EinsumCase& c : cases) {
    SCOPED_TRACE(c.equation);
    Model m(12);
    std::vector<std::string> names;
    std::vector<Tensor> tensors;
    std::vector<NamedTensor> inputs;
    for (std::size_t i = 0; i < c.shapes.size(); ++i) {
      names.push_back("x" + std::to_string(i));
      m.input(names.back(), c.shapes[i]);
      ir::Shape shape;
      for (const std::int64_t d : c.shapes[i])
        shape.dims.push_back(static_cast<ir::Dim>(d));
      tensors.push_back(testing::seeded_tensor(shape, 40 + i));
    }
    for (std::size_t i = 0; i < tensors.size(); ++i)
      inputs.push_back({names[i], tensors[i]});
    m.output("y");
    attr_s(m.node("Einsum", names, {"y"}, "e"), "equation", c.equation);
    std::vector<const Tensor*> operands;
    for (const Tensor& t : tensors)
      operands.push_back(&t);
    const std::vector<double> want = einsum_oracle(c.oracle_equation, operands);
    for (const auto profile :
         {backend::MaintainedProfile::checked_cpu, backend::MaintainedProfile::fast_cpu}) {
      auto out = run_inputs(m, inputs, profile);
      ASSERT_TRUE(out.has_value());
      ASSERT_TRUE(out->has_value()) << out->error().message;
      const std::vector<float>& got = (**out)[0].floats();
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t k = 0; k < got.size(); ++k)
        EXPECT_NEAR(got[k], want[k], 1e-5) << k;
    }
  }
}

TEST(OnnxWeightsAsValuesRun, ConvAndConvTransposeTakeTheirWeightsAtRunTime) {
  for (const bool transposed : {false, true}) {
    const std::vector<std::int64_t> ws =
        transposed ? std::vector<std::int64_t>{3, 4, 3, 3} : std::vector<std::int64_t>{4, 3, 3, 3};
    const std::int64_t out_c = 4;
    const std::string op = transposed ? "ConvTranspose" : "Conv";
    const std::vector<float> w_values = [&] {
      std::vector<float> v(static_cast<std::size_t>(ws[0] * ws[1] * ws[2] * ws[3]));
      for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = 0.25F * static_cast<float>(std::sin(0.7 * static_cast<double>(i)));
      return v;
    }();
    const std::vector<float> b_values = {0.5F, -0.25F, 0.125F, 1.0F};
    const auto build = [&](bool as_inputs) {
      Model m(13);
      m.input("x", {2, 3, 6, 5}).output("y");
      if (as_inputs) {
        m.input("w", ws).input("b", {out_c});
      } else {
        m.init("w", ws, w_values).init("b", {out_c}, b_values);
      }
      auto& n = m.node(op, {"x", "w", "b"}, {"c"}, "conv");
      attr_ints(n, "pads", {1, 0, 1, 1});
      m.node("Relu", {"c"}, {"y"}, "relu");
      return m;
    };
    ir::Shape x_shape{{2, 3, 6, 5}};
    std::vector<float> xv(2 * 3 * 6 * 5);
    for (std::size_t i = 0; i < xv.size(); ++i)
      xv[i] = static_cast<float>(std::cos(0.31 * static_cast<double>(i)));
    const Tensor x = Tensor::of(x_shape, xv);
    const Tensor w =
        Tensor::of(ir::Shape{{static_cast<ir::Dim>(ws[0]), static_cast<ir::Dim>(ws[1]),
                              static_cast<ir::Dim>(ws[2]), static_cast<ir::Dim>(ws[3])}},
                   w_values);
    const Tensor b = Tensor::of(ir::Shape{{static_cast<ir::Dim>(out_c)}}, b_values);
    for (const auto profile :
         {backend::MaintainedProfile::checked_cpu, backend::MaintainedProfile::fast_cpu}) {
      SCOPED_TRACE(op + " " + std::string(backend::to_string(profile)));
      const auto want = run_model(build(false), x, profile);
      const auto got = run_inputs(build(true), {{"x", x}, {"w", w}, {"b", b}}, profile);
      ASSERT_TRUE(want && got && got->has_value());
      const std::vector<float>& g = (**got)[0].floats();
      const std::vector<float>& e = (*want)[0].floats();
      expect_same_as(g, e, profile);
      // Doubling the weight and the bias doubles the pre-activation (and the relu of it).
      std::vector<float> w2 = w_values;
      for (float& v : w2)
        v *= 2;
      std::vector<float> b2 = b_values;
      for (float& v : b2)
        v *= 2;
      const auto twice = run_inputs(
          build(true), {{"x", x}, {"w", Tensor::of(w.shape, w2)}, {"b", Tensor::of(b.shape, b2)}},
          profile);
      ASSERT_TRUE(twice && twice->has_value());
      for (std::size_t i = 0; i < g.size(); ++i)
        EXPECT_NEAR((**twice)[0].floats()[i], 2 * e[i], 1e-5 * (1 + std::abs(e[i])));
    }
  }
}

// SiLU as exporters write it after a convolution and after a depthwise one (Sigmoid then Mul by
// its input: one silu node each, which fast_cpu fuses into the convolution) gives what the same
// model gives with each Sigmoid's value also a graph output (a sigmoid and a mul node each): the
// same bits under checked_cpu, within float32 rounding under fast_cpu.
TEST(OnnxSiluRun, ConvThenSiluGivesWhatSigmoidAndMulGive) {
  const auto build = [](bool sigmoids_are_outputs) {
    Model m(17);
    m.input("x", {1, 3, 9, 7}).output("y");
    std::vector<float> w(4 * 3 * 3 * 3);
    for (std::size_t i = 0; i < w.size(); ++i)
      w[i] = 0.4F * static_cast<float>(std::sin(0.9 * static_cast<double>(i)));
    std::vector<float> dw(4 * 1 * 3 * 3);
    for (std::size_t i = 0; i < dw.size(); ++i)
      dw[i] = 0.5F * static_cast<float>(std::cos(1.3 * static_cast<double>(i)));
    m.init("w", {4, 3, 3, 3}, w).init("b", {4}, {0.5F, -0.25F, 0.125F, -1.0F});
    m.init("dw", {4, 1, 3, 3}, dw);
    attr_ints(m.node("Conv", {"x", "w", "b"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
    m.node("Sigmoid", {"c"}, {"s"}, "sigmoid");
    m.node("Mul", {"c", "s"}, {"a"}, "mul");
    auto& d = m.node("Conv", {"a", "dw"}, {"d"}, "depthwise");
    attr_ints(d, "pads", {1, 1, 1, 1});
    attr_i(d, "group", 4);
    m.node("Sigmoid", {"d"}, {"t"}, "sigmoid2");
    m.node("Mul", {"t", "d"}, {"y"}, "mul2");
    if (sigmoids_are_outputs) m.output("s").output("t");
    return m;
  };
  std::vector<float> xv(3 * 9 * 7);
  for (std::size_t i = 0; i < xv.size(); ++i)
    xv[i] = 3.0F * static_cast<float>(std::cos(0.37 * static_cast<double>(i)));
  const Tensor x = Tensor::of(ir::Shape{{1, 3, 9, 7}}, xv);
  const auto reference = run_model(build(true), x, backend::MaintainedProfile::checked_cpu);
  ASSERT_TRUE(reference.has_value());
  const std::vector<float>& want = (*reference)[0].floats();
  for (const auto profile :
       {backend::MaintainedProfile::checked_cpu, backend::MaintainedProfile::fast_cpu}) {
    SCOPED_TRACE(std::string(backend::to_string(profile)));
    const auto got = run_model(build(false), x, profile);
    ASSERT_TRUE(got.has_value());
    ASSERT_EQ(got->size(), 1U);
    expect_same_as((*got)[0].floats(), want, profile);
  }
}

// Weights as values: BatchNormalization's statistics and LayerNormalization's Scale and B as
// graph inputs give, under both profiles, what the same model gives with them as initializers
// (the same float32 operations: bit for bit under checked_cpu).
TEST(OnnxWeightsAsValuesRun, NormalizationParametersAtRunTime) {
  const std::vector<float> scale = {1.5F, -0.5F, 2.0F};
  const std::vector<float> bias = {0.25F, 0.0F, -1.0F};
  const std::vector<float> mean = {0.1F, -0.2F, 0.3F};
  const std::vector<float> var = {0.5F, 1.25F, 2.0F};
  const std::vector<float> gamma = {1.0F, 0.5F, -2.0F, 3.0F};
  const std::vector<float> beta = {0.0F, 0.125F, 1.0F, -0.5F};
  const auto build = [&](bool as_inputs) {
    Model m(17);
    m.input("x", {2, 3, 2, 4}).output("y");
    const std::vector<std::pair<std::string, const std::vector<float>*>> params = {
        {"s", &scale}, {"b", &bias}, {"m", &mean}, {"v", &var}};
    for (const auto& [name, values] : params) {
      if (as_inputs) {
        m.input(name, {3});
      } else {
        m.init(name, {3}, *values);
      }
    }
    if (as_inputs) {
      m.input("g", {4}).input("beta", {4});
    } else {
      m.init("g", {4}, gamma).init("beta", {4}, beta);
    }
    m.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"n"}, "bn");
    m.node("LayerNormalization", {"n", "g", "beta"}, {"y"}, "ln");
    return m;
  };
  std::vector<float> xv(2 * 3 * 2 * 4);
  for (std::size_t i = 0; i < xv.size(); ++i)
    xv[i] = static_cast<float>(std::sin(0.43 * static_cast<double>(i)));
  const Tensor x = Tensor::of(ir::Shape{{2, 3, 2, 4}}, xv);
  const auto vec = [](const std::vector<float>& v) {
    return Tensor::of(ir::Shape{{static_cast<ir::Dim>(v.size())}}, v);
  };
  for (const auto profile :
       {backend::MaintainedProfile::checked_cpu, backend::MaintainedProfile::fast_cpu}) {
    SCOPED_TRACE(std::string(backend::to_string(profile)));
    const auto want = run_model(build(false), x, profile);
    const auto got = run_inputs(build(true),
                                {{"x", x},
                                 {"s", vec(scale)},
                                 {"b", vec(bias)},
                                 {"m", vec(mean)},
                                 {"v", vec(var)},
                                 {"g", vec(gamma)},
                                 {"beta", vec(beta)}},
                                profile);
    ASSERT_TRUE(want && got && got->has_value());
    expect_same_as((**got)[0].floats(), (*want)[0].floats(), profile);
  }
}

}  // namespace
}  // namespace onnx_operators_run_test
}  // namespace nnplan::runtime
