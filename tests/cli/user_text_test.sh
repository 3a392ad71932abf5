#!/usr/bin/env bash
# No text a user reads cites nnplan's internal notes (ctest `user_text`): fails when the README,
# docs/*.md, the --help of nnplan and of every subcommand it lists, `nnplan capsules` (with
# --evidence, and as JSON) under every maintained profile, `nnplan profiles`, `nnplan targets`,
# `nnplan probe`, the text reports of the example CNN (checked_cpu, fast_cpu, a rejection), the
# HTML report, or the Python module's help contains a section citation of the internal
# specification ("SPEC §6", a bare "§6"), "SPEC.md", "DESIGN.md" or an issue number ("issue 13",
# "Issues #4"). Prints each match with where it was found (file or command, and line).
# Usage: user_text_test.sh NNPLAN_BINARY SOURCE_DIR [PYTHON PYTHON_MODULE_DIR]
#   PYTHON and PYTHON_MODULE_DIR (the folder holding the nnplan package, build/python) add the
#   Python module's help; without them that part is skipped and says so.
set -euo pipefail
if [[ $# -ne 2 && $# -ne 4 ]]; then
  echo "usage: $0 NNPLAN_BINARY SOURCE_DIR [PYTHON PYTHON_MODULE_DIR]" >&2
  exit 2
fi
nnplan=$(realpath "$1")
src=$(realpath "$2")
python=${3:-}
python_dir=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failures=0
scanned=0
# scan LABEL FILE: prints `LABEL:LINE: "MATCH" in: TEXT` for every forbidden reference in FILE.
# The whole file is read at once, so a reference broken over two lines ("SPEC" then "§6") counts.
scan() {
  local label=$1 file=$2 found line
  scanned=$((scanned + 1))
  found=$(SCAN_LABEL=$label perl -0777 -ne '
    while (/(SPEC\s*§|SPEC\.md|DESIGN\.md|§\s*[0-9]|\b[Ii]ssues?\s+#?[0-9]+)/g) {
      my ($start, $end, $match) = ($-[0], $+[0], $1);
      my $line = 1 + (substr($_, 0, $start) =~ tr/\n//);
      my $from = rindex($_, "\n", $start) + 1;
      my $to = index($_, "\n", $end);
      $to = length($_) if $to < 0;
      my $text = substr($_, $from, $to - $from);
      s/\s+/ /g for $match, $text;
      $text = substr($text, 0, 200);
      print "$ENV{SCAN_LABEL}:$line: \"$match\" in: $text\n";
    }' "$file")
  if [[ -n $found ]]; then
    while IFS= read -r line; do
      echo "FAIL: $line" >&2
      failures=$((failures + 1))
    done <<<"$found"
  fi
}

# run_scan ARGS...: runs `nnplan ARGS...` in the source tree (any exit status: a rejection is
# text a user reads too) and scans what it printed on stdout and stderr together.
run_scan() {
  local out=$work/out.txt
  (cd "$src" && "$nnplan" "$@") >"$out" 2>&1 || true
  if [[ ! -s $out ]]; then
    echo "FAIL: nnplan $*: printed nothing" >&2
    failures=$((failures + 1))
    return
  fi
  scan "nnplan $*" "$out"
}

# 1. The README and every page of docs/.
for doc in "$src/README.md" "$src"/docs/*.md; do
  scan "${doc#"$src"/}" "$doc"
done

# 2. --help of nnplan and of every subcommand it lists.
run_scan --help
mapfile -t subcommands < <("$nnplan" --help |
  awk '/^Subcommands:/ {in_list = 1; next} in_list && NF == 0 {exit} in_list {print $1}')
if [[ ${#subcommands[@]} -lt 5 ]]; then
  echo "FAIL: nnplan --help lists ${#subcommands[@]} subcommands; expected the whole list" >&2
  failures=$((failures + 1))
fi
for sub in "${subcommands[@]}"; do
  run_scan "$sub" --help
done

# 3. The listings: capsules (their notes, summaries and evidence) under every maintained profile.
run_scan profiles
run_scan targets
run_scan probe
mapfile -t profiles < <("$nnplan" profiles | awk '{print $1}')
for profile in "${profiles[@]}"; do
  run_scan capsules --profile "$profile"
  run_scan capsules --profile "$profile" --json
  run_scan capsules --evidence --profile "$profile"
  run_scan capsules --evidence --profile "$profile" --json
done

# 4. Reports: text, explanation, rejection and failure messages, and the HTML page.
run_scan plan examples/cnn.json
run_scan plan examples/cnn.json --profile fast_cpu
run_scan plan examples/cnn.json --assurance verified
run_scan explain examples/cnn.json --node 1 --profile fast_cpu
run_scan plan-ops fft_fno
run_scan run examples/cnn.json --input examples/cnn_input.npy
"$nnplan" report "$src/examples/cnn.json" -o "$work/cnn.html" >/dev/null 2>&1 || true
"$nnplan" report "$src/examples/cnn.json" --profile fast_cpu --expanded \
  -o "$work/cnn_fast.html" >/dev/null 2>&1 || true
for page in cnn.html cnn_fast.html; do
  if [[ -s $work/$page ]]; then
    scan "nnplan report (${page})" "$work/$page"
  else
    echo "FAIL: nnplan report wrote no page $page" >&2
    failures=$((failures + 1))
  fi
done

# 5. The Python module: help(nnplan), its errors and its native part, every docstring included.
if [[ -n $python ]]; then
  if PYTHONPATH=$python_dir PYTHONDONTWRITEBYTECODE=1 "$python" - >"$work/python_help.txt" <<'PY'
import pydoc
import nnplan
import nnplan.errors
from nnplan import _nnplan

for module in (nnplan, nnplan.errors, _nnplan):
    print(pydoc.render_doc(module, renderer=pydoc.plaintext))
for name in getattr(nnplan, "__all__", dir(nnplan)):
    print(pydoc.render_doc(getattr(nnplan, name), renderer=pydoc.plaintext))
PY
  then
    scan "python help(nnplan)" "$work/python_help.txt"
  else
    echo "FAIL: the Python module in $python_dir did not import" >&2
    failures=$((failures + 1))
  fi
else
  echo "note: the Python module's help is not checked (no PYTHON PYTHON_MODULE_DIR given)"
fi

if [[ $failures -ne 0 ]]; then
  echo "user_text: $failures references to internal notes in text users read (above)" >&2
  exit 1
fi
echo "user_text: ok ($scanned texts checked)"
