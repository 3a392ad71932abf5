// Reader and writer of `nnplan.capsules.v1` registry files (SPEC §4).
//
// The reader walks the parsed document by hand rather than through nlohmann's `from_json`
// adapters: every rejection must say where it happened (source, module, capsule, field path) and
// what was allowed, and no nlohmann exception may leave this file. The document is read by the
// shared strict reader (json_document.hpp: repeated keys, NUL bytes, trailing content, depth,
// string and element limits) into an `ordered_json`, so that "the first unknown field" is the
// first one in the file.
#include "nnplan/format/registry_file.hpp"

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <variant>

#include "bounded_file.hpp"
#include "json_common.hpp"
#include "json_document.hpp"
#include "message_text.hpp"
#include "nnplan/exception_boundary.hpp"
#include "nnplan/format/limits.hpp"
#include "nnplan/format/listing_json.hpp"

namespace nnplan::format {
namespace {

using backend::BackendOp;
using backend::CapsuleModule;
using backend::Claim;
using backend::ClaimKind;
using backend::ContractDescriptor;
using backend::Evidence;
using backend::EvidenceKind;
using backend::KernelCapsule;
using backend::NumericalPolicy;
using backend::Provenance;
using backend::ProvenanceKind;
using Json = nlohmann::ordered_json;

using detail::escape_controls;
using detail::only_whitespace;
using detail::provenance_json;
using detail::shown;

bool has_control_character(std::string_view text) {
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x20 || byte == 0x7f) return true;
  }
  return false;
}

std::string join_fields(std::span<const std::string_view> names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i != 0) out += ", ";
    out += names[i];
  }
  return out;
}

std::string child(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  std::string out(path);
  out += '.';
  out += key;
  return out;
}

