# args: --sig 'vector_errors(float32[::1], int32[::1])'
from numba import cuda


@cuda.jit
def vector_errors(x, y):
    a = cuda.float32x4(1.0, 2.0, 3.0)
    b = cuda.float4(cuda.int2(1, 2), 3.0, 4.0)
    c = cuda.float2(1j, 2.0)
    v = cuda.float32x2(x[0], x[1])
    x[2] = v.z
    x[3] = v.q
    v.x = 5.0
    w = v + v
    y[0] = cuda.int2(x) .x
    u = cuda.int3(1, 2, 3, 4)
    if v:
        x[4] = 1.0
    if v == v:
        x[5] = 1.0
    print(v)
    x[6] = v
