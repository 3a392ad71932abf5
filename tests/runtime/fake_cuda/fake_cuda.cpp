// A fake CUDA driver (libcuda.so.1) or cuBLAS (libcublas.so.12) for the probe's fault-injection
// tests (probe_isolation_test.cpp, probe_cli_test.cpp): tests/CMakeLists.txt builds this file once
// per FAKE_CUDA_<MODE>, each into a directory of its own, and the tests name the library's path or
// put its directory on LD_LIBRARY_PATH. A mode is one way a driver can misbehave: crash, abort,
// hang or exit inside cuInit, report more devices than a machine has, name a device with bytes
// that are not text, or (FAKE_CUDA_OK) work like a driver with one device.
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

extern "C" {

int cuInit(unsigned int) {
#if defined(FAKE_CUDA_CRASH)
  std::raise(SIGSEGV);
#elif defined(FAKE_CUDA_ABORT)
  std::abort();
#elif defined(FAKE_CUDA_HANG)
  for (;;)
    ::pause();
#elif defined(FAKE_CUDA_EXIT)
  std::exit(0);
#endif
  return 0;
}

int cuDriverGetVersion(int* version) {
  *version = 12040;
  return 0;
}

int cuDeviceGetCount(int* count) {
#if defined(FAKE_CUDA_MANY_DEVICES)
  *count = INT_MAX;
#elif defined(FAKE_CUDA_ODD_NAMES)
  *count = 2;
#else
  *count = 1;
#endif
  return 0;
}

int cuDeviceGet(int* device, int ordinal) {
  *device = ordinal;
  return 0;
}

int cuDeviceGetName(char* name, int length, int device) {
#if defined(FAKE_CUDA_ODD_NAMES)
  if (device == 0) {
    // Not UTF-8, a line break and a terminal escape sequence.
    std::strncpy(name, "Fake \xff\xfe GPU\nverdict: accepted \x1b[31mred", length);
  } else {
    // Every byte of the buffer, with no terminating zero.
    std::memset(name, 'A', static_cast<std::size_t>(length));
  }
#else
  (void)device;
  std::strncpy(name, "Fake GPU 9000", length);
#endif
  return 0;
}

int cuDeviceGetAttribute(int* value, int attribute, int) {
  *value = attribute == 75 ? 9 : 0;  // compute capability 9.0
  return 0;
}

int cublasGetProperty(int property, int* value) {
#if defined(FAKE_CUBLAS_CRASH)
  std::raise(SIGSEGV);
#endif
  static const int version[] = {12, 4, 5};
  *value = version[property];
  return 0;
}

}  // extern "C"
