# Module-level constants built from constants (issue 12): NumPy scalars keep their type
# (np.float32 rounds, np.int32 stays 32-bit in arithmetic), int()/float() conversions, and
# arithmetic on them with NumPy 1.x's promotion for scalars (float32 * 3 is float64).
from numba import cuda
import numpy as np

BLOCKS = 10
F32 = np.float32(0.1)
I32 = np.int32(7)
I64 = np.int64(BLOCKS)
QUARTER = int(BLOCKS / 4)
FLOATED = float(BLOCKS) * 2
F32_TIMES_INT = F32 * 3
F32_TIMES_F32 = F32 * np.float32(3)
F64_THIRD = np.float64(1) / 3
SMALL = np.uint8(200) + np.uint8(50)
NEG16 = -np.int16(5)
FROM_FLOAT = np.int32(-2.75)
INF32 = np.float32("inf")


@cuda.jit
def use_numpy_constants(x, out_f, out_i):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        f = v * F32                # float32 * float32: float32 arithmetic
        out_f[i, 0] = f
        out_f[i, 1] = v * F32_TIMES_INT
        out_f[i, 2] = v + F32_TIMES_F32
        out_f[i, 3] = v * F64_THIRD + FLOATED
        out_f[i, 4] = min(v, INF32)
        out_i[i, 0] = I32 * i
        out_i[i, 1] = I64 + QUARTER * i
        out_i[i, 2] = SMALL - i
        out_i[i, 3] = NEG16 * i + FROM_FLOAT
        out_i[i, 4] = I32 // 2 + (i % I32)
