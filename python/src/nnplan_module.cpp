// The native half of the nnplan Python module (pybind11), `nnplan._nnplan`: planning, explaining,
// verifying, probing, listing and running through the library. Every function takes plain values
// (strings, a config dict, NumPy arrays) and returns plain values or a `NativePlan`; documents go
// out as the library's versioned JSON text, which nnplan/__init__.py turns into Python data. An
// nnplan::Error is raised as the exception class nnplan/errors.py keeps for its kind, carrying the
// error's structured context. The public functions, their keyword signatures and docstrings are in
// nnplan/__init__.py.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <tuple>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "nnplan/backend/admissibility.hpp"
#include "nnplan/backend/op_mapping.hpp"
#include "nnplan/backend/planned_model.hpp"
#include "nnplan/backend/planner.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/backend/report.hpp"
#include "nnplan/error.hpp"
#include "nnplan/format/evidence_json.hpp"
#include "nnplan/format/graph_file.hpp"
#include "nnplan/format/listing_json.hpp"
#include "nnplan/format/onnx_convert.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "nnplan/format/output_file.hpp"
#include "nnplan/format/plan_artifact.hpp"
#include "nnplan/format/probe_json.hpp"
#include "nnplan/format/registry_file.hpp"
#include "nnplan/format/trace_json.hpp"
#include "nnplan/report/plan_dot.hpp"
#include "nnplan/report/report_html.hpp"
#include "nnplan/runtime/command_buffer.hpp"
#include "nnplan/runtime/evidence.hpp"
#include "nnplan/runtime/executor.hpp"
#include "nnplan/runtime/probe.hpp"
#include "nnplan/runtime/refusal.hpp"
#include "nnplan/runtime/thread_bound.hpp"
#include "nnplan/text_escape.hpp"

namespace py = pybind11;
using namespace nnplan;
using namespace nnplan::backend;

