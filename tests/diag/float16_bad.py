from numba import cuda
import math

@cuda.jit("void(float16[:], float32[:])")
def k(h, f):
    a = h[0] // h[1]
    b = h[0] % h[1]
    c = h[0] & h[1]
    d = ~h[0]
    e = math.sin(h[0])
    g = cuda.fp16.hadd(f[0], 1j)
    j = cuda.fp16.hfma(h[0], h[1])
    l = h[0] ** h[1]
