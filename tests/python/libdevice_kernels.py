"""Kernels calling numba.cuda.libdevice's functions, one of each shape a call has (docs/python.md,
"libdevice"): a scalar result (sad), a UniTuple (sincos), a Tuple (frexp), a void function's
out-parameters, and calls in a device function. Numba's test_libdevice's TestLibdevice kernels
are the first three. Used by test_libdevice.py and the golden case libdevice."""
from pyk2cuda import cuda
from pyk2cuda.cuda import libdevice


@cuda.jit
def use_sincos(s, c, x):
    i = cuda.grid(1)
    if i < len(x):
        sr, cr = libdevice.sincos(x[i])
        s[i] = sr
        c[i] = cr


@cuda.jit
def use_frexp(frac, exp, x):
    i = cuda.grid(1)
    if i < len(x):
        fracr, expr = libdevice.frexp(x[i])
        frac[i] = fracr
        exp[i] = expr


@cuda.jit
def use_sad(r, x, y, z):
    i = cuda.grid(1)
    if i < len(x):
        r[i] = libdevice.sad(x[i], y[i], z[i])


@cuda.jit(device=True)
def rounded_sum(a, b):
    # the two roundings of a + b that enclose it
    return libdevice.dadd_rd(a, b), libdevice.dadd_ru(a, b)


@cuda.jit
def use_device(lo, hi, q, x, y):
    i = cuda.grid(1)
    if i < len(x):
        lo[i], hi[i] = rounded_sum(x[i], y[i])
        t = libdevice.remquo(x[i], y[i])
        q[i] = t[1]
