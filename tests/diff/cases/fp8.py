# The fp8 types of numba-cuda's numba.cuda._internal.cuda_fp8: constructors from float32,
# float64, ints, float16 and bfloat16 (cuda_fp8.h's, SATFINITE), conversions to float32,
# float16, bfloat16 (exact) and to ints (toward zero through float16, saturating).
# Debian's Numba 0.56 has no fp8: expect= functions in fp8_expected.py (NumPy).
import numpy as np
from numba import cuda, float32, float64, int32, int16
from numba.cuda.bf16 import bfloat16
from numba.cuda._internal.cuda_fp8 import fp8_e5m2, fp8_e4m3, fp8_e8m0


@cuda.jit
def fp8_convert(a, n, out, ints):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = float32(fp8_e5m2(a[i]))
        out[i, 1] = float32(fp8_e4m3(a[i]))
        out[i, 2] = float32(fp8_e8m0(a[i]))
        out[i, 3] = float32(fp8_e5m2(float64(a[i]) * 1000.0))
        out[i, 4] = float32(fp8_e4m3(float64(a[i]) * 1000.0))
        out[i, 5] = float32(fp8_e4m3(n[i]))
        out[i, 6] = float32(fp8_e5m2(np.float16(a[i])))
        out[i, 7] = float32(fp8_e4m3(bfloat16(a[i])))
        out[i, 8] = float32(np.float16(fp8_e4m3(a[i])))
        out[i, 9] = float32(bfloat16(fp8_e5m2(a[i])))
        ints[i, 0] = int32(fp8_e4m3(a[i] * float32(10)))
        ints[i, 1] = int16(fp8_e5m2(a[i] * float32(10000)))
        ints[i, 2] = int32(fp8_e8m0(a[i] * float32(4)))
        ints[i, 3] = bool(fp8_e5m2(a[i]))
