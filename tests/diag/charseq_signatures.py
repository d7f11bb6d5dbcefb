# Character sequences in signatures: only as the elements of arrays (and record fields), of 1 to
# 1048576 characters (a device function takes and returns them alone), spelled as Numba prints them or as numba.types builds them.
from numba import cuda


@cuda.jit("void([char x 4])")
def alone(s):
    pass


@cuda.jit("void([unichr x 0][::1])")
def empty(u):
    pass


@cuda.jit("void(Tuple([char x 2], int64))")
def in_tuple(t):
    pass


@cuda.jit("[char x 2]([char x 2][::1], [char x 2])", device=True)
def device_ok(a, x):
    a[0] = x
    return a[1]


@cuda.jit("void([char x 2][::1])")
def uses_device(a):
    a[1] = device_ok(a, a[0])


@cuda.jit("void([byte x 2][::1])")
def kind(b):
    pass


@cuda.jit("void(UnicodeCharSeq(3, 4)[::1])")
def call(b):
    pass


@cuda.vectorize(["[char x 2](int64)"])
def ufunc(i):
    return i
