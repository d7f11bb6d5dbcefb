"""cuda.kernels.transpose (numba.cuda.kernels.transpose, issue 28): the transpose of a 2-D array
into a new or a given device array, by a tiled kernel, for every kind of element. NumPy's .T is
the reference (Numba's simulator has no device-array transpose to compare with)."""
import numpy as np
import pytest

from pyk2cuda import cuda
from pyk2cuda.kernels import transpose

RECORD = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


@pytest.mark.parametrize("rows, cols, dtype", [(5, 6, np.float64), (33, 64, np.complex128),
                                               (1025, 40, np.int16), (1, 1, np.uint8)])
def test_transpose_into_a_new_array(rows, cols, dtype):
    x = (np.arange(rows * cols) * 3 - 7).astype(dtype).reshape(cols, rows)
    got = transpose(cuda.to_device(x))
    assert got.shape == (rows, cols) and got.dtype == x.dtype and got.is_c_contiguous()
    np.testing.assert_array_equal(got.copy_to_host(), x.T)


@pytest.mark.parametrize("rows, cols", [(2, 3), (16, 17), (17, 16), (32, 33)])
def test_transpose_into_a_given_array_bools_and_records(rows, cols):
    rng = np.random.default_rng(rows * 100 + cols)
    flags = rng.integers(0, 2, size=(rows, cols)).astype(np.bool_)
    out = cuda.device_array_like(flags.T)
    assert transpose(cuda.to_device(flags), out) is out
    np.testing.assert_array_equal(out.copy_to_host(), flags.T)
    rec = np.zeros((rows, cols), RECORD)
    rec["i"] = np.arange(rows * cols).reshape(rows, cols) ** 2
    rec["j"] = rng.random((rows, cols, 3, 2), dtype=np.float32)
    out = cuda.device_array_like(rec.T)
    transpose(cuda.to_device(rec), out)
    np.testing.assert_array_equal(out.copy_to_host(), rec.T)


def test_transpose_of_views_host_arrays_and_on_a_stream():
    a = np.arange(120, dtype=np.int64).reshape(10, 12)
    np.testing.assert_array_equal(transpose(cuda.to_device(a)[::2, 1::3]).copy_to_host(),
                                  a[::2, 1::3].T)
    np.testing.assert_array_equal(transpose(a).copy_to_host(), a.T)   # a host array
    s = cuda.stream()
    d = cuda.to_device(a, stream=s)
    t = transpose(d)
    assert t.stream is s
    s.synchronize()
    np.testing.assert_array_equal(t.copy_to_host(), a.T)
    np.testing.assert_array_equal(transpose(cuda.device_array((0, 4))).shape, (4, 0))


def test_transpose_refuses_what_is_not_a_transpose():
    with pytest.raises(ValueError, match="2-D"):
        transpose(cuda.to_device(np.zeros(4)))
    with pytest.raises(ValueError, match=r"b has shape \(2, 3\)"):
        transpose(cuda.to_device(np.zeros((2, 3))), cuda.device_array((2, 3)))


def test_served_as_numba_cuda_kernels_transpose():
    import sys
    assert cuda.kernels.transpose.transpose is transpose      # a module, as Numba's
    assert sys.modules["pyk2cuda.cuda.kernels.transpose"].transpose is transpose


def test_from_array_like_as_numba():
    y = np.zeros((4, 3), np.float32)
    d = cuda.cudadrv.devicearray.from_array_like(y)
    assert d.shape == y.shape and d.strides == y.strides and d.dtype == y.dtype
    f = cuda.devicearray.from_array_like(np.asfortranarray(y))
    assert f.strides == np.asfortranarray(y).strides
    with pytest.raises(ValueError, match="not those of a contiguous array"):
        cuda.devicearray.from_array_like(y[::2])
