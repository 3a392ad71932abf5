#!/usr/bin/env bash
# Peer comparison of planning speed: the wall time of `nnplan plan MODEL.onnx` (the whole CLI
# process: start, file read, protobuf parse, import, plan, report) against ONNX Runtime's session
# creation with graph optimizations disabled (onnxruntime-node, bench/peers/ort_session.js), side
# by side in one run, on ResNet-18- and ResNet-50-shaped models and on a 100,000-node chain
# alternating Relu and Add(x, x) on [1,16]. The models are written by nnplan_make_models
# (bench/onnx_model_generators.cpp). Prints both medians and the ratio.
#
# Usage: bench/peers/compare.sh [--install-peers] [BUILD_DIR]
#   BUILD_DIR   a configured and built nnplan build tree (default: build); needs bin/nnplan and
#               bin/nnplan_make_models.
#   --install-peers  first installs the peers-only tools: hyperfine (Debian package; sudo) and
#               onnxruntime-node (npm install --ignore-scripts here; its CPU binaries are in the
#               npm tarball, so no postinstall download is needed).
# Environment: NNPLAN_RUNS (default 20) and ORT_RUNS (default 5) timed runs per model;
# NNPLAN_NO_HYPERFINE=1 times nnplan with the shell loop even when hyperfine is installed.
# nnplan is timed with hyperfine when installed (2 warm-up runs, median of NNPLAN_RUNS), else
# with a shell loop of NNPLAN_RUNS runs (median). ORT runs K creations in one warm Node.js process
# after one untimed creation, so its figure excludes Node.js start and module loading.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

install_peers=0
build_dir=build
for arg in "$@"; do
  case "$arg" in
    --install-peers) install_peers=1 ;;
    -h | --help) sed -n '2,20p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) build_dir=$arg ;;
  esac
done
[[ $build_dir = /* ]] || build_dir="$root/$build_dir"
nnplan_runs=${NNPLAN_RUNS:-20}
ort_runs=${ORT_RUNS:-5}

if ((install_peers)); then
  if ! command -v hyperfine >/dev/null; then
    as_root=()
    [[ $(id -u) -eq 0 ]] || as_root=(sudo)
    DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -q hyperfine >/dev/null
  fi
  (cd "$here" && npm install --ignore-scripts --no-audit --no-fund)
fi

for tool in nnplan nnplan_make_models; do
  [[ -x $build_dir/bin/$tool ]] || { echo "compare: $build_dir/bin/$tool not built" >&2; exit 1; }
done
command -v node >/dev/null || { echo "compare: node (Node.js) not found" >&2; exit 1; }
[[ -d $here/node_modules/onnxruntime-node ]] ||
  { echo "compare: onnxruntime-node missing; run with --install-peers" >&2; exit 1; }

models="$build_dir/models"
"$build_dir/bin/nnplan_make_models" "$models"

median_of() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Median wall time of `nnplan plan FILE` in milliseconds.
time_nnplan() {
  local file=$1 status=0
  "$build_dir/bin/nnplan" plan "$file" >/dev/null || status=$?
  if ((status != 0 && status != 1)); then
    echo "compare: nnplan plan $file exited $status" >&2
    "$build_dir/bin/nnplan" plan "$file" 2>&1 >/dev/null | head -5 >&2
    return 1
  fi
  echo "nnplan plan $(basename "$file"): exit $status ($([[ $status = 0 ]] && echo accepted || echo rejected by the gate))" >&2
  if [[ ${NNPLAN_NO_HYPERFINE:-0} != 1 ]] && command -v hyperfine >/dev/null; then
    local json
    json=$(mktemp)
    hyperfine -N --style basic --warmup 2 --runs "$nnplan_runs" -i --export-json "$json" \
      "$build_dir/bin/nnplan plan $file" >&2
    jq '.results[0].median * 1000' "$json"
    rm -f "$json"
  else
    local i start end
    for ((i = 0; i < nnplan_runs; ++i)); do
      start=$(date +%s%N)
      "$build_dir/bin/nnplan" plan "$file" >/dev/null || true
      end=$(date +%s%N)
      echo "scale=3; ($end - $start) / 1000000" | bc
    done | median_of
  fi
}

# Median ONNX Runtime session creation time in milliseconds (its report line goes to stderr).
time_ort() {
  local line
  line=$(node "$here/ort_session.js" --runs "$ort_runs" "$1") || return 1
  echo "$line" >&2
  sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' <<<"$line"
}

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "onnxruntime-node $(node -p "require('$here/node_modules/onnxruntime-node/package.json').version"), node $(node --version), $(hyperfine --version 2>/dev/null || echo 'no hyperfine: shell loop')"
declare -A nn ort
for model in resnet18 resnet50 chain100k; do
  file="$models/$model.onnx"
  nn[$model]=$(time_nnplan "$file")
  ort[$model]=$(time_ort "$file")
done
echo
printf '%-10s %16s %22s %18s\n' model "nnplan plan (ms)" "ORT session (ms)" "ratio ORT/nnplan"
for model in resnet18 resnet50 chain100k; do
  printf '%-10s %16.3f %22.3f %17.1fx\n' "$model" "${nn[$model]}" "${ort[$model]}" \
    "$(echo "scale=3; ${ort[$model]} / ${nn[$model]}" | bc)"
done
