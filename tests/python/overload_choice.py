"""Which explicit signature a launch picks: Numba's dispatcher rates each signature the arguments
fit by its conversions (unsafe ones first, then safe ones, then promotions) and takes the best.
With `--njit` the same functions run under Numba's CPU dispatcher (numba.njit with the same
signatures), which chooses by the same rule; test_overload_choice.py compares the two. The calls
are ones Numba finds unambiguous (a tie between the best signatures is Numba's TypeError, and
pyk2cuda's: test_launch.py)."""
import sys

import numpy as np

SIGS = {
    "floats": ["(float64[::1], float32, float32)", "(float64[::1], float64, float64)"],
    "ints": ["(float64[::1], int32, int32)", "(float64[::1], int64, int64)",
             "(float64[::1], float64, float64)"],
    "narrow": ["(float64[::1], int16, int16)", "(float64[::1], float32, float32)"],
}
CALLS = {
    "floats": [(np.float32(1), np.float32(2**-25)), (1, 2**-25), (np.float64(1), np.float32(2**-25))],
    "ints": [(2**40, 1), (np.int32(2**30), np.int32(2**30)), (0.5, 1)],
    "narrow": [(np.int8(100), np.int8(100)), (np.float16(1.5), 1)],
}


def add(r, x, y):
    r[0] = x + y


if "--njit" in sys.argv:
    from numba import njit

    def compile_for(sigs):
        return lambda r, x, y, f=njit(["void" + s for s in sigs])(add): f(r, x, y)
else:
    from pyk2cuda import cuda

    def compile_for(sigs):
        return lambda r, x, y, k=cuda.jit(sigs)(add): k[1, 1](r, x, y)

for name, sigs in SIGS.items():
    f = compile_for(sigs)
    for x, y in CALLS[name]:
        r = np.zeros(1)
        f(r, x, y)
        print(name, type(x).__name__, type(y).__name__, repr(r[0]))
