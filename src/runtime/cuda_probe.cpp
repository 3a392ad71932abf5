#include "nnplan/runtime/cuda_probe.hpp"

#include <dlfcn.h>

#include <array>
#include <charconv>
#include <cstring>
#include <optional>
#include <string>

#include "runtime/isolated_call.hpp"

namespace nnplan::runtime {

namespace {

// The few CUDA driver and cuBLAS types the probe calls with, declared here because nnplan builds
// without CUDA's headers (none are installed where it is built) and never links CUDA: the values
// are those of cuda.h and library_types.h, which NVIDIA keeps stable across releases.
using CUresult = int;
using CUdevice = int;
constexpr CUresult kCudaSuccess = 0;
constexpr int kComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kComputeCapabilityMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
using CuInit = CUresult (*)(unsigned int flags);
using CuDriverGetVersion = CUresult (*)(int* version);
using CuDeviceGetCount = CUresult (*)(int* count);
using CuDeviceGet = CUresult (*)(CUdevice* device, int ordinal);
using CuDeviceGetName = CUresult (*)(char* name, int length, CUdevice device);
using CuDeviceGetAttribute = CUresult (*)(int* value, int attribute, CUdevice device);
using CuGetErrorName = CUresult (*)(CUresult error, const char** name);

using CublasStatus = int;         // cublasStatus_t; 0 is CUBLAS_STATUS_SUCCESS
constexpr int kMajorVersion = 0;  // libraryPropertyType's MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
constexpr int kMinorVersion = 1;
constexpr int kPatchLevel = 2;
using CublasGetProperty = CublasStatus (*)(int property, int* value);

Error unavailable(std::string message) {
  return make_error(ErrorKind::unavailable, std::move(message));
}

// dlerror's text for the last dl call, or a fallback when it has none.
std::string dl_error_text() {
  const char* text = dlerror();
  return text != nullptr ? std::string(text) : std::string("no reason given");
}

// An open library; closed on destruction unless `keep` was called.
class Library {
 public:
  explicit Library(void* handle) : handle_(handle) {}
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  ~Library() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  [[nodiscard]] void* get() const { return handle_; }
  void keep() { handle_ = nullptr; }

