// ONNX external data (onnx/external_data.cpp): planning (keep_payloads = false) reads only each
// tensor's type and shape and never opens a data file; an import that keeps payloads reads the
// data from files in the model's directory only, and refuses every other place and every range
// that does not fit, naming the tensor and the location.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

namespace fs = std::filesystem;

// A fresh directory for one test.
fs::path fresh_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("nnplan_external_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string float_bytes(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4);
}

// Points initializer `index` of `m` at external data: `entries` are its key/value pairs.
void make_external(Model& m, int index,
                   const std::vector<std::pair<std::string, std::string>>& entries) {
  onnx::TensorProto& t = *m.g().mutable_initializer(index);
  t.clear_raw_data();
  t.clear_float_data();
  t.clear_int64_data();
  t.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  for (const auto& [key, value] : entries) {
    auto* e = t.add_external_data();
    e->set_key(key);
    e->set_value(value);
  }
}

// x [2,3] · w [3,2]: w (the values 1..6) in external data at `entries`.
Model matmul_model(const std::vector<std::pair<std::string, std::string>>& entries) {
  Model m;
  m.input("x", {2, 3}).output("y").init("w", {3, 2}, iota(6));
  m.node("MatMul", {"x", "w"}, {"y"}, "mm");
  make_external(m, 0, entries);
  return m;
}

