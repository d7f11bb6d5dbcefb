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
    with pytest.raises(TypeError, match="No matching definition of kernel 'double'"):
        double[1, 4](np.arange(4, dtype=np.float64))


def test_short_names_in_a_signature_string_reach_the_translator_as_written():
    """The string goes to the translator as written (Python no longer rewrites short names)."""
    @cuda.jit("void(i8[::1], f4)")
    def fill(a, v):
        a[0] = v

    a = np.zeros(1, np.int64)
    fill[1, 1](a, np.float32(3.0))
    assert a[0] == 3


# Array types: the package builds their text from the library's one rule (p2c_array_dims,
# p2c_slices_layout, p2c_array_layout); the layouts are Numba's for the same slices, dtypes and arrays.
SLICES = [(slice(None),), (slice(None, None, 1),), (slice(None), slice(None)),
          (slice(None), slice(None, None, 1)), (slice(None, None, 1), slice(None)),
          (slice(None, None, 1), slice(None, None, 1)), (slice(None), slice(None, None, 1), slice(None)),
          (slice(None, None, 1), slice(None), slice(None))]


@pytest.mark.parametrize("dims", SLICES, ids=[str(i) for i in range(len(SLICES))])
def test_array_types_from_slices_have_numbas_layout_and_the_librarys_text(dims):
    dims = dims[0] if len(dims) == 1 else dims   # float32[::1], as written (not a 1-tuple)
    ours, numbas = types.float32[dims], numba_types.float32[dims]
    assert (ours.ndim, ours.layout) == (numbas.ndim, numbas.layout)
    assert str(ours) == "float32" + _core.array_dims(numbas.ndim, numbas.layout)
    assert types.Array(types.float32, numbas.ndim, numbas.layout) == ours


def test_array_dims_text_per_layout():
    assert [_core.array_dims(n, l) for n, l in [(1, "C"), (1, "A"), (2, "C"), (2, "F"), (3, "A")]] == \
        ["[::1]", "[:]", "[:, ::1]", "[::1, :]", "[:, :, :]"]
    assert _core.array_dims(0, "C") == "[()]"   # 0-d: pyk2cuda's spelling (Numba has none)
    with pytest.raises(ValueError):
        _core.array_dims(-1, "C")
    with pytest.raises(ValueError):
        _core.array_dims(2, "K")


@pytest.mark.parametrize("make", [lambda: np.zeros((3, 4), np.float32), lambda: np.zeros((3, 4), order="F"),
                                  lambda: np.zeros((3, 4))[:, ::2], lambda: np.zeros((4, 1))[::2],
                                  lambda: np.zeros((0, 4))[:, ::2], lambda: np.zeros(5, np.int8)[::-1]],
                         ids=["C", "F", "strided", "extent-1", "empty-strided", "reversed"])
def test_typeof_arrays_as_numba(make):
    from numba import typeof as numba_typeof
    a = make()
    t = numba_typeof(a)
    assert (types.typeof(a).ndim, types.typeof(a).layout) == (t.ndim, t.layout)
