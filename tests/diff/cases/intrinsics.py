# Bit and arithmetic intrinsics (popc, brev, clz, ffs, fma, cbrt, selp) and the barrier
# variants (syncthreads_count/and/or, the three fences). Numba 0.56's simulator computes the bit
# functions on 32-bit strings and as Python ints (a negative popc counts the bits of its
# absolute value, a 64-bit clz counts within 32 bits), cbrt as a ** (1/3) (NaN for negative a)
# and fma as a * b + c (rounded twice): the *_32 cases stay where the simulator is right
# (non-negative 32-bit inputs, positive cbrt arguments, fma operands whose product is exact),
# and the *_expected functions give compiled Numba's results for the rest, with NumPy.
import math

from numba import cuda
import numpy as np


@cuda.jit
def bits(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = cuda.popc(v)
        out[i, 1] = cuda.clz(v)
        out[i, 2] = cuda.ffs(v)
        out[i, 3] = cuda.brev(v)


def _width(dtype):
    return np.dtype(dtype).itemsize * 8


def bits_expected(x, out):
    n = _width(x.dtype)
    for i in range(x.size):
        u = int(x[i]) & ((1 << n) - 1)          # the value's bits
        s = format(u, "0%db" % n)
        b32 = u & 0xffffffff                     # brev converts other types to uint32
        out[i, 0] = s.count("1")
        out[i, 1] = len(s) - len(s.lstrip("0"))
        out[i, 2] = (len(s) - len(s.rstrip("0")) + 1) if u else 0
        # brev: uint64 is reversed in 64 bits, every other type as a uint32
        if x.dtype == np.uint64:
            out[i, 3] = np.uint64(int(format(u, "064b")[::-1], 2)).astype(out.dtype)
        else:
            out[i, 3] = int(format(b32, "032b")[::-1], 2)


@cuda.jit
def narrow_bits(x, out):
    """popc and clz count within an 8- or 16-bit value's own width."""
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = cuda.popc(x[i])
        out[i, 1] = cuda.clz(x[i])
        out[i, 2] = cuda.ffs(x[i])


def narrow_bits_expected(x, out):
    n = _width(x.dtype)
    for i in range(x.size):
        s = format(int(x[i]) & ((1 << n) - 1), "0%db" % n)
        out[i, 0] = s.count("1")
        out[i, 1] = len(s) - len(s.lstrip("0"))
        out[i, 2] = (len(s) - len(s.rstrip("0")) + 1) if "1" in s else 0


@cuda.jit
def float_ops(x, out):
    """fma of operands rounded to 1/16 (the product is exact, so fused and unfused agree),
    cbrt of |x|, selp of a comparison."""
    i = cuda.grid(1)
    if i < x.size:
        a = math.floor(x[i] * 16) / 16
        out[i, 0] = cuda.fma(a, a, a)
        out[i, 1] = cuda.cbrt(abs(x[i]) + 1)
        out[i, 2] = cuda.selp(x[i] > 0, x[i], -x[i])


@cuda.jit
def float32_ops(x, out):
    i = cuda.grid(1)
    if i < x.size:
        a = np.float32(math.floor(x[i] * 16) / 16)
        out[i, 0] = cuda.fma(a, a, a)
        out[i, 1] = cuda.cbrt(abs(x[i]) + np.float32(1))
        out[i, 2] = cuda.selp(x[i] > 0, x[i], -x[i])


@cuda.jit
def cbrt_negative(x, out):
    """cbrt of negative numbers is negative (the simulator gives NaN)."""
    i = cuda.grid(1)
    if i < x.size:
        out[i] = cuda.cbrt(x[i])


def cbrt_negative_expected(x, out):
    out[:] = np.cbrt(x)


@cuda.jit
def selp_ints(c, a, b, out):
    i = cuda.grid(1)
    if i < c.size:
        out[i] = cuda.selp(c[i], a[i], b[i])


@cuda.jit
def barriers(x, out):
    """syncthreads_count/and/or over each block, and the three fences."""
    i = cuda.grid(1)
    v = x[i]
    n = cuda.syncthreads_count(v > 0)
    a = cuda.syncthreads_and(v > -90)
    o = cuda.syncthreads_or(v > 90)
    cuda.threadfence_block()
    cuda.threadfence()
    cuda.threadfence_system()
    out[i, 0] = n
    out[i, 1] = a
    out[i, 2] = o
    out[i, 3] = cuda.syncthreads_count(i)


@cuda.jit
def atomic_with_fence(flags, data, seen):
    """The pattern fences exist for: write, fence, then publish with an atomic."""
    i = cuda.grid(1)
    if i < data.size:
        data[i] = i * 3
        cuda.threadfence()
        cuda.atomic.add(flags, 0, 1)
        cuda.atomic.max(seen, 0, data[i])
