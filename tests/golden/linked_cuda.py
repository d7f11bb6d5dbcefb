# CUDA C linked into a kernel (docs/python.md, "CUDA C linked into kernels"): the file's text is
# compiled with the module, framed by #line directives; each declared function is a device
# function calling its symbol through Numba's ABI or the C ABI. The path is read from the current
# directory, as Numba reads it (the golden cases run from the repository's root).
from numba import cuda

times = cuda.declare_device('times_f32', 'float32(float32, float32)')
hypot_c = cuda.declare_device('hypot_c', 'float64(float64, float64)', abi='c')
scaled_index = cuda.declare_device('scaled_index', 'int32(int64, int64)',
                                   link=['tests/python/linked/products.cu'])


@cuda.jit(link=['tests/python/linked/products.cu'])
def linked(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        clamp_index = scaled_index(i, len(r))   # the file's own helper has this name
        r[clamp_index] = times(x[i], y[i]) + hypot_c(x[i], 2.0)
