// The ONNX conformance corpora (../shared/conformance/onnx-node and onnx-node-more;
// ../format/onnx_conformance_corpus.hpp) run under the reference provider:
// every model the planning suite (tests/format/onnx_conformance_test.cpp) plans is imported with
// its weights, planned under checked_cpu, compiled, run on test_data_set_0's inputs and compared
// with the data set's outputs within ONNX's tolerance (|got - want| <= atol + rtol * |want|, rtol
// 1e-3, atol 1e-5; NaN matches NaN, an infinity the same infinity; shapes equal). Models whose
// weights, shapes or axes are graph inputs, which the importer refuses ("is a graph input, not an
// initializer" / "not a constant"), are run as ONNX's own runners treat constant inputs: a copy
// of the ModelProto where those inputs are initializers holding the data set's tensors
// (`weights-as-initializers`). tests/data/onnx_conformance_run_expectations.tsv records each
// model's result (matches, not-planned or differs), checked exactly; its error columns are
// informative. NNPLAN_UPDATE_ONNX_RUN_EXPECTATIONS=1 rewrites it from the actual outcomes. Without
// the corpus the tests skip.
//
// The same corpus runs under fast_cpu (SPEC §12: onednn capsules, fused lowering) in a build with
// the onednn handlers: every model that plans there must match the data set's outputs within the
// looser kFastTolerance (rtol 2e-3, atol 1e-4: oneDNN sums in its own order and evaluates
// transcendental functions with its own approximations).
// tests/data/onnx_conformance_fast_cpu_expectations.tsv records each model's result the same way
// (NNPLAN_UPDATE_ONNX_RUN_EXPECTATIONS=1 rewrites both tables), with a note saying how many of its
// groups ran on onednn.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../format/onnx_conformance_corpus.hpp"
#include "nnplan/backend/planned_model.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/format/graph_file.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "nnplan/format/runtime_tensor.hpp"
#include "nnplan/format/tensor_file.hpp"
#include "nnplan/runtime/command_buffer.hpp"
#include "nnplan/runtime/executor.hpp"

namespace {

namespace fs = std::filesystem;
using namespace nnplan;

const fs::path kPlanTable =
    fs::path(NNPLAN_SOURCE_DIR) / "tests" / "data" / "onnx_conformance_expectations.tsv";
const fs::path kRunTable =
    fs::path(NNPLAN_SOURCE_DIR) / "tests" / "data" / "onnx_conformance_run_expectations.tsv";

const fs::path kFastTable =
    fs::path(NNPLAN_SOURCE_DIR) / "tests" / "data" / "onnx_conformance_fast_cpu_expectations.tsv";

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};
// The reference's tolerance: rtol as ONNX's backend-test runner; atol 1e-5 where the runner's
// default is 1e-7 (the table's max_abs_error column shows which models would also pass that).
constexpr Tolerance kReferenceTolerance{.rtol = 1e-3, .atol = 1e-5};
constexpr Tolerance kFastTolerance{.rtol = 2e-3, .atol = 1e-4};

// What the corpus runs under: the profile, the tolerance and the expectations table.
struct CorpusRun {
  backend::BackendProfile profile;
  Tolerance tolerance;
  fs::path table;
  std::string title;  // the table's first comment line
};

std::vector<std::vector<std::string>> read_tsv(const fs::path& path, std::size_t columns) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.starts_with('#') || line.starts_with("test_name\t")) continue;
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, '\t');)
      cells.push_back(cell);
    cells.resize(columns);
    rows.push_back(std::move(cells));
  }
  return rows;
}

const std::map<std::string, fs::path>& corpus_models() {
  static const conformance::CorpusModels models = conformance::corpus_models();
  return models.folders;
}

