// The exception boundary of the public API (DESIGN.md, "Errors"). nnplan reports failures as
// `Expected` values; the standard library can still throw (an allocation that fails, a length past
// a container's limit). `catch_as_error` runs a fallible step and turns any exception it lets out
// into an Error: `std::bad_alloc` into `resource_exhausted`, anything else into `internal`, each
// message saying what was being done; when even that message cannot be built, a fixed one. Readers
// and other entry points wrap their body in it, so no exception crosses the API.
#pragma once

#include <exception>
#include <expected>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "nnplan/error.hpp"

namespace nnplan {

// The resource_exhausted Error for running out of memory while `doing`, with what would fix it.
[[nodiscard]] inline Error out_of_memory_error(std::string_view doing) {
  return make_error(ErrorKind::resource_exhausted,
                    "out of memory while " + std::string(doing) +
                        "; free memory or raise the process's memory limit (ulimit -v)");
}

// The Error for an exception caught while `doing` ("reading registry file r.json").
[[nodiscard]] inline Error error_from_exception(std::string_view doing, const std::exception& e) {
  const bool memory = dynamic_cast<const std::bad_alloc*>(&e) != nullptr ||
                      dynamic_cast<const std::length_error*>(&e) != nullptr;
  if (memory) return out_of_memory_error(doing);
  return make_error(ErrorKind::internal,
                    "unexpected failure while " + std::string(doing) + ": " + e.what());
}

// Runs `step` (returning some Expected<T>) and returns its result, or the Error for the exception
// it threw. `doing` is a callable returning the description, so it is built only on failure.
template <class Step, class Doing>
[[nodiscard]] auto catch_as_error(Doing&& doing, Step&& step) noexcept
    -> std::invoke_result_t<Step> {
  try {
    return std::forward<Step>(step)();
  } catch (const std::exception& e) {
    try {
      return std::unexpected(error_from_exception(std::forward<Doing>(doing)(), e));
    } catch (...) {
      Error error;
      error.kind = ErrorKind::resource_exhausted;
      error.message = "out of memory";
      return std::unexpected(std::move(error));
    }
  } catch (...) {
    Error error;
    error.kind = ErrorKind::internal;
    error.message = "unexpected failure";
    return std::unexpected(std::move(error));
  }
}

}  // namespace nnplan
