#include "nnplan/format/plan_artifact.hpp"
#include "nnplan/backend/op_mapping.hpp"
#include "nnplan/exception_boundary.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <limits>
#include <memory>

#include "bounded_file.hpp"
#include "json_common.hpp"
#include "json_document.hpp"
#include "message_text.hpp"
#include "nnplan/backend/audit.hpp"
#include "nnplan/backend/gate.hpp"
#include "nnplan/ir/op_kind.hpp"
#include "plan_artifact_diff.hpp"

namespace nnplan::format {

using namespace nnplan::backend;
using detail::Json;
using detail::str;

// ---------------------------------------------------------------------------------------------
// Digests

namespace {

// OpenSSL's SHA-256 over a sequence of chunks; hand-written SHA-256 would be code to audit for no
// gain (DESIGN.md: use the packaged library).
class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
    // Only allocation can fail here; a null context makes the updates below no-ops that
    // finish() reports.
    ok_ = ctx_ != nullptr && EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) == 1;
  }
  void update(std::string_view bytes) {
    if (ok_) ok_ = EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size()) == 1;
  }
  [[nodiscard]] std::string finish() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int size = 0;
    if (!ok_ || EVP_DigestFinal_ex(ctx_.get(), md.data(), &size) != 1) return "sha256:unavailable";
    static constexpr std::string_view kHex = "0123456789abcdef";
    std::string out = "sha256:";
    out.reserve(out.size() + 2 * size);
    for (unsigned int i = 0; i < size; ++i) {
      out += kHex[md[i] >> 4];
      out += kHex[md[i] & 0xF];
    }
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
  bool ok_ = false;
};

}  // namespace

std::string sha256_digest(std::string_view bytes) {
  Sha256 sha;
  sha.update(bytes);
  return sha.finish();
}

Expected<std::string> file_digest(const std::filesystem::path& path) {
  Sha256 sha;
  auto read =
      detail::read_bounded_chunks(path, "graph file", std::numeric_limits<std::uintmax_t>::max(),
                                  [&sha](std::string_view chunk) { sha.update(chunk); });
  if (!read) return std::unexpected(std::move(read.error()));
  return sha.finish();
}

// ---------------------------------------------------------------------------------------------
// Reader

namespace {

class EnvelopeReader {
 public:
  explicit EnvelopeReader(std::string_view source) : source_(source) {}

  Error fail(std::string_view field, std::string_view problem) const {
    std::string message = source_ + ": ";
    if (!field.empty()) message += "field " + std::string(field) + ": ";
    message += problem;
    return make_error(ErrorKind::invalid_input, std::move(message));
  }

  // The member `key` of `object`, required.
  Expected<const Json*> member(const Json& object, std::string_view parent,
                               std::string_view key) const {
    const std::string field =
        parent.empty() ? std::string(key) : std::string(parent) + "." + std::string(key);
    const auto it = object.find(std::string(key));
    if (it == object.end()) return std::unexpected(fail(field, "missing"));
    return &*it;
  }

  // Rejects keys outside `allowed`.
  Expected<void> only(const Json& object, std::string_view parent,
                      std::initializer_list<std::string_view> allowed) const {
    for (const auto& [key, value] : object.items()) {
      bool known = false;
      for (std::string_view a : allowed)
        known = known || a == key;
      if (!known) {
        const std::string field = parent.empty() ? key : std::string(parent) + "." + key;
        std::string valid;
        for (std::string_view a : allowed)
          valid += (valid.empty() ? "" : ", ") + std::string(a);
        return std::unexpected(fail(field, "unknown field; valid: " + valid));
      }
    }
    return {};
  }

  Expected<std::string> string(const Json& object, std::string_view parent,
                               std::string_view key) const {
    auto m = member(object, parent, key);
    if (!m) return std::unexpected(std::move(m.error()));
    if (!(*m)->is_string()) {
      return std::unexpected(fail(std::string(parent) + "." + std::string(key),
                                  "expected a string, found " + std::string((*m)->type_name())));
    }
    return (*m)->get<std::string>();
  }

