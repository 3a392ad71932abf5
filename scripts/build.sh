#!/usr/bin/env bash
# Configures and builds nnplan (tool, tests, benchmarks) into build/ with warnings as errors.
# Extra arguments are passed to the CMake configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNNPLAN_WERROR=ON "$@" >/dev/null
cmake --build build -j2
