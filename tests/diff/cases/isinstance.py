# isinstance(v, T) with a Numba type T, folded when the kernel is compiled, as Numba does.
# Array elements only: in Numba's simulator a float32 array's element is an np.float32, as the
# compiled kernel's variable is a float32 (a Python int there would not be an np.int64).
import numpy as np
from numba import cuda


@cuda.jit
def isinstance_elements(a, n, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        k = n[i]
        out[i, 0] = isinstance(x, np.float32)
        out[i, 1] = isinstance(x, np.float64)
        out[i, 2] = isinstance(k, np.int16)
        out[i, 3] = isinstance(k, np.int32)
        if isinstance(x, np.float32):
            out[i, 4] = x > 0
