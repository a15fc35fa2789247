#!/usr/bin/env bash
# README command 2: set-up, build, then every test.
#   scripts/test.sh              Release build in build/, all tests
#   scripts/test.sh --sanitize   the same under AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--sanitize" ]; then
  bash scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DMOREAU_SANITIZE=ON -DMOREAU_VIEWER=OFF
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # leaks inside libraries we do not own (assimp on malformed meshes): tests/fuzz/lsan.supp
  export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)"
else
  bash scripts/build.sh build
  ctest --test-dir build --output-on-failure -j"$(nproc)"
fi
