# A name rebound to a value of another type (docs/semantics.md, "Variables: one per web"):
# Numba types each version of a name, joining versions only where a read can see several, so
# `arr` can be 2-d, then 1-d, then 2-d again (numba-cuda's test_ssa, test_issue3931), a loop's
# int target can be rebound to an array inside the loop (test_issue5493_unneeded_phi), and a
# float accumulator can follow an int one under the same name.
import numpy as np
from numba import cuda

B = np.arange(3.0, 7.0)


@cuda.jit
def reshaped(result, arr):
    for i in range(1):
        arr = arr.reshape(3 * 2)
        arr[i] += 1.0
        arr = arr.reshape(3, 2)
    for i in range(arr.shape[0]):
        for j in range(arr.shape[1]):
            result[i, j] = arr[i, j]


@cuda.jit
def loop_target_rebound(res, m, n):
    for t in range(1, m):
        for idx in range(n):
            t = B
            if idx == 0:
                if idx == n - 1:
                    pass
                else:
                    res[0] = t[0]
            else:
                if idx == n - 1:
                    pass
                else:
                    res[0] += t[idx % 4]


@cuda.jit
def retyped(xs, out):
    i = cuda.grid(1)
    if i < xs.size:
        acc = 0
        for k in range(i % 5):
            acc += k
        out[i, 0] = acc
        acc = xs[i] * 0.5      # a float64 from here on: a new version
        for k in range(3):
            acc = acc * 1.5 + k
        out[i, 1] = acc
        v = i * 3              # an int, then a tuple, then an int again
        out[i, 2] = v // 2
        v = (xs[i], i)
        out[i, 3] = v[0] + v[1]
        v = i - 7
        out[i, 4] = v % 5