 private:
  void* handle_;
};

template <class Fn>
Expected<Fn> symbol(void* handle, std::string_view library, const char* name) {
  dlerror();
  void* address = dlsym(handle, name);
  if (address == nullptr) {
    return std::unexpected(
        unavailable(std::string(library) + " has no " + name + ": " + dl_error_text()));
  }
  return reinterpret_cast<Fn>(address);
}

// "CUDA_ERROR_NO_DEVICE (100)", or "CUresult 100" when the driver cannot name it.
std::string result_text(CuGetErrorName get_name, CUresult result) {
  const char* name = nullptr;
  if (get_name != nullptr && get_name(result, &name) == kCudaSuccess && name != nullptr) {
    return std::string(name) + " (" + std::to_string(result) + ")";
  }
  return "CUresult " + std::to_string(result);
}

struct DriverSymbols {
  CuInit init = nullptr;
  CuDriverGetVersion driver_get_version = nullptr;
  CuDeviceGetCount device_get_count = nullptr;
  CuDeviceGet device_get = nullptr;
  CuDeviceGetName device_get_name = nullptr;
  CuDeviceGetAttribute device_get_attribute = nullptr;
  CuGetErrorName get_error_name = nullptr;  // optional: only names results in messages
};

Expected<DriverSymbols> driver_symbols(void* handle, std::string_view library) {
  DriverSymbols s;
  auto init = symbol<CuInit>(handle, library, "cuInit");
  if (!init) return std::unexpected(init.error());
  auto version = symbol<CuDriverGetVersion>(handle, library, "cuDriverGetVersion");
  if (!version) return std::unexpected(version.error());
  auto count = symbol<CuDeviceGetCount>(handle, library, "cuDeviceGetCount");
  if (!count) return std::unexpected(count.error());
  auto get = symbol<CuDeviceGet>(handle, library, "cuDeviceGet");
  if (!get) return std::unexpected(get.error());
  auto name = symbol<CuDeviceGetName>(handle, library, "cuDeviceGetName");
  if (!name) return std::unexpected(name.error());
  auto attribute = symbol<CuDeviceGetAttribute>(handle, library, "cuDeviceGetAttribute");
  if (!attribute) return std::unexpected(attribute.error());
  s.init = *init;
  s.driver_get_version = *version;
  s.device_get_count = *count;
  s.device_get = *get;
  s.device_get_name = *name;
  s.device_get_attribute = *attribute;
  if (auto error_name = symbol<CuGetErrorName>(handle, library, "cuGetErrorName")) {
    s.get_error_name = *error_name;
  }
  return s;
}

Expected<CudaDevice> device_at(const DriverSymbols& s, int ordinal) {
  const std::string which = "device " + std::to_string(ordinal);
  auto failed = [&](const char* call, CUresult r) {
    return std::unexpected(unavailable(std::string(call) + " failed for " + which + ": " +
                                       result_text(s.get_error_name, r)));
  };
  CUdevice device = 0;
  if (CUresult r = s.device_get(&device, ordinal); r != kCudaSuccess)
    return failed("cuDeviceGet", r);
  std::array<char, 256> name{};
  if (CUresult r = s.device_get_name(name.data(), static_cast<int>(name.size()), device);
      r != kCudaSuccess) {
    return failed("cuDeviceGetName", r);
  }
  CudaDevice out{.ordinal = ordinal};
  out.name = std::string(name.data(), strnlen(name.data(), name.size()));
  if (CUresult r = s.device_get_attribute(&out.compute_major, kComputeCapabilityMajor, device);
      r != kCudaSuccess) {
    return failed("cuDeviceGetAttribute", r);
  }
  if (CUresult r = s.device_get_attribute(&out.compute_minor, kComputeCapabilityMinor, device);
      r != kCudaSuccess) {
    return failed("cuDeviceGetAttribute", r);
  }
  return out;
}

// Runs in the probe's child process.
Expected<CudaDriverProbe> load_driver(std::string_view library) {
  const std::string soname(library);
  dlerror();
  Library handle(dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (handle.get() == nullptr) {
    return std::unexpected(unavailable(soname + " could not be loaded: " + dl_error_text()));
  }
  auto s = driver_symbols(handle.get(), soname);
  if (!s) return std::unexpected(s.error());
  // cuInit may start driver threads that run code from the library; unloading it under them is
  // undefined, so it stays loaded until the child ends.
  handle.keep();
  if (CUresult r = s->init(0); r != kCudaSuccess) {
    return std::unexpected(unavailable("cuInit failed: " + result_text(s->get_error_name, r)));
  }
  CudaDriverProbe out{.library = soname};
  if (CUresult r = s->driver_get_version(&out.driver_version); r != kCudaSuccess) {
    return std::unexpected(
        unavailable("cuDriverGetVersion failed: " + result_text(s->get_error_name, r)));
  }
  if (out.driver_version <= 0) {
    return std::unexpected(unavailable("cuDriverGetVersion reported version " +
                                       std::to_string(out.driver_version) +
                                       ", which no CUDA driver has; the driver is not usable"));
  }
  int count = 0;
  if (CUresult r = s->device_get_count(&count); r != kCudaSuccess) {
    return std::unexpected(
        unavailable("cuDeviceGetCount failed: " + result_text(s->get_error_name, r)));
  }
  if (count < 0 || count > kMaxCudaDevices) {
    return std::unexpected(unavailable(
        "cuDeviceGetCount reported " + std::to_string(count) + " devices; nnplan believes 0 to " +
        std::to_string(kMaxCudaDevices) + ", so the driver is not usable"));
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    auto device = device_at(*s, ordinal);
    if (!device) return std::unexpected(device.error());
    out.devices.push_back(std::move(*device));
  }
  return out;
}

// Runs in the probe's child process.
Expected<CublasProbe> load_cublas(std::span<const std::string_view> libraries) {
  std::string tried;
  for (std::string_view library : libraries) {
    const std::string soname(library);
    dlerror();
    Library handle(dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL));
    if (handle.get() == nullptr) {
      tried += (tried.empty() ? "" : "; ") + dl_error_text();
      continue;
    }
    CublasProbe out{.library = soname};
    // cublasGetProperty needs no handle (cublasGetVersion_v2 takes one, which would need a
    // context on a device); a library without it is still reported as loaded.
    if (auto get = symbol<CublasGetProperty>(handle.get(), soname, "cublasGetProperty")) {
      int major = 0, minor = 0, patch = 0;
      if ((*get)(kMajorVersion, &major) == 0 && (*get)(kMinorVersion, &minor) == 0 &&
          (*get)(kPatchLevel, &patch) == 0) {
        out.version =
            std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
      }
    }
    // cuBLAS allocates when it loads and frees that only at exit; the child ends right after.
    handle.keep();
    return out;
  }
  if (libraries.empty()) return std::unexpected(unavailable("no cublas library was named"));
  return std::unexpected(unavailable("cublas could not be loaded: " + tried));
}

// The child's answer: fields written as "<length>:<bytes>", read back with every length checked.
class AnswerWriter {
 public:
  void add(std::string_view field) {
    out_ += std::to_string(field.size());
    out_ += ':';
    out_ += field;
  }
  void add(int value) { add(std::to_string(value)); }
  [[nodiscard]] std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class AnswerReader {
 public:
  explicit AnswerReader(std::string_view in) : in_(in) {}
  std::optional<std::string> text() {
    const std::size_t colon = in_.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon > 9) return std::nullopt;
    std::size_t length = 0;
    const auto [end, ec] = std::from_chars(in_.data(), in_.data() + colon, length);
    if (ec != std::errc{} || end != in_.data() + colon || length > in_.size() - colon - 1) {
      return std::nullopt;
    }
    std::string out(in_.substr(colon + 1, length));
    in_.remove_prefix(colon + 1 + length);
    return out;
  }
  std::optional<int> number() {
    const auto field = text();
    if (!field) return std::nullopt;
    int value = 0;
    const auto [end, ec] = std::from_chars(field->data(), field->data() + field->size(), value);
    if (ec != std::errc{} || end != field->data() + field->size()) return std::nullopt;
    return value;
  }
  [[nodiscard]] bool done() const { return in_.empty(); }

