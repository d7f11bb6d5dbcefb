"""Arrays of records (NumPy structured dtypes) as kernel arguments (docs/semantics.md,
"Records"): recarrays and plain structured arrays, fields read and written, whole records
copied, nested array fields, records passed to device functions; each kernel's result is
compared with the same Python function run on a copy (a recarray, as Numba's
test_record_dtype does), so the expectation is Python's own reading of the code."""
import os

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda, from_dtype
from conftest import run_script

RECORD = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64), ("d", (np.uint8, 5))],
                  align=True)
NESTED = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


def sample(kind=np.recarray):
    a = np.zeros(3, RECORD)
    for i in range(3):
        a[i]["a"], a[i]["b"], a[i]["c"], a[i]["d"] = (i + 1) / 2, i + 1, (i + 1) * 1j, [i + 1] * 5
    return a.view(np.recarray) if kind is np.recarray else a


def set_a(ary, i, v):
    ary[i].a = v


def set_b(ary, i, v):
    ary[i].b = v


def set_c(ary, i, v):
    ary[i].c = v


def set_record(ary, i, j):
    ary[i] = ary[j]


@pytest.mark.parametrize("kind", [np.recarray, np.ndarray])
@pytest.mark.parametrize("func, value", [(set_a, 3.1415), (set_b, 123), (set_c, 7.5), (set_c, 43j)])
def test_set_field(kind, func, value):
    kernel = cuda.jit(func)
    for i in range(3):
        got = sample(kind)
        want = sample(np.recarray)
        kernel[1, 1](got, i, value)
        func(want, i, value)
        assert np.all(np.asarray(got) == np.asarray(want))


def test_set_record():
    kernel = cuda.jit(set_record)
    for i, j in [(0, 1), (1, 2), (0, 2)]:
        got, want = sample(np.ndarray), sample(np.recarray)
        kernel[1, 1](got, i, j)
        set_record(want, i, j)
        assert got[i] == got[j]
        assert np.all(np.asarray(got) == np.asarray(want))


def test_alignment_with_from_dtype_signature():
    # Numba's test_record_alignment: a signature made of from_dtype(...)[:].
    dt = np.dtype([("a", "int32"), ("b", "float64")], align=True)

    @cuda.jit((from_dtype(dt)[:],))
    def foo(a):
        i = cuda.grid(1)
        a[i].a = a[i].b

    a = np.recarray(3, dtype=dt)
    a.a, a.b = 0, [123, 246, 369]
    foo[1, 3](a)
    assert np.all(a.a == a.b)


def test_unaligned_record_is_refused():
    dt = np.dtype([("a", "int32"), ("b", "float64")])   # b at offset 4
    with pytest.raises(pyk2cuda.CompileError, match="float64 is not aligned"):
        @cuda.jit((from_dtype(dt)[:],))
        def foo(a):
            a[0].a = a[0].b


@cuda.jit(device=True)
def write_through(r, v):
    r.i = v
    r.j[2, 1] = r.j[0, 0] + v
    return r.j[1, 0]


def nested(src, out):
    i = cuda.grid(1)
    if i < src.shape[0]:
        r = src[i]
        out[i] = write_through(r, i) + r['i']


def test_nested_arrays_and_device_functions():
    a = np.zeros(4, NESTED)
    a["j"] = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    want_a, want_out = a.copy().view(np.recarray), np.zeros(4)
    got_out = np.zeros(4)

    def write_through_py(r, v):   # the device function, run by Python on a record
        r.i = v
        r.j[2, 1] = r.j[0, 0] + v
        return r.j[1, 0]
    for i in range(4):
        r = want_a[i]
        want_out[i] = write_through_py(r, i) + r["i"]
    cuda.jit(nested)[1, 4](a, got_out)
    assert np.array_equal(a, np.asarray(want_a))
    assert np.array_equal(got_out, want_out)


def record_set_b(r, v):
    r.b = v


def record_read_c(r, arr):
    arr[0] = r.c


def record_write_array(r):
    r.d[0] = 3
    r.d[4] = r.b + 1


@pytest.mark.parametrize("kind", [np.recarray, np.ndarray])
def test_record_scalar_is_passed_by_reference(kind):
    # Numba's test_rec_set_*, test_rec_read_*, test_record_write_1d_array: a record (arr[i]) as an
    # argument; the kernel's writes reach the array it belongs to.
    got, want = sample(kind), sample(np.recarray)
    cuda.jit(record_set_b)[1, 1](got[1], np.int32(77))
    record_set_b(want[1], 77)
    cuda.jit(record_write_array)[1, 1](got[2])
    record_write_array(want[2])
    assert np.array_equal(np.asarray(got), np.asarray(want))
    out = np.zeros(1, np.complex64)
    cuda.jit(record_read_c)[1, 1](got[2], out)
    assert out[0] == got[2]["c"]


