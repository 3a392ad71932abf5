// The ONNX conformance corpora (../shared/conformance/onnx-node and onnx-node-more, ONNX's own
// backend node tests; onnx_conformance_corpus.hpp) run through the importer: every model is either
// imported and planned (ir::check, payloads matching the graph, evaluate_graph accepted under
// checked_cpu) or rejected with a named reason, exactly as
// tests/data/onnx_conformance_expectations.tsv records. A model missing from the table and a row
// without a model both fail. Without the corpus (a checkout without ../shared) the tests skip.
// NNPLAN_UPDATE_ONNX_EXPECTATIONS=1 rewrites the table from the actual outcomes; review every
// rejection by eye before committing it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "nnplan/backend/acceptance.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/format/onnx_import.hpp"
#include "nnplan/format/payload_file.hpp"
#include "nnplan/ir/check.hpp"
#include "onnx_conformance_corpus.hpp"

namespace {

namespace fs = std::filesystem;
using namespace nnplan;

const fs::path kTable =
    fs::path(NNPLAN_SOURCE_DIR) / "tests" / "data" / "onnx_conformance_expectations.tsv";

// One row of the table: `planned`, or `rejected` with a fragment of the importer's message.
struct Expectation {
  std::string test_name;
  std::string expected;
  std::string reason;
};

std::vector<Expectation> read_table() {
  std::vector<Expectation> rows;
  std::ifstream in(kTable);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.starts_with('#') || line.starts_with("test_name\t")) continue;
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, '\t');)
      cells.push_back(cell);
    cells.resize(3);
    rows.push_back({cells[0], cells[1], cells[2]});
  }
  return rows;
}

const std::map<std::string, fs::path>& corpus_models() {
  static const conformance::CorpusModels models = conformance::corpus_models();
  return models.folders;
}

// What happened to one model: `planned`, `rejected` by the importer (its message), or
// `unplanned`: imported but refused downstream, or imported differently without payloads, which
// is an importer bug.
struct Outcome {
  std::string status;
  std::string message;
  double seconds = 0;
};

Outcome run_model(const fs::path& folder) {
  const fs::path model = folder / "model.onnx";
  const auto start = std::chrono::steady_clock::now();
  auto imported = format::import_onnx_file(model);
  Outcome outcome;
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // What the graph subcommands import: it must decide alike, with the same message, and build
  // the same graph without payload data.
  format::OnnxImportOptions shapes_only;
  shapes_only.keep_payloads = false;
  const auto planned = format::import_onnx_file(model, shapes_only);
  if (planned.has_value() != imported.has_value() ||
      (!imported && render(planned.error()) != render(imported.error())) ||
      (imported && (planned->graph() != imported->graph() || !planned->payloads.tensors.empty()))) {
    outcome.status = "unplanned";
    outcome.message = "the import without payloads differs: " +
                      (!planned   ? planned.error().message
                       : imported ? std::string("another graph, or payload data kept")
                                  : std::string("imported where the import with payloads failed"));
    return outcome;
  }
  if (!imported) {
    // An unsupported model lists its nodes one per note: the first one is the reason (each corpus
    // model tests one operator).
    outcome.status = "rejected";
    const Error& e = imported.error();
    outcome.message =
        e.kind == ErrorKind::unsupported && !e.notes.empty() ? e.notes.front() : e.message;
    return outcome;
  }
  outcome.status = "unplanned";
  auto checked = ir::check(imported->graph());
  if (!checked) {
    outcome.message = "ir::check: " + render(checked.error());
    return outcome;
  }
  if (auto payloads = ir::check_weights(checked->graph(), imported->payloads); !payloads) {
    outcome.message = "check_weights: " + render(payloads.error());
    return outcome;
  }
  static const auto profile = backend::profile_by_name("checked_cpu");
  if (!profile) {
    outcome.message = "profile: " + render(profile.error());
    return outcome;
  }
  auto evaluation = backend::evaluate_graph(*profile, *checked);
  if (!evaluation) {
    outcome.message = "planning: " + render(evaluation.error());
    return outcome;
  }
  if (!evaluation->accepted()) {
    outcome.message = "gate rejected the plan";
    return outcome;
  }
  outcome.status = "planned";
  return outcome;
}

// The table's reason for a rejection: the message without the file path.
std::string reason_fragment(std::string message) {
  if (const auto at = message.find("model.onnx: "); at != std::string::npos) {
    message.erase(0, at + std::string_view("model.onnx: ").size());
  }
  for (char& c : message) {
    if (c == '\t' || c == '\n') c = ' ';
  }
  return message;
}

