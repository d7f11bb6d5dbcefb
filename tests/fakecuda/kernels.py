# Kernels for the GPU runtime's tests on the fake driver (tests/fakecuda/fakecuda.c runs a C
# version of each under the same name). Each also runs under Numba's simulator.
from numba import cuda


@cuda.jit
def scale2d(out, x, a):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = x[i, j] * a


@cuda.jit
def accumulate(x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] += y[i]


@cuda.jit
def fault(x):
    # On the fake driver this kernel touches memory far outside x (an illegal address).
    if cuda.grid(1) == 0:
        x[0] = 1


@cuda.jit
def empty():
    pass


@cuda.jit
def grid_step(x):
    # A grid sync: launched cooperatively (the fake driver records it; it has no C version).
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] += 1
    g.sync()


@cuda.jit
def oob(x):
    # Launched with more threads than x has elements: the extra threads index out of bounds,
    # which --check-bounds reports (the fake driver fills the failure record as the generated
    # code would).
    i = cuda.grid(1)
    x[i] = i


@cuda.jit
def tuple_axpy(t):
    a, x, y = t
    i = cuda.grid(1)
    if i < y.size:
        y[i] += a * x[i]
