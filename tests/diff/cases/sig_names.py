# Signatures held in module-level names, as tutorials write them: a signature object, a string,
# and a name bound to another name, each read where the decorator names it (the last binding
# before the def). A list of signatures in a name is in tests/golden (sig_names): Numba 0.56's
# simulator takes no list of signatures.
from numba import cuda, void, float32, int64

sig = void(float32[::1], float32)
TEXT = "void(int64[::1], int64)"
ALIAS = sig


@cuda.jit(sig)
def scale(a, s):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= s


@cuda.jit(TEXT)
def shift(a, s):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += s


@cuda.jit(ALIAS)
def halve(a, s):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] / s


sig = void(float32[::1], int64)   # rebinding after the defs above changes none of them
