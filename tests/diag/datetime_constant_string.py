# A module-level datetime written with a date string: the command line folds only the form
# np.datetime64(COUNT, 'UNIT') (the Python package freezes any value it finds in that form).
import numpy as np
from numba import cuda

DAY = np.datetime64('2020-01-01')

@cuda.jit("void(datetime64[D][:])")
def k2(d):
    d[0] = DAY
