# A datetime unit NumPy has no type for here ('B', business days, left NumPy; multiples such as
# '10D' have no Numba type), in a signature.
from numba import cuda

@cuda.jit("void(datetime64[D][:], timedelta64[B])")
def k(d, delta):
    d[0] = d[0] + delta

@cuda.jit("void(NPDatetime('10D')[:])")
def k2(d):
    d[0] = d[1]
