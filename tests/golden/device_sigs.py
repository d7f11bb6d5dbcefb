# A device function with signatures: each call converts its arguments to the signature Numba's
# overload resolution picks (the fewest unsafe, then safe conversions, then promotions).
from numba import cuda


@cuda.jit('int32(int32, int32, int32, int32)', device=True)
def rgba(r, g, b, a):
    return (((r & 0xFF) << 16) | ((g & 0xFF) << 8) | ((b & 0xFF) << 0) | ((a & 0xFF) << 24))


@cuda.jit(['float64(float64)', 'int32(int32)'], device=True)
def which(v):
    return v + 1


@cuda.jit
def calls(x, ch, out, a, b):
    x[0] = rgba(ch[0], ch[1], ch[2], ch[3])
    out[0] = which(a)
    out[1] = which(b)
