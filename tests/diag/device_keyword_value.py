# device= takes a literal whose truth is known when the file is read (True, False, None, an int).
from numba import cuda

MODE = True


@cuda.jit(device=MODE)
def g(x):
    return x
