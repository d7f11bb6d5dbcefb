# The package's GPU path on the fake driver: run by test_fake_gpu.py with PYK2CUDA_LIBCUDA set to
# libfakecuda.so and PYK2CUDA_DEVICE=gpu. Device memory is host memory there, but every call
# goes through the driver API as on a GPU.
import numpy as np

import pyk2cuda
from pyk2cuda import cuda
import fake_kernels as K

assert pyk2cuda.device_kind() == "gpu", pyk2cuda.device_kind()
assert cuda.get_current_device().name.startswith("Fake GPU"), cuda.get_current_device().name

n = 1000
a = np.arange(n, dtype=np.int32)
b = (3 * np.arange(n) - 500).astype(np.int32)

# host arrays: copied in and back by the launch
c = np.zeros(n, np.float64)
K.vecadd[4, 256](a, b, c)
assert np.array_equal(c, a + b.astype(np.float64)), c[:8]

# device arrays: the asynchronous path, on a stream
s = cuda.stream()
d_a, d_b = cuda.to_device(a, stream=s), cuda.to_device(b, stream=s)
d_c = cuda.device_array(n, np.float64)
start, end = cuda.event(), cuda.event()
start.record(s)
K.vecadd[4, 256, s](d_a, d_b, d_c)
end.record(s)
end.synchronize()
assert cuda.event_elapsed_time(start, end) > 0
out = cuda.pinned_array(n, np.float64)
d_c.copy_to_host(out, stream=s)
s.synchronize()
assert np.array_equal(out, a + b.astype(np.float64))

# a device array next to a host array, and a view through __cuda_array_interface__
x = np.arange(n, dtype=np.int64)
d_x = cuda.to_device(x)
K.accumulate[4, 256](d_x, np.ones(n, np.int64))
assert np.array_equal(d_x.copy_to_host(), x + 1)


class Foreign:
    """A GPU array from another library, seen only through the interface."""
    def __init__(self, d):
        self.d = d
        self.__cuda_array_interface__ = d.__cuda_array_interface__


K.accumulate[4, 256](Foreign(d_x), cuda.to_device(np.full(n, 2, np.int64)))
assert np.array_equal(d_x.copy_to_host(), x + 3)

# as_cuda_array: a view without a copy, which keeps its owner alive
view = cuda.as_cuda_array(Foreign(d_x))
assert view.shape == (n,) and view.dtype == np.int64
assert np.array_equal(view.copy_to_host(), x + 3)
d_y = cuda.device_array_like(view)
d_y.copy_to_device(view)
assert np.array_equal(d_y.copy_to_host(), x + 3)
view.copy_to_device(np.zeros(n, np.int64))
assert np.array_equal(d_x.copy_to_host(), np.zeros(n))

# indexing on the GPU: views of device memory and scalars read back
g = cuda.to_device(np.arange(20, dtype=np.int64).reshape(4, 5))
assert g[2, 3] == 13 and g[-1, -1] == 19
assert np.array_equal(g[1:3, ::2].copy_to_host(), np.arange(20).reshape(4, 5)[1:3, ::2])
K.accumulate[1, 32](g[1], np.full(5, 100, np.int64))
assert np.array_equal(g.copy_to_host()[1], np.arange(5, 10) + 100)

# cuda.pinned page-locks existing host arrays for the block (the fake driver records the range)
import ctypes
import os
fake = ctypes.CDLL(os.environ["PYK2CUDA_LIBCUDA"])
fake.fakecuda_registered_bytes.restype = ctypes.c_size_t
fake.fakecuda_registered_bytes.argtypes = [ctypes.c_void_p]
h = np.arange(n, dtype=np.float32)
h2 = np.zeros(n, np.float32)
with cuda.pinned(h, h2, out):
    assert fake.fakecuda_registered_bytes(h.ctypes.data) == h.nbytes
    assert fake.fakecuda_registered_bytes(out.ctypes.data) == 0  # pinned_array's: already locked
    d_h = cuda.to_device(h, stream=s)
    d_h.copy_to_host(h2, stream=s)
    s.synchronize()
assert fake.fakecuda_registered_bytes(h.ctypes.data) == 0
assert np.array_equal(h2, h)
try:
    with cuda.pinned(h):
        raise KeyError("inside")
except KeyError:
    pass
assert fake.fakecuda_registered_bytes(h.ctypes.data) == 0  # unlocked when the block raises

# round trips of other shapes and orders
m = np.asfortranarray(np.arange(12.0).reshape(3, 4))
assert np.array_equal(cuda.to_device(m).copy_to_host(), m)
assert np.array_equal(cuda.device_array((2, 3), np.int16).copy_to_host(), np.zeros((2, 3)))
print("fake gpu: ok")
