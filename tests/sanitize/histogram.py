# A histogram counting with a plain `+=` on global memory instead of an atomic: threads of one
# block and of different blocks add to the same bin.
#
# sanitize-run: buggy --grid 4 --block 64 arange:int64[256] zeros:int32[8]
# sanitize-expect: global-memory race 26:9 26:9
# sanitize-run: fixed --grid 4 --block 64 arange:int64[256] zeros:int32[8]
# sanitize-expect: clean
# sanitize-run: buggy_total --grid 4 --block 32 arange:int32[4] zeros:int32[1]
# sanitize-expect: global-memory race 38:9 38:9
# sanitize-run: fixed_total --grid 4 --block 32 arange:int32[4] zeros:int32[1]
# sanitize-expect: clean
from numba import cuda


@cuda.jit
def fixed(values, bins):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(bins, values[i] % bins.size, 1)


@cuda.jit
def buggy(values, bins):
    i = cuda.grid(1)
    if i < values.size:
        bins[values[i] % bins.size] += 1


@cuda.jit
def fixed_total(values, total):
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(total, 0, values[cuda.blockIdx.x])


@cuda.jit
def buggy_total(values, total):
    if cuda.threadIdx.x == 0:
        total[0] += values[cuda.blockIdx.x]
