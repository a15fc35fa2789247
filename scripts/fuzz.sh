#!/usr/bin/env bash
# The libFuzzer harnesses (tests/fuzz/fuzz_*.c): builds them with clang under ASan + UBSan in
# build-fuzz/, runs each for a fixed time, and exits 1 on any finding (a crash, undefined
# behaviour, a leak, an input that takes over 20 s or a single allocation over 2 GB).
#
#   scripts/fuzz.sh                       the CI smoke run: each of the 6 targets for 10 s
#   scripts/fuzz.sh --seconds 3600        the longer run: an hour per target
#   scripts/fuzz.sh --seconds 600 mjcf    chosen targets (mjcf urdf mesh recording ctrl jobs)
#
# Inputs that find new paths are kept in build-fuzz/corpus/NAME between runs. A finding is
# written to build-fuzz/findings/NAME/; once fixed, copy it into tests/fuzz/regressions/NAME/,
# where ctest replays it in every build (test_fuzz_NAME).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=10
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done

CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DMOREAU_FUZZ=ON >/dev/null
if ! cmake --build build-fuzz -j"$(nproc)" >build-fuzz/build.log 2>&1; then
  tail -40 build-fuzz/build.log
  echo "fuzz: the harnesses do not build (build-fuzz/build.log)" >&2
  exit 1
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# assimp leaks what its importers allocate when they throw on a bad file: its, not ours
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0
status=0
ran=0
while read -r name seeds; do
  if [ ${#targets[@]} -gt 0 ] && [[ " ${targets[*]} " != *" $name "* ]]; then continue; fi
  mkdir -p "build-fuzz/corpus/$name" "build-fuzz/findings/$name"
  log="build-fuzz/fuzz_$name.log"
  # shellcheck disable=SC2086 # the seed directories are separate words
  if "build-fuzz/tests/fuzz/fuzz_$name" "build-fuzz/corpus/$name" $seeds \
      -dict=tests/fuzz/moreau.dict -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
      -max_len=65536 -artifact_prefix="build-fuzz/findings/$name/" -print_final_stats=1 \
      >"$log" 2>&1; then
    echo "fuzz: $name: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') inputs in $seconds s, nothing found"
  else
    echo "fuzz: $name found a problem ($log; the input is in build-fuzz/findings/$name/):"
    grep -E 'ERROR|SUMMARY|runtime error|error without|#[0-9]+ ' "$log" | head -30 || tail -30 "$log"
    status=1
  fi
  ran=$((ran + 1))
done <build-fuzz/fuzz_targets.txt
if [ "$ran" -eq 0 ]; then
  echo "fuzz: no target by the names given (${targets[*]})" >&2
  exit 2
fi
exit $status
