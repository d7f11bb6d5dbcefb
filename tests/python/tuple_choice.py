"""Tuple arguments against kernels with signatures (issue 27): which signature a launch takes and
how each element converts are Numba's rules (BaseAnonymousTuple.can_convert_to: a plain tuple
converts to a plain tuple of as many elements, rated as its worst element; a namedtuple only to
its own type). With `--njit` the same functions run under Numba's CPU dispatcher (numba.njit with
the same signatures chooses by the same rules); test_overload_choice.py compares the two, and
tests/unit/test_api.c's tuple_arguments_convert_element_by_element passes the same values through
the C API. The values are ones whose conversions Numba's CUDA target and njit make alike (no float
for an integer element: njit truncates it, the CUDA target's ctypes refuses it)."""
import sys
from collections import namedtuple

import numpy as np

Point = namedtuple("Point", ("x", "y"))

SIGS = {
    "pair": ["void(float64[::1], UniTuple(float32, 2))", "void(float64[::1], UniTuple(int64, 2))"],
    "mixed": ["void(float64[::1], Tuple((float64, int32)))"],
    "point": ["void(float64[::1], NamedTuple(Point, x=int32, y=int32))"],
}
CALLS = {
    # 2**24 + 1 is exact as an int64, rounded as a float32: the sum shows which signature ran
    "pair": [(16777217, 1), (np.int8(1), np.int8(2)), (np.float32(16777216), np.float32(1)),
             (np.int32(16777217), np.uint8(1)), Point(16777217, 1), (1, 2, 3)],
    "mixed": [(1, 2), (np.float32(0.1), np.int64(2**33 + 5)), (True, np.uint16(7)), (1j, 2)],
    "point": [Point(np.int32(16777217), np.int32(1)), Point(1, 2), (1, 2)],
}


def add(r, t):
    r[0] = t[0] + t[1]


if "--njit" in sys.argv:
    from numba import njit, types

    def numba_sig(name, text):
        if name != "point":
            return text
        return types.void(types.float64[::1], types.NamedUniTuple(types.int32, 2, Point))

    def compile_for(name, sigs):
        return lambda r, t, f=njit([numba_sig(name, s) for s in sigs])(add): f(r, t)
else:
    from pyk2cuda import cuda

    def compile_for(name, sigs):
        return lambda r, t, k=cuda.jit(sigs)(add): k[1, 1](r, t)

for name, sigs in SIGS.items():
    f = compile_for(name, sigs)
    for t in CALLS[name]:
        r = np.zeros(1)
        try:
            f(r, t)
            print(name, t, repr(r[0]))
        except TypeError:
            print(name, t, "TypeError")
