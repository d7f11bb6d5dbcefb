from numba import cuda
import numpy as np

# Argument unpacking the frontend refuses: two *args in one call, **kwargs, *args into an
# operator's function (pow, operator.add); and complex constant arrays that cannot be evaluated.

C = np.array([1 + 2j], dtype=np.float64)
R = np.arange(1j, 3j)


@cuda.jit(device=True)
def add(a, b):
    return a + b


@cuda.jit("void(float64[:, ::1], int64)")
def k(a, n):
    d = add(*(1,), *(2,))
    e = add(**{'a': 1})
    f = pow(*(2, 3))
    p = C[0]
    q = R[0]