bool corpora_present() {
  const std::size_t found = conformance::corpus_dirs().size();
  if (found == 1) {
    ADD_FAILURE() << "only one of the conformance corpora is here (" NNPLAN_ONNX_CONFORMANCE_DIR
                     ", " NNPLAN_ONNX_CONFORMANCE_MORE_DIR "): the tables cover both";
  }
  return found == 2;
}

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What running one model gave: matches, not-planned or differs, the largest errors over the
// finite expected values, and why (for not-planned and differs) or how it ran.
struct Outcome {
  std::string result;
  double max_abs = 0;
  double max_rel = 0;
  std::string note;
};

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\t', ' ');
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// The error's message without the file path, with its first note (an unsupported model names its
// first unsupported node there).
std::string reason(const Error& e) {
  std::string message =
      e.kind == ErrorKind::unsupported && !e.notes.empty() ? e.notes.front() : e.message;
  if (const auto at = message.find("model.onnx: "); at != std::string::npos) {
    message.erase(0, at + std::string_view("model.onnx: ").size());
  }
  // Paths inside the corpora, relative to them: the table reads the same on every machine.
  for (const std::string_view dir :
       {NNPLAN_ONNX_CONFORMANCE_MORE_DIR "/", NNPLAN_ONNX_CONFORMANCE_DIR "/"}) {
    for (auto at = message.find(dir); at != std::string::npos; at = message.find(dir)) {
      message.erase(at, dir.size());
    }
  }
  return one_line(message);
}

// The data set's tensors, keyed by the name of the graph input each belongs to: the i-th
// input_<i>.pb is the i-th graph input that is not an initializer. An input whose tensor nnplan
// cannot read (an int32 one) keeps its bytes, for the copy that makes it an initializer, and the
// reason, reported only if the run is fed it.
struct DataSet {
  std::map<std::string, std::string> input_bytes;  // serialized TensorProtos
  std::map<std::string, ir::WeightTensor> inputs;
  std::map<std::string, std::string> unreadable_inputs;
  std::vector<std::string> output_names;  // graph.output order
  std::vector<ir::WeightTensor> outputs;
};

Expected<DataSet> read_data_set(const fs::path& dir, const onnx::ModelProto& model) {
  std::set<std::string> initializers;
  for (const auto& init : model.graph().initializer())
    initializers.insert(init.name());
  DataSet set;
  std::size_t i = 0;
  for (const auto& input : model.graph().input()) {
    if (initializers.contains(input.name())) continue;
    const fs::path file = dir / ("input_" + std::to_string(i++) + ".pb");
    auto tensor = format::read_tensor_file(file);
    set.input_bytes[input.name()] = file_bytes(file);
    if (tensor) {
      set.inputs[input.name()] = std::move(*tensor);
    } else {
      set.unreadable_inputs[input.name()] = "data set: " + reason(tensor.error());
    }
  }
  for (int j = 0; j < model.graph().output_size(); ++j) {
    auto tensor = format::read_tensor_file(dir / ("output_" + std::to_string(j) + ".pb"));
    if (!tensor) return std::unexpected(tensor.error());
    set.output_names.push_back(model.graph().output(j).name());
    set.outputs.push_back(std::move(*tensor));
  }
  return set;
}

// A value with enough digits to tell two float32 values apart.
std::string number(double v) {
  std::ostringstream out;
  out.precision(9);
  out << v;
  return out.str();
}

// The elements of a tensor of any dtype, as doubles (int64 beyond 2^53 rounds; no corpus output
// comes near). `elements<T>()` gives them as T.
template <typename Elements>
std::vector<double> as_doubles(ir::DType dtype, const Elements& elements) {
  const auto widen = [](const auto& values) {
    std::vector<double> out;
    for (const auto v : values)
      out.push_back(static_cast<double>(v));
    return out;
  };
  switch (dtype) {
    case ir::DType::float32:
      return widen(elements.template operator()<float>());
    case ir::DType::int64:
      return widen(elements.template operator()<std::int64_t>());
    case ir::DType::boolean:
      return widen(elements.template operator()<std::uint8_t>());
  }
  return {};
}

