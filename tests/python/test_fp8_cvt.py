"""numba-cuda's fp8 cvt_* intrinsics (numba.cuda._internal.cuda_fp8; docs/python.md, "fp8"), on
the simulator, bit for bit against the oracle: cuda_fp8.h's own __nv_cvt_* functions built for
the host by g++ (tests/python/fp8/cvt_oracle.cpp), over every e8m0 byte (and the bfloat16 each
gives, which is the only way a kernel builds a bfloat16_raw), and about 8,000 float32/float64 inputs around each format's rounding and overflow edges, NaNs and
infinities included. cudaRoundMode is cuda.bindings' enum, which Debian's Python lacks: a class
of the same name and values stands in for it (the translator reads members by class name)."""
import enum
import os
import shutil
import subprocess

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda
from pyk2cuda.cuda._internal.cuda_fp8 import (
    cvt_bfloat16raw_to_e8m0, cvt_bfloat16raw_to_fp8, cvt_double_to_e8m0, cvt_double_to_fp8,
    cvt_e8m0_to_bf16raw, cvt_float_to_e8m0, cvt_float_to_fp8, fp8_interpretation_t, saturation_t)

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = "/usr/local/cuda/include/cuda_fp8.h"


class cudaRoundMode(enum.IntEnum):
    """cuda.bindings.runtime.cudaRoundMode's members and values."""
    cudaRoundNearest = 0
    cudaRoundZero = 1
    cudaRoundPosInf = 2
    cudaRoundMinInf = 3


