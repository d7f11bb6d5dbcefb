"""Atomics on a worker's private copy (docs/simulator.md, "Atomics"): the simulator keeps an
array shared when another array parameter overlaps it, since that alias may read it. Numba's
simulator and the GPU see every atomic at once; so must a read through the alias."""
import numpy as np

from pyk2cuda import cuda


@cuda.jit
def count_then_read(h, alias, out):
    # h qualifies for a private copy (atomic adds only); alias is read after the barrier
    cuda.atomic.add(h, 0, 1)
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x] = alias[0]


def test_an_aliased_array_is_kept_shared():
    h = np.zeros(4, np.int32)
    d = cuda.to_device(h)
    out = cuda.device_array(1, np.int32)
    count_then_read[1, 64](d, d, out)                  # the same array twice
    assert out.copy_to_host()[0] == 64
    assert d.copy_to_host()[0] == 64
    view = d[1:]                                       # an overlapping view
    count_then_read[1, 32](d, view, out)
    assert d.copy_to_host()[0] == 96


def test_separate_arrays_get_every_count():
    h, other = np.zeros(4, np.int32), np.full(4, 5, np.int32)
    out = np.zeros(8, np.int32)
    count_then_read[8, 64](h, other, out)
    assert h[0] == 8 * 64
    assert (out == 5).all()