// Whether `got` is within tolerance of `want` everywhere (dtypes equal; int64 and bool exactly);
// accumulates the largest errors.
bool close(const runtime::Tensor& got, const ir::WeightTensor& want, const Tolerance& tol,
           Outcome& outcome, std::string& why) {
  if (got.shape != want.shape()) {
    why = "shape " + ir::to_string(got.shape) + ", expected " + ir::to_string(want.shape());
    return false;
  }
  if (got.dtype() != want.dtype()) {
    why = "dtype " + std::string(ir::to_string(got.dtype())) + ", expected " +
          std::string(ir::to_string(want.dtype()));
    return false;
  }
  const std::vector<double> got_values =
      as_doubles(got.dtype(), [&]<typename T>() { return got.as<T>(); });
  const std::vector<double> want_values =
      as_doubles(want.dtype(), [&]<typename T>() { return want.to_vector<T>(); });
  bool ok = true;
  for (std::size_t k = 0; k < got_values.size(); ++k) {
    const double g = got_values[k];
    const double w = want_values[k];
    if (std::isnan(w) || std::isnan(g) || std::isinf(w) || std::isinf(g)) {
      const bool same = (std::isnan(w) && std::isnan(g)) || (std::isinf(w) && g == w);
      if (!same && ok)
        why = "element " + std::to_string(k) + " is " + number(g) + ", expected " + number(w);
      ok = ok && same;
      continue;
    }
    const double abs_error = std::fabs(g - w);
    outcome.max_abs = std::max(outcome.max_abs, abs_error);
    if (w != 0) outcome.max_rel = std::max(outcome.max_rel, abs_error / std::fabs(w));
    // Indices and truth values are exact; only float32 values get the tolerance.
    const bool exact = got.dtype() != ir::DType::float32;
    if (exact ? abs_error != 0 : abs_error > tol.atol + tol.rtol * std::fabs(w)) {
      if (ok) why = "element " + std::to_string(k) + " is " + number(g) + ", expected " + number(w);
      ok = false;
    }
  }
  return ok;
}

// Plans, compiles and runs the imported graph on the data set, then compares its outputs.
// How many of the plan's groups run on onednn, for the fast_cpu table's notes.
std::string onednn_share(const backend::PlannedModel& model) {
  std::size_t onednn = 0;
  std::size_t fused = 0;
  for (const backend::LoweredKernelGroup& g : model.lowering().groups) {
    if (model.lowering().capsule(g).provider != backend::Provider::onednn) continue;
    ++onednn;
    if (g.grouping == backend::GroupingKind::fused) ++fused;
  }
  return "onednn " + std::to_string(onednn) + " of " +
         std::to_string(model.lowering().groups.size()) + " groups" +
         (fused > 0 ? " (" + std::to_string(fused) + " fused)" : "");
}

Outcome run_and_compare(const CorpusRun& corpus, std::shared_ptr<const ir::CheckedGraph> graph,
                        std::shared_ptr<const ir::WeightStore> payloads,
                        std::vector<std::string> output_names, const DataSet& data,
                        std::string note) {
  Outcome outcome{.result = "not-planned", .note = note};
  auto planned = backend::plan_model(corpus.profile, std::move(graph), std::move(payloads));
  if (!planned || !planned->accepted()) {
    outcome.note = one_line(planned ? std::string("gate rejected the plan")
                                    : "planning: " + reason(planned.error()));
    return outcome;
  }
  outcome.result = "differs";
  if (corpus.profile.config.preference.provider == backend::Provider::onednn) {
    note = note.empty() ? onednn_share(*planned) : note + "; " + onednn_share(*planned);
    outcome.note = note;
  }
  auto shared = std::make_shared<const backend::PlannedModel>(std::move(*planned));
  auto buffer =
      runtime::compile(shared, runtime::builtin_handlers(), {.output_names = output_names});
  if (!buffer) {
    outcome.note = "compile: " + reason(buffer.error());
    return outcome;
  }
  runtime::Executor exec(std::move(*buffer));
  std::vector<runtime::NamedTensor> inputs;
  for (const runtime::IoBinding& binding : exec.buffer().inputs()) {
    const auto found = data.inputs.find(binding.name);
    if (found == data.inputs.end()) {
      const auto unreadable = data.unreadable_inputs.find(binding.name);
      outcome.note = unreadable != data.unreadable_inputs.end()
                         ? unreadable->second
                         : "graph input '" + binding.name + "' has no tensor in the data set";
      return outcome;
    }
    inputs.push_back({binding.name, format::to_runtime_tensor(found->second)});
  }
  auto outputs = exec.run(inputs);
  if (!outputs) {
    outcome.note = "run: " + reason(outputs.error());
    return outcome;
  }
  std::string why;
  bool ok = true;
  for (std::size_t j = 0; j < data.output_names.size(); ++j) {
    const auto bindings = exec.buffer().outputs();
    const auto at = std::find_if(bindings.begin(), bindings.end(),
                                 [&](const auto& b) { return b.name == data.output_names[j]; });
    if (at == bindings.end()) {
      outcome.note = "output '" + data.output_names[j] + "' is not an output of the buffer";
      return outcome;
    }
    std::string output_why;
    if (!close((*outputs)[static_cast<std::size_t>(at - bindings.begin())], data.outputs[j],
               corpus.tolerance, outcome, output_why)) {
      if (ok) why = "output '" + data.output_names[j] + "': " + output_why;
      ok = false;
    }
  }
  outcome.result = ok ? "matches" : "differs";
  if (!ok) outcome.note = note.empty() ? why : note + "; " + why;
  return outcome;
}