namespace {

// `text` as a Python str: bytes that are not UTF-8 (a path the file system names with them) are
// written as the text \xNN, as every JSON output writes them, instead of failing to decode.
py::str text_of(std::string_view text) {
  return py::str(valid_utf8(text) ? std::string(text) : utf8_escaped(text));
}

// `text` with every command-line hint `--input-shape NAME=D,D,...` phrased for Python:
// `input_shapes={'NAME': [D, D, ...]}`, for a NAME of letters, digits and `_.:/-` (one that would
// need quoting in Python is left as the command line spells it).
std::string python_hints(const std::string& text) {
  static const std::regex flag(
      R"(--input-shape ([A-Za-z0-9_.:/-]+)=((?:\d+|D\d+|\.\.\.|<\w+>)(?:,(?:\d+|D\d+|\.\.\.|<\w+>))*))");
  std::string out;
  auto begin = text.cbegin();
  std::smatch m;
  while (std::regex_search(begin, text.cend(), m, flag)) {
    out.append(begin, m[0].first);
    std::string dims = m[2].str();
    std::string listed;
    for (std::size_t at = 0; at <= dims.size();) {
      const std::size_t comma = std::min(dims.find(',', at), dims.size());
      listed += (listed.empty() ? "" : ", ") + dims.substr(at, comma - at);
      at = comma + 1;
    }
    out += "input_shapes={'" + m[1].str() + "': [" + listed + "]}";
    begin = m[0].second;
  }
  out.append(begin, text.cend());
  return out;
}

// Raises `error` as its nnplan.errors class; `artifact` is the nnplan.plan.v1 document of a
// planning failure, when there is one.
[[noreturn]] void raise_error(const Error& error, std::optional<std::string> artifact = {}) {
  const py::object errors = py::module_::import("nnplan.errors");
  const py::object cls = errors.attr("class_for_kind")(to_string(error.kind));
  py::list candidates;
  for (const CandidateReport& c : error.candidates) {
    py::list reasons;
    for (const ReasonReport& r : c.reasons) {
      py::dict reason;
      reason["code"] = r.code;
      reason["detail"] = r.detail;
      reasons.append(reason);
    }
    py::dict candidate;
    candidate["capsule"] = c.capsule;
    candidate["provider"] = c.provider;
    candidate["device"] = c.device;
    candidate["reasons"] = reasons;
    candidates.append(candidate);
  }
  const py::object exc = cls(text_of(python_hints(render(error))));
  exc.attr("kind") = to_string(error.kind);
  exc.attr("message") = text_of(python_hints(error.message));
  const auto texts = [](const std::vector<std::string>& lines) {
    py::list out;
    for (const std::string& line : lines)
      out.append(text_of(line));
    return out;
  };
  exc.attr("context") = texts(error.context);
  exc.attr("notes") = texts(error.notes);
  exc.attr("candidates") = candidates;
  exc.attr("node_id") = error.position ? py::object(py::int_(*error.position)) : py::none();
  exc.attr("artifact") = artifact ? py::object(py::str(*artifact)) : py::none();
  PyErr_SetObject(cls.ptr(), exc.ptr());
  throw py::error_already_set();
}

template <class T>
T take(Expected<T> value, std::string_view context = {}) {
  if (!value) {
    Error e = std::move(value.error());
    if (!context.empty()) e.with_context(std::string(context));
    raise_error(e);
  }
  return std::move(*value);
}

void take(Expected<void> done, std::string_view context = {}) {
  if (!done) {
    Error e = std::move(done.error());
    if (!context.empty()) e.with_context(std::string(context));
    raise_error(e);
  }
}

// The elements of `array`, whose dtype has T's kind and width, in C order and native byte order
// (a byte-swapped or strided array is converted; nothing else is).
template <class T>
std::vector<T> dense_elements(const py::array& array) {
  const auto dense = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(array);
  if (!dense) throw py::error_already_set();
  return std::vector<T>(dense.data(), dense.data() + dense.size());
}

// The NumPy dtype of a runtime tensor's elements (bool elements are one byte, as NumPy's).
py::dtype numpy_dtype(runtime::DType dtype) {
  switch (dtype) {
    case runtime::DType::int64:
      return py::dtype::of<std::int64_t>();
    case runtime::DType::boolean:
      return py::dtype("bool");
    case runtime::DType::float32:
      break;
  }
  return py::dtype::of<float>();
}

std::optional<std::string> text_of(const py::dict& config, const char* key) {
  if (!config.contains(key) || config[key].is_none()) return std::nullopt;
  return py::str(config[key]).cast<std::string>();
}

// Parses the config value `key` with `parse`; an unknown spelling raises, naming the argument.
template <class T, class Parse>
std::optional<T> parsed(const py::dict& config, const char* key, Parse parse) {
  const auto text = text_of(config, key);
  if (!text) return std::nullopt;
  return take(parse(*text), std::string("in ") + key + "=");
}

std::vector<CapsuleModule> registry_modules(const py::dict& config) {
  std::vector<std::filesystem::path> files;
  if (config.contains("registries") && !config["registries"].is_none()) {
    for (const py::handle item : config["registries"])
      files.emplace_back(item.cast<std::string>());
  }
  return take(format::read_registry_files(files));
}

// The overrides a config dict spells (everything but `profile`), registry files loaded.
ProfileOverrides explicit_overrides(const py::dict& config) {
  ProfileOverrides overrides{
      .device = parsed<Device>(config, "device", parse_device),
      .assurance = parsed<AssurancePreset>(config, "assurance", parse_assurance_preset),
      .vjp_mode = parsed<VjpMode>(config, "vjp", parse_vjp_mode),
      .target = parsed<TargetPreset>(config, "target", parse_target_preset),
      .lowering = parsed<LoweringMode>(config, "lowering", parse_lowering_mode),
      .modules = registry_modules(config)};
  if (const auto p = parsed<Provider>(config, "prefer", parse_provider)) {
    overrides.preference = BackendPreference::prefer(*p);
  }
  if (const auto p = parsed<Provider>(config, "only", parse_provider)) {
    overrides.preference = BackendPreference::only(*p);
  }
  return overrides;
}

// The profile a config dict describes, as the command line's config flags do: `profile`, else the
// maintained profile for `device`, else checked_cpu; then the other keys as overrides.
BackendProfile resolve_profile(const py::dict& config) {
  ProfileOverrides overrides = explicit_overrides(config);
  BackendProfile base = make_profile(MaintainedProfile::checked_cpu);
  if (const auto name = text_of(config, "profile")) {
    base = take(profile_by_name(*name), "in profile=");
  } else if (overrides.device) {
    base = take(maintained_for_device(*overrides.device),
                "in device= (pass profile= to start elsewhere)");
  }
  return take(apply_overrides(std::move(base), std::move(overrides)), "while adding registries");
}

// The ONNX import options `config`'s input_shapes give.
format::OnnxImportOptions import_options(const py::dict& config) {
  format::OnnxImportOptions options;
  if (config.contains("input_shapes") && !config["input_shapes"].is_none()) {
    for (const auto [name, dims] : config["input_shapes"].cast<py::dict>()) {
      std::vector<std::uint64_t> shape;
      for (const py::handle d : dims) {
        const auto dim = d.cast<long long>();
        if (dim <= 0) {
          raise_error(make_error(ErrorKind::invalid_input,
                                 "input_shapes['" + py::str(name).cast<std::string>() +
                                     "']: dimension " + std::to_string(dim) +
                                     " is not a positive integer"));
        }
        shape.push_back(static_cast<std::uint64_t>(dim));
      }
      options.input_shapes.emplace(py::str(name).cast<std::string>(), std::move(shape));
    }
  }
  return options;
}

// Reads the graph file `path` as `config` says, or the error; input_shapes that do not fit the
// file raise.
std::expected<format::LoadedGraph, format::GraphFileFailure> try_read_graph(const std::string& path,
                                                                            const py::dict& config,
                                                                            bool weights) {
  format::GraphFileOptions options{
      .digest = true, .keep_weights = weights, .onnx = import_options(config)};
  // A dimension the model leaves open, and input_shapes does not fix, is planned at 1
  // (NativePlan::symbolic_dims lists it); nnplan.Session plans each shape it is given.
  options.onnx.open_dim_size = 1;
  take(format::check_graph_file_options(path, options), "in input_shapes=");
  return format::read_graph_file(path, options);
}

format::LoadedGraph read_graph(const std::string& path, const py::dict& config, bool weights) {
  auto graph = try_read_graph(path, config, weights);
  if (!graph) raise_error(graph.error().error);
  return std::move(*graph);
}

// A planned model with what the formats need to write it, and the compiled executors of its runs.
class NativePlan {
 public:
  NativePlan(BackendProfile profile, format::LoadedGraph graph, PlannedModel model, bool weights)
      : profile_(std::move(profile)),
        graph_(std::move(graph)),
        weights_(weights),
        model_(std::make_shared<const PlannedModel>(std::move(model))) {}

