# tests/sim/cli_run.py, notes_*: a kernel without a signature, a device function, host code.
from numba import cuda


@cuda.jit(device=True)
def twice(x):
    return 2 * x


@cuda.jit
def unsigned(a):
    a[0] = twice(a[0])


@cuda.jit("void(int64[:])")
def signed(a):
    a[0] = twice(a[0])


if __name__ == "__main__":
    unsigned[1, 1](None)
