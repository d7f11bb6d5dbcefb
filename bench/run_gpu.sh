#!/usr/bin/env bash
# The GPU benchmarks of issue 3, on CUDA device 0, in one command:
#   bench/run_gpu.sh [options of build/bench/gpu: --reps N, --only launch|bandwidth|samples]
# Prints Markdown tables to paste into bench/RESULTS.md with the date and the GPU:
#   - build/bench/gpu: launch overhead, bandwidth against cuMemcpyDtoD, every sample against a
#     hand-written CUDA C version (see bench/gpu.c);
#   - warm start: the "compile" row of `pyk2cuda run --time` for a kernel already in the compile
#     cache (a fresh process each time, as a user runs it), median of 21 runs.
# Exits 77 when there is no CUDA device. PYK2CUDA_LIBCUDA is honoured, so the script itself can
# be checked on the fake driver (tests/fakecuda), whose numbers measure nothing on the GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-release}
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" -Dbuildtype=release >/dev/null
meson compile -C "$BUILD" >/dev/null
P="$BUILD/tools/pyk2cuda"

echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'). Commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')."
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader || true
# `info` exits 0 on a machine without a GPU too, saying "no GPU: the simulator will run kernels".
info=$("$P" info) || exit 77
echo "$info"
case "$info" in *"no GPU: "*) exit 77 ;; esac

rc=0
"$BUILD/bench/gpu" "$@" || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"

# Warm start: one cold run fills a private cache, then 21 runs read it.
CACHE=$(mktemp -d)
trap 'rm -rf "$CACHE"' EXIT
export PYK2CUDA_CACHE_DIR="$CACHE"
run_once() {
  "$P" run samples/smooth.py smooth_gpu --device gpu --grid 32,32 --block 32,32 \
    arange:int32[1000,1000] zeros:int32[1000,1000] --out-dir "$CACHE/out" --time 2>&1
}
cold=$(run_once)
cold_ms=$(echo "$cold" | awk '/^compile / {print $NF}')
load_ms=$(echo "$cold" | awk '/^module load/ {print $NF}')
warm=$(for i in $(seq 21); do run_once | awk '/^compile \(cache hit\)/ {print $NF}'; done | sort -g)
count=$(echo "$warm" | grep -c . || true)
[ "$count" -eq 21 ] || { echo "warm start: expected 21 cache hits, got $count" >&2; exit 1; }
median=$(echo "$warm" | sed -n 11p); min=$(echo "$warm" | sed -n 1p); max=$(echo "$warm" | sed -n 21p)
echo
echo "### Warm start: \`pyk2cuda run samples/smooth.py smooth_gpu ... --time\`, compile row"
echo
echo "| run | compile ms | module load ms |"
echo "|---|---:|---:|"
echo "| cold (NVRTC, empty cache) | $cold_ms | $load_ms |"
echo "| cached, median of 21 (min $min, max $max) | $median | - |"
