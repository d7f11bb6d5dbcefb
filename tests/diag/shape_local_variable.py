# A local variable is a shape only when it has one definition, a constant (N = 32 is); one that
# is assigned twice, is a parameter or is a loop's target is not, as in Numba.
from numba import cuda, float32


@cuda.jit("void(float32[:], int64)")
def k(out, n):
    N = 32
    sm = cuda.shared.array(N, float32)
    M = 16
    if n > 0:
        M = 8
    a = cuda.shared.array(M, float32)
    b = cuda.local.array(n, float32)
    for j in range(4):
        c = cuda.local.array((j, 2), float32)
    out[0] = sm[0] + a[0] + b[0] + c[0, 0]
