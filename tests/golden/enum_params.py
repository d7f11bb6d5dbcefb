# Enum members as parameters, typed as Numba prints their types: a member is held and passed as
# its value (an int, a tuple); == of one class compares values (a tuple's element by element),
# `is` of two IntEnum classes is never true, .value reads the value, and an IntEnum member is an
# int in arithmetic.
from numba import cuda


@cuda.jit(device=True)
def mass(p):
    return p.value[0]


@cuda.jit("void(Enum<UniTuple(float64 x 2)>(Planet), Enum<UniTuple(float64 x 2)>(Planet), float64[:])")
def planets(a, b, out):
    out[0] = a == b
    out[1] = a is not b
    out[2] = mass(a) / 1e24 + b.value[1]


@cuda.jit("void(IntEnum<int64>(Shape), IntEnum<int64>(Small), Enum<int64>(Color), int64[:])")
def ints(a, b, c, out):
    out[0] = a == b
    out[1] = a is b
    out[2] = c.value + a * 2