std::string element(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

// The fields each object may hold, in canonical (writing) order.
constexpr std::array<std::string_view, 2> kDocumentFields = {"format", "modules"};
constexpr std::array<std::string_view, 2> kModuleFields = {"name", "capsules"};
constexpr std::array<std::string_view, 11> kCapsuleFields = {
    "name",      "op",        "provider", "device",  "trust", "supports_forward",
    "vjp",       "contracts", "numerical", "notes", "pattern"};
constexpr std::array<std::string_view, 4> kContractsFields = {"shape", "layout", "value", "vjp"};
constexpr std::array<std::string_view, 4> kDescriptorFields = {"claim", "summary", "evidence",
                                                               "provenance"};
constexpr std::array<std::string_view, 4> kNumericalFields = {"rounding", "subnormals",
                                                              "contraction", "reduction"};

constexpr std::array<std::string_view, 2> kShapeClaimFields = {"kind", "op"};
constexpr std::array<std::string_view, 3> kLayoutClaimFields = {"kind", "op", "layout"};
constexpr std::array<std::string_view, 3> kValueClaimFields = {"kind", "op", "spec"};
constexpr std::array<std::string_view, 4> kVjpClaimFields = {"kind", "op", "spec", "mode"};

constexpr std::array<std::string_view, 2> kNamedEvidenceFields = {"kind", "name"};
constexpr std::array<std::string_view, 2> kTrustedEvidenceFields = {"kind", "reason"};
constexpr std::array<std::string_view, 1> kBareEvidenceFields = {"kind"};

constexpr std::array<std::string_view, 2> kSourceFileFields = {"kind", "path"};
constexpr std::array<std::string_view, 4> kNativeSymbolFields = {"kind", "path", "symbol",
                                                                 "build_target"};
constexpr std::array<std::string_view, 2> kNoteFields = {"kind", "text"};

std::span<const std::string_view> claim_fields(ClaimKind kind) {
  switch (kind) {
    case ClaimKind::shape_safety:
      return kShapeClaimFields;
    case ClaimKind::layout_compatibility:
      return kLayoutClaimFields;
    case ClaimKind::value_refinement:
      return kValueClaimFields;
    case ClaimKind::vjp_refinement:
      return kVjpClaimFields;
  }
  return kShapeClaimFields;
}

std::span<const std::string_view> evidence_fields(EvidenceKind kind) {
  switch (kind) {
    case EvidenceKind::theorem:
    case EvidenceKind::checker:
    case EvidenceKind::runtime_guard:
    case EvidenceKind::test_suite:
    case EvidenceKind::fuzz_oracle:
      return kNamedEvidenceFields;
    case EvidenceKind::trusted_boundary:
      return kTrustedEvidenceFields;
    case EvidenceKind::not_provided:
      return kBareEvidenceFields;
  }
  return kBareEvidenceFields;
}

std::span<const std::string_view> provenance_fields(ProvenanceKind kind) {
  switch (kind) {
    case ProvenanceKind::source_file:
      return kSourceFileFields;
    case ProvenanceKind::native_symbol:
      return kNativeSymbolFields;
    case ProvenanceKind::note:
      return kNoteFields;
  }
  return kNoteFields;
}

using detail::JsonPathStep;

// ---------------------------------------------------------------------------------------------
// The strict reader. Each member reads one kind of object and returns the value or the first
// problem found; `module_` and `capsule_` name where the reader is, for messages.

class Reader {
 public:
  // `capsules_before`: the capsules of the registry files read before this one
  // (read_registry_files), counted against the limit together with this file's.
  explicit Reader(std::string_view source, std::size_t capsules_before = 0)
      : source_(source), capsules_before_(capsules_before) {}

  Expected<std::vector<CapsuleModule>> document(const Json& root);
  Error repeated_key(const Json& root, const std::vector<JsonPathStep>& path,
                     std::string_view location);
  Error fail(std::string_view field, std::string_view problem) const;

 private:
  template <class T>
  using Parse = Expected<T> (*)(std::string_view);

  Expected<CapsuleModule> module(const Json& json);
  Expected<KernelCapsule> capsule(const Json& json);
  Expected<ContractDescriptor> descriptor(const Json& json, const std::string& path);
  Expected<Claim> claim(const Json& json, const std::string& path);
  Expected<Evidence> evidence(const Json& json, const std::string& path);
  Expected<Provenance> provenance(const Json& json, const std::string& path);
  Expected<NumericalPolicy> numerical(const Json& json, const std::string& path);
  Expected<std::vector<BackendOp>> fused_pattern(const Json& json, BackendOp op);

  Expected<void> expect_type(const Json& json, Json::value_t type, std::string_view type_name,
                             std::string_view path) const;
  Expected<void> only_fields(const Json& object, std::span<const std::string_view> allowed,
                             std::string_view path, std::string_view owner) const;
  Expected<const Json*> required(const Json& object, std::string_view key,
                                 std::string_view path) const;
  Expected<std::string> string_field(const Json& object, std::string_view key,
                                     std::string_view path, bool non_empty) const;
  Expected<std::string> optional_string(const Json& object, std::string_view key,
                                        std::string_view path) const;
  template <class T>
  Expected<T> spelling(const Json& object, std::string_view key, std::string_view path,
                       Parse<T> parse, std::optional<T> fallback = std::nullopt) const;

  static std::string module_label(const Json& json, std::size_t index);
  static std::string capsule_label(const Json& json, std::size_t index);

  std::string_view source_;
  std::size_t capsules_before_;
  std::string module_;
  std::string capsule_;
};

Error Reader::fail(std::string_view field, std::string_view problem) const {
  std::string message(source_);
  message += ": ";
  if (!module_.empty()) {
    message += module_;
    if (!capsule_.empty()) {
      message += ' ';
      message += capsule_;
    }
    message += ": ";
  }
  if (!field.empty()) {
    message += "field ";
    message += field;
    message += ": ";
  }
  message += problem;
  return make_error(ErrorKind::invalid_input, escape_controls(message));
}

std::string Reader::module_label(const Json& json, std::size_t index) {
  if (json.is_object()) {
    const auto name = json.find("name");
    if (name != json.end() && name->is_string() && !name->get_ref<const std::string&>().empty()) {
      return "module '" + shown(name->get_ref<const std::string&>()) + "'";
    }
  }
  return "module #" + std::to_string(index);
}

std::string Reader::capsule_label(const Json& json, std::size_t index) {
  if (json.is_object()) {
    const auto name = json.find("name");
    if (name != json.end() && name->is_string() && !name->get_ref<const std::string&>().empty()) {
      return "capsule '" + shown(name->get_ref<const std::string&>()) + "'";
    }
  }
  return "capsule #" + std::to_string(index);
}

Expected<void> Reader::expect_type(const Json& json, Json::value_t type, std::string_view type_name,
                                   std::string_view path) const {
  if (json.type() == type) return {};
  std::string problem = "expected ";
  problem += type_name;
  problem += ", found ";
  problem += json.type_name();
  return std::unexpected(fail(path, problem));
}

Expected<void> Reader::only_fields(const Json& object, std::span<const std::string_view> allowed,
                                   std::string_view path, std::string_view owner) const {
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (const std::string_view name : allowed)
      known = known || key == name;
    if (known) continue;
    std::string problem = "unknown field";
    if (!owner.empty()) {
      problem += " for ";
      problem += owner;
    }
    problem += "; valid: ";
    problem += join_fields(allowed);
    return std::unexpected(fail(child(path, shown(key)), problem));
  }
  return {};
}

