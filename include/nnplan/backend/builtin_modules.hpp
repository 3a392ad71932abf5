// The built-in capsule modules of SPEC §4: `attention`, `native-cuda`, `reference` (the default
// order), the optional `libtorch` module and the `onednn` module of SPEC §12. They are generated
// from compact per-op tables; the evidence they cite (guards, test suites, trusted boundaries) is
// a reference by name to evidence kept by the providers, never something nnplan manufactures.
// The modules of the providers nnplan runs live in their provider folders
// (src/runtime/providers/<provider>/<provider>_module.cpp), beside the handlers they describe;
// they are plain data built into this layer, so planning never needs the runtime.
#pragma once

#include <memory>
#include <vector>

#include "nnplan/backend/registry.hpp"

namespace nnplan::backend {

[[nodiscard]] CapsuleModule reference_module();
[[nodiscard]] CapsuleModule native_cuda_module();
[[nodiscard]] CapsuleModule attention_module();
[[nodiscard]] CapsuleModule libtorch_module();
// The oneDNN CPU provider's capsules (SPEC §12): one per op it runs, then the fused capsules
// (`onednn.conv_relu`, `onednn.conv_add_relu`, ...). Trust `fuzzed`: value evidence is the fuzz
// oracle `<name>.oracle`, which compares the capsule with the reference provider. Not part of
// builtin_modules(); the `fast_cpu` profile adds it.
[[nodiscard]] CapsuleModule onednn_module();

// attention, native-cuda, reference.
[[nodiscard]] std::vector<CapsuleModule> builtin_modules();
// The registry of `builtin_modules()`; always valid. Built once; both functions return it.
[[nodiscard]] const Registry& builtin_registry();
// The same registry as a shared value, for profiles and plans that share it.
[[nodiscard]] const std::shared_ptr<const Registry>& shared_builtin_registry();

// Whether an op reduces, accumulates or takes a window maximum: those carry a reduction order
// in their numerical policy; every other op has reduction `n/a`.
[[nodiscard]] bool has_reduction_order(BackendOp op);

// The fields that vary between built-in capsules; make_builtin_capsule derives everything else
// from the op: shape and layout guarded at run time (`<name>.shape_guard`, `<name>.layout_guard`),
// value and VJP covered by the test suites `<name>.forward_tests` and `<name>.vjp_tests`.
struct BuiltinCapsuleSpec {
  std::string name;
  BackendOp op = BackendOp::add;
  Provider provider = Provider::reference;
  Device device = Device::cpu;
  TrustLevel trust = TrustLevel::checked;
  VjpMode vjp = VjpMode::none;
  Layout layout = Layout::canonical_tensor;
  NumericalPolicy numerical;
  std::string notes;
};
[[nodiscard]] KernelCapsule make_builtin_capsule(const BuiltinCapsuleSpec& spec);

// `Spec.<op>`: the name of the mathematical specification a value or VJP claim refines.
[[nodiscard]] std::string spec_name(BackendOp op);

}  // namespace nnplan::backend
