# Generalized ufuncs (@guvectorize): each becomes a device function (the core) and a kernel of
# its name, one thread per loop index, with the signatures' arrays one dimension larger.
import numba
from numba import guvectorize, float32, float64, void


@guvectorize([void(float32[:, :], float32[:, :], float32[:, :]),
              void(float64[:, :], float64[:, :], float64[:, :])], '(m,n),(n,p)->(m,p)', target='cuda')
def matmul(A, B, C):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            s = 0.0
            for k in range(A.shape[1]):
                s += A[i, k] * B[k, j]
            C[i, j] = s


@numba.guvectorize(['void(float32, float32[::1], float32[::1], float32[::1])'], '(),(t),(t)->(t)',
                   target='cuda')
def saxpy(a, x, y, out):
    for i in range(out.shape[0]):
        out[i] = a * x[i] + y[i]


@guvectorize([(float64[:], float64[:], float64[:])], '(n),(n)->()', target='cuda')
def dot(x, y, r):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * y[i]
    r[0] = s


# Several outputs (numba-cuda): the kernel passes each its slice, as it does the inputs.
@guvectorize([void(float64[:], float64[:], float64[:], float64[:])], '(n),(n)->(),(n)', target='cuda')
def dot_and_sum(a, b, d, s):
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
        s[i] = a[i] + b[i]
    d[0] = acc