// The name of the graph input the importer wants constant: `... 'W' is a graph input, not ...`.
std::optional<std::string> constant_input_named(const Error& e) {
  std::vector<std::string> texts = e.notes;
  texts.push_back(e.message);
  for (const std::string& text : texts) {
    const auto at = text.find("' is a graph input, not ");
    if (at == std::string::npos) continue;
    const auto open = text.rfind('\'', at - 1);
    if (open == std::string::npos) continue;
    return text.substr(open + 1, at - open - 1);
  }
  return std::nullopt;
}

// A model the importer refuses because a graph input should be constant: the inputs it names,
// one import at a time, become initializers holding the data set's tensors, then the copy runs.
Outcome run_with_inputs_as_initializers(const CorpusRun& corpus, onnx::ModelProto model,
                                        DataSet data, Error error) {
  std::vector<std::string> moved;
  for (;;) {
    const std::optional<std::string> name = constant_input_named(error);
    const auto bytes = name ? data.input_bytes.find(*name) : data.input_bytes.end();
    if (bytes == data.input_bytes.end()) {
      return {.result = "not-planned", .note = reason(error)};
    }
    onnx::TensorProto* init = model.mutable_graph()->add_initializer();
    if (!init->ParseFromString(bytes->second)) {
      return {.result = "not-planned", .note = "input '" + *name + "' does not parse"};
    }
    init->set_name(*name);
    auto* graph_inputs = model.mutable_graph()->mutable_input();
    graph_inputs->erase(std::remove_if(graph_inputs->begin(), graph_inputs->end(),
                                       [&](const auto& in) { return in.name() == *name; }),
                        graph_inputs->end());
    data.inputs.erase(*name);
    data.input_bytes.erase(bytes);
    moved.push_back(*name);
    const std::string serialized = model.SerializeAsString();
    auto imported = format::import_onnx(
        std::as_bytes(std::span(serialized.data(), serialized.size())), "model.onnx");
    if (imported) {
      std::string note = "weights-as-initializers:";
      for (const std::string& m : moved)
        note += " " + m;
      return run_and_compare(corpus,
                             std::make_shared<const ir::CheckedGraph>(std::move(imported->checked)),
                             std::make_shared<const ir::WeightStore>(std::move(imported->payloads)),
                             imported->output_names, data, note);
    }
    error = imported.error();
  }
}

Outcome run_model(const CorpusRun& corpus, const std::string& test_name, const fs::path& dir,
                  bool planned_by_import) {
  onnx::ModelProto model;
  if (!model.ParseFromString(file_bytes(dir / "model.onnx"))) {
    return {.result = "not-planned", .note = "model.onnx does not parse"};
  }
  auto loaded = format::read_graph_file(dir / "model.onnx", {.keep_weights = true});
  EXPECT_EQ(loaded.has_value(), planned_by_import)
      << test_name << ": the import disagrees with " << kPlanTable.string();
  if (!loaded && !constant_input_named(loaded.error().error)) {
    return {.result = "not-planned", .note = reason(loaded.error().error)};
  }
  auto data = read_data_set(dir / "test_data_set_0", model);
  if (!data) return {.result = "not-planned", .note = "data set: " + reason(data.error())};
  if (loaded)
    return run_and_compare(corpus, loaded->graph, loaded->payloads, loaded->output_names, *data,
                           "");
  return run_with_inputs_as_initializers(corpus, std::move(model), std::move(*data),
                                         loaded.error().error);
}

