// `nnplan run GRAPH`: plan a model, refuse it unless the probe of this machine confirms every
// provider and device its groups use, compile it into a command buffer and run it on the inputs
// given as .npy or ONNX TensorProto .pb files (SPEC §11). Prints the plan report, then each
// output's summary (or writes it with --output), latency statistics with --repeat, and writes what
// really ran to --trace as Chrome Trace Event JSON. Exit 0 ran, 1 rejected or refused (gate,
// unprobed provider or device, unbound capsule, failed guard), 2 usage, 3 unreadable input, 4 an
// unsupported model.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "cli.hpp"
#include "nnplan/backend/report.hpp"
#include "nnplan/format/graph_file.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "nnplan/format/output_file.hpp"
#include "nnplan/format/runtime_tensor.hpp"
#include "nnplan/format/tensor_file.hpp"
#include "nnplan/format/trace_json.hpp"
#include "nnplan/runtime/command_buffer.hpp"
#include "nnplan/runtime/executor.hpp"
#include "nnplan/runtime/probe.hpp"
#include "nnplan/runtime/refusal.hpp"
#include "nnplan/runtime/thread_bound.hpp"
#include "nnplan/spelling_hint.hpp"
#include "nnplan/text_escape.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

namespace {

// What one --trace holds with --repeat: the first kMaxTracedRuns runs, and no more runs than keep
// it within kMaxTraceEvents command events (at least one run); the later runs are timed but not
// traced. The events are kept until the file is written and the JSON is built in memory: 50000
// events of a 4-command MLP peak at about 200 MB and write 27 MB.
constexpr std::uint64_t kMaxTracedRuns = 1000;
constexpr std::uint64_t kMaxTraceEvents = 50000;

// Execution errors carry their SPEC §11 kind in the first line (`unprobed-provider: group 0 ...`),
// so a script can tell a refusal from a rejection.
int fail_run(Error e, int code) {
  switch (e.kind) {
    case ErrorKind::unprobed_provider:
    case ErrorKind::unprobed_device:
    case ErrorKind::unbound_capsule:
    case ErrorKind::guard_failed:
    case ErrorKind::bad_input:
      e.message = std::string(to_string(e.kind)) + ": " + e.message;
      break;
    default:
      break;
  }
  return fail(e, code);
}

// NAME=FILE, or FILE alone (the model's only input); `=` may not appear in a name.
struct FileBinding {
  std::string name;  // empty: the only input or output
  std::string path;
};

std::expected<FileBinding, int> parse_binding(std::string_view flag, const std::string& value) {
  const auto eq = value.find('=');
  if (eq == std::string::npos) return FileBinding{.name = {}, .path = value};
  if (eq == 0 || eq + 1 == value.size()) {
    return std::unexpected(fail(
        make_error(ErrorKind::invalid_input, std::string(flag) + " '" + shown_argument(value) +
                                                 "': expected NAME=FILE (FILE a .npy or .pb file), "
                                                 "e.g. input=x.npy"),
        kExitUsage));
  }
  return FileBinding{.name = value.substr(0, eq), .path = value.substr(eq + 1)};
}

std::string io_list(std::span<const runtime::IoBinding> bindings) {
  std::string s;
  for (const auto& b : bindings) {
    s += (s.empty() ? "'" : ", '") + escape_controls(b.name) + "' " + ir::to_string(*b.shape);
  }
  return s;
}

// The binding's name, or the only one's when none is given.
std::expected<std::string, int> resolve_name(std::string_view what, const FileBinding& b,
                                             std::span<const runtime::IoBinding> bindings) {
  if (!b.name.empty()) return b.name;
  if (bindings.size() == 1) return bindings.front().name;
  return std::unexpected(fail_run(
      make_error(ErrorKind::bad_input, "--" + std::string(what) + " '" + shown_argument(b.path) +
                                           "' names no " + std::string(what) + "; the model has " +
                                           std::to_string(bindings.size()) + ": " +
                                           io_list(bindings) + "; write NAME=FILE"),
      kExitBadInput));
}

// The inputs `files` name, read for `buffer`; those in `read_ahead` (the files of open
// dimensions, read to plan their shapes) are taken from there.
std::expected<std::vector<runtime::NamedTensor>, int> read_inputs(
    const std::vector<FileBinding>& files, const runtime::CommandBuffer& buffer,
    std::map<std::string, runtime::Tensor>& read_ahead) {
  std::vector<runtime::NamedTensor> inputs;
  for (const FileBinding& f : files) {
    auto name = resolve_name("input", f, buffer.inputs());
    if (!name) return std::unexpected(name.error());
    if (const auto ahead = read_ahead.find(*name); ahead != read_ahead.end()) {
      inputs.push_back({.name = *name, .tensor = std::move(ahead->second)});
      read_ahead.erase(ahead);
      continue;
    }
    // A name the model lacks is reported by the executor, with the model's inputs.
    const auto binding = std::ranges::find(buffer.inputs(), *name, &runtime::IoBinding::name);
    std::optional<format::TensorFileExpectation> expect;
    if (binding != buffer.inputs().end()) {
      expect = format::TensorFileExpectation{.shape = *binding->shape, .dtype = binding->dtype};
    }
    auto tensor = format::read_tensor_file(f.path, expect ? &*expect : nullptr);
    if (!tensor) {
      Error e = std::move(tensor.error());
      e.kind = ErrorKind::bad_input;
      e.message = "input '" + escape_controls(*name) + "': " + e.message;
      return std::unexpected(fail_run(e, kExitBadInput));
    }
    if (binding != buffer.inputs().end() && tensor->dtype() != binding->dtype) {
      return std::unexpected(fail_run(
          make_error(ErrorKind::bad_input,
                     "input '" + escape_controls(*name) + "' (" + shown_argument(f.path) +
                         "): dtype " + std::string(ir::to_string(tensor->dtype())) +
                         "; the model expects " + std::string(ir::to_string(binding->dtype))),
          kExitBadInput));
    }
    inputs.push_back({.name = *name, .tensor = format::to_runtime_tensor(*tensor)});
  }
  if (files.empty() && !buffer.inputs().empty()) {
    return std::unexpected(
        fail_run(make_error(ErrorKind::bad_input,
                            "no --input given; the model's inputs: " + io_list(buffer.inputs()) +
                                "; e.g. --input " + escape_controls(buffer.inputs().front().name) +
                                "=x.npy"),
                 kExitBadInput));
  }
  return inputs;
}

// One element as the summary shows it: floats to six significant digits, int64 and bool (0 or
// 1) exactly.
template <typename T>
std::string shown_value(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return fmt::format("{:.6g}", v);
  } else {
    return fmt::format("{}", static_cast<std::int64_t>(v));
  }
}

