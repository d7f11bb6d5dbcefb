"""Character sequences (NumPy's S<n> and U<n>, Numba's CharSeq and UnicodeCharSeq; docs/semantics.md,
"Character sequences") through the package: NumPy arrays, device arrays and records with
character fields as arguments; literals stored (copied, zero-filled, cut to the length, non-ASCII
characters as UCS-4 code points) and elements copied. Each kernel's result is compared with the
same Python function run on a copy with NumPy, whose assignment has the same meaning."""
import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda, from_dtype, types

REC = np.dtype([("x", np.int32), ("y", "<U12"), ("z", "S5")], align=True)


def str_assign(arr):
    for i in range(len(arr) - 1):
        arr[i] = "XYZ"


def bytes_assign(arr):
    for i in range(len(arr) - 1):
        arr[i] = b"XYZ"


def literals(u, s):
    u[0] = "h\u00e9llo \u20ac\U0001F600"
    u[1] = "longer than twelve characters"
    u[2] = ""
    s[0] = b"\xff\x00ab"
    s[1] = b"much longer than the element"
    s[2] = b""


def copies(u, s, uo, so):
    for i in range(len(u)):
        uo[i] = u[len(u) - 1 - i]
        x = s[i]
        so[i] = x


def record_fields(a):
    a[0]["x"] = 1
    a[0]["y"] = "ABC"
    a[1].x = 2
    a[1].y = "XYZ\u00e9"
    a[1].z = b"bytes!"
    a[2].y = a[1].y
    a[2]["z"] = a[0]["z"]


def run_both(func, *arrays):
    """func compiled and launched on copies of `arrays`, and run by Python on other copies
    (records as recarrays, as Numba's test_record_dtype runs them): both results."""
    got = [a.copy() for a in arrays]
    want = [a.copy().view(np.recarray) if a.dtype.names else a.copy() for a in arrays]   # r.f works
    cuda.jit(func)[1, 1](*got)
    func(*want)
    return got, want


def same_bytes(got, want):
    """Every byte equal (NumPy's == on strings ignores trailing NULs)."""
    return got.dtype == want.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("func, dtype", [(str_assign, "<U12"), (bytes_assign, "S12")])
def test_numba_const_string_kernels(func, dtype):
    got, want = run_both(func, np.zeros(9, dtype))
    assert same_bytes(got[0], want[0])
    assert got[0][0] == ("XYZ" if dtype == "<U12" else b"XYZ") and not got[0][-1]


def test_literals_are_copied_cut_and_zero_filled():
    u = np.array(["prefilled", "x", "y"], "<U12")
    s = np.array([b"prefill", b"x", b"y"], "S6")
    got, want = run_both(literals, u, s)
    for g, w in zip(got, want):
        assert same_bytes(g, w)
    assert got[0][0] == "h\u00e9llo \u20ac\U0001F600"
    assert got[0].view(np.uint32)[7] == 0x1F600   # a UCS-4 code point, no surrogate pair
    assert got[1][1] == b"much l"


@pytest.mark.parametrize("order", ["C", "F"])
def test_elements_copied(order):
    u = np.asfortranarray(np.array([["ab", "c\u00e9"], ["", "defg"]], "<U4")) if order == "F" else \
        np.array(["ab", "c\u00e9", "", "defg"], "<U4")
    s = np.array([b"ab", b"c\xff", b"", b"defghi"], "S6").reshape(u.shape, order=order)
    if u.ndim == 2:
        def copies2(u, s, uo, so):
            for i in range(2):
                for j in range(2):
                    uo[i, j] = u[j, i]
                    so[i, j] = s[i, j]
        func = copies2
    else:
        func = copies
    got, want = run_both(func, u, s, np.zeros_like(u), np.zeros_like(s))
    for g, w in zip(got, want):
        assert same_bytes(g, w)


@pytest.mark.parametrize("kind", [np.ndarray, np.recarray])
def test_record_fields(kind):
    a = np.zeros(3, REC)
    a[0]["z"] = b"zz"
    if kind is np.recarray:
        a = a.view(np.recarray)
    got, want = run_both(record_fields, a)
    assert same_bytes(np.asarray(got[0]), np.asarray(want[0]))
    assert got[0][1]["y"] == "XYZ\u00e9" and got[0][1]["z"] == b"bytes"


def test_numba_record_test_with_from_dtype_signature():
    dt = np.dtype([("x", np.int32), ("y", np.dtype("<U12"))])

    @cuda.jit((from_dtype(dt)[:],))
    def f(a):
        a[0]["x"] = 1
        a[0]["y"] = "ABC"
        a[1]["x"] = 2
        a[1]["y"] = "XYZ"

    a = np.zeros(2, dt)
    f[1, 1](a)
    np.testing.assert_array_equal(a, np.asarray([(1, "ABC"), (2, "XYZ")], dtype=dt))


