# Options that change the code (docs/python.md, "Options that change the code"): an exported
# device function (-k names it: compile_ptx(device=True)), fastmath's unchecked float32
# division in a debug=True kernel, and min/max of two floats (fmin/fmax, as Numba's CUDA target).
import math
from numba import cuda


@cuda.jit(device=True)
def hypot_scaled(x, y, s):
    return math.sqrt(x * x + y * y) / s


@cuda.jit(debug=True, fastmath=True)
def fast(out, x, y):
    out[0] = x / y
    out[1] = max(x, y)
    out[2] = min(x, y, 0.5)


# forceinline=True: the device function's __forceinline__.
@cuda.jit(device=True, forceinline=True)
def twice(x):
    return 2 * x


# launch_bounds= (numba-cuda's: threads per block, blocks per multiprocessor): the kernel's
# __launch_bounds__; `return None` is a bare return.
@cuda.jit(launch_bounds=(128, 2))
def bounded(out):
    i = cuda.grid(1)
    if i >= out.size:
        return None
    out[i] = twice(i)
