# a.view(dtype), a.real and a.imag of arrays (docs/semantics.md, "Array views"). view: the same
# item size on any layout (float32 <-> int32/uint32, a strided slice), smaller items (the last
# axis grows), larger items (Numba's test_array_methods: four bytes of a uint8 slice read as
# one int32), 2-D arrays (the last axis rescaled), a view whose contiguity is checked at run
# time (m[:, 1:3], layout A), a shared array and a view written through. .real/.imag: of
# complex arrays, read, written and given to cuda.atomic.add (Numba's test_complex), 2-D;
# .real of a real array is the array itself.
from numba import cuda
import numpy as np


@cuda.jit
def same_size(a, out_i, out_u):
    i = cuda.grid(1)
    if i < a.size:
        out_i[i] = a.view(np.int32)[i]
        out_u[i] = a.view(np.uint32)[i]
        out_i[i] += a[::2].view(np.int32).size


@cuda.jit
def sizes(b, out):
    # b is uint8[64]; each thread reads four bytes starting at 4*i as one int32, as
    # test_array_methods does, and the other sizes of the same bytes.
    i = cuda.grid(1)
    if i < 16:
        start = 4 * i
        out[i, 0] = b[start:start + 4].view(np.int32)[0]
        out[i, 1] = b.view(np.int32)[i]
        out[i, 2] = b.view(np.uint16)[2 * i + 1]
        out[i, 3] = b.view(np.int64)[i // 2]
        out[i, 4] = b.view(np.int64).shape[0]
        w = b.view(np.uint32)
        out[i, 5] = w.view(np.uint8).shape[0]
        out[i, 6] = w.view(np.int8)[4 * i + 3]


@cuda.jit
def two_d(m, out):
    # m is float32[6, 4]: as uint8 each row has 16 items, as int64 two.
    i = cuda.grid(1)
    if i < m.shape[0]:
        bytes_ = m.view(np.uint8)
        out[i, 0] = bytes_.shape[1]
        out[i, 1] = bytes_[i, 7]
        wide = m.view(np.int64)
        out[i, 2] = wide.shape[1]
        out[i, 3] = wide[i, 1]
        mid = m[:, 1:3].view(np.uint16)   # layout A: the last axis is checked at run time
        out[i, 4] = mid.shape[1]
        out[i, 5] = mid[i, 3]
        out[i, 6] = m[i].view(np.int32)[2]


@cuda.jit
def shared_and_store(a, out):
    s = cuda.shared.array(8, np.float64)
    i = cuda.threadIdx.x
    s[i] = a[i]
    cuda.syncthreads()
    out[i] = s.view(np.int64)[7 - i]
    a.view(np.int64)[i] = i   # writes the bits of a[i]


@cuda.jit
def parts(c, out, d):
    i = cuda.grid(1)
    if i < c.size:
        out[i, 0] = c.real[i]
        out[i, 1] = c.imag[i]
        r = c.real
        out[i, 2] = r[i] * 2 + c.imag.shape[0]
        c.real[i] = c.imag[i] + 1.0
        c.imag[i] = i
        cuda.atomic.add(d.imag, i % 4, 1.0)
        cuda.atomic.add(d.real, i % 4, 0.5)
        out[i, 3] = out.real[i, 0]


@cuda.jit
def parts_2d(m, out):
    i, j = cuda.grid(2)
    if i < m.shape[0] and j < m.shape[1]:
        out[i, j] = m.real[i, j] - m.imag[i, j]
        m.imag[i, j] = m.real[i, j]
