# -*- coding: latin-1 -*-
# A Latin-1 source (PEP 263): its bytes é and ° are the characters U+00E9 and U+00B0,
# which the CUDA C holds as UTF-8; and \N{...} escapes name characters as Python does.
from numba import cuda


@cuda.jit
def temperature(t):
    i = cuda.grid(1)
    if i < t.size:
        print("témpérature", t[i], "°C \N{BULLET} \N{greek small letter alpha}")
