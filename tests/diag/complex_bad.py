from numba import cuda
import math
import cmath

@cuda.jit("void(complex128[:], float64[:])")
def k(z, x):
    a = z[0]
    if a < z[1]:
        x[0] = 1.0
    b = a // 2
    c = a % 2
    d = a & 1
    x[1] = a
    e = float(a)
    f = int(a)
    g = math.sqrt(a)
    print(a)
    h = cmath.rect(a, 1.0)
    i = complex(a, a)
    j = a.conjugate(1)
    l = a.angle()
    m = z.real
    n = ~a
