# Type promotion of mixed operands, where the simulator and compiled Numba agree:
#   int32 + float32   -> float64  (int32 does not fit in float32)
#   int64 * float32   -> float64
#   int16 * float32   -> float32  (int16 fits in float32)
#   float32 + 0.1     -> float64  (float literals are float64)
#   float32 * 3       -> float64  (int literals are int64)
#   float32 op float32 stays float32
# The outputs are float64 and the comparison is exact, so computing any of these in
# the wrong precision shows up.
from numba import cuda
import numpy as np


@cuda.jit
def promote(i32, f32, i64, i16, out):
    i = cuda.grid(1)
    if i < i32.size:
        out[i, 0] = i32[i] + f32[i]
        out[i, 1] = i64[i] * f32[i]
        out[i, 2] = i16[i] * f32[i]
        out[i, 3] = f32[i] + 0.1
        out[i, 4] = f32[i] * 3
        out[i, 5] = f32[i] * f32[i] + f32[i]
        out[i, 6] = i32[i] / 3
        out[i, 7] = i16[i] + i16[i] * 0.5


@cuda.jit
def promote_local(f32, out):
    # a local variable that starts as float32 and is reassigned from float32 values
    # keeps float32; mixing in a float64 value in one expression widens that result
    i = cuda.grid(1)
    if i < f32.size:
        acc = np.float32(0.0)
        for k in range(4):
            acc += f32[(i + k) % f32.size]
        out[i, 0] = acc
        out[i, 1] = acc + 1e-3