Expected<const Json*> Reader::required(const Json& object, std::string_view key,
                                       std::string_view path) const {
  const auto it = object.find(key);
  if (it == object.end()) {
    return std::unexpected(fail(child(path, key), "required field is missing"));
  }
  return &*it;
}

Expected<std::string> Reader::string_field(const Json& object, std::string_view key,
                                           std::string_view path, bool non_empty) const {
  const auto value = required(object, key, path);
  if (!value) return std::unexpected(value.error());
  const std::string where = child(path, key);
  if (auto ok = expect_type(**value, Json::value_t::string, "string", where); !ok) {
    return std::unexpected(ok.error());
  }
  const auto& text = (*value)->get_ref<const std::string&>();
  if (non_empty && text.empty()) return std::unexpected(fail(where, "must not be empty"));
  return text;
}

Expected<std::string> Reader::optional_string(const Json& object, std::string_view key,
                                              std::string_view path) const {
  if (!object.contains(key)) return std::string();
  return string_field(object, key, path, /*non_empty=*/false);
}

template <class T>
Expected<T> Reader::spelling(const Json& object, std::string_view key, std::string_view path,
                             Parse<T> parse, std::optional<T> fallback) const {
  if (fallback && !object.contains(key)) return *fallback;
  const auto text = string_field(object, key, path, /*non_empty=*/false);
  if (!text) return std::unexpected(text.error());
  // A shortened value still fails to parse (no valid spelling contains "..."), and the core's
  // message then lists the valid names without repeating a huge value.
  auto value = parse(shown(*text));
  if (!value) return std::unexpected(fail(child(path, key), value.error().message));
  return *value;
}

Expected<std::vector<CapsuleModule>> Reader::document(const Json& root) {
  if (!root.is_object()) {
    return std::unexpected(
        fail("", "expected a JSON object with fields format and modules, found " +
                     std::string(root.type_name())));
  }
  // The format first: another nnplan document's fields are not worth listing as unknown.
  const auto format = string_field(root, "format", "", /*non_empty=*/false);
  if (!format) return std::unexpected(format.error());
  if (*format == kCapsuleListingFormat) {
    return std::unexpected(
        fail("", "not an " + std::string(kCapsulesFormat) + " registry: format is '" +
                     std::string(kCapsuleListingFormat) +
                     "', a filtered capsule listing (what nnplan capsules --json prints with "
                     "--op, --provider or --device); nnplan capsules --json without filters "
                     "writes a registry that loads"));
  }
  if (*format != kCapsulesFormat) {
    return std::unexpected(fail("format", "expected '" + std::string(kCapsulesFormat) +
                                              "', found '" + shown(*format) + "'"));
  }
  if (auto ok = only_fields(root, kDocumentFields, "", ""); !ok) return std::unexpected(ok.error());
  const auto modules = required(root, "modules", "");
  if (!modules) return std::unexpected(modules.error());
  if (auto ok = expect_type(**modules, Json::value_t::array, "array", "modules"); !ok) {
    return std::unexpected(ok.error());
  }
  if ((*modules)->size() > kMaxRegistryModules) {
    return std::unexpected(fail("modules", "holds " + std::to_string((*modules)->size()) +
                                               " modules; the limit is " +
                                               std::to_string(kMaxRegistryModules)));
  }
  // Counted before any module is read, so a huge registry fails before it is converted. The
  // capsules of earlier files count too: the limit holds for all registry files together.
  std::size_t capsule_count = capsules_before_;
  for (std::size_t i = 0; i < (*modules)->size(); ++i) {
    const Json& json = (**modules)[i];
    const auto c = json.is_object() ? json.find("capsules") : json.end();
    if (c == json.end() || !c->is_array()) continue;
    capsule_count += c->size();
    if (capsule_count > kMaxRegistryCapsules) {
      module_ = module_label(json, i);
      const std::string limit = std::to_string(kMaxRegistryCapsules);
      if (capsules_before_ == 0) {
        return std::unexpected(fail("capsules", "brings the registry to " +
                                                    std::to_string(capsule_count) +
                                                    " capsules; the limit is " + limit));
      }
      return std::unexpected(fail("capsules", "brings the registry files read so far to " +
                                                  std::to_string(capsule_count) + " capsules (" +
                                                  std::to_string(capsules_before_) +
                                                  " in the files before this one); the limit is " +
                                                  limit + " in all registry files together"));
    }
  }
  std::vector<CapsuleModule> out;
  out.reserve((*modules)->size());
  for (std::size_t i = 0; i < (*modules)->size(); ++i) {
    const Json& json = (**modules)[i];
    module_ = module_label(json, i);
    auto m = module(json);
    if (!m) return std::unexpected(std::move(m.error()));
    out.push_back(std::move(*m));
  }
  module_.clear();
  return out;
}

