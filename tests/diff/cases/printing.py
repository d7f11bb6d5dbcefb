# print() of strings and numbers from device code.  Only the arrays are compared (the
# order of the printed lines is not specified, and the simulator's threads interleave
# their output), so this case checks that a kernel which prints runs and computes.
from numba import cuda
import numpy as np


@cuda.jit
def print_values(x, out):
    i = cuda.grid(1)
    if i < x.size:
        if i == 0:
            print("first element", x[0], "size", x.size)
        print("thread", i, "value", x[i], "half", x[i] / 2)
        out[i] = x[i] * 2
