// The model's interface (onnx/model_interface.cpp): graph inputs (data types, shapes and the
// --input-shape fix), the one graph output, the opset.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_test_models.hpp"

namespace nnplan::format::onnx_test {
namespace {

using ir::OpKind;

// A graph input that is not float32 is rejected for its data type when a node consumes it as a
// tensor (or nothing consumes it), and for not being a constant when an op needs one there.
struct NonFloatInputCase {
  std::string name;
  std::function<void(Model&)> build;
  std::string expected;
};

class OnnxNonFloatInput : public ::testing::TestWithParam<NonFloatInputCase> {};

TEST_P(OnnxNonFloatInput, NamesTheRealReason) {
  Model m(13);
  m.input("x", {2, 3}).input("i", {2}, onnx::TensorProto_DataType_INT64).output("y");
  GetParam().build(m);
  EXPECT_EQ(unsupported_of(m), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, OnnxNonFloatInput,
    ::testing::Values(
        NonFloatInputCase{"ConsumedAsTensor",
                          [](Model& m) { m.node("Relu", {"i"}, {"y"}, "relu"); },
                          "node 0 'relu' (Relu): its input (input node 'i') has dtype int64; "
                          "nnplan runs Relu on float32 values only"},
        NonFloatInputCase{"AliasedThenConsumed",
                          [](Model& m) {
                            m.node("Identity", {"i"}, {"j"}, "id");
                            m.node("Relu", {"j"}, {"y"}, "relu");
                          },
                          "node 1 'relu' (Relu): its input (input node 'i') has dtype int64; "
                          "nnplan runs Relu on float32 values only"},
        NonFloatInputCase{"ReduceSumAxes",
                          [](Model& m) {
                            m.node("ReduceSum", {"x", "i"}, {"y"}, "sum");
                          },
                          "node 0 'sum' (ReduceSum): axes 'i' is a graph input, "
                          "not a constant (an initializer or a Constant output); it must be one"},
        NonFloatInputCase{"UnsqueezeAxes",
                          [](Model& m) {
                            m.node("Unsqueeze", {"x", "i"}, {"y"}, "u");
                          },
                          "node 0 'u' (Unsqueeze): axes 'i' is a graph input, "
                          "not a constant (an initializer or a Constant output); it must be one"}),
    [](const auto& info) { return info.param.name; });

// int64 and bool graph inputs are input nodes of their dtype; one may be a graph output itself.
TEST(OnnxImport, Int64AndBoolInputsAreValuesOfTheirDtype) {
  Model m(13);
  m.input("x", {2, 3})
      .input("i", {2}, onnx::TensorProto_DataType_INT64)
      .input("b", {3}, onnx::TensorProto_DataType_BOOL)
      .output("i")
      .output("b");
  m.node("Relu", {"x"}, {"y"}, "r");
  const ImportedModel r = ok(m);
  EXPECT_EQ(r.graph().nodes[1].dtype, ir::DType::int64);
  EXPECT_EQ(r.graph().nodes[2].dtype, ir::DType::boolean);
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{1, 2}));
}

// An int64 value reaching an op nnplan runs on float32 only is unsupported, naming the value.
TEST(OnnxImport, AnInt64InputIntoAFloatOpIsUnsupported) {
  Model m(13);
  m.input("i", {2}, onnx::TensorProto_DataType_INT64).output("y");
  m.node("Relu", {"i"}, {"y"}, "r");
  EXPECT_EQ(unsupported_of(m),
            "node 0 'r' (Relu): its input (input node 'i') has dtype int64; nnplan runs Relu on "
            "float32 values only");
}

TEST(OnnxImport, DynamicDimensionAndTheFix) {
  Model m;
  m.input("x", {-1, 3, 224, 224}).output("y");
  m.node("Relu", {"x"}, {"y"}, "r");
  EXPECT_EQ(unsupported_of(m),
            "m.onnx: dimension 0 of input 'x' is dynamic ('batch'); fix it with --input-shape "
            "x=1,3,224,224");
  const ImportedModel r = ok(m, {.input_shapes = {{"x", {4, 3, 224, 224}}}});
  EXPECT_EQ(lines(r.graph())[0], "0 input -> [4,3,224,224] 'x'");
  EXPECT_EQ(error_of(m, {.input_shapes = {{"x", {4, 5, 224, 224}}}}),
            "m.onnx: input shape [4,5,224,224] given for input 'x' has 5 at dimension 1, the "
            "model fixes it to 3");
  // A name the model lacks is the caller's mistake (not found: a usage error on the command
  // line), with the closest input suggested where one is close.
  EXPECT_EQ(error_of(m, {.input_shapes = {{"z", {1}}}}, ErrorKind::not_found),
            "m.onnx: an input shape is given for 'z', which is not a graph input; inputs: 'x'");
  Model named;
  named.input("image", {-1, 3, 8, 8}).output("y");
  named.node("Relu", {"image"}, {"y"}, "r");
  EXPECT_EQ(error_of(named, {.input_shapes = {{"imgae", {1, 3, 8, 8}}}}, ErrorKind::not_found),
            "m.onnx: an input shape is given for 'imgae', which is not a graph input; did you "
            "mean 'image'? inputs: 'image'");
}

// A dimension the model leaves open takes open_dim_size when input_shapes does not fix it, and
// every open dimension is listed with its name, axis and the size it was imported at.
TEST(OnnxImport, OpenDimensionsAreListedWithTheSizeTheyTook) {
  Model m;
  m.input("x", {-1, 3}).input("mask", {-1, 3}).output("y");
  m.g()
      .mutable_input(1)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->clear_dim_value();  // axis 1 of mask: no value and no name
  m.node("Add", {"x", "mask"}, {"y"}, "a");
  auto* declared = m.g().mutable_output(0)->mutable_type()->mutable_tensor_type();
  declared->set_elem_type(kFloat);
  declared->mutable_shape()->add_dim()->set_dim_param("batch");
  declared->mutable_shape()->add_dim()->set_dim_value(3);

  const ImportedModel open = ok(m, {.open_dim_size = 1});
  EXPECT_EQ(lines(open.graph())[0], "0 input -> [1,3] 'x'");
  EXPECT_EQ(lines(open.graph())[1], "1 input -> [1,1] 'mask'");
  ASSERT_EQ(open.symbolic_dims.size(), 3u);
  EXPECT_EQ(describe(open.symbolic_dims[0]), "'batch' (input 'x' axis 0) = 1");
  EXPECT_EQ(describe(open.symbolic_dims[1]), "'batch' (input 'mask' axis 0) = 1");
  EXPECT_EQ(describe(open.symbolic_dims[2]), "unnamed (input 'mask' axis 1) = 1");
  EXPECT_FALSE(open.symbolic_dims[0].fixed);
  ASSERT_EQ(open.symbolic_output_dims.size(), 1u);
  EXPECT_EQ(open.symbolic_output_dims[0].input, "y");
  EXPECT_EQ(open.symbolic_output_dims[0].name, "batch");
  EXPECT_EQ(open.symbolic_output_dims[0].size, 1u);

  // input_shapes fixes some: those are marked fixed; the rest still take open_dim_size.
  const ImportedModel fixed =
      ok(m, {.input_shapes = {{"x", {4, 3}}, {"mask", {4, 3}}}, .open_dim_size = 1});
  ASSERT_EQ(fixed.symbolic_dims.size(), 3u);
  EXPECT_TRUE(fixed.symbolic_dims[0].fixed);
  EXPECT_EQ(describe(fixed.symbolic_dims[1]), "'batch' (input 'mask' axis 0) = 4");
  EXPECT_EQ(fixed.symbolic_output_dims.at(0).size, 4u);

  // An input shape for one input gives its named dimension to every input that names it.
  const ImportedModel shared = ok(m, {.input_shapes = {{"x", {4, 3}}}, .open_dim_size = 1});
  EXPECT_EQ(lines(shared.graph())[1], "1 input -> [4,1] 'mask'");
  EXPECT_EQ(describe(shared.symbolic_dims[1]), "'batch' (input 'mask' axis 0) = 4");
  EXPECT_TRUE(shared.symbolic_dims[1].fixed);
  EXPECT_FALSE(shared.symbolic_dims[2].fixed);

  // One name, one size: two inputs given two batches are refused, naming both.
  EXPECT_EQ(error_of(m, {.input_shapes = {{"x", {4, 3}}, {"mask", {2, 3}}}, .open_dim_size = 1}),
            "m.onnx: dimension 'batch' is 4 in input 'x' (axis 0) but 2 in input 'mask' (axis "
            "0); the model names both 'batch', one size");
  EXPECT_EQ(error_of(m, {.open_dim_size = 0}),
            "m.onnx: the size of open dimensions must be 1..281474976710656; got 0");
  // Without open_dim_size an open dimension stays an unsupported one, with its fix.
  EXPECT_EQ(unsupported_of(m),
            "m.onnx: dimension 0 of input 'x' is dynamic ('batch'); fix it with --input-shape "
            "x=1,3");
}

// A failure past the inputs of a model whose open dimensions were planned at open_dim_size says
// so, and which --input-shape plans the sizes that are run; one whose sizes were given does not.
TEST(OnnxImport, AFailureAtTheOpenSizeSaysHowToPlanOthers) {
  Model m;
  m.input("x", {1, 3, -1, -1}).output("y");
  m.init("w", {4, 3, 5, 5}, std::vector<float>(4 * 3 * 5 * 5, 0.5f));
  m.node("Conv", {"x", "w"}, {"y"}, "c");
  const Expected<ImportedModel> r = m.import({.open_dim_size = 1});
  ASSERT_FALSE(r.has_value());
  ASSERT_FALSE(r.error().notes.empty()) << r.error().message;
  EXPECT_EQ(r.error().notes.back(),
            "the dimensions the model leaves open were planned at 1 ('batch' (input 'x' axis 2) = "
            "1, 'batch' (input 'x' axis 3) = 1), which this failure may come from; plan the sizes "
            "you run with --input-shape x=1,3,<batch>,<batch>");
  // Something unsupported is unsupported at every size: no note.
  Model det;
  det.input("x", {-1, 3, 3}).output("y");
  det.node("Det", {"x"}, {"y"}, "d");
  const Error unsupported = unsupported_error(det, {.open_dim_size = 1});
  for (const std::string& note : unsupported.notes)
    EXPECT_EQ(note.find("planned at"), std::string::npos) << note;
  const ImportedModel planned = ok(m, {.input_shapes = {{"x", {1, 3, 8, 8}}}, .open_dim_size = 1});
  EXPECT_EQ(lines(planned.graph())[0], "0 input -> [1,3,8,8] 'x'");
}

// import_onnx holds input shapes to the limits of a declared shape itself (check_input_shapes),
// whoever calls it: the message names the source, then the input and the limit.
TEST(OnnxImport, InputShapesMeetTheDeclaredShapeLimits) {
  Model m;
  m.input("x", {-1}).output("y");
  m.node("Relu", {"x"}, {"y"}, "r");
  const std::uint64_t big = std::uint64_t{1} << 50;
  const std::vector<std::pair<std::vector<std::uint64_t>, std::string>> cases = {
      {{}, "m.onnx: input shape for 'x' has no dimensions"},
      {{0}, "m.onnx: input shape for 'x' has 0 at dimension 0"},
      {{big},
       "m.onnx: input shape for 'x' has 1125899906842624 at dimension 0, which exceeds the "
       "dimension limit of 281474976710656 (2^48)"},
      {{18446744073709551615u},
       "m.onnx: input shape for 'x' has 18446744073709551615 at dimension 0, which exceeds the "
       "dimension limit of 281474976710656 (2^48)"},
      {std::vector<std::uint64_t>(100, 1),
       "m.onnx: input shape for 'x' has rank 100; the limit is 64 (the maximum rank)"},
  };
  for (const auto& [dims, message] : cases) {
    EXPECT_EQ(error_of(m, {.input_shapes = {{"x", dims}}}), message);
  }
  // Within the limits the element count is checked too.
  Model two;
  two.input("x", {-1, -1}).output("y");
  two.node("Relu", {"x"}, {"y"}, "r");
  EXPECT_EQ(
      error_of(two, {.input_shapes = {{"x", {std::uint64_t{1} << 40, std::uint64_t{1} << 40}}}}),
      "m.onnx: input shape for 'x' has more than 2^64 elements; the limit is "
      "281474976710656 (2^48) per tensor");
}

TEST(OnnxImport, OpsetAndDomainRejections) {
  Model m(21);
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"}, "r");
  EXPECT_EQ(unsupported_of(m),
            "m.onnx: opset 21 of the default ONNX domain is not supported; supported: 1..20");
  Model d;
  d.input("x", {2}).output("y");
  d.node("FusedThing", {"x"}, {"y"}, "f").set_domain("com.microsoft");
  EXPECT_EQ(unsupported_of(d),
            "node 0 'f' (FusedThing): domain 'com.microsoft' is not supported; "
            "supported: the default ONNX domain");
  Model noir;
  noir.proto().clear_ir_version();
  noir.input("x", {2}).output("x");
  EXPECT_EQ(error_of(noir), "m.onnx: not a valid ONNX model: ir_version is missing");
}

TEST(OnnxImport, SeveralGraphOutputsImportInTheirOrder) {
  Model m;
  m.input("x", {2}).output("b").output("a").output("x");
  m.node("Relu", {"x"}, {"a"}, "r");
  m.node("Tanh", {"x"}, {"b"}, "t");
  const ImportedModel r = ok(m);
  EXPECT_EQ(lines(r.graph()),
            (Lines{"0 input -> [2] 'x'", "1 relu [0] -> [2] 'r'", "2 tanh [0] -> [2] 't'"}));
  // The graph's order, not the nodes': b (tanh), a (relu), then the input itself.
  EXPECT_EQ(r.graph().output_ids, (std::vector<ir::NodeId>{2u, 1u, 0u}));
}

TEST(OnnxImport, ProducerAndOpset) {
  Model m(13);
  m.proto().set_producer_version("1.0");
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"}, "r");
  const ImportedModel r = ok(m);
  EXPECT_EQ(r.producer, "test 1.0");
  EXPECT_EQ(r.opset, 13);
}

}  // namespace
}  // namespace nnplan::format::onnx_test
