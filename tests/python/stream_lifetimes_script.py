# Arrays whose last Python reference is dropped while work queued on a stream still uses them
# (test_fake_gpu.py runs it on the fake driver with FAKECUDA_STREAM_USES=1, where freeing
# memory that queued work uses leaves a fault for the next synchronize; test_memory.py runs it
# on the simulator). The memory must outlive the work: the stream keeps it until synchronized.
import gc

import numpy as np

import pyk2cuda
from pyk2cuda import cuda
import fake_kernels as K

n = 1000
a = np.arange(n, dtype=np.int32)
b = (7 * np.arange(n) - 300).astype(np.int32)
want = a + b.astype(np.float64)

# device arrays of a launch on a stream, and the pinned host array of a copy on it
s = cuda.stream()
d_c = cuda.device_array(n, np.float64)
K.vecadd[4, 256, s](cuda.to_device(a, stream=s), cuda.to_device(b, stream=s), d_c)
host = cuda.pinned_array(n, np.float64)
d_c.copy_to_host(host, stream=s)
del d_c
gc.collect()
s.synchronize()
assert np.array_equal(host, want), host[:8]

# a pinned host array given to an asynchronous copy to the device, dropped before the copy ends
p = cuda.pinned_array(n, np.int32)
p[:] = a
d_p = cuda.device_array(n, np.int32)
d_p.copy_to_device(p, stream=s)
del p
gc.collect()
s.synchronize()
assert np.array_equal(d_p.copy_to_host(), a)

# the default stream: a launch's arrays dropped before cuda.synchronize()
d_c = cuda.device_array(n, np.float64)
K.vecadd[4, 256](cuda.to_device(a), cuda.to_device(b), d_c)
gc.collect()
cuda.synchronize()
assert np.array_equal(d_c.copy_to_host(), want)

# a stream dropped with its work queued: its arrays outlive it too
s2 = cuda.stream()
x = cuda.to_device(np.arange(n, dtype=np.int64), stream=s2)
K.accumulate[4, 256, s2](x, cuda.to_device(np.full(n, 5, np.int64), stream=s2))
del s2
gc.collect()
cuda.synchronize()
assert np.array_equal(x.copy_to_host(), np.arange(n) + 5)

# read-only host memory for parameters the kernel only reads: never written, not even by the
# copy back after a launch with host arrays (this mapping cannot be written at all)
import mmap
ro = mmap.mmap(-1, 4 * n, prot=mmap.PROT_READ)
zeros = np.frombuffer(ro, dtype=np.int32)
c = np.full(n, -1.0)
K.vecadd[4, 256](zeros, zeros, c)
assert np.array_equal(c, np.zeros(n))
try:
    K.vecadd[4, 256](a, b, np.frombuffer(ro, dtype=np.float64)[:n // 2])
except ValueError as e:
    assert "argument 'c' of kernel 'vecadd': the array is read-only" in str(e), e
else:
    raise AssertionError("a read-only output was accepted")
print("stream lifetimes on the %s: ok" % pyk2cuda.device_kind())
