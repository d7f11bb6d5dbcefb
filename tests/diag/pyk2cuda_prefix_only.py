# Only the package `pyk2cuda` itself stands for numba: a module whose name merely starts with
# it is an unknown module, so cu.syncthreads below is not the builtin.
from numba import cuda
import pyk2cudax as cu


@cuda.jit('void(float32[::1])')
def k(x):
    cu.syncthreads()
