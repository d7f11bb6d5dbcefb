# Enum members where Numba's typing refuses them: an Enum member equals only members of its own
# class (== and !=), has no arithmetic, no ordering, no truth value, and is not stored into an
# int array (an IntEnum member is an int, so Shape.circle works wherever an int does).
from enum import Enum, IntEnum

from numba import cuda


class Color(Enum):
    red = 1
    green = 2


class Shade(Enum):
    red = 1


class Shape(IntEnum):
    circle = 2


@cuda.jit("void(int64[:], int64)")
def k(out, x):
    out[0] = Color.red
    out[1] = Color.red + 1
    out[2] = Color.red == 1
    out[3] = Color.red < Color.green
    if Color.green:
        out[4] = 1
    out[5] = Color.red == Shade.red
    out[6] = Shape.circle.value + Shape.circle * x
