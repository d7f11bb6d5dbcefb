from numba import cuda
import numpy as np

TABLE = np.arange(10)

@cuda.jit("void(int64[:])")
def k(a):
    a[0] = TABLE[0]
