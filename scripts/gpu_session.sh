#!/usr/bin/env bash
# Every GPU check of the project in one run on a machine with an NVIDIA GPU, each step's log
# kept: the gpu suite, the demo on the GPU against the simulator, compute-sanitizer on every
# sample, the benchmarks against hand-written CUDA C and against numba-cuda, the PTX and SASS of
# every sample, then the other suites.
#
#   bash scripts/gpu_session.sh --prepare CARRY   # here: gather what the GPU machine lacks
#   bash scripts/gpu_session.sh LOGDIR [CARRY]    # there: build, test, measure
#
# The lent GPU machines reach no package registry and have neither Debian's tree-sitter nor
# cmocka: CARRY (default .devcarry, git-ignored) holds their headers and libraries, and wheels of
# pkgconf and meson, so that the project builds there from source with that machine's compilers.
# It also holds the Python package built here for CPython 3.12 (those machines' python3), with
# PY312 (default: pyenv's 3.12.1) through meson-python, unpacked into CARRY/site, and
# build/'s launch_c, libpyk2cuda and fake driver for the package's benchmark and tests.
# Each step writes LOGDIR/NAME.log; LOGDIR/summary.txt has a line per step: exit code, seconds.
# STEPS="gpu demo ..." runs only the named steps (build always runs).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

prepare() {
  local dest lib=/usr/lib/x86_64-linux-gnu
  dest=$(realpath -m "$1")
  rm -rf "$dest"; mkdir -p "$dest/include" "$dest/lib" "$dest/wheels"
  cp -r /usr/include/tree_sitter /usr/include/cmocka.h "$dest/include/"
  cp "$lib/libtree-sitter.a" "$dest/lib/"
  cp -P "$lib"/libcmocka.so* "$dest/lib/"
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d "$dest/wheels" pkgconf==3.0.7.post0 meson==1.0.1
  cp -r third_party "$dest/third_party"
  local py312=${PY312:-/root/.pyenv/versions/3.12.1/bin/python3}
  if [ -x "$py312" ]; then
    "$py312" -m pip wheel -q --no-deps -w "$dest/wheel312" . &&
      mkdir -p "$dest/site" && (cd "$dest/site" && unzip -q "$dest"/wheel312/pyk2cuda-*.whl)
    rm -rf "$dest/wheel312"
    mkdir -p "$dest/bin"
    cp build/bench/launch_c build/tests/libfakecuda.so "$dest/bin/" 2>/dev/null
    cp -P build/src/libpyk2cuda.so* "$dest/bin/" 2>/dev/null
  else
    echo "no CPython 3.12 at $py312 (set PY312): the python step will be skipped there" >&2
  fi
  git rev-parse --short HEAD > "$dest/COMMIT"
  du -sh "$dest"
}

if [ "${1:-}" = --prepare ]; then prepare "${2:-.devcarry}"; exit; fi

LOG=$(realpath -m "${1:?usage: gpu_session.sh LOGDIR [CARRY] | --prepare CARRY}")
CARRY=$(realpath "${2:-.devcarry}")
mkdir -p "$LOG"
SUMMARY=$LOG/summary.txt
: > "$SUMMARY"

# step NAME TIMEOUT CMD...: runs CMD with its output in LOGDIR/NAME.log, records the result.
step() {
  local name=$1 limit=$2; shift 2
  if [ -n "${STEPS:-}" ] && [ "$name" != build ] && [[ " $STEPS " != *" ${name%%-*} "* ]]; then
    return 0
  fi
  local t0=$SECONDS rc
  echo "== $name: $*" | cut -c1-200
  timeout --kill-after=10 "$limit" bash -c '"$@"' "$name" "$@" > "$LOG/$name.log" 2>&1
  rc=$?
  printf '%-28s rc=%-4s %5ss\n' "$name" "$rc" "$((SECONDS - t0))" | tee -a "$SUMMARY"
  return $rc
}

