#!/usr/bin/env bash
# Installs the Debian 12 packages bench/models/export_models.py needs (Debian's torch 1.13,
# torchvision 0.14 and onnx), skipping those present. Run as root or with sudo available.
# If another apt/dpkg run holds the lock, apt-get waits for it (up to 20 minutes) instead of failing.
set -euo pipefail

packages=(python3-torch python3-torchvision python3-onnx)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

as_root=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-export-deps: need root to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
echo "install-export-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
lock=(-o DPkg::Lock::Timeout=1200)
"${as_root[@]}" apt-get "${lock[@]}" update -q >/dev/null
"${as_root[@]}" apt-get "${lock[@]}" install -y -q --no-install-recommends "${missing[@]}" >/dev/null
