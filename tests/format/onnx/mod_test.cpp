// Mod (onnx/operators/mod.cpp): mod for fmod 0 (int64), fmod for fmod 1 (float32 or int64), the
// operands broadcast in the kernel; and what it refuses.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace mod_test {
namespace {

Model mod_model(int dtype, std::int64_t fmod) {
  Model m(13);
  m.input("a", {2, 1}, dtype).input("b", {3}, dtype).output("y");
  onnx::NodeProto& n = m.node("Mod", {"a", "b"}, {"y"}, "m");
  if (fmod != 0) attr_i(n, "fmod", fmod);
  return m;
}

TEST(OnnxMod, ModOrFmodBroadcastInTheKernel) {
  const ImportedModel i = ok(mod_model(onnx::TensorProto_DataType_INT64, 0));
  EXPECT_EQ(lines(i.graph()).back(), "2 mod [0,1] -> [2,3] 'm'");
  EXPECT_EQ(i.graph().nodes.back().dtype, ir::DType::int64);
  EXPECT_EQ(lines(ok(mod_model(onnx::TensorProto_DataType_INT64, 1)).graph()).back(),
            "2 fmod [0,1] -> [2,3] 'm'");
  EXPECT_EQ(lines(ok(mod_model(kFloat, 1)).graph()).back(), "2 fmod [0,1] -> [2,3] 'm'");
}

TEST(OnnxMod, Refusals) {
  EXPECT_EQ(error_of(mod_model(kFloat, 0)),
            "m.onnx: node 'm' (Mod, opset 13): fmod = 0 of float32 inputs; ONNX requires fmod = 1 "
            "for floating-point inputs");
  EXPECT_EQ(unsupported_error(mod_model(kFloat, 2)).notes.at(0),
            "node 0 'm' (Mod): attribute fmod = 2 is not supported; supported: 0 or 1");
  Model mixed(13);
  mixed.input("a", {2}).input("b", {2}, onnx::TensorProto_DataType_INT64).output("y");
  attr_i(mixed.node("Mod", {"a", "b"}, {"y"}, "m"), "fmod", 1);
  EXPECT_EQ(error_of(mixed),
            "m.onnx: node 'm' (Mod, opset 13): inputs 'a' and 'b' have dtypes float32 and int64; "
            "Mod takes one");
}

}  // namespace
}  // namespace mod_test
}  // namespace nnplan::format::onnx_test
