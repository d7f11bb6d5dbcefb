# numba-cuda's cache-hint loads and stores: its index and dtype errors, in its words, and
# pyk2cuda's: the array is global (ld.global, st.global).
from numba import cuda
import numpy as np


@cuda.jit("void(float32[::1], float32[:, ::1], complex64[::1], float32[::1])")
def bad(x, m, c, r):
    a = cuda.ldcs(x, 1.0)
    b = cuda.ldcs(x, (1, 2))
    d = cuda.ldcs(m, 1)
    e = cuda.ldcs(m, (1,))
    f = cuda.ldcs(c, 0)
    s = cuda.shared.array(4, np.float32)
    g = cuda.ldca(s, 0)
    cuda.stcg(r, 0, c[0])
    cuda.stwt(r, 0)