  bool accepted() const { return model_->accepted(); }
  std::string profile_name() const { return profile_.name; }
  py::str path() const { return text_of(graph_.path); }

  std::string artifact() const {
    return format::plan_artifact_json(profile_, graph_.digest.value_or(""), graph_.graph->graph(),
                                      Expected<PlannedModel>(*model_), graph_.onnx(),
                                      graph_.symbolic_dims);
  }
  std::string report() const {
    return graph_report(profile_, model_->evaluation(), graph_.onnx() ? &graph_.graph->graph() : nullptr);
  }
  std::string dot() const {
    return report::plan_dot(profile_, graph_.graph->graph(), model_->evaluation(), graph_.onnx());
  }
  void save(const std::string& path) const {
    take(format::write_file_atomically(path, artifact(), model_files()));
  }

  // The files of the model, never written over: the graph, the payload file beside it and its
  // external data files.
  std::vector<std::filesystem::path> model_files() const {
    std::vector<std::filesystem::path> files = {graph_.path, format::payload_path_for(graph_.path)};
    files.insert(files.end(), graph_.external_data_files.begin(), graph_.external_data_files.end());
    return files;
  }

  // For a shape error on `input`: when the model leaves a dimension of it open, that this plan
  // was made for one size and a Session plans each.
  std::string open_dims_hint(const std::string& input) const {
    for (const format::SymbolicDim& d : graph_.symbolic_dims) {
      if (d.input != input || d.fixed) continue;
      return " (the model leaves " + (d.name.empty() ? "a dimension" : "'" + d.name + "'") +
             " open; this plan was made at " + std::to_string(d.size) +
             ": nnplan.Session plans each new shape, or plan with input_shapes=)";
    }
    return {};
  }

  // The input dimensions the model leaves dynamic: [(input, axis, name, size, fixed)], name ""
  // when unnamed, fixed when input_shapes gave the size (else it was planned at 1).
  py::list symbolic_dims() const { return dims_list(graph_.symbolic_dims); }
  // The same for the outputs' dimensions the model declares dynamic (fixed is always false).
  py::list symbolic_output_dims() const { return dims_list(graph_.symbolic_output_dims); }
  static py::list dims_list(const std::vector<format::SymbolicDim>& dims) {
    py::list out;
    for (const format::SymbolicDim& d : dims)
      out.append(py::make_tuple(text_of(d.input), d.axis, text_of(d.name), d.size, d.fixed));
    return out;
  }

