# sig: vecadd(int32[::1], int32[::1], float64[::1])
# vecadd.py -- vector addition, one thread per element.
#
# Shows: cuda.grid(1), a bounds check, and Numba's type promotion: the inputs
# are int32 arrays and the result is written into a float64 array (the int32
# sum is converted on the store).
#
# Run it with pyk2cuda:
#   pyk2cuda run samples/vecadd.py vecadd --grid 4 --block 256 arange:int32[1000] arange:int32[1000] zeros:float64[1000]
# Run it with Numba's CUDA simulator (no GPU needed):
#   NUMBA_ENABLE_CUDASIM=1 python3 samples/vecadd.py

from numba import cuda
import numpy as np


@cuda.jit
def vecadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


if __name__ == "__main__":
    n = 1000
    a = np.arange(n, dtype=np.int32)
    b = np.arange(n, dtype=np.int32) * 3 - 500
    c = np.zeros(n, dtype=np.float64)

    threads_per_block = 256
    blocks = (n + threads_per_block - 1) // threads_per_block   # 4 blocks, the last one partly idle
    vecadd[blocks, threads_per_block](a, b, c)

    expected = a.astype(np.float64) + b.astype(np.float64)
    assert np.array_equal(c, expected), c
    print("vecadd: ok")