def test_record_scalar_of_another_type_takes_another_specialization():
    kernel = cuda.jit(record_set_b)
    other = np.zeros(1, np.dtype([("b", np.int64)]))
    kernel[1, 1](sample()[0], 1)
    kernel[1, 1](other[0], 5)
    assert other[0]["b"] == 5 and len(kernel.signatures) == 2


FAKE = os.environ.get("PYK2CUDA_FAKECUDA")


@pytest.mark.skipif(not FAKE, reason="PYK2CUDA_FAKECUDA (the meson test sets it) is not set")
def test_records_on_the_fake_driver(tmp_path):
    # The GPU path's copies: a record array and a record passed by reference go to device memory
    # and back (the fake driver runs no kernel: the bytes must come back unchanged), and a device
    # array of records comes back with its dtype.
    script = tmp_path / "fake_records.py"
    script.write_text(
        "import numpy as np\nfrom pyk2cuda import cuda\n"
        "d = np.dtype([('a', np.int32), ('b', np.float64)], align=True)\n"
        "a = np.zeros(4, d); a['b'] = [1, 2, 3, 4]; want = a.copy()\n"
        "@cuda.jit\ndef k(arr, r):\n    arr[0].a = 1\n    r.a = 2\n"
        "k[1, 1](a, a[3])\nassert np.array_equal(a, want), a\n"
        "dev = cuda.to_device(a)\nk[1, 1](dev, a[1])\nback = dev.copy_to_host()\n"
        "assert back.dtype == d and np.array_equal(back, want), back\n"
        "assert cuda.device_array(3, dtype=d).copy_to_host().dtype == d\n"
        "print('records: ok')\n")
    rc, out, err = run_script([str(script)], env={"PYK2CUDA_LIBCUDA": FAKE, "PYK2CUDA_DEVICE": "gpu"})
    assert rc == 0 and "records: ok" in out, out + err


def test_device_arrays_of_records():
    # cuda.to_device / device_array of a record dtype, launches on them, views, copies back.
    got = sample(np.ndarray)
    want = sample(np.recarray)
    dev = cuda.to_device(got)
    assert dev.dtype == RECORD and dev.shape == (3,) and dev.nbytes == 3 * RECORD.itemsize
    cuda.jit(set_record)[1, 1](dev, 0, 2)
    set_record(want, 0, 2)
    assert np.array_equal(dev.copy_to_host(), np.asarray(want))
    assert dev[1:].copy_to_host().dtype == RECORD and dev[2] == want[2]
    fresh = cuda.device_array(2, dtype=RECORD)
    fresh.copy_to_device(got[:2])
    assert np.array_equal(fresh.copy_to_host(), got[:2])
    assert "record" in repr(fresh)


def assign_array_to_nested(dest, src):
    dest['array1'] = src


def record_setitem_array(rec_source, rec_dest):
    rec_dest['j'] = rec_source['j']


def test_whole_nested_arrays():
    # Numba's test_assign_array_to_nested, test_setitem and issue 7693, on records by reference.
    nested1 = np.dtype([("array1", np.int16, (3,))], align=True)
    got, want = np.zeros(2, nested1), np.zeros(2, nested1)
    src = (np.arange(3) + 1).astype(np.int16)
    cuda.jit(assign_array_to_nested)[1, 1](got[0], src)
    assign_array_to_nested(want[0], src)
    assert np.array_equal(got, want)
    a, b = np.zeros(1, NESTED), np.zeros(1, NESTED)
    a[0] = (1, ((1, 2), (4, 5), (2, 3)))
    cuda.jit(record_setitem_array)[1, 1](a[0], b[0])
    assert np.array_equal(b["j"], a["j"]) and b[0]["i"] == 0


def read_field(a, out):
    out[0] = a[1].b + a[2]['a']


def write_through_element(a):
    r = a[0]
    r.b = 5


def test_read_only_record_arrays():
    # A read-only record array is taken for a parameter whose fields are only read; a kernel that
    # writes a field (directly or through a record it binds) needs a writable array.
    a = sample(np.ndarray)
    a.flags.writeable = False
    out = np.zeros(1)
    cuda.jit(read_field)[1, 1](a, out)
    assert out[0] == a[1]["b"] + a[2]["a"]
    for f in (set_b, write_through_element):
        with pytest.raises(ValueError, match="read-only"):
            cuda.jit(f)[1, 1](*((a, 0, 1) if f is set_b else (a,)))


