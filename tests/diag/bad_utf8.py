from numba import cuda
# café