Expected<CapsuleModule> Reader::module(const Json& json) {
  if (auto ok = expect_type(json, Json::value_t::object, "object", ""); !ok) {
    return std::unexpected(ok.error());
  }
  if (auto ok = only_fields(json, kModuleFields, "", "module"); !ok) {
    return std::unexpected(ok.error());
  }
  auto name = string_field(json, "name", "", /*non_empty=*/true);
  if (!name) return std::unexpected(name.error());
  if (has_control_character(*name)) {
    return std::unexpected(fail("name", "must not contain control characters"));
  }
  const auto capsules = required(json, "capsules", "");
  if (!capsules) return std::unexpected(capsules.error());
  if (auto ok = expect_type(**capsules, Json::value_t::array, "array", "capsules"); !ok) {
    return std::unexpected(ok.error());
  }
  CapsuleModule out{.name = std::move(*name), .capsules = {}};
  out.capsules.reserve((*capsules)->size());
  for (std::size_t i = 0; i < (*capsules)->size(); ++i) {
    const Json& c = (**capsules)[i];
    capsule_ = capsule_label(c, i);
    auto parsed = capsule(c);
    if (!parsed) return std::unexpected(std::move(parsed.error()));
    out.capsules.push_back(std::move(*parsed));
  }
  capsule_.clear();
  return out;
}

Expected<KernelCapsule> Reader::capsule(const Json& json) {
  if (auto ok = expect_type(json, Json::value_t::object, "object", ""); !ok) {
    return std::unexpected(ok.error());
  }
  if (auto ok = only_fields(json, kCapsuleFields, "", "capsule"); !ok) {
    return std::unexpected(ok.error());
  }
  KernelCapsule out;

  auto name = string_field(json, "name", "", /*non_empty=*/true);
  if (!name) return std::unexpected(name.error());
  if (has_control_character(*name)) {
    return std::unexpected(fail("name", "must not contain control characters"));
  }
  out.name = std::move(*name);

  const auto op = spelling<BackendOp>(json, "op", "", backend::parse_backend_op);
  if (!op) return std::unexpected(op.error());
  out.op = *op;
  const auto provider = spelling<backend::Provider>(json, "provider", "", backend::parse_provider);
  if (!provider) return std::unexpected(provider.error());
  out.provider = *provider;
  const auto device = spelling<backend::Device>(json, "device", "", backend::parse_device);
  if (!device) return std::unexpected(device.error());
  out.device = *device;
  const auto trust = spelling<backend::TrustLevel>(json, "trust", "", backend::parse_trust_level);
  if (!trust) return std::unexpected(trust.error());
  out.trust_level = *trust;

  if (const auto it = json.find("supports_forward"); it != json.end()) {
    if (auto ok = expect_type(*it, Json::value_t::boolean, "boolean", "supports_forward"); !ok) {
      return std::unexpected(ok.error());
    }
    out.supports_forward = it->get<bool>();
  }
  const auto vjp =
      spelling<backend::VjpMode>(json, "vjp", "", backend::parse_vjp_mode, backend::VjpMode::none);
  if (!vjp) return std::unexpected(vjp.error());
  out.vjp_mode = *vjp;

  const auto contracts = required(json, "contracts", "");
  if (!contracts) return std::unexpected(contracts.error());
  const Json& c = **contracts;
  if (auto ok = expect_type(c, Json::value_t::object, "object", "contracts"); !ok) {
    return std::unexpected(ok.error());
  }
  if (auto ok = only_fields(c, kContractsFields, "contracts", ""); !ok) {
    return std::unexpected(ok.error());
  }
  ContractDescriptor* slots[] = {&out.shape, &out.layout, &out.value, &out.vjp};
  for (std::size_t i = 0; i < kContractsFields.size(); ++i) {
    const auto field = required(c, kContractsFields[i], "contracts");
    if (!field) return std::unexpected(field.error());
    auto d = descriptor(**field, child("contracts", kContractsFields[i]));
    if (!d) return std::unexpected(std::move(d.error()));
    *slots[i] = std::move(*d);
  }

  if (const auto it = json.find("numerical"); it != json.end()) {
    const auto policy = numerical(*it, "numerical");
    if (!policy) return std::unexpected(policy.error());
    out.numerical = *policy;
  }
  auto notes = optional_string(json, "notes", "");
  if (!notes) return std::unexpected(notes.error());
  out.notes = std::move(*notes);
  if (const auto it = json.find("pattern"); it != json.end()) {
    auto pattern = fused_pattern(*it, out.op);
    if (!pattern) return std::unexpected(pattern.error());
    out.pattern = std::move(*pattern);
  }
  return out;
}

