from numba import cuda


@cuda.jit("void(float64[:], float64[:, ::1], float64, int64)")
def k(strided, m, x, n):
    a = strided.reshape(4, 4)          # not C-contiguous by its type
    b = m.reshape(2.0, 8)              # a float extent
    c = m.reshape((n, x))              # a tuple with a float
    d = x.reshape(4)                   # not an array
    e = m.reshape(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
    f = m.transpose()                  # a method pyk2cuda lacks
