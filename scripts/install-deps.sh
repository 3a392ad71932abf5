#!/usr/bin/env bash
# Installs the Debian 12 packages nnplan needs to build and test, skipping those present.
# Run as root (or with sudo available) on a fresh Debian bookworm machine.
set -euo pipefail

packages=(
  cmake ninja-build g++ ccache
  nlohmann-json3-dev libcli11-dev libfmt-dev libssl-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libcpuinfo-dev pkg-config
  graphviz chromium
  libdnnl-dev
  pybind11-dev python3-dev python3-numpy python3-pytest python3-torch python3-torchvision
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

as_root=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q >/dev/null
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
