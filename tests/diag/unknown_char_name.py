# Python refuses an unknown name in \N{...}: "unknown Unicode character name".
from numba import cuda


@cuda.jit("void(int32[:])")
def k(a):
    print("\N{GREEK SMALL LETTER ALFA}", a[0])
