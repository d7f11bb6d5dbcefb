# `check` without signatures finds what typeinfer would refuse whatever the argument types: array
# shapes past their limits (sizes from the constant dtype) and recursion typeinfer cannot type.
# Each message is the one `check --sig` gives for the same kernel.
import numpy as np
from numba import cuda, float64

N = 2147483648


@cuda.jit(device=True)
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@cuda.jit(device=True)
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@cuda.jit(device=True)
def forever(n):
    return forever(n - 1) + 1


@cuda.jit(device=True)
def countdown(n):
    if n <= 0:
        return 0
    return countdown(n - 1) + 1


@cuda.jit(device=True)
def ping(n):
    return pong(n)


@cuda.jit("int64(int64)", device=True)
def pong(n):
    if n <= 0:
        return 0
    return ping(n - 1)


@cuda.jit
def mutual(a):
    a[0] = is_even(a[1])


@cuda.jit
def from_ping(a):
    a[0] = ping(a[1])


@cuda.jit
def from_pong(a):
    a[0] = pong(a[1])


@cuda.jit
def self_recursive(a):
    a[0] = forever(a[1]) + countdown(a[2])


@cuda.jit
def shapes(a, n):
    too_many = cuda.shared.array(N, np.float32)
    too_big = cuda.local.array((1024, 1024), dtype=float64)
    fits = cuda.shared.array(12288, 'float32')
    one_past = cuda.shared.array(12289, 'float32')
    empty = cuda.local.array((4, 0), np.int8)
    dynamic = cuda.shared.array(0, np.float64)
    not_constant = cuda.shared.array(n, np.float32)
    not_a_dtype = cuda.local.array(4, 'float13')
    a[0] = too_many[0] + too_big[0, 0] + fits[0] + one_past[0] + empty[0, 0] + dynamic[0]
