# Module-level complex NumPy arrays as constants (Numba's test_constmem CONST3D): complex
# literals as Python writes them ((0.5-1.5j), -2j, 3+4j), complex64 and complex128, np.full of a
# complex value, arithmetic on the elements read from constant memory.
import numpy as np

from numba import cuda

C64 = np.array([[(0.5-0j), (0.5-0.5j), -1.5j], [(-2+3j), 4, 2.5]], dtype=np.complex64)
C128 = np.array([1j, 2, (3.5-1e-3j), -(1+2j)])
FULL = np.full((2, 2), 2 - 1j)


@cuda.jit
def const_complex(a, b):
    i = cuda.threadIdx.x
    c = cuda.const.array_like(C64)
    a[i] = c[i // 3, i % 3] * 2
    if i < 4:
        b[i] = C128[i] * FULL[i // 2, i % 2] + C128[i].conjugate()
