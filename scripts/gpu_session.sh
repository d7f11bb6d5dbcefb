#!/usr/bin/env bash
# The plan for a first, short run on a GPU machine (issue 25), and the same plan on the CUDA
# driver stand-in, so that it is known to work before a GPU is ever lent.
#
#   bash scripts/gpu_session.sh --prepare [CARRY]       here: gather the binaries the plan runs
#   bash scripts/gpu_session.sh LOGDIR [CARRY]          there: the plan (about 8 minutes)
#   bash scripts/gpu_session.sh --standin LOGDIR [BUILD] here: the same plan on the stand-in
#
# With the device tool: `run(command="bash scripts/gpu_session.sh $OUT .devcarry",
# carry=[".devcarry"], timeout_s=600)`; prepare first, here (CARRY defaults to .devcarry, which
# git ignores).
#
# What such a machine is (the device tool's KINDS.md, written ahead of any run of ours): one
# H200, runs of at most 10 minutes and 15 minutes of GPU time in all, no package registry,
# python3 3.12 with numba-cuda, CuPy, PyTorch, pytest and NVIDIA's NVRTC wheel, nvcc and
# compute-sanitizer. So nothing is built there: CARRY holds this machine's build (BUILD, default
# build/: the CLI, libpyk2cuda, the C runtime's test, samples/streams.c, the benchmarks, cmocka)
# and the Python package built for CPython 3.12 (PY312, default pyenv's 3.12.1) through
# meson-python, unpacked into CARRY/site.
#
# The plan: facts first (driver, NVRTC, which fit; the plan stops there without a device), then
# the checks by value: the C runtime, module loads against the oracle, the Python fast path,
# CuPy/PyTorch interop, faults, grid sync, compute-sanitizer on a few launches, the first
# launch and bandwidth numbers, samples/python, the rest of tests/gpu/cases.txt. Each step runs
# under its own timeout, cut to what is left of BUDGET (default 480 s), and as it ends writes one
# line to LOGDIR/results.txt (PASS, FAIL rc=N, TIMEOUT, SKIP and why, with its log's last line)
# and its output to LOGDIR/steps.log: two files, so that what the tool brings back is complete
# even when the run is cut short. The exit status is 1 when any step failed or timed out.
#
# --standin runs the same steps on this machine against the stand-in (tests/standin, selected by
# PYK2CUDA_LIBCUDA), with the build's own Python package and /usr/bin/python3; tools the machine
# lacks (nvidia-smi, compute-sanitizer, CuPy, PyTorch) make their steps SKIP, and TIME_SCALE
# (default 4 there) stretches every limit for the simulator's builds of each module. The
# standin suite runs it (standin-session, with STEPS_SKIP=cases-all: standin-cases runs those
# cases whole) and fails on any FAIL or TIMEOUT line. STEPS_SKIP="NAME ..." leaves steps out; a
# step the budget leaves no time for counts as a failure: the plan must fit.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# ---- Here: what the GPU machine is given -----------------------------------------------------

# Copies BUILD's binaries the plan runs, and the libraries they load, into DEST/bin.
carry_binaries() {
  local build=$1 dest=$2
  mkdir -p "$dest/bin"
  cp "$build/tools/pyk2cuda" "$build/tools/streams" "$build/tests/gpu/test_device" \
     "$build/bench/gpu" "$build/bench/launch_c" "$dest/bin/" || return 1
  find "$build/src" -maxdepth 1 -name 'libpyk2cuda.so*' ! -type d -exec cp -P {} "$dest/bin/" \; 
  cp -P /usr/lib/x86_64-linux-gnu/libcmocka.so* "$dest/bin/"
}

# The Python package for CPython 3.12, unpacked into DEST/site (a meson-python build: minutes).
carry_python312() {
  local dest=$1 py312=${PY312:-/root/.pyenv/versions/3.12.1/bin/python3}
  [ -x "$py312" ] || { echo "no CPython 3.12 at $py312 (set PY312)" >&2; return 1; }
  "$py312" -m pip wheel -q --no-deps -w "$dest/wheel312" . || return 1
  mkdir -p "$dest/site" && (cd "$dest/site" && unzip -q "$dest"/wheel312/pyk2cuda-*.whl)
  rm -rf "$dest/wheel312"
}

prepare() {
  local dest build=${BUILD:-build}
  dest=$(realpath -m "$1")
  rm -rf "$dest"; mkdir -p "$dest"
  meson compile -C "$build" >/dev/null || return 1
  carry_binaries "$build" "$dest" && carry_python312 "$dest" || return 1
  git rev-parse --short HEAD > "$dest/COMMIT"
  du -sh "$dest"
}

# ---- The plan's machinery --------------------------------------------------------------------

# Records one result line, and echoes it.
result() { echo "$*" | tee -a "$LOG/results.txt"; }

