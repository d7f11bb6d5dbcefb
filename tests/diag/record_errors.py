# args: --sig 'fields(Record(a[type=int32;offset=0],b[type=float64;offset=8];16;True)[::1], Record(x[type=float32;offset=0];4;False)[::1])' --sig 'nested(Record(v[type=nestedarray(float32, (3,));offset=0];12;False)[::1], float32[:, ::1])'
# Wrong uses of records: a missing field, a name that is not a string literal, storing one
# record type into another, a number into a record, assigning to an array's attribute, a
# record in a tuple, a nested array field given an array of other dimensions or a number.
from numba import cuda


@cuda.jit
def fields(a, b):
    i = cuda.grid(1)
    a[i].c = 1
    x = a[i][i]
    y = a[i][2]
    b[i] = a[i]
    a[i] = 2.5
    a.shape = 3
    t = (a[i], 1)


@cuda.jit
def nested(a, m):
    a[0].v = m
    a[1].v = 2.0
