#!/usr/bin/env bash
# Peer comparison of running a model (issue 14): `nnplan run` under the reference provider against
# ONNX Runtime's InferenceSession.run (onnxruntime-node, bench/peers/ort_run.js:
# graphOptimizationLevel 'all', intraOpNumThreads 1, interOpNumThreads 1, the CPU provider), side
# by side in one run, on the same input, model after model. Per model it prints:
#   - latency: the median of `nnplan run --repeat K` (what the CLI prints) and the median of ORT's
#     timed runs (after one warm-up run, in one Node.js process), and nnplan / ORT;
#   - peak RSS: /usr/bin/time -v's "Maximum resident set size" of that `nnplan run` process, and
#     ORT's process.resourceUsage().maxRSS at the end of ort_run.js (the whole Node.js process,
#     Node itself included; Node alone, before onnxruntime-node loads, in parentheses), and
#     nnplan / ORT;
#   - accuracy: per output, the largest absolute and relative difference between nnplan's output
#     (--output, .npy) and ORT's (bench/peers/compare_outputs.py);
#   - time to first output: the wall time of one whole `nnplan run` process (the probe below:
#     reading, planning, compiling, one run, writing the output), and ORT's session creation plus
#     its first run inside the warm Node.js process (module loading and Node's start excluded),
#     and nnplan / ORT.
# ORT draws each input (seeded normal values) and writes it as .npy; nnplan reads those files.
# A model that does not plan under checked_cpu (`nnplan plan --assurance checked`) is skipped, and
# so is one whose single `nnplan run` takes over NNPLAN_SKIP_S seconds (the probe run, below).
#
# Usage: bench/peers/run_compare.sh [--build BUILD_DIR] [--profile P] [--threads T] [--reference]
#                                   MODEL.onnx|MODEL_DIR...
#   BUILD_DIR  a built nnplan build tree (default: build), for bin/nnplan.
#   P          the profile nnplan plans and runs under (default checked_cpu; fast_cpu for oneDNN).
#   T          threads for both: ORT's intraOpNumThreads and `nnplan run --threads` (default 1).
#   --reference  also run each model once under checked_cpu (the exact reference provider) and
#              report the largest error of P's outputs against it.
#   MODEL_DIR  every *.onnx in it (e.g. the models bench/models/export_models.py writes).
# Environment: ROUNDS (default 1): with more, ORT's and nnplan's timed runs alternate that many
# times per model, and the table gives the median of each side's per-round medians and every
# round's ratio (a noisy VM moves them between rounds); RUNS (default 5) timed runs of each
# per round; NNPLAN_SKIP_S (default 60): the bound on the probe, one `nnplan run --repeat 1`, which also sizes K: K = RUNS, lowered (to at least 3) so
# that K probe times fit NNPLAN_BUDGET_S (default 90) seconds; WORK (default
# BUILD_DIR/run-compare) receives the inputs, outputs and logs per model; PYTHON (default
# /usr/bin/python3) needs numpy.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

build_dir=build
profile=checked_cpu
threads=1
reference=0
inputs=()
while (($# > 0)); do
  case "$1" in
    --build) build_dir=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --reference) reference=1; shift ;;
    -h | --help) sed -n '2,32p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) inputs+=("$1"); shift ;;
  esac