# step NAME LIMIT CMD...: runs CMD under a timeout of LIMIT * TIME_SCALE seconds, cut to what
# is left of the budget; appends its output to steps.log and one line to results.txt. Exit
# status 77 is a skip (the command says why in its last line).
step() {
  local name=$1 limit=$(( $2 * TIME_SCALE )); shift 2
  local left=$(( BUDGET * TIME_SCALE - (SECONDS - START) ))
  if [[ " ${STEPS_SKIP:-} " == *" $name "* ]]; then result "SKIP $name (STEPS_SKIP)"; return 0; fi
  if [ "$left" -lt 15 ]; then result "SKIP $name (no time left of the budget)"; FAILED=1; return 0; fi
  [ "$limit" -le "$left" ] || limit=$left
  local t0=$SECONDS rc out=$LOG/step.out
  timeout --kill-after=5 "$limit" bash -c '"$@"' "$name" "$@" > "$out" 2>&1
  rc=$?
  { echo "==== $name (limit ${limit}s, rc $rc, $((SECONDS - t0))s): $*"; cat "$out"; } >> "$LOG/steps.log"
  local last; last=$(grep -v '^\s*$' "$out" | tail -1 | cut -c1-160)
  case $rc in
    0) result "PASS $name $((SECONDS - t0))s | $last" ;;
    77) result "SKIP $name | $last" ;;
    124|137) result "TIMEOUT $name ${limit}s | $last"; FAILED=1 ;;
    *) result "FAIL $name rc=$rc $((SECONDS - t0))s | $last"; FAILED=1 ;;
  esac
  rm -f "$out"
  return "$rc"
}

# Exits 77 (skip) with a reason when a command is missing.
need() { command -v "$1" >/dev/null || { echo "skipped: $1 is not installed here"; exit 77; }; }

# Exits 77 unless python3 imports every module named.
need_python() {
  "$PY" -c "import $1" 2>/dev/null || { echo "skipped: $PY cannot import $1"; exit 77; }
}

# pytest on the package, on the device (GPU-marked tests included), with its last line as the
# summary; extra arguments select tests.
pytest_gpu() {
  need_python pytest
  PYK2CUDA_DEVICE=gpu "$PY" -m pytest -q -p no:cacheprovider -rs "$@"
}

# ---- The steps -------------------------------------------------------------------------------

# What runs here: driver, NVRTC (where found), whether they fit, the device, the tools. Fails
# when no device is found: the rest of the plan needs one.
facts() {
  date -u; uname -r
  command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
  "$PY" -c 'import sys; print("python", sys.version.split()[0])'
  "$PY" -m pip list 2>/dev/null | grep -iE '^(numpy|numba|numba-cuda|cupy\S*|torch|pytest|nvidia-cuda-nvrtc\S*) ' || true
  for t in compute-sanitizer nvcc cuobjdump g++; do printf '%-18s %s\n' "$t" "$(command -v $t || echo missing)"; done
  local info; info=$("$BIN/pyk2cuda" info) || return 1
  echo "$info"
  "$PY" -c 'import pyk2cuda; print("package:", pyk2cuda.__file__)' || return 1
  case $info in *"no GPU: "*) echo "no device: the plan stops"; return 1 ;; esac
  echo "$info" | grep '^NVRTC and driver: they fit' || return 1
}

# The C API on the device: tests/gpu/test_device.c (memory, streams, events, modules, the JIT log,
# the dispatcher, bounds checks, a kernel fault).
c_runtime() { P2C_SOURCE_DIR=$ROOT "$BIN/test_device"; }

# Module loads and launches of `pyk2cuda run --device gpu`, against Numba's simulator or NumPy:
# the cases of tests/gpu/cases.txt named by the filters.
cases() {
  need_python numba
  "$PY" tests/gpu/run_gpu.py --pyk2cuda "$BIN/pyk2cuda" "$@"
}

# samples/streams.c: two streams, pinned memory, events, through the C API.
streams_sample() { "$BIN/streams" samples/normalize.py 1000000; }

# compute-sanitizer's memcheck on a few launches of the CLI and the streams sample; racecheck on
# the shared-memory reduction.
sanitizer() {
  need compute-sanitizer
  local cs="compute-sanitizer --error-exitcode 9 --print-limit 20" out; out=$(mktemp -d)
  $cs --tool memcheck "$BIN/pyk2cuda" run samples/vecadd.py vecadd --device gpu --grid 4 \
    --block 256 arange:int32[1000] arange:int32[1000] zeros:float64[1000] --out-dir "$out/v" &&
    $cs --tool memcheck "$BIN/streams" samples/normalize.py 100000 &&
    $cs --tool racecheck "$BIN/pyk2cuda" run samples/normalize.py partial_sums --device gpu \
      --grid 64 --block 256 arange:float32[16384] zeros:float32[64] --out-dir "$out/n"
}

