# matmul.py -- tiled matrix multiply C = A @ B in float32 with shared memory.
#
# Shows: a 2-D grid, two TPB x TPB tiles in shared memory
# (cuda.shared.array((TPB, TPB), dtype=float32)), cuda.syncthreads() between
# loading a tile and using it, and bounds checks so that matrices whose sizes
# are not multiples of TPB work too (threads outside load zeros).
# Each block computes one TPB x TPB tile of C; threadIdx.x walks the columns,
# so neighbouring threads read neighbouring elements (coalesced loads).
#
# Run it with pyk2cuda (64x64 matrices of ones: every element of C is 64):
#   pyk2cuda run samples/matmul.py matmul --grid 4,4 --block 16,16 ones:float32[64,64] ones:float32[64,64] zeros:float32[64,64]
# (any float32 matrices saved with np.save work too: `matmul a.npy b.npy zeros:float32[M,N]`.)
# Run it with Numba's CUDA simulator (no GPU needed):
#   NUMBA_ENABLE_CUDASIM=1 python3 samples/matmul.py

from numba import cuda, float32
import numpy as np

TPB = 16   # tile size: threads per block in each dimension


@cuda.jit
def matmul(A, B, C):
    sA = cuda.shared.array((TPB, TPB), dtype=float32)
    sB = cuda.shared.array((TPB, TPB), dtype=float32)

    col, row = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    M, K = A.shape
    N = B.shape[1]

    acc = np.float32(0.0)
    for t in range((K + TPB - 1) // TPB):
        # Load one tile of A and one of B; zeros past the edges.
        k = t * TPB + tx
        if row < M and k < K:
            sA[ty, tx] = A[row, k]
        else:
            sA[ty, tx] = 0.0
        k = t * TPB + ty
        if k < K and col < N:
            sB[ty, tx] = B[k, col]
        else:
            sB[ty, tx] = 0.0
        cuda.syncthreads()     # the tiles are complete

        for kk in range(TPB):
            acc += sA[ty, kk] * sB[kk, tx]
        cuda.syncthreads()     # everyone is done with the tiles before they are overwritten

    if row < M and col < N:
        C[row, col] = acc


if __name__ == "__main__":
    rng = np.random.default_rng(3)
    M, K, N = 30, 20, 28          # deliberately not multiples of TPB
    A = rng.uniform(-1.0, 1.0, size=(M, K)).astype(np.float32)
    B = rng.uniform(-1.0, 1.0, size=(K, N)).astype(np.float32)
    C = np.zeros((M, N), dtype=np.float32)

    block = (TPB, TPB)
    grid = ((N + TPB - 1) // TPB, (M + TPB - 1) // TPB)   # x walks columns, y walks rows
    matmul[grid, block](A, B, C)

    expected = A.astype(np.float64) @ B.astype(np.float64)
    assert np.allclose(C, expected, rtol=1e-5, atol=1e-5), np.abs(C - expected).max()
    print("matmul: ok")
