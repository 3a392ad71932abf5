// `nnplan probe`: what this machine and build can run (runtime/probe.hpp), next to what a
// profile's target declares, as text or nnplan.probe.v1 JSON.
#include <fmt/core.h>

#include <string>

#include "cli.hpp"
#include "nnplan/format/probe_json.hpp"
#include "nnplan/runtime/probe.hpp"
#include "nnplan/text_escape.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;
using namespace nnplan::runtime;

namespace {

template <class Range, class Fn>
std::string join(const Range& items, Fn name, std::string_view separator = ",") {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += name(item);
  }
  return out.empty() ? "-" : out;
}

std::string verdict(bool confirmed, const std::string& finding) {
  return (confirmed ? "confirmed: " : "not confirmed: ") + escape_controls(finding);
}

void print_parts(const HostProbe& probe) {
  if (probe.platform) {
    const PlatformProbe& p = *probe.platform;
    fmt::print("os: {}\narch: {}\nuname: {} {} {}\n", to_string(p.os), to_string(p.arch),
               escape_controls(p.system), escape_controls(p.release), escape_controls(p.machine));
  } else {
    fmt::print("platform: unknown: {}\n", escape_controls(probe.platform.error().message));
  }
  if (probe.cpu) {
    const CpuProbe& c = *probe.cpu;
    std::string present, absent;
    for (std::size_t i = 0; i < kCpuFeatureCount; ++i) {
      const auto f = static_cast<CpuFeature>(i);
      std::string& list = c.features.has(f) ? present : absent;
      list += (list.empty() ? "" : " ") + std::string(to_string(f));
    }
    fmt::print("cpu: {}\ncpu packages: {}\ncpu cores: {}\ncpu logical processors: {}\n",
               escape_controls(c.model), c.packages, c.cores, c.logical_processors);
    fmt::print("cpu features: {}\ncpu features absent: {}\n", present.empty() ? "-" : present,
               absent.empty() ? "-" : absent);
  } else {
    fmt::print("cpu: unknown: {}\n", escape_controls(probe.cpu.error().message));
  }
  if (probe.cuda) {
    const CudaDriverProbe& c = *probe.cuda;
    fmt::print("cuda driver: {} {}\ncuda devices: {}\n", escape_controls(c.library),
               driver_version_text(c.driver_version), c.devices.size());
    for (const CudaDevice& d : c.devices) {
      fmt::print("cuda device {}: {} compute {}.{}\n", d.ordinal, escape_controls(d.name),
                 d.compute_major, d.compute_minor);
    }
  } else {
    fmt::print("cuda driver: not found: {}\n", escape_controls(probe.cuda.error().message));
  }
  if (probe.cublas) {
    fmt::print("cublas: {} {}\n", escape_controls(probe.cublas->library),
               probe.cublas->version.value_or("(version unknown)"));
  } else {
    fmt::print("cublas: not found: {}\n", escape_controls(probe.cublas.error().message));
  }
}

void print_findings(const HostProbe& probe) {
  for (const DeviceFinding& d : probe.devices) {
    fmt::print("device {}: {}\n", to_string(d.device), verdict(d.confirmed, d.evidence));
  }
  for (const ProviderFinding& p : probe.providers) {
    fmt::print("provider {}{}: {}\n", p.name, p.version.empty() ? "" : " " + p.version,
               verdict(p.confirmed, p.evidence));
  }
  const Availability available = probed_availability(probe);
  auto name_of = [](auto v) { return std::string(to_string(v)); };
  fmt::print("probed availability: devices={} providers={}\n", join(available.devices, name_of),
             join(available.providers, name_of));
}

void print_target(const std::string& profile, const TargetCheck& check) {
  const Target& t = check.target;
  const auto preset = preset_of(t);
  auto name_of = [](auto v) { return std::string(to_string(v)); };
  fmt::print("target {} (profile {}): os={} arch={} accelerator={} features={}\n",
             preset ? to_string(*preset) : "custom", escape_controls(profile), to_string(t.os),
             to_string(t.arch), to_string(t.accelerator), join(t.features, name_of));
  fmt::print("  os {}: {}\n", to_string(t.os), check.os_matches ? "matches" : "does not match");
  fmt::print("  arch {}: {}\n", to_string(t.arch),
             check.arch_matches ? "matches" : "does not match");
  for (const DeclaredDeviceCheck& d : check.devices) {
    fmt::print("  device {}: {}\n", to_string(d.device), verdict(d.confirmed, d.finding));
  }
  for (const DeclaredProviderCheck& p : check.providers) {
    fmt::print("  provider {}: {}\n", to_string(p.provider), verdict(p.confirmed, p.finding));
  }
  fmt::print("  the probe {} this target's declaration\n",
             check.all_confirmed() ? "confirms all of" : "does not confirm all of");
}

}  // namespace

void add_probe_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "probe", "Probe this machine and build: platform, CPU, CUDA driver, providers");
  cmd->footer(
      "Example: nnplan probe\n"
      "         nnplan probe --target linux-cuda --json\n"
      "Prints what the probe found (each device and provider confirmed or not, with the\n"
      "evidence) next to the declaration of the profile's target (--profile, default\n"
      "checked_cpu; --target replaces it). Exits 0 whatever it finds.");
  auto config = std::make_shared<ConfigFlags>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--profile", config->profile, "Profile whose target to set against the probe");
  cmd->add_option("--target", config->target,
                  "Target preset to set against the probe (overrides the profile's)");
  cmd->add_flag("--json", *json, "Print nnplan.probe.v1 JSON");
  cmd->callback([config, json, &exit_code] {
    auto profile = config->resolve();
    if (!profile) {
      exit_code = profile.error();
      return;
    }
    const HostProbe probe = probe_host();
    const TargetCheck check = check_target(probe, profile->target);
    if (*json) {
      fmt::print("{}", nnplan::format::probe_json(probe, check));
    } else {
      print_parts(probe);
      print_findings(probe);
      print_target(profile->name, check);
    }
    exit_code = kExitOk;
  });
}

}  // namespace nnplan::cli
