# numba's literal_unroll: over elements of different types pyk2cuda unrolls the loop, which then
# has no break or continue and one name as its target; Numba takes only a tuple.
from numba import cuda, literal_unroll

MIXED = (1, 2.5)
PAIRS = ((1, 2), (1.5, 2.5))


@cuda.jit("void(float64[:])")
def k(a):
    for x in literal_unroll(MIXED):
        if x > 2:
            break
        a[0] += x
    for y in literal_unroll(a):
        a[1] += y
    t = literal_unroll(a)
    for p, q in literal_unroll(PAIRS):
        a[2] += p * q
