# raise and assert in kernels (docs/semantics.md, "raise and assert"): a failed check ends the
# thread; with debug=True the launch reports it (tests/sim/cli_raise.py, the golden case
# raise_assert).
import math
import numpy as np
from numba import cuda
import numpy as np


@cuda.jit(device=True)
def root(x):
    if x < 0:
        raise ValueError("negative input")
    return math.sqrt(x)


@cuda.jit(device=True, debug=True)
def checked_root(x):
    if x < 0:
        raise ValueError
    return math.sqrt(x)


@cuda.jit(debug=True)
def roots_debug(a, out, bad):
    i = cuda.grid(1)
    if i < a.size:
        assert a[i] != bad, "bad value"
        out[i] = root(a[i])


@cuda.jit
def roots_quiet(a, out, bad):
    i = cuda.grid(1)
    if i < a.size:
        assert a[i] != bad
        out[i] = root(a[i])


@cuda.jit
def roots_checked_device(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = checked_root(a[i])


@cuda.jit
def ufunc_overlap(m):
    # the input runs backwards through the output's elements: no order of the walk reads each
    # before it is written, NumPy buffers the input, pyk2cuda raises ValueError (checked always,
    # not only with debug=True)
    if cuda.grid(1) == 0:
        np.floor(m[::-1][2:6], m[0:4])


@cuda.jit
def ufunc_shapes(a, b, out):
    # extents that are neither equal nor 1 cannot be broadcast: NumPy's ValueError
    if cuda.grid(1) == 0:
        np.hypot(a, b, out)


# a.view(dtype) to a larger item of a strided array: Numba's ValueError, checked at run time.
@cuda.jit(debug=True)
def view_debug(a, out, step):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[::step].view(np.int64)[0] + i


@cuda.jit
def view_quiet(a, out, step):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[::step].view(np.int64)[0] + i


# Division by zero: with debug=True, Python's ZeroDivisionError, as Numba's debug kernels raise
# it (the Python error model); without, NumPy's result (inf, nan; 0 for integers).
@cuda.jit(debug=True)
def divide_debug(a, b, q, r, f):
    i = cuda.grid(1)
    if i < q.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        f[i] = a[i] / b[i]


@cuda.jit
def divide_quiet(a, b, q, r, f):
    i = cuda.grid(1)
    if i < q.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        f[i] = a[i] / b[i]


@cuda.jit("void(float64[:], float64[:], float64)", boundscheck=True)
def roots_boundscheck(a, out, bad):
    # boundscheck=True checks indices and reports nothing else: a failed assert is reported only
    # with debug=True, as Numba reports a kernel's exceptions (cli_raise.py assert_boundscheck)
    i = cuda.grid(1)
    if i < out.size:
        assert a[i] != bad
        out[i] = math.sqrt(a[i])
