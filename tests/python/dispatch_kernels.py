# Kernels of tests/python/test_dispatch_fronts.py: explicit signatures, so that a launch chooses
# among them and converts its scalars, from Python and from `pyk2cuda run` alike.
from pyk2cuda import cuda, vectorize


@cuda.jit("void(float32[::1], float32)")
def scale(a, s):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = s


@cuda.jit(["void(int32[::1], int32)", "void(float64[::1], float64)"])
def pick(a, v):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = v


@cuda.jit("void(int32[::1], int32)")
def fill(a, v):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = v


@cuda.jit("void(float32[:, :], float32)")
def any_layout(a, v):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = v * (i + 1) + j


@cuda.jit("void(int32[::1], [char x 4][::1])")
def chars(a, s):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 4


@cuda.jit("void(int32[::1], datetime64[D][::1])")
def days(a, d):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 5


@cuda.jit("void(float64[::1], Record(x[type=int32;offset=0],y[type=float64;offset=8];16;True)[::1])")
def records(a, r):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = r[i].x + r[i].y


@cuda.jit("void(float64[::1], UniTuple(float64 x 2))")
def pair(a, t):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = t[0] + t[1]


@cuda.jit("void(int64[::1], Tuple(int64, UniTuple(int32 x 2)))")
def nested(a, t):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = t[0] + t[1][0] * t[1][1]


@cuda.jit
def first(a, t):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = t[0]


@vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
def vadd(a, b):
    return a + b
