from numba import cuda
import math
from numba.cuda._internal.cuda_fp8 import fp8_e4m3, fp8_e5m2

@cuda.jit("void(float32[:])")
def k(f):
    a = fp8_e4m3(f[0])
    b = fp8_e5m2(f[1])
    c = a + a                          # the fp8 types have no arithmetic
    d = a < a
    e = -b
    g = abs(a)
    h = max(a, a)
    i = math.sqrt(b)
    j = a * f[0]
