# The forms of raise and assert a kernel cannot have (Numba freezes an exception's class and
# arguments when it compiles): each reported where it is written.
from numba import cuda


class MyError(Exception):
    pass


@cuda.jit("void(float64[:], int64)")
def k(a, n):
    raise
    raise ValueError("x") from None
    raise MyError("custom")
    raise ValueError("a", "b")
    raise ValueError(n)
    assert n > 0, n
    assert a[0] > 0, "fine"
    raise a
