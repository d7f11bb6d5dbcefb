# A kernel's illegal address on the GPU (test_gpu.py runs this in a process of its own, since
# the fault is the device's for the rest of the process): the error says the CUDA context is
# lost, and the next launch's error says so too.
import numpy as np

import pyk2cuda
from pyk2cuda import cuda


@cuda.jit
def wild(x):
    x[1 << 40] = 1   # 8 TiB past a 32-byte array: no allocation is there


@cuda.jit
def fine(x):
    x[0] = 1


d = cuda.to_device(np.zeros(4))
messages = []
try:
    wild[1, 1](d)
    cuda.synchronize()
except pyk2cuda.Error as e:
    messages.append(str(e))
try:
    fine[1, 1](cuda.to_device(np.zeros(4)))
    cuda.synchronize()
except pyk2cuda.Error as e:
    messages.append(str(e))
for m in messages:
    print("message:", m)
assert len(messages) == 2, messages
for m in messages:
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in m and "context is lost" in m, m
print("sticky fault on the gpu: ok")
