# A recursive function whose tuple result holds its own result: its type would have to hold
# itself, so it never converges (Numba's words; numba-cuda's test_growing_return_tuple).
from numba import cuda


@cuda.jit(device=True)
def make_list(n):
    if n <= 0:
        return None
    return (n, make_list(n - 1))


@cuda.jit("void()")
def kernel():
    make_list(100)
