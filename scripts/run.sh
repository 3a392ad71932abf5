#!/usr/bin/env bash
# Quick start, step one: install dependencies, build, and plan a short built-in op list (a small
# transformer block's ops) under the default profile `checked_cpu`, printing the SPEC §9 report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/bin/nnplan plan-ops --profile checked_cpu \
  layer_norm matmul scaled_dot_product_attention add layer_norm linear gelu linear add
