from numba import cuda


@cuda.jit("void(int64, Tuple(int64, float64), complex128[:], boolean[:])")
def k(x, t, z, out):
    out[0] = x in t          # a tuple of two element types (Numba refuses it too)
    out[1] = x in 5          # not a container
    out[2] = t in (t, t)     # fine: tuples compared with ==
    out[3] = (1, 2) in z     # an array's elements are numbers; (1, 2) is not
