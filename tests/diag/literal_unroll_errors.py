# numba's literal_unroll: pyk2cuda iterates tuples of one element type; Numba takes only a tuple.
from numba import cuda, literal_unroll

MIXED = (1, 2.5)


@cuda.jit("void(float64[:])")
def k(a):
    for x in literal_unroll(MIXED):
        a[0] += x
    for y in literal_unroll(a):
        a[1] += y
    t = literal_unroll(a)
