// `nnplan targets`, `nnplan profiles`, `nnplan capsules`: what nnplan knows, as text or JSON.
#include <fmt/core.h>

#include <string>
#include <vector>

#include "cli.hpp"
#include "nnplan/format/evidence_json.hpp"
#include "nnplan/format/listing_json.hpp"
#include "nnplan/format/registry_file.hpp"
#include "nnplan/text_escape.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

namespace {

template <class Range, class Fn>
std::string join(const Range& items, Fn name) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ",";
    out += name(item);
  }
  return out.empty() ? "-" : out;
}

std::string str(std::string_view s) {
  return std::string(s);
}

// What a listing that matched nothing asked for: ` --op relu --device cpu`, or
// ` (the registry is empty)` without filters.
std::string asked(const format::CapsuleFilter& filter) {
  std::string out;
  if (filter.op) out += " --op " + str(to_string(*filter.op));
  if (filter.provider) out += " --provider " + str(to_string(*filter.provider));
  if (filter.device) out += " --device " + str(to_string(*filter.device));
  return out.empty() ? " (the registry is empty)" : out;
}

// `nnplan capsules --evidence`: one block per kept capsule, one line per contract, then the
// counts per status; or the nnplan.evidence.v1 document.
void print_evidence(const BackendProfile& profile, const format::CapsuleFilter& filter, bool json) {
  const Registry& registry = *profile.registry;
  const runtime::HandlerRegistry& handlers = runtime::builtin_handlers();
  std::vector<runtime::EvidenceItem> items;
  for (runtime::EvidenceItem& item : runtime::resolve_evidence(registry, handlers)) {
    if (filter.keeps(registry.capsule(item.capsule))) items.push_back(std::move(item));
  }
  if (json) {
    fmt::print("{}", format::evidence_json(profile.name, filter, registry, handlers, items));
    return;
  }
  std::size_t capsules = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const runtime::EvidenceItem& item = items[i];
    if (i == 0 || items[i - 1].capsule != item.capsule) {
      const KernelCapsule& c = registry.capsule(item.capsule);
      ++capsules;
      fmt::print("{} op={} provider={} device={} module={}\n", escape_controls(c.name),
                 to_string(c.op), to_string(c.provider), to_string(c.device),
                 escape_controls(registry.module_of(item.capsule)));
    }
    const std::string name = item.evidence.name.empty() ? "" : " " + item.evidence.name;
    fmt::print("  {}: {}{}: {}: {}\n", to_string(item.field), to_string(item.evidence.kind),
               escape_controls(name), to_string(item.status), escape_controls(item.detail));
  }
  if (items.empty()) {
    fmt::print("no capsule of profile {} matches{}\n", escape_controls(profile.name),
               asked(filter));
  }
  const auto counts = runtime::evidence_counts(items);
  std::string per_status;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    per_status += fmt::format(" {}={}", runtime::kEvidenceStatusNames[i], counts[i]);
  }
  fmt::print("summary: capsules={} items={}{}\n", capsules, items.size(), per_status);
}

}  // namespace

void add_targets_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("targets", "List the target presets and what each declares");
  cmd->footer("Example: nnplan targets --json");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print nnplan.targets.v1 JSON");
  cmd->callback([json, &exit_code] {
    if (*json) {
      fmt::print("{}", format::targets_json());
      return;
    }
    for (std::size_t i = 0; i < kTargetPresetNames.size(); ++i) {
      const auto preset = static_cast<TargetPreset>(i);
      const Target t = target_of(preset);
      auto name_of = [](auto v) { return str(to_string(v)); };
      fmt::print("{:<22} os={} arch={} accelerator={} features={} devices={} providers={}\n",
                 to_string(preset), to_string(t.os), to_string(t.arch), to_string(t.accelerator),
                 join(t.features, name_of), join(devices(t), name_of), join(providers(t), name_of));
    }
    exit_code = kExitOk;
  });
}