template <typename T>
std::string summary_of(std::string line, const std::vector<T>& values) {
  if (values.empty()) return line + ": no values";
  // NaNs are counted, not compared: min and max are over the other values.
  std::size_t nans = 0;
  std::optional<T> lo;
  std::optional<T> hi;
  double sum = 0;
  for (T v : values) {
    sum += static_cast<double>(v);
    if constexpr (std::is_same_v<T, float>) {
      if (std::isnan(v)) {
        ++nans;
        continue;
      }
    }
    lo = lo ? std::min(*lo, v) : v;
    hi = hi ? std::max(*hi, v) : v;
  }
  line += ":";
  if (lo) line += " min " + shown_value(*lo) + " max " + shown_value(*hi);
  if (nans > 0) line += fmt::format(" nan {} of {}", nans, values.size());
  line += fmt::format(" mean {:.6g} first [", sum / static_cast<double>(values.size()));
  const std::size_t shown = std::min<std::size_t>(values.size(), 6);
  for (std::size_t i = 0; i < shown; ++i)
    line += (i ? ", " : "") + shown_value(values[i]);
  return line + (values.size() > shown ? ", ...]" : "]");
}

// `output 'y' [1,10]: min -1.5 max 2.25 mean 0.125 first [0.5, -1.5, ...]`; an int64 or bool
// output names its dtype after the shape (`output 'ids' [3] int64: ...`).
std::string summary(const runtime::IoBinding& binding, const runtime::Tensor& t) {
  std::string line = "output '" + escape_controls(binding.name) + "' " + ir::to_string(t.shape);
  if (t.dtype() != ir::DType::float32) line += " " + std::string(ir::to_string(t.dtype()));
  return std::visit([&](const auto& values) { return summary_of(std::move(line), values); },
                    t.elements);
}

