"""Two kernels of one name with shared arrays of different sizes, in one process (a closure made
twice, as Numba's tests and notebooks do): each must use shared arrays of its own size
(test_sim_modules.py)."""
import numpy as np

from pyk2cuda import cuda


def make(n):
    @cuda.jit
    def reverse(a, out):
        s = cuda.shared.array(n, dtype=np.float64)
        t = cuda.threadIdx.x
        for k in range(t, n, cuda.blockDim.x):
            s[k] = a[k]
        cuda.syncthreads()
        for k in range(t, n, cuda.blockDim.x):
            out[k] = s[n - 1 - k]
    return reverse


for n in (2, 4096, 8, 4000):
    a = np.arange(n, dtype=np.float64)
    out = np.zeros(n)
    make(n)[1, 64](a, out)
    assert (out == a[::-1]).all(), n
print("ok")
