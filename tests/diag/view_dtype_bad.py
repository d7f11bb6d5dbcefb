from numba import cuda
import numpy as np

# a.view(dtype) and a.real / a.imag misused: sizes that typing can prove wrong, a 0-d view to
# another item size, dtypes that are not numbers, methods and attributes arrays lack.


@cuda.jit("void(float32[::1], complex128[::1], float64[::1], float32[:, ::1])")
def k(a, c, x, m):
    s = cuda.shared.array(3, np.uint8)
    b = s.view(np.int16)           # 3 bytes are not a whole number of int16
    d = a.view(np.int32, np.int8)  # one dtype
    e = a.view(5)                  # not a dtype
    f = a.view('float32x')         # not a dtype's name
    g = a.argsort()                # a method pyk2cuda lacks
    h = x.imag                     # Numba gives a new array of zeros
    z = a.view()
    q = m[0, 0].view(np.int8)      # an element is not an array
