#!/usr/bin/env bash
# Set-up + build: installs the Debian packages (scripts/setup.sh), configures and builds
# into build/ (or into $1 with the remaining arguments passed to cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
dir=${1:-build}
shift || true
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)"
