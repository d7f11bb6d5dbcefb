# Special float values made inside the kernel (the inputs are ordinary): overflow to
# inf, inf - inf = nan, comparisons with nan (all false except !=), math.isnan/isinf,
# -0.0 (compared through copysign), float32 overflow.
import math

from numba import cuda
import numpy as np


@cuda.jit
def specials(x, out, flags):
    i = cuda.grid(1)
    if i < x.size:
        big = 1e308 * (x[i] + 3.0)          # inf (x + 3 >= 2)
        nan = big - big
        out[i, 0] = big
        out[i, 1] = -big
        out[i, 2] = nan
        out[i, 3] = math.copysign(1.0, -0.0 * (x[i] + 3.0))   # -1: the zero is negative
        out[i, 4] = 1.0 / big                                  # 0.0
        out[i, 5] = np.float32(1e30) * np.float32(1e30)       # float32 overflow: inf
        flags[i, 0] = nan < 1.0
        flags[i, 1] = nan > 1.0
        flags[i, 2] = nan == nan
        flags[i, 3] = nan != nan
        flags[i, 4] = math.isnan(nan)
        flags[i, 5] = math.isinf(big)
        flags[i, 6] = big > 1e308
        flags[i, 7] = not (nan >= 0.0 or nan < 0.0)