done
[[ $build_dir = /* ]] || build_dir="$root/$build_dir"
runs=${RUNS:-5}
rounds=${ROUNDS:-1}
skip_s=${NNPLAN_SKIP_S:-60}
budget_s=${NNPLAN_BUDGET_S:-90}
work=${WORK:-$build_dir/run-compare}
python=${PYTHON:-/usr/bin/python3}
nnplan=$build_dir/bin/nnplan

((${#inputs[@]} > 0)) || { sed -n '18,25p' "${BASH_SOURCE[0]}" >&2; exit 2; }
[[ -x $nnplan ]] || { echo "run_compare: $nnplan not built" >&2; exit 1; }
command -v node >/dev/null || { echo "run_compare: node (Node.js) not found" >&2; exit 1; }
[[ -d $here/node_modules/onnxruntime-node ]] ||
  { echo "run_compare: onnxruntime-node missing; run bench/peers/compare.sh --install-peers" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "run_compare: /usr/bin/time (GNU time) not found" >&2; exit 1; }
"$python" -c 'import numpy' 2>/dev/null || { echo "run_compare: $python has no numpy" >&2; exit 1; }

models=()
for arg in "${inputs[@]}"; do
  if [[ -d $arg ]]; then
    shopt -s nullglob
    models+=("$arg"/*.onnx)
    shopt -u nullglob
  else
    models+=("$arg")
  fi
done
mkdir -p "$work"

kib_to_mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
rss_of() { sed -n 's/.*Maximum resident set size (kbytes): *\([0-9]*\).*/\1/p' "$1"; }

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "onnxruntime-node $(node -p "require('$here/node_modules/onnxruntime-node/package.json').version"), node $(node --version); ROUNDS=$rounds RUNS=$runs NNPLAN_SKIP_S=$skip_s NNPLAN_BUDGET_S=$budget_s"
echo "nnplan --profile $profile --threads $threads; ORT intraOpNumThreads $threads"
echo
ref_head=""
ref_rule=""
if ((reference)); then ref_head=" max rel error vs reference provider |"; ref_rule="---:|"; fi
rounds_head=""
rounds_rule=""
if ((rounds > 1)); then rounds_head=" nnplan / ORT per round |"; rounds_rule="---|"; fi
printf '| %s | %s | %s | %s |%s %s | %s | %s | %s | %s | %s | %s |%s\n' model "nnplan run median" \
  "ORT run median" "nnplan / ORT" "$rounds_head" "nnplan peak RSS" "ORT peak RSS (Node alone)" \
  "RSS nnplan / ORT" "first output: nnplan process, ORT create + run" "first output nnplan / ORT" \
  "max abs error" "max rel error (of max abs ORT; per element)" "$ref_head"
echo "|---|---:|---:|---:|$rounds_rule---:|---:|---:|---:|---:|---:|---:|$ref_rule"
median_of() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
skipped=()
for model in "${models[@]}"; do
  name=$(basename "$model" .onnx)
  dir="$work/$name"
  rm -rf "$dir"
  mkdir -p "$dir/nnplan"
  plan_rc=0
  "$nnplan" plan --profile "$profile" "$model" >"$dir/plan.txt" 2>"$dir/plan.err" || plan_rc=$?
  if ((plan_rc != 0)); then
    skipped+=("$name: does not plan under $profile (nnplan plan exit $plan_rc: $(head -c 160 "$dir/plan.err" | head -1))")
    continue
  fi
  if ! node "$here/ort_run.js" --runs "$runs" --warmup 1 --threads "$threads" --inputs "$dir/inputs" \
      --outputs "$dir/ort" "$model" >"$dir/ort.txt" 2>"$dir/ort.err"; then
    skipped+=("$name: ONNX Runtime failed: $(head -c 160 "$dir/ort.err" | head -1)")
    continue
  fi
  ort_line=$(grep '^ort_run ' "$dir/ort.txt")
  ort_ms=$(sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p' <<<"$ort_line")
  ort_rss=$(sed -n 's/.*max_rss_kb=\([0-9]*\).*/\1/p' <<<"$ort_line")
  node_rss=$(sed -n 's/.*node_rss_kb=\([0-9]*\).*/\1/p' <<<"$ort_line")
  ort_first_ms=$(sed -n 's/.*first_ms=\([0-9.]*\).*/\1/p' <<<"$ort_line")
  run_args=(--profile "$profile" --threads "$threads")
  ref_args=()
  while read -r _ in_name in_file; do
    run_args+=(--input "$in_name=$in_file")
    ref_args+=(--input "$in_name=$in_file")
  done \
    < <(grep '^ort_input ' "$dir/ort.txt")
  out_pairs=()
  while read -r _ out_name out_file; do
    run_args+=(--output "$out_name=$dir/nnplan/$(basename "$out_file")")
    ref_args+=(--output "$out_name=$dir/reference/$(basename "$out_file")")
    out_pairs+=("$out_name $dir/nnplan/$(basename "$out_file") $out_file")
  done < <(grep '^ort_output ' "$dir/ort.txt")

  # The probe: one run under the time bound; its wall time sizes the repeat count.
  start=$(date +%s%N)
  probe_rc=0
  timeout "$skip_s" "$nnplan" run "$model" "${run_args[@]}" --quiet >"$dir/probe.txt" 2>&1 || probe_rc=$?
  probe_s=$(awk -v ns=$(($(date +%s%N) - start)) 'BEGIN { printf "%.2f", ns / 1e9 }')
  if ((probe_rc == 124)); then
    skipped+=("$name: one nnplan run took over $skip_s s (ORT: $ort_ms ms)")
    continue
  elif ((probe_rc != 0)); then
    skipped+=("$name: nnplan run exit $probe_rc: $(grep -m1 error "$dir/probe.txt" | head -c 200)")
    continue
  fi
  repeat=$(awk -v r="$runs" -v b="$budget_s" -v p="$probe_s" \
    'BEGIN { k = int(b / p); if (k > r) k = r; if (k < 3) k = 3; print k }')
  run_rc=0
  /usr/bin/time -v "$nnplan" run "$model" "${run_args[@]}" --quiet --repeat "$repeat" \
    >"$dir/run.txt" 2>"$dir/run.time" || run_rc=$?
  if ((run_rc != 0)); then
    skipped+=("$name: nnplan run --repeat $repeat exit $run_rc")
    continue
  fi
  nn_ms=$(sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' "$dir/run.txt")
  nn_rss=$(rss_of "$dir/run.time")
  # Further rounds: ORT's timed runs, then nnplan's, again; each side's median of medians.
  rounds_cell=""
  if ((rounds > 1)); then
    ort_all="$ort_ms"
    nn_all="$nn_ms"
    per_round="$(ratio "$nn_ms" "$ort_ms")"
    for ((r = 2; r <= rounds; ++r)); do
      node "$here/ort_run.js" --runs "$runs" --warmup 1 --threads "$threads" --inputs "$dir/inputs" \
        --outputs "$dir/ort_round" "$model" >"$dir/ort_round.txt" 2>>"$dir/ort.err" || break
      ort_r=$(sed -n 's/^ort_run .*median_ms=\([0-9.]*\).*/\1/p' "$dir/ort_round.txt")
      "$nnplan" run "$model" "${run_args[@]}" --quiet --repeat "$repeat" >"$dir/run_round.txt" 2>&1 ||
        break
      nn_r=$(sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' "$dir/run_round.txt")
      ort_all+=" $ort_r"
      nn_all+=" $nn_r"
      per_round+=", $(ratio "$nn_r" "$ort_r")"
    done
    ort_ms=$(median_of <<<"$ort_all")
    nn_ms=$(median_of <<<"$nn_all")
    rounds_cell=" $per_round |"
  fi
  errors_abs=""
  errors_rel=""
  for pair in "${out_pairs[@]}"; do
    read -r out_name nn_file ort_file <<<"$pair"
    cmp_line=$("$python" "$here/compare_outputs.py" "$nn_file" "$ort_file") || cmp_line="$cmp_line"
    echo "$out_name $cmp_line" >>"$dir/errors.txt"
    errors_abs+="${errors_abs:+, }$(sed -n 's/.*max_abs=\([^ ]*\).*/\1/p' <<<"$cmp_line")"
    errors_rel+="${errors_rel:+, }$(sed -n 's/.*max_rel=\([^ ]*\) max_rel_elem=\([^ ]*\).*/\1; \2/p' <<<"$cmp_line")"
  done
  ref_cell=""
  if ((reference)); then
    mkdir -p "$dir/reference"
    if "$nnplan" run "$model" --profile checked_cpu "${ref_args[@]}" --quiet >"$dir/reference.txt" 2>&1; then
      for pair in "${out_pairs[@]}"; do
        read -r out_name nn_file ort_file <<<"$pair"
        ref_line=$("$python" "$here/compare_outputs.py" "$nn_file" "$dir/reference/$(basename "$ort_file")") || true
        ref_cell+="${ref_cell:+, }$(sed -n 's/.*max_rel=\([^ ]*\).*/\1/p' <<<"$ref_line")"
      done
    else
      ref_cell="reference run failed"
    fi
    ref_cell=" $ref_cell |"
  fi
  first_ms=$(awk -v s="$probe_s" 'BEGIN { printf "%.0f", s * 1000 }')
  printf '| %s | %s ms (%s runs) | %s ms (%s runs) | %sx |%s %s MiB | %s MiB (%s) | %s | %s ms, %s ms | %s | %s | %s |%s\n' \
    "$name" "$nn_ms" "$((repeat * rounds))" "$ort_ms" "$((runs * rounds))" \
    "$(ratio "$nn_ms" "$ort_ms")" "$rounds_cell" \
    "$(kib_to_mib "$nn_rss")" "$(kib_to_mib "$ort_rss")" "$(kib_to_mib "$node_rss")" \
    "$(ratio "$nn_rss" "$ort_rss")" "$first_ms" "$ort_first_ms" "$(ratio "$first_ms" "$ort_first_ms")" \
    "$errors_abs" "$errors_rel" "$ref_cell"
done
echo
for s in "${skipped[@]}"; do echo "skipped: $s"; done
echo "load average at end $(cut -d' ' -f1-3 /proc/loadavg)"