Expected<std::vector<BackendOp>> Reader::fused_pattern(const Json& json, BackendOp op) {
  if (auto ok = expect_type(json, Json::value_t::array, "array", "pattern"); !ok) {
    return std::unexpected(ok.error());
  }
  std::vector<BackendOp> pattern;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const std::string where = element("pattern", i);
    if (auto ok = expect_type(json[i], Json::value_t::string, "string", where); !ok) {
      return std::unexpected(ok.error());
    }
    auto parsed = backend::parse_backend_op(shown(json[i].get_ref<const std::string&>()));
    if (!parsed) return std::unexpected(fail(where, parsed.error().message));
    pattern.push_back(*parsed);
  }
  if (pattern.size() < 2) {
    return std::unexpected(fail(
        "pattern", "a fused capsule's pattern lists at least two ops in chain order (for "
                   "example [\"conv\", \"relu\"]); it lists " +
                       std::to_string(pattern.size()) +
                       "; a capsule of one op leaves the field out"));
  }
  if (pattern[0] != op) {
    return std::unexpected(fail(
        "pattern", "the pattern starts with " + std::string(to_string(pattern[0])) +
                       " but the capsule's op is " + std::string(to_string(op)) +
                       "; a fused capsule's op is its pattern's first (root) op"));
  }
  return pattern;
}

Expected<ContractDescriptor> Reader::descriptor(const Json& json, const std::string& path) {
  if (auto ok = expect_type(json, Json::value_t::object, "object", path); !ok) {
    return std::unexpected(ok.error());
  }
  if (auto ok = only_fields(json, kDescriptorFields, path, "contract descriptor"); !ok) {
    return std::unexpected(ok.error());
  }
  ContractDescriptor out;
  const auto claim_json = required(json, "claim", path);
  if (!claim_json) return std::unexpected(claim_json.error());
  auto parsed_claim = claim(**claim_json, child(path, "claim"));
  if (!parsed_claim) return std::unexpected(std::move(parsed_claim.error()));
  out.claim = std::move(*parsed_claim);

  auto summary = optional_string(json, "summary", path);
  if (!summary) return std::unexpected(summary.error());
  out.summary = std::move(*summary);

  const auto evidence_json = required(json, "evidence", path);
  if (!evidence_json) return std::unexpected(evidence_json.error());
  auto parsed_evidence = evidence(**evidence_json, child(path, "evidence"));
  if (!parsed_evidence) return std::unexpected(std::move(parsed_evidence.error()));
  out.evidence = std::move(*parsed_evidence);

  if (const auto it = json.find("provenance"); it != json.end()) {
    const std::string where = child(path, "provenance");
    if (auto ok = expect_type(*it, Json::value_t::array, "array", where); !ok) {
      return std::unexpected(ok.error());
    }
    out.provenance.reserve(it->size());
    for (std::size_t i = 0; i < it->size(); ++i) {
      auto entry = provenance((*it)[i], element(where, i));
      if (!entry) return std::unexpected(std::move(entry.error()));
      out.provenance.push_back(std::move(*entry));
    }
  }
  return out;
}

