// Pieces shared by the graph subcommands (plan, verify, explain, dot): loading and checking a
// graph file (torchlean.ir.v1 or ONNX, with `--input-shape`), the `--lowering` flag, typed
// overrides from the config flags, and output files.
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "cli.hpp"
#include "nnplan/format/ir_json.hpp"
#include "nnplan/format/plan_artifact.hpp"
#include "nnplan/large_memory.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

std::expected<std::optional<LoweringMode>, int> parse_lowering_flag(
    const std::optional<std::string>& text) {
  std::optional<LoweringMode> mode;
  if (!parse_flag(text, "--lowering", parse_lowering_mode, mode)) {
    return std::unexpected(kExitUsage);
  }
  return mode;
}

void detail::keep_until_exit(std::shared_ptr<void> value) {
  // Never freed: the vector stays reachable from this pointer until the process ends.
  static auto* const kept = new std::vector<std::shared_ptr<void>>();
  kept->push_back(std::move(value));
}

bool is_onnx_file(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".onnx") return true;
  if (extension == ".json") return false;
  // A serialized ModelProto opens with a field tag (0x08 for ir_version), never with `{` or `[`.
  std::ifstream in(path, std::ios::binary);
  for (char c = 0; in.get(c);) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) continue;
    return c != '{' && c != '[';
  }
  // Unreadable or blank: the JSON reader names the problem.
  return false;
}

namespace {

Error input_shape_error(std::string_view value, std::string problem) {
  return make_error(ErrorKind::invalid_input,
                    "--input-shape '" + std::string(value) + "': " + std::move(problem) +
                        "; expected NAME=D,D,... with positive dimensions, e.g. "
                        "input=1,3,224,224");
}

}  // namespace

std::expected<format::OnnxImportOptions, int> parse_input_shapes(
    const std::vector<std::string>& values) {
  format::OnnxImportOptions options;
  for (const std::string& value : values) {
    // Dimensions hold no `=`, so the last one separates them from a name that might.
    const auto eq = value.rfind('=');
    if (eq == std::string::npos) {
      return std::unexpected(fail(input_shape_error(value, "no '='"), kExitUsage));
    }
    const std::string name = value.substr(0, eq);
    if (name.empty()) {
      return std::unexpected(fail(input_shape_error(value, "the input name is empty"), kExitUsage));
    }
    const std::string_view dims = std::string_view(value).substr(eq + 1);
    if (dims.empty()) {
      return std::unexpected(fail(input_shape_error(value, "no dimensions"), kExitUsage));
    }
    std::vector<std::uint64_t> shape;
    for (std::size_t begin = 0; begin <= dims.size();) {
      const std::size_t comma = std::min(dims.find(',', begin), dims.size());
      const std::string_view text = dims.substr(begin, comma - begin);
      std::uint64_t dim = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), dim);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size() || dim == 0) {
        return std::unexpected(fail(input_shape_error(value, "dimension '" + std::string(text) +
                                                                 "' is not a positive integer"),
                                    kExitUsage));
      }
      shape.push_back(dim);
      begin = comma + 1;
    }
    if (!options.input_shapes.emplace(name, std::move(shape)).second) {
      return std::unexpected(
          fail(input_shape_error(value, "input '" + name + "' is given twice"), kExitUsage));
    }
  }
  return options;
}

void GraphFlags::add_to(CLI::App& command) {
  command.add_option("GRAPH", graph, "Graph file: torchlean.ir.v1 JSON or an ONNX model")
      ->required();
  command.add_option("--input-shape", input_shapes,
                     "Fix an ONNX graph input's shape, NAME=D,D,... (e.g. input=1,3,224,224); "
                     "repeatable");
}

std::expected<GraphInput, int> GraphFlags::load(Digest digest) const {
  auto options = parse_input_shapes(input_shapes);
  if (!options) return std::unexpected(options.error());
  if (!options->input_shapes.empty() && !is_onnx_file(graph)) {
    return std::unexpected(
        fail(make_error(ErrorKind::invalid_input,
                        "--input-shape applies to ONNX models; " + graph +
                            " is a torchlean.ir.v1 graph, whose shapes are declared in the file"),
             kExitUsage));
  }
  return load_graph(graph, digest, *options);
}

