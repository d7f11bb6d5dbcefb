from numba import cuda
import numpy as np

TABLE = np.arange(6.0)


@cuda.jit("void(float32[:], float64[:, ::1])")
def k(a, m):
    b = a.copy()                       # an argument: its shape is known only at run time
    c = m[0].copy()                    # a view
    a[0] = TABLE.copy()[1]             # not the value of an assignment
    d = TABLE.copy(order='F')          # copy() takes no arguments
    d2 = TABLE.copy(1)
    f, g = TABLE.copy(), TABLE.copy()  # a tuple is not a variable
    TABLE.copy()                       # alone: fine, nothing can reach it
