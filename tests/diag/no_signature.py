# command: emit -k k
from numba import cuda

@cuda.jit
def k(a):
    a[0] = 1