// `[batch,3,224,224]`: an input's declared shape with each open dimension by its name (`?`
// unnamed).
std::string symbolic_shape(const format::OnnxValueInfo& input) {
  std::string s;
  for (std::size_t axis = 0; axis < input.dims.size(); ++axis) {
    s += (axis ? "," : "") + (input.dims[axis] ? std::to_string(*input.dims[axis])
                              : input.dim_names[axis].empty()
                                  ? std::string("?")
                                  : escape_controls(input.dim_names[axis]));
  }
  return "[" + s + "]";
}

// `flags` with an --input-shape for every input of the ONNX model that leaves a dimension open
// and has none: the shape of its input file, which is read here (checked against the model's
// dtype, rank and fixed dimensions, and inputs sharing a named dimension against each other) and
// kept in `read_ahead` for the run. So the model is planned once, for the sizes it runs. A model
// whose interface cannot be read first (a pipe, a file that is no model) is left to the planning,
// which reports it.
std::expected<GraphFlags, int> open_dims_from_files(
    const std::vector<FileBinding>& files, GraphFlags flags,
    std::map<std::string, runtime::Tensor>& read_ahead) {
  std::error_code ec;
  if (format::detect_graph_format(flags.graph) != format::GraphFileFormat::onnx ||
      !std::filesystem::is_regular_file(flags.graph, ec)) {
    return flags;
  }
  const auto interface = format::read_onnx_interface(flags.graph);
  if (!interface) return flags;
  auto given = parse_input_shapes(flags.input_shapes);
  if (!given) return std::unexpected(given.error());
  const auto& inputs = interface->inputs;
  // An --input-shape for an input the model lacks is the planning's to report (a usage error).
  for (const auto& [name, dims] : given->input_shapes) {
    if (std::ranges::none_of(inputs, [&](const auto& in) { return in.name == name; })) return flags;
  }
  const auto is_open = [&](const format::OnnxValueInfo& in) {
    return !given->input_shapes.contains(in.name) &&
           std::ranges::any_of(in.dims, [](const auto& d) { return !d.has_value(); });
  };
  if (std::ranges::none_of(inputs, is_open)) return flags;
  std::string listed;
  std::vector<std::string_view> names;
  for (const format::OnnxValueInfo& in : inputs) {
    listed += (listed.empty() ? "'" : ", '") + escape_controls(in.name) + "' " + symbolic_shape(in);
    names.push_back(in.name);
  }
  for (const FileBinding& f : files) {
    if (f.name.empty() && inputs.size() != 1) {
      return std::unexpected(fail_run(
          make_error(ErrorKind::bad_input,
                     "--input '" + shown_argument(f.path) + "' names no input; the model has " +
                         std::to_string(inputs.size()) + ": " + listed + "; write NAME=FILE"),
          kExitBadInput));
    }
    if (!f.name.empty() && std::ranges::find(names, f.name) == names.end()) {
      return std::unexpected(fail_run(
          make_error(ErrorKind::bad_input,
                     "--input '" + escape_controls(f.name) + "' is not an input of the model; " +
                         did_you_mean(f.name, names) + "its inputs: " + listed),
          kExitBadInput));
    }
  }
  // Each named open dimension's size and the file (or --input-shape) it was first read from.
  std::map<std::string, std::pair<ir::Dim, std::string>> named_sizes;
  for (const format::OnnxValueInfo& in : inputs) {
    const auto fixed = given->input_shapes.find(in.name);
    if (fixed == given->input_shapes.end()) continue;
    for (std::size_t axis = 0; axis < in.dim_names.size() && axis < fixed->second.size(); ++axis) {
      if (in.dim_names[axis].empty()) continue;
      named_sizes.try_emplace(in.dim_names[axis], fixed->second[axis], "--input-shape " + in.name);
    }
  }
  for (const format::OnnxValueInfo& in : inputs) {
    if (!is_open(in)) continue;
    const auto file = std::ranges::find_if(files, [&](const FileBinding& f) {
      return f.name == in.name || (f.name.empty() && inputs.size() == 1);
    });
    if (file == files.end()) {
      return std::unexpected(
          fail_run(make_error(ErrorKind::bad_input,
                              "no --input given for '" + escape_controls(in.name) +
                                  "', whose shape " + symbolic_shape(in) +
                                  " the model leaves open (its file gives the sizes); the model's "
                                  "inputs: " +
                                  listed + "; e.g. --input " + escape_controls(in.name) + "=" +
                                  escape_controls(in.name) + ".npy"),
                   kExitBadInput));
    }
    auto tensor = format::read_tensor_file(file->path);
    const auto bad = [&](const std::string& problem) {
      return std::unexpected(fail_run(
          make_error(ErrorKind::bad_input, "input '" + escape_controls(in.name) + "' (" +
                                               shown_argument(file->path) + "): " + problem),
          kExitBadInput));
    };
    if (!tensor) return bad(tensor.error().message);
    if (in.dtype && tensor->dtype() != *in.dtype) {
      return bad("dtype " + std::string(ir::to_string(tensor->dtype())) + "; the model expects " +
                 std::string(ir::to_string(*in.dtype)));
    }
    const ir::Shape& got = tensor->shape();
    bool fits = got.rank() == in.dims.size();
    for (std::size_t axis = 0; fits && axis < got.rank(); ++axis) {
      fits = !in.dims[axis] || got.dims[axis] == *in.dims[axis];
    }
    if (!fits)
      return bad("shape " + ir::to_string(got) + "; the model expects " + symbolic_shape(in));
    if (std::ranges::find(got.dims, ir::Dim{0}) != got.dims.end()) {
      return bad("shape " + ir::to_string(got) +
                 " has an empty dimension; nnplan runs inputs of at least one element");
    }
    // One name, one size: the files of inputs that share a named dimension must agree on it.
    for (std::size_t axis = 0; axis < got.rank(); ++axis) {
      const std::string& name = in.dim_names[axis];
      if (name.empty()) continue;
      const auto [seen, first] = named_sizes.try_emplace(name, got.dims[axis], file->path);
      if (!first && seen->second.first != got.dims[axis]) {
        return bad("dimension '" + escape_controls(name) + "' is " +
                   std::to_string(got.dims[axis]) + " here but " +
                   std::to_string(seen->second.first) + " in " +
                   shown_argument(seen->second.second) + "; the model names both '" +
                   escape_controls(name) + "', one size");
      }
    }
    std::string fixed = in.name + "=";
    for (std::size_t axis = 0; axis < got.rank(); ++axis)
      fixed += (axis ? "," : "") + std::to_string(got.dims[axis]);
    flags.input_shapes.push_back(std::move(fixed));
    read_ahead.emplace(in.name, format::to_runtime_tensor(*tensor));
  }
  return flags;
}

