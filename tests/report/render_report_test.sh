#!/usr/bin/env bash
# Renders pages of `nnplan report` in headless Chromium (Debian's chromium) and checks what a
# person would see in the rendered document: the verdict, the profile name, a group's capsule
# name, the trusted-external boundary, the gate failures of a rejected plan, the content of a
# group's <details> entry, the placement picture when Graphviz is installed, and a node named
# `<script>alert(1)</script>` shown as text, never run; the caveats (a fast_cpu plan's NaN
# behaviour of relu) at the top, before the groups; `--expanded` with every group open and its
# contents shown (the rendered text, innerText, holds what a closed group hides); the page of a
# graph with a node no capsule admits, and the page of an ONNX model with unsupported nodes, each
# listing every such node. Skips (exit 77) without chromium.
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

# The text Chromium shows of a page (innerText: what is rendered, so nothing a closed <details>
# hides), read by a harness page that loads it in a frame; the page itself runs no script.
shown_text() {  # shown_text PAGE_FILE OUT_FILE
  local harness=$work/harness_$(basename "$1")
  cat >"$harness" <<HTML
<!DOCTYPE html><html><body><pre id="shown">not loaded</pre>
<iframe src="file://$1" onload="document.getElementById('shown').textContent =
  'SHOWN[' + this.contentDocument.body.innerText + ']SHOWN'"></iframe></body></html>
HTML
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
    --allow-file-access-from-files --dump-dom "file://$harness" 2>/dev/null >"$2"
  grep -q "SHOWN\[" "$2" || fail "$(basename "$1"): the harness could not read the shown text"
}
# `expect_before DOM_FILE FIRST SECOND`: FIRST occurs, and before SECOND.
expect_before() {
  local first second
  first=$(grep -boF -- "$2" "$1" | head -1 | cut -d: -f1)
  second=$(grep -boF -- "$3" "$1" | head -1 | cut -d: -f1)
  if [[ -z $first || -z $second ]] || ((first >= second)); then
    fail "$(basename "$1"): '$2' is not before '$3'"
  fi
}

# 3. fast_cpu, expanded: the caveats come first and name relu's NaN behaviour; every group is open
#    and its contents (contracts, layout, numerical policy) are shown.
"$nnplan" report "$src/examples/cnn.json" --profile fast_cpu --expanded --no-picture \
  -o "$work/expanded.html" >/dev/null 2>&1 || fail "report of the fast_cpu plan exited $?"
"$nnplan" report "$src/examples/cnn.json" --profile fast_cpu --no-picture \
  -o "$work/closed.html" >/dev/null 2>&1 || fail "report of the fast_cpu plan exited $?"
render "$work/expanded.html" >"$work/expanded.dom"
# conv, batch_norm and relu run as one fused capsule, whose relu part makes NaN 0.
expect_in "$work/expanded.dom" "<h2>Caveats</h2>" "onednn.batch_norm_relu</code>: NaN becomes 0"
expect_before "$work/expanded.dom" 'id="caveats"' 'id="profile"'
expect_before "$work/expanded.dom" 'id="caveats"' 'id="groups"'
expect_before "$work/expanded.dom" "NaN becomes 0" 'id="group-0"'
groups=$(grep -o '<details class="group' "$work/expanded.dom" | wc -l)
opened=$(grep -o '<details class="group[^>]* open=""' "$work/expanded.dom" | wc -l)
((groups > 0)) || fail "expanded.html: no group entry"
((opened == groups)) || fail "expanded.html: $opened of $groups groups open"
if grep -o '<details[^>]*>' "$work/expanded.dom" | grep -vq 'open=""'; then
  fail "expanded.html: a <details> is closed"
fi
# A relu of its own: oneDNN's relu makes NaN 0.
"$nnplan" report "$work/hostile.json" --profile fast_cpu --no-picture -o "$work/relu.html" \
  >/dev/null 2>&1 || fail "report of the fast_cpu relu plan exited $?"
render "$work/relu.html" >"$work/relu.dom"
expect_in "$work/relu.dom" "onednn.relu</code>: NaN becomes 0 (oneDNN's relu)"
expect_before "$work/relu.dom" 'id="caveats"' 'id="groups"'
shown_text "$work/expanded.html" "$work/expanded.shown"
expect_in "$work/expanded.shown" "numerical policy: round=" "layout: its contract claims" \
  "shape safety for conv"
shown_text "$work/closed.html" "$work/closed.shown"
expect_in "$work/closed.shown" "group 0: nodes"
if grep -qF "numerical policy: round=" "$work/closed.shown"; then
  fail "closed.html: a closed group's contents are shown"
fi

# 4. A node no capsule admits (sin on cuda): the page names it and places the other nodes; exit 1.
set +e
"$nnplan" report "$src/tests/data/graphs/cli_sin.json" --profile checked_cuda \
  -o "$work/unplanned.html" >/dev/null 2>&1
code=$?
set -e
[[ $code -eq 1 ]] || fail "report of the unplaceable graph exited $code, expected 1"
render "$work/unplanned.html" >"$work/unplanned.dom"
expect_in "$work/unplanned.dom" \
  "no plan: no admissible backend capsule for op sin on device cuda" \
  "node 2 has no admissible capsule" \
  "wrong-device" \
  "Placement of the other nodes" \
  "native_cuda.relu"

# 5. An ONNX model with two unsupported nodes (Det, and Mish named like markup): the page lists
#    both, exit 4. The model is written here, field by field (ONNX's protobuf schema).
python3 - "$work/unsupported.onnx" <<'PY'
import struct, sys
def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])
def field(number, value):
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return varint(number << 3 | 2) + varint(len(value)) + value
def node(op, inputs, outputs, name):
    return b"".join([*(field(1, i) for i in inputs), *(field(2, o) for o in outputs),
                     field(3, name), field(4, op)])
def value(name):  # float32 [1, 4]
    shape = field(1, field(1, 1)) + field(1, field(1, 4))
    return field(1, name) + field(2, field(1, field(1, 1) + field(2, shape)))
graph = b"".join([field(1, node("Det", ["x"], ["a"], "det")),
                  field(1, node("Mish", ["x"], ["b"], "mish<script>alert(1)</script>")),
                  field(1, node("Add", ["a", "b"], ["y"], "add")),
                  field(2, "g"), field(11, value("x")), field(12, value("y"))])
model = field(1, 8) + field(7, graph) + field(8, field(1, "") + field(2, 17))
open(sys.argv[1], "wb").write(model)
PY
set +e
"$nnplan" report "$work/unsupported.onnx" -o "$work/unsupported.html" >/dev/null 2>&1
code=$?
set -e
[[ $code -eq 4 ]] || fail "report of the unsupported model exited $code, expected 4"
render "$work/unsupported.html" >"$work/unsupported.dom"
expect_in "$work/unsupported.dom" \
  "not imported:" \
  "nnplan does not support 2 nodes of this model (opset 17)" \
  "<td>0</td><td><code>det</code></td><td><code>Det</code></td>" \
  "<td>1</td><td><code>mish&lt;script&gt;alert(1)&lt;/script&gt;</code></td><td><code>Mish</code>" \
  "operator Mish is not supported" \
  "1 node depends on them and was not imported"
if grep -qi "<script" "$work/unsupported.dom"; then fail "the node name became a script element"; fi

# 6. A screenshot: the page lays out and paints.
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
