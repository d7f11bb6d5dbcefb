# Several CUDA C texts linked (cuda.CUSource, docs/python.md "CUDA C linked into kernels"): each
# is compiled once, in the order first named, though all share numba-cuda's default name
# <unnamed-cu>; times4's text calls times2 from the other text.
from numba import cuda

times4 = cuda.declare_device('times4', 'int32(int32)', link=[
    cuda.CUSource('extern "C" __device__ int times2(int *r, int x) { *r = 2 * x; return 0; }'),
    cuda.CUSource('extern "C" __device__ int times2(int *r, int x);\n'
                  'extern "C" __device__ int times4(int *r, int x) { int t; times2(&t, x); *r = 2 * t; return 0; }')])
times2 = cuda.declare_device('times2', 'int32(int32)',
                             link=cuda.CUSource('extern "C" __device__ int times2(int *r, int x) { *r = 2 * x; return 0; }'))


@cuda.jit('void(int32[::1], int32[::1])')
def linked_texts(r, x):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = times4(x[i]) + times2(x[i])
