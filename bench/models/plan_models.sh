#!/usr/bin/env bash
# Plans every MODEL_DIR/*.onnx (as written by export_models.py) with NNPLAN_BIN and prints a
# markdown table: model, file size, ONNX nodes, result, wall time of the plan, first blocker, the
# op types outside the importer's operator list, and the op types the model uses.
#
# Usage: bench/models/plan_models.sh NNPLAN_BIN MODEL_DIR [RESULTS_DIR]
#   Each model is planned with `NNPLAN_BIN plan --assurance checked --json MODEL` (the default
#   profile, checked_cpu, with the checked assurance policy spelled out), under a 600 s timeout.
#   RESULTS_DIR (default MODEL_DIR/plan-results) receives per model the exit code (<m>.rc), the
#   stderr (<m>.err), the nnplan.plan.v1 artifact (<m>.json) and the op summary (<m>.ops).
#   PYTHON (default /usr/bin/python3) must have python3-onnx (bench/models/install-export-deps.sh).
set -euo pipefail

if (($# < 2 || $# > 3)); then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
nnplan=$1
model_dir=$2
results=${3:-$model_dir/plan-results}
python=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

[[ -x $nnplan ]] || { echo "plan_models: $nnplan is not executable" >&2; exit 2; }
shopt -s nullglob
models=("$model_dir"/*.onnx)
((${#models[@]} > 0)) || { echo "plan_models: no .onnx files in $model_dir" >&2; exit 2; }
mkdir -p "$results"

for model in "${models[@]}"; do
  name=$(basename "$model" .onnx)
  "$python" "$here/onnx_ops.py" summary "$model" >"$results/$name.ops"
  rc=0
  start=$(date +%s.%N)
  timeout 600 "$nnplan" plan --assurance checked --json "$model" \
    >"$results/$name.json" 2>"$results/$name.err" || rc=$?
  end=$(date +%s.%N)
  echo "$rc" >"$results/$name.rc"
  echo "$start $end" | awk '{printf "%.2f\n", $2 - $1}' >"$results/$name.time"
  echo "plan_models: $name: exit $rc" >&2
done

# The table. The blocker is the first stderr line, less the file name and the operator list.
"$python" - "$results" "${models[@]}" <<'EOF'
import json, os, re, sys

results, models = sys.argv[1], sys.argv[2:]
kinds = {0: "planned", 1: "rejected", 2: "usage error", 3: "unreadable or malformed",
         4: "unsupported", 124: "timed out"}
supported = None
rows = []
for model in models:
    name = os.path.splitext(os.path.basename(model))[0]
    base = os.path.join(results, name)
    rc = int(open(base + ".rc").read())
    err = open(base + ".err", errors="replace").read().splitlines()
    nodes, ops = open(base + ".ops").read().rstrip("\n").split("\t")
    artifact = {}
    try:
        artifact = json.load(open(base + ".json"))
    except (OSError, ValueError):
        pass
    m = re.search(r"operator \S+ is not supported; supported: (.*)$", err[0]) if err else None
    if m and supported is None:
        supported = set(s.strip() for s in m.group(1).split(","))
    if rc == 0:
        result = f"planned, {len(artifact.get('groups', []))} groups"
        blocker = ""
    else:
        result = f"exit {rc} ({kinds.get(rc, 'signal' if rc > 128 else 'error')})"
        kind = (artifact.get("error") or {}).get("kind")
        if kind:
            result += f", artifact error kind `{kind}`"
        blocker = " / ".join(err[:2])
        blocker = re.sub(r"^nnplan: error: ", "", blocker)
        blocker = blocker.replace(model + ": ", "").replace(os.path.basename(model) + ": ", "")
        blocker = re.sub(r"(operator \S+ is not supported); supported: [^/]*", r"\1", blocker)
    seconds = open(base + ".time").read().strip()
    size = f"{os.path.getsize(model) / 1e6:.1f}"
    rows.append((name, size, nodes, result, seconds, blocker, ops))

def cell(s):
    return s.replace("|", "\\|")

print("| model | MB | ONNX nodes | result | wall s | first blocker (stderr, first 2 lines) "
      "| op types outside the importer's list | op types used (count) |")
print("|---|---:|---:|---|---:|---|---|---|")
for name, size, nodes, result, seconds, blocker, ops in rows:
    outside = ""
    if supported is not None:
        outside = " ".join(o.split(":")[0] for o in ops.split() if o.split(":")[0] not in supported)
    print(f"| {name} | {size} | {nodes} | {cell(result)} | {seconds} | {cell(blocker)} | {outside} | {ops} |")
planned = sum(1 for r in rows if r[3].startswith("planned"))
print(f"\n{planned} of {len(rows)} models plan.")
if supported is not None:
    print(f"\nThe importer's operator list (from its error message): {', '.join(sorted(supported))}.")
EOF