  // Runs the plan once on `inputs` (name -> array of the input's dtype); the outputs come back as
  // arrays that own the run's output buffers (no copy). With `trace`, writes the Chrome trace
  // there; `shape_cache` (compiled_for_this_run, entries, limit) is a session's cache, which the
  // trace reports.
  py::dict run(const py::dict& inputs, int threads, const std::optional<std::string>& trace,
               const std::optional<std::tuple<bool, std::size_t, std::size_t>>& shape_cache) {
    if (!accepted()) {
      raise_error(make_error(ErrorKind::rejected_by_policy,
                             "the plan was rejected by its gate; nothing was run"));
    }
    runtime::Executor& executor = executor_for(threads);
    std::vector<runtime::NamedTensor> bound;
    for (const auto [key, value] : inputs) {
      const std::string name = py::str(key).cast<std::string>();
      const py::array array = py::reinterpret_borrow<py::object>(value).cast<py::array>();
      // A name the model lacks is reported by the executor, with the model's inputs.
      const auto& inputs_of_model = executor.buffer().inputs();
      const auto binding = std::ranges::find(inputs_of_model, name, &runtime::IoBinding::name);
      const runtime::DType want =
          binding == inputs_of_model.end() ? runtime::DType::float32 : binding->dtype;
      const py::dtype expected = numpy_dtype(want);
      // Compared by kind and width, not identity: a dtype that came through pickle or carries
      // metadata is still float32.
      if (array.dtype().kind() != expected.kind() ||
          array.dtype().itemsize() != expected.itemsize()) {
        const std::string spelled(ir::to_string(want));
        raise_error(make_error(
            ErrorKind::bad_input,
            "input '" + name + "': dtype " + py::str(array.dtype()).cast<std::string>() +
                "; the model expects " + spelled + " (convert it with " + "array.astype(numpy." +
                (want == runtime::DType::boolean ? std::string("bool_") : spelled) + "))"));
      }
      runtime::Tensor tensor;
      for (py::ssize_t axis = 0; axis < array.ndim(); ++axis)
        tensor.shape.dims.push_back(static_cast<ir::Dim>(array.shape(axis)));
      // Refused before its elements are copied (a wrong array may be gigabytes).
      if (binding != inputs_of_model.end() && tensor.shape != *binding->shape) {
        raise_error(make_error(ErrorKind::bad_input,
                               "input '" + name + "' has shape " + ir::to_string(tensor.shape) +
                                   "; the model expects " + ir::to_string(*binding->shape) +
                                   open_dims_hint(name)));
      }
      switch (want) {
        case runtime::DType::int64:
          tensor.elements = dense_elements<std::int64_t>(array);
          break;
        case runtime::DType::boolean:
          tensor.elements = dense_elements<std::uint8_t>(array);
          break;
        case runtime::DType::float32:
          tensor.elements = dense_elements<float>(array);
          break;
      }
      bound.push_back({.name = name, .tensor = std::move(tensor)});
    }
    runtime::ExecutionTrace events;
    std::vector<runtime::Tensor> outputs;
    Expected<std::vector<runtime::Tensor>> ran = std::vector<runtime::Tensor>{};
    {
      py::gil_scoped_release release;
      try {
        ran = executor.run(bound, trace ? &events : nullptr);
      } catch (const std::bad_alloc&) {
        ran = std::unexpected(make_error(ErrorKind::resource_exhausted,
                                         "out of memory while running " + graph_.path +
                                             " (its arena needs " +
                                             std::to_string(executor.buffer().peak_arena_bytes()) +
                                             " bytes, and each output its own buffer)"));
      }
    }
    if (!ran) raise_error(ran.error());
    outputs = std::move(*ran);
    if (trace) {
      format::TraceMetadata meta{.graph_path = graph_.path,
                                 .graph_digest = graph_.digest,
                                 .symbolic_dims = graph_.symbolic_dims};
      if (shape_cache) {
        meta.shape_cache =
            format::TraceMetadata::ShapeCache{.compiled_for_this_run = std::get<0>(*shape_cache),
                                              .entries = std::get<1>(*shape_cache),
                                              .limit = std::get<2>(*shape_cache)};
      }
      take(format::write_file_atomically(
               *trace, format::chrome_trace_json(executor.buffer(), events, meta), model_files()),
           "in trace=");
    }
    py::dict result;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      auto owned = std::make_unique<runtime::Tensor>(std::move(outputs[i]));
      std::vector<py::ssize_t> shape(owned->shape.dims.begin(), owned->shape.dims.end());
      const py::dtype dtype = numpy_dtype(owned->dtype());
      std::byte* data = owned->bytes();
      py::capsule keep(owned.get(), [](void* p) { delete static_cast<runtime::Tensor*>(p); });
      owned.release();
      result[py::str(executor.buffer().outputs()[i].name)] = py::array(dtype, shape, data, keep);
    }
    return result;
  }

  // The compiled buffer's inputs and outputs for `threads`: {"inputs": [(name, dtype, shape)],
  // "outputs": [...]}, dtype as NumPy spells it.
  py::dict io(int threads) {
    const runtime::CommandBuffer& buffer = executor_for(threads).buffer();
    const auto described = [](std::span<const runtime::IoBinding> bindings) {
      py::list out;
      for (const runtime::IoBinding& b : bindings) {
        py::tuple dims(b.shape->dims.size());
        for (std::size_t i = 0; i < b.shape->dims.size(); ++i)
          dims[i] = b.shape->dims[i];
        out.append(py::make_tuple(b.name, py::str(numpy_dtype(b.dtype)), dims));
      }
      return out;
    };
    py::dict info;
    info["inputs"] = described(buffer.inputs());
    info["outputs"] = described(buffer.outputs());
    return info;
  }

