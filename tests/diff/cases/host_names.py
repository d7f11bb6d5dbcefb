# Python names that are macros or global names of the simulator's host C/C++ library
# (math.h, stdlib.h, stdint.h, stdio.h): kernel parameters, locals and module constants named
# so must keep their Python meaning (src/codegen/host_names.py reads them from the headers).
import math

from numba import cuda

M_PI = 3.14159
RAND_MAX = 7
EXIT_FAILURE = 2


@cuda.jit
def host_names(INFINITY, exit, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        NAN = INFINITY[i] * 2.0
        HUGE_VAL = NAN + M_PI
        INT64_MAX = RAND_MAX + EXIT_FAILURE
        SIZE_MAX = i % 3
        FP_NAN = math.floor(HUGE_VAL)
        printf = exit + SIZE_MAX
        out[i, 0] = NAN
        out[i, 1] = HUGE_VAL
        out[i, 2] = INT64_MAX
        out[i, 3] = FP_NAN
        out[i, 4] = printf
