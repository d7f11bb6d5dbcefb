# The README's quick start, run by scripts/check_wheel.sh and scripts/check_packaging.sh with an
# installed pyk2cuda from outside the clone: a launch on host arrays and one on device arrays,
# each checked. Prints the version, the device and the file the package was imported from, last,
# so that the caller can check which installation ran.
import numpy as np
import pyk2cuda
from pyk2cuda import cuda


@cuda.jit
def add(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + y[i]


x = np.arange(100_000, dtype=np.float32)
y = 2 * x
out = np.zeros_like(x)
add[(x.size + 255) // 256, 256](x, y, out)
assert (out == 3 * x).all()
d_out = cuda.device_array_like(x)
add[(x.size + 255) // 256, 256](cuda.to_device(x), cuda.to_device(y), d_out)
assert (d_out.copy_to_host() == 3 * x).all()
print(pyk2cuda.__version__, pyk2cuda.device_kind(), pyk2cuda.__file__)
