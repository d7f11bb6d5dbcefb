# The forms of raise and assert a kernel cannot have (Numba freezes an exception's class and
# arguments when it compiles): each reported where it is written. A module-level exception
# class can be raised (tests/python/test_errors.py); another class cannot.
from numba import cuda


class NotAnException:
    pass


@cuda.jit("void(float64[:], int64)")
def k(a, n):
    raise
    raise ValueError("x") from None
    raise NotAnException("custom")
    raise ValueError("a", "b")
    raise ValueError(n)
    assert n > 0, n
    assert a[0] > 0, "fine"
    raise a
