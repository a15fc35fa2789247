#!/usr/bin/env bash
# Installs every Debian package Moreau needs to build, test and benchmark.
# Idempotent: apt-get skips what is already installed. Runs as root or through sudo.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libxml2-dev            # MJCF, URDF, SRDF
  libccd-dev             # GJK / EPA / MPR
  libqhull-dev           # convex hulls of collision meshes
  libassimp-dev          # STL / OBJ / DAE meshes
  libhdf5-dev hdf5-tools # recordings
  libopenmpi-dev openmpi-bin  # distributed batches
  libglfw3-dev python3-glad libstb-dev libgl-dev  # viewer
  xvfb libgl1-mesa-dri   # viewer tests without a display
  libmujoco-dev libmujoco-samples  # reference oracle for tests and benchmarks only
  python3-dev python3-numpy        # the Python module (import moreau)
  python3-pytest python3-h5py      # its tests (h5py reads recordings back independently)
  clang libclang-rt-dev  # libFuzzer harnesses (scripts/fuzz.sh)
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

# The package lists first, as the issue asks, so a fresh machine sees current versions. If
# the registry cannot be reached but everything is already installed, carry on.
updated=1
"${sudo_cmd[@]}" apt-get update -qq || updated=0

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  [ "$updated" = 1 ] || echo "setup: apt-get update failed; using the installed packages" >&2
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
