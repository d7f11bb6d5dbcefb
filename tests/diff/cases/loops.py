# Loops: range with 1, 2 and 3 arguments (negative step, empty ranges), while with
# break and continue, nested loops, rebinding the loop variable inside the body (does
# not change the iteration), the loop variable's value after the loop, and bounds that read
# the loop's own variable (evaluated before the loop binds it), ranges that end near the
# limits of int64 and int32.
from numba import cuda
import numpy as np


@cuda.jit
def loops(ns, out):
    i = cuda.grid(1)
    if i < ns.size:
        n = ns[i]

        s = 0
        for k in range(n):                 # one argument
            s += k
        out[i, 0] = s

        s = 0
        for k in range(n - 5, n):          # two arguments, start may be negative
            s += k * k
        out[i, 1] = s

        s = 0
        for k in range(n, -n, -3):         # three arguments, negative step
            s = s * 3 + k                  # depends on the order of iteration
        out[i, 2] = s

        k = 0
        s = 0
        while True:                        # while with continue and break
            k += 1
            if k % 3 == 0:
                continue
            if k > n:
                break
            s += k
        out[i, 3] = s

        c = 0
        for k in range(n):
            k = k * 10                     # rebinding k does not change the iteration
            c += 1
        out[i, 4] = c

        s = 0
        for a in range(n):                 # nested loops, break/continue in the inner one
            for b in range(n):
                if b > a:
                    break
                if (a + b) % 2 == 1:
                    continue
                s += a * b
        out[i, 5] = s

        s = 0
        for k in range(0, n, 4):
            s += 1
        for k in range(n, n):              # empty
            s += 100
        for k in range(5, 0):              # empty: start > stop with a positive step
            s += 1000
        for k in range(0, 5, -1):          # empty: start < stop with a negative step
            s += 10000
        out[i, 6] = s

        last = -1
        for k in range(3, n):
            last = k
        out[i, 7] = last


@cuda.jit
def while_loops(x, out):
    # a while loop whose condition reads memory, and a countdown with a negative step
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        steps = 0
        while v != 1 and steps < 200:      # Collatz
            if v % 2 == 0:
                v = v // 2
            else:
                v = 3 * v + 1
            steps += 1
        out[i, 0] = steps
        t = 0
        for k in range(x[i], 0, -7):
            t += k
        out[i, 1] = t
        t = 0
        for k in range(-x[i], x[i], 5):
            if k == 0:
                continue
            t -= k
        out[i, 2] = t


@cuda.jit
def bounds_read_loop_variable(ns, out):
    # A range's bounds, and enumerate's iterable, are evaluated once, before the loop binds its
    # variables: range(0, k) here reads the k of before the loop, not the counter.
    i = cuda.grid(1)
    if i < ns.size:
        k = ns[i]
        s = 0
        for k in range(0, k):
            s += 1
        out[i, 0] = s
        step = 2
        s = 0
        for step in range(0, 9, step):
            s += step
        out[i, 1] = s
        j = ns[i]
        for j, y in enumerate(range(j, j + 3)):
            out[i, 2 + j] = y


@cuda.jit
def range_near_limits(starts, steps, out):
    # Ranges that end within one step of the top (or bottom) of int64 and of int32: the counter
    # must stop at the range's end, not step past the limit (where C would overflow).
    i = cuda.grid(1)
    if i < starts.size:
        n = 0
        for k in range(starts[i], 9223372036854775807, steps[i]):
            n += 1
        for k in range(-starts[i], -9223372036854775807, -steps[i]):
            n += 100
        a = np.int32(2147483647 - i)
        b = np.int32(steps[i])
        for k in range(a - 10, a, b):
            n += 10000
        out[i] = n
