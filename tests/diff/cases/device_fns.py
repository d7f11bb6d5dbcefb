# Device functions: a device function calling another device function, several return
# statements, a while loop and tuple assignment inside one, the same device function
# called with int and with float arguments (two specializations), and a device function
# writing to an array argument.
from numba import cuda
import numpy as np


@cuda.jit(device=True)
def square(x):
    return x * x


@cuda.jit(device=True)
def sum_of_squares(x, y):
    return square(x) + square(y)


@cuda.jit(device=True)
def clamp(x, lo, hi):
    if x < lo:
        return lo
    elif x > hi:
        return hi
    return x


@cuda.jit(device=True)
def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


@cuda.jit(device=True)
def norm_clamped(x, y, limit):
    return clamp(sum_of_squares(x, y), -limit, limit)


@cuda.jit(device=True)
def store_twice(arr, i, v):
    arr[i, 0] = v
    arr[i, 1] = 2 * v


@cuda.jit
def device_calls(a, b, out_i, out_f):
    i = cuda.grid(1)
    if i < a.size:
        out_i[i, 0] = sum_of_squares(a[i], b[i])
        out_i[i, 1] = clamp(a[i], -10, 10)
        out_i[i, 2] = gcd(abs(a[i]), abs(b[i]))
        out_i[i, 3] = norm_clamped(a[i], b[i], 5000)
        out_f[i, 0] = sum_of_squares(a[i] * 0.5, 1.5)
        out_f[i, 1] = clamp(a[i] * 0.25, -2.5, 2.5)
        out_f[i, 2] = norm_clamped(a[i] * 0.1, b[i] * 0.1, 50.0)
        store_twice(out_i, i + a.size, a[i] - b[i])


@cuda.jit(device=True)
def store_if_positive(arr, i, v):
    if v <= 0:
        return None   # `return None` is a bare return, in a device function and a kernel
    arr[i] = v


@cuda.jit
def returns_none(a, out):
    i = cuda.grid(1)
    if i >= a.size:
        return None
    store_if_positive(out, i, a[i])
    if a[i] % 3 == 0:
        return None
    out[i] += 1000
