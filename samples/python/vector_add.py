# vector_add.py -- a million-element vector add with device arrays: the data is copied to the
# device once, the kernel runs there, and only the result comes back.
# Run: python3 samples/python/vector_add.py [N]
import sys

import numpy as np
from pyk2cuda import cuda


@cuda.jit
def add(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + y[i]


n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
x = np.arange(n, dtype=np.float32)
y = 2 * x
d_x, d_y = cuda.to_device(x), cuda.to_device(y)
d_out = cuda.device_array_like(x)
threads = 256
blocks = (n + threads - 1) // threads
add[blocks, threads](d_x, d_y, d_out)
out = d_out.copy_to_host()
print(out[:4])
assert np.array_equal(out, x + y)
print("vector_add: ok")
