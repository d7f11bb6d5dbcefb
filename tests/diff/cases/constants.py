# Module-level constants: ints, floats, a bool, a negative int, tuples of ints and of
# floats indexed with a constant and with a loop variable, len() of a tuple.
from numba import cuda
import numpy as np

SCALE = 3
NEG = -7
OFFSET = -0.5
BIG = 10000000000          # does not fit in 32 bits
ENABLED = True
WEIGHTS = (1, 2, 3, 2, 1)
COEFFS = (0.5, -1.25, 2.0)


@cuda.jit
def use_constants(a, out_i, out_f):
    i = cuda.grid(1)
    if i < a.size:
        acc = 0
        for k in range(len(WEIGHTS)):
            j = i + k - len(WEIGHTS) // 2
            if 0 <= j < a.size:
                acc += WEIGHTS[k] * a[j]
        out_i[i, 0] = acc
        out_i[i, 1] = a[i] * SCALE + NEG
        out_i[i, 2] = WEIGHTS[i % 5] + WEIGHTS[0] - WEIGHTS[4]
        out_i[i, 3] = (BIG + a[i]) // SCALE
        if ENABLED:
            out_i[i, 4] = 1
        out_f[i, 0] = a[i] * OFFSET
        out_f[i, 1] = COEFFS[0] + COEFFS[1] * a[i] + COEFFS[2] * a[i] * a[i]
        out_f[i, 2] = COEFFS[i % 3] * SCALE
