"""Arguments the launch refuses, each by name (docs/python.md, "Arguments"): where Numba's
simulator runs such a launch (it ignores signatures and runs the kernel in Python), pyk2cuda
either follows compiled Numba (an array of another dtype than an explicit signature's) or says
which type it lacks (datetime64 with a multiple of a unit, Enum members whose values are not numbers)."""
import enum

import numpy as np
import pytest

from pyk2cuda import cuda


class Mood(enum.Enum):
    calm = "calm"
    angry = "angry"


def test_array_of_another_dtype_than_the_signature_is_refused():
    """Compiled Numba converts an array argument only to an array type of the same dtype and
    ndim (Array.can_convert_to), so a uint32 array for int32[:, :] finds no overload: a
    TypeError, as numba-cuda's test_atomic_sub3 gets on a GPU (its simulator ignores the
    signature)."""
    @cuda.jit("void(int32[:, :])")
    def dec(a):
        a[0, 0] -= 1

    with pytest.raises(TypeError, match=r"argument 'a' is uint32\[:, ::1\], where it takes int32\[:, :\]"):
        dec[1, 1](np.ones((4, 8), dtype=np.uint32))


def test_datetime64_without_a_type_are_refused_by_name():
    """datetime64 and timedelta64 of one unit are kernel types (tests/python/test_datetime.py);
    NumPy's multiples of a unit (M8[10D]) and big-endian ones have none: an array, a scalar and
    a copy to the device are each a TypeError naming the dtype (passing the int64 counts would
    lose the multiple, a wrong result without an error)."""
    @cuda.jit
    def diff(start, end, delta):
        i = cuda.grid(1)
        if i < delta.size:
            delta[i] = end[i] - start[i]

    tens = np.arange(5).astype("datetime64[10D]")
    msg = "datetime64\\[10D\\] values are not supported: pyk2cuda's kernels take datetime64 and " \
          "timedelta64 of one unit"
    with pytest.raises(TypeError, match="argument 'start': " + msg):
        diff[1, 32](tens, tens, np.zeros(5, "timedelta64[D]"))
    with pytest.raises(TypeError, match="argument 'end': " + msg):
        diff[1, 32](np.zeros(3), tens[3], np.zeros(3))    # a datetime64 scalar
    with pytest.raises(TypeError, match="argument 'delta': >m8\\[D\\] values"):
        diff[1, 32](np.zeros(3), np.zeros(3), np.zeros(3, ">m8[D]"))
    with pytest.raises(TypeError, match="a host array: " + msg):
        cuda.to_device(tens)


def test_enum_members_whose_values_are_not_numbers():
    """An Enum member is typed as its class and passed as its value (test_enum_args.py); a value
    that is not a number or a tuple of numbers, which Numba's Enum types cannot hold either, is a
    TypeError naming the member and its class."""
    @cuda.jit
    def same(x, out):
        out[0] = x == x

    out = np.zeros(1, dtype=np.bool_)
    with pytest.raises(TypeError, match="argument 'x': <Mood.calm: 'calm'> is a member of Enum class "
                                        "'Mood' whose value is not a number or a tuple of numbers"):
        same[1, 1](Mood.calm, out)


def test_pinning_a_datetime64_scalar_is_not_a_crash():
    """NumPy exports a datetime64 scalar's buffer without the strides asked for: cuda.pinned read
    them and the interpreter died (SIGSEGV). It goes through the one buffer reader now, which
    reads datetimes through their int64 view; a unit NumPy gives a multiple is refused there."""
    with cuda.pinned(np.datetime64("2020-01-01")):
        pass
    with cuda.pinned(np.arange(4).astype("datetime64[D]")):
        pass
    with pytest.raises(TypeError, match=r"cuda.pinned\(\): datetime64\[10D\] values are not supported"):
        with cuda.pinned(np.arange(4).astype("datetime64[10D]")):
            pass
    with cuda.pinned(np.arange(4.0)):   # an ordinary array still works
        pass


@pytest.mark.parametrize("value", [2.5, 1e19, float("nan"), float("inf"), np.float64(-3.0), np.float32(7.0)])
def test_a_float_for_an_integer_parameter_of_a_signature_is_refused_by_name(value):
    """Numba's CUDA dispatcher passes an integer parameter through ctypes (c_uint64(val) in
    _prepare_args), which raises TypeError for a float; pyk2cuda used to convert with a C cast,
    undefined for NaN, inf and out-of-range values (1e19 into uint64 stored 2**63). Issue 26."""
    @cuda.jit("void(int64[::1], uint64)")
    def store(out, n):
        out[0] = n

    out = np.zeros(1, np.int64)
    with pytest.raises(TypeError, match=r"argument 'n': a float(64|32) \(.*\) cannot be passed to the uint64 parameter"):
        store[1, 1](out, value)
    assert out[0] == 0
    store[1, 1](out, 5)   # ints and bools still convert
    assert out[0] == 5
    store[1, 1](out, True)
    assert out[0] == 1
