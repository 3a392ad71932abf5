// nnplan_make_models DIR: writes the benchmark models of onnx_model_generators.hpp as ONNX files
// for the peer comparison (bench/peers/compare.sh): DIR/resnet18.onnx, DIR/resnet50.onnx and
// DIR/chain100k.onnx and DIR/chain1m.onnx (100,000 and 1,000,000 nodes alternating Relu and
// Add(x, x) on [1,16]; the larger one sizes `nnplan verify` in docs/benchmarks.md). DIR is created
// when missing.
#include <cstddef>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "onnx_model_generators.hpp"

namespace {

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
  std::printf("wrote %s (%zu bytes)\n", path.c_str(), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: nnplan_make_models DIR\n");
    return 2;
  }
  try {
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    write_file(dir / "resnet18.onnx",
               nnplan::bench::serialize_onnx(nnplan::bench::resnet18_onnx()));
    write_file(dir / "resnet50.onnx",
               nnplan::bench::serialize_onnx(nnplan::bench::resnet50_onnx()));
    write_file(dir / "chain100k.onnx",
               nnplan::bench::serialize_onnx(nnplan::bench::relu_add_chain_onnx(100'000)));
    write_file(dir / "chain1m.onnx",
               nnplan::bench::serialize_onnx(nnplan::bench::relu_add_chain_onnx(1'000'000)));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "nnplan_make_models: %s\n", error.what());
    return 1;
  }
  return 0;
}
