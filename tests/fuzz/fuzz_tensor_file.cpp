// libFuzzer target: the tensor files `nnplan run` reads (NumPy .npy and ONNX TensorProto .pb).
// Each input goes through both readers; whatever one accepts is written back in its format and
// must read back to the same tensor, so a reader and its writer cannot disagree.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

#include "nnplan/format/tensor_file.hpp"

namespace {

bool same(const nnplan::ir::WeightTensor& a, const nnplan::ir::WeightTensor& b) {
  // Bitwise, so that NaN payloads compare equal to themselves.
  const auto x = a.bytes();
  const auto y = b.bytes();
  return a.shape() == b.shape() && a.dtype() == b.dtype() && x.size() == y.size() &&
         (x.empty() || std::memcmp(x.data(), y.data(), x.size()) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = std::as_bytes(std::span(data, size));
  if (auto t = nnplan::format::parse_npy(bytes, "fuzz.npy")) {
    const auto written = nnplan::format::npy_bytes(*t);
    auto again = nnplan::format::parse_npy(written, "again.npy");
    if (!again || !same(*t, *again)) std::abort();
  }
  if (auto t = nnplan::format::parse_tensor_proto(bytes, "fuzz.pb")) {
    const auto written = nnplan::format::tensor_proto_bytes(*t);
    auto again = nnplan::format::parse_tensor_proto(written, "again.pb");
    if (!again || !same(*t, *again)) std::abort();
  }
  return 0;
}
