#include "cli.hpp"

#include <fmt/core.h>

#include <charconv>

#include "nnplan/text_escape.hpp"

#include "nnplan/format/registry_file.hpp"

namespace nnplan::cli {

using namespace nnplan::backend;

std::string shown_argument(std::string_view text) {
  constexpr std::size_t kShownBytes = 80;
  std::string out = escape_controls(text.substr(0, kShownBytes));
  if (text.size() > kShownBytes) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::expected<std::uint64_t, UnsignedProblem> parse_unsigned(std::string_view text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::unexpected(UnsignedProblem::not_a_number);
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) return std::unexpected(UnsignedProblem::out_of_range);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return std::unexpected(UnsignedProblem::not_a_number);
  }
  return value;
}

int fail(const Error& error, int exit_code) {
  fmt::print(stderr, "nnplan: error: {}\n", render(error));
  return exit_code;
}

void ConfigFlags::add_to(CLI::App& command) {
  command.add_option("--profile", profile,
                     "Maintained profile to start from (default: the one for --device, else "
                     "checked_cpu)");
  command.add_option("--device", device, "Device the run wants (cpu, cuda, ...)");
  auto* prefer_flag =
      command.add_option("--prefer", prefer, "Prefer this provider; fall back to the others");
  auto* only_flag = command.add_option("--only", only, "Use only this provider");
  prefer_flag->excludes(only_flag);
  command.add_option("--assurance", assurance, "Assurance policy: verified, checked or external");
  command.add_option("--vjp", vjp, "VJP mode: none, torchlean-tape or backend-vjp");
  command.add_option("--target", target, "Target preset replacing the profile's target");
  // One file per occurrence: words after `--registry FILE` are the subcommand's positionals
  // (`plan-ops --registry r.json linear relu` plans linear and relu).
  command
      .add_option("--registry", registries,
                  "Capsule registry file (nnplan.capsules.v1); repeatable; same-name modules "
                  "replace the profile's")
      ->allow_extra_args(false);
}

std::expected<std::vector<CapsuleModule>, int> load_registry_files(
    const std::vector<std::string>& paths) {
  const std::vector<std::filesystem::path> files(paths.begin(), paths.end());
  auto modules = format::read_registry_files(files);
  if (!modules) return std::unexpected(fail(modules.error(), kExitBadInput));
  return std::move(*modules);
}

std::expected<ProfileOverrides, int> explicit_overrides(const ConfigFlags& flags) {
  ProfileOverrides overrides;
  std::optional<Provider> prefer_provider;
  std::optional<Provider> only_provider;
  if (!parse_flag(flags.device, "--device", parse_device, overrides.device) ||
      !parse_flag(flags.prefer, "--prefer", parse_provider, prefer_provider) ||
      !parse_flag(flags.only, "--only", parse_provider, only_provider) ||
      !parse_flag(flags.assurance, "--assurance", parse_assurance_preset, overrides.assurance) ||
      !parse_flag(flags.vjp, "--vjp", parse_vjp_mode, overrides.vjp_mode) ||
      !parse_flag(flags.target, "--target", parse_target_preset, overrides.target)) {
    return std::unexpected(kExitUsage);
  }
  if (prefer_provider) overrides.preference = BackendPreference::prefer(*prefer_provider);
  if (only_provider) overrides.preference = BackendPreference::only(*only_provider);
  auto modules = load_registry_files(flags.registries);
  if (!modules) return std::unexpected(modules.error());
  overrides.modules = std::move(*modules);
  return overrides;
}

namespace {

// The profile the flags start from, or the exit code after printing why not.
std::expected<BackendProfile, int> base_profile(const ConfigFlags& flags) {
  if (flags.profile) {
    auto base = profile_by_name(*flags.profile);
    if (!base) {
      return std::unexpected(
          fail(std::move(base.error()).with_context("in --profile"), kExitUsage));
    }
    return std::move(*base);
  }
  std::optional<Device> device;
  if (!parse_flag(flags.device, "--device", parse_device, device)) {
    return std::unexpected(kExitUsage);
  }
  if (!device) return make_profile(MaintainedProfile::checked_cpu);
  auto base = maintained_for_device(*device);
  if (!base) {
    return std::unexpected(fail(
        std::move(base.error()).with_context("in --device (pass --profile to start elsewhere)"),
        kExitUsage));
  }
  return std::move(*base);
}

}  // namespace

std::expected<BackendProfile, int> ConfigFlags::resolve() const {
  return resolve(std::nullopt);
}

std::expected<BackendProfile, int> ConfigFlags::resolve(
    const std::optional<std::string>& lowering) const {
  auto mode = parse_lowering_flag(lowering);
  if (!mode) return std::unexpected(mode.error());
  auto base = base_profile(*this);
  if (!base) return std::unexpected(base.error());
  auto overrides = explicit_overrides(*this);
  if (!overrides) return std::unexpected(overrides.error());
  overrides->lowering = *mode;
  auto resolved = apply_overrides(std::move(*base), std::move(*overrides));
  if (!resolved) {
    return std::unexpected(
        fail(std::move(resolved.error()).with_context("while adding --registry modules"),
             kExitBadInput));
  }
  return std::move(*resolved);
}

}  // namespace nnplan::cli
