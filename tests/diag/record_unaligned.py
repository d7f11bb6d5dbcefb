# Numba's test_record_alignment_error: a packed record whose float64 field sits at offset 4.
from numba import cuda


@cuda.jit("void(Record(a[type=int32;offset=0],b[type=float64;offset=4];12;False)[:])")
def foo(a):
    i = cuda.grid(1)
    a[i].a = a[i].b


@cuda.jit("void(Record(a[type=float64;offset=0],b[type=int32;offset=8];12;False)[:])")
def tail(a):
    a[0].b = 1


@cuda.jit("void(Record(a[type=int32;offset=0],b[type=int16;offset=2];4;True)[:])")
def overlap(a):
    a[0].b = 1
