#!/usr/bin/env bash
# The CMake package as a user meets it (ctest `cmake_consumer`): installs BUILD_DIR into a fresh
# prefix, builds examples/cmake-consumer against it with find_package(nnplan CONFIG), and once
# more with nothing but `pkg-config --cflags --libs nnplan`, runs both builds on examples/cnn.json
# and checks what they print; then imports the installed Python package when one was installed.
# Usage: cmake_consumer_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$(realpath "$1")
source_dir=$(realpath "$2")
work=$3
rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in lib/cmake/nnplan/nnplanConfig.cmake lib/cmake/nnplan/nnplanConfigVersion.cmake \
         lib/pkgconfig/nnplan.pc bin/nnplan include/nnplan/runtime/executor.hpp \
         lib/libnnplan_runtime.a include/nnplan/report/report_html.hpp \
         lib/libnnplan_report.a; do
  [[ -e $prefix/$f ]] || { echo "cmake --install did not install $f" >&2; exit 1; }
done

expect_run() {  # BINARY: runs it on the small CNN and checks its two lines
  local out
  out=$("$1" "$source_dir/examples/cnn.json" "$source_dir/examples/cnn_input.npy")
  echo "$out"
  grep -q "^planned [0-9]* groups under checked_cpu: accepted$" <<<"$out" ||
    { echo "$1: no accepted plan line" >&2; exit 1; }
  grep -q "^output 'output' \[10\]: first " <<<"$out" ||
    { echo "$1: no output line" >&2; exit 1; }
}

cmake -S "$source_dir/examples/cmake-consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log"
cmake --build "$work/consumer" >"$work/build.log"
expect_run "$work/consumer/plan_and_run"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[[ $(pkg-config --modversion nnplan) == "$(cat "$build/package/version.txt")" ]] ||
  { echo "nnplan.pc's version differs from the project's" >&2; exit 1; }
# shellcheck disable=SC2046  # pkg-config prints words meant to be split
g++ -o "$work/plan_and_run_pc" "$source_dir/examples/cmake-consumer/plan_and_run.cpp" \
  $(pkg-config --cflags --libs nnplan)
expect_run "$work/plan_and_run_pc"

python_dir=$(find "$prefix" -type d -name nnplan -path "*-packages/nnplan" | head -n 1)
if [[ -n $python_dir ]]; then
  PYTHONPATH=$(dirname "$python_dir") "${PYTHON:-python3}" -c \
    "import nnplan; assert nnplan.plan('$source_dir/examples/cnn.json').accepted; print('python package', nnplan.__version__, 'from', nnplan.__file__)"
fi
echo "cmake consumer: ok"
