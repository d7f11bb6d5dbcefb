# launch_bounds= takes one to three positive int literals (numba-cuda's).
from numba import cuda


@cuda.jit("void(int64[::1])", launch_bounds=(128, 2, 4, 8))
def too_many(out):
    out[0] = 1


@cuda.jit("void(int64[::1])", launch_bounds=(128, 0))
def zero(out):
    out[0] = 1


@cuda.jit("void(int64[::1])", launch_bounds=2.5)
def not_an_int(out):
    out[0] = 1
