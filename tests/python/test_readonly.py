"""Read-only arrays as kernel arguments: accepted for parameters the kernel only reads (as
Numba types them read-only), a ValueError naming the parameter where the kernel may write.
Results against NumPy."""
import mmap

import numpy as np
import pytest

from pyk2cuda import cuda
import readonly_kernels as K


def frozen(a):
    a = np.array(a)
    a.setflags(write=False)
    return a


def test_read_only_input_of_a_lazy_kernel():
    x = frozen(np.arange(40, dtype=np.float32))
    out = np.zeros(40, np.float32)
    K.scale[2, 32](x, out, np.float32(3))
    np.testing.assert_array_equal(out, x * 3)


def test_read_only_input_of_a_signed_kernel_through_a_row_view():
    m = frozen(np.arange(12.0).reshape(3, 4))
    out = np.zeros(3)
    K.row_sums[1, 32](m, out)
    np.testing.assert_array_equal(out, m.sum(axis=1))


def test_memory_that_cannot_be_written_at_all():
    # A read-only mapping: a write (or a copy back over it) would be a segmentation fault.
    mm = mmap.mmap(-1, 8 * 64, prot=mmap.PROT_READ)
    x = np.frombuffer(mm, dtype=np.float64)
    out = np.ones(64)
    K.scale[2, 32](x, out, 2.0)
    np.testing.assert_array_equal(out, np.zeros(64))
    del x


@pytest.mark.parametrize("kernel, args, param", [
    (K.scale, lambda ro: (np.ones(8, np.float32), ro(np.zeros(8, np.float32)), np.float32(1)), "dst"),
    (K.through_device, lambda ro: (ro(np.zeros(4)), 1), "a"),
    (K.atomic_count, lambda ro: (ro(np.zeros(1, np.int32)), np.ones(8)), "counter"),
    (K.aliased, lambda ro: (ro(np.zeros(4)), np.zeros(4)), "a"),
])
def test_read_only_array_where_the_kernel_writes(kernel, args, param):
    a = args(frozen)
    with pytest.raises(ValueError, match=r"argument '%s' of kernel '%s': the array is read-only"
                       % (param, kernel.__name__)):
        kernel[1, 32](*a)
    b = args(np.array)   # the same launch with writable arrays runs
    kernel[1, 32](*b)


def test_nothing_is_written_before_the_refusal():
    out = np.full(8, 7.0)
    with pytest.raises(ValueError):
        K.aliased[1, 32](frozen(np.arange(8.0)), out)
    np.testing.assert_array_equal(out, np.full(8, 7.0))


def test_read_only_inputs_of_a_ufunc():
    x, y = frozen(np.arange(6.0)), frozen(np.full(6, 2.0))
    np.testing.assert_allclose(K.vhypot(x, y), np.hypot(x, y))


def test_device_arrays_are_writable_whatever_the_host_array_was():
    d = cuda.to_device(frozen(np.arange(4.0)))
    K.through_device[1, 1](d, 2)
    np.testing.assert_array_equal(d.copy_to_host(), [0, 1, 5, 3])
