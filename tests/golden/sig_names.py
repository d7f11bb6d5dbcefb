# A list of signatures held in a module-level name (BOTH), and a name bound to another name
# (ALIAS): the kernel gets one specialization per signature, as @cuda.jit([...]) gives.
from numba import cuda, void, float32, int64

TEXT = "void(int64[::1], int64)"
BOTH = [TEXT, void(float32[::1], int64)]
ALIAS = BOTH


@cuda.jit(ALIAS)
def offset(a, s):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] + s * i