Expected<Claim> Reader::claim(const Json& json, const std::string& path) {
  if (auto ok = expect_type(json, Json::value_t::object, "object", path); !ok) {
    return std::unexpected(ok.error());
  }
  // The kind decides which other fields belong, so it is read first.
  const auto kind = spelling<ClaimKind>(json, "kind", path, backend::parse_claim_kind);
  if (!kind) return std::unexpected(kind.error());
  const std::string owner = "claim kind " + std::string(to_string(*kind));
  if (auto ok = only_fields(json, claim_fields(*kind), path, owner); !ok) {
    return std::unexpected(ok.error());
  }
  Claim out{.kind = *kind};
  const auto op = spelling<BackendOp>(json, "op", path, backend::parse_backend_op);
  if (!op) return std::unexpected(op.error());
  out.op = *op;
  switch (*kind) {
    case ClaimKind::shape_safety:
      break;
    case ClaimKind::layout_compatibility: {
      const auto layout = spelling<backend::Layout>(json, "layout", path, backend::parse_layout);
      if (!layout) return std::unexpected(layout.error());
      out.layout = *layout;
      break;
    }
    case ClaimKind::vjp_refinement:
    case ClaimKind::value_refinement: {
      auto spec = string_field(json, "spec", path, /*non_empty=*/true);
      if (!spec) return std::unexpected(spec.error());
      out.spec = std::move(*spec);
      if (*kind == ClaimKind::vjp_refinement) {
        const auto mode = spelling<backend::VjpMode>(json, "mode", path, backend::parse_vjp_mode);
        if (!mode) return std::unexpected(mode.error());
        out.mode = *mode;
      }
      break;
    }
  }
  return out;
}

Expected<Evidence> Reader::evidence(const Json& json, const std::string& path) {
  if (auto ok = expect_type(json, Json::value_t::object, "object", path); !ok) {
    return std::unexpected(ok.error());
  }
  const auto kind = spelling<EvidenceKind>(json, "kind", path, backend::parse_evidence_kind);
  if (!kind) return std::unexpected(kind.error());
  const std::string owner = "evidence kind " + std::string(to_string(*kind));
  const auto fields = evidence_fields(*kind);
  if (auto ok = only_fields(json, fields, path, owner); !ok) return std::unexpected(ok.error());
  Evidence out{.kind = *kind, .name = {}};
  // `name` or `reason`: evidence that names nothing would print as "proved by ".
  if (fields.size() == 2) {
    auto name = string_field(json, fields[1], path, /*non_empty=*/true);
    if (!name) return std::unexpected(name.error());
    out.name = std::move(*name);
  }
  return out;
}

Expected<Provenance> Reader::provenance(const Json& json, const std::string& path) {
  if (auto ok = expect_type(json, Json::value_t::object, "object", path); !ok) {
    return std::unexpected(ok.error());
  }
  const auto kind = spelling<ProvenanceKind>(json, "kind", path, backend::parse_provenance_kind);
  if (!kind) return std::unexpected(kind.error());
  const std::string owner = "provenance kind " + std::string(to_string(*kind));
  if (auto ok = only_fields(json, provenance_fields(*kind), path, owner); !ok) {
    return std::unexpected(ok.error());
  }
  Provenance out{.kind = *kind};
  switch (*kind) {
    case ProvenanceKind::source_file: {
      auto file = string_field(json, "path", path, /*non_empty=*/true);
      if (!file) return std::unexpected(file.error());
      out.path = std::move(*file);
      break;
    }
    case ProvenanceKind::native_symbol: {
      auto file = string_field(json, "path", path, /*non_empty=*/true);
      if (!file) return std::unexpected(file.error());
      out.path = std::move(*file);
      auto symbol = string_field(json, "symbol", path, /*non_empty=*/true);
      if (!symbol) return std::unexpected(symbol.error());
      out.symbol = std::move(*symbol);
      auto target = optional_string(json, "build_target", path);
      if (!target) return std::unexpected(target.error());
      out.build_target = std::move(*target);
      break;
    }
    case ProvenanceKind::note: {
      auto text = string_field(json, "text", path, /*non_empty=*/true);
      if (!text) return std::unexpected(text.error());
      out.text = std::move(*text);
      break;
    }
  }
  return out;
}

