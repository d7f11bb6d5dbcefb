# literal_unroll() takes one tuple, as Numba's does.
from numba import cuda, literal_unroll


@cuda.jit("void(float64[:])")
def k(a):
    for z in literal_unroll((1.0, 2.0), 2):
        a[2] += z
