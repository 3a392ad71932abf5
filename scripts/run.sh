#!/usr/bin/env bash
# Quick start, step one: install dependencies, build, then plan and run the example CNN
# (examples/cnn.json) under the default profile `checked_cpu` on its bundled input
# (examples/cnn_input.npy): prints where each node goes and why, what ran, the output's summary,
# and writes the trace of the run to cnn.trace.json. Extra arguments go to `nnplan run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/bin/nnplan run examples/cnn.json --input examples/cnn_input.npy --trace cnn.trace.json "$@"