@cuda.jit
def convert(out, f, d, b, bf16):
    i = cuda.grid(1)
    if i < f.size:
        out[i, 0] = cvt_float_to_fp8(f[i], saturation_t.NOSAT, fp8_interpretation_t.E4M3)
        out[i, 1] = cvt_float_to_fp8(f[i], saturation_t.NOSAT, fp8_interpretation_t.E5M2)
        out[i, 2] = cvt_float_to_fp8(f[i], saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        out[i, 3] = cvt_float_to_fp8(f[i], saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        out[i, 4] = cvt_double_to_fp8(d[i], saturation_t.NOSAT, fp8_interpretation_t.E4M3)
        out[i, 5] = cvt_double_to_fp8(d[i], saturation_t.NOSAT, fp8_interpretation_t.E5M2)
        out[i, 6] = cvt_double_to_fp8(d[i], saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        out[i, 7] = cvt_double_to_fp8(d[i], saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        out[i, 12] = cvt_float_to_e8m0(f[i], saturation_t.NOSAT, cudaRoundMode.cudaRoundZero)
        out[i, 13] = cvt_float_to_e8m0(f[i], saturation_t.NOSAT, cudaRoundMode.cudaRoundPosInf)
        out[i, 14] = cvt_float_to_e8m0(f[i], saturation_t.SATFINITE, cudaRoundMode.cudaRoundZero)
        out[i, 15] = cvt_float_to_e8m0(f[i], saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)
        out[i, 16] = cvt_double_to_e8m0(d[i], saturation_t.NOSAT, cudaRoundMode.cudaRoundZero)
        out[i, 17] = cvt_double_to_e8m0(d[i], saturation_t.NOSAT, cudaRoundMode.cudaRoundPosInf)
        out[i, 18] = cvt_double_to_e8m0(d[i], saturation_t.SATFINITE, cudaRoundMode.cudaRoundZero)
        out[i, 19] = cvt_double_to_e8m0(d[i], saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)
        if i < 256:   # a kernel builds a bfloat16_raw only with cvt_e8m0_to_bf16raw
            raw = cvt_e8m0_to_bf16raw(i)
            bf16[i] = raw.x
            out[i, 8] = cvt_bfloat16raw_to_fp8(raw, saturation_t.NOSAT, fp8_interpretation_t.E4M3)
            out[i, 9] = cvt_bfloat16raw_to_fp8(raw, saturation_t.NOSAT, fp8_interpretation_t.E5M2)
            out[i, 10] = cvt_bfloat16raw_to_fp8(raw, saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
            out[i, 11] = cvt_bfloat16raw_to_fp8(raw, saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
            out[i, 20] = cvt_bfloat16raw_to_e8m0(raw, saturation_t.NOSAT, cudaRoundMode.cudaRoundZero)
            out[i, 21] = cvt_bfloat16raw_to_e8m0(raw, saturation_t.NOSAT, cudaRoundMode.cudaRoundPosInf)
            out[i, 22] = cvt_bfloat16raw_to_e8m0(raw, saturation_t.SATFINITE, cudaRoundMode.cudaRoundZero)
            out[i, 23] = cvt_bfloat16raw_to_e8m0(raw, saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)


def edges():
    """float64 inputs: each format's values and the midpoints between them (both signs, scaled
    into every binade the formats reach), the overflow thresholds, powers of two around 2^+-127,
    tiny and huge values, zeros, infinities and NaNs of both signs, and random ones."""
    e4 = [m * 2.0 ** e for e in range(-10, 9) for m in np.arange(8, 16) / 8]
    e5 = [m * 2.0 ** e for e in range(-17, 16) for m in np.arange(4, 8) / 4]
    base = np.array(e4 + e5 + [464, 480, 448, 57344, 61440, 65536, 2.0 ** -127, 2.0 ** 127, 2.0 ** 128,
                               1e-40, 1e-300, 1e300, 1e20, 0.0])
    mids = np.concatenate([base, base * (1 + 2.0 ** -4), base * (1 + 2.0 ** -3), base * (1 + 2.0 ** -5),
                           np.nextafter(base, np.inf), np.nextafter(base, 0)])
    rng = np.random.default_rng(28)
    rand = np.ldexp(rng.random(3000) + 0.5, rng.integers(-140, 140, 3000))
    vals = np.concatenate([mids, rand])
    vals = np.concatenate([vals, -vals, [np.inf, -np.inf, np.nan, -np.nan]])
    with np.errstate(over="ignore"):
        return vals, vals.astype(np.float32)


def run_oracle(tmp_path, f, d, b):
    exe = str(tmp_path / "oracle")
    subprocess.run([shutil.which("g++") or "g++", "-O1", "-I" + os.path.dirname(HEADER),
                    os.path.join(HERE, "fp8", "cvt_oracle.cpp"), "-o", exe], check=True)
    (tmp_path / "in.bin").write_bytes(f.tobytes() + d.tobytes() + b.tobytes())
    subprocess.run([exe, str(tmp_path / "in.bin"), str(tmp_path / "out.bin"), str(f.size)], check=True)
    data = np.fromfile(tmp_path / "out.bin", dtype=np.uint8)
    rows = data[:24 * f.size].reshape(f.size, 24)
    return rows, data[24 * f.size:].view(np.uint16)


@pytest.mark.skipif(not os.path.exists(HEADER) or not shutil.which("g++"),
                    reason="the oracle is cuda_fp8.h built by g++ (CUDA's headers and g++ absent)")
def test_every_cvt_is_the_headers_bit_for_bit(tmp_path):
    d, f = edges()
    n = d.size
    e = np.arange(n) % 256   # the bfloat16 bits cvt_e8m0_to_bf16raw(e) gives, for the first 256
    b = np.where(e == 255, 0x7fff, np.where(e == 0, 0x40, e << 7)).astype(np.uint16)
    want, want_bf16 = run_oracle(tmp_path, f, d, b)
    out = np.zeros((n, 24), np.uint8)
    bf16 = np.zeros(256, np.uint16)
    convert[(n + 127) // 128, 128](out, f, d, b, bf16)
    for col in range(24):
        rows = n if col < 8 or 12 <= col < 20 else 256
        bad = np.nonzero(out[:rows, col] != want[:rows, col])[0]
        assert bad.size == 0, (col, [(d[i], f[i], hex(out[i, col]), hex(want[i, col])) for i in bad[:5]])
    np.testing.assert_array_equal(bf16, want_bf16)


def test_numba_cudas_values():
    """The values numba-cuda's test_fp8_bindings asserts, derived by hand from cuda_fp8.h's rules:
    1e20 overflows to e5m2's infinity 0x7c (NOSAT) or 57344 0x7b (SATFINITE), to e4m3's NaN 0x7f
    or 448 0x7e; just above 2^127 rounds up to e8m0's NaN 0xff (NOSAT) or 2^127 0xfe; e8m0 127
    is bfloat16 1.0, 0x3f80."""
    r = np.zeros(8, np.uint8)

    @cuda.jit
    def k(r, x, y):
        r[0] = cvt_float_to_fp8(x[0], saturation_t.NOSAT, fp8_interpretation_t.E5M2)
        r[1] = cvt_float_to_fp8(x[0], saturation_t.SATFINITE, fp8_interpretation_t.E5M2)
        r[2] = cvt_float_to_fp8(x[0], saturation_t.NOSAT, fp8_interpretation_t.E4M3)
        r[3] = cvt_double_to_fp8(np.float64(x[0]), saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        r[4] = cvt_float_to_e8m0(y[0], saturation_t.NOSAT, cudaRoundMode.cudaRoundPosInf)
        r[5] = cvt_double_to_e8m0(np.float64(y[0]), saturation_t.SATFINITE, cudaRoundMode.cudaRoundPosInf)
        r[6] = cvt_e8m0_to_bf16raw(np.uint8(127)).x >> 8
        r[7] = cvt_e8m0_to_bf16raw(np.uint8(127)).x & 0xff

    k[1, 1](r, np.array([1e20], np.float32), np.array([np.nextafter(np.float32(2.0 ** 127), np.float32(np.inf))]))
    assert [int(v) for v in r] == [0x7c, 0x7b, 0x7f, 0x7e, 0xff, 0xfe, 0x3f, 0x80]


def test_an_argument_of_another_enum_or_a_plain_int_is_a_compile_error():
    """numba-cuda's overloads take IntEnumMember(saturation_t, int64) and so on: an int, or a
    member of another enum in that place, is a typing error naming what the place takes."""
    @cuda.jit
    def k(r, x):
        r[0] = cvt_float_to_fp8(x[0], 1, fp8_interpretation_t.E4M3)

    with pytest.raises(pyk2cuda.CompileError, match="takes a member of saturation_t as argument 2, not int64"):
        k[1, 1](np.zeros(1, np.uint8), np.zeros(1, np.float32))

    @cuda.jit
    def k2(r, x):
        r[0] = cvt_float_to_e8m0(x[0], saturation_t.NOSAT, fp8_interpretation_t.E4M3)

    with pytest.raises(pyk2cuda.CompileError, match="takes a member of cudaRoundMode as argument 3"):
        k2[1, 1](np.zeros(1, np.uint8), np.zeros(1, np.float32))
