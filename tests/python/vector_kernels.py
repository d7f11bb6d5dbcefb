"""CUDA vector types through the Python package: a type imported by name
(`from pyk2cuda.cuda import float32x4`), one reached through a closure variable (frozen as an
import), the aliases, and device functions taking and returning vectors.
Run with pyk2cuda (test_vector_types.py) and under Numba's simulator (numba_shim.py), which
must print the same lines; each case also checks itself against NumPy."""
import numpy as np

from pyk2cuda import cuda
from pyk2cuda.cuda import float32x4


def report(name, got, want):
    assert np.array_equal(got, want), (name, got, want)
    print("%s: ok %s" % (name, np.array2string(np.asarray(got, dtype=np.float64), precision=4)))


@cuda.jit(device=True)
def swapped(v):
    return cuda.float2(v.y, v.x)


def imported_by_name():
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            v = float32x4(swapped(cuda.float2(x[i, 0], x[i, 1])), x[i, 2], x[i, 3])
            out[i, 0] = v.x
            out[i, 1] = v.y
            out[i, 2] = v.z + v.w
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    out = np.zeros((6, 3), np.float32)
    k[1, 8](x, out)
    report("imported_by_name", out, np.stack([x[:, 1], x[:, 0], x[:, 2] + x[:, 3]], axis=1))


def through_a_closure():
    for vtype, base in ((cuda.int16x3, np.int16), (cuda.ulong3, np.uint64), (cuda.double3, np.float64)):
        @cuda.jit
        def k(out):
            v = vtype(base(1), base(2), base(3))
            out[0] = v.x
            out[1] = v.y
            out[2] = v.z
        out = np.zeros(3)
        k[1, 1](out)
        report("through_a_closure " + vtype.__name__, out, [1.0, 2.0, 3.0])


def aliases_are_the_same_objects():
    same = cuda.float4 is cuda.float32x4 and cuda.long2 is cuda.int64x2 and cuda.uchar1 is cuda.uint8x1
    print("aliases_are_the_same_objects: ok %s" % same)


if __name__ == "__main__":
    imported_by_name()
    through_a_closure()
    aliases_are_the_same_objects()
