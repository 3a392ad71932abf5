#!/usr/bin/env bash
# Quick start, step two: install dependencies, build with warnings as errors, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j2
