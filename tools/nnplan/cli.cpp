#include "cli.hpp"

#include <fmt/core.h>

#include "nnplan/format/registry_file.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

int fail(const Error& error, int exit_code) {
  fmt::print(stderr, "nnplan: error: {}\n", render(error));
  return exit_code;
}

void ConfigFlags::add_to(CLI::App& command) {
  command.add_option("--profile", profile, "Maintained profile to start from")
      ->default_val("checked_cpu");
  command.add_option("--device", device, "Device the run wants (cpu, cuda, ...)");
  auto* prefer_flag =
      command.add_option("--prefer", prefer, "Prefer this provider; fall back to the others");
  auto* only_flag = command.add_option("--only", only, "Use only this provider");
  prefer_flag->excludes(only_flag);
  command.add_option("--assurance", assurance, "Assurance policy: verified, checked or external");
  command.add_option("--vjp", vjp, "VJP mode: none, torchlean-tape or backend-vjp");
  command.add_option("--target", target, "Target preset replacing the profile's target");
  command.add_option("--registry", registries,
                     "Capsule registry file (nnplan.capsules.v1); repeatable; same-name modules "
                     "replace the profile's");
}

std::expected<std::vector<CapsuleModule>, int> load_registry_files(
    const std::vector<std::string>& paths) {
  std::vector<CapsuleModule> modules;
  for (const std::string& path : paths) {
    auto loaded = format::read_registry_file(path);
    if (!loaded) return std::unexpected(fail(loaded.error(), kExitBadInput));
    for (CapsuleModule& m : *loaded) modules.push_back(std::move(m));
  }
  return modules;
}

namespace {

// Parses an optional flag value with `parse`; an unknown name prints the valid ones.
template <class T, class Parse>
bool parse_flag(const std::optional<std::string>& text, std::string_view flag, Parse parse,
                std::optional<T>& out) {
  if (!text) return true;
  auto value = parse(*text);
  if (!value) {
    fail(std::move(value.error()).with_context("in " + std::string(flag)), kExitUsage);
    return false;
  }
  out = *value;
  return true;
}

}  // namespace

std::expected<BackendProfile, int> ConfigFlags::resolve() const {
  auto base = profile_by_name(profile);
  if (!base) return std::unexpected(fail(std::move(base.error()).with_context("in --profile"), kExitUsage));
  ProfileOverrides overrides;
  std::optional<Provider> prefer_provider;
  std::optional<Provider> only_provider;
  if (!parse_flag(device, "--device", parse_device, overrides.device) ||
      !parse_flag(prefer, "--prefer", parse_provider, prefer_provider) ||
      !parse_flag(only, "--only", parse_provider, only_provider) ||
      !parse_flag(assurance, "--assurance", parse_assurance_preset, overrides.assurance) ||
      !parse_flag(vjp, "--vjp", parse_vjp_mode, overrides.vjp_mode) ||
      !parse_flag(target, "--target", parse_target_preset, overrides.target)) {
    return std::unexpected(kExitUsage);
  }
  if (prefer_provider) overrides.preference = BackendPreference::prefer(*prefer_provider);
  if (only_provider) overrides.preference = BackendPreference::only(*only_provider);
  auto modules = load_registry_files(registries);
  if (!modules) return std::unexpected(modules.error());
  overrides.modules = std::move(*modules);
  auto resolved = apply_overrides(std::move(*base), std::move(overrides));
  if (!resolved) {
    return std::unexpected(
        fail(std::move(resolved.error()).with_context("while adding --registry modules"),
             kExitBadInput));
  }
  return std::move(*resolved);
}

}  // namespace nnplan::cli
