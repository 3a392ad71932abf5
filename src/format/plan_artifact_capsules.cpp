// recorded_capsules (plan_artifact.hpp): the capsule names of an artifact's `audit.kernels`,
// found by one SAX pass over the text that keeps nothing but those names, so `verify` can name
// the capsules a registry lacks without building a tree of a large artifact.
#include <exception>
#include <string>
#include <vector>

#include "json_common.hpp"
#include "nnplan/format/plan_artifact.hpp"

namespace nnplan::format {

namespace {

// Collects the string values at audit.kernels[*].capsule; everything else is skipped.
class CapsuleNames : public nlohmann::json_sax<detail::Json> {
 public:
  std::vector<std::string> names;

  bool null() override { return scalar(); }
  bool boolean(bool /*value*/) override { return scalar(); }
  bool number_integer(number_integer_t /*value*/) override { return scalar(); }
  bool number_unsigned(number_unsigned_t /*value*/) override { return scalar(); }
  bool number_float(number_float_t /*value*/, const string_t& /*text*/) override {
    return scalar();
  }
  bool binary(binary_t& /*value*/) override { return scalar(); }
  bool string(string_t& value) override {
    if (at_capsule()) names.push_back(value);
    return scalar();
  }
  bool start_object(std::size_t /*size*/) override {
    frames_.push_back(Frame{.object = true});
    return true;
  }
  bool key(string_t& name) override {
    frames_.back().key = name;
    return true;
  }
  bool end_object() override { return end(); }
  bool start_array(std::size_t /*size*/) override {
    frames_.push_back(Frame{.object = false});
    return true;
  }
  bool end_array() override { return end(); }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& /*error*/) override {
    return false;
  }

 private:
  struct Frame {
    bool object = false;
    std::string key;  // the current member's key, in an object
  };

  // root object -> "audit" object -> "kernels" array -> kernel object -> "capsule".
  [[nodiscard]] bool at_capsule() const {
    return frames_.size() == 4 && frames_[0].object && frames_[0].key == "audit" &&
           frames_[1].object && frames_[1].key == "kernels" && !frames_[2].object &&
           frames_[3].object && frames_[3].key == "capsule";
  }
  static bool scalar() { return true; }
  bool end() {
    frames_.pop_back();
    return true;
  }

  std::vector<Frame> frames_;
};

}  // namespace

std::vector<std::string> recorded_capsules(std::string_view artifact_json) {
  CapsuleNames handler;
  try {
    (void)detail::Json::sax_parse(artifact_json.begin(), artifact_json.end(), &handler,
                                  nlohmann::detail::input_format_t::json, /*strict=*/true,
                                  /*ignore_comments=*/false);
  } catch (const std::exception&) {
    // Allocation failure: the names found so far are all there is to report.
  }
  return std::move(handler.names);
}

}  // namespace nnplan::format