environment() {
  date -u; uname -a
  nvidia-smi || true
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv || true
  nvcc --version || true
  compute-sanitizer --version || true
  for t in gcc g++ cc c++ pkg-config meson ninja python3 cuobjdump nvdisasm ncu; do
    printf '%-12s %s\n' "$t" "$(command -v $t || echo missing)"
  done
  gcc --version | head -1 || true
  python3 -c 'import sys, numpy; print(sys.version); print("numpy", numpy.__version__)'
  python3 -m pip list 2>/dev/null | grep -iE '^(numba|numba-cuda|cupy|torch|pytest|meson|ninja) ' || true
  ls -l /usr/local/cuda/lib64/libnvrtc* 2>/dev/null || true
  ldconfig -p | grep -E 'libcuda\.so|libnvrtc' || true
}

# The carried tree-sitter and cmocka, found through pkg-config files written for this machine.
use_carry() {
  local pc=$CARRY/pkgconfig site=/tmp/gpu-session-site
  mkdir -p "$pc"
  printf 'Name: tree-sitter\nDescription: carried\nVersion: 0.20.7\nLibs: -L%s -ltree-sitter\nCflags: -I%s\n' \
    "$CARRY/lib" "$CARRY/include" > "$pc/tree-sitter.pc"
  printf 'Name: cmocka\nDescription: carried\nVersion: 1.1.5\nLibs: -L%s -lcmocka\nCflags: -I%s\n' \
    "$CARRY/lib" "$CARRY/include" > "$pc/cmocka.pc"
  export PKG_CONFIG_PATH=$pc LD_LIBRARY_PATH=$CARRY/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  if ! command -v pkg-config >/dev/null || ! command -v meson >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --target "$site" "$CARRY"/wheels/*.whl
    export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH} PATH=$site/bin:$PATH
    command -v pkg-config >/dev/null || ln -sf "$(command -v pkgconf)" "$site/bin/pkg-config"
  fi
  [ -d third_party/tree-sitter-python ] || cp -r "$CARRY/third_party" third_party
}

build() {
  local py; py=$(command -v python3)
  meson setup build-gpu -Doracle_python="$py" && meson compile -C build-gpu &&
    meson setup build-release -Dbuildtype=release -Doracle_python="$py" &&
    meson compile -C build-release
}

# The demo's outputs on the GPU and on the simulator, compared file by file.
compare_demo() {
  python3 - "$LOG/demo-gpu-out" "$LOG/demo-sim-out" <<'PY'
import os, sys
import numpy as np
gpu, sim = sys.argv[1:]
bad = 0
for dirpath, _, files in os.walk(sim):
    for f in sorted(files):
        if not f.endswith(".npy"):
            continue
        rel = os.path.relpath(os.path.join(dirpath, f), sim)
        a, b = np.load(os.path.join(gpu, rel)), np.load(os.path.join(sim, rel))
        if a.dtype.kind == "f":
            tol = 1e-5 if a.dtype == np.float32 else 1e-12
            err = float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-30))) if a.size else 0.0
            ok = a.shape == b.shape and err <= tol
            print(f"{rel:28s} {a.dtype} {a.shape} max rel diff {err:.3g} (tol {tol}) {'ok' if ok else 'DIFFERS'}")
        else:
            ok = a.shape == b.shape and np.array_equal(a, b)
            print(f"{rel:28s} {a.dtype} {a.shape} {'identical' if ok else 'DIFFERS'}")
        bad += not ok
print(f"{bad} file(s) differ")
sys.exit(1 if bad else 0)
PY
}

# compute-sanitizer TOOL on every launch of the demo (every sample) and on samples/streams.c;
# the first launch it reports on ends the step.
sanitize() {
  env BUILD=build-gpu DEVICE=gpu OUT_DIR="$(mktemp -d)" PYTHON=python3 \
    LAUNCHER="compute-sanitizer --tool $1 --error-exitcode 9 --print-limit 20" bash scripts/demo.sh
}

# The Python package on the GPU: its pytest suite (GPU-marked tests included), the Python
# samples, unmodified Numba scripts through `python3 -m pyk2cuda`, and the launch cost beside
# the C API's and numba-cuda's.
python_package() {
  [ -d "$CARRY/site/pyk2cuda" ] || { echo "no package in $CARRY/site (see --prepare)"; return 1; }
  export PYTHONPATH=$CARRY/site:$ROOT/tests/python LD_LIBRARY_PATH=$CARRY/bin:$LD_LIBRARY_PATH
  export PYK2CUDA_FAKECUDA=$CARRY/bin/libfakecuda.so
  python3 -c "import pyk2cuda; print('pyk2cuda', pyk2cuda.__version__, pyk2cuda.device_kind(), pyk2cuda._core.why())"
  local rc=0
  python3 -m pytest -q -p no:cacheprovider -rs tests/python || rc=1
  for s in samples/python/*.py; do timeout 120 python3 "$s" || rc=1; done
  for s in samples/*.py; do timeout 120 python3 -m pyk2cuda "$s" || rc=1; done
  python3 bench/python_launch.py --device gpu --numba --launch-c "$CARRY/bin/launch_c" || rc=1
  return $rc
}

# PTX, CUBIN resource usage and SASS of every sample kernel, for reading side by side.
ptx_and_sass() {
  local P=build-release/tools/pyk2cuda d=$LOG/ptx
  mkdir -p "$d"
  while read -r file sig; do
    local name=${sig%%(*}
    "$P" ptx "$file" --sig "$sig" --arch sm_90 -o "$d/$name.ptx" &&
      "$P" ptx "$file" --sig "$sig" --arch sm_90 --cubin -o "$d/$name.cubin" &&
      cuobjdump --dump-resource-usage "$d/$name.cubin" && cuobjdump --dump-sass "$d/$name.cubin" > "$d/$name.sass"
  done <<'EOF'
samples/vecadd.py vecadd(int32[::1], int32[::1], float64[::1])
samples/normalize.py partial_sums(float32[::1], float32[::1])
samples/normalize.py divide(float32[::1], float32[::1])
samples/smooth.py smooth_gpu(int32[:, ::1], int32[:, ::1])
samples/great_circle.py great_circle(float64[:, ::1], float64, float64)
samples/matmul.py matmul(float32[:, ::1], float32[:, ::1], float32[:, ::1])
EOF
  nvcc -arch=sm_90 -cubin -O3 -o "$d/handwritten.cubin" bench/handwritten.cu &&
    cuobjdump --dump-resource-usage "$d/handwritten.cubin" && cuobjdump --dump-sass "$d/handwritten.cubin" > "$d/handwritten.sass"
}

# Steps run in a child bash under `timeout`, so the functions and settings they use are exported.
export -f environment build compare_demo sanitize ptx_and_sass python_package
export ROOT LOG CARRY PYK2CUDA_NO_INSTALL=1 PYTHONUNBUFFERED=1
step environment 60 environment
use_carry
step build 300 build || { cat "$LOG/build.log" | tail -40; exit 1; }
export PYK2CUDA_CACHE_DIR=$LOG/cache
step gpu-suite 900 meson test -C build-gpu --suite gpu --print-errorlogs --no-rebuild
step demo-gpu 300 env BUILD=build-gpu DEVICE=gpu OUT_DIR="$LOG/demo-gpu-out" PYTHON=python3 bash scripts/demo.sh
step demo-sim 300 env BUILD=build-gpu DEVICE=sim OUT_DIR="$LOG/demo-sim-out" PYTHON=python3 bash scripts/demo.sh
step demo-compare 60 compare_demo
step sanitizer-memcheck 600 sanitize memcheck
step sanitizer-racecheck 600 sanitize racecheck
step sanitizer-synccheck 600 sanitize synccheck
step bench-gpu 600 env BUILD=build-release bash bench/run_gpu.sh
step bench-numba 600 python3 bench/numba_gpu.py
step python-gpu 600 python_package
step ptx-sass 300 ptx_and_sass
step suites-other 900 meson test -C build-gpu --no-suite gpu --print-errorlogs --no-rebuild --num-processes 16
echo; echo "== summary"; cat "$SUMMARY"
