"""Kernels made from function objects, as Numba makes them: nested kernels, closures, cuda.jit(sig)
on an undecorated function, Numba's signature forms, device functions defined in a function, functions made by exec of a
string (as Numba's own test_atomics makes them).
Run with pyk2cuda (test_function_objects.py) and under Numba's simulator (numba_shim.py), which
must print the same lines; each case also checks itself against NumPy."""
import numpy as np

from pyk2cuda import cuda, float32, float64, int32, void

SCALE = 3
TABLE = np.array([1.0, 2.0, 4.0, 8.0], dtype=np.float32)
SIG = "void(float32[::1], float32)"


def report(name, got, want):
    assert np.allclose(got, want), (name, got, want)
    print("%s: ok %s" % (name, np.array2string(np.asarray(got, dtype=np.float64), precision=4)))


def closures():
    n, f, h = 5, 0.5, np.float32(0.25)
    arr = np.arange(4, dtype=np.float64) * 10

    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = i * n + f + h + arr[i % 4] + TABLE[i % 4] * SCALE
    out = np.zeros(8)
    k[1, 8](out)
    i = np.arange(8)
    report("closures", out, i * n + f + h + arr[i % 4] + TABLE[i % 4] * SCALE)


def axpy(x, a):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = a * x[i] + 1


def signature_forms():
    forms = [("string", "void(float32[::1], float32)"), ("module variable", SIG),
             ("short names", "void(f4[::1], f4)"),
             ("tuple", (float32[::1], float32)), ("type objects", void(float32[::1], float32))]
    for name, sig in forms:
        k = cuda.jit(sig)(axpy)
        x = np.arange(6, dtype=np.float32)
        k[1, 6](x, 2.0)
        report("signature " + name, x, 2 * np.arange(6) + 1)


def device_functions():
    def make(offset):
        @cuda.jit(device=True)
        def shift(v):
            return v + offset
        return shift
    plus = make(7)

    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = plus(a[i]) * 2
    a = np.arange(5, dtype=np.int32)
    k[1, 5](a)
    report("device function in a function", a, (np.arange(5) + 7) * 2)


def exec_of_a_string():
    text = """
@cuda.jit(device=True)
def bump(v):
    return v + OFFSET

def extreme(res, ary):
    i = cuda.grid(1)
    if i < ary.size:
        {op}(res, 0, bump(ary[i]))
"""
    ary = np.array([1.0, 17.0, -3.0, 2.5, 0.0, 9.0, 3.0, 1.0])
    for op, start, want in (("cuda.atomic.max", 0.0, ary.max() + 4), ("cuda.atomic.min", 99.0, ary.min() + 4)):
        ns = {"cuda": cuda, "OFFSET": 4}
        exec(text.format(op=op), ns)
        k = cuda.jit("void(float64[::1], float64[::1])")(ns["extreme"])
        res = np.array([start])
        k[2, 4](res, ary)
        report("exec of a string, " + op, res[0], want)
    twice = cuda.jit(device=True)(eval("lambda v: 2 * v"))

    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = twice(a[i])
    a = np.arange(4.0)
    k[1, 4](a)
    report("eval of a lambda", a, 2 * np.arange(4.0))


class Methods:
    def test_kernel_in_a_method(self):
        @cuda.jit("void(int32[:], int32)")
        def fill(a, v):
            a[cuda.threadIdx.x] = v + cuda.threadIdx.x
        a = np.zeros(4, dtype=np.int32)
        fill[1, 4](a, int32(9))
        report("kernel in a method", a, 9 + np.arange(4))


if __name__ == "__main__":
    closures()
    signature_forms()
    device_functions()
    Methods().test_kernel_in_a_method()
    exec_of_a_string()
