# Functions defined inside device functions and kernels, and device functions with *args
# (docs/semantics.md, "Nested functions"): a nested function called where it is defined, one
# passed to a device function that calls it (it "escapes", as numba-cuda's
# test_make_function_to_jit_function has it), nested twice, with default values overridden by
# keyword, and reading the enclosing function's variables: constants (frozen) and variables
# (read at each call, here a loop's running total).
from numba import cuda

OFFSET = 123


@cuda.jit(device=True)
def consumer(func, *args):
    return func(*args)


@cuda.jit(device=True)
def consumer2arg(func1, func2):
    return func2(func1)


@cuda.jit(device=True)
def count_args(*args):
    return len(args)


@cuda.jit(device=True)
def unpacking_consumer(func, *args):
    x, y, z = args
    a = func(x, y, z, mydefault1=1000)
    b = func(x, y, z, mydefault2=1000)
    c = func(x, y, z, mydefault1=1000, mydefault2=1000)
    return a + b + c


@cuda.jit(device=True)
def nested_escape():
    def inner():
        return 10

    def innerinner(x):
        return x()

    return consumer2arg(inner, innerinner)


@cuda.jit(device=True)
def closure_in_escaper():
    def callinner():
        def inner():
            return 10

        return inner()

    return consumer(callinner)


@cuda.jit(device=True)
def close_over_consts(x):
    y = 10

    def callinner(z):
        return y + z + OFFSET

    return consumer(callinner, x) + callinner(6)


@cuda.jit(device=True)
def running_total(x, n):
    acc = 0

    def add(v):
        return acc + v * x   # acc and x as they are at each call

    for i in range(n):
        acc = add(i)
    return acc


@cuda.jit(device=True)
def with_defaults():
    t = 12

    def inner(a, b, c, mydefault1=123, mydefault2=456):
        z = 4
        return mydefault1 + mydefault2 + z + t + a + b + c

    return (inner(1, 2, 5, 91, 53) + consumer(inner, 1, 2, 3, 73) + consumer(inner, 1, 2, 3)
            + unpacking_consumer(inner, 1, 2, 11) + inner(1, 2, 4, mydefault2=7))


@cuda.jit
def nested_functions(xs, out):
    i = cuda.grid(1)
    if i < xs.size:
        x = xs[i]
        out[i, 0] = nested_escape()
        out[i, 1] = closure_in_escaper()
        out[i, 2] = close_over_consts(x)
        out[i, 3] = running_total(x, i % 7)
        out[i, 4] = with_defaults() + x
        out[i, 5] = consumer(running_total, x, 3) + count_args() + count_args(x, 1.5, (x, x))

        def square(v):
            return v * v

        out[i, 6] = consumer(square, x) + square(i)
