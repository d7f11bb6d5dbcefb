#!/bin/bash
# bench/aot_launch.sh [BUILD]: the launch cost through an ahead-of-time bundle against raw
# cuLaunchKernel and pyk2cuda's C API (bench/aot_launch.c; results in bench/RESULTS.md).
# Builds the bundle of bench/launch_kernels.py's add3 (--with-sim) with BUILD/tools/pyk2cuda
# (default: build), compiles aot_launch.c with it and BUILD's libpyk2cuda, then on the driver
# stand-in (BUILD/tests/standin/libcuda.so.1; $PYK2CUDA_LIBCUDA to use another driver, e.g. a
# GPU's) and on the bundle's simulator part: the medians per launch, then callgrind's
# instructions per launch on the calling thread (the difference of 2,000 and 1,000 launches,
# divided by 1,000: no setup, no load in it). Needs cc, c++ and valgrind.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
DRIVER=${PYK2CUDA_LIBCUDA:-$BUILD/tests/standin/libcuda.so.1}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
SIM_FLAGS=(-O2 -fwrapv -fno-strict-aliasing -ffp-contract=off -fno-math-errno)

(cd "$ROOT" && "$BUILD/tools/pyk2cuda" build bench/launch_kernels.py -k add3 \
   --sig 'add3(float32[::1], float32[::1], float32[::1])' --arch sm_80 --with-sim -o "$OUT/bl")
cc -std=c11 -O2 -c "$OUT/bl.c" -I"$OUT" -o "$OUT/bl.o"
c++ -std=c++17 "${SIM_FLAGS[@]}" -c "$OUT/bl_sim.cc" -o "$OUT/bl_sim.o"
cc -std=c11 -O2 -DP2C_SOURCE_ROOT="\"$ROOT\"" -I"$OUT" -I"$ROOT/include" -I"$ROOT/bench" \
   "$ROOT/bench/aot_launch.c" "$OUT/bl.o" "$OUT/bl_sim.o" -L"$BUILD/src" -lpyk2cuda \
   -Wl,-rpath,"$BUILD/src" -ldl -lpthread -lm -o "$OUT/aot_launch"

export PYK2CUDA_CACHE_DIR=${PYK2CUDA_CACHE_DIR:-$OUT/cache}
echo "== medians (driver: $DRIVER)"
PYK2CUDA_LIBCUDA=$DRIVER PYK2CUDA_DEVICE=gpu "$OUT/aot_launch" gpu
PYK2CUDA_DEVICE=sim "$OUT/aot_launch" sim

# Instructions of the calling thread (callgrind's thread 1) for COUNT launches of one path.
instructions() {   # MODE PATH COUNT ENV...
  local mode=$1 path=$2 count=$3
  shift 3
  rm -f "$OUT"/cg.out*
  env "$@" valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes \
      --callgrind-out-file="$OUT/cg.out" "$OUT/aot_launch" "$mode" "$path" "$count" >/dev/null 2>&1
  local file
  file=$(ls "$OUT"/cg.out-01 2>/dev/null || ls "$OUT"/cg.out)
  awk '/^totals:/ {print $2}' "$file"
}

echo "== callgrind: instructions per launch on the calling thread"
for spec in "gpu bundle" "gpu raw" "gpu p2c" "sim bundle" "sim p2c"; do
  set -- $spec
  envs=(PYK2CUDA_DEVICE="$1")
  [ "$1" = gpu ] && envs+=(PYK2CUDA_LIBCUDA="$DRIVER")
  a=$(instructions "$1" "$2" 1000 "${envs[@]}")
  b=$(instructions "$1" "$2" 2000 "${envs[@]}")
  echo "$1 $2 $(( (b - a) / 1000 )) instructions per launch"
done
