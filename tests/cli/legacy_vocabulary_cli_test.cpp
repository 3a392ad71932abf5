// TorchLean's earlier vocabulary (conv2d, batch_norm2d_nchw_eval, max_pool2d_pad, swap_first_two,
// output_id, ...) plans exactly as its current spelling: each example graph, written in the
// earlier vocabulary, gives the same groups, audit and verdict as its current form under
// tests/golden/graphs/, through `nnplan plan --json` on several profiles.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "cli_runner.hpp"

namespace {

using namespace nnplan::cli_test;
using Json = nlohmann::ordered_json;

// The artifact without what names the input file (its path and digest).
Json planned(const std::string& graph, const std::string& flags) {
  const CliResult r = run_cli("plan " + graph + " --json " + flags);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  Json doc = Json::parse(r.out);
  doc.erase("graph");
  return doc;
}

class LegacyVocabulary : public ::testing::TestWithParam<const char*> {};

TEST_P(LegacyVocabulary, PlansAsItsCurrentSpelling) {
  const std::string legacy = source(std::string("examples/") + GetParam());
  const std::string current = source(std::string("tests/golden/graphs/") + GetParam());
  const std::string legacy_text = read_text(legacy);
  ASSERT_TRUE(contains(legacy_text, "\"output_id\"")) << "the example is no longer legacy";
  ASSERT_TRUE(contains(read_text(current), "\"output_ids\""));
  for (const char* flags : {"", "--profile checked_cuda", "--lowering singleton"}) {
    const Json a = planned(legacy, flags);
    const Json b = planned(current, flags);
    EXPECT_FALSE(a["groups"].empty()) << flags;
    EXPECT_EQ(a, b) << GetParam() << " " << flags;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, LegacyVocabulary,
                         ::testing::Values("mlp.json", "cnn.json", "transformer_block.json"));

}  // namespace