def test_device_arrays():
    @cuda.jit
    def reverse(a, b):
        i = cuda.grid(1)
        if i < len(a):
            b[i] = a[len(a) - 1 - i]

    h = np.array(["ab", "c\u00e9d", "", "x"], "<U3")
    d = cuda.to_device(h)
    o = cuda.device_array_like(d)
    assert o.dtype == h.dtype and o.shape == h.shape
    reverse[1, 4](d, o)
    assert same_bytes(o.copy_to_host(), h[::-1].copy())
    assert d.__cuda_array_interface__["typestr"] == "<U3"
    e = cuda.device_array(3, dtype="S7")
    assert e.dtype == np.dtype("S7") and same_bytes(e.copy_to_host(), np.zeros(3, "S7"))
    assert cuda.to_device(np.array([b"ab", b"cd"], "S2"))[1] == b"cd"
    r = cuda.to_device(np.zeros(2, REC))
    assert r.dtype == REC


def test_read_only_array_that_is_only_read():
    @cuda.jit
    def pick(src, dst):
        dst[0] = src[1]

    src = np.array([b"ab", b"cd"], "S2")
    src.flags.writeable = False
    dst = np.zeros(1, "S2")
    pick[1, 1](src, dst)
    assert dst[0] == b"cd"


def test_types():
    assert str(types.CharSeq(12)) == "[char x 12]"
    assert str(types.UnicodeCharSeq(3)[::1]) == "[unichr x 3][::1]"
    assert from_dtype(np.dtype("<U3")) == types.UnicodeCharSeq(3)
    assert from_dtype(np.dtype("S4")).dtype == np.dtype("S4")
    assert str(pyk2cuda.typeof(np.zeros((2, 2), "S3")[:, :1])) == "[char x 3][:, :]"
    assert "y[type=[unichr x 12];offset=4]" in str(from_dtype(REC))
    with pytest.raises(ValueError):
        types.CharSeq(0)

    @cuda.jit(types.void(types.UnicodeCharSeq(4)[::1]))
    def sig(a):
        a[0] = "sig"

    a = np.zeros(2, "<U4")
    sig[1, 1](a)
    assert a[0] == "sig"


def test_refusals():
    with pytest.raises(pyk2cuda.CompileError, match=r"cannot store a str literal into \[char x 4\]"):
        @cuda.jit("void([char x 4][::1])")
        def str_into_bytes(a):
            a[0] = "ab"
    with pytest.raises(pyk2cuda.CompileError, match=r"'==' on a character sequence is not supported"):
        @cuda.jit("void([unichr x 4][::1], bool[::1])")
        def compare(a, r):
            r[0] = a[0] == "ab"

    @cuda.jit
    def other_length(a, b):
        a[0] = b[0]

    with pytest.raises(pyk2cuda.CompileError, match=r"cannot store \[unichr x 5\] into \[unichr x 4\]"):
        other_length[1, 1](np.zeros(1, "<U4"), np.zeros(1, "<U5"))
    with pytest.raises(TypeError, match="unsupported element type"):
        other_length[1, 1](np.zeros(1, ">U4"), np.zeros(1, ">U4"))
    with pytest.raises(TypeError, match="character sequence scalars are not supported"):
        other_length[1, 1](np.zeros(1, "<U4"), np.str_("ab"))
    with pytest.raises(TypeError, match="array of character sequences"):
        other_length[1, 1](np.zeros(1, [("a", "U2", (2,))]), np.zeros(1, "<U4"))


def test_signature_mismatch_names_the_types():
    @cuda.jit("void([unichr x 4][::1])")
    def k(a):
        a[0] = "x"

    with pytest.raises(TypeError, match=r"argument 'a' is \[unichr x 5\]\[::1\], where it takes "
                                        r"\[unichr x 4\]\[::1\]"):
        k[1, 1](np.zeros(2, "<U5"))


CHARS_REC = np.dtype([("n", np.int32), ("u", "U3"), ("s", "S5")], align=True)


def test_local_and_shared_arrays_of_a_global_record_dtype_with_char_fields():
    @cuda.jit
    def k(out):
        loc = cuda.local.array(1, CHARS_REC)
        sh = cuda.shared.array(2, CHARS_REC)
        loc[0]["u"] = "ab\u00e9"
        loc[0]["s"] = b"xyz"
        loc[0]["n"] = 7
        sh[1] = loc[0]
        out[0] = sh[1]

    out = np.zeros(1, CHARS_REC)
    k[1, 1](out)
    assert out[0]["u"] == "ab\u00e9" and out[0]["s"] == b"xyz" and out[0]["n"] == 7


def test_constant_record_array_with_char_fields_is_refused():
    table = np.array([(1, "a", b"b")], CHARS_REC)

    @cuda.jit
    def k(out):
        out[0] = table[0].n

    with pytest.raises(pyk2cuda.CompileError, match="a constant array of records with string fields"):
        k[1, 1](np.zeros(1, np.int32))