  // How the plan compiled for `threads`: commands, reorders, arena bytes.
  py::dict compiled(int threads) {
    const runtime::CommandBuffer& buffer = executor_for(threads).buffer();
    py::dict info;
    std::size_t reorders = 0;
    for (const runtime::Command& c : buffer.commands()) reorders += c.reorder.has_value();
    info["commands"] = buffer.commands().size();
    info["reorders"] = reorders;
    info["peak_arena_bytes"] = buffer.peak_arena_bytes();
    const auto bindings = [](std::span<const runtime::IoBinding> io) {
      py::list out;
      for (const runtime::IoBinding& b : io) {
        py::tuple dims(b.shape->dims.size());
        for (std::size_t i = 0; i < b.shape->dims.size(); ++i) dims[i] = b.shape->dims[i];
        out.append(py::make_tuple(b.name, dims));
      }
      return out;
    };
    const py::list ins = bindings(buffer.inputs());
    const py::list outs = bindings(buffer.outputs());
    info["inputs"] = ins;
    info["outputs"] = outs;
    return info;
  }

 private:
  // The executor compiled for `threads`, compiled now if none is. Called with the GIL held; the
  // mutex guards only the map (never held while the GIL is awaited), and the probe and compile
  // run with the GIL released, so other threads run (and compile) meanwhile. Two threads asking
  // for a new `threads` at once may both compile it; the first to finish is kept. An executor,
  // once in the map, stays there for the plan's lifetime.
  runtime::Executor& executor_for(int threads) {
    {
      const std::lock_guard lock(mutex_);
      auto it = executors_.find(threads);
      if (it != executors_.end()) return *it->second;
    }
    if (!weights_) {
      raise_error(make_error(ErrorKind::invalid_input,
                             "the plan of " + graph_.path +
                                 " was made without its weights; plan it with weights=True (or "
                                 "call nnplan.run) to run it"));
    }
    Expected<runtime::CommandBuffer> buffer = std::unexpected(Error{});
    {
      py::gil_scoped_release release;
      auto probed =
          runtime::check_probed(*model_, runtime::probe_host(runtime::probe_options_for(*model_)));
      if (!probed) {
        buffer = std::unexpected(std::move(probed.error()));
      } else {
        buffer = runtime::compile(
            model_, runtime::builtin_handlers(),
            {.output_names = graph_.output_names, .settings = {.threads = threads}});
      }
    }
    auto executor = std::make_unique<runtime::Executor>(take(std::move(buffer)));
    const std::lock_guard lock(mutex_);
    return *executors_.emplace(threads, std::move(executor)).first->second;
  }

  BackendProfile profile_;
  format::LoadedGraph graph_;
  bool weights_ = false;
  std::shared_ptr<const PlannedModel> model_;
  std::mutex mutex_;
  std::map<int, std::unique_ptr<runtime::Executor>> executors_;
};

std::unique_ptr<NativePlan> plan(const std::string& model, const py::dict& config, bool weights) {
  BackendProfile profile = resolve_profile(config);
  format::LoadedGraph graph = read_graph(model, config, weights);
  auto planned = plan_model(profile, graph.graph, graph.payloads);
  if (!planned) {
    const std::string artifact =
        format::plan_artifact_json(profile, graph.digest.value_or(""), graph.graph->graph(),
                                   planned, graph.onnx(), graph.symbolic_dims);
    raise_error(planned.error(), artifact);
  }
  return std::make_unique<NativePlan>(std::move(profile), std::move(graph), std::move(*planned),
                                      weights);
}

py::list reasons_of(const std::vector<Rejection>& rejections) {
  py::list out;
  for (const Rejection& r : rejections) {
    py::dict reason;
    reason["code"] = std::string(to_string(r.reason));
    reason["detail"] = r.detail;
    out.append(reason);
  }
  return out;
}

