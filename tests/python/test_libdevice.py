"""numba.cuda.libdevice through the Python package (docs/python.md and docs/semantics.md,
"libdevice"): the table against Numba's own, Numba's TestLibdevice kernels, every function
compiled by NVRTC (libdevice linked) and run on the device pyk2cuda picks (the simulator here),
each value compared with libdevice_reference.py's, and the errors a call can make."""
import importlib.util
import json
import math
import subprocess

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda
from pyk2cuda.cuda import libdevice, libdevicefuncs
import libdevice_every
import libdevice_kernels as kernels
import libdevice_reference as ref
from test_samples import ORACLE, has_numba

# A tuple result's class and elements, as both tables give them (Numba's test of every function
# tells tuples from scalars by isinstance(sig.return_type, (types.Tuple, types.UniTuple))).
TUPLE_KIND = r"""
def tuple_kind(t):
    if type(t).__name__ not in ("Tuple", "UniTuple"):
        return None
    return [type(t).__name__, len(t), [str(e) for e in t], [str(t[i]) for i in range(len(t))]]
"""

NUMBA_TABLE = TUPLE_KIND + r"""
import json
from numba.cuda.libdevicefuncs import functions, create_signature
out = {}
for name, (retty, args) in functions.items():
    sig = create_signature(retty, args)
    out[name] = [str(retty), [[str(a.ty), a.is_ptr] for a in args], str(sig.return_type),
                 [str(a) for a in sig.args], tuple_kind(sig.return_type)]
print(json.dumps(out))
"""


@pytest.mark.skipif(not has_numba(), reason="Debian's python3-numba is not installed")
def test_the_table_is_numbas():
    """Every function Numba 0.56 offers, with its types, out-parameters and signature."""
    p = subprocess.run([ORACLE, "-c", NUMBA_TABLE], capture_output=True, text=True, cwd="/")
    assert p.returncode == 0, p.stderr
    numba = json.loads(p.stdout)
    tuple_kind = {}
    exec(TUPLE_KIND, tuple_kind)
    tuple_kind = tuple_kind["tuple_kind"]
    ours = {}
    for name, (retty, args) in libdevicefuncs.functions.items():
        sig = libdevicefuncs.create_signature(retty, args)
        ours[name] = [str(retty), [[str(a.ty), a.is_ptr] for a in args], str(sig.return_type),
                      [str(a) for a in sig.args], tuple_kind(sig.return_type)]
    numba = {k: [("none" if v[0] == "none" else v[0])] + v[1:] for k, v in numba.items()}
    ours = {k: [("none" if v[0] == "void" else v[0])] + v[1:] for k, v in ours.items()}
    assert len(ours) == 317 and ours == numba
    assert sum(1 for v in ours.values() if v[4]) == 11   # sincos, frexp, modf, remquo, ...
    assert sorted(n for n in dir(libdevice) if not n.startswith("_")) == sorted(n[5:] for n in numba)


def test_a_function_called_on_the_host_is_an_error():
    with pytest.raises(pyk2cuda.Error, match=r"libdevice.sin\(\) can only be called in a kernel"):
        libdevice.sin(1.0)
    assert getattr(libdevice, "byte_perm").__name__ == "byte_perm"


def test_sincos():
    # Numba's TestLibdevice.test_sincos: a UniTuple result
    arr = np.arange(100, dtype=np.float64)
    s, c = np.zeros_like(arr), np.zeros_like(arr)
    kernels.use_sincos[4, 32](s, c, arr)
    np.testing.assert_allclose(np.cos(arr), c)
    np.testing.assert_allclose(np.sin(arr), s)


def test_frexp():
    # test_frexp: a Tuple result
    arr = np.linspace(start=1.0, stop=10.0, num=100, dtype=np.float64)
    frac, exp = np.zeros_like(arr), np.zeros(arr.shape, dtype=np.int32)
    kernels.use_frexp[4, 32](frac, exp, arr)
    f, e = np.frexp(arr)
    np.testing.assert_array_equal(f, frac)
    np.testing.assert_array_equal(e, exp)


