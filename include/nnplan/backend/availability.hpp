// Availability (SPEC §3): which devices and providers this build or machine may provide. The
// planner only considers capsules whose device and provider are both listed. Targets produce an
// availability by declaration (target.hpp); a runtime probe confirms it before execution.
#pragma once

#include <span>
#include <vector>

#include "nnplan/backend/capsule.hpp"
#include "nnplan/backend/vocabulary.hpp"

namespace nnplan::backend {

struct Availability {
  std::vector<Device> devices = {Device::cpu};
  std::vector<Provider> providers = {Provider::reference, Provider::torchlean};

  bool operator==(const Availability&) const = default;

  // cpu; reference, torchlean.
  [[nodiscard]] static Availability cpu() { return {}; }
  // cpu, cuda; reference, torchlean, native-cuda, cublas, cufft.
  [[nodiscard]] static Availability cuda_native();
  // cuda_native plus libtorch.
  [[nodiscard]] static Availability cuda_with_libtorch();

  [[nodiscard]] bool has_device(Device d) const;
  [[nodiscard]] bool has_provider(Provider p) const;
  // Both the capsule's device and its provider are listed.
  [[nodiscard]] bool admits(const KernelCapsule& capsule) const {
    return has_device(capsule.device) && has_provider(capsule.provider);
  }
};

// The capsules the availability admits, in their original order (the seed's registry filter).
[[nodiscard]] std::vector<KernelCapsule> filter_available(const Availability& availability,
                                                          std::span<const KernelCapsule> capsules);

}  // namespace nnplan::backend
