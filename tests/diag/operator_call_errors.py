# pow() takes two arguments (three is pow with a modulus, which Numba's CUDA target does not
# have); the operator module's functions take no keywords.
import operator

from numba import cuda


@cuda.jit("void(float64[:])")
def k(a):
    a[0] = pow(a[1], 2, 5)
    a[1] = operator.add(a[0], b=2)
    a[2] = operator.lt(a[0])
