#!/usr/bin/env bash
# Renders pages of `nnplan report` in headless Chromium (Debian's chromium) and checks what a
# person would see in the rendered document: the verdict, the profile name, a group's capsule
# name, the trusted-external boundary, the gate failures of a rejected plan, the content of a
# group's <details> entry, the placement picture when Graphviz is installed, and a node named
# `<script>alert(1)</script>` shown as text, never run. Skips (exit 77) without chromium.
# Usage: render_report_test.sh NNPLAN_BINARY SOURCE_DIR
set -euo pipefail
nnplan=$1
src=$2
chromium=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $chromium ]]; then
  echo "SKIP: chromium is not installed (Debian package chromium)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
# The DOM Chromium builds from the page (no JavaScript runs: the page has none).
render() {
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
    --dump-dom "file://$1" 2>/dev/null
}
expect_in() {  # expect_in DOM_FILE TEXT...
  local dom=$1
  shift
  for text in "$@"; do
    grep -qF -- "$text" "$dom" || fail "$(basename "$dom"): missing '$text'"
  done
}

# 1. Accepted under `external`, relu run by a trusted-external capsule; one node named like a
#    script.
cat >"$work/hostile.json" <<'JSON'
{"format": "torchlean.ir.v1", "input_id": 0, "output_id": 2, "nodes": [
  {"id": 0, "kind": "input", "parents": [], "shape": [2, 3], "name": "x"},
  {"id": 1, "kind": "relu", "parents": [0], "shape": [2, 3], "name": "<script>alert(1)</script>"},
  {"id": 2, "kind": "relu", "parents": [1], "shape": [2, 3], "name": "act2"}]}
JSON
"$nnplan" report "$work/hostile.json" --assurance external --prefer torchlean \
  --registry "$src/tests/data/registries/cli_trusted_relu.json" -o "$work/trusted.html" \
  >/dev/null 2>"$work/trusted.err" || fail "report of the trusted-external plan exited $?"
render "$work/trusted.html" >"$work/trusted.dom"
[[ -s $work/trusted.dom ]] || fail "chromium rendered nothing for trusted.html"
expect_in "$work/trusted.dom" \
  "gate: accepted under assurance external" \
  "checked_cpu+overrides" \
  "lab.trusted_relu" \
  "TRUSTED EXTERNAL" \
  "trusted external boundary: relu" \
  "<summary>group 0: nodes 1,2 [relu,relu]" \
  "contiguous row-major buffers only" \
  "trusted boundary: vendor binary without source" \
  "&lt;script&gt;alert(1)&lt;/script&gt;"
# The details entry holds the group's contracts: the layout contract's summary sits inside it.
sed -n '/<details/,/<\/details>/p' "$work/trusted.dom" | grep -qF "contiguous row-major buffers only" ||
  fail "the group's <details> does not hold its contracts"
if grep -qi "<script" "$work/trusted.dom"; then fail "the node name became a script element"; fi
if command -v dot >/dev/null; then
  grep -qF "<svg" "$work/trusted.dom" || fail "dot is installed but the page has no picture"
else
  expect_in "$work/trusted.dom" "No placement picture: graphviz (dot) was not found on PATH"
fi

# 2. Rejected by the gate under `verified`: the page is written, exit 1, failures listed.
set +e
"$nnplan" report "$src/tests/data/graphs/cli_relu.json" --assurance verified \
  --registry "$src/tests/data/registries/cli_verified_relu.json" -o "$work/rejected.html" \
  >/dev/null 2>&1
code=$?
set -e
[[ $code -eq 1 ]] || fail "report of the rejected plan exited $code, expected 1"
render "$work/rejected.html" >"$work/rejected.dom"
expect_in "$work/rejected.dom" \
  "gate: rejected under assurance verified" \
  "runtime-guard-evidence" \
  "test-evidence" \
  "nodes 1,2" \
  "lab.verified_relu"

# 3. A screenshot: the page lays out and paints.
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
  --window-size=1200,1600 --screenshot="$work/trusted.png" "file://$work/trusted.html" \
  >/dev/null 2>&1 || fail "chromium could not take a screenshot"
[[ $(stat -c %s "$work/trusted.png" 2>/dev/null || echo 0) -gt 10000 ]] ||
  fail "the screenshot is missing or blank"

if ((failures > 0)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "rendered report pages checked in $chromium"
