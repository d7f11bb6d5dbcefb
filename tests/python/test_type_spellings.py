"""The one table of scalar type names (p2c_type_spelling, src/types/types.c): every name it says
numba.core.types has means there what it means here, the package's type objects are made from it,
and a name means one thing whether it is written in a signature string or as an object
(`float_` is float32 in both, as in Numba)."""
import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import _core, cuda, types
from numba.core import types as numba_types


def test_every_numba_name_of_the_table_means_what_numba_says():
    rows = _core.type_spellings()
    assert len(rows) > 40
    for name, canonical, in_numba in rows:
        if in_numba:
            assert str(getattr(numba_types, name)) == canonical, name
            assert str(getattr(types, name)) == canonical, name
        else:
            assert not hasattr(numba_types, name), name


def test_numbas_c_and_short_names_are_all_in_the_table():
    names = {name for name, _, _ in _core.type_spellings()}
    for name in ["float_", "double", "int_", "long_", "longlong", "uint", "ulong", "intc", "uintc",
                 "char", "uchar", "short", "ushort", "ssize_t", "size_t", "byte", "intp", "uintp",
                 "b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"]:
        assert name in names and hasattr(numba_types, name), name


@pytest.mark.parametrize("sig", ["void(float_[::1])", types.void(types.float_[::1])],
                         ids=["string", "object"])
def test_float_is_float32_in_strings_and_objects(sig):
    @cuda.jit(sig)
    def double(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] * 2

    a = np.arange(4, dtype=np.float32)
    double[1, 4](a)
    assert a.tolist() == [0.0, 2.0, 4.0, 6.0]
    with pytest.raises(TypeError, match="no signature of kernel 'double'"):
        double[1, 4](np.arange(4, dtype=np.float64))


def test_short_names_in_a_signature_string_reach_the_translator_as_written():
    """The string goes to the translator as written (Python no longer rewrites short names)."""
    @cuda.jit("void(i8[::1], f4)")
    def fill(a, v):
        a[0] = v

    a = np.zeros(1, np.int64)
    fill[1, 1](a, np.float32(3.0))
    assert a[0] == 3
