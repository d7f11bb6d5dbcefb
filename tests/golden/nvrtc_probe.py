# Used by tests/cli_cases.py to find out whether NVRTC is installed.
from numba import cuda


@cuda.jit("void(float32[::1])")
def probe(a):
    a[0] = 1
