# Globals that are not constants: a list, a NumPy array that cannot be evaluated ("global
# array"), a NumPy scalar of a value known only at run time ("global", not "global array"),
# and one whose value does not fit its type.
from numba import cuda
import numpy as np

TABLE = [1, 2, 3]
NOISE = np.random.rand(10)

@cuda.jit("void(float64[:])")
def k(a):
    a[0] = TABLE[0]
    a[1] = NOISE[0]
    a[2] = SCALAR
    a[3] = WIDE


def host_value():
    return 3


SCALAR = np.float32(host_value())
WIDE = np.int8(300)   # does not fit int8: not folded
