# Division by zero, as compiled Numba does it on the GPU (the numpy error model, CUDA's
# default): an integer // or % by zero gives 0, an integer / by zero is the float64 division
# (inf, -inf, nan); a float // by zero is x / 0 (inf, -inf, nan) and % by zero is nan. The
# oracle's NumPy scalars give the same, with a warning. The divisors come from -1..1, so a
# third of them are zero; the float kernel divides by +0.0 and by -0.0.
from numba import cuda


@cuda.jit
def int_by_zero(a, b, q, r, t):
    i = cuda.grid(1)
    if i < a.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        t[i] = a[i] / b[i]


@cuda.jit
def float_by_zero(x, b, out):
    i = cuda.grid(1)
    if i < x.size:
        y = b[i] * 0.5        # 0.0 where b is 0
        z = b[i] * -0.5       # -0.0 where b is 0
        out[i, 0] = x[i] // y
        out[i, 1] = x[i] % y
        out[i, 2] = x[i] / y
        out[i, 3] = x[i] // z
        out[i, 4] = x[i] % z
        out[i, 5] = x[i] / z
