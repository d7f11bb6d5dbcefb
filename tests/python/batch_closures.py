"""Two signed kernels made by one factory, each with its own frozen value of `n`: one def, one
name, two meanings, so they cannot share a module and each is compiled on its own
(test_batch.py); a merge that kept one `n` would give both kernels the same result."""
from pyk2cuda import cuda


def _filler(n):
    @cuda.jit("void(int64[::1])")
    def fill(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = n
    return fill


fill_1 = _filler(1)
fill_2 = _filler(2)