Expected<NumericalPolicy> Reader::numerical(const Json& json, const std::string& path) {
  if (auto ok = expect_type(json, Json::value_t::object, "object", path); !ok) {
    return std::unexpected(ok.error());
  }
  if (auto ok = only_fields(json, kNumericalFields, path, "numerical policy"); !ok) {
    return std::unexpected(ok.error());
  }
  NumericalPolicy out;
  const auto rounding =
      spelling<backend::Rounding>(json, "rounding", path, backend::parse_rounding, out.rounding);
  if (!rounding) return std::unexpected(rounding.error());
  out.rounding = *rounding;
  const auto subnormals = spelling<backend::Subnormals>(json, "subnormals", path,
                                                        backend::parse_subnormals, out.subnormals);
  if (!subnormals) return std::unexpected(subnormals.error());
  out.subnormals = *subnormals;
  const auto contraction = spelling<backend::Contraction>(
      json, "contraction", path, backend::parse_contraction, out.contraction);
  if (!contraction) return std::unexpected(contraction.error());
  out.contraction = *contraction;
  const auto reduction = spelling<backend::ReductionOrder>(
      json, "reduction", path, backend::parse_reduction_order, out.reduction);
  if (!reduction) return std::unexpected(reduction.error());
  out.reduction = *reduction;
  return out;
}

// Names a repeated key the way the walk would name a bad field: by module and capsule when the
// path runs through them, then the field path inside.
Error Reader::repeated_key(const Json& root, const std::vector<JsonPathStep>& path,
                           std::string_view location) {
  std::size_t next = 0;
  const Json* at = &root;
  const auto step_into = [&](std::string_view key) -> std::optional<std::size_t> {
    if (next + 1 >= path.size()) return std::nullopt;
    const auto* name = std::get_if<std::string>(&path[next]);
    const auto* index = std::get_if<std::size_t>(&path[next + 1]);
    if (name == nullptr || *name != key || index == nullptr) return std::nullopt;
    const auto it = at->find(key);
    if (it == at->end() || !it->is_array() || *index >= it->size()) return std::nullopt;
    at = &(*it)[*index];
    next += 2;
    return *index;
  };
  if (root.is_object()) {
    if (const auto m = step_into("modules")) {
      module_ = module_label(*at, *m);
      if (at->is_object()) {
        if (const auto c = step_into("capsules")) capsule_ = capsule_label(*at, *c);
      }
    }
  }
  std::string field;
  for (; next < path.size(); ++next) {
    if (const auto* key = std::get_if<std::string>(&path[next])) {
      field = child(field, shown(*key));
    } else {
      field = element(field, std::get<std::size_t>(path[next]));
    }
  }
  return fail(field, "field appears more than once (at " + std::string(location) + ")");
}

// ---------------------------------------------------------------------------------------------
// The writer: canonical key order (SPEC §4), every field spelled out, `build_target` only when
// set. Fields a claim, evidence or provenance kind does not use are not written.

Json claim_json(const Claim& claim) {
  Json out = Json::object();
  out["kind"] = std::string(to_string(claim.kind));
  out["op"] = std::string(to_string(claim.op));
  switch (claim.kind) {
    case ClaimKind::shape_safety:
      break;
    case ClaimKind::layout_compatibility:
      out["layout"] = std::string(to_string(claim.layout));
      break;
    case ClaimKind::value_refinement:
      out["spec"] = claim.spec;
      break;
    case ClaimKind::vjp_refinement:
      out["spec"] = claim.spec;
      out["mode"] = std::string(to_string(claim.mode));
      break;
  }
  return out;
}

Json evidence_json(const Evidence& evidence) {
  Json out = Json::object();
  out["kind"] = std::string(to_string(evidence.kind));
  const auto fields = evidence_fields(evidence.kind);
  if (fields.size() == 2) out[std::string(fields[1])] = evidence.name;
  return out;
}

Json descriptor_json(const ContractDescriptor& d) {
  Json out = Json::object();
  out["claim"] = claim_json(d.claim);
  out["summary"] = d.summary;
  out["evidence"] = evidence_json(d.evidence);
  Json provenance = Json::array();
  for (const Provenance& p : d.provenance)
    provenance.push_back(provenance_json(p));
  out["provenance"] = std::move(provenance);
  return out;
}

