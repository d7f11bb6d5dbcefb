# A read that no assignment reaches, where the name is assigned earlier in the source on another
# path: Numba compiles it (its value undefined) and warns "Detected uninitialized variable"; so
# does pyk2cuda, and the variable reads as 0 there (docs/semantics.md). Exit 0: a warning.
from numba import cuda


@cuda.jit("void(int64[:], int64)")
def foo(result, n):
    if n:
        if n > 0:
            c = 0
        result[0] = c
    else:
        c += 1             # c is not assigned on this path
        result[0] = c


@cuda.jit(device=True)
def pick(a, b):
    if a:
        v = b
        w = v
        return w
    else:
        return v + 1       # v only on the other path


@cuda.jit("void(int64[:], int64, int64)")
def caller(out, a, b):
    out[0] = pick(a, b)
