# A linked file that cannot be read: an error at the link= item naming the file (a relative path
# is read from the current directory, as Numba reads it; the diag cases run from the repository).
from numba import cuda

f = cuda.declare_device('f', 'int32(int32)', link=['tests/diag/no_such_file.cu'])


@cuda.jit('void(int32[:])')
def k(a):
    a[0] = f(a[0])
