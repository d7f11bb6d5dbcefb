from numba import cuda


@cuda.jit("void(Record(a[type=int32;offset=0];4;False)[:], float32[:], float32[:])")
def k(r, a, b):
    p = r[0] is r[1]           # records: Numba has no `is` for them
    q = a[0] is not b          # two types: never the same object, as in Numba (no error)
    s = a is b                 # arrays of one type: their data, shape and strides (no error)
