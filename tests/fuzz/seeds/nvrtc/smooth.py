# sig: smooth_gpu(int32[:, ::1], int32[:, ::1])
# smooth.py -- a 3x3 box-smoothing stencil on a 2-D integer image.
#
# Shows: a 2-D grid with `i, j = cuda.grid(2)`, tuple unpacking of `.shape`,
# a chained bounds comparison (`1 <= i < n - 1`) combined with `and`, and
# Python's floor division `//` on integers.  Border pixels are left untouched.
#
# Run it with pyk2cuda (a 64x48 image of ones, blocks of 16x16 threads; any
# int32 image saved with np.save works in place of `ones:...`, e.g. image.npy):
#   pyk2cuda run samples/smooth.py smooth_gpu --grid 4,3 --block 16,16 ones:int32[64,48] zeros:int32[64,48]
# Run it with Numba's CUDA simulator (no GPU needed):
#   NUMBA_ENABLE_CUDASIM=1 python3 samples/smooth.py

from numba import cuda
import numpy as np


@cuda.jit
def smooth_gpu(x, out):
    n, m = x.shape
    i, j = cuda.grid(2)
    if 1 <= i < n - 1 and 1 <= j < m - 1:
        total = 0
        for di in range(-1, 2):
            for dj in range(-1, 2):
                total += x[i + di, j + dj]
        out[i, j] = total // 9


def smooth_reference(x):
    # the same stencil with NumPy slicing, for checking
    out = np.zeros_like(x)
    acc = np.zeros((x.shape[0] - 2, x.shape[1] - 2), dtype=np.int64)
    for di in range(3):
        for dj in range(3):
            acc += x[di:di + x.shape[0] - 2, dj:dj + x.shape[1] - 2]
    out[1:-1, 1:-1] = acc // 9
    return out


if __name__ == "__main__":
    rng = np.random.default_rng(42)
    n, m = 40, 30
    x = rng.integers(-1000, 1000, size=(n, m), dtype=np.int32)  # negative values: // rounds down
    out = np.zeros_like(x)

    block = (16, 16)
    grid = ((n + block[0] - 1) // block[0], (m + block[1] - 1) // block[1])
    smooth_gpu[grid, block](x, out)

    assert np.array_equal(out, smooth_reference(x)), out
    print("smooth: ok")