def test_sad():
    # test_sad: a scalar result, of int64 arguments converted to int32 as Numba converts them
    x, y, z = np.arange(0, 200, 2), np.arange(50, 150), np.arange(15, 115)
    r = np.zeros_like(x)
    kernels.use_sad[4, 32](r, x, y, z)
    np.testing.assert_array_equal(np.abs(x - y) + z, r)


def test_out_parameters_in_a_device_function():
    x = np.array([1.0, 0.1, -3.0, 1e300, 7.5])
    y = np.array([1e-30, 0.2, 1e-20, 1e300, 2.0])
    lo, hi, q = np.zeros_like(x), np.zeros_like(x), np.zeros(5, np.int32)
    kernels.use_device[1, 8](lo, hi, q, x, y)
    for k in range(5):
        exact = ref._exact(x[k]) + ref._exact(y[k])
        assert lo[k] == ref.round_fraction(exact, ref.F64, "rd")
        assert hi[k] == ref.round_fraction(exact, ref.F64, "ru")
        assert lo[k] <= x[k] + y[k] <= hi[k]
        # remquo's quotient, x / y rounded to the nearest even integer: its sign and 3 low bits
        exact = round(ref._exact(x[k]) / ref._exact(y[k]))
        assert abs(int(q[k])) % 8 == abs(exact) % 8 and (q[k] < 0) == (exact < 0)