namespace {

// Counts and checks a read graph; a failed check is the input's error.
GraphInput check_loaded(GraphInput input, ir::Graph graph);

// An imported model's graph, already checked by the importer.
GraphInput take_imported(GraphInput input, format::ImportedModel model) {
  input.nodes = model.graph().nodes.size();
  input.graph = std::move(model.checked);
  return input;
}

// The bytes of a regular, non-empty file no larger than `limit`, read with one read(2) into one
// buffer; nullopt for anything else (missing, unreadable, not regular, empty, too large, short
// read), which the callers leave to the bounded readers and their messages. A plain read rather
// than mmap: a file truncated by another process while mapped would kill nnplan with SIGBUS
// instead of producing an error.
std::optional<LargeBuffer> read_regular_file(const std::string& path, std::uintmax_t limit) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<LargeBuffer> out;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      static_cast<std::uintmax_t>(st.st_size) <= limit) {
    // Huge-page memory and no zero fill first: read(2) writes every byte.
    LargeBuffer bytes(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    if (done == bytes.size()) out.emplace(std::move(bytes));
  }
  ::close(fd);
  return out;
}

}  // namespace

GraphInput load_graph(const std::string& path, Digest digest,
                      const format::OnnxImportOptions& options) {
  GraphInput input{.path = path, .onnx = is_onnx_file(path)};
  // The graph subcommands plan; none reads a weight, so the import decodes and copies none.
  format::OnnxImportOptions onnx = options;
  onnx.keep_payloads = false;
  if (input.onnx) {
    // An ONNX model is read once, and the same bytes are hashed and imported. A file the fast
    // read does not take (not a regular file, over the limit) goes the general way below, whose
    // readers name the problem.
    if (const auto file = read_regular_file(path, format::kMaxOnnxFileBytes)) {
      const std::string_view bytes = file->view();
      if (digest == Digest::compute) input.digest = format::sha256_digest(bytes);
      auto imported = format::import_onnx(std::as_bytes(std::span(bytes)), path, onnx);
      if (!imported) {
        input.error = std::move(imported.error());
        return input;
      }
      return take_imported(std::move(input), std::move(*imported));
    }
  }
  if (digest == Digest::compute) {
    // The digest is of the bytes as they are on disk; an unreadable file has none.
    auto file_digest = format::file_digest(path);
    if (!file_digest) {
      input.error = std::move(file_digest.error());
      return input;
    }
    input.digest = std::move(*file_digest);
  }
  if (input.onnx) {
    auto imported = format::import_onnx_file(path, onnx);
    if (!imported) {
      input.error = std::move(imported.error());
      return input;
    }
    return take_imported(std::move(input), std::move(*imported));
  }
  auto graph = format::read_ir_file(path);
  if (!graph) {
    input.error = std::move(graph.error());
    return input;
  }
  return check_loaded(std::move(input), std::move(*graph));
}

namespace {

GraphInput check_loaded(GraphInput input, ir::Graph graph) {
  input.nodes = graph.nodes.size();
  auto checked = ir::check(std::move(graph));
  if (!checked) {
    // Named like the reader's errors: `<file>: node <id> (<kind>): <what is wrong>`.
    input.error = std::move(checked.error());
    input.error->message = input.path + ": " + input.error->message;
    return input;
  }
  input.graph = std::move(*checked);
  return input;
}

}  // namespace

bool write_output_file(const std::string& path, const std::string& text) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (out) out.flush();
  if (!out) {
    const int err = errno;
    std::string reason = err != 0 ? std::string(std::strerror(err)) : std::string("write failed");
    if (!reason.empty())
      reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
    fail(make_error(ErrorKind::invalid_input, path + ": cannot write output file: " + reason),
         kExitBadInput);
    return false;
  }
  return true;
}

}  // namespace nnplan::cli
