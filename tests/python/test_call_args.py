"""Device function calls with arguments by keyword and parameters left to their defaults
(docs/semantics.md, "Functions, dtypes and literals as arguments"), checked against the same
functions run by Python, whose binding rules Numba follows (Numba 0.56's simulator does not take
keywords, so tests/diff/cases/call_args.py covers the positional calls against it)."""
import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda

SCALE = 0.5


def affine(x, a=2, b=(1.5, -1), c=SCALE):
    return x * a + b[0] * b[1] + c


def clamp(x, lo=None, hi=None):
    if lo is not None and x < lo:
        return lo
    if hi is None:
        return x
    return min(x, hi)


def body(x, out, f, g):
    out[0] = f(x, c=-1.0, a=4)
    out[1] = f(b=(2.0, 2), x=x)
    out[2] = f(x, 3, c=1.0)
    out[3] = g(x, hi=0.25)
    out[4] = g(x, lo=-0.5)
    out[5] = g(hi=1.0, x=x, lo=0.0)
    out[6] = g(x)


def make_kernel():
    # body itself, with the two functions passed to it (functions as arguments)
    f, g, run = cuda.jit(device=True)(affine), cuda.jit(device=True)(clamp), cuda.jit(device=True)(body)

    @cuda.jit
    def kernel(x, out):
        run(x, out, f, g)
    return kernel


@pytest.mark.parametrize("x", [-2.0, 0.125, 3.0])
def test_keywords_and_defaults_bind_as_in_python(x):
    got, want = np.zeros(7), np.zeros(7)
    make_kernel()[1, 1](x, got)
    body(x, want, affine, clamp)
    assert got.tolist() == want.tolist()


def test_binding_errors_name_the_argument():
    # the callee is named f here: the name the kernels call it by
    f = cuda.jit(device=True)(affine)

    @cuda.jit
    def unknown(out):
        out[0] = f(1.0, d=2)

    @cuda.jit
    def twice(out):
        out[0] = f(1.0, x=2.0)

    @cuda.jit
    def missing(out):
        out[0] = f(a=2)

    out = np.zeros(1)
    with pytest.raises(pyk2cuda.CompileError, match="f\\(\\) got an unexpected keyword argument 'd'"):
        unknown[1, 1](out)
    with pytest.raises(pyk2cuda.CompileError, match="f\\(\\) got multiple values for argument 'x'"):
        twice[1, 1](out)
    with pytest.raises(pyk2cuda.CompileError, match="f\\(\\) missing required argument 'x'"):
        missing[1, 1](out)
