#!/usr/bin/env bash
# Quick start, step one: install dependencies, build, and plan the example CNN
# (examples/cnn.json) under the default profile `checked_cpu`, printing where each node goes,
# the audit, the coverage and the gate verdict. Extra arguments go to `nnplan plan`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/bin/nnplan plan examples/cnn.json "$@"
