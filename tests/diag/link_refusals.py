# What cuda.declare_device and link= refuse (docs/python.md, "CUDA C linked into kernels"): other
# kinds of code than CUDA C, an ABI other than numba's and C's, a declaration without a return
# type or with an array, cooperative functions, a CUSource that is not a literal.
from numba import cuda

code = 'extern "C" __device__ int f(int *r, int x) { *r = x; return 0; }'
ptx_only = cuda.declare_device('f', 'int32(int32)', link=['f.ptx', 'lib.a', 'f.weird'])
fortran = cuda.declare_device('f', 'int32(int32)', abi='fortran')
no_return = cuda.declare_device('f', '(int32,)')
arrays = cuda.declare_device('f', 'float32(float32[:])')
cooperative = cuda.declare_device('f', 'int32(int32)', use_cooperative=True)
not_literal = cuda.declare_device('f', 'int32(int32)', link=[cuda.CUSource(code)])
bad_name = cuda.declare_device('f-1', 'int32(int32)')


@cuda.jit('void(int32[:])', link=['f.fatbin', 'f.o', 'f.cubin', 'f.ltoir'])
def k(a):
    a[0] = 1
