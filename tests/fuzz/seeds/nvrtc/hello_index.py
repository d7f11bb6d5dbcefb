# sig: hello_index(int64[::1])
# hello_index.py -- the smallest kernel: every thread prints its global index.
#
# Shows: cuda.grid(1), a bounds check against an array's size, print() of a
# string and a number from device code.  Each thread also records its index in
# `out`, so the host can check that every thread ran exactly once.
#
# Run it with pyk2cuda:
#   pyk2cuda run samples/hello_index.py hello_index --grid 2 --block 8 zeros:int32[12]
# Run it with Numba's CUDA simulator (no GPU needed):
#   NUMBA_ENABLE_CUDASIM=1 python3 samples/hello_index.py
# (the order of the printed lines is not specified: threads run concurrently)

from numba import cuda
import numpy as np


@cuda.jit
def hello_index(out):
    i = cuda.grid(1)
    if i < out.size:
        print("thread", i)
        out[i] = i


if __name__ == "__main__":
    n = 12
    out = np.zeros(n, dtype=np.int32)
    threads_per_block = 8
    blocks = (n + threads_per_block - 1) // threads_per_block
    hello_index[blocks, threads_per_block](out)
    assert np.array_equal(out, np.arange(n, dtype=np.int32)), out
    print("hello_index: ok")