 private:
  std::string_view in_;
};

// An answer starts with "ok", or with "error" and the probe's failure message, which ends it.
template <class Probe>
bool add_status(AnswerWriter& w, const Expected<Probe>& probe) {
  if (!probe) {
    w.add("error");
    w.add(probe.error().message);
    return false;
  }
  w.add("ok");
  return true;
}

struct AnswerStatus {
  bool ok = false;
  std::optional<Error> failure;  // the failure the child reported
};

// Neither ok nor a failure when the answer starts with neither.
AnswerStatus read_status(AnswerReader& r) {
  const auto status = r.text();
  if (status == "ok") return {.ok = true, .failure = std::nullopt};
  if (status == "error") {
    auto message = r.text();
    if (message && r.done()) return {.ok = false, .failure = unavailable(std::move(*message))};
  }
  return {};
}

// The most bytes a child's answer takes: kMaxCudaDevices names of 255 bytes and a little more.
constexpr std::size_t kMaxAnswerBytes = 1 << 20;

std::string encode_driver(const Expected<CudaDriverProbe>& probe) {
  AnswerWriter w;
  if (!add_status(w, probe)) return w.take();
  w.add(probe->library);
  w.add(probe->driver_version);
  w.add(static_cast<int>(probe->devices.size()));
  for (const CudaDevice& d : probe->devices) {
    w.add(d.ordinal);
    w.add(d.name);
    w.add(d.compute_major);
    w.add(d.compute_minor);
  }
  return w.take();
}

std::optional<Expected<CudaDriverProbe>> decode_driver(std::string_view answer) {
  AnswerReader r(answer);
  AnswerStatus status = read_status(r);
  if (status.failure) return std::unexpected(std::move(*status.failure));
  if (!status.ok) return std::nullopt;
  CudaDriverProbe out;
  auto library = r.text();
  const auto version = r.number();
  const auto count = r.number();
  if (!library || !version || !count || *count < 0 || *count > kMaxCudaDevices) {
    return std::nullopt;
  }
  out.library = std::move(*library);
  out.driver_version = *version;
  for (int i = 0; i < *count; ++i) {
    const auto ordinal = r.number();
    auto name = r.text();
    const auto major = r.number();
    const auto minor = r.number();
    if (!ordinal || !name || !major || !minor) return std::nullopt;
    out.devices.push_back({.ordinal = *ordinal,
                           .name = std::move(*name),
                           .compute_major = *major,
                           .compute_minor = *minor});
  }
  if (!r.done()) return std::nullopt;
  return out;
}

std::string encode_cublas(const Expected<CublasProbe>& probe) {
  AnswerWriter w;
  if (!add_status(w, probe)) return w.take();
  w.add(probe->library);
  w.add(probe->version ? "version" : "no-version");
  w.add(probe->version.value_or(""));
  return w.take();
}

std::optional<Expected<CublasProbe>> decode_cublas(std::string_view answer) {
  AnswerReader r(answer);
  AnswerStatus status = read_status(r);
  if (status.failure) return std::unexpected(std::move(*status.failure));
  if (!status.ok) return std::nullopt;
  auto library = r.text();
  const auto has_version = r.text();
  auto version = r.text();
  if (!library || !has_version || !version || !r.done()) return std::nullopt;
  CublasProbe out{.library = std::move(*library)};
  if (*has_version == "version") out.version = std::move(*version);
  return out;
}

// Runs `load` in a child process and reads its answer back with `decode`.
template <class Probe, class Load, class Encode, class Decode>
Expected<Probe> isolated(const std::string& what, std::chrono::milliseconds deadline, Load load,
                         Encode encode, Decode decode) {
  auto answer = call_isolated(
      what, [&] { return encode(load()); }, deadline, kMaxAnswerBytes);
  if (!answer) {
    return std::unexpected(
        unavailable(answer.error() + "; nnplan takes it as not usable on this machine"));
  }
  auto decoded = decode(*answer);
  if (!decoded) {
    return std::unexpected(
        unavailable(what + " answered with a message nnplan cannot read; it is not usable"));
  }
  return std::move(*decoded);
}

}  // namespace

std::string driver_version_text(int driver_version) {
  return std::to_string(driver_version / 1000) + "." + std::to_string(driver_version % 1000 / 10);
}

Expected<CudaDriverProbe> probe_cuda_driver(std::string_view library,
                                            std::chrono::milliseconds deadline) {
  return isolated<CudaDriverProbe>(
      "the CUDA driver probe (" + std::string(library) + ")", deadline,
      [&] { return load_driver(library); }, encode_driver, decode_driver);
}

Expected<CublasProbe> probe_cublas(std::span<const std::string_view> libraries,
                                   std::chrono::milliseconds deadline) {
  return isolated<CublasProbe>(
      "the cuBLAS probe", deadline, [&] { return load_cublas(libraries); }, encode_cublas,
      decode_cublas);
}

}  // namespace nnplan::runtime
