#!/usr/bin/env bash
# Bounded libFuzzer run (issue 5): builds tests/fuzz/*.cpp with clang-16 and
# -fsanitize=fuzzer,address,undefined in build-fuzz/, then runs every target for
# SECONDS_PER_TARGET seconds (default 60) on a scratch copy of its seed corpus in
# tests/fuzz/corpus/<target>/ (the committed corpus never grows). Exits non-zero on any crash,
# leak, UB report, timeout (>10 s per input) or OOM (>1024 MB RSS or one allocation over
# 1024 MB), so memory amplification and quadratic time are findings too; the reproducer is left in
# build-fuzz/findings/<target>/. Prints the executions each target reached.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}

# Fuzz-only dependencies (the g++ build does not need them). Clang 16, not Debian's default 14:
# clang 14 cannot see libstdc++ 12's <expected> even with the workaround in CMakeLists.txt.
fuzz_packages=(clang-16 libclang-rt-16-dev)
missing=()
for p in "${fuzz_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  as_root=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "fuzz: need root to install: ${missing[*]}" >&2; exit 1; }
    as_root=(sudo)
  fi
  echo "fuzz: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -q >/dev/null
  "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

build=build-fuzz
# -O1 with line tables only, as the sanitizer build of scripts/test.sh: a finding still names
# every frame's file and line, and the build takes far less time than -O2 -g.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_CXX_COMPILER=clang++-16 -DNNPLAN_FUZZ=ON >/dev/null
cmake --build "$build" -j "$(nproc)"

targets=(fuzz_ir_json fuzz_registry fuzz_plan_artifact fuzz_onnx fuzz_payloads fuzz_tensor_file)
status=0
summary=()
start=$SECONDS
for t in "${targets[@]}"; do
  work="$build/corpus/$t"
  findings="$build/findings/$t"
  rm -rf "$work" "$findings"
  mkdir -p "$work" "$findings"
  cp -r "tests/fuzz/corpus/$t/." "$work/"
  log="$build/$t.log"
  echo "fuzz: $t for ${seconds}s" >&2
  rc=0
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/bin/$t" "$work" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
    -malloc_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$findings/" \
    >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if ((rc != 0)); then
    status=1
    echo "fuzz: $t FAILED (exit $rc); reproducer(s): $(ls "$findings")" >&2
    grep -E "ERROR: |SUMMARY: |runtime error" "$log" | head -20 >&2 || true
    summary+=("$t: FAILED after ${execs:-?} executions (log $log)")
  else
    summary+=("$t: ${execs:-?} executions in ${seconds}s, no findings")
  fi
done
echo "fuzz: results ($((SECONDS - start))s of fuzzing)"
printf '  %s\n' "${summary[@]}"
exit "$status"
