# Python 3.11 reports the same position and message (checked with /usr/bin/python3).
from numba import cuda


@cuda.jit("void(int32[:])")
def k(a):
    print("abc)
