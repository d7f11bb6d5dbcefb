# A string literal passed to a device function (numba-cuda's TestStringArgCompileTime): Numba
# types it as a literal string, so `value == "1"` is decided when the callee is compiled; here
# the callee gets an instance per string (docs/semantics.md, "Functions, dtypes and literals as
# arguments").
from numba import cuda


@cuda.jit(device=True)
def load(gmem, value):
    if value == "1":
        gmem[cuda.threadIdx.x] = 1.0
    elif value != "two words":
        gmem[cuda.threadIdx.x] = 0.5
    else:
        gmem[cuda.threadIdx.x] = 0.0


@cuda.jit
def string_args(a, b, c):
    load(a, "1")
    load(b, "two words")
    load(c, "é")
