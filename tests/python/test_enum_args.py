"""Enum and IntEnum members as kernel arguments (docs/python.md, "Arguments"): typed as Numba
types them, Enum<int64>(Color), Enum<UniTuple(float64 x 2)>(Planet), IntEnum<int64>(Shape), so
that a kernel is specialized per class, == compares members of one class by value, `is` tells
two classes apart, and an IntEnum member is an int where a number is expected. Each result is
checked against the same function run by Python (whose answers Numba's match for these)."""
import enum

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda


class Color(enum.Enum):
    red = 1
    green = 2


class Planet(enum.Enum):
    EARTH = (5.976e+24, 6.37814e6)
    MARS = (6.421e+23, 3.3972e6)


class Shape(enum.IntEnum):
    circle = 2
    square = 500


class Small(enum.IntEnum):
    two = 2


def compare(a, b, out):
    out[0] = a == b
    out[1] = a != b
    out[2] = a is b
    out[3] = a is not b


PAIRS = [(Color.red, Color.red), (Color.red, Color.green), (Planet.EARTH, Planet.EARTH),
         (Planet.EARTH, Planet.MARS), (Shape.circle, Small.two), (Shape.square, Shape.square)]


@pytest.mark.parametrize("a, b", PAIRS)
def test_members_compare_as_in_python_and_numba(a, b):
    kernel = cuda.jit(compare)
    got, want = np.zeros(4, np.bool_), np.zeros(4, np.bool_)
    kernel[1, 1](a, b, got)
    compare(a, b, want)
    assert got.tolist() == want.tolist()


def test_one_specialization_per_class_with_numbas_type_names():
    kernel = cuda.jit(compare)
    out = np.zeros(4, np.bool_)
    for a, b in PAIRS:
        kernel[1, 1](a, b, out)
    assert kernel.signatures == [
        "void(Enum<int64>(Color), Enum<int64>(Color), bool[::1])",
        "void(Enum<UniTuple(float64 x 2)>(Planet), Enum<UniTuple(float64 x 2)>(Planet), bool[::1])",
        "void(IntEnum<int64>(Shape), IntEnum<int64>(Small), bool[::1])",
        "void(IntEnum<int64>(Shape), IntEnum<int64>(Shape), bool[::1])",
    ]


def test_an_intenum_member_is_an_int_where_a_number_is_expected():
    @cuda.jit
    def add(x, out):
        out[0] = x + 1

    @cuda.jit("void(int64, int64[::1])")
    def add_signed(x, out):
        out[0] = x * 2

    out = np.zeros(1, np.int64)
    add[1, 1](Shape.square, out)
    assert out[0] == 501
    add_signed[1, 1](Shape.square, out)   # converts to the signature's int64, as Numba's does
    assert out[0] == 1000


def test_member_values_and_device_functions():
    @cuda.jit(device=True)
    def mass(p):
        return p.value[0]

    @cuda.jit
    def k(p, c, out):
        out[0] = mass(p) / 1e24
        out[1] = c.value

    out = np.zeros(2)
    k[1, 1](Planet.MARS, Color.green, out)
    assert out.tolist() == [0.6421, 2.0]


def test_arithmetic_on_an_enum_member_is_a_compile_error_as_in_numba():
    @cuda.jit
    def add(x, out):
        out[0] = x + 1

    with pytest.raises(pyk2cuda.CompileError, match=r"unsupported operand types for \+: Enum<int64>\(Color\) and int64"):
        add[1, 1](Color.red, np.zeros(1, np.int64))


def test_two_classes_of_one_name_are_two_types():
    def make():
        class Color(enum.Enum):
            red = 1
        return Color

    First, Second = make(), make()

    @cuda.jit
    def same(a, b, out):
        out[0] = a is b

    out = np.zeros(1, np.bool_)
    same[1, 1](First.red, Second.red, out)
    assert not out[0]
    same[1, 1](First.red, First.red, out)
    assert out[0]


def test_intenum_members_returned_where_the_signature_says_int():
    """Numba's test_enums.test_vectorize: a ufunc of signature int64(int64) returns IntEnum
    members (by attribute and by name), each its int; the device function of int64 does too
    (an internal error before: the returned member kept its IntEnum type without a cast)."""
    def f(x):
        if x != Shape.square:
            return Shape['square']
        else:
            return Shape.circle

    ufunc = pyk2cuda.vectorize("int64(int64)", target="cuda")(f)
    arr = np.array([2, 500, 7, 500], dtype=np.int64)
    expected = np.array([f(x) for x in arr], dtype=np.int64)
    got = ufunc(arr)
    assert got.dtype == np.int64 and got.tolist() == expected.tolist()

    dev = cuda.jit("int64(int64)", device=True)(f)

    @cuda.jit
    def k(a, out):
        out[0] = dev(a[0])
        out[1] = dev(a[1])

    out = np.zeros(2, np.int64)
    k[1, 1](arr, out)
    assert out.tolist() == [500, 2]
