# hello_threads.py -- every thread says where it is: blockIdx, threadIdx and its global index.
# Run: python3 samples/python/hello_threads.py
import numpy as np
from pyk2cuda import cuda


@cuda.jit
def hello(ids):
    i = cuda.grid(1)
    print("block", cuda.blockIdx.x, "thread", cuda.threadIdx.x, "global", i)
    ids[i] = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x


ids = np.full(2 * 4, -1, dtype=np.int64)
hello[2, 4](ids)
assert (ids == np.arange(8)).all(), ids
print("hello_threads: ok")
