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


def test_a_ufunc_is_translated_when_decorated():
    # Numba compiles a vectorize with signatures at decoration; so does pyk2cuda, once: an
    # error is raised there, at the user's line, and calls reuse the translation.
    import pyk2cuda
    with pytest.raises(pyk2cuda.CompileError, match=r"test_vectorize.py:\d+:\d+: error: .*nowhere"):
        @pyk2cuda.vectorize(['float64(float64)'], target='cuda')
        def broken(x):
            return x + nowhere  # noqa: F821

    @pyk2cuda.vectorize(['float64(float64)', 'int64(int64)'], target='cuda')
    def twice(x):
        return 2 * x
    for _ in range(3):  # both signatures, alternately, on the one translated module
        np.testing.assert_array_equal(twice(np.arange(4.0)), np.arange(4.0) * 2)
        got = twice(np.arange(4))
        assert got.dtype == np.int64 and list(got) == [0, 2, 4, 6]
