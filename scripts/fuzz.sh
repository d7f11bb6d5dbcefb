#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz with clang (AddressSanitizer and UBSan) in
# build-fuzz/ and runs each one.
#
#   bash scripts/fuzz.sh smoke            # each harness a few seconds (scripts/test.sh runs this)
#   bash scripts/fuzz.sh long SECONDS     # each harness SECONDS, corpus kept in fuzz-corpus/NAME
#   bash scripts/fuzz.sh one NAME SECONDS # one harness
#   FUZZ_CLOCK=cpu bash scripts/fuzz.sh ...  # SECONDS of CPU time, not wall time: the fuzzer is
#                                          # interrupted once `ps` shows it has used them (for a
#                                          # shared machine, with nice -n 19)
#
# The seeds: samples, golden and diagnostics inputs (translate), tests/fuzz/seeds/* (npy, sig),
# the golden cases with their signatures (nvrtc, made by tests/fuzz/nvrtc_seeds.py). A crash
# leaves its input as fuzz-corpus/crash-*: turn it into a regression test (tests/fuzz/README.md).
# Prints "fuzz NAME: ok|FAILED ..." per harness; exits non-zero when any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-smoke}
BUILD=${FUZZ_BUILD:-build-fuzz}
SMOKE_SECONDS=${FUZZ_SMOKE_SECONDS:-5}
command -v clang >/dev/null || { echo "fuzz: clang is missing (scripts/deps.sh installs it)"; exit 1; }
if [ ! -f "$BUILD/build.ninja" ]; then
  # Its output (progress bars ending in a carriage return, not a newline, among them) goes to a
  # log, so that the "fuzz NAME: ..." lines below start their lines, where scripts/test.sh counts.
  CC=clang CXX=clang++ meson setup "$BUILD" -Dfuzzing=true -Db_sanitize=address,undefined \
    -Db_lundef=false -Dbuildtype=debugoptimized >"${TMPDIR:-/tmp}/fuzz-setup.$$.log" 2>&1 \
    || { cat "${TMPDIR:-/tmp}/fuzz-setup.$$.log"; echo "fuzz: meson setup failed"; exit 1; }
  rm -f "${TMPDIR:-/tmp}/fuzz-setup.$$.log"
fi
# A build folder made before a harness was added knows no target of that name until meson
# regenerates it, which `meson compile TARGET` does not do by itself.
ninja -C "$BUILD" build.ninja >/dev/null 2>&1
names=(translate npy sig nvrtc kernels)
meson compile -C "$BUILD" "${names[@]/#/tests/fuzz/fuzz_}" >/dev/null \
  || { meson compile -C "$BUILD" "${names[@]/#/tests/fuzz/fuzz_}"; echo "fuzz: build failed"; exit 1; }

work=$(mktemp -d)
fuzz_pid=
trap '[ -n "$fuzz_pid" ] && kill "$fuzz_pid" 2>/dev/null; rm -rf "$work"' EXIT
python3 tests/fuzz/nvrtc_seeds.py "$work/nvrtc-seeds"
seeds() {
  case $1 in
    translate) echo samples tests/golden tests/diag tests/diff/cases ;;
    npy) echo tests/fuzz/seeds/npy ;;
    sig) echo tests/fuzz/seeds/sig ;;
    nvrtc) echo "$work/nvrtc-seeds" ;;
    kernels) echo tests/fuzz/seeds/kernels ;;
  esac
}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export PYK2CUDA_CACHE_DIR="$work/cache"

CLOCK=${FUZZ_CLOCK:-wall}
case $CLOCK in wall|cpu) ;; *) echo "fuzz: FUZZ_CLOCK is wall or cpu, not '$CLOCK'"; exit 2 ;; esac

# cpu_seconds PID: the user+system CPU seconds the process has used so far.
cpu_seconds() {
  local t
  t=$(ps -o times= -p "$1" 2>/dev/null) || return 1
  echo $((t))
}

# run NAME SECONDS CORPUS_DIR
run() {
  local name=$1 secs=$2 corpus=$3 log="$work/$1.log"
  mkdir -p "$corpus"
  local dict=()
  case $name in translate|nvrtc) dict=(-dict=tests/fuzz/python.dict) ;; esac
  # libFuzzer's -max_total_time is wall time; with FUZZ_CLOCK=cpu it is only a backstop and
  # the loop below interrupts the fuzzer (SIGINT: it prints its final stats, exit 72) once its
  # CPU time reaches SECONDS.
  local wall=$secs timeout=30
  # At nice 19 on a busy machine a slice of wall time says nothing of the input: a kernel that
  # NVRTC compiles in a second waited 39 s for a core. CPU-clock runs allow 600 s an input.
  [ "$CLOCK" = cpu ] && wall=$((secs * 100)) && timeout=600
  # shellcheck disable=SC2046
  "$BUILD/tests/fuzz/fuzz_$name" -max_total_time="$wall" -timeout="$timeout" -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$corpus/" "${dict[@]}" \
      "$corpus" $(seeds "$name") >"$log" 2>&1 &
  local pid=$! used=0
  fuzz_pid=$pid
  if [ "$CLOCK" = cpu ]; then
    while kill -0 "$pid" 2>/dev/null; do
      used=$(cpu_seconds "$pid")
      [ "${used:-0}" -ge "$secs" ] && { kill -INT "$pid"; break; }
      sleep 5
    done
  fi
  wait "$pid"
  local rc=$?
  fuzz_pid=
  # 72 is libFuzzer's exit code when interrupted, which is how a CPU budget ends.
  [ "$CLOCK" = cpu ] && [ $rc -eq 72 ] && rc=0
  local execs cov
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  cp "$log" "$corpus/last.log"
  if [ $rc -eq 0 ]; then
    # with the CPU clock, what the fuzzer used when last sampled: less than SECONDS when it was
    # interrupted from outside
    local took=$secs
    [ "$CLOCK" = cpu ] && took=$used
    echo "fuzz $name: ok, ${execs:-0} runs in ${took} s ($CLOCK), ${cov:-cov: ?}"
  else
    echo "fuzz $name: FAILED (exit $rc), see the log in $corpus/last.log"
    tail -40 "$log"
  fi
  return $rc
}

failed=0
case $mode in
  smoke) for n in "${names[@]}"; do run "$n" "$SMOKE_SECONDS" "$work/corpus-$n" || failed=1; done ;;
  long) for n in "${names[@]}"; do run "$n" "${2:?seconds}" "fuzz-corpus/$n" || failed=1; done ;;
  one) run "${2:?name}" "${3:?seconds}" "fuzz-corpus/$2" || failed=1 ;;
  *) echo "usage: scripts/fuzz.sh smoke | long SECONDS | one NAME SECONDS"; exit 2 ;;
esac
exit $failed