// Runs every model of the corpus under `corpus` and checks each outcome against its table.
void check_corpus(const CorpusRun& corpus) {
  std::map<std::string, bool> planned_by_import;
  for (const auto& row : read_tsv(kPlanTable, 3))
    planned_by_import[row[0]] = row[1] == "planned";
  std::map<std::string, std::string> expected;
  for (const auto& row : read_tsv(corpus.table, 5)) {
    EXPECT_TRUE(expected.emplace(row[0], row[1]).second) << "row listed twice: " << row[0];
    EXPECT_TRUE(row[1] == "matches" || row[1] == "not-planned" || row[1] == "differs")
        << row[0] << ": result is '" << row[1] << "', not matches, not-planned or differs";
  }
  const bool update = std::getenv("NNPLAN_UPDATE_ONNX_RUN_EXPECTATIONS") != nullptr;
  std::string updated =
      corpus.title +
      "\n# (tests/runtime/onnx_conformance_run_test.cpp): matches, not-planned or differs, the "
      "largest\n"
      "# absolute and relative errors (informative), and a note. Regenerate with\n"
      "# NNPLAN_UPDATE_ONNX_RUN_EXPECTATIONS=1 and review every change by eye.\n"
      "test_name\tresult\tmax_abs_error\tmax_rel_error\tnote\n";
  const std::map<std::string, fs::path>& models = corpus_models();
  for (const auto& [name, dir] : models) {
    const Outcome outcome = run_model(corpus, name, dir, planned_by_import[name]);
    // A model that plans must match, whatever the table says: `differs` is a bug.
    EXPECT_NE(outcome.result, "differs")
        << name << " under " << corpus.profile.name << ": " << outcome.note;
    if (update) {
      std::ostringstream row;
      row << name << '\t' << outcome.result << '\t';
      if (outcome.result != "not-planned") {
        row.precision(3);
        row << outcome.max_abs << '\t' << outcome.max_rel;
      } else {
        row << '\t';
      }
      row << '\t' << outcome.note << '\n';
      updated += row.str();
    }
    const auto row = expected.find(name);
    if (row == expected.end()) {
      ADD_FAILURE() << "model missing from " << corpus.table.string() << ": " << name;
      continue;
    }
    EXPECT_EQ(outcome.result, row->second) << name << ": " << outcome.note;
  }
  for (const auto& [name, result] : expected) {
    EXPECT_TRUE(models.contains(name)) << "table row without a model: " << name;
  }
  if (update) std::ofstream(corpus.table, std::ios::binary | std::ios::trunc) << updated;
}

TEST(OnnxConformanceRun, EveryModelMatchesItsExpectation) {
  if (!corpora_present()) {
    GTEST_SKIP() << "ONNX conformance corpora not found at " NNPLAN_ONNX_CONFORMANCE_DIR
                    " and " NNPLAN_ONNX_CONFORMANCE_MORE_DIR;
  }
  check_corpus({.profile = backend::make_profile(backend::MaintainedProfile::checked_cpu),
                .tolerance = kReferenceTolerance,
                .table = kRunTable,
                .title = "# One row per model of the ONNX conformance corpus run under the "
                         "reference provider"});
}

TEST(OnnxConformanceRun, EveryModelMatchesItsExpectationUnderFastCpu) {
  if (!corpora_present()) {
    GTEST_SKIP() << "ONNX conformance corpora not found at " NNPLAN_ONNX_CONFORMANCE_DIR
                    " and " NNPLAN_ONNX_CONFORMANCE_MORE_DIR;
  }
  const auto& handlers = runtime::builtin_handlers().handlers();
  if (std::none_of(handlers.begin(), handlers.end(), [](const auto& entry) {
        return entry.first.provider == backend::Provider::onednn;
      })) {
    GTEST_SKIP() << "this build has no onednn handlers";
  }
  check_corpus({.profile = backend::make_profile(backend::MaintainedProfile::fast_cpu),
                .tolerance = kFastTolerance,
                .table = kFastTable,
                .title = "# One row per model of the ONNX conformance corpus run under fast_cpu "
                         "(onednn, fused lowering)"});
}

}  // namespace
