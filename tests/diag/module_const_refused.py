# Module-level values the command line cannot freeze as Numba does, each refused where a kernel
# reads it, with the reason: a math function CPython computes with its own code, operations that
# raise in Python, an int past 64 bits, a NumPy function NumPy computes with its own code, np.sqrt
# in float16 (of a bool), a NumPy power that raises in NumPy, a NumPy operator not folded (a shift),
# a call of a host function, and a constant computed from a refused one. (np.sqrt of a number and
# NumPy's ** // % fold: tests/diff/const_check.py.)
import math

import numpy as np
from numba import cuda


def host_value():
    return 3


GAMMA = math.gamma(0.5)
HYPOT = math.hypot(3.0, 4.0)
DIV = 1 / 0
LOG = math.log(0.0)
FLOOR = math.floor(math.inf)
BIG = 2 ** 64
NP_FUNC = np.exp(1.0)
NP_SQRT16 = np.sqrt(True)
NP_POW = np.int32(2) ** -1
NP_SHIFT = np.int32(1) << 2
HOST = host_value() * 2
FROM_REFUSED = GAMMA * 2


@cuda.jit("void(float64[::1])")
def k(a):
    a[0] = GAMMA
    a[1] = HYPOT
    a[2] = DIV
    a[3] = LOG
    a[4] = FLOOR
    a[5] = BIG
    a[6] = NP_FUNC
    a[7] = NP_POW
    a[8] = HOST
    a[9] = FROM_REFUSED
    a[10] = NP_SQRT16
    a[11] = NP_SHIFT
