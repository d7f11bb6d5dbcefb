"""datetime64 and timedelta64 through the Python package (docs/python.md, "Datetimes"):
datetime_args.py against Numba's simulator, and the conversions Numba refuses."""
import os

import numpy as np
import pytest

from pyk2cuda import cuda
from conftest import HERE, run_script
from test_samples import has_numba, numba_simulator_output

SCRIPT = os.path.join(HERE, "datetime_args.py")


def test_datetime_arguments_match_numba_simulator():
    rc, ours, err = run_script([SCRIPT])
    assert rc == 0, ours + err
    assert ours.count("\n") == 10, ours
    if not has_numba():
        pytest.skip("Numba's simulator (Debian's python3-numba) is not installed")
    assert numba_simulator_output(SCRIPT) == ours


def test_device_array_round_trip_of_every_unit():
    """Each unit's array goes to the device and back unchanged, NaT included, and keeps its
    dtype; a device array made with a datetime dtype has it."""
    for unit in ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", ""):
        for kind in ("M8", "m8"):
            dtype = np.dtype("%s[%s]" % (kind, unit) if unit else kind)
            host = np.array([0, -5, np.iinfo(np.int64).min, 12345], np.int64).view(dtype)
            dev = cuda.to_device(host)
            assert dev.dtype == dtype
            back = dev.copy_to_host()
            assert back.dtype == dtype and (back.view(np.int64) == host.view(np.int64)).all()
            assert cuda.device_array(2, dtype=dtype).dtype == dtype


def test_a_scalar_of_another_unit_is_refused():
    """Numba converts no datetime to another unit or type when it matches an explicit
    signature: a datetime64[s] scalar for a datetime64[D] parameter, or an int, finds no
    overload (pyk2cuda's TypeError names the types)."""
    @cuda.jit("void(datetime64[D][::1], datetime64[D])")
    def fill(out, v):
        out[0] = v

    out = np.zeros(1, "datetime64[D]")
    fill[1, 1](out, np.datetime64("2020-01-02"))
    assert out[0] == np.datetime64("2020-01-02")
    with pytest.raises(TypeError):
        fill[1, 1](out, np.datetime64("2020-01-02T00:00:01"))
    with pytest.raises(TypeError):
        fill[1, 1](out, 5)


def test_identity_is_equality():
    """`is` of two values of one datetime type is their == (Numba's generic_is), so NaT is not
    NaT: compiled Numba 0.56 (@njit, checked by hand) gives (True, False, True, True) for the
    same four operations; the simulator would show CPython's object identity instead."""
    @cuda.jit
    def ident(a, out):
        x = a[0]
        y = a[1]
        out[0] = x is x
        out[1] = y is y
        out[2] = x is not y
        out[3] = y is not y

    out = np.zeros(4, np.bool_)
    ident[1, 1](np.array([5, np.iinfo(np.int64).min], "m8[s]"), out)
    assert out.tolist() == [True, False, True, True]


def test_view_reads_the_same_memory_as_numpys_view():
    """DeviceArray.view(dtype), Numba's DeviceNDArray.view: what NumPy's view of the same array
    gives (datetimes as int64, numba-cuda's test_datetime), the last axis rescaled for a dtype of
    another size, and Numba's ValueErrors where the bytes do not divide or the array is not
    C-contiguous; the view's gpu_data equals its array's."""
    days = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    for host, dtype in ((days, np.int64), (days - days[0], np.int64),
                        (np.arange(12, dtype=np.float32).reshape(3, 4), np.uint8),
                        (np.arange(12, dtype=np.float32).reshape(3, 4), np.float64),
                        (np.arange(6, dtype=np.int64), "datetime64[s]")):
        d = cuda.to_device(host)
        v = d.view(dtype)
        expected = host.view(dtype)
        assert v.dtype == expected.dtype and v.shape == expected.shape, (host.dtype, dtype)
        np.testing.assert_array_equal(v.copy_to_host(), expected)
        assert v.gpu_data == d.gpu_data
    with pytest.raises(ValueError, match="must be a divisor"):
        cuda.to_device(np.zeros(3, np.float32)).view(np.float64)
    with pytest.raises(ValueError, match="must be C-contiguous"):
        cuda.to_device(np.zeros((4, 4), np.float32))[:, :2].view(np.float64)


def test_from_dtype_of_datetimes_types_ufuncs():
    """numba.np.numpy_support.from_dtype of datetime64[D] and timedelta64[D] (Numba's
    NPDatetime('D'), NPTimedelta('D')): signatures of a vectorize and a guvectorize for CUDA,
    whose results equal NumPy's (numba-cuda's test_datetime.test_ufunc and test_gufunc)."""
    from pyk2cuda import guvectorize, vectorize
    from pyk2cuda.types import from_dtype
    datetime_t, timedelta_t = from_dtype(np.dtype("datetime64[D]")), from_dtype(np.dtype("timedelta64[D]"))
    assert (str(datetime_t), str(timedelta_t)) == ("datetime64[D]", "timedelta64[D]")
    with pytest.raises(TypeError, match="multiple"):
        from_dtype(np.dtype("datetime64[10D]"))

    @vectorize([(datetime_t, datetime_t)], target="cuda")
    def timediff(start, end):
        return end - start

    @guvectorize([(datetime_t, datetime_t, timedelta_t[:])], "(),()->()", target="cuda")
    def timediff_g(start, end, out):
        out[0] = end - start

    start = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    end = start + np.arange(start.size) * 37 % 1000
    for got in (timediff(start, end), timediff_g(start, end)):
        assert got.dtype == np.dtype("timedelta64[D]")
        np.testing.assert_array_equal(got, end - start)
