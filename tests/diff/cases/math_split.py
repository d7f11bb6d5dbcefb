# math.modf, math.frexp and math.remainder (tuple results and IEEE remainder), pow() and the
# operator module's functions called directly, as Numba's supported lists have them.
import math
import operator
from operator import mul as times

from numba import cuda


@cuda.jit
def split_f64(x, out):
    i = cuda.grid(1)
    if i < x.size:
        frac, whole = math.modf(x[i])
        mant, ex = math.frexp(x[i])
        out[i, 0] = frac
        out[i, 1] = whole
        out[i, 2] = mant
        out[i, 3] = ex
        out[i, 4] = math.remainder(x[i], 0.75)


@cuda.jit
def split_f32(x, out, exps):
    i = cuda.grid(1)
    if i < x.size:
        frac, whole = math.modf(x[i])
        mant, ex = math.frexp(x[i])
        out[i, 0] = frac
        out[i, 1] = whole
        out[i, 2] = mant
        out[i, 3] = math.remainder(x[i], x[0] + 2)
        exps[i] = ex


@cuda.jit
def operator_functions(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = operator.add(a[i], b[i])
        out[i, 1] = operator.sub(a[i], b[i]) + times(a[i], 3)
        out[i, 2] = operator.floordiv(a[i], b[i]) + operator.mod(a[i], b[i])
        out[i, 3] = operator.lshift(a[i] & 7, 2) ^ operator.and_(a[i], b[i])
        out[i, 4] = operator.lt(a[i], b[i]) + operator.eq(a[i], 0) * 2 + operator.ge(b[i], 5) * 4
        out[i, 5] = pow(b[i], 2) + operator.pow(a[i] % 5, 3)
        out[i, 6] = operator.truediv(a[i], b[i]) * 1000
