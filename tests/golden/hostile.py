# Names and strings that must not capture, or be captured by, C, C++ and CUDA names.
from numba import cuda
import math


@cuda.jit(device=True)
def printf(new, this):
    """A device function named like C's printf; a docstring with */ inside."""
    return new * this


@cuda.jit("void(float64[::1], int64)")
def main(out, int):
    threadIdx = cuda.threadIdx.x      # a local named like the CUDA built-in
    sqrt = math.sqrt(2.0)             # a local named like a math function, while it is called
    __x = 1
    p2c_t = 2
    NULL = int + __x + p2c_t
    if threadIdx == 0:
        out[0] = printf(sqrt, NULL)
        print("100% of %n \x41BC ??/ */ \\", int)   # a comment ending in a backslash \
        out[1] = 0.0
