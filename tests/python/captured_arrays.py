"""Kernels that read and write device arrays captured from globals (docs/python.md, "Device
arrays as globals"), as numba-cuda captures them: the array's memory by its address, so a later
write to the array is seen by the next launch. Run by test_captured_arrays.py through pyk2cuda
(`python -m pyk2cuda captured_arrays.py OUT.npz`) and through Numba's simulator, which must give
the same results. Each result goes into OUT.npz."""
import sys

import numpy as np
from numba import cuda

one = cuda.to_device(np.array([1.0, 2.0, 3.0, 4.0, 5.0], dtype=np.float32))
grid = cuda.to_device(np.arange(12, dtype=np.int32).reshape(3, 4))
fortran = cuda.to_device(np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)))
every_other = cuda.to_device(np.arange(10, dtype=np.int64))[::2]
written = cuda.to_device(np.zeros(5, dtype=np.float32))
tally = cuda.to_device(np.zeros(1, dtype=np.int32))


@cuda.jit(device=True)
def read_one(i):
    return one[i] * 2.0


@cuda.jit(device=True)
def total_of(a):
    s = 0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@cuda.jit
def reads(out1, out2, out3, out4):
    i = cuda.grid(1)
    if i < one.size:
        out1[i] = read_one(i)
    if i < 12:
        out2[i] = grid[i // 4, i % 4] + grid.shape[1]
    if i < 6:
        out3[i] = fortran[i % 2, i // 2]
    if i < every_other.shape[0]:
        out4[i] = every_other[i] + total_of(every_other)


@cuda.jit
def writes():
    i = cuda.grid(1)
    if i < written.shape[0]:
        written[i] = float(i + 1) + one[i]
    cuda.atomic.add(tally, 0, 1)


def main(path):
    out1 = cuda.device_array(5, np.float32)
    out2 = cuda.device_array(12, np.int64)
    out3 = cuda.device_array(6, np.float64)
    out4 = cuda.device_array(5, np.int64)
    reads[1, 16](out1, out2, out3, out4)
    results = {"one": out1.copy_to_host(), "grid": out2.copy_to_host(), "fortran": out3.copy_to_host(),
               "strided": out4.copy_to_host()}
    writes[2, 8]()
    results["written"] = written.copy_to_host()
    # A later write to the captured array is what the next launch reads: the kernel holds the
    # array's memory, not a copy of its values.
    one.copy_to_device(np.array([10.0, 20.0, 30.0, 40.0, 50.0], dtype=np.float32))
    reads[1, 16](out1, out2, out3, out4)
    writes[1, 5]()
    results["one_after"] = out1.copy_to_host()
    results["written_after"] = written.copy_to_host()
    results["tally"] = tally.copy_to_host()
    np.savez(path, **results)
    print("captured arrays: ok")


if __name__ == "__main__":
    main(sys.argv[1])
