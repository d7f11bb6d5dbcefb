# numba-cuda's fp8 cvt_* intrinsics (docs/python.md, "fp8"): storage bytes and bfloat16 bits
# (bfloat16_raw, read through .x) converted as cuda_fp8.h's __nv_cvt_* functions, the enums'
# members passed as the header's values. The enums are classes of the file here, as the Python
# package freezes them (the command line does not know cuda_fp8's enums by their module yet).
from enum import IntEnum

from numba import cuda
from numba.cuda._internal.cuda_fp8 import (cvt_bfloat16raw_to_fp8, cvt_double_to_e8m0, cvt_e8m0_to_bf16raw,
                                           cvt_float_to_fp8)


class saturation_t(IntEnum):
    NOSAT = 0
    SATFINITE = 1


class fp8_interpretation_t(IntEnum):
    E4M3 = 0
    E5M2 = 1


class cudaRoundMode(IntEnum):
    cudaRoundNearest = 0
    cudaRoundZero = 1
    cudaRoundPosInf = 2
    cudaRoundMinInf = 3


@cuda.jit('void(uint8[::1], uint16[::1], float32[::1], float64[::1])')
def fp8_cvt(out, bits, x, y):
    i = cuda.grid(1)
    if i < x.size:
        raw = cvt_e8m0_to_bf16raw(out[i])
        bits[i] = raw.x
        out[i] = cvt_float_to_fp8(x[i], saturation_t.SATFINITE, fp8_interpretation_t.E4M3)
        out[i] += cvt_bfloat16raw_to_fp8(raw, saturation_t.NOSAT, fp8_interpretation_t.E5M2)
        out[i] += cvt_double_to_e8m0(y[i], saturation_t.NOSAT, cudaRoundMode.cudaRoundPosInf)