# The first numbers: launch overhead and bandwidth (C), the Python launch beside numba-cuda's.
numbers() {
  "$BIN/gpu" --only launch --reps 20 && "$BIN/gpu" --only bandwidth --reps 10 &&
    "$PY" bench/python_launch.py --device gpu -n 500 --launch-c "$BIN/launch_c" $NUMBA_FLAG
}

# Every script of samples/python on the device (the Dask one needs dask: without it, it fails).
samples_python() {
  local rc=0 n=0 s
  for s in samples/python/*.py; do
    echo "-- $s"
    n=$((n + 1))
    PYK2CUDA_DEVICE=gpu timeout 120 "$PY" "$s" > /dev/null || { echo "FAILED: $s"; rc=1; }
  done
  echo "$n scripts of samples/python ran, rc $rc"
  return $rc
}

# CuPy and PyTorch arrays in and out of kernels (tests/python/test_gpu.py); both must be there.
interop() {
  need_python cupy
  need_python torch
  pytest_gpu tests/python/test_gpu.py -k 'cupy or torch'
}

# The plan, in order of value.
plan() {
  step facts 30 facts || { result "STOP: no usable device"; return 1; }
  step c-runtime 60 c_runtime
  step module-load 90 cases --filter 'sample_*'
  step python-fast-path 90 pytest_gpu tests/python/test_gpu.py -k 'not cupy and not torch and not fault'
  step interop 60 interop
  step faults 90 pytest_gpu tests/python/test_faults.py tests/python/test_gpu.py -k 'fault'
  step grid-sync 60 pytest_gpu tests/python/test_cooperative.py
  step streams 30 streams_sample
  step sanitizer 90 sanitizer
  step numbers 60 numbers
  step samples-python 90 samples_python
  step cases-all 240 cases
  return 0
}

# Sets what the plan's steps read, for a GPU machine or for the stand-in.
setup() {
  LOG=$(realpath -m "$1"); mkdir -p "$LOG"; : > "$LOG/results.txt"; : > "$LOG/steps.log"
  BUDGET=${BUDGET:-480} START=$SECONDS FAILED=0
  export PYK2CUDA_CACHE_DIR=${PYK2CUDA_CACHE_DIR:-$LOG/cache} PYTHONUNBUFFERED=1 BIN PY NUMBA_FLAG
  export -f facts c_runtime cases streams_sample sanitizer numbers samples_python interop pytest_gpu \
    need need_python
  export ROOT LOG
}

# The folders the package offers NVRTC's search at import (its sys.path: NVIDIA's NVRTC wheel
# there), asked of the package and set for the plan's C programs too, so that the CLI and
# test_device find the NVRTC the Python steps find (docs/runtime.md, "Where NVRTC is found").
offer_site_packages() {
  local dirs
  dirs=$("$PY" -c 'import os, pyk2cuda; print(os.environ["PYK2CUDA_SITE_PACKAGES"])') || return 0
  export PYK2CUDA_SITE_PACKAGES=${PYK2CUDA_SITE_PACKAGES:-$dirs}
}

on_gpu() {
  local carry; carry=$(realpath "${2:-.devcarry}") || exit 2
  BIN=$carry/bin PY=python3 TIME_SCALE=${TIME_SCALE:-1} NUMBA_FLAG=--numba
  [ -d "$carry/site/pyk2cuda" ] || { echo "no package in $carry/site: run --prepare here first" >&2; exit 2; }
  export PYTHONPATH=$carry/site${PYTHONPATH:+:$PYTHONPATH}
  export LD_LIBRARY_PATH=$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  offer_site_packages
  setup "$1"
}

on_standin() {
  local build; build=$(realpath "${2:-build}") || exit 2
  setup "$1"
  carry_binaries "$build" "$LOG/carry" || exit 2
  BIN=$LOG/carry/bin PY=/usr/bin/python3 TIME_SCALE=${TIME_SCALE:-4} NUMBA_FLAG=
  export PYK2CUDA_LIBCUDA=${PYK2CUDA_LIBCUDA:-$build/tests/standin/libcuda.so.1}
  export PYTHONPATH=$build/python${PYTHONPATH:+:$PYTHONPATH}
  export LD_LIBRARY_PATH=$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  offer_site_packages
}

case ${1:-} in
  --prepare) prepare "${2:-.devcarry}"; exit ;;
  --standin) on_standin "${2:?usage: gpu_session.sh --standin LOGDIR [BUILD]}" "${3:-}" ;;
  ''|-*) echo "usage: gpu_session.sh LOGDIR [CARRY] | --prepare [CARRY] | --standin LOGDIR [BUILD]" >&2; exit 2 ;;
  *) on_gpu "$1" "${2:-}" ;;
esac
plan
echo "== $(grep -c '^PASS' "$LOG/results.txt") passed, $(grep -cE '^(FAIL|TIMEOUT)' "$LOG/results.txt") failed, $((SECONDS - START))s"
exit "$FAILED"
