// Weights mapped, not copied (ir/weights.hpp, format/bounded_file.hpp): the weights a compiled
// command reads lie in the pages this process mapped from the file they came from (an ONNX model,
// a payload file, an ONNX external data file), as /proc/self/maps names them; a plan and its
// command buffer outlive every object their weights were loaded from (the loaded graph, and the
// file itself, unlinked), which the AddressSanitizer build checks; and a oneDNN command that
// packs a weight at compile time tells the weight's owner it no longer reads the source.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../format/onnx/onnx_test_models.hpp"
#include "nnplan/format/graph_file.hpp"
#include "nnplan/runtime/executor.hpp"
#include "runtime_test_support.hpp"

namespace nnplan::runtime {
namespace {

namespace fs = std::filesystem;
using format::onnx_test::attr_ints;
using format::onnx_test::iota;
using format::onnx_test::Model;
using testing::compiled;
using testing::planned;
using testing::seeded_tensor;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("nnplan_mapped_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_file(const fs::path& path, const void* data, std::size_t size) {
  std::ofstream(path, std::ios::binary)
      .write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
}

// Whether [p, p + size) lies inside one mapping of `file` in this process (/proc/self/maps:
// "start-end perms offset dev inode path").
bool in_mapping_of(const void* p, std::size_t size, const fs::path& file) {
  const std::string want = fs::canonical(file).string();
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range;
    std::string perms;
    std::string offset;
    std::string dev;
    std::string inode;
    std::string path;
    fields >> range >> perms >> offset >> dev >> inode;
    std::getline(fields >> std::ws, path);
    if (path != want) continue;
    const std::size_t dash = range.find('-');
    const std::uintptr_t start = std::stoull(range.substr(0, dash), nullptr, 16);
    const std::uintptr_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (at >= start && at + size <= end) return true;
  }
  return false;
}

// Every weight the buffer's commands read, in command order.
std::vector<const ir::WeightTensor*> weights_of(const CommandBuffer& buffer) {
  std::vector<const ir::WeightTensor*> out;
  for (const Command& c : buffer.commands()) {
    for (const WeightRef& w : c.weights) {
      if (w.tensor != nullptr) out.push_back(w.tensor);
    }
  }
  return out;
}

// Conv [1,2,5,5] -> [1,3,3,3] with a weight of 3*2*3*3 and a bias of 3, then Relu.
Model conv_model(const std::string& weight_name, const std::string& bias_name = "b") {
  Model m;
  m.input("x", {1, 2, 5, 5}).output("y");
  m.init(weight_name, {3, 2, 3, 3}, iota(54, -20.0F)).init(bias_name, {3}, {0.5F, -1.0F, 2.0F});
  attr_ints(m.node("Conv", {"x", weight_name, bias_name}, {"c"}, "conv"), "kernel_shape", {3, 3});
  m.node("Relu", {"c"}, {"y"}, "relu");
  return m;
}

// Where `values`' bytes start in `bytes` (npos when absent).
std::size_t offset_of(const std::vector<std::byte>& bytes, const std::vector<float>& values) {
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return text.find(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
}

// The model's bytes, with the initializers' names padded until each raw_data starts at a multiple
// of 4: a float32 view needs aligned bytes, and protobuf places fields wherever they fall.
std::vector<std::byte> aligned_conv_model_bytes() {
  for (std::string w = "w"; w.size() < 8; w += "_") {
    for (std::string b = "b"; b.size() < 8; b += "_") {
      std::vector<std::byte> bytes = conv_model(w, b).bytes();
      if (offset_of(bytes, iota(54, -20.0F)) % 4 == 0 &&
          offset_of(bytes, {0.5F, -1.0F, 2.0F}) % 4 == 0) {
        return bytes;
      }
    }
  }
  ADD_FAILURE() << "no padding aligns both initializers";
  return {};
}

// `file` loaded with its weights, planned under checked_cpu and compiled; the plan keeps the
// graph and weights, so the loaded graph goes.
std::optional<CommandBuffer> checked_buffer_of(const fs::path& file) {
  auto loaded = testing::load(file.string());
  if (!loaded) return std::nullopt;
  return compiled(planned(backend::make_profile(backend::MaintainedProfile::checked_cpu),
                          loaded->graph, loaded->payloads));
}

Tensor input_for(const CommandBuffer& buffer) {
  return seeded_tensor(*buffer.inputs()[0].shape, 11);
}

// The outputs of one run of `buffer` on `input`.
std::vector<Tensor> run_once(CommandBuffer buffer, const Tensor& input) {
  Executor exec(std::move(buffer));
  auto out = exec.run(std::vector<NamedTensor>{{exec.buffer().inputs()[0].name, input}});
  EXPECT_TRUE(out.has_value()) << render(out.error());
  return out ? std::move(*out) : std::vector<Tensor>{};
}

TEST(MappedWeights, AnOnnxModelsRawDataIsReadInPlace) {
  const fs::path dir = fresh_dir("onnx");
  const std::vector<std::byte> bytes = aligned_conv_model_bytes();
  write_file(dir / "conv.onnx", bytes.data(), bytes.size());
  auto buffer = checked_buffer_of(dir / "conv.onnx");
  ASSERT_TRUE(buffer.has_value());
  const auto weights = weights_of(*buffer);
  ASSERT_EQ(weights.size(), 2U);  // the conv's weight and bias
  for (const ir::WeightTensor* w : weights) {
    EXPECT_TRUE(in_mapping_of(w->bytes().data(), w->bytes().size(), dir / "conv.onnx"))
        << ir::to_string(w->shape());
  }
  EXPECT_EQ(weights[0]->to_vector<float>(), iota(54, -20.0F));
}

TEST(MappedWeights, AMisalignedOnnxTensorIsAViewReadThroughACopy) {
  const fs::path dir = fresh_dir("misaligned");
  const std::vector<float> weight = iota(54, -20.0F);
  // Some padding of the weight's name moves its raw_data off a multiple of 4.
  std::vector<std::byte> bytes;
  for (std::string name = "w"; bytes.empty() || offset_of(bytes, weight) % 4 == 0; name += "_")
    bytes = conv_model(name).bytes();
  write_file(dir / "conv.onnx", bytes.data(), bytes.size());
  auto loaded = testing::load((dir / "conv.onnx").string());
  ASSERT_TRUE(loaded.has_value());
  const ir::WeightTensor* w = loaded->payloads->find_tensor(1, "weight");
  ASSERT_NE(w, nullptr);
  // The store keeps the view into the mapped file; readers that need aligned floats copy it.
  EXPECT_FALSE(w->readable_in_place());
  EXPECT_TRUE(in_mapping_of(w->storage().data(), w->storage().size(), dir / "conv.onnx"));
  EXPECT_EQ(w->to_vector<float>(), weight);

  // The reference conv reads an aligned copy the command buffer holds.
  auto reference = compiled(planned(backend::make_profile(backend::MaintainedProfile::checked_cpu),
                                    loaded->graph, loaded->payloads));
  ASSERT_TRUE(reference.has_value());
  const ir::WeightTensor* bound = weights_of(*reference)[0];
  EXPECT_TRUE(bound->readable_in_place());
  EXPECT_FALSE(in_mapping_of(bound->bytes().data(), bound->bytes().size(), dir / "conv.onnx"));
  EXPECT_EQ(bound->to_vector<float>(), weight);
#ifdef NNPLAN_HAVE_ONEDNN
  // oneDNN packs from a temporary copy: its command holds the store's view, no copy of its own,
  // and computes what the reference does.
  auto fast = compiled(planned(backend::make_profile(backend::MaintainedProfile::fast_cpu),
                               loaded->graph, loaded->payloads));
  ASSERT_TRUE(fast.has_value());
  EXPECT_EQ(weights_of(*fast)[0], w);
  const Tensor input = input_for(*reference);
  const std::vector<Tensor> want = run_once(std::move(*reference), input);
  const std::vector<Tensor> got = run_once(std::move(*fast), input);
  ASSERT_EQ(got.size(), 1U);
  ASSERT_EQ(want.size(), 1U);
  ASSERT_EQ(got[0].floats().size(), want[0].floats().size());
  for (std::size_t i = 0; i < want[0].floats().size(); ++i)
    EXPECT_NEAR(got[0].floats()[i], want[0].floats()[i], 1e-3F) << i;
#endif
}

TEST(MappedWeights, APayloadFilesTensorsAreReadInPlace) {
  const fs::path dir = fresh_dir("payloads");
  fs::copy_file(testing::example_path("mlp.json"), dir / "mlp.json");
  fs::copy_file(testing::example_path("mlp.payloads"), dir / "mlp.payloads");
  auto buffer = checked_buffer_of(dir / "mlp.json");
  ASSERT_TRUE(buffer.has_value());
  const auto weights = weights_of(*buffer);
  ASSERT_FALSE(weights.empty());
  for (const ir::WeightTensor* w : weights) {
    EXPECT_TRUE(in_mapping_of(w->bytes().data(), w->bytes().size(), dir / "mlp.payloads"))
        << ir::to_string(w->shape());
  }
}

TEST(MappedWeights, ExternalDataIsReadInPlace) {
  const fs::path dir = fresh_dir("external");
  Model m = conv_model("w");
  onnx::TensorProto& t = *m.g().mutable_initializer(0);
  const std::vector<float> weight = iota(54, -20.0F);
  t.clear_raw_data();
  t.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto* location = t.add_external_data();
  location->set_key("location");
  location->set_value("conv.bin");
  write_file(dir / "conv.bin", weight.data(), weight.size() * 4);
  const std::vector<std::byte> bytes = m.bytes();
  write_file(dir / "conv.onnx", bytes.data(), bytes.size());
  auto buffer = checked_buffer_of(dir / "conv.onnx");
  ASSERT_TRUE(buffer.has_value());
  const auto weights = weights_of(*buffer);
  ASSERT_EQ(weights.size(), 2U);
  EXPECT_TRUE(
      in_mapping_of(weights[0]->bytes().data(), weights[0]->bytes().size(), dir / "conv.bin"));
  EXPECT_EQ(weights[0]->to_vector<float>(), weight);
}

// x [2, 4] by a constant B [4, 3] through `op` (MatMul, or Gemm with transB = 0): a `linear`
// node whose weight is B seen transposed. The initializer's name is padded until its raw_data
// starts at a multiple of 4 (`aligned`), so that it can be viewed in place, or at an offset that
// is not.
std::vector<std::byte> matmul_model_bytes(const std::string& op, bool aligned = true) {
  const std::vector<float> b = iota(12, -5.0F);
  for (std::string name = "B"; name.size() < 8; name += "_") {
    Model m;
    m.input("x", {2, 4}).output("y");
    m.init(name, {4, 3}, b);
    m.node(op, {"x", name}, {"y"}, "mm");
    std::vector<std::byte> bytes = m.bytes();
    if ((offset_of(bytes, b) % 4 == 0) == aligned) return bytes;
  }
  ADD_FAILURE() << "no padding places the initializer as asked";
  return {};
}

// matmul_model_bytes(op, aligned) written to mm.onnx in a fresh directory `name`.
fs::path matmul_model_file(const std::string& op, const std::string& name, bool aligned = true) {
  const fs::path file = fresh_dir(name) / "mm.onnx";
  const std::vector<std::byte> bytes = matmul_model_bytes(op, aligned);
  write_file(file, bytes.data(), bytes.size());
  return file;
}

// The weight the buffer's only `linear` command reads.
const ir::WeightTensor* linear_weight_of(const CommandBuffer& buffer) {
  for (const Command& c : buffer.commands()) {
    if (c.node->kind != ir::OpKind::linear) continue;
    for (const WeightRef& w : c.weights) {
      if (w.name == "weight") return w.tensor;
    }
  }
  return nullptr;
}

// x times B for x = `input` [2, 4] and B = iota(12, -5) [4, 3], in double.
std::vector<float> matmul_by_iota(const Tensor& input) {
  const std::vector<float> b = iota(12, -5.0F);
  std::vector<float> y(6);
  for (std::size_t r = 0; r < 2; ++r) {
    for (std::size_t c = 0; c < 3; ++c) {
      double acc = 0;
      for (std::size_t k = 0; k < 4; ++k)
        acc += static_cast<double>(input.floats()[r * 4 + k]) * b[k * 3 + c];
      y[r * 3 + c] = static_cast<float>(acc);
    }
  }
  return y;
}

TEST(MappedWeights, AMatMulWeightIsTheFilesBytesSeenTransposed) {
  for (const std::string op : {"MatMul", "Gemm"}) {
    const fs::path file = matmul_model_file(op, "matmul_" + op);
    auto loaded = testing::load(file.string());
    ASSERT_TRUE(loaded.has_value()) << op;
    ASSERT_EQ(loaded->payloads->tensors.size(), 1U) << op;
    const ir::WeightTensor& w = loaded->payloads->tensors.begin()->second;
    EXPECT_EQ(w.shape(), (ir::Shape{{3, 4}})) << op;
    EXPECT_FALSE(w.readable_in_place()) << op;
    EXPECT_TRUE(in_mapping_of(w.storage().data(), w.storage().size(), file)) << op;
    // Element (n, k) of the [out, in] weight is B's (k, n).
    const std::vector<float> dense = w.contiguous().to_vector<float>();
    const std::vector<float> b = iota(12, -5.0F);
    for (std::size_t n = 0; n < 3; ++n) {
      for (std::size_t k = 0; k < 4; ++k)
        EXPECT_EQ(dense[n * 4 + k], b[k * 3 + n]) << op << " " << n << "," << k;
    }
  }
}

TEST(MappedWeights, TheReferenceLinearReadsADenseCopyOfATransposedWeight) {
  const fs::path file = matmul_model_file("MatMul", "matmul_reference");
  auto buffer = checked_buffer_of(file);
  ASSERT_TRUE(buffer.has_value());
  const ir::WeightTensor* w = linear_weight_of(*buffer);
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(w->readable_in_place());
  EXPECT_FALSE(in_mapping_of(w->bytes().data(), w->bytes().size(), file));
  const Tensor input = input_for(*buffer);
  const std::vector<Tensor> out = run_once(std::move(*buffer), input);
  ASSERT_EQ(out.size(), 1U);
  const std::vector<float> want = matmul_by_iota(input);
  ASSERT_EQ(out[0].floats().size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(out[0].floats()[i], want[i], 1e-5F) << i;
}

#ifdef NNPLAN_HAVE_ONEDNN
TEST(MappedWeights, OnednnPacksATransposedWeightStraightFromTheFile) {
  // Aligned (read through a strided memory descriptor) and misaligned (through a temporary copy).
  for (const auto& [op, aligned] :
       {std::pair{"MatMul", true}, std::pair{"Gemm", true}, std::pair{"MatMul", false}}) {
    const fs::path file = matmul_model_file(
        op, std::string("matmul_onednn_") + op + (aligned ? "" : "_misaligned"), aligned);
    auto loaded = testing::load(file.string());
    ASSERT_TRUE(loaded.has_value()) << op;
    auto model = planned(backend::make_profile(backend::MaintainedProfile::fast_cpu), loaded->graph,
                         loaded->payloads);
    ASSERT_NE(model, nullptr) << op;
    auto buffer = compiled(model);
    ASSERT_TRUE(buffer.has_value()) << op;
    // The command holds the store's strided view itself: no dense copy was made for it.
    const ir::WeightTensor* w = linear_weight_of(*buffer);
    ASSERT_NE(w, nullptr) << op;
    EXPECT_FALSE(w->readable_in_place()) << op;
    EXPECT_EQ(w, &loaded->payloads->tensors.begin()->second) << op;
    EXPECT_TRUE(in_mapping_of(w->storage().data(), w->storage().size(), file)) << op;
    const Tensor input = input_for(*buffer);
    const std::vector<Tensor> out = run_once(std::move(*buffer), input);
    ASSERT_EQ(out.size(), 1U) << op;
    const std::vector<float> want = matmul_by_iota(input);
    ASSERT_EQ(out[0].floats().size(), want.size()) << op;
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(out[0].floats()[i], want[i], 1e-4F) << op << " " << i;
  }
}
#endif

// What a run of `file` gives when the loaded graph is dropped and the file unlinked after
// compiling (and, for comparison, before).
void expect_buffer_outlives_its_sources(const fs::path& file, const std::vector<fs::path>& beside,
                                        backend::MaintainedProfile profile) {
  std::optional<CommandBuffer> buffer;
  std::vector<Tensor> want;
  Tensor input;
  {
    auto loaded = testing::load(file.string());
    ASSERT_TRUE(loaded.has_value());
    auto model = planned(backend::make_profile(profile), loaded->graph, loaded->payloads);
    ASSERT_NE(model, nullptr);
    buffer = compiled(model);
    ASSERT_TRUE(buffer.has_value());
    auto first = compiled(model);
    ASSERT_TRUE(first.has_value());
    input = input_for(*first);
    Executor exec(std::move(*first));
    auto out = exec.run(std::vector<NamedTensor>{{exec.buffer().inputs()[0].name, input}});
    ASSERT_TRUE(out.has_value()) << render(out.error());
    want = std::move(*out);
  }
  fs::remove(file);
  for (const fs::path& p : beside)
    fs::remove(p);
  Executor exec(std::move(*buffer));
  auto got = exec.run(std::vector<NamedTensor>{{exec.buffer().inputs()[0].name, input}});
  ASSERT_TRUE(got.has_value()) << render(got.error());
  EXPECT_EQ(*got, want);
}

TEST(MappedWeights, ABufferOutlivesTheLoadedGraphAndItsFiles) {
  const fs::path dir = fresh_dir("lifetime");
  const std::vector<std::byte> bytes = aligned_conv_model_bytes();
  write_file(dir / "conv.onnx", bytes.data(), bytes.size());
  expect_buffer_outlives_its_sources(dir / "conv.onnx", {},
                                     backend::MaintainedProfile::checked_cpu);
  fs::copy_file(testing::example_path("cnn.json"), dir / "cnn.json");
  fs::copy_file(testing::example_path("cnn.payloads"), dir / "cnn.payloads");
  expect_buffer_outlives_its_sources(dir / "cnn.json", {dir / "cnn.payloads"},
                                     backend::MaintainedProfile::checked_cpu);
#ifdef NNPLAN_HAVE_ONEDNN
  write_file(dir / "conv.onnx", bytes.data(), bytes.size());
  expect_buffer_outlives_its_sources(dir / "conv.onnx", {}, backend::MaintainedProfile::fast_cpu);
#endif
}

#ifdef NNPLAN_HAVE_ONEDNN
// Bytes recording the ranges their weights release.
class RecordingBytes final : public ir::WeightBytes {
 public:
  explicit RecordingBytes(std::vector<float> values) : values_(std::move(values)) {}
  void release(std::span<const std::byte> range) const noexcept override {
    released.push_back(range);
  }
  [[nodiscard]] const std::byte* data() const {
    return reinterpret_cast<const std::byte*>(values_.data());
  }

  mutable std::vector<std::span<const std::byte>> released;

 private:
  std::vector<float> values_;
};

TEST(MappedWeights, OnednnReleasesAWeightOnceItHoldsItsPackedCopy) {
  auto loaded = testing::load(testing::example_path("cnn.json"));
  ASSERT_TRUE(loaded.has_value());
  // The same weights, each a view into bytes that record what is released.
  auto store = std::make_shared<ir::WeightStore>(*loaded->payloads);
  std::vector<std::shared_ptr<const RecordingBytes>> owners;
  for (auto& [key, tensor] : store->tensors) {
    auto owner = std::make_shared<const RecordingBytes>(tensor.to_vector<float>());
    tensor =
        ir::WeightTensor::view(tensor.shape(), tensor.dtype(), owner->data(), tensor.size(), owner);
    owners.push_back(owner);
  }
  auto model =
      planned(backend::make_profile(backend::MaintainedProfile::fast_cpu), loaded->graph, store);
  ASSERT_NE(model, nullptr);
  auto buffer = compiled(model);
  ASSERT_TRUE(buffer.has_value());
  std::size_t conv_weights = 0;
  for (const Command& c : buffer->commands()) {
    if (c.node->kind != ir::OpKind::conv) continue;
    for (const WeightRef& w : c.weights) {
      if (w.tensor == nullptr || w.name != "weight") continue;
      ++conv_weights;
      const auto own = w.tensor->bytes();
      bool released = false;
      for (const auto& owner : owners) {
        for (const auto& r : owner->released)
          released = released || (r.data() == own.data() && r.size() == own.size());
      }
      EXPECT_TRUE(released) << "node " << c.node->id;
    }
  }
  EXPECT_GT(conv_weights, 0U);
}
#endif

}  // namespace
}  // namespace nnplan::runtime