def recarray_getitem_return(ary):
    return ary[0]


def test_getitem_by_position():
    # Numba's test_getitem_idx: ary[0] of a record array is a record, of a record its first field.
    inner = cuda.jit(device=True)(recarray_getitem_return)

    @cuda.jit
    def outer(arg0, res):
        res[0] = inner(arg0)

    arr = np.zeros(2, np.dtype([("g", np.int32), ("h", np.float32, 2)], align=True))
    arr[0] = (1, (2, 3))
    for arg, res in ((arr, np.zeros(1, arr.dtype)), (arr[0], np.zeros(1, np.int32))):
        outer[1, 1](arg, res)
        assert res[0] == recarray_getitem_return(arg)


WITH_2D = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


def _copy_through_shared(dt):
    """test_sm's kernel: a block's records copied through a shared array of dtype `dt`."""
    @cuda.jit
    def chunk_copy(x, y):
        sm = cuda.shared.array(16, dtype=dt)
        tx = cuda.threadIdx.x
        i = cuda.blockIdx.x * cuda.blockDim.x + tx
        if i < len(x):
            sm[tx] = x[i]
        cuda.syncthreads()
        if tx == 0:
            for j in range(16):
                y[cuda.blockDim.x * cuda.blockIdx.x + j] = sm[j]
    return chunk_copy


@pytest.mark.parametrize("spelling", ["dtype", "from_dtype", "recarray"])
def test_shared_and_local_arrays_of_a_record_dtype(spelling):
    # a record dtype a kernel names (a global or a closure's variable): NumPy's dtype, Numba's
    # type of it, or a recarray's dtype (numpy.record) is the dtype of shared and local arrays
    arr = np.recarray(64, dtype=WITH_2D) if spelling == "recarray" else np.zeros(64, WITH_2D)
    arr["i"] = np.arange(64)
    arr["j"] = np.arange(64 * 6, dtype=np.float32).reshape(64, 3, 2)
    dt = from_dtype(arr.dtype) if spelling == "from_dtype" else arr.dtype
    out = np.zeros_like(arr)
    _copy_through_shared(dt)[4, 16](arr, out)
    np.testing.assert_array_equal(out, arr)

    @cuda.jit
    def local_copy(x, y):
        r = cuda.local.array(1, WITH_2D)
        i = cuda.grid(1)
        r[0] = x[i]
        r[0].i += 1
        y[i] = r[0]

    local_copy[4, 16](arr, out)
    np.testing.assert_array_equal(out["i"], arr["i"] + 1)
    np.testing.assert_array_equal(out["j"], arr["j"])


def test_a_record_dtype_of_its_own_layout_is_refused_by_name():
    odd = np.dtype({"names": ["a", "b"], "formats": [np.int32, np.int32], "offsets": [0, 8], "itemsize": 16})
    with pytest.raises(pyk2cuda.CompileError, match="Untyped global name 'dt': a global of type numpy.dtype"):
        _copy_through_shared(odd)[1, 16](np.zeros(16, odd), np.zeros(16, odd))


PAIRS = np.array([(1.0, 2), (3.0, 4)], dtype=[("x", float), ("y", int)])
PADDED = np.array([(1, 0xDEADBEEF), (2, 7)], dtype=np.dtype([("a", np.uint8), ("y", np.uint32)], align=True))


def test_constant_arrays_of_records():
    # Numba's test_constmem forms: global arrays of records, packed and padded, as constants
    @cuda.jit
    def read(out):
        i = cuda.grid(1)
        c = cuda.const.array_like(PAIRS)
        out[i, 0] = c[i]["x"] * c[i]["y"]
        out[i, 1] = PADDED[i]["y"] - PADDED[i]["a"]

    out = np.zeros((2, 2))
    read[1, 2](out)
    np.testing.assert_array_equal(out, [[2.0, 0xDEADBEEF - 1], [12.0, 5.0]])


def test_numbas_own_record_type_as_a_dtype():
    # a script that imports Numba's numpy_support (Numba's test_sm does) gives Numba's Record
    nps = pytest.importorskip("numba.np.numpy_support")
    arr = np.zeros(32, WITH_2D)
    arr["i"] = np.arange(32)
    out = np.zeros_like(arr)
    _copy_through_shared(nps.from_dtype(WITH_2D))[2, 16](arr, out)
    np.testing.assert_array_equal(out, arr)
