# a[()] is how Numba reads and writes the element of a 0-d array (Numba's test_caching uses it);
# pyk2cuda's kernels take no 0-d arrays, so it is refused at its location, not an internal error.
from numba import cuda

@cuda.jit("void(float32[:])")
def k(a):
    a[()] = 1.0
