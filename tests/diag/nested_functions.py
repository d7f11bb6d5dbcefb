# Nested functions and *args that pyk2cuda refuses (docs/semantics.md, "Nested functions").
import numpy as np
from numba import cuda


@cuda.jit(device=True)
def consumer(func, *args):
    return func(*args)


@cuda.jit(device=True)
def keyword_only(a, *args, scale=2):
    return a * scale


@cuda.jit("void(int64)")
def multiply_defined(c):
    if c:
        x = 3

        def inner(y):
            return y + x

        r = consumer(inner, 1)
    else:
        x = 6

        def inner(y):
            return y + x

        r = consumer(inner, 2)


@cuda.jit("void(int64)")
def non_const(x):
    z = np.arange(x)

    def inner(val):
        return 1 + z + val

    consumer(inner, x)


@cuda.jit("void(int64[:], int64)")
def sibling(out, x):
    def reads_x():
        return x

    def calls_it():
        y = 1
        return reads_x() + y

    out[0] = calls_it()


@cuda.jit("void(int64[:], int64)")
def star_capture(out, x):
    def inner(*vals):
        return x + len(vals)

    out[0] = inner(1, 2)


@cuda.jit("void(int64[:])")
def star_kernel(out, *rest):
    async def inner():
        return 1
