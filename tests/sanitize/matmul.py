# A tiled matrix product missing its second barrier: a fast thread loads the next tile over
# the one its neighbours are still multiplying.
#
# sanitize-run: buggy --grid 2,2 --block 8,8 arange:float32[16,16] ones:float32[16,16] zeros:float32[16,16]
# sanitize-expect: shared-memory race 45:32 42:9
# sanitize-expect: shared-memory race 45:20 41:9
# sanitize-run: fixed --grid 2,2 --block 8,8 arange:float32[16,16] ones:float32[16,16] zeros:float32[16,16]
# sanitize-expect: clean
from numba import cuda, float32

TPB = 8


@cuda.jit
def fixed(A, B, C):
    sA = cuda.shared.array((TPB, TPB), dtype=float32)
    sB = cuda.shared.array((TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = float32(0.0)
    for i in range(A.shape[1] // TPB):
        sA[ty, tx] = A[x, ty + i * TPB]
        sB[ty, tx] = B[tx + i * TPB, y]
        cuda.syncthreads()
        for j in range(TPB):
            acc += sA[j, tx] * sB[ty, j]
        cuda.syncthreads()
    C[x, y] = acc


@cuda.jit
def buggy(A, B, C):
    sA = cuda.shared.array((TPB, TPB), dtype=float32)
    sB = cuda.shared.array((TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = float32(0.0)
    for i in range(A.shape[1] // TPB):
        sA[ty, tx] = A[x, ty + i * TPB]
        sB[ty, tx] = B[tx + i * TPB, y]
        cuda.syncthreads()
        for j in range(TPB):
            acc += sA[j, tx] * sB[ty, j]
    C[x, y] = acc
