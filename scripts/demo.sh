#!/usr/bin/env bash
# Builds pyk2cuda and runs every sample: on the GPU when one is there, else on the CPU
# simulator. Shows the generated CUDA C of one kernel and the results of each run.
# BUILD=DIR uses another build folder; DEVICE=gpu|sim forces a device (default auto);
# LAUNCHER="CMD ARGS" runs every launch under CMD (scripts/gpu_session.sh: compute-sanitizer).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
bash scripts/deps.sh
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" >/dev/null
meson compile -C "$BUILD" >/dev/null
P="$BUILD/tools/pyk2cuda"
run() { ${LAUNCHER:-} "$P" run "$@" --device "${DEVICE:-auto}"; }
OUT=${OUT_DIR:-$(mktemp -d)}   # OUT_DIR=DIR keeps the outputs there
mkdir -p "$OUT/hello" "$OUT/sums" "$OUT/total"
echo "== the CUDA C that samples/smooth.py becomes"
$P emit samples/smooth.py --sig 'smooth_gpu(int32[:, ::1], int32[:, ::1])' | sed -n '/__global__/,/^}/p'
echo
echo "== hello_index (print from kernels)"
run samples/hello_index.py hello_index --grid 1 --block 4 zeros:int64[4] --out-dir "$OUT/hello"
echo "== vecadd"
run samples/vecadd.py vecadd --grid 4 --block 256 arange:int32[1000] arange:int32[1000] zeros:float64[1000] --out-dir "$OUT" --time
echo "== smooth (1000x1000)"
run samples/smooth.py smooth_gpu --grid 63,63 --block 16,16 arange:int32[1000,1000] zeros:int32[1000,1000] --out-dir "$OUT" --time
echo "== great_circle (1000x1000 mesh made in the kernel)"
run samples/great_circle.py great_circle --grid 63,63 --block 16,16 zeros:float64[1000,1000] 40.0 -3.7 --out-dir "$OUT" --time
echo "== matmul (256x256, shared-memory tiles)"
run samples/matmul.py matmul --grid 16,16 --block 16,16 ones:float32[256,256] ones:float32[256,256] zeros:float32[256,256] --out-dir "$OUT" --time
echo "== normalize (three kernels)"
run samples/normalize.py partial_sums --grid 8 --block 256 arange:float32[10000] zeros:float32[8] --out-dir "$OUT/sums"
run samples/normalize.py total_sum --grid 1 --block 1 "$OUT/sums/partials.npy" zeros:float32[1] --out-dir "$OUT/total"
run samples/normalize.py divide --grid 8 --block 256 arange:float32[10000] "$OUT/total/total.npy" --out-dir "$OUT"
${PYTHON:-/usr/bin/python3} - "$OUT" <<'PY'
import sys, numpy as np
d = sys.argv[1]
print("vecadd c[:4] =", np.load(f"{d}/c.npy")[:4])
print("matmul C[0,0] =", np.load(f"{d}/C.npy")[0, 0], "(expected 256)")
x = np.load(f"{d}/x.npy"); print("normalize: sum =", x.sum(), "(expected 1.0)")
PY
echo "== streams (samples/streams.c: ten arrays normalized on ten CUDA streams; GPU only)"
${LAUNCHER:-} "$BUILD/tools/streams" samples/normalize.py || [ $? -eq 77 ]
echo "outputs are in $OUT"
echo "the pyk2cuda command is $BUILD/tools/pyk2cuda (export PATH=\"$PWD/$BUILD/tools:\$PATH\"; or pip install . puts it on PATH)"
