# print() of tuples writes each number as a printf argument, and CUDA's printf takes at most
# 32: more is an error at the call (plain items past 32 print Numba's raw format instead).
from numba import cuda


@cuda.jit('void(int64[:])')
def k(a):
    t = (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7])
    print(t, t, t, t, a[0])
    print(t, t, t, t)
