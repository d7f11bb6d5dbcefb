# Array views: partial indexing (a[i] of a 2-D and 3-D array), slices with every combination of
# missing bounds, negative bounds and steps (Python's clamping: bounds past either end,
# a[::-1], a[5:1:-2]), a runtime step, views of views, .shape/.size/len of views, iteration
# over views and over the rows of a 2-D array, views of a shared array, and device functions
# that take and return arrays (views included).
from numba import cuda
import numpy as np


@cuda.jit(device=True)
def total(v):
    s = 0.0
    for x in v:
        s += x
    return s


@cuda.jit(device=True)
def middle(v):
    return v[1:-1]


@cuda.jit(device=True)
def row_of(m, i):
    return m[i]


@cuda.jit
def slices(a, lo, hi, step, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        # Each output row i uses the bounds of case i.
        l = lo[i]
        h = hi[i]
        s = step[i]
        if s == 0:   # a zero step raises ValueError in Python; pyk2cuda gives an empty view
            s = -1
        out[i, 0] = total(a[l:h])
        out[i, 1] = total(a[l:h:s])
        out[i, 2] = total(a[l:])
        out[i, 3] = total(a[:h])
        out[i, 4] = total(a[::s])
        out[i, 5] = a[l:h:s].size
        out[i, 6] = len(a[l::s])
        out[i, 7] = total(a[::-1][l:h])
        out[i, 8] = total(middle(a[l:h]))
        v = a[h:l:-2]
        out[i, 9] = v.shape[0] * 1000 + total(v)
        if a[l:h:s].size > 0:
            out[i, 10] = a[l:h:s][0] + a[l:h:s][-1] * 100
        out[i, 11] = total(a[:h:s][1::2])


@cuda.jit
def rows(m, out):
    i = cuda.grid(1)
    if i < m.shape[0]:
        r = m[i]
        out[i, 0] = total(r)
        out[i, 1] = total(m[i, 1:])
        out[i, 2] = total(m[:, i % m.shape[1]])
        out[i, 3] = total(row_of(m, i)[::2])
        out[i, 4] = m[i][2] + m[i, :][1] + m[-1][i % m.shape[1]]
        out[i, 5] = m[1:, ::2].shape[0] * 10 + m[1:, ::2].shape[1]
        n = 0.0
        for row in m[i:]:
            n += row[0]
        out[i, 6] = n
        k = 0.0
        for j, row in enumerate(m):
            k += j * row[-1]
        out[i, 7] = k
        out[i, 8] = total(m[i][::-1][1:3])


@cuda.jit
def cube_views(c, out):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        plane = c[i]
        out[i, j, 0] = total(plane[j])
        out[i, j, 1] = total(c[i, :, j % c.shape[2]])
        out[i, j, 2] = total(c[:, j, 1])
        out[i, j, 3] = c[i, j:, ::-1][0, 0]
        out[i, j, 4] = plane.size + c[:, j].shape[0] * 100 + c[:, j].shape[1] * 10000


@cuda.jit
def shared_views(a, out):
    sm = cuda.shared.array((8, 4), np.float64)
    i = cuda.grid(1)
    if i < 8:
        for j in range(4):
            sm[i, j] = a[i, j]
    cuda.syncthreads()
    if i < 8:
        out[i, 0] = total(sm[i])
        out[i, 1] = total(sm[:, i % 4])
        out[i, 2] = total(sm[i, ::-1][:2])
        row = sm[(i + 1) % 8]
        out[i, 3] = row[3]


@cuda.jit
def fill_views(a, m, cube, ints, lo, hi):
    # A scalar stored into a slice or a row fills it (NumPy's setitem): a slice with clamped,
    # negative and stepped bounds, a row and a column of a 2-D array, a plane of a 3-D one, an
    # int into floats and a float into ints (converted as a store converts), a local array's
    # row. One thread writes, as the views overlap the other threads' elements.
    i = cuda.grid(1)
    if i == 0:
        a[2:5] = 7.0
        a[-3:] = -1
        a[lo:hi] = 2.5
        a[::4] = 9.0
        a[7:2] = 100.0          # empty
        m[1] = 5.0
        m[:, 2] = -2.0
        m[3, 1:] = 0.5
        cube[1] = 3
        cube[2, :, 0] = 8.0
        ints[1:4] = 3.9         # a float stored into int64 truncates, as Numba's store does
        loc = cuda.local.array((3, 4), dtype=np.float64)
        loc[:, :] = 0.0
        loc[1] = 6.0
        for r in range(3):
            for c in range(4):
                m[4, c] += loc[r, c]


@cuda.jit
def copy_views(a, b, m, src, ints):
    # An array stored into a slice or a row is copied in (NumPy's setitem): equal extents, a row
    # of extent 1 broadcast over rows, float32 into float64 and float into int64 (truncated, as
    # a store converts), views of one array that interleave (a[::-2] is the odd elements, a[::2]
    # the even ones) or are shifted (a[1:] = a[:-1], walked backwards as memmove walks). One
    # thread copies, as the views cross the other threads' elements.
    if cuda.grid(1) == 0:
        a[2:5] = b[0:3]
        m[1] = b[:4]
        m[2:4] = src[0:1]
        ints[0:4] = b[4:8]
        a[::-2] = a[::2]
        a[1:] = a[:-1]
        ints[:-1] = ints[1:]


COEFFS = np.array([3.0, -2.0, 0.5, 4.0])


@cuda.jit
def whole_array_values(x, out):
    # Whole shared, local and constant arrays (not views of them) as the value of a slice copy
    # and as a ufunc's input and output: each is passed as a view of its storage.
    i = cuda.grid(1)
    q = cuda.local.array(4, np.float64)
    r = cuda.local.array(4, np.float64)
    s = cuda.shared.array((8, 4), np.float64)
    q[:] = COEFFS
    r[:] = x[i]
    s[cuda.threadIdx.x] = q
    np.sin(r, q)
    np.cos(COEFFS, r)
    cuda.syncthreads()
    out[i, :4] = q
    out[i, 4:] = r
    out[i, 0] += s[cuda.threadIdx.x, 1]


@cuda.jit
def computed_indices(a, b, out):
    # Indices that are expressions of * and // (a[i % m, i // m]): in a Fortran-ordered array the
    # last index is the right operand of a product in the element's offset, so it must stay whole.
    i = cuda.grid(1)
    if i < out.shape[0]:
        m = a.shape[0]
        out[i] = a[i % m, i // m % a.shape[1]] + 100.0 * b[i % 2, i // 2 % 3, i // 6 % 4]
