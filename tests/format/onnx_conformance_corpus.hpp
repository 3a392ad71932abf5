// The ONNX conformance corpora the conformance suites run (tests/format/onnx_conformance_test.cpp
// imports and plans every model, tests/runtime/onnx_conformance_run_test.cpp runs them): ONNX's
// backend node tests in ../shared/conformance/onnx-node and ../shared/conformance/onnx-node-more
// (NNPLAN_ONNX_CONFORMANCE_DIR and NNPLAN_ONNX_CONFORMANCE_MORE_DIR when configuring). Test names
// are unique across the two, so one table row per test name covers both.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <vector>

namespace nnplan::conformance {

// The corpus folders this checkout has; none when ../shared is missing (the suites skip).
inline std::vector<std::filesystem::path> corpus_dirs() {
  std::vector<std::filesystem::path> dirs;
  for (const char* dir : {NNPLAN_ONNX_CONFORMANCE_DIR, NNPLAN_ONNX_CONFORMANCE_MORE_DIR}) {
    if (std::filesystem::is_directory(dir)) dirs.emplace_back(dir);
  }
  return dirs;
}

// Every test of every corpus folder that has a model.onnx: its name, and its folder. A name found
// in two folders is reported by the caller's table check as a row listed twice would be: the first
// folder keeps it and `duplicates` names it.
struct CorpusModels {
  std::map<std::string, std::filesystem::path> folders;
  std::vector<std::string> duplicates;
};

inline CorpusModels corpus_models() {
  CorpusModels models;
  for (const std::filesystem::path& dir : corpus_dirs()) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (!std::filesystem::exists(entry.path() / "model.onnx")) continue;
      const std::string name = entry.path().filename().string();
      if (!models.folders.emplace(name, entry.path()).second) models.duplicates.push_back(name);
    }
  }
  return models;
}

}  // namespace nnplan::conformance