Json capsule_json(const KernelCapsule& c) {
  Json out = Json::object();
  out["name"] = c.name;
  out["op"] = std::string(to_string(c.op));
  out["provider"] = std::string(to_string(c.provider));
  out["device"] = std::string(to_string(c.device));
  out["trust"] = std::string(to_string(c.trust_level));
  out["supports_forward"] = c.supports_forward;
  out["vjp"] = std::string(to_string(c.vjp_mode));
  Json contracts = Json::object();
  contracts["shape"] = descriptor_json(c.shape);
  contracts["layout"] = descriptor_json(c.layout);
  contracts["value"] = descriptor_json(c.value);
  contracts["vjp"] = descriptor_json(c.vjp);
  out["contracts"] = std::move(contracts);
  Json numerical = Json::object();
  numerical["rounding"] = std::string(to_string(c.numerical.rounding));
  numerical["subnormals"] = std::string(to_string(c.numerical.subnormals));
  numerical["contraction"] = std::string(to_string(c.numerical.contraction));
  numerical["reduction"] = std::string(to_string(c.numerical.reduction));
  out["numerical"] = std::move(numerical);
  out["notes"] = c.notes;
  if (c.is_fused()) {
    Json pattern = Json::array();
    for (BackendOp op : c.pattern) pattern.push_back(std::string(to_string(op)));
    out["pattern"] = std::move(pattern);
  }
  return out;
}

// parse_registry_json for a document read after registry files holding `capsules_before`
// capsules.
Expected<std::vector<CapsuleModule>> parse_registry(std::string_view text, std::string_view source,
                                                    std::size_t capsules_before) {
  Reader reader(source, capsules_before);
  if (only_whitespace(text)) {
    return std::unexpected(
        reader.fail("", "empty document; expected a JSON object with fields format and modules"));
  }
  try {
    // An unknown top-level field is refused by name below; it is never built, however large.
    static constexpr std::array<std::string_view, 2> kRootMembers = {"format", "modules"};
    auto root = detail::parse_json_document(text, kMaxRegistryJsonElements,
                                            {.shallow = {}, .known = kRootMembers});
    if (!root) {
      if (root.error().repeated_key) {
        return std::unexpected(reader.repeated_key(root.error().partial, *root.error().repeated_key,
                                                   root.error().location));
      }
      return std::unexpected(reader.fail("", root.error().problem));
    }
    auto modules = reader.document(*root);
    if (modules) {
      for (CapsuleModule& m : *modules)
        m.source = std::string(source);
    }
    return modules;
  } catch (const std::exception& e) {
    return std::unexpected(
        error_from_exception("reading registry file " + escape_controls(std::string(source)), e));
  }
}

// read_registry_file for a file read after registry files holding `capsules_before` capsules.
Expected<std::vector<CapsuleModule>> read_registry(const std::filesystem::path& path,
                                                   std::size_t capsules_before) {
  auto text = detail::read_bounded_file(path, "registry file", kMaxRegistryFileBytes);
  if (!text) return std::unexpected(std::move(text.error()));
  return parse_registry(text->text(), path.string(), capsules_before);
}

}  // namespace

Expected<std::vector<CapsuleModule>> parse_registry_json(std::string_view text,
                                                         std::string_view source) {
  return parse_registry(text, source, 0);
}

Expected<std::vector<CapsuleModule>> read_registry_file(const std::filesystem::path& path) {
  return read_registry(path, 0);
}

Expected<std::vector<CapsuleModule>> read_registry_files(
    std::span<const std::filesystem::path> paths) {
  try {
    std::vector<CapsuleModule> modules;
    std::size_t capsules = 0;
    for (const std::filesystem::path& path : paths) {
      auto loaded = read_registry(path, capsules);
      if (!loaded) return std::unexpected(std::move(loaded.error()));
      for (CapsuleModule& m : *loaded) {
        capsules += m.capsules.size();
        modules.push_back(std::move(m));
      }
    }
    return modules;
  } catch (const std::exception& e) {
    return std::unexpected(error_from_exception("reading registry files", e));
  }
}

std::string write_registry_json(std::span<const CapsuleModule> modules) {
  Json root = Json::object();
  root["format"] = std::string(kCapsulesFormat);
  Json list = Json::array();
  for (const CapsuleModule& m : modules) {
    Json module = Json::object();
    module["name"] = m.name;
    Json capsules = Json::array();
    for (const KernelCapsule& c : m.capsules)
      capsules.push_back(capsule_json(c));
    module["capsules"] = std::move(capsules);
    list.push_back(std::move(module));
  }
  root["modules"] = std::move(list);
  // Strings built in memory may hold invalid UTF-8; those bytes are written as the text `\xNN`
  // (as in every JSON output), which keeps the writer total instead of throwing out of the API.
  detail::escape_invalid_utf8(root);
  std::string out = root.dump(2, ' ', /*ensure_ascii=*/false);
  out += '\n';
  return out;
}

}  // namespace nnplan::format