fs::path write_model(const fs::path& dir, const Model& m) {
  const fs::path path = dir / "model.onnx";
  const std::vector<std::byte> bytes = m.bytes();
  write_bytes(path, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  return path;
}

OnnxImportOptions shapes_only() {
  OnnxImportOptions options;
  options.keep_payloads = false;
  return options;
}

// The message of an import of `path` that fails as invalid input.
std::string refusal(const fs::path& path, const OnnxImportOptions& options = {}) {
  const auto r = import_onnx_file(path, options);
  EXPECT_FALSE(r.has_value());
  if (r) return {};
  EXPECT_EQ(r.error().kind, ErrorKind::invalid_input) << r.error().message;
  return r.error().message;
}

TEST(OnnxExternalData, PlanningNeverOpensTheDataFile) {
  const fs::path dir = fresh_dir("plan");
  const fs::path model = write_model(dir, matmul_model({{"location", "w.bin"}}));
  // No w.bin at all: planning needs the shape only.
  const auto r = import_onnx_file(model, shapes_only());
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(lines(r->graph()), (Lines{"0 input -> [2,3] 'x'", "1 linear [0] -> [2,2] 'mm'"}));
  // From bytes, with no directory at all, alike.
  const auto from_bytes =
      import_onnx(matmul_model({{"location", "w.bin"}}).bytes(), "m.onnx", shapes_only());
  ASSERT_TRUE(from_bytes.has_value()) << from_bytes.error().message;
  EXPECT_EQ(from_bytes->graph(), r->graph());
}

TEST(OnnxExternalData, AnImportWithPayloadsReadsTheData) {
  const fs::path dir = fresh_dir("convert");
  write_bytes(dir / "w.bin", float_bytes(iota(6)));
  const fs::path model = write_model(dir, matmul_model({{"location", "w.bin"}}));
  const auto r = import_onnx_file(model);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  // w [3,2] transposed to the linear weight [2,3].
  EXPECT_EQ(tensor_of(*r, 1, "weight").to_vector<float>(), (std::vector<float>{1, 3, 5, 2, 4, 6}));
  EXPECT_EQ(r->graph(), import_onnx_file(model, shapes_only())->graph());
}

TEST(OnnxExternalData, OffsetAndLengthSelectTheBytes) {
  const fs::path dir = fresh_dir("offset");
  fs::create_directories(dir / "data");
  write_bytes(dir / "data" / "all.bin",
              std::string(16, '\0') + float_bytes(iota(6, 10.0f)) + std::string(8, '\0'));
  const fs::path model = write_model(dir, matmul_model({{"location", "data/all.bin"},
                                                        {"offset", "16"},
                                                        {"length", "24"},
                                                        {"checksum", "not verified"}}));
  const auto r = import_onnx_file(model);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(tensor_of(*r, 1, "weight").to_vector<float>(),
            (std::vector<float>{10, 12, 14, 11, 13, 15}));
}

TEST(OnnxExternalData, ImportOnnxReadsFromTheGivenDirectory) {
  const fs::path dir = fresh_dir("from_bytes");
  write_bytes(dir / "w.bin", float_bytes(iota(6)));
  const Model m = matmul_model({{"location", "w.bin"}});
  EXPECT_NE(error_of(m).find("tensor 'w' keeps its data in external file 'w.bin', and this "
                             "import has no model directory to read it from: import the model "
                             "from its file, or set OnnxImportOptions::external_data_dir"),
            std::string::npos);
  OnnxImportOptions options;
  options.external_data_dir = dir;
  const auto r = m.import(options);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(tensor_of(*r, 1, "weight").to_vector<float>(), (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

TEST(OnnxExternalData, AnAbsoluteLocationIsRefused) {
  const fs::path dir = fresh_dir("absolute");
  write_bytes(dir / "w.bin", float_bytes(iota(6)));
  const fs::path model = write_model(dir, matmul_model({{"location", (dir / "w.bin").string()}}));
  EXPECT_EQ(refusal(model), model.string() + ": tensor 'w' keeps its data in external file '" +
                                (dir / "w.bin").string() +
                                "', an absolute path; nnplan reads external data only from the "
                                "model's directory: give the location relative to it");
  EXPECT_TRUE(import_onnx_file(model, shapes_only()).has_value());
}

TEST(OnnxExternalData, ALocationLeavingTheDirectoryIsRefused) {
  const fs::path dir = fresh_dir("dotdot");
  fs::create_directories(dir / "model" / "sub");
  write_bytes(dir / "w.bin", float_bytes(iota(6)));
  for (const std::string location : {"../w.bin", "sub/../../w.bin"}) {
    const fs::path model = write_model(dir / "model", matmul_model({{"location", location}}));
    EXPECT_EQ(refusal(model), model.string() + ": tensor 'w' keeps its data in external file '" +
                                  location +
                                  "', which leaves the model's directory; nnplan reads external "
                                  "data only from files in it: move the file there and give its "
                                  "relative location");
  }
  // `..` that stays inside is fine.
  write_bytes(dir / "model" / "w.bin", float_bytes(iota(6)));
  const fs::path model = write_model(dir / "model", matmul_model({{"location", "sub/../w.bin"}}));
  EXPECT_TRUE(import_onnx_file(model).has_value());
}

TEST(OnnxExternalData, ASymbolicLinkOutOfTheDirectoryIsRefused) {
  const fs::path dir = fresh_dir("symlink");
  fs::create_directories(dir / "model");
  fs::create_directories(dir / "elsewhere");
  write_bytes(dir / "elsewhere" / "w.bin", float_bytes(iota(6)));
  fs::create_symlink(dir / "elsewhere" / "w.bin", dir / "model" / "w.bin");
  fs::create_directory_symlink(dir / "elsewhere", dir / "model" / "linked");
  for (const std::string location : {"w.bin", "linked/w.bin"}) {
    const fs::path model = write_model(dir / "model", matmul_model({{"location", location}}));
    const std::string message = refusal(model);
    EXPECT_NE(message.find("tensor 'w' keeps its data in external file '" + location +
                           "', which resolves to '" +
                           fs::weakly_canonical(dir / "elsewhere" / "w.bin").string() +
                           "' through a symbolic link, outside the model's directory '" +
                           fs::weakly_canonical(dir / "model").string() +
                           "'; nnplan reads external data only from files in it: copy the file "
                           "there"),
              std::string::npos)
        << message;
  }
  // A link that stays inside the directory is followed.
  fs::remove(dir / "model" / "w.bin");
  write_bytes(dir / "model" / "real.bin", float_bytes(iota(6)));
  fs::create_symlink("real.bin", dir / "model" / "w.bin");
  const fs::path model = write_model(dir / "model", matmul_model({{"location", "w.bin"}}));
  EXPECT_TRUE(import_onnx_file(model).has_value());
}

TEST(OnnxExternalData, AMissingFileIsRefused) {
  const fs::path dir = fresh_dir("missing");
  const fs::path model = write_model(dir, matmul_model({{"location", "w.bin"}}));
  EXPECT_EQ(refusal(model), model.string() +
                                ": tensor 'w' keeps its data in external file 'w.bin', which does "
                                "not exist in the model's directory '" +
                                fs::weakly_canonical(dir).string() +
                                "': put the file beside the model");
  fs::create_directory(dir / "w.bin");
  EXPECT_NE(refusal(model).find("'w.bin', which is not a regular file"), std::string::npos);
}

TEST(OnnxExternalData, ARangePastTheEndOfTheFileIsRefused) {
  const fs::path dir = fresh_dir("short");
  write_bytes(dir / "w.bin", float_bytes(iota(5)));  // 20 bytes, 24 needed
  const fs::path with_length =
      write_model(dir, matmul_model({{"location", "w.bin"}, {"offset", "0"}, {"length", "24"}}));
  EXPECT_EQ(refusal(with_length),
            with_length.string() +
                ": tensor 'w': external data in 'w.bin' (20 bytes) at offset 0, length 24 runs "
                "past the end of the file; the file is truncated or is not the one the model was "
                "saved with: save the model and its data again");
  const fs::path offset = write_model(dir, matmul_model({{"location", "w.bin"}, {"offset", "40"}}));
  EXPECT_NE(refusal(offset).find("(20 bytes) at offset 40 runs past the end of the file"),
            std::string::npos);
  const fs::path rest = write_model(dir, matmul_model({{"location", "w.bin"}}));
  EXPECT_EQ(refusal(rest), rest.string() +
                               ": tensor 'w': external data in 'w.bin' (20 bytes) from offset 0 "
                               "holds 20 bytes, the tensor needs 24; without a length entry the "
                               "data runs to the end of the file: give its length");
}

TEST(OnnxExternalData, ALengthThatDoesNotFitTheDimsIsRefused) {
  const fs::path dir = fresh_dir("length");
  write_bytes(dir / "w.bin", float_bytes(iota(8)));
  const fs::path model = write_model(dir, matmul_model({{"location", "w.bin"}, {"length", "32"}}));
  const std::string expected =
      model.string() +
      ": tensor 'w': external data length 32 bytes does not match dims [3,2] of float32, which "
      "need 24; save the model and its data again";
  EXPECT_EQ(refusal(model), expected);
  // The entry is in the model: planning refuses it too, without opening the file.
  EXPECT_EQ(refusal(model, shapes_only()), expected);
}

TEST(OnnxExternalData, MalformedEntriesAreRefused) {
  EXPECT_EQ(error_of(matmul_model({})),
            "m.onnx: tensor 'w' keeps its data in an external file but its external_data has no "
            "location; name the file, relative to the model's directory");
  EXPECT_EQ(error_of(matmul_model({{"location", "w.bin"}, {"offset", "-4"}})),
            "m.onnx: tensor 'w' has external_data offset '-4', which is not a non-negative "
            "decimal integer");
  EXPECT_EQ(error_of(matmul_model({{"location", "a.bin"}, {"location", "b.bin"}})),
            "m.onnx: tensor 'w' has external_data key 'location' twice; give each key once");
  Model default_location = matmul_model({{"location", "w.bin"}});
  default_location.g().mutable_initializer(0)->set_data_location(
      onnx::TensorProto_DataLocation_DEFAULT);
  EXPECT_EQ(error_of(default_location),
            "m.onnx: tensor 'w' has external_data entries but its data_location is DEFAULT; set "
            "data_location to EXTERNAL or remove the entries");
  Model both = matmul_model({{"location", "w.bin"}});
  both.g().mutable_initializer(0)->set_raw_data(float_bytes(iota(6)));
  EXPECT_EQ(error_of(both),
            "m.onnx: tensor 'w' keeps its data in an external file and holds data in the model "
            "too; a tensor keeps its data in exactly one place: remove one");
}

// Planning does not read a LayerNormalization Scale kept outside the model, so it cannot tell an
// all-ones one: it is the layernorm's gamma, with and without payloads alike (read from the file
// only when payloads are kept).
TEST(OnnxExternalData, NoRuleFoldsOnValuesItDoesNotRead) {
  const fs::path dir = fresh_dir("layernorm");
  write_bytes(dir / "scale.bin", float_bytes(std::vector<float>(4, 1.0f)));
  Model m;
  m.input("x", {2, 4}).output("y").init("scale", {4}, std::vector<float>(4, 1.0f));
  m.node("LayerNormalization", {"x", "scale"}, {"y"}, "ln");
  make_external(m, 0, {{"location", "scale.bin"}});
  const fs::path model = write_model(dir, m);
  const auto planned = import_onnx_file(model, shapes_only());
  ASSERT_TRUE(planned.has_value()) << planned.error().message;
  const auto converted = import_onnx_file(model);
  ASSERT_TRUE(converted.has_value()) << converted.error().message;
  EXPECT_EQ(planned->graph(), converted->graph());
  ASSERT_EQ(planned->graph().nodes.size(), 2u);
  EXPECT_EQ(planned->graph().nodes.back().kind, OpKind::layernorm);
  EXPECT_TRUE(planned->payloads.tensors.empty());
  const ir::WeightTensor* gamma = converted->payloads.find_tensor(1, "gamma");
  ASSERT_NE(gamma, nullptr);
  EXPECT_EQ(gamma->to_vector<float>(), std::vector<float>(4, 1.0f));
}

TEST(OnnxExternalData, IntegerOperandsInExternalDataAreUnsupported) {
  Model m;
  m.input("x", {2, 3}).output("y").init_i64("shape", {3, 2});
  m.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  make_external(m, 0, {{"location", "shape.bin"}});
  EXPECT_EQ(unsupported_of(m),
            "node 0 'reshape' (Reshape): shape 'shape' keeps its values in an external file; "
            "nnplan reads only float32 weights from external data: store it in the model");
}

}  // namespace
}  // namespace nnplan::format::onnx_test