// Why node `node` runs where it runs: its capsules in registry order, each chosen, admissible or
// rejected with its reasons, and whether its chain was fused (as `nnplan explain`).
py::dict explain(const std::string& model, std::size_t node_id, const py::dict& config) {
  const BackendProfile profile = resolve_profile(config);
  const format::LoadedGraph graph = read_graph(model, config, false);
  const ir::Graph& g = graph.graph->graph();
  if (node_id >= g.nodes.size()) {
    raise_error(make_error(ErrorKind::not_found,
                           "node " + std::to_string(node_id) + " is not in graph " + model + "; " +
                               (g.nodes.empty() ? std::string("the graph has no nodes")
                                                : "valid: 0.." + std::to_string(g.nodes.size() - 1))));
  }
  const ir::Node& node = g.nodes[node_id];
  py::dict out;
  out["profile"] = profile.name;
  out["node"] = node_id;
  out["kind"] = std::string(ir::to_string(node.kind));
  out["name"] = node.source_name;
  out["shape"] = ir::to_string(node.shape);
  out["parents"] = std::vector<std::size_t>(node.parents.begin(), node.parents.end());
  const auto op = backend_op_of(node.kind);
  out["op"] = op ? py::object(py::str(std::string(to_string(*op)))) : py::none();
  py::list capsules;
  out["capsules"] = capsules;
  out["chosen"] = py::none();
  out["fused_group"] = py::none();
  if (!op) return out;
  const Availability availability = profile.availability();
  const auto chosen = plan_op(profile.config, *profile.registry, *op, &availability);
  for (CapsuleId id : profile.registry->implementing(*op)) {
    const KernelCapsule& c = profile.registry->capsule(id);
    const auto reasons = rejection_reasons(profile.config, c, &availability);
    py::dict entry;
    entry["capsule"] = c.name;
    entry["module"] = profile.registry->module_of(id);
    entry["provider"] = std::string(to_string(c.provider));
    entry["device"] = std::string(to_string(c.device));
    entry["trust"] = std::string(to_string(c.trust_level));
    entry["verdict"] = chosen && chosen->capsule == id ? "chosen"
                       : reasons.empty() && chosen     ? "admissible"
                                                       : "rejected";
    entry["reasons"] = reasons_of(reasons);
    capsules.append(entry);
  }
  if (chosen) {
    out["chosen"] = profile.registry->capsule(chosen->capsule).name;
  } else {
    out["why_none"] = chosen.error().message;
  }
  if (auto planned = plan_model(profile, graph.graph)) {
    const GraphLoweringPlan& lowering = planned->lowering();
    for (std::size_t i = 0; i < lowering.groups.size(); ++i) {
      const auto ids = lowering.group_node_ids(lowering.groups[i]);
      if (lowering.groups[i].grouping != GroupingKind::fused ||
          std::ranges::find(ids, node.id) == ids.end())
        continue;
      py::dict fused;
      fused["group"] = i;
      fused["capsule"] = lowering.capsule(lowering.groups[i]).name;
      fused["nodes"] = std::vector<std::size_t>(ids.begin(), ids.end());
      out["fused_group"] = fused;
    }
  }
  return out;
}

// Re-plans `model` under the profile `artifact_path` records (config keys override single recorded
// fields; `profile` starts over) and compares the documents, as `nnplan verify`.
py::dict verify(const std::string& model, const std::string& artifact_path, const py::dict& config) {
  const format::PlanArtifact artifact = take(format::read_plan_artifact(artifact_path));
  BackendProfile profile;
  if (text_of(config, "profile")) {
    profile = resolve_profile(config);
  } else {
    const format::RecordedProfile& recorded = artifact.profile;
    BackendProfile base = take(profile_by_name(base_profile_name(recorded.name)),
                               "in the profile recorded by " + artifact_path + "; pass profile=");
    ProfileOverrides overrides = explicit_overrides(config);
    if (!overrides.device) overrides.device = recorded.device;
    if (!overrides.preference) overrides.preference = recorded.preference;
    if (!overrides.vjp_mode) overrides.vjp_mode = recorded.vjp_mode;
    if (!overrides.lowering) overrides.lowering = recorded.lowering;
    if (!overrides.assurance) {
      if (!recorded.assurance) {
        raise_error(make_error(ErrorKind::invalid_input,
                               artifact_path +
                                   ": the recorded assurance policy is custom and cannot be "
                                   "rebuilt; pass assurance='verified', 'checked' or 'external'"));
      }
      overrides.assurance = recorded.assurance;
    }
    if (!overrides.target) {
      if (!recorded.target) {
        raise_error(make_error(ErrorKind::invalid_input,
                               artifact_path +
                                   ": the recorded target is custom and cannot be rebuilt; pass "
                                   "target="));
      }
      overrides.target = recorded.target;
    }
    profile = take(apply_overrides(std::move(base), std::move(overrides)),
                   "while adding registries");
  }
  const format::LoadedGraph graph = read_graph(model, config, false);
  const auto planned = plan_model(profile, graph.graph);
  const std::string fresh =
      format::plan_artifact_json(profile, graph.digest.value_or(""), graph.graph->graph(), planned,
                                 graph.onnx(), graph.symbolic_dims);
  const format::ArtifactDiff diff = format::diff_artifacts(artifact.document, fresh, 1000);
  py::dict out;
  out["verified"] = diff.total == 0;
  out["profile"] = profile.name;
  out["recorded_accepted"] = artifact.accepted;
  out["differences"] = diff.lines;
  out["total_differences"] = diff.total;
  return out;
}

