// `nnplan targets`, `nnplan profiles`, `nnplan capsules`: what nnplan knows, as text or JSON.
#include <fmt/core.h>

#include <string>
#include <vector>

#include "cli.hpp"
#include "nnplan/format/listing_json.hpp"
#include "nnplan/format/registry_file.hpp"

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
          join(p.registry->modules(), [](const CapsuleModule& m) { return m.name; }));
    }
    exit_code = kExitOk;
  });
}

void add_capsules_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("capsules", "List the capsules of a profile's registry");
  cmd->footer(
      "Example: nnplan capsules --op scaled_dot_product_attention --device cuda\n"
      "         nnplan capsules --json > builtins.json   (a loadable nnplan.capsules.v1 file)");
  struct Flags {
    std::string profile = "checked_cpu";
    std::optional<std::string> op, provider, device;
    std::vector<std::string> registries;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("--profile", flags->profile, "Profile whose registry to list")
      ->default_val("checked_cpu");
  cmd->add_option("--op", flags->op, "Only capsules implementing this op");
  cmd->add_option("--provider", flags->provider, "Only capsules of this provider");
  cmd->add_option("--device", flags->device, "Only capsules for this device");
  cmd->add_option("--registry", flags->registries, "Add modules from a registry file; repeatable");
  cmd->add_flag("--json", flags->json, "Print the listed modules as nnplan.capsules.v1 JSON");
  cmd->callback([flags, &exit_code] {
    ConfigFlags config{.profile = flags->profile, .registries = flags->registries};
    auto profile = config.resolve();
    if (!profile) {
      exit_code = profile.error();
      return;
    }
    std::optional<BackendOp> op;
    std::optional<Provider> provider;
    std::optional<Device> device;
    if (!parse_flag(flags->op, "--op", parse_backend_op, op) ||
        !parse_flag(flags->provider, "--provider", parse_provider, provider) ||
        !parse_flag(flags->device, "--device", parse_device, device)) {
      exit_code = kExitUsage;
      return;
    }
    std::vector<CapsuleModule> listed;
    for (const CapsuleModule& m : profile->registry->modules()) {
      CapsuleModule kept{.name = m.name, .capsules = {}};
      for (const KernelCapsule& c : m.capsules) {
        if ((op && c.op != *op) || (provider && c.provider != *provider) ||
            (device && c.device != *device)) {
          continue;
        }
        kept.capsules.push_back(c);
      }
      if (!kept.capsules.empty() || (!op && !provider && !device)) listed.push_back(kept);
    }
    if (flags->json) {
      fmt::print("{}", format::write_registry_json(listed));
      exit_code = kExitOk;
      return;
    }
    for (const CapsuleModule& m : listed) {
      for (const KernelCapsule& c : m.capsules) {
        std::string extra;
        if (!c.supports_forward) extra += " forward=unsupported";
        if (auto field = first_misaligned_field(c)) {
          extra += " misaligned=" + str(to_string(*field));
        }
        fmt::print("{:<32} op={} provider={} device={} trust={} vjp={} module={}{}\n", c.name,
                   to_string(c.op), to_string(c.provider), to_string(c.device),
                   to_string(c.trust_level), to_string(c.vjp_mode), m.name, extra);
      }
    }
    exit_code = kExitOk;
  });
}

}  // namespace nnplan::cli
