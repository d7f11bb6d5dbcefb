"""Errors of cuda.shared.array and cuda.local.array in Numba's words (issue 28): a shape that is
no constant int or tuple of ints shows the call's signature as Numba's "No implementation of
function" message does, and a string that is no NumPy dtype is Numba's "Invalid NumPy dtype
specified". The expected texts are the ones Numba's own tests match (test_sm_creation,
test_localmem: compiled Numba's messages, which its simulator does not give)."""
import numpy as np
import pytest

from pyk2cuda import cuda, float32, int32, void


def shape_from_array(A):
    sa = cuda.shared.array(shape=A[0], dtype=float32)
    i = cuda.grid(1)
    A[i] = sa[i]


def shape_tuple_with_array(A):
    sa = cuda.shared.array(shape=(1, A[0]), dtype=float32)
    i, j = cuda.grid(2)
    A[i, j] = sa[i, j]


def local_shape_positional(A):
    la = cuda.local.array((1, A[0]), float32)
    A[0] = la[0, 0]


@pytest.mark.parametrize("func, sig, shown", [
    (shape_from_array, (float32[:],), ">>> array(shape=float32, dtype=class(float32))"),
    (shape_from_array, (int32[:],), ">>> array(shape=int32, dtype=class(float32))"),
    (shape_tuple_with_array, (float32[:, :],),
     ">>> array(shape=Tuple(Literal[int](1), array(float32, 1d, A)), dtype=class(float32))"),
    (shape_tuple_with_array, (int32[:, :],),
     ">>> array(shape=Tuple(Literal[int](1), array(int32, 1d, A)), dtype=class(float32))"),
    (local_shape_positional, (int32[:],), ">>> array(Tuple(Literal[int](1), int32), class(float32))"),
])
def test_a_shape_that_is_not_constant_shows_numbas_signature(func, sig, shown):
    with pytest.raises(cuda.CompileError) as e:
        cuda.jit(sig)(func)
    text = str(e.value)
    space = "local" if "local" in func.__name__ else "shared"
    assert "cuda.%s.array() needs a constant shape (an int or a tuple of ints)" % space in text
    assert "No implementation of function Function(<function %s.array" % space in text
    assert "found for signature:\n \n " + shown in text
    assert "test_alloc_errors.py:%d:" % (func.__code__.co_firstlineno + 1) in text


def shared_int33(x):
    s = cuda.shared.array(10, dtype='int33')
    s[0] = x[0]
    x[0] = s[0]


def local_int33(x):
    s = cuda.local.array(10, dtype='int33')
    s[0] = x[0]
    x[0] = s[0]


@pytest.mark.parametrize("func", [shared_int33, local_int33])
def test_a_string_that_is_no_dtype_is_numbas_invalid_dtype(func):
    with pytest.raises(cuda.CompileError, match="Invalid NumPy dtype specified: 'int33'"):
        cuda.jit(void(int32[::1]))(func)


def test_a_string_that_is_a_dtype_numba_lacks_keeps_its_message():
    def f(x):
        s = cuda.local.array(10, dtype='U3')
        x[0] = len(s)

    with pytest.raises(cuda.CompileError) as e:
        cuda.jit(void(int32[::1]))(f)
    assert "Invalid NumPy dtype" not in str(e.value)
    assert "expected a dtype such as numba.float32 or np.int32" in str(e.value)