  // A spelling parsed with `parse`; its error message (valid spellings) is kept.
  template <class T, class Parse>
  Expected<T> spelling(const Json& object, std::string_view parent, std::string_view key,
                       Parse parse) const {
    auto text = string(object, parent, key);
    if (!text) return std::unexpected(std::move(text.error()));
    auto value = parse(*text);
    if (!value) {
      return std::unexpected(
          fail(std::string(parent) + "." + std::string(key), value.error().message));
    }
    return *value;
  }

 private:
  std::string source_;
};

Expected<RecordedProfile> read_profile(const EnvelopeReader& r, const Json& root) {
  auto node = r.member(root, "", "profile");
  if (!node) return std::unexpected(std::move(node.error()));
  const Json& p = **node;
  if (!p.is_object()) {
    return std::unexpected(
        r.fail("profile", "expected an object, found " + std::string(p.type_name())));
  }
  if (auto ok = r.only(
          p, "profile",
          {"name", "device", "preference", "assurance", "vjp", "target", "lowering", "modules"});
      !ok) {
    return std::unexpected(std::move(ok.error()));
  }
  RecordedProfile out;
  auto name = r.string(p, "profile", "name");
  if (!name) return std::unexpected(std::move(name.error()));
  out.name = std::move(*name);
  auto device = r.spelling<Device>(p, "profile", "device", parse_device);
  if (!device) return std::unexpected(std::move(device.error()));
  out.device = *device;
  auto preference =
      r.spelling<BackendPreference>(p, "profile", "preference", parse_backend_preference);
  if (!preference) return std::unexpected(std::move(preference.error()));
  out.preference = *preference;
  auto assurance = r.string(p, "profile", "assurance");
  if (!assurance) return std::unexpected(std::move(assurance.error()));
  if (*assurance != "custom") {
    auto preset = parse_assurance_preset(*assurance);
    if (!preset)
      return std::unexpected(r.fail("profile.assurance", preset.error().message + ", custom"));
    out.assurance = *preset;
  }
  auto vjp = r.spelling<VjpMode>(p, "profile", "vjp", parse_vjp_mode);
  if (!vjp) return std::unexpected(std::move(vjp.error()));
  out.vjp_mode = *vjp;
  auto target = r.string(p, "profile", "target");
  if (!target) return std::unexpected(std::move(target.error()));
  if (*target != "custom") {
    auto preset = parse_target_preset(*target);
    if (!preset)
      return std::unexpected(r.fail("profile.target", preset.error().message + ", custom"));
    out.target = *preset;
  }
  auto lowering = r.spelling<LoweringMode>(p, "profile", "lowering", parse_lowering_mode);
  if (!lowering) return std::unexpected(std::move(lowering.error()));
  out.lowering = *lowering;
  auto modules = r.member(p, "profile", "modules");
  if (!modules) return std::unexpected(std::move(modules.error()));
  if (!(*modules)->is_array()) {
    return std::unexpected(r.fail("profile.modules", "expected an array of module names"));
  }
  for (std::size_t i = 0; i < (*modules)->size(); ++i) {
    const Json& m = (**modules)[i];
    if (!m.is_string()) {
      return std::unexpected(r.fail("profile.modules[" + std::to_string(i) + "]",
                                    "expected a string, found " + std::string(m.type_name())));
    }
    out.modules.push_back(m.get<std::string>());
  }
  return out;
}

bool is_digest(const std::string& s) {
  constexpr std::string_view kPrefix = "sha256:";
  if (s.size() != kPrefix.size() + 64 || !s.starts_with(kPrefix)) return false;
  for (std::size_t i = kPrefix.size(); i < s.size(); ++i) {
    const char c = s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Expected<void> read_graph(const EnvelopeReader& r, const Json& root, PlanArtifact& out) {
  auto node = r.member(root, "", "graph");
  if (!node) return std::unexpected(std::move(node.error()));
  const Json& g = **node;
  if (!g.is_object()) {
    return std::unexpected(
        r.fail("graph", "expected an object, found " + std::string(g.type_name())));
  }
  if (auto ok = r.only(g, "graph", {"digest", "nodes", "symbolic_dims"}); !ok) return ok;
  auto digest = r.member(g, "graph", "digest");
  if (!digest) return std::unexpected(std::move(digest.error()));
  if (!(*digest)->is_null()) {
    if (!(*digest)->is_string() || !is_digest((*digest)->get<std::string>())) {
      return std::unexpected(
          r.fail("graph.digest",
                 "expected null or \"sha256:\" followed by 64 lowercase hex digits, found " +
                     (*digest)->dump()));
    }
    out.digest = (*digest)->get<std::string>();
  }
  auto nodes = r.member(g, "graph", "nodes");
  if (!nodes) return std::unexpected(std::move(nodes.error()));
  if (!(*nodes)->is_null()) {
    if (!(*nodes)->is_number_unsigned()) {
      return std::unexpected(r.fail(
          "graph.nodes", "expected null or a non-negative integer, found " + (*nodes)->dump()));
    }
    out.nodes = (*nodes)->get<std::size_t>();
  }
  return {};
}

// Through the strict reader, as artifacts are read: a repeated key or a NUL byte is reported,
// never resolved silently.
Expected<Json> parse_json(std::string_view text, std::size_t max_elements = kMaxJsonElements) {
  auto parsed = detail::parse_json_document(text, max_elements);
  if (!parsed) return std::unexpected(make_error(ErrorKind::invalid_input, parsed.error().problem));
  return std::move(*parsed);
}

}  // namespace

namespace {

// The members whose inside the reader checks but does not keep: all that grows with the graph,
// and the error, of which only the type matters here. What is kept (format, profile, graph,
// accepted) is small, so the stored elements are held to kMaxArtifactEnvelopeElements.
constexpr std::array<std::string_view, 4> kShallowMembers = {"gate_failures", "groups", "audit",
                                                             "error"};
constexpr std::array<std::string_view, 8> kArtifactMembers = {
    "format", "profile", "graph", "accepted", "gate_failures", "groups", "audit", "error"};
constexpr std::size_t kMaxArtifactEnvelopeElements = std::size_t{1} << 16;

Expected<PlanArtifact> parse_plan_artifact_text(std::string_view text, std::string_view source,
                                                KeepDocument keep) {
  const EnvelopeReader r(source);
  // The shared strict reader refuses repeated keys (nlohmann would keep the last `groups`, and a
  // forged first one would then pass verify), NUL bytes, trailing content and oversized input.
  auto parsed = detail::parse_json_document(
      text, kMaxArtifactEnvelopeElements, {.shallow = kShallowMembers, .known = kArtifactMembers});
  if (!parsed) return std::unexpected(r.fail("", parsed.error().problem));
  const Json& root = *parsed;
  const std::string not_artifact = "not an " + str(kPlanFormat) + " artifact: ";
  if (!root.is_object()) {
    return std::unexpected(r.fail(
        "", not_artifact + "expected a JSON object, found " + std::string(root.type_name())));
  }
  const auto format = root.find("format");
  if (format == root.end()) return std::unexpected(r.fail("", not_artifact + "no format field"));
  if (!format->is_string()) {
    return std::unexpected(r.fail("", not_artifact + "format is " + format->dump()));
  }
  if (format->get<std::string>() != kPlanFormat) {
    return std::unexpected(
        r.fail("", not_artifact + "format is '" + format->get<std::string>() + "'"));
  }
  if (auto ok = r.only(
          root, "",
          {"format", "profile", "graph", "accepted", "gate_failures", "groups", "audit", "error"});
      !ok) {
    return std::unexpected(std::move(ok.error()));
  }
  PlanArtifact out;
  auto profile = read_profile(r, root);
  if (!profile) return std::unexpected(std::move(profile.error()));
  out.profile = std::move(*profile);
  if (auto ok = read_graph(r, root, out); !ok) return std::unexpected(std::move(ok.error()));
  auto accepted = r.member(root, "", "accepted");
  if (!accepted) return std::unexpected(std::move(accepted.error()));
  if (!(*accepted)->is_boolean()) {
    return std::unexpected(r.fail("accepted", "expected a boolean, found " + (*accepted)->dump()));
  }
  out.accepted = (*accepted)->get<bool>();
  for (const std::string_view key : {"gate_failures", "groups"}) {
    auto list = r.member(root, "", key);
    if (!list) return std::unexpected(std::move(list.error()));
    if (!(*list)->is_array()) {
      return std::unexpected(
          r.fail(key, "expected an array, found " + std::string((*list)->type_name())));
    }
  }
  auto audit = r.member(root, "", "audit");
  if (!audit) return std::unexpected(std::move(audit.error()));
  if (!(*audit)->is_object()) {
    return std::unexpected(
        r.fail("audit", "expected an object, found " + std::string((*audit)->type_name())));
  }
  auto error = r.member(root, "", "error");
  if (!error) return std::unexpected(std::move(error.error()));
  if (!(*error)->is_null() && !(*error)->is_object()) {
    return std::unexpected(
        r.fail("error", "expected null or an object, found " + std::string((*error)->type_name())));
  }
  if (out.accepted && !(*error)->is_null()) {
    return std::unexpected(r.fail("accepted", "is true but the artifact records an error"));
  }
  if (keep == KeepDocument::yes) out.document = std::string(text);
  return out;
}

}  // namespace

Expected<PlanArtifact> parse_plan_artifact(std::string_view text, std::string_view source,
                                           KeepDocument keep) {
  return catch_as_error(
      [&] { return "reading plan artifact " + detail::escape_controls(std::string(source)); },
      [&] { return parse_plan_artifact_text(text, source, keep); });
}

Expected<PlanArtifact> read_plan_artifact(const std::filesystem::path& path, KeepDocument keep) {
  auto text = detail::read_bounded_file(path, "plan artifact", kMaxPlanFileBytes,
                                        detail::StreamCheck::json_text);
  if (!text) return std::unexpected(std::move(text.error()));
  return parse_plan_artifact(text->text(), path.string(), keep);
}

// ---------------------------------------------------------------------------------------------
// Diff

namespace {

// The elements of a tree, counted as the JSON reader counts them (keys are not elements).
std::size_t element_count(const Json& json) {
  std::size_t n = 1;
  if (json.is_structured()) {
    for (const Json& child : json)
      n += element_count(child);
  }
  return n;
}

}  // namespace

ArtifactDiff diff_artifacts(std::string_view expected_json, std::string_view actual_json,
                            std::size_t max_lines) {
  // The artifact (`expected_json`) is held to about twice the elements of the re-planned
  // document, so that a padded artifact cannot make the diff build a tree far larger than the
  // plan's own.
  auto actual = parse_json(actual_json);
  const std::size_t allowed =
      actual ? std::min(kMaxJsonElements, 2 * element_count(*actual) + 4096) : kMaxJsonElements;
  auto expected = parse_json(expected_json, allowed);
  detail::DifferenceLines out{.lines = {}, .total = 0, .keep = max_lines};
  if (!expected || !actual) {
    if (!expected && !actual && expected_json == actual_json) return {};
    detail::difference_line(out, "", expected ? "a JSON document" : expected.error().message,
                            actual ? "a JSON document" : actual.error().message);
  } else {
    detail::diff_json(*expected, *actual, out);
  }
  return ArtifactDiff{.lines = std::move(out.lines), .total = out.total};
}

std::vector<std::string> diff_artifacts(std::string_view expected_json,
                                        std::string_view actual_json) {
  return diff_artifacts(expected_json, actual_json, static_cast<std::size_t>(-1)).lines;
}

}  // namespace nnplan::format
