# Calls of device functions with *args that pyk2cuda refuses, as Python does.
from numba import cuda


@cuda.jit(device=True)
def consumer(func, *args):
    return func(*args)


@cuda.jit("void(int64[:], int64)")
def star_keyword(out, x):
    out[0] = consumer(abs, x, args=3)


@cuda.jit("void(int64[:], int64)")
def too_few(out, x):
    out[0] = consumer()


@cuda.jit("void(int64[:], int64)")
def escaping_nested_star(out, x):
    def add(*vals):
        return vals[0] + vals[1]

    out[0] = consumer(add, x, 2) + consumer(add, x)
