# Character sequences (NumPy's S<n> and U<n>, Numba's CharSeq and UnicodeCharSeq): str literals
# stored into U elements and bytes literals into S elements (copied, the rest zero-filled, a
# longer literal cut to the length, a conditional of literals; non-ASCII characters as UCS-4
# code points, escapes in bytes as single bytes), elements and fields copied whole (a[i] = b[j],
# through a variable, between records), in 1-d and 2-d arrays, in device functions, and record
# fields of both kinds (run_diff.py RECORDS rec_chars). The runner compares every byte.
import numpy as np
from numba import cuda

# run_diff.py's rec_chars, as a module-level dtype for local and shared arrays of records.
REC = np.dtype([("n", np.int32), ("u", "U3"), ("s", "S5"), ("w", "<U6"), ("b", "|S1")], align=True)


@cuda.jit
def assign_literals(u, s):
    # Numba's test_const_string kernels, and the literals around them.
    i = cuda.grid(1)
    if i < len(u):
        k = i % 6
        if k == 0:
            u[i] = "XYZ"
            s[i] = b"XYZ"
        elif k == 1:
            u[i] = "a much longer literal than the element"
            s[i] = b"a much longer literal than the element"
        elif k == 2:
            u[i] = ""
            s[i] = b""
        elif k == 3:
            u[i] = "h\u00e9llo \u20ac\U0001F600\u4e2d"
            s[i] = b"\xff\x00\x7f\\\n\t\x80"
        elif k == 4:
            u[i] = "a\0b"
            s[i] = b"con" b"cat" b"enated"
        else:
            u[i] = u[i] = "tw" "ice"
            s[i] = b"even" if i % 2 == 0 else b"odd"
            if i > 20:
                u[i] = "\u00e9" if i % 4 == 1 else ("odd" if i % 4 == 3 else "")


@cuda.jit
def copy_elements(u, s, uo, so):
    i = cuda.grid(1)
    n = len(u)
    if i < n:
        uo[i] = u[n - 1 - i]
        x = s[i]
        so[n - 1 - i] = x
        if i % 3 == 0:
            x = s[0]
            so[n - 1 - i] = x


@cuda.jit(device=True)
def put(a, i, b):
    a[i] = b[i]


@cuda.jit(device=True)
def stamp(a, i):
    a[i] = "dev"


@cuda.jit
def two_d(m, o):
    i, j = cuda.grid(2)
    if i < m.shape[0] and j < m.shape[1]:
        if (i + j) % 2 == 0:
            o[i, j] = m[j % m.shape[0], i % m.shape[1]]
        else:
            o[i, j] = "\u00fcber"


@cuda.jit
def through_device(a, b, c):
    i = cuda.grid(1)
    if i < len(a):
        put(b, i, a)
        if i % 4 == 0:
            stamp(c, i)


@cuda.jit
def record_fields(r, o):
    i = cuda.grid(1)
    n = r.shape[0]
    if i < n:
        o[i].n = r[i].n
        o[i]['u'] = r[n - 1 - i]['u']
        o[i].s = r[i].s
        o[i].w = "field \u00e9\u20ac"
        o[i].b = b"\xfe"
        if r[i].n > 0:
            o[i].s = b"pos"
            o[i].u = r[i].u
        if i % 5 == 0:
            t = o[i]
            t.u = "\U0001F600"
            o[i].s = b""


@cuda.jit
def record_copy(r, o):
    i = cuda.grid(1)
    if i < r.shape[0]:
        o[i] = r[r.shape[0] - 1 - i]


@cuda.jit(device=True)
def element(a, i):
    return a[i]


@cuda.jit(device=True)
def store(a, i, x):
    a[i] = x


@cuda.jit
def values(a, o):
    # Character sequences as values: returned by a device function, passed to one, iterated.
    i = cuda.grid(1)
    n = len(a)
    if i < n:
        y = element(a, n - 1 - i)
        if i % 2 == 1:
            store(o, i, y)
        if i == 0:
            k = 0
            for x in a:
                if k % 2 == 0:
                    o[k] = x
                k += 1


@cuda.jit
def record_arrays(r, o):
    # Local and shared arrays of a record dtype with character fields (a .npy file's records
    # are another record type than REC, as in Numba: copied field by field; the simulator's
    # local and shared arrays are plain structured arrays: fields by name).
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    loc = cuda.local.array(2, REC)
    sh = cuda.shared.array(32, REC)
    loc[0]['n'] = r[i].n
    loc[0]['u'] = r[i].u
    loc[0]['s'] = r[i].s
    loc[1] = loc[0]
    loc[1]['w'] = "local"
    sh[t] = loc[1]
    sh[t]['b'] = b"!" if t % 2 == 0 else b"?"
    cuda.syncthreads()
    x = sh[(t + 1) % 32]
    o[i].n = x['n']
    o[i].u = x['u']
    o[i].s = x['s']
    o[i].w = x['w']
    o[i].b = x['b']
