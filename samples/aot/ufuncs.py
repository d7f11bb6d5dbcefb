# samples/aot/ufuncs.py -- @vectorize ufuncs shipped in a C program (samples/aot/ufunc.c).
#
# Shows: @vectorize(target='cuda') with several signatures; `pyk2cuda build` gives each signature
# a launcher over n elements (docs/aot.md):
#   pyk2cuda build samples/aot/ufuncs.py -o out/uf     # uf_clipped_diff__f32_f32(stream, n, x, y, out), ...
# clipped_diff: |x - y| capped at 100 (float32, float64 and int32: the int32 difference is
# computed in int64, as Numba promotes it); collatz_step: n // 2 for even n, else 3 * n + 1
# (Python's floor division and modulo, for negative n too; int64 wraps). row_dot, a @guvectorize
# gufunc, is an ordinary kernel in the bundle: uf_row_dot__f32a2_f32a2_f32a1(stream, grid, block,
# shared, a, b, out), one thread per row.
#
# Run it with pyk2cuda (Numba's CUDA simulator has no CUDA ufuncs; with a GPU, plain python3):
#   python3 -m pyk2cuda samples/aot/ufuncs.py

from numba import guvectorize, vectorize
import numpy as np


@vectorize(["float32(float32, float32)", "float64(float64, float64)", "int32(int32, int32)"], target="cuda")
def clipped_diff(x, y):
    d = x - y
    if d < 0:
        d = -d
    return min(d, 100)


@vectorize(["int64(int64)"], target="cuda")
def collatz_step(n):
    if n % 2 == 0:
        return n // 2
    return 3 * n + 1


@guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()", target="cuda")
def row_dot(a, b, out):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    out[0] = s


if __name__ == "__main__":
    x = np.arange(-500, 500, dtype=np.float32) * np.float32(0.37)
    y = np.full(1000, 20, dtype=np.float32)
    assert np.array_equal(clipped_diff(x, y), np.minimum(np.abs(x - y), 100).astype(np.float32))
    n = np.arange(-50, 50, dtype=np.int64)
    assert np.array_equal(collatz_step(n), np.where(n % 2 == 0, n // 2, 3 * n + 1))
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert np.array_equal(row_dot(a, a), (a * a).sum(axis=1))
    print("ufuncs: ok")