int exit_code_of(const Error& e) {
  switch (e.kind) {
    case ErrorKind::bad_input:
    case ErrorKind::invalid_input:
    case ErrorKind::resource_exhausted:
      return kExitBadInput;
    case ErrorKind::unsupported:
      return kExitUnsupported;
    default:
      return kExitRejected;
  }
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "run", "Plan a model, check the plan against this machine's probe, compile it and run it");
  cmd->footer(
      "Example: nnplan run examples/cnn.json --input image=examples/cnn_input.npy "
      "--trace cnn.trace.json\n"
      "         nnplan run model.onnx --input x=x.pb --output y=y.npy --repeat 20 --quiet\n"
      "         nnplan run examples/cnn.json --input examples/cnn_input.npy --profile fast_cpu "
      "--threads 4\n"
      "Inputs and outputs are NumPy .npy or ONNX TensorProto .pb files; --input FILE alone names\n"
      "the model's only input. Without --output each output is summarised. The trace opens in\n"
      "https://ui.perfetto.dev or chrome://tracing. Nothing falls back to another provider or\n"
      "device: a plan whose providers the probe does not confirm is refused before it runs.\n"
      "Exit codes: 0 ran, 1 rejected or refused (gate, unprobed-provider, unprobed-device,\n"
      "unbound-capsule, guard-failed), 2 usage error, 3 unreadable graph or bad input "
      "(bad-input),\n"
      "4 a valid model that uses something nnplan does not support.");
  struct Flags {
    ConfigFlags config;
    GraphFlags graph;
    std::optional<std::string> lowering;
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    std::optional<std::string> trace;
    std::uint64_t repeat = 1;
    std::optional<int> threads;
    bool quiet = false;
  };
  auto flags = std::make_shared<Flags>();
  flags->graph.keep_weights = true;
  flags->graph.add_to(*cmd);
  flags->config.add_to(*cmd);
  cmd->add_option("--lowering", flags->lowering,
                  "Lowering mode replacing the profile's: singleton, coalesced or fused");
  cmd->add_option("--input", flags->inputs, "An input, NAME=FILE (.npy or .pb); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--output", flags->outputs,
                  "Write an output to a file, NAME=FILE (.npy or .pb); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--trace", flags->trace, "Write what ran as Chrome Trace Event JSON to FILE");
  cmd->add_option("--repeat", flags->repeat, "Run N times and print latency statistics")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1000000}));
  cmd->add_option("--threads", flags->threads,
                  "Threads each onednn command may use (1 to 4 per logical CPU; default: every "
                  "core); the reference provider always runs on the calling thread")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            const bool digits =
                !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
            if (!digits || v.find_first_not_of('0') == std::string::npos) {
              return "needs a whole number of threads, at least 1; got '" + v + "'";
            }
            // A count too long for a long long is past the bound as well.
            const long long n = v.size() < 19 ? std::stoll(v) : LLONG_MAX;
            if (n > nnplan::runtime::max_threads()) {
              return "'" + v + "' is more threads than this machine can use; give " +
                     nnplan::runtime::thread_range();
            }
            return {};
          },
          "N>=1"));
  cmd->add_flag("--quiet", flags->quiet, "Do not print the plan report");
  cmd->callback([flags, &exit_code] {
    std::vector<std::filesystem::path> reads = command_inputs(flags->graph, flags->config);
    std::vector<FileBinding> inputs;
    std::vector<FileBinding> outputs;
    for (const std::string& v : flags->inputs) {
      auto b = parse_binding("--input", v);
      if (!b) {
        exit_code = b.error();
        return;
      }
      reads.emplace_back(b->path);
      inputs.push_back(std::move(*b));
    }
    for (const std::string& v : flags->outputs) {
      auto b = parse_binding("--output", v);
      if (!b) {
        exit_code = b.error();
        return;
      }
      outputs.push_back(std::move(*b));
    }
    for (const FileBinding& o : outputs) {
      if (auto ok = format::check_output_path(o.path, reads); !ok) {
        Error e = std::move(ok.error());
        e.message = "--output " + e.message;
        exit_code = fail(e, kExitUsage);
        return;
      }
      if (auto ok = format::tensor_file_format(o.path); !ok) {
        Error e = std::move(ok.error());
        e.message = "--output " + e.message;
        exit_code = fail(e, kExitUsage);
        return;
      }
    }
    if (flags->trace) {
      if (auto ok = format::check_output_path(*flags->trace, reads); !ok) {
        Error e = std::move(ok.error());
        e.message = "--trace " + e.message;
        exit_code = fail(e, kExitUsage);
        return;
      }
    }
    // Each file is written once: a second --output or the --trace onto the same file would
    // replace what the first wrote.
    std::vector<std::pair<std::string, std::filesystem::path>> writes;
    for (const FileBinding& o : outputs)
      writes.emplace_back("--output " + o.path, o.path);
    if (flags->trace) writes.emplace_back("--trace " + *flags->trace, *flags->trace);
    for (std::size_t i = 0; i < writes.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        // Through symbolic links, one that points to a file not written yet included.
        if (format::written_file(writes[i].second) != format::written_file(writes[j].second)) {
          continue;
        }
        exit_code = fail(make_error(ErrorKind::invalid_input,
                                    shown_argument(writes[i].first) + " names the file " +
                                        shown_argument(writes[j].first) +
                                        " writes; give each output and the trace its own file"),
                         kExitUsage);
        return;
      }
    }

    // Dimensions the model leaves open take the sizes of the input files, read before planning.
    std::map<std::string, runtime::Tensor> read_ahead;
    auto graph_flags = open_dims_from_files(inputs, flags->graph, read_ahead);
    if (!graph_flags) {
      exit_code = graph_flags.error();
      return;
    }
    auto planned = plan_graph_input(flags->config, flags->lowering, *graph_flags, Digest::compute);
    if (!planned) {
      exit_code = planned.error();
      return;
    }
    // The model's external data files, known now that it is read, are inputs as well.
    reads = with_weight_files(std::move(reads), planned->graph);
    for (const auto& [flag, path] : writes) {
      if (auto ok = format::check_output_path(path, reads); !ok) {
        Error e = std::move(ok.error());
        e.message = flag.substr(0, flag.find(' ')) + " " + e.message;
        exit_code = fail(e, kExitUsage);
        return;
      }
    }
    const ir::Graph& graph = planned->graph.graph->graph();
    const bool onnx = planned->graph.onnx();
    if (!planned->model) {
      fmt::print("{}\n{}\n", profile_summary(planned->profile), render(planned->model.error()));
      exit_code = kExitRejected;
      return;
    }
    if (!flags->quiet && !planned->graph.symbolic_dims.empty()) {
      std::string dims;
      for (const format::SymbolicDim& d : planned->graph.symbolic_dims)
        dims += (dims.empty() ? "" : ", ") + escape_controls(format::describe(d));
      fmt::print("symbolic dimensions: {} (planned for these sizes)\n", dims);
    }
    if (!flags->quiet || !planned->model->accepted()) {
      write_graph_report(planned->profile, planned->model->evaluation(), onnx ? &graph : nullptr,
                         [](std::string_view text) { fmt::print("{}", text); });
    }
    if (!planned->model->accepted()) {
      exit_code = fail(make_error(ErrorKind::rejected_by_policy,
                                  "the plan was rejected by its gate; nothing was run"),
                       kExitRejected);
      return;
    }
    auto model = std::make_shared<const PlannedModel>(std::move(*planned->model));
    // The probe looks only for what the plan uses: a CPU plan never loads the CUDA driver.
    const runtime::HostProbe probe = runtime::probe_host(runtime::probe_options_for(*model));
    if (auto ok = runtime::check_probed(*model, probe); !ok) {
      exit_code = fail_run(ok.error(), kExitRejected);
      return;
    }
    auto buffer = runtime::compile(model, runtime::builtin_handlers(),
                                   {.output_names = planned->graph.output_names,
                                    .settings = {.threads = flags->threads.value_or(0)}});
    if (!buffer) {
      exit_code = fail_run(buffer.error(), exit_code_of(buffer.error()));
      return;
    }
    auto values = read_inputs(inputs, *buffer, read_ahead);
    if (!values) {
      exit_code = values.error();
      return;
    }
    std::vector<std::pair<std::size_t, std::string>> output_files;
    for (const FileBinding& o : outputs) {
      auto name = resolve_name("output", o, buffer->outputs());
      if (!name) {
        exit_code = name.error();
        return;
      }
      const auto outs = buffer->outputs();
      const auto it = std::ranges::find(outs, *name, &runtime::IoBinding::name);
      if (it == outs.end()) {
        exit_code = fail_run(
            make_error(ErrorKind::bad_input,
                       "--output '" + escape_controls(*name) +
                           "' is not an output of the model; its outputs: " + io_list(outs)),
            kExitBadInput);
        return;
      }
      output_files.emplace_back(static_cast<std::size_t>(it - outs.begin()), o.path);
    }

    const std::size_t commands = buffer->commands().size();
    std::size_t reorders = 0;
    std::size_t onednn_commands = 0;
    for (const runtime::Command& c : buffer->commands()) {
      reorders += c.reorder ? 1 : 0;
      onednn_commands += buffer->capsule(c).provider == Provider::onednn ? 1 : 0;
    }
    // Where the commands run: the executor launches every command from the calling thread; a
    // onednn command's primitive may spread over oneDNN's OpenMP threads.
    std::string where = "on the calling thread";
    if (onednn_commands > 0) {
      const int t = flags->threads.value_or(0);
      where =
          "from the calling thread, onednn's on " +
          (t > 0
               ? fmt::format("up to {} thread{}", t, t == 1 ? "" : "s")
               : std::string("OpenMP's default threads (one per logical CPU, or OMP_NUM_THREADS)"));
    }
    const std::string reorder_count =
        reorders == 0 ? "" : fmt::format(" ({} reorder{})", reorders, reorders == 1 ? "" : "s");
    const std::size_t peak = buffer->peak_arena_bytes();
    const std::size_t no_reuse = buffer->no_reuse_bytes();
    runtime::Executor executor(std::move(*buffer));
    runtime::ExecutionTrace trace;
    // The runs the trace records (kMaxTracedRuns).
    const std::uint64_t traced_runs = std::clamp<std::uint64_t>(
        std::min<std::uint64_t>(kMaxTracedRuns,
                                kMaxTraceEvents / std::max<std::size_t>(commands, 1)),
        1, flags->repeat);
    std::vector<double> latencies_ms;
    Expected<std::vector<runtime::Tensor>> result;
    for (std::uint64_t i = 0; i < flags->repeat; ++i) {
      const auto start = std::chrono::steady_clock::now();
      result = executor.run(*values, flags->trace && i < traced_runs ? &trace : nullptr);
      const auto end = std::chrono::steady_clock::now();
      if (!result) {
        exit_code = fail_run(result.error(), exit_code_of(result.error()));
        return;
      }
      latencies_ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
    fmt::print("run: {} command{}{} {}; arena {} bytes at peak ({} without reuse)\n", commands,
               commands == 1 ? "" : "s", reorder_count, where, peak, no_reuse);
    const auto out_bindings = executor.buffer().outputs();
    // Every output file and the trace are written together: all of them, or (on any failure)
    // none, each target as it was.
    std::vector<std::vector<std::byte>> output_bytes;
    for (const auto& [k, path] : output_files) {
      auto bytes = format::tensor_file_bytes(path, format::to_weight_tensor((*result)[k]));
      if (!bytes) {
        exit_code = fail(bytes.error(), kExitBadInput);
        return;
      }
      output_bytes.push_back(std::move(*bytes));
    }
    std::string trace_doc;
    if (flags->trace) {
      const format::TraceMetadata meta{.graph_path = planned->graph.path,
                                       .graph_digest = planned->graph.digest,
                                       .symbolic_dims = planned->graph.symbolic_dims};
      trace_doc = format::chrome_trace_json(executor.buffer(), trace, meta);
    }
    std::vector<format::OutputFile> files;
    for (std::size_t i = 0; i < output_files.size(); ++i) {
      files.push_back(
          {.path = output_files[i].second,
           .bytes = std::string_view(reinterpret_cast<const char*>(output_bytes[i].data()),
                                     output_bytes[i].size())});
    }
    if (flags->trace) files.push_back({.path = *flags->trace, .bytes = trace_doc});
    if (auto ok = format::write_files_atomically(files, reads); !ok) {
      exit_code = fail(ok.error(), kExitBadInput);
      return;
    }
    for (std::size_t i = 0; i < output_files.size(); ++i) {
      const auto& [k, path] = output_files[i];
      fmt::print("output '{}' {} written to {}\n", escape_controls(out_bindings[k].name),
                 ir::to_string((*result)[k].shape), escape_controls(path));
    }
    if (output_files.empty()) {
      for (std::size_t k = 0; k < result->size(); ++k) {
        fmt::print("{}\n", summary(out_bindings[k], (*result)[k]));
      }
    }
    if (flags->repeat > 1) {
      std::vector<double> sorted = latencies_ms;
      std::ranges::sort(sorted);
      const std::size_t n = sorted.size();
      const double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
      fmt::print("latency over {} runs: min {:.3f} ms, median {:.3f} ms, max {:.3f} ms\n", n,
                 sorted.front(), median, sorted.back());
    }
    if (flags->trace) {
      if (traced_runs < flags->repeat) {
        fmt::print(
            "trace: {} events of the first {} of {} runs written to {} (a trace holds at most {} "
            "runs and {} events; open it in https://ui.perfetto.dev)\n",
            trace.events.size(), traced_runs, flags->repeat, escape_controls(*flags->trace),
            kMaxTracedRuns, kMaxTraceEvents);
      } else {
        fmt::print("trace: {} events written to {} (open it in https://ui.perfetto.dev)\n",
                   trace.events.size(), escape_controls(*flags->trace));
      }
    }
    exit_code = kExitOk;
  });
}

}  // namespace nnplan::cli
