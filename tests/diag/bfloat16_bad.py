from numba import cuda
import math
from numba.cuda.bf16 import bfloat16, hadd, hfma

@cuda.jit("void(float32[:])")
def k(f):
    a = bfloat16(f[0])
    b = a + f[0]                       # bfloat16 mixes with no other type
    c = a < 1.5
    d = a // a
    e = math.tan(a)                    # numba.cuda.bf16 overloads no math.tan
    g = hadd(a, 1j)
    h = max(a, f[0])
    i = float("1.5")                   # float() of a string: nan, inf and infinity only
    j = a & a
    l = hfma(a, a)
    m = isinstance(a, 3)
    n = isinstance(a + a, bfloat16)
