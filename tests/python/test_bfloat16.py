"""bfloat16 from Python (docs/python.md, "bfloat16"): numba-cuda's names (cuda.bfloat16,
pyk2cuda.cuda.bf16, pyk2cuda.cuda._internal.cuda_bf16) reach the translator from a function
object's globals; results against NumPy's float32 rounded to bfloat16 by the bits (round to
nearest even), as tests/diff/cases/bfloat16_expected.py computes them."""
import math

import numpy as np
import pytest

from pyk2cuda import cuda
from pyk2cuda.cuda.bf16 import hadd, hmul, hfma, bfloat16_as_int16, int32_to_bfloat16_ru
from pyk2cuda.cuda._internal.cuda_bf16 import nv_bfloat16, htrunc, __hsub as hsub


def rne(values):
    """float32 values as bfloat16 bits (int16), to nearest even."""
    u = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16).view(np.int16)


def to_odd(x):
    """float64 values to float32 rounding to odd (toward zero, the last bit set when inexact):
    rounding that to bfloat16 rounds the float64 once."""
    f = x.astype(np.float32)
    u = f.view(np.uint32).copy()
    u[np.abs(f.astype(np.float64)) > np.abs(x)] -= 1
    u[u.view(np.float32).astype(np.float64) != x] |= 1
    return u.view(np.float32)


def test_intrinsics_and_operators_round_once():
    def kern(a, b, bits, f):
        i = cuda.grid(1)
        if i < a.size:
            x = cuda.bfloat16(a[i])
            y = nv_bfloat16(b[i])
            bits[i, 0] = bfloat16_as_int16(hadd(x, y))
            bits[i, 1] = bfloat16_as_int16(hmul(x, y))
            bits[i, 2] = bfloat16_as_int16(hfma(x, y, x))
            bits[i, 3] = bfloat16_as_int16(hsub(x, y) - y)
            bits[i, 4] = bfloat16_as_int16(int32_to_bfloat16_ru(1000001))
            f[i, 0] = np.float32(htrunc(x))
            f[i, 1] = np.float32(math.floor(y))
    rng = np.random.default_rng(5)
    a = rng.uniform(-4, 4, 40).astype(np.float32)
    b = rng.uniform(-4, 4, 40).astype(np.float32)
    bits = np.zeros((40, 5), np.int16)
    f = np.zeros((40, 2), np.float32)
    cuda.jit(kern)[1, 64](a, b, bits, f)
    x = rne(a).view(np.uint16).astype(np.uint32) << 16
    y = rne(b).view(np.uint16).astype(np.uint32) << 16
    x, y = x.view(np.float32).astype(np.float64), y.view(np.float32).astype(np.float64)
    exact = lambda v: rne(v.astype(np.float32))   # exact in float32 for these: one rounding
    np.testing.assert_array_equal(bits[:, 0], exact(x + y))
    np.testing.assert_array_equal(bits[:, 1], exact(x * y))
    d = rne((x - y).astype(np.float32)).view(np.uint16).astype(np.uint32) << 16
    np.testing.assert_array_equal(bits[:, 3], exact(d.view(np.float32).astype(np.float64) - y))
    assert (bits[:, 4] == rne([1003520])).all()   # 1000001 rounded up to 8 bits
    np.testing.assert_array_equal(f[:, 0], np.trunc(x).astype(np.float32))
    np.testing.assert_array_equal(f[:, 1], np.floor(y).astype(np.float32))
    np.testing.assert_array_equal(bits[:, 2], rne(to_odd(x * y + x)))   # exact in float64


def test_host_call_and_unknown_name_are_errors():
    with pytest.raises(Exception, match="can only be called in a kernel"):
        hadd(1, 2)
    from pyk2cuda.cuda.bf16 import no_such_intrinsic

    def kern(out):
        out[0] = np.float32(no_such_intrinsic(cuda.bfloat16(1.0)))
    with pytest.raises(cuda.CompileError if hasattr(cuda, "CompileError") else Exception,
                       match="no_such_intrinsic"):
        cuda.jit(kern)[1, 1](np.zeros(1, np.float32))


def test_bfloat16_is_supported_on_the_simulator():
    import pyk2cuda
    if pyk2cuda.device_kind() != "gpu":
        assert cuda.is_bfloat16_supported()
    assert str(cuda.bfloat16) == "bfloat16"


def test_fp8_types_construct_and_convert():
    """numba-cuda's fp8 types from Python: numba.cuda._internal.cuda_fp8's names and
    numba.cuda.api.is_fp8_supported; 300 rounds to e4m3's 288 (nearest, ties to even bits),
    1e6 saturates to its 448, e8m0 rounds 5 up to 8 (tests/diff/cases/fp8.py has the tables)."""
    from pyk2cuda.cuda._internal.cuda_fp8 import fp8_e4m3, fp8_e5m2, fp8_e8m0, saturation_t
    from pyk2cuda.cuda.api import is_fp8_supported
    import pyk2cuda
    if pyk2cuda.device_kind() != "gpu":
        assert is_fp8_supported()
    assert fp8_e4m3.__name__ == "fp8_e4m3" and saturation_t.SATFINITE == 1

    def kern(x, out, ints):
        out[0] = np.float32(fp8_e4m3(x[0]))
        out[1] = np.float32(fp8_e4m3(x[1]))
        out[2] = np.float32(fp8_e8m0(x[2]))
        out[3] = np.float32(fp8_e5m2(x[0]))
        ints[0] = np.int32(fp8_e5m2(x[3]))
    out = np.zeros(4, np.float32)
    ints = np.zeros(1, np.int32)
    cuda.jit(kern)[1, 1](np.array([300, 1e6, 5, -7.9], np.float32), out, ints)
    assert out.tolist() == [288.0, 448.0, 8.0, 320.0]
    assert ints.tolist() == [-8]   # e5m2(-7.9) is -8, toward zero -8


def test_cuda_types_float16_in_a_kernel():
    """numba-cuda's numba.cuda.types.float16 (test_warning's kernel): a float16 constructor, whose
    sine is NumPy's float16 sine (math.sin on float16 rounds the float result once)."""
    @cuda.jit
    def k(r):
        x = cuda.types.float16(1.0)
        r[0] = math.sin(x)

    r = np.zeros(1, np.float32)
    k[1, 1](r)
    assert r[0] == np.float32(np.sin(np.float16(1.0)))
