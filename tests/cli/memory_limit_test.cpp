// A real model planned under a memory limit too small for it (`ulimit -v`): nnplan exits 3 with a
// message saying it ran out of memory, never 134 (an exception reaching std::terminate). Skipped
// under AddressSanitizer, whose shadow memory needs more address space than any such limit allows.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "cli_runner.hpp"

namespace nnplan::cli_test {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif

// y = relu(relu(...relu(x))) over `length` nodes, x of shape [1, 64], opset 17.
std::string relu_chain_model(int length) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("relu_chain");
  auto add_value = [](onnx::ValueInfoProto* v, const std::string& name) {
    v->set_name(name);
    auto* tensor = v->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    tensor->mutable_shape()->add_dim()->set_dim_value(1);
    tensor->mutable_shape()->add_dim()->set_dim_value(64);
  };
  add_value(graph->add_input(), "v0");
  for (int i = 0; i < length; ++i) {
    onnx::NodeProto* node = graph->add_node();
    node->set_op_type("Relu");
    node->set_name("relu_" + std::to_string(i));
    node->add_input("v" + std::to_string(i));
    node->add_output("v" + std::to_string(i + 1));
  }
  add_value(graph->add_output(), "v" + std::to_string(length));
  return model.SerializeAsString();
}

// Runs `nnplan <args>` with its address space limited to `kib` KiB.
CliResult run_limited(long kib, const std::string& args) {
  const fs::path dir = scratch_dir();
  const fs::path err = dir / "stderr_limited.txt";
  const std::string command = "ulimit -v " + std::to_string(kib) + "; " +
                              std::string(NNPLAN_BINARY) + " " + args + " >/dev/null 2>" +
                              err.string();
  const int status = std::system(command.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_text(err);
  return r;
}

TEST(MemoryLimitTest, PlanningAModelTooLargeForTheLimitExitsThreeWithAMessage) {
  if (kAddressSanitizer) GTEST_SKIP() << "ulimit -v cannot hold AddressSanitizer's shadow memory";
  const fs::path model = scratch_dir() / "relu_chain_300k.onnx";
  write_text(model, relu_chain_model(300000));
  // The same command fits when the limit is generous, so the failure below is the limit's.
  const CliResult fits = run_limited(4L * 1024 * 1024, "plan " + model.string());
  ASSERT_EQ(fits.exit_code, 0) << fits.err;
  const CliResult r = run_limited(64L * 1024, "plan " + model.string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(contains(r.err, "out of memory while")) << r.err;
  EXPECT_TRUE(contains(r.err, "ulimit -v")) << r.err;
}

}  // namespace
}  // namespace nnplan::cli_test
