#!/usr/bin/env bash
# Builds pyk2cuda and runs every test suite that needs no GPU: unit (cmocka), golden, diag,
# nvrtc, diff (against Numba's CUDA simulator), then a smoke run of each fuzz harness
# (scripts/fuzz.sh). Installs what is missing first (scripts/deps.sh).
# The gpu suite runs where a GPU is found and is skipped (exit 77) elsewhere.
# Ends with the line "N passed, N failed" (after a line "N skipped").
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh || { echo "0 passed, 1 failed"; exit 1; }
BUILD=${BUILD:-build}
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" ${MESON_ARGS:-} >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
fi
meson compile -C "$BUILD" >/dev/null || { meson compile -C "$BUILD"; echo "0 passed, 1 failed"; exit 1; }
log=$(mktemp)
meson test -C "$BUILD" --print-errorlogs "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
ok=$(awk '/^Ok:/ {print $2}' "$log"); fail=$(awk '/^Fail:/ {print $2}' "$log")
timeout=$(awk '/^Timeout:/ {print $2}' "$log"); skipped=$(awk '/^Skipped:/ {print $2}' "$log")
rm -f "$log"
# A few seconds of each libFuzzer harness (scripts/fuzz.sh, tests/fuzz/README.md), one count
# each; only for the whole run (no meson test arguments).
if [ $# -eq 0 ]; then
  fuzz_log=$(mktemp)
  bash scripts/fuzz.sh smoke 2>&1 | tee "$fuzz_log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
  # Counted wherever they stand on a line: a tool's progress bar without a newline may precede one.
  ok=$(( ${ok:-0} + $(grep -o 'fuzz [a-z]*: ok' "$fuzz_log" | wc -l) ))
  fail=$(( ${fail:-0} + $(grep -o 'fuzz [a-z]*: FAILED' "$fuzz_log" | wc -l) + $(grep -c '^fuzz: ' "$fuzz_log") ))
  rm -f "$fuzz_log"
fi
# Skipped suites (the gpu suite where no GPU is found) are counted on their own line, so that
# the last line is exactly "N passed, N failed", as .ci/run's contract says.
echo "${skipped:-0} skipped"
echo "${ok:-0} passed, $(( ${fail:-0} + ${timeout:-0} )) failed"
exit "$rc"
