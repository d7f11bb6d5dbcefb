"""A cooperative kernel (cuda.cg.this_grid) on the fake CUDA driver (test_fake_gpu.py): its
overload's grid limit, as the driver's occupancy gives it, a launch within it and one beyond."""
import numpy as np

from pyk2cuda import cuda, int64


@cuda.jit("void(int64[::1])")
def k(x):
    g = cuda.cg.this_grid()
    g.sync()


ov = k.overloads[(int64[::1],)]
print(ov.cooperative, ov.max_cooperative_grid_blocks(256), ov.max_cooperative_grid_blocks((32, 32)))
d = cuda.device_array(8, np.int64)
k[1056, 256](d)
cuda.synchronize()
try:
    k[1057, 256](d)
except cuda.Error as e:
    print("refused:", e)
