# Kernels of tests/sim/cli_run.py: `pyk2cuda run`'s arguments, launch configuration and outputs.
from numba import cuda


@cuda.jit
def double(a, b):
    i = cuda.grid(1)
    if i < a.size:
        b[i] = a[i] * 2


@cuda.jit('void(float32[:], float32)')
def scale(a, x):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * x


@cuda.jit
def put(a, v):
    a[0] = v


@cuda.jit
def spin(a):
    # The GPU spins here until a[0] changes; so must the simulator (no finite-loop assumption).
    while a[0] == 0:
        pass


@cuda.jit
def wild(a, far):
    # Without --check-bounds, a[far] with far past the array is a wild write on the simulator.
    a[far] = 1


@cuda.jit('void(int32[:], int32)')
def fill(a, v):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = v