def test_unknown_function_and_wrong_arguments_are_compile_errors(tmp_path):
    path = tmp_path / "bad_libdevice.py"
    path.write_text("from pyk2cuda import cuda\nfrom pyk2cuda.cuda import libdevice\n\n\n"
                    "@cuda.jit\ndef bad(r, x):\n    r[0] = libdevice.nosuch(x[0])\n\n\n"
                    "@cuda.jit\ndef arity(r, x):\n    r[0] = libdevice.sin(x[0], x[0])\n\n\n"
                    "@cuda.jit\ndef cplx(r, x):\n    r[0] = libdevice.sinf(x[0] * 1j).real\n")
    spec = importlib.util.spec_from_file_location("bad_libdevice", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    r = np.zeros(1)
    for kern, line, words in [(m.bad, 7, "numba.cuda.libdevice.nosuch"),
                              (m.arity, 12, "takes 1 argument, got 2"),
                              (m.cplx, 17, "needs a real number as its argument 1 (float32), not complex128")]:
        with pytest.raises(pyk2cuda.CompileError) as info:
            kern[1, 1](r, r)
        assert words in str(info.value) and ":%d:" % line in str(info.value), str(info.value)


def _every_kernel(tmp_path):
    path = tmp_path / "libdevice_every_kernel.py"
    path.write_text(libdevice_every.source())
    spec = importlib.util.spec_from_file_location("libdevice_every_kernel", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m.every, cuda.jit(m.every)


EVERY_SIG = ("void(float64[:, ::1], float32[:, ::1], int32[:, ::1], int64[:, ::1], float64[::1], "
             "float64[::1], float64[::1], float32[::1], float32[::1], float32[::1], int32[::1], "
             "int32[::1], int32[::1], int64[::1], int64[::1], int16[::1], int32[::1])")


def test_nvrtc_links_every_function(tmp_path):
    """One kernel calls all 317; NVRTC's PTX must define each (an unresolved __nv_ would be an
    .extern .func), and read and store as a kernel that computes does."""
    pyfunc, _ = _every_kernel(tmp_path)
    ptx, _ = cuda.compile_ptx(pyfunc, EVERY_SIG, cc=(9, 0))
    assert ".extern .func" not in ptx
    assert "ld.param" in ptx and "st.global" in ptx


# Inputs: edge cases of each type (zeros of both signs, denormals, extremes, NaN, infinities,
# halves for rounding, values near the functions' special points).
D = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.1, -0.7, 3.0, 10.0, -10.0, 100.25, 1e-300,
     5e-324, -5e-324, 2.2250738585072014e-308, 1e300, -1e300, 1.7976931348623157e308, math.inf,
     -math.inf, math.nan, math.pi, 0.9999, 1e-10, 7.5, 2.0 ** 31, -2.0 ** 31 - 1, 2.0 ** 63, 4e9,
     -3.7, 0.25, 0.75, 1.0000001, 26.5, 30.0, 1.9999, 0.49999999999999994, 2.0 ** 126 * 1.5]
F_EXTRA = {17: 1e-45, 21: 3.4028234663852886e38, 26: 0.99999994}
I = [0, 1, -1, 2, 7, -7, 123456, -2 ** 31, 2 ** 31 - 1, 0x7F00FF01, -0x12345678, 0x00FF00FF,
     16777215, -16777216, 0x01020304, 3, 31, 32, -33, 1000, 0x3210, 0x7654, 65536, -65536, 9,
     0x55555555, -0x55555556, 5, 12, 100, 127, -128, 255, 2 ** 24, 2 ** 30, -2 ** 30, 17, 64,
     0x80000001 - 2 ** 32, 42, 6, 8]
L = [0, 1, -1, 2, -2 ** 63, 2 ** 63 - 1, 2 ** 53 + 1, -(2 ** 53) - 1, 0x0123456789ABCDEF,
     -0x0123456789ABCDEF, 2 ** 32, 3, 1000000007, -5, 2 ** 62, 7, 64, 2 ** 40 + 12345, 9,
     2 ** 63 - 1025, -(2 ** 62), 100, 0x5555555555555555, 12, 2 ** 24 + 1, 16777217, 31, 63, -64,
     0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, -(2 ** 31), 2 ** 31, 255, 256, 4096, 65535, 17, 2 ** 60,
     -7, 11]
H = [0, 0x3C00, -0x8000, 0x7C00, -0x400, 0x7E00, 1, 0x3FF, 0x7BFF, 0x3555, 0x3C01, -0x4400,
     0x0400, 0x7C01, -1, 0x4000, 0x5640, 0x0200, 0x03FF, 0x3800, 0x4248, 0x7BFE, 0x0001, 0x1234,
     0x2345, 0x3456, 0x4567, 0x5678, 0x6789, -0x3000, -0x3C00, 0x3BFF, 0x3C00, 0x4400, 0x4800,
     0x4C00, 0x5000, 0x5400, 0x5800, 0x5C00, 0x6000, 0x6400]
N_SMALL = [0, 1, 2, 3, 5, -1, -2, 4] * 6


def _inputs():
    n = len(D)
    xd = np.array(D)
    with np.errstate(over="ignore"):
        xf = xd.astype(np.float32)
    for k, v in F_EXTRA.items():
        xf[k] = v
    arr = {"xd": xd, "yd": np.roll(xd, 7), "zd": np.roll(xd, 13), "xf": xf,
           "yf": np.roll(xf, 7), "zf": np.roll(xf, 13)}
    xi = np.array(I[:n], dtype=np.int32)
    arr.update(xi=xi, yi=np.roll(xi, 5), zi=np.roll(xi, 11))
    xl = np.array(L[:n], dtype=np.int64)
    arr.update(xl=xl, yl=np.roll(xl, 5), xh=np.array(H[:n], dtype=np.int16),
               xn=np.array(N_SMALL[:n], dtype=np.int32))
    return arr


@pytest.fixture(scope="module")
def every_results(tmp_path_factory):
    """What the kernel calling every function wrote, with its inputs."""
    _, every = _every_kernel(tmp_path_factory.mktemp("libdevice"))
    calls, rows = libdevice_every.plan()
    arr = _inputs()
    n = len(arr["xd"])
    outs = {"od": np.zeros((rows["od"], n)), "of": np.zeros((rows["of"], n), np.float32),
            "oi": np.zeros((rows["oi"], n), np.int32), "ol": np.zeros((rows["ol"], n), np.int64)}
    every[1, 64](*([outs[k] for k in ("od", "of", "oi", "ol")] +
                   [arr[k] for k in libdevice_every.PARAMS[4:]]))
    return calls, outs, arr


def test_every_function_computes_libdevices_values(every_results):
    import libdevice_expect as expect
    calls, outs, arr = every_results
    failures = []
    for name, inputs, places in calls:
        got = [outs[a][row] for a, row in places]
        try:
            failures += expect.check(name, [arr[a] for a in inputs], got)
        except Exception as e:   # a reference that cannot be computed is a failure of the test
            failures.append("%s: %s: %s" % (name, type(e).__name__, e))
    assert not failures, "%d differences:\n%s" % (len(failures), "\n".join(failures[:60]))
