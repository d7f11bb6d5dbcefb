"""Item assignment on device arrays, `d[key] = value`, as Numba's DeviceNDArray does it: a slice,
an element, a strided view, a device or host array or a scalar as the value, broadcast over axes
of length 1 and converted to the array's dtype; an empty slice. Run with pyk2cuda
(test_device_setitem.py) and under Numba's simulator (numba_shim.py): the same lines."""
import numpy as np

from pyk2cuda import cuda

np.set_printoptions(linewidth=200)


def show(name, d):
    print("%s: %s %s" % (name, d.copy_to_host().tolist(), d.copy_to_host().dtype))


d = cuda.to_device(np.arange(10, dtype=np.int32))
d[2:5] = np.array([20, 30, 40], dtype=np.int32)       # a host array
show("host slice", d)
d[:] = cuda.to_device(np.arange(100, 110, dtype=np.int32))   # a device array
show("device whole", d)
d[::3] = cuda.to_device(np.array([-1, -2, -3, -4], dtype=np.int32))   # a strided view
show("strided", d)
d[7] = 77                                             # one element
d[-1] = np.float64(9.75)                              # converted to int32
show("element", d)
d[4:6] = 5                                            # a scalar, broadcast
show("scalar", d)

m = cuda.to_device(np.zeros((3, 4), dtype=np.float32))
m[1] = np.arange(4)                                   # a row from an int64 array
m[:, 2] = cuda.to_device(np.array([7.5, 8.5, 9.5]))   # a column: float64 to float32
m[2, 1:3] = [1, 2]                                    # a list
m[0:2, :] = np.array([[0.5], [1.5]])                  # an axis of length 1, broadcast
show("2-d", m)
f = cuda.to_device(np.asfortranarray(np.zeros((2, 3), dtype=np.int64)))
f[:, 1:] = np.array([[1, 2], [3, 4]])                 # a Fortran-ordered array
show("fortran", f)

e = cuda.device_array(0)
e[:] = cuda.to_device(range(0))                       # Numba's issue 5017: an empty slice
show("empty", e)
try:
    d[0:3] = np.arange(4, dtype=np.int32)             # a length that is not 1 or the axis's
except ValueError:
    print("wrong length: ValueError")
