"""What test_ipc.py's child processes run (multiprocessing's 'spawn' imports this module by
name): each opens a handle another process exported."""
import numpy as np

from pyk2cuda import cuda


@cuda.jit
def _add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def read_array(handle):
    """The exported array's elements, read through an IpcArrayHandle."""
    with handle as d:
        return d.copy_to_host()


def add_one_by_kernel(handle):
    """A kernel adds 1 to every element of the exported array, in place."""
    with handle as d:
        _add_one[1, 64](d)
        cuda.synchronize()


def ends_of(handle):
    """d[0] and d[-1] of the exported array (a reversed view has negative strides)."""
    with handle as d:
        return int(d[0]), int(d[d.shape[0] - 1])


def read_raw(reserved, size, offset):
    """cuda.open_ipc_array on the handle's bytes, as Numba's test_ipc does."""
    with cuda.open_ipc_array(reserved, shape=size // 8, dtype=np.int64, offset=offset) as d:
        return d.copy_to_host()


def open_twice(handle):
    """Entering an opened handle again is Numba's ValueError."""
    with handle:
        try:
            with handle:
                return "opened twice"
        except ValueError as e:
            return str(e)