// This machine's probe, and whether it matches the target of the profile `config` describes.
std::string probe(const py::dict& config) {
  const BackendProfile profile = resolve_profile(config);
  py::gil_scoped_release release;
  const runtime::HostProbe host = runtime::probe_host();
  return format::probe_json(host, runtime::check_target(host, profile.target));
}

std::string capsules(const py::dict& config, bool evidence) {
  const BackendProfile profile = resolve_profile(config);
  format::CapsuleFilter filter{
      .op = parsed<BackendOp>(config, "op", parse_backend_op),
      .provider = parsed<Provider>(config, "provider", parse_provider),
      .device = parsed<Device>(config, "capsule_device", parse_device)};
  if (evidence) {
    const runtime::HandlerRegistry& handlers = runtime::builtin_handlers();
    std::vector<runtime::EvidenceItem> items;
    for (runtime::EvidenceItem& item : runtime::resolve_evidence(*profile.registry, handlers)) {
      if (filter.keeps(profile.registry->capsule(item.capsule))) items.push_back(std::move(item));
    }
    return format::evidence_json(profile.name, filter, *profile.registry, handlers, items);
  }
  return format::capsule_listing_json(profile.name, filter, profile.registry->modules());
}

// The auditor's HTML page for `model` under the profile `config` describes, as `nnplan report`
// writes it: `draw` turns the placement picture's DOT text into (SVG, "") or (None, why there is
// none), the page saying why in the picture's place. A model with a node that has no admissible
// capsule gets the page that names it. With `path`, the page is also written there; `expanded`
// opens every group (`nnplan report --expanded`). Returns
// (page, accepted): accepted is None for such a model.
py::tuple report_html(const std::string& model, const py::dict& config,
                      const std::function<py::object(std::string)>& draw,
                      const std::optional<std::string>& path, bool expanded) {
  const BackendProfile profile = resolve_profile(config);
  // As `nnplan report`: the weights are read, to compile an accepted plan for its layouts.
  auto loaded = try_read_graph(model, config, true);
  // The page goes to `path` atomically, never over the model, its payload or external data files.
  const auto written = [&](std::string page) {
    if (path) {
      std::vector<std::filesystem::path> files = {model, format::payload_path_for(model)};
      if (loaded) {
        files.insert(files.end(), loaded->external_data_files.begin(),
                     loaded->external_data_files.end());
      }
      take(format::write_file_atomically(*path, page, files), "in path=");
    }
    return page;
  };
  if (!loaded && loaded.error().error.kind == ErrorKind::unsupported) {
    // A model the importer does not support gets the page listing every unsupported node.
    return py::make_tuple(written(report::unsupported_model_html(
                              profile, loaded.error().error,
                              {.model = model, .onnx_names = true, .expanded = expanded})),
                          py::none());
  }
  if (!loaded) raise_error(loaded.error().error);
  const format::LoadedGraph& graph = *loaded;
  report::ReportHtmlOptions options{
      .model = graph.path, .onnx_names = graph.onnx(), .picture = {}, .expanded = expanded};
  for (const format::SymbolicDim& d : graph.symbolic_dims)
    options.open_dims.push_back(format::describe(d));
  auto planned = plan_model(profile, graph.graph, graph.payloads);
  if (!planned) {
    return py::make_tuple(written(report::unplanned_report_html(profile, graph.graph->graph(),
                                                                planned.error(), options)),
                          py::none());
  }
  // As `nnplan report`: Graphviz draws graphs of at most report::kPictureNodeLimit nodes.
  const std::size_t nodes = graph.graph->graph().nodes.size();
  const py::tuple drawn =
      nodes > report::kPictureNodeLimit
          ? py::make_tuple(py::none(), "the graph has " + std::to_string(nodes) +
                                           " nodes; the report draws graphs of at most " +
                                           std::to_string(report::kPictureNodeLimit))
          : py::tuple(draw(report::plan_dot(profile, graph.graph->graph(), planned->evaluation(),
                                            graph.onnx())));
  const py::object svg = drawn[0];
  if (svg.is_none()) {
    options.picture.missing_reason = drawn[1].cast<std::string>();
  } else if (std::string text = svg.cast<std::string>(); report::inline_svg(text)) {
    options.picture.svg = std::move(text);
  } else {
    options.picture.missing_reason = "graphviz (dot) wrote something other than a plain SVG";
  }
  const bool accepted = planned->accepted();
  const auto compiled = std::make_shared<const PlannedModel>(std::move(*planned));
  // As `nnplan report`: the layout each group runs in, or why it is not known.
  if (auto layouts = runtime::group_layouts(compiled); layouts) {
    options.layouts.groups = std::move(*layouts);
  } else {
    options.layouts.missing_reason = layouts.error().message;
  }
  return py::make_tuple(
      written(report::report_html(profile, graph.graph->graph(), compiled->evaluation(), options)),
      accepted);
}

