#!/usr/bin/env bash
# README command 1: set-up, build, then simulate a sample model headless and print its summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh build
./build/moreau run models/double_pendulum.xml --duration 5 "$@"
