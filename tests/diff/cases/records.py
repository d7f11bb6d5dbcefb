# Records (NumPy structured dtypes) as kernel arguments: fields read and written through an
# element (a[i].b), through a variable that refers to the element (r = a[i]; r.b = ...), by
# name (a[i]['b']) or position (r[0]), nested array fields (r.v[k], r.m[1, 2]), whole records copied (a[i] = a[j]),
# records passed to device functions that read them and write through them. The runner's
# record dtypes (run_diff.py RECORDS) cover every numeric field type, align=True and packed.
import numpy as np
from numba import cuda


@cuda.jit
def copy_field(a):
    # Numba's test_alignment kernel: an int32 field from a float64 field.
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i].a = a[i].b


@cuda.jit(device=True)
def bump(r, k):
    r.fi4 += k
    return r.ff8 * 2.0


@cuda.jit
def every_field(src, dst, out):
    i = cuda.grid(1)
    if i < src.shape[0]:
        dst[i] = src[i]
        s = src[i]
        d = dst[i]
        d.fb = not s.fb
        d.fi1 = s.fi1 // 2
        d.fu1 = s.fu1 + 1
        d.fi2 = s['fi2'] - 3
        d.fu2 = s.fu2 * 2
        d.fu4 = s.fu4 + 7
        d.fi8 = s.fi8 * -5
        d.fu8 = s.fu8 + 11
        d.ff2 = s.ff2 * s.ff2
        d.ff4 = s.ff4 * 0.5
        dst[i]['ff8'] = s.ff8 + s.fi4
        d.fc8 = s.fc8 * s.fc8
        d.fc16 = s.fc16 + s.ff8
        for k in range(3):
            d.v[k] = s.v[2 - k] + k
        d.m[1, 2] = s.m[0, 0]
        d.m[0, 0] = s.m[1, 2]
        out[i] = bump(d, i)


@cuda.jit
def packed(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i]
        out[i] = r.w + r.z * 3 + r.y * 2 + r[0]   # r[0]: the first field, x
        r.w = r.z
        a[i].x = r.y


@cuda.jit
def copy_records(a, b):
    # test_set_record: whole records, also from another array.
    i = cuda.grid(1)
    n = a.shape[0]
    if i < n:
        b[i] = a[n - 1 - i]


@cuda.jit
def nested_assign(src, dst, m):
    # Whole nested arrays assigned: from another record's field, from a row of an array (Numba's
    # test_setitem, test_assign_array_to_nested, issue 7693).
    i = cuda.grid(1)
    if i < src.shape[0]:
        dst[i].v = src[i].v
        dst[i]['m'] = m[i]


@cuda.jit
def by_reference(r, out):
    # A record passed by reference (Numba's record arguments; golden only: `run` has no syntax
    # for one, tests/python/test_records.py runs it).
    out[0] = r.b
    r.a = 7


# A module-level record dtype, the dtype of shared and local arrays of records (NumPy's layout,
# the same as rec_pair's and rec_packed's). Each block copies its records through shared memory
# reversed, and each thread keeps a local record to update. PAIR is align=True and a .npy file
# keeps no such flag, so PAIR and rec_pair are two record types (as in Numba): copied by field.
PAIR = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
PACKED = np.dtype([("x", np.uint8), ("y", np.uint8), ("z", np.int16), ("w", np.float32)])


@cuda.jit
def shared_records(src, dst, p, out):
    s = cuda.shared.array(32, dtype=PAIR)
    mine = cuda.local.array(2, PACKED)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < src.size:
        s[t]["a"] = src[i]["a"]
        s[t]["b"] = src[i]["b"]
    cuda.syncthreads()
    j = cuda.blockIdx.x * cuda.blockDim.x + (cuda.blockDim.x - 1 - t)
    if i < src.size and j < src.size:
        dst[j]["a"] = s[t]["a"] + 1
        dst[j]["b"] = s[t]["b"]
    if i < p.size:
        mine[0] = p[i]                      # the same layout, no padding: one record type
        mine[1]["w"] = mine[0]["w"] * 2     # by name: the simulator's local arrays hold np.void
        mine[1]["z"] = mine[0]["z"] - 1
        out[i] = mine[1]["w"] + mine[1]["z"] + mine[0]["x"]
