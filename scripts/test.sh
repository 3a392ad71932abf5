#!/usr/bin/env bash
# Quick start, step two: install dependencies, build with warnings as errors, run every test.
# Then builds the whole suite again with AddressSanitizer + UndefinedBehaviorSanitizer into
# build-asan/ (the test sources with AddressSanitizer only: tests/CMakeLists.txt) and runs it
# there; any sanitizer finding aborts its process and fails this script.
# Last, runs each libFuzzer target for 30 seconds (scripts/fuzz.sh); any crash, leak, timeout or
# out-of-memory fails it. Each stage prints how long it took (CI must finish well within its limit).
set -euo pipefail
cd "$(dirname "$0")/.."

stage_start=$SECONDS
stage_done() {
  echo "test.sh: $1 took $((SECONDS - stage_start)) s (total $SECONDS s)" >&2
  stage_start=$SECONDS
}

scripts/install-deps.sh
stage_done "install-deps"
scripts/build.sh
stage_done "build"
ctest --test-dir build --output-on-failure -j2
stage_done "tests"

# -O1 with line tables only (-g1): a sanitizer report still names every frame's file and line,
# and the build takes less than half the time of -O2 -g (the test sources themselves are built at
# -O0: tests/CMakeLists.txt).
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNNPLAN_WERROR=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DNNPLAN_SANITIZE=ON -DNNPLAN_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j2
stage_done "sanitizer build"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j2
stage_done "sanitizer tests"

scripts/fuzz.sh 30
stage_done "fuzzing"
