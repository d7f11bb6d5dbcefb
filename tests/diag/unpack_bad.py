from numba import cuda

# Tuples spread into arguments and indices, misused: not a tuple, a tuple computed by a device
# function (it would be evaluated once per element), a tuple index of floats or of more
# indices than the array has dimensions.


@cuda.jit(device=True)
def pair(x):
    return x, x + 1


@cuda.jit(device=True)
def add(a, b):
    return a + b


@cuda.jit("void(float64[:, ::1], int64)")
def k(a, n):
    b = add(*n)
    c = add(*pair(n))
    t = (1.5, 2)
    g = a[t]
    u = (1, 2, 3)
    h = a[u]
    m = a[pair(n)]
