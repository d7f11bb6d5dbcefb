# CUDA vector types (cuda.float32x4, cuda.int2, ...): constructors from numbers and from smaller
# vectors of the same base type, the lanes .x .y .z .w, vectors as device function arguments and
# results, and a tuple of vectors iterated. Numba 0.56's simulator keeps each argument as it is
# given (its vectors have no base type of their own), compiled Numba converts it to the base
# type: inputs here are values that both keep exactly (ints in range, floats exact in float32).
import numpy as np
from numba import cuda
from numba.cuda import float32x4, int2


@cuda.jit(device=True)
def scaled(v, s):
    return cuda.float32x3(v.x * s, v.y * s, v.z * s)


@cuda.jit(device=True)
def pair(a, b):
    return int2(a, b)


@cuda.jit(device=True)
def lane_sum(v):
    return v.x + v.y + v.z + v.w


@cuda.jit
def float_vectors(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = float32x4(x[i, 0], x[i, 1], x[i, 2], x[i, 3])
        w = scaled(cuda.float3(v.x, v.y, v.z), np.float32(2.0))
        f = cuda.float4(w, v.w)
        g = cuda.float32x4(cuda.float2(f.w, f.z), cuda.float32x1(v.x), x[i, 1])
        out[i, 0] = f.x
        out[i, 1] = f.y
        out[i, 2] = f.z
        out[i, 3] = f.w
        out[i, 4] = g.x
        out[i, 5] = g.y
        out[i, 6] = g.z
        out[i, 7] = g.w
        out[i, 8] = lane_sum(g)
        d = cuda.double2(x[i, 0], x[i, 1])
        out[i, 9] = d.x * d.y


@cuda.jit
def int_vectors(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        p = cuda.int4(pair(a[i], a[i] + 1), pair(a[i] * 2, 7))
        out[i, 0] = p.x + p.w
        out[i, 1] = p.y - p.z
        q = cuda.longlong3(cuda.long2(a[i], -a[i]), 5)
        out[i, 2] = q.x * q.y + q.z
        s = cuda.short2(a[i], 3)
        u = cuda.uint8x2(4, 250)
        out[i, 3] = s.x + u.y
        acc = 0
        for v in (p, cuda.int4(1, 2, 3, 4), cuda.int4(cuda.int3(a[i], a[i], a[i]), 0)):
            acc += v.x + v.y + v.z + v.w
        out[i, 4] = acc
        r = p
        if a[i] < 0:
            r = cuda.int4(0, 0, 0, 0)
        out[i, 5] = r.x + r.y
