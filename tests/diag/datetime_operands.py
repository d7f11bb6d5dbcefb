# datetime64 and timedelta64: the operations Numba refuses, each refused with its location (docs/semantics.md).
import numpy as np
from numba import cuda

@cuda.jit("void(datetime64[D][:], datetime64[M][:], timedelta64[D][:], timedelta64[M][:], timedelta64[h][:], int64[:], float64[:], bool[:])")
def k(d, m, td, tm, th, ints, f, flags):
    x = d[0] + d[1]
    y = tm[0] + td[0]
    z = d[0] + tm[0]
    w = td[0] % td[1]
    v = td[0] // td[1]
    flags[0] = tm[0] < td[0]
    flags[1] = d[0] == td[0]
    flags[2] = d[0] == ints[0]
    u = -d[0]
    a = abs(d[0])
    ints[1] = int(td[0])
    f[0] = float(td[0])
    ints[2] = np.int32(td[0])
    td[2] = th[0]
    if td[0]:
        ints[3] = 1
    s = td[0] * td[1]
    p = td[0] ** 2
    b = td[0] & 1
    c = flags[3] * td[0]
    e = td[0] if ints[4] else th[0]
    g = td[0] - d[0]
    h = td[0] + 1
    n = 2 / td[0]
    flags[4] = np.isnat(f[0])
    e2 = max(td[0], th[0])
