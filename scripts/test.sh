#!/usr/bin/env bash
# Quick start, step two: install dependencies, build with warnings as errors, run every test.
# Then builds the whole suite again with AddressSanitizer + UndefinedBehaviorSanitizer into
# build-asan/ and runs it there; any sanitizer finding aborts its process and fails this script.
# Last, runs each libFuzzer target for 45 seconds (scripts/fuzz.sh); any crash, leak, timeout or
# out-of-memory fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j2

# -O1 with line tables only (-g1): a sanitizer report still names every frame's file and line,
# and the build takes less than half the time of -O2 -g (the test sources themselves are built at
# -O0 there: tests/CMakeLists.txt).
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNNPLAN_WERROR=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DNNPLAN_SANITIZE=ON -DNNPLAN_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j2
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j2

scripts/fuzz.sh 45
