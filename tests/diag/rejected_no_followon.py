# A rejected assignment reports once: the names it would have bound are not reported again as
# "used before it is assigned" where they are read later (issue 12, "Bad input"). A read of a
# name that no statement binds is still reported.
from numba import cuda


@cuda.jit("void(float32[:])")
def k(a):
    g = cuda.cg.this_block()
    g.sync()
    x, y = a[0], cuda.cg.this_block()
    a[0] = x + y
    a[1] = z
    z = 1.0
