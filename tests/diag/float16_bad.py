from numba import cuda
import math

@cuda.jit("void(float16[:], float32[:])")
def k(h, f):
    a = h[0] // h[1]
    b = h[0] % h[1]
    c = h[0] & h[1]
    d = ~h[0]
    e = math.tan(h[0])                 # numba-cuda's float16 math has no tan
    g = cuda.fp16.hadd(f[0], 1j)
    j = cuda.fp16.hfma(h[0], h[1])
    l = h[0] ** h[1]
    m = h[0].bit_count()
    n = len(h).bit_count(2)
    o = math.sin(h)
