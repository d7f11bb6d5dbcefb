# What pyk2cuda refuses of character sequences (NumPy's S<n> and U<n>), as Numba's CUDA target
# refuses it or cannot lower it: comparisons, len(), print(), operators, a str into bytes and
# bytes into str, sequences of other lengths, views, values other than literals, `is` of two.
from numba import cuda
import numpy as np


@cuda.jit("void([unichr x 4][::1], [char x 4][::1], [unichr x 5][::1], int32[::1])")
def k(u, s, u5, out):
    out[0] = u[0] == "ab"
    out[1] = u[0] != u[1]
    out[2] = s[0] < s[1]
    out[3] = len(u[0])
    print(u[0])
    print(b"raw")
    v = u[0] + u[1]
    x = b"ab"
    u[0] = b"ab"
    s[0] = "ab"
    u[0] = u5[0]
    s[0] = u[0]
    u[:2] = "ab"
    u[0] = 5
    if u[0]:
        out[4] = 1
    out[5] = u[0][1] == "b"
    t = (u[0], 1)
    out[6] = u[0] is u[1]
    u[0] = u[1] = "a" if out[0] else "b"
    u[0] = u[0].upper()