// Converts the ONNX model `model` to the graph file `output` and its payloads beside it, as
// `nnplan convert --json` (the nnplan.convert.v1 summary as a dict).
py::dict convert(const std::string& model, const std::string& output, const py::dict& config) {
  format::OnnxImportOptions options = import_options(config);
  Expected<format::ConvertSummary> converted = std::unexpected(Error{});
  {
    py::gil_scoped_release release;
    converted = format::convert_onnx_file(model, output, std::move(options));
  }
  const format::ConvertSummary summary = take(std::move(converted));
  py::dict out;
  out["format"] = "nnplan.convert.v1";
  out["model"] = text_of(model);
  out["opset"] = summary.opset;
  out["producer"] = text_of(summary.producer);
  out["graph"] = text_of(summary.graph.string());
  out["payloads"] = text_of(summary.payloads.string());
  out["nodes"] = summary.nodes;
  out["payload_tensors"] = summary.payload_tensors;
  out["payload_bytes"] = summary.payload_bytes;
  return out;
}

// The ONNX model's declared inputs and outputs (format::read_onnx_interface): {"inputs": [...],
// "outputs": [...]}, each (name, dtype as NumPy spells it or None, dims), a dim an int, the
// model's name for an open one, or None when it has none; dims None when no shape is declared.
py::dict onnx_interface(const std::string& model) {
  const format::OnnxInterface interface = take(format::read_onnx_interface(model));
  const auto described = [](const std::vector<format::OnnxValueInfo>& values) {
    py::list out;
    for (const format::OnnxValueInfo& v : values) {
      py::object dims = py::none();
      if (v.has_shape) {
        py::list listed;
        for (std::size_t i = 0; i < v.dims.size(); ++i) {
          if (v.dims[i]) {
            listed.append(*v.dims[i]);
          } else if (!v.dim_names[i].empty()) {
            listed.append(text_of(v.dim_names[i]));
          } else {
            listed.append(py::none());
          }
        }
        dims = py::tuple(listed);
      }
      out.append(py::make_tuple(text_of(v.name),
                                v.dtype ? py::object(py::str(numpy_dtype(*v.dtype))) : py::none(),
                                dims));
    }
    return out;
  };
  py::dict out;
  out["inputs"] = described(interface.inputs);
  out["outputs"] = described(interface.outputs);
  return out;
}

std::string profiles() {
  std::vector<BackendProfile> all;
  for (std::size_t i = 0; i < kMaintainedProfileNames.size(); ++i)
    all.push_back(make_profile(static_cast<MaintainedProfile>(i)));
  return format::profiles_json(all);
}

}  // namespace

PYBIND11_MODULE(_nnplan, m) {
  m.doc() = "nnplan's native functions; use the nnplan package, not this module";
  py::class_<NativePlan>(m, "NativePlan")
      .def_property_readonly("accepted", &NativePlan::accepted)
      .def_property_readonly("profile_name", &NativePlan::profile_name)
      .def_property_readonly("path", &NativePlan::path)
      .def("artifact", &NativePlan::artifact)
      .def("report", &NativePlan::report)
      .def("dot", &NativePlan::dot)
      .def("save", &NativePlan::save)
      .def("run", &NativePlan::run, py::arg("inputs"), py::arg("threads"), py::arg("trace"),
           py::arg("shape_cache") = py::none())
      .def("symbolic_dims", &NativePlan::symbolic_dims)
      .def("symbolic_output_dims", &NativePlan::symbolic_output_dims)
      .def("compiled", &NativePlan::compiled, py::arg("threads"))
      .def("io", &NativePlan::io, py::arg("threads"));
  m.def("convert", &convert, py::arg("model"), py::arg("output"), py::arg("config"));
  m.def("report_html", &report_html, py::arg("model"), py::arg("config"), py::arg("draw"),
        py::arg("path"), py::arg("expanded"));
  m.def("plan", &plan, py::arg("model"), py::arg("config"), py::arg("weights"));
  m.def("explain", &explain, py::arg("model"), py::arg("node"), py::arg("config"));
  m.def("verify", &verify, py::arg("model"), py::arg("artifact"), py::arg("config"));
  m.def("probe", &probe, py::arg("config"));
  m.def("capsules", &capsules, py::arg("config"), py::arg("evidence"));
  m.def("profiles", &profiles);
  m.def("onnx_interface", &onnx_interface, py::arg("model"));
  m.def("max_threads", &runtime::max_threads);
  m.def("thread_range", &runtime::thread_range);
  m.def("targets", &format::targets_json);
  m.attr("version") = NNPLAN_VERSION;
}
