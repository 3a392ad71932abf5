#include "nnplan/runtime/refusal.hpp"

#include <string>

namespace nnplan::runtime {
namespace {

std::string target_name(const backend::Target& target) {
  if (const auto preset = backend::preset_of(target)) return std::string(backend::to_string(*preset));
  return "'" + std::string(backend::to_string(target.os)) + "-" +
         std::string(backend::to_string(target.arch)) + "' (the profile's custom target)";
}

std::string group_description(const backend::GraphLoweringPlan& lowering, std::size_t g) {
  const backend::LoweredKernelGroup& group = lowering.groups[g];
  const auto nodes = lowering.group_nodes(group);
  std::string ids = std::to_string(nodes.front().node_id);
  if (nodes.size() > 1) ids += ".." + std::to_string(nodes.back().node_id);
  return "group " + std::to_string(g) + " (node" + (nodes.size() > 1 ? "s " : " ") + ids +
         "): capsule '" + lowering.capsule(group).name + "'";
}

}  // namespace

Expected<void> check_probed(const backend::PlannedModel& model, const HostProbe& probe) {
  const backend::GraphLoweringPlan& lowering = model.lowering();
  const backend::Target& declared = model.profile().target;
  const std::string target = target_name(declared);
  // The target's operating system and architecture must be this machine's.
  if (probe.platform) {
    const PlatformProbe& here = *probe.platform;
    const bool os_ok = declared.os == backend::OperatingSystem::unknown || declared.os == here.os;
    const bool arch_ok =
        declared.arch == backend::Architecture::unknown || declared.arch == here.arch;
    if (!os_ok || !arch_ok) {
      Error e = make_error(
          ErrorKind::unprobed_device,
          "target " + target + " declares os " + std::string(backend::to_string(declared.os)) +
              " and arch " + std::string(backend::to_string(declared.arch)) +
              ", but the probe found this machine to be " +
              std::string(backend::to_string(here.os)) + " " +
              std::string(backend::to_string(here.arch)) + " (uname: " + here.system + " " +
              here.release + " " + here.machine + "); the plan's devices are not this machine's");
      e.notes.push_back("nnplan does not run a plan made for another platform; plan for this one "
                        "(--target linux-cpu, or a profile for it); `nnplan probe` shows what "
                        "this machine is");
      return std::unexpected(std::move(e));
    }
  }
  for (std::size_t g = 0; g < lowering.groups.size(); ++g) {
    const backend::KernelCapsule& capsule = lowering.capsule(lowering.groups[g]);
    const auto refuse = [&](ErrorKind kind, std::string_view what, std::string_view name,
                            std::string finding) {
      Error e = make_error(kind, group_description(lowering, g) + " needs " + std::string(what) +
                                     " " + std::string(name) + ", which target " + target +
                                     " declares but the probe of this machine did not confirm: " +
                                     finding);
      e.notes.push_back("nnplan does not fall back to another " + std::string(what) +
                        "; to run on this machine's CPU ask for a CPU profile (--profile "
                        "checked_cpu); `nnplan probe` shows what this machine confirms");
      return std::unexpected(std::move(e));
    };
    if (!confirms(probe, capsule.provider)) {
      return refuse(ErrorKind::unprobed_provider, "provider", backend::to_string(capsule.provider),
                    probe_finding(probe, capsule.provider));
    }
    if (!confirms(probe, capsule.device)) {
      return refuse(ErrorKind::unprobed_device, "device", backend::to_string(capsule.device),
                    probe_finding(probe, capsule.device));
    }
  }
  return {};
}

ProbeOptions probe_options_for(const backend::PlannedModel& model) {
  const backend::GraphLoweringPlan& lowering = model.lowering();
  ProbeOptions options;
  options.cuda = false;
  options.cublas = false;
  for (const auto& group : lowering.groups) {
    const backend::KernelCapsule& capsule = lowering.capsule(group);
    options.cublas |= capsule.provider == backend::Provider::cublas;
    options.cuda |= capsule.device == backend::Device::cuda ||
                    capsule.provider == backend::Provider::native_cuda ||
                    capsule.provider == backend::Provider::cublas;
  }
  return options;
}

}  // namespace nnplan::runtime
