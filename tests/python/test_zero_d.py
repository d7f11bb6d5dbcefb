"""0-d arrays (issue 28) through the Python package: np.array(5.0) and np.zeros(()) as kernel
arguments (NumPy scalars stay scalars), a[()] read and written, a 0-d integer array as an index,
size/ndim/shape, 0-d device arrays (to_device, device_array(()), copy_to_host, d[()]), and 0-d
arrays captured as kernel globals (a device array by address, a host array as a constant).
Expected values are NumPy's, computed here on the same inputs."""
import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda


@cuda.jit
def add_into(r, x, y):
    r[()] = x[()] + y[()] * 2


def test_0d_host_arrays_in_and_out():
    r = np.zeros((), np.float64)
    add_into[1, 1](r, np.array(1.25), np.array(3, np.int32))
    assert r.shape == () and r[()] == 1.25 + 3 * 2


@cuda.jit
def twice(r, x):
    r[()] = x * 2


def test_numpy_scalar_is_a_scalar_and_0d_array_an_array():
    r = np.zeros((), np.float32)
    twice[1, 1](r, np.float32(1.5))    # np.float32 is a float32 scalar, not a 0-d array
    assert r[()] == 3.0
    with pytest.raises(pyk2cuda.CompileError, match=r"unsupported operand types for \*: array\(float32, 0d, C\)"):
        twice[1, 1](r, np.array(1.5, np.float32))   # 0-d array * 2 is an array expression


@cuda.jit
def pick(out, a, k):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[k] * 10 + a.ndim + k.ndim + k.size + len(k.shape)


def test_0d_integer_array_as_index():
    a = np.arange(5, dtype=np.int64) * 3
    out = np.zeros(4, np.int64)
    for k in (2, -1):
        pick[1, 4](out, a, np.array(k))
        assert out.tolist() == [a[k] * 10 + 1 + 0 + 1 + 0] * 4


@cuda.jit
def increment(a):
    if cuda.grid(1) == 0:
        a[()] += 1


def test_0d_device_arrays():
    d = cuda.to_device(np.array(41, np.int32))
    assert d.shape == () and d.ndim == 0 and d.size == 1
    increment[1, 32](d)
    host = d.copy_to_host()
    assert host.shape == () and host.dtype == np.int32 and host[()] == 42
    e = cuda.device_array((), np.float64)
    add_into[1, 1](e, np.array(0.5), np.array(1.0))
    assert e.copy_to_host()[()] == 2.5


DEV = cuda.to_device(np.array(21.0, np.float32))
HOST = np.array(4.0)


@cuda.jit
def from_globals(out):
    out[()] = DEV[()] * 2.0 + HOST[()]


def test_0d_globals():
    out = cuda.device_array((), np.float32)
    from_globals[1, 1](out)
    assert out.copy_to_host()[()] == 46.0


def test_0d_signature_and_types():
    k = cuda.jit("void(float64[()], float64[()], int32[()])")(add_into.py_func)
    r = np.zeros(())
    k[1, 1](r, np.array(1.0), np.array(2, np.int32))
    assert r[()] == 5.0
    t = pyk2cuda.types.Array(pyk2cuda.types.float64, 0, "C")
    assert str(t) == "float64[()]"
    k2 = cuda.jit((t, t, pyk2cuda.types.Array(pyk2cuda.types.int32, 0, "C")))(add_into.py_func)
    k2[1, 1](r, np.array(2.0), np.array(1, np.int32))
    assert r[()] == 4.0


def test_typeof_0d():
    assert str(pyk2cuda.typeof(np.array(5.0))) == "float64[()]"
    assert str(pyk2cuda.typeof(np.float64(5.0))) == "float64"
    assert str(pyk2cuda.typeof(cuda.device_array((), np.int32))) == "int32[()]"
