#include "nnplan/backend/availability.hpp"

#include <algorithm>

namespace nnplan::backend {

Availability Availability::cuda_native() {
  return {.devices = {Device::cpu, Device::cuda},
          .providers = {Provider::reference, Provider::torchlean, Provider::native_cuda,
                        Provider::cublas, Provider::cufft}};
}

Availability Availability::cuda_with_libtorch() {
  Availability a = cuda_native();
  a.providers.push_back(Provider::libtorch);
  return a;
}

bool Availability::has_device(Device d) const {
  return std::ranges::find(devices, d) != devices.end();
}

bool Availability::has_provider(Provider p) const {
  return std::ranges::find(providers, p) != providers.end();
}

std::vector<KernelCapsule> filter_available(const Availability& availability,
                                            std::span<const KernelCapsule> capsules) {
  std::vector<KernelCapsule> out;
  for (const KernelCapsule& c : capsules) {
    if (availability.admits(c)) out.push_back(c);
  }
  return out;
}

}  // namespace nnplan::backend
