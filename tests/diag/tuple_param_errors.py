# Tuple parameters: a namedtuple field that does not exist, a namedtuple's field stored to, a
# heterogeneous tuple indexed at run time, a tuple in a ufunc's signature.
from numba import cuda, vectorize

@cuda.jit("void(int64[::1], NamedTuple(Point, x=int64, y=float64), Tuple(int64, float64))")
def fields(r, p, t):
    r[0] = p.z
    p.x = 1
    r[1] = t[r[0]]

@vectorize(["float64(UniTuple(float64 x 2))"], target="cuda")
def pairwise(t):
    return t[0]
