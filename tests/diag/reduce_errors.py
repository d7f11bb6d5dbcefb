# NumPy's reductions in kernels: arrays of bools, integers, float32 and float64 only, the whole
# array only (no axis, dtype or other arguments), and only the methods Numba has.
import numpy as np
from numba import cuda

C = np.array([1 + 2j, 3 - 1j])


@cuda.jit("void(float64[:], float16[:])")
def k(a, h):
    a[0] = np.sum(C).real
    a[1] = np.mean(h)
    a[2] = np.sum(a, 0)
    a[3] = np.max(a, axis=0)
    a[4] = np.prod(2.0)
    a[5] = a.cumsum()[0]
