# A 0-d array's signature is written T[()] (pyk2cuda's spelling; Numba has none): anything else
# inside the brackets after '(' is refused where it stands.
from numba import cuda

@cuda.jit("void(float32[(:])")
def k(a):
    a[()] = 1.0
