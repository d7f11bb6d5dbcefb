# Enum classes in kernels: what pyk2cuda does not support (members with tuple values, members
# of different types, a class as a value, an unknown member, a member chosen at run time) is
# refused where it is used. tests/diag/enum_types.py: what Numba's typing refuses.
from enum import Enum, IntEnum

from numba import cuda


class Color(Enum):
    red = 1
    green = 2


class Planet(Enum):
    EARTH = (5.976e+24, 6.37814e6)


class Mixed(Enum):
    one = 1
    half = 0.5


class Shape(IntEnum):
    circle = 2


@cuda.jit("void(int64[:], int64)")
def k(out, x):
    out[5] = Color.blue
    out[6] = Planet.EARTH == Planet.EARTH
    out[8] = Mixed.one == Mixed.half
    out[9] = Color[x] == Color.red
    out[7] = Color
