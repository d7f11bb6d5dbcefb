# Kernels for the pytest suite, written as a pyk2cuda user writes them.
import math

import numpy as np
from pyk2cuda import cuda, float32, float64, int32, int64, void, vectorize
import pyk2cuda
import pyk2cuda as numba

TPB = 128


@cuda.jit
def add(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + y[i]


@cuda.jit
def scale_inplace(x, a):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = x[i] * a


@cuda.jit('void(float32[::1], float32)')
def scale_f32(x, a):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = x[i] * a


@cuda.jit(void(int64[::1], int32))
def fill_i32(x, v):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = v


@cuda.jit(['void(float64[:], float64)', 'void(int64[:], int64)'])
def offset(x, d):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += d


@numba.cuda.jit
def transpose(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[j, i] = a[i, j]


@cuda.jit(device=True)
def hypot2(a, b):
    return math.sqrt(a * a + b * b)


@pyk2cuda.cuda.jit
def norms(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = hypot2(x[i], y[i])


@cuda.jit
def block_sums(x, partial):
    buf = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = buf[0]


@cuda.jit
def dyn_shared(x, out):
    buf = cuda.shared.array(0, float64)
    t = cuda.threadIdx.x
    buf[t] = x[t]
    cuda.syncthreads()
    out[t] = buf[cuda.blockDim.x - 1 - t]


@cuda.jit
def index_of_thread(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i


@cuda.jit
def bad_index(x):
    i = cuda.grid(1)
    x[i + 1000] = 1.0


@vectorize(['float32(float32, float32)', 'float64(float64, float64)'], target='cuda')
def vmul_add(a, b):
    return a * b + 1


@numba.vectorize(['int64(int64)'], target='cuda')
def vsquare(a):
    return a * a


# device= is read by its truth, as Numba reads it; options that change nothing are accepted.
@cuda.jit(device=1)
def plus_one(v):
    return v + 1


@cuda.jit(device=0, max_registers=32, lineinfo=True, fastmath=False)
def apply_plus_one(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = plus_one(x[i])
