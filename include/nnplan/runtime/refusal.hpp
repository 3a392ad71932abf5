// The refusal rule (SPEC §11 "Refusal"): before anything runs, every group of an accepted plan
// must use a provider and a device that the probe of this machine confirmed. The first group that
// does not is refused, naming the group, its capsule, the provider or device, the target that
// declared it and what the probe found instead. There is no fallback to another provider or
// device: a user who wants the CPU asks for a CPU profile.
#pragma once

#include "nnplan/backend/planned_model.hpp"
#include "nnplan/error.hpp"
#include "nnplan/runtime/probe.hpp"

namespace nnplan::runtime {

// Nothing when every group's provider and device are confirmed by `probe`; else unprobed_provider
// (checked first) or unprobed_device for the first group that is not, e.g.
//   group 0 (nodes 1..3): capsule 'native_cuda.conv' needs provider native-cuda, which target
//   linux-cuda declares but the probe of this machine did not confirm: libcuda.so.1 could not be
//   loaded: ...; nnplan does not fall back to another provider (ask for a CPU profile, e.g.
//   --profile checked_cpu)
[[nodiscard]] Expected<void> check_probed(const backend::PlannedModel& model,
                                          const HostProbe& probe);

// The probe a plan needs before it runs: the CUDA driver only when a group runs on a CUDA device
// or a CUDA provider, cuBLAS only when a group uses it. A CPU plan never loads either.
[[nodiscard]] ProbeOptions probe_options_for(const backend::PlannedModel& model);

}  // namespace nnplan::runtime