void add_profiles_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("profiles", "List the maintained backend profiles");
  cmd->footer("Example: nnplan profiles --json");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print nnplan.profiles.v1 JSON");
  cmd->callback([json, &exit_code] {
    std::vector<BackendProfile> profiles;
    for (std::size_t i = 0; i < kMaintainedProfileNames.size(); ++i) {
      profiles.push_back(make_profile(static_cast<MaintainedProfile>(i)));
    }
    if (*json) {
      fmt::print("{}", format::profiles_json(profiles));
      return;
    }
    for (const BackendProfile& p : profiles) {
      const auto preset = preset_of(p.target);
      fmt::print(
          "{:<27} device={} preference={} assurance={} vjp={} target={} lowering={} "
          "modules={}\n",
          p.name, to_string(p.config.device), to_string(p.config.preference),
          label(p.config.assurance), to_string(p.config.vjp_mode),
          preset ? to_string(*preset) : "custom", to_string(p.lowering),
          join(p.registry->modules(),
               [](const CapsuleModule& m) { return escape_controls(m.name); }));
    }
    exit_code = kExitOk;
  });
}

void add_capsules_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("capsules", "List the capsules of a profile's registry");
  cmd->footer(
      "Example: nnplan capsules --op scaled_dot_product_attention --device cuda\n"
      "         nnplan capsules --json > builtins.json   (a loadable nnplan.capsules.v1 file)\n"
      "         nnplan capsules --evidence --provider reference\n"
      "With --op, --provider or --device, --json prints an nnplan.capsule-listing.v1 document\n"
      "(the matching capsules only), which --registry does not load: a module cut down to the\n"
      "matches would replace the whole module of that name.");
  struct Flags {
    std::string profile = "checked_cpu";
    std::optional<std::string> op, provider, device;
    std::vector<std::string> registries;
    bool json = false;
    bool evidence = false;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("--profile", flags->profile, "Profile whose registry to list")
      ->default_val("checked_cpu");
  cmd->add_option("--op", flags->op, "Only capsules implementing this op");
  cmd->add_option("--provider", flags->provider, "Only capsules of this provider");
  cmd->add_option("--device", flags->device, "Only capsules for this device");
  cmd->add_option("--registry", flags->registries, "Add modules from a registry file; repeatable")
      ->allow_extra_args(false);
  cmd->add_flag("--evidence", flags->evidence,
                "List each capsule's evidence and where it resolves in this build (with --json: "
                "nnplan.evidence.v1)");
  cmd->add_flag(
      "--json", flags->json,
      "Print the registry as nnplan.capsules.v1 JSON (filtered: nnplan.capsule-listing.v1)");
  cmd->callback([flags, &exit_code] {
    ConfigFlags config{.profile = flags->profile, .registries = flags->registries};
    auto profile = config.resolve();
    if (!profile) {
      exit_code = profile.error();
      return;
    }
    format::CapsuleFilter filter;
    if (!parse_flag(flags->op, "--op", parse_backend_op, filter.op) ||
        !parse_flag(flags->provider, "--provider", parse_provider, filter.provider) ||
        !parse_flag(flags->device, "--device", parse_device, filter.device)) {
      exit_code = kExitUsage;
      return;
    }
    if (flags->evidence) {
      print_evidence(*profile, filter, flags->json);
      exit_code = kExitOk;
      return;
    }
    const auto& modules = profile->registry->modules();
    if (flags->json) {
      // Unfiltered: the whole registry, a file --registry loads. Filtered: a listing, which it
      // refuses (format/listing_json.hpp says why).
      fmt::print("{}", filter.any() ? format::capsule_listing_json(profile->name, filter, modules)
                                    : format::write_registry_json(modules));
      exit_code = kExitOk;
      return;
    }
    bool matched = false;
    for (const CapsuleModule& m : modules) {
      for (const KernelCapsule& c : m.capsules) {
        if (!filter.keeps(c)) continue;
        matched = true;
        std::string extra;
        if (!c.supports_forward) extra += " forward=unsupported";
        const std::vector<ContractField> misaligned = misaligned_fields(c);
        for (std::size_t i = 0; i < misaligned.size(); ++i) {
          extra += (i == 0 ? " misaligned=" : ",") + str(to_string(misaligned[i]));
        }
        fmt::print("{:<32} op={} provider={} device={} trust={} vjp={} module={}{}\n",
                   escape_controls(c.name), to_string(c.op), to_string(c.provider),
                   to_string(c.device), to_string(c.trust_level), to_string(c.vjp_mode),
                   escape_controls(m.name), extra);
      }
    }
    if (!matched) {
      fmt::print("no capsule of profile {} matches{}\n", escape_controls(profile->name),
                 asked(filter));
    }
    exit_code = kExitOk;
  });
}

}  // namespace nnplan::cli
