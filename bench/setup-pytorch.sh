#!/usr/bin/env bash
# Installs what the comparison with PyTorch's DataLoader needs: Debian's
# PyTorch 1.13 and torchvision 0.14 (not part of the default setup: large).
set -euo pipefail
packages=(python3-torch python3-torchvision python3-pil python3-numpy python3-h5py)
missing=()
for p in "${packages[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && { echo "setup-pytorch: all present"; exit 0; }
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
