// Shared by the command-line tests: runs the built `nnplan` binary as a user would (through the
// shell, capturing stdout, stderr and the exit code), reads and writes scratch files, and compares
// output with golden files under tests/golden/cli (NNPLAN_UPDATE_GOLDEN=1 rewrites them).
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace nnplan::cli_test {

namespace fs = std::filesystem;

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A directory private to this test process.
inline fs::path scratch_dir() {
  fs::path dir = fs::temp_directory_path() / ("nnplan_cli_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

// An empty directory `name` inside the scratch directory (emptied first when it exists).
inline fs::path fresh_scratch_dir(const std::string& name) {
  const fs::path dir = scratch_dir() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Why this machine cannot load the CUDA driver (dlerror's text), or "" when it can.
inline std::string driver_load_failure() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle != nullptr) {
    dlclose(handle);
    return {};
  }
  const char* text = dlerror();
  return text != nullptr ? text : "";
}

// `nnplan ARGS` run with the fake CUDA driver (and cuBLAS) of `mode` first on the library path
// (tests/runtime/fake_cuda: crash, abort, hang, exit, many_devices, odd_names, ok), under a
// `timeout` of `seconds` so that a command that did wait on a hanging driver fails, not hangs.
inline std::string with_fake_cuda(const std::string& mode, const std::string& args,
                                  int seconds = 60) {
  return "LD_LIBRARY_PATH=" + std::string(NNPLAN_FAKE_CUDA_DIR) + "/" + mode + ":" +
         std::string(NNPLAN_FAKE_CUDA_DIR) + "/cublas_ok timeout " + std::to_string(seconds) + " " +
         std::string(NNPLAN_BINARY) + " " + args;
}

// A path inside the source tree.
inline std::string source(const std::string& relative) {
  return (fs::path(NNPLAN_SOURCE_DIR) / relative).string();
}

// Runs a shell command line (pipes, background jobs, redirections) with its stdout and stderr
// captured; the exit code is the command line's. The line is a trusted test literal.
inline CliResult run_shell(const std::string& line) {
  const fs::path dir = scratch_dir();
  const fs::path out = dir / "stdout.txt";
  const fs::path err = dir / "stderr.txt";
  const std::string command = "{ " + line + "; } >" + out.string() + " 2>" + err.string();
  const int status = std::system(command.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

// Runs `nnplan <args>` through the shell; args are trusted test literals.
inline CliResult run_cli(const std::string& args) {
  return run_shell(std::string(NNPLAN_BINARY) + " " + args);
}

// Compares `actual` with tests/golden/cli/<name>; NNPLAN_UPDATE_GOLDEN=1 rewrites the file.
inline void expect_golden(const std::string& name, const std::string& actual) {
  const fs::path path = fs::path(NNPLAN_GOLDEN_DIR) / "cli" / name;
  if (std::getenv("NNPLAN_UPDATE_GOLDEN") != nullptr) write_text(path, actual);
  ASSERT_TRUE(fs::exists(path)) << "missing golden file " << path;
  EXPECT_EQ(read_text(path), actual) << "golden mismatch: " << path;
}

// `text` split into lines, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// Plans `graph` with `flags` into the scratch artifact `name` and returns its path.
inline fs::path planned_artifact(const std::string& graph, const std::string& name,
                                 const std::string& flags = "") {
  const fs::path file = scratch_dir() / name;
  const CliResult r = run_cli("plan " + graph + " " + flags + " -o " + file.string());
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  return file;
}

// The artifact at `file` with `edit` applied, dumped as the writer does (two-space indent, a
// trailing newline) into the scratch file `name`, so only the edited part differs.
template <class Edit>
fs::path edited_copy(const fs::path& file, const std::string& name, Edit edit) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(read_text(file));
  edit(doc);
  const fs::path out = scratch_dir() / name;
  write_text(out, doc.dump(2) + "\n");
  return out;
}

inline bool contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

}  // namespace nnplan::cli_test
