#!/usr/bin/env bash
# Rewrites the tables at the end of docs/onnx-support.md ("The numbers") from the conformance
# TSV files and the corpora (scripts/conformance_summary.py prints them).
set -euo pipefail
cd "$(dirname "$0")/.."
doc=docs/onnx-support.md
marker='none crashes.'
line=$(grep -n "^$marker\$\|$marker\$" "$doc" | tail -1 | cut -d: -f1)
[ -n "$line" ] || { echo "no '$marker' line in $doc" >&2; exit 1; }
tmp=$(mktemp)
head -n "$line" "$doc" > "$tmp"
printf '\n' >> "$tmp"
python3 scripts/conformance_summary.py "$@" >> "$tmp"
mv "$tmp" "$doc"
