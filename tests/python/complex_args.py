"""Complex scalars as kernel arguments, as Numba passes them: a Python complex is complex128, a
NumPy complex64 stays complex64, an explicit signature converts ints, floats and complex128 to
its complex type; complex numbers inside tuples. Run with pyk2cuda (test_complex_args.py) and
under Numba's simulator (numba_shim.py), which must print the same lines."""
import numpy as np

from pyk2cuda import cuda

np.set_printoptions(linewidth=200)


def report(name, *arrays):
    print("%s: %s" % (name, " | ".join(np.array2string(np.asarray(a)) for a in arrays)))


@cuda.jit
def axpy(a, x, y):
    i = cuda.grid(1)
    if i < y.size:
        y[i] = a * x[i] + y[i]


@cuda.jit("void(complex64[::1], complex64)")
def shift64(a, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += b


@cuda.jit
def parts(r, t):
    r[0] = t[0].real
    r[1] = t[0].imag
    r[2] = t[1].imag + t[2]


def main():
    x = np.arange(4, dtype=np.complex128)
    y = np.ones(4, np.complex128)
    axpy[1, 4](2 - 1j, x, y)
    report("complex128", y)
    x32, y32 = x.astype(np.complex64), np.zeros(4, np.complex64)
    axpy[1, 4](np.complex64(0.5 + 0.25j), x32, y32)
    report("complex64", y32)
    a = np.zeros(3, np.complex64)
    shift64[1, 3](a, 1.5 + 2j)
    shift64[1, 3](a, 2)
    report("converted", a)
    r = np.zeros(3)
    parts[1, 1](r, (3 - 4j, np.complex64(1j), 0.5))
    report("in a tuple", r)


main()
