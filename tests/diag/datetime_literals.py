# np.datetime64 and np.timedelta64 values made inside a kernel: Numba's CUDA target refuses them
# too; datetimes and timedeltas come in as arguments or module-level constants, which the command
# line folds in the form np.datetime64(COUNT, 'UNIT') (the Python package freezes any value).
import numpy as np
from numba import cuda

@cuda.jit("void(datetime64[D][:], timedelta64[D])")
def k(d, delta):
    d[0] = np.datetime64('2020-01-01')
    d[1] = d[0] + np.timedelta64(3, 'D')