// Both corpora, or neither (a checkout without ../shared: the tests skip); one alone fails, since
// a table of both cannot be checked against one.
bool corpora_present() {
  const std::size_t found = conformance::corpus_dirs().size();
  if (found == 1) {
    ADD_FAILURE() << "only one of the conformance corpora is here (" NNPLAN_ONNX_CONFORMANCE_DIR
                     ", " NNPLAN_ONNX_CONFORMANCE_MORE_DIR "): the tables cover both";
  }
  return found == 2;
}

TEST(OnnxConformance, TableHasOneRowPerModel) {
  if (!corpora_present()) {
    GTEST_SKIP() << "ONNX conformance corpora not found at " NNPLAN_ONNX_CONFORMANCE_DIR
                    " and " NNPLAN_ONNX_CONFORMANCE_MORE_DIR;
  }
  EXPECT_TRUE(conformance::corpus_models().duplicates.empty())
      << "a test name in both corpora: " << conformance::corpus_models().duplicates.front();
  const std::vector<Expectation> rows = read_table();
  ASSERT_FALSE(rows.empty()) << "no rows in " << kTable.string();
  const std::map<std::string, fs::path>& models = corpus_models();
  std::set<std::string> listed;
  for (const Expectation& row : rows) {
    EXPECT_TRUE(listed.insert(row.test_name).second) << "row listed twice: " << row.test_name;
    EXPECT_TRUE(models.contains(row.test_name))
        << "table row without a model: " << row.test_name << " (in neither corpus)";
    EXPECT_TRUE(row.expected == "planned" || row.expected == "rejected")
        << row.test_name << ": expected is '" << row.expected << "', not planned or rejected";
    EXPECT_EQ(row.expected == "rejected", !row.reason.empty())
        << row.test_name << ": a rejected row names its reason, a planned one has none";
  }
  for (const auto& [model, folder] : models) {
    EXPECT_TRUE(listed.contains(model))
        << "model missing from " << kTable.string() << ": " << model;
  }
}

TEST(OnnxConformance, EveryModelMatchesItsExpectation) {
  if (!corpora_present()) {
    GTEST_SKIP() << "ONNX conformance corpora not found at " NNPLAN_ONNX_CONFORMANCE_DIR
                    " and " NNPLAN_ONNX_CONFORMANCE_MORE_DIR;
  }
  std::map<std::string, Expectation> table;
  for (const Expectation& row : read_table())
    table.emplace(row.test_name, row);
  const bool update = std::getenv("NNPLAN_UPDATE_ONNX_EXPECTATIONS") != nullptr;
  std::string updated =
      "# One row per model of the ONNX conformance corpus: planned, or rejected with a fragment "
      "of\n"
      "# the importer's message. Regenerate with NNPLAN_UPDATE_ONNX_EXPECTATIONS=1 and review "
      "every\n"
      "# rejection by eye (tests/format/onnx_conformance_test.cpp).\n"
      "test_name\texpected\treason\n";
  std::size_t planned = 0;
  std::size_t rejected = 0;
  for (const auto& [name, folder] : corpus_models()) {
    const Outcome outcome = run_model(folder);
    // A hang guard, not a benchmark: each corpus model is a handful of nodes.
    EXPECT_LT(outcome.seconds, 5.0) << name << " took " << outcome.seconds << " s to import";
    planned += outcome.status == "planned" ? 1 : 0;
    rejected += outcome.status == "rejected" ? 1 : 0;
    if (update) {
      updated += name + "\t" + outcome.status + "\t" +
                 (outcome.status == "planned" ? std::string() : reason_fragment(outcome.message)) +
                 "\n";
    }
    EXPECT_NE(outcome.status, "unplanned")
        << name << ": imported but not planned (an importer bug): " << outcome.message;
    const auto row = table.find(name);
    if (row == table.end()) continue;  // TableHasOneRowPerModel reports it
    const Expectation& e = row->second;
    EXPECT_EQ(outcome.status, e.expected) << name << ": " << outcome.message;
    if (e.expected == "rejected" && outcome.status == "rejected") {
      EXPECT_NE(outcome.message.find(e.reason), std::string::npos)
          << name << ": the rejection does not name '" << e.reason << "': " << outcome.message;
    }
  }
  RecordProperty("planned", static_cast<int>(planned));
  RecordProperty("rejected", static_cast<int>(rejected));
  if (update) std::ofstream(kTable, std::ios::binary | std::ios::trunc) << updated;
}

}  // namespace
