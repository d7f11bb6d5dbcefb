# args: --sig 'pair(float64[:])' --sig 'whole(float64[:, :])'
# A stencil's value is a number, the result array's element (Numba's stencil result dtype).
import numba


@numba.stencil
def pair(a):
    return a[-1], a[1]


@numba.stencil
def whole(a):
    return a[0, 0] + a                          # an array: a typing error inside it first
