"""@vectorize(target='cuda') ufuncs against NumPy."""
import numpy as np
import pytest

from pyk2cuda import cuda
import kernels as K


def test_arrays_and_broadcasting():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.arange(4, dtype=np.float32)
    got = K.vmul_add(a, b)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32 and got.shape == (3, 4)
    np.testing.assert_array_equal(got, a * b + 1)
    got64 = K.vmul_add(np.arange(5.0), 2.0)
    assert got64.dtype == np.float64
    np.testing.assert_array_equal(got64, np.arange(5.0) * 2 + 1)


def test_scalars_give_a_scalar():
    got = K.vsquare(7)
    assert got == 49 and np.ndim(got) == 0


def test_device_arrays_give_a_device_array():
    x = np.arange(10, dtype=np.int64)
    d = K.vsquare(cuda.to_device(x))
    assert isinstance(d, cuda._core.DeviceArray)
    np.testing.assert_array_equal(d.copy_to_host(), x * x)


def test_shapes_that_do_not_broadcast():
    with pytest.raises(Exception, match="broadcast"):
        K.vmul_add(np.zeros(3, np.float32), np.zeros(4, np.float32))
