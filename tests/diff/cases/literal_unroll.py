# numba's literal_unroll over tuples whose elements have one type (module constants, a tuple
# built in the kernel, one passed to a device function), with break and continue in the body,
# under its three spellings: numba.literal_unroll, numba.misc.special's and the bare name.
from numba import cuda, literal_unroll
import numba
from numba.misc.special import literal_unroll as unroll_special

WEIGHTS = (0.5, -1.25, 2.0, 3.5)
STEPS = (1, 2, 3, 5, 8)


@cuda.jit(device=True)
def weighted(t, x):
    s = 0.0
    for w in literal_unroll(t):
        s += w * x
    return s


@cuda.jit
def unroll_sums(x, out):
    i = cuda.grid(1)
    if i < x.size:
        s = 0.0
        for w in literal_unroll(WEIGHTS):
            s += w * x[i]
        out[i, 0] = s
        n = 0
        for k in numba.literal_unroll(STEPS):
            if k == 3:
                continue
            if k > i:
                break
            n += k
        out[i, 1] = n
        local = (x[i], 2.0 * x[i], x[i] - 1.0)
        m = -1e300
        for v in unroll_special(local):
            m = max(m, v)
        out[i, 2] = m
        out[i, 3] = weighted(WEIGHTS, x[i])
