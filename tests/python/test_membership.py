"""`x in a` of an array of any dimensions walks every element, as Numba's contains does it
(np.nditer) and as NumPy answers it ((a == x).any()); Numba's CUDA simulator iterates a 2-D
array's rows instead, so NumPy is the reference here (docs/semantics.md, "Tuples")."""
import numpy as np
import pytest

from pyk2cuda import cuda


@cuda.jit
def member(xs, a, out):
    i = cuda.grid(1)
    if i < xs.size:
        out[i, 0] = xs[i] in a
        out[i, 1] = xs[i] not in a[:, ::2]
        out[i, 2] = xs[i] * 0.5 in a


@pytest.mark.parametrize("order", ["C", "F"])
def test_membership_in_arrays_of_two_dimensions(order):
    a = np.asarray(np.arange(12).reshape(3, 4) * 2 - 5, order=order)
    xs = np.arange(-8, 20)
    out = np.zeros((xs.size, 3), np.bool_)
    member[1, 32](xs, a, out)
    want = np.array([[(a == x).any(), not (a[:, ::2] == x).any(), (a == x * 0.5).any()] for x in xs])
    assert out.tolist() == want.tolist()
