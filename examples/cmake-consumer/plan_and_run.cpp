// Plans a model under checked_cpu, compiles the accepted plan and runs it on one input file,
// through the installed nnplan package: the smallest program a C++ team would write first.
// Usage: plan_and_run MODEL (.onnx or .json) INPUT (.npy or .pb)
#include <cstdio>
#include <memory>

#include "nnplan/backend/planned_model.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/format/graph_file.hpp"
#include "nnplan/format/runtime_tensor.hpp"
#include "nnplan/format/tensor_file.hpp"
#include "nnplan/runtime/command_buffer.hpp"
#include "nnplan/runtime/executor.hpp"

namespace {

int fail(const nnplan::Error& error) {
  std::fprintf(stderr, "plan_and_run: %s\n", nnplan::render(error).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: plan_and_run MODEL INPUT\n");
    return 2;
  }
  auto graph = nnplan::format::read_graph_file(argv[1], {.keep_weights = true});
  if (!graph) return fail(graph.error().error);

  auto profile = nnplan::backend::make_profile(nnplan::backend::MaintainedProfile::checked_cpu);
  auto model = nnplan::backend::plan_model(profile, graph->graph, graph->payloads);
  if (!model) return fail(model.error());
  std::printf("planned %zu groups under %s: %s\n", model->lowering().groups.size(),
              profile.name.c_str(), model->accepted() ? "accepted" : "rejected");
  if (!model->accepted()) return 1;

  auto buffer = nnplan::runtime::compile(
      std::make_shared<const nnplan::backend::PlannedModel>(std::move(*model)),
      nnplan::runtime::builtin_handlers(), {.output_names = graph->output_names});
  if (!buffer) return fail(buffer.error());

  auto input = nnplan::format::read_tensor_file(argv[2]);
  if (!input) return fail(input.error());
  nnplan::runtime::Executor executor(std::move(*buffer));
  const nnplan::runtime::NamedTensor bound{.name = executor.buffer().inputs().front().name,
                                           .tensor = nnplan::format::to_runtime_tensor(*input)};
  auto outputs = executor.run({&bound, 1});
  if (!outputs) return fail(outputs.error());
  for (std::size_t i = 0; i < outputs->size(); ++i) {
    const auto& out = (*outputs)[i];
    std::printf("output '%s' %s: first %g\n", executor.buffer().outputs()[i].name.c_str(),
                nnplan::ir::to_string(out.shape).c_str(),
                out.dtype() != nnplan::ir::DType::float32 || out.size() == 0
                    ? 0.0
                    : double{out.floats()[0]});
  }
  return 0;
}
