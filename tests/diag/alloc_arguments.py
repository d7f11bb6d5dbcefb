from numba import cuda
import numpy as np


@cuda.jit("void(float32[:], int64)")
def k(a, n):
    b = cuda.local.array(4, np.float32, alignment=0)
    c = cuda.local.array(4, np.float32, alignment=12)
    d = cuda.shared.array(4, np.float32, alignment=4)
    e = cuda.shared.array(4, np.float32, alignment=24)
    f = cuda.shared.array(4, np.float32, alignment=n)
    g = cuda.local.array(4, np.float32, alignment=1.5)
    h = cuda.local.array(4, np.float32, align=16)
    i = cuda.local.array(4, np.float32, 16, 2)
    j = cuda.shared.array(4, np.float32, alignment=536870912)
    cuda.local.array(4, np.float32, alignment=16)        # alone: fine, as in Numba
    a[0] = len(cuda.local.array(4, np.float32))
