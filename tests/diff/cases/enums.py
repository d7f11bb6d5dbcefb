# Enum and IntEnum classes of the module in kernels (test_enums' forms): members as constants
# (Color.red, Color['green']), compared with == and != within their class, `.value`, returned from
# a device function and unified by a conditional expression; IntEnum members are ints in
# arithmetic, comparisons and casts (an alias, Small.too, is the member it repeats).
from enum import Enum, IntEnum

from numba import cuda, int8, int16


class Color(Enum):
    red = 1
    green = 2
    blue = 3


class Level(Enum):
    low = 0.5
    high = 2.5


class Code(IntEnum):
    ok = 200
    not_found = 404
    error = 500


class Small(IntEnum):
    two = 2
    too = 2


@cuda.jit(device=True)
def pick(p):
    return Color.red if p else Color.green


@cuda.jit
def enum_members(x, out, level):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        c = pick(v > 450)
        out[i, 0] = c == Color.red
        out[i, 1] = c != Color['green']
        out[i, 2] = c.value + Color.blue.value
        if v > Code.error:
            out[i, 3] = v - Code.not_found
        else:
            out[i, 3] = v + Small.too
        out[i, 4] = int16(Code.error) + int8(Small.two) * v
        out[i, 5] = Code.ok.value + (v == Code.not_found)
        lv = Level.high if v % 2 == 0 else Level.low
        out[i, 6] = lv == Level.low
        level[i] = lv.value * v


@cuda.jit(device=True)
def same_member(a, b):
    return a is b


@cuda.jit
def identity(x, out):
    # `is` and `is not` of enum members (one class: the same member; two classes, IntEnum ones
    # of equal value too: never the same object) and of None, where Python's identity (the
    # simulator's) and Numba's rule agree.
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        c = pick(v > 450)
        out[i, 0] = c is Color.red
        out[i, 1] = c is not Color.green
        out[i, 2] = same_member(c, pick(v > 300))
        out[i, 3] = Small.two is Small.too
        out[i, 4] = Small.two is Code.ok or Color.red is None
        out[i, 5] = v is not None and None is None
        out[i, 6] = same_member(Level.high, Level.low) + (Level.low is Level.low)
