"""Tuples and namedtuples as kernel arguments (docs/python.md, "Kernel arguments"): the
kernels of tuple_args.py against Numba's simulator, the GPU path's packing and copies on the
fake driver, explicit signatures with tuple types, and what is refused."""
import os
import sys
from collections import namedtuple

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda
from conftest import HERE, run_script
from test_samples import has_numba, numba_simulator_output

SCRIPT = os.path.join(HERE, "tuple_args.py")
FAKE = os.environ.get("PYK2CUDA_FAKECUDA")


def test_tuple_arguments_match_numba_simulator():
    rc, ours, err = run_script([SCRIPT])
    assert rc == 0, ours + err
    assert ours.count("\n") == 10, ours
    if not has_numba():
        pytest.skip("Numba's simulator (Debian's python3-numba) is not installed")
    assert numba_simulator_output(SCRIPT) == ours


@pytest.mark.skipif(not FAKE, reason="PYK2CUDA_FAKECUDA (the meson test sets it) is not set")
def test_tuple_of_host_and_device_arrays_on_the_fake_gpu():
    # The fake driver runs tuple_axpy in C, reading the tuple's struct as the ABI lays it out:
    # the host array in the tuple is copied in and back, the device array is used in place.
    script = ("import numpy as np\nfrom pyk2cuda import cuda\nimport fake_kernels as K\n"
              "x, y = np.arange(300.0), np.ones(300)\n"
              "K.tuple_axpy[2, 256]((2.0, x, y))\n"
              "assert np.array_equal(y, 1 + 2 * x), y[:4]\n"
              "d_y = cuda.to_device(np.zeros(300))\n"
              "K.tuple_axpy[2, 256]((0.5, x, d_y))\n"
              "assert np.array_equal(d_y.copy_to_host(), 0.5 * x)\n"
              "print('tuples on the fake gpu: ok')\n")
    rc, out, err = run_script(["-c", script], env={"PYK2CUDA_LIBCUDA": FAKE, "PYK2CUDA_DEVICE": "gpu"})
    assert rc == 0 and "tuples on the fake gpu: ok" in out, out + err


Point = namedtuple("Point", ("x", "y"))


def test_explicit_signature_with_tuple_types_converts_scalars():
    @cuda.jit("void(float64[::1], UniTuple(float64, 2), Tuple((int32, int32)), "
              "NamedTuple(Point, x=int32, y=int32))")
    def k(r, t, u, p):
        r[0] = t[0] + t[1]
        r[1] = u[0] * u[1] + p.x * p.y

    r = np.zeros(2)
    p = Point(np.int32(1), np.int32(2))
    k[1, 1](r, (1, 2), (np.int8(3), 4), p)   # plain tuples convert element by element, as Numba's
    assert r.tolist() == [3.0, 14.0]
    # A float for an int32 element is refused, naming the parameter, as Numba's dispatcher refuses
    # it (its ctypes.c_int32(3.9) raises), where a C cast truncated it before.
    with pytest.raises(TypeError, match="argument 'u': a float64 \\(3.9\\) cannot be passed to the int32"):
        k[1, 1](r, (1, 2), (3.9, 4), p)
    # A namedtuple converts to no other type (Numba's tuples: only a plain tuple converts), so its
    # elements must have the field types (issue 27; tuple_choice.py checks it against Numba).
    with pytest.raises(TypeError, match=r"argument 'p' is NamedTuple\(Point, x=int64, y=int64\), where it "
                                        r"takes NamedTuple\(Point, x=int32, y=int32\)"):
        k[1, 1](r, (1, 2), (3, 4), Point(3, 4))
    with pytest.raises(TypeError, match=r"NamedTuple\(Point, x=int32, y=int32\)"):
        k[1, 1](r, (1, 2), (3, 4), (3, 4))         # a plain tuple is not the namedtuple


def test_specialization_per_tuple_type():
    @cuda.jit
    def k(r, t):
        r[0] = len(t)

    r = np.zeros(1, np.int64)
    for t in [(1, 2), (1.0, 2), (1, 2, 3), Point(1, 2), ((1,), 2)]:
        k[1, 1](r, t)
        assert r[0] == len(t)
    sigs = [s[0] for s in k._specs()]
    assert len(sigs) == 5, sigs
    assert "void(int64[::1], NamedTuple(Point, x=int64, y=int64))" in sigs, sigs
    assert "void(int64[::1], Tuple(UniTuple(int64 x 1), int64))" in sigs, sigs


def test_specialize_types_tuples_as_a_launch_does():
    @cuda.jit
    def k(r, t, p):
        r[0] = t[1][0] + p.y

    r = np.zeros(1)
    s = k.specialize(r, (1, np.arange(2.0)), Point(1, 2.5))
    assert s.signatures == ["void(float64[::1], Tuple(int64, float64[::1]), NamedTuple(Point, x=int64, y=float64))"], s.signatures
    s[1, 1](r, (1, np.arange(2.0) + 3), Point(1, 2.5))
    assert r[0] == 5.5


def test_read_only_array_in_a_tuple_is_refused():
    @cuda.jit
    def k(t):
        t[0][0] = 1

    a = np.zeros(2)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="element 0 of the tuple is a read-only array"):
        k[1, 1]((a,))


def test_record_in_a_tuple_is_refused():
    rec = np.zeros(1, np.dtype([("a", np.int32)]))

    @cuda.jit
    def k(t):
        pass

    with pytest.raises(pyk2cuda.Error, match="a record cannot be a tuple element"):
        k[1, 1]((rec[0],))


def test_namedtuple_field_that_does_not_exist_is_a_compile_error():
    @cuda.jit
    def k(r, p):
        r[0] = p.z

    with pytest.raises(pyk2cuda.CompileError, match=r"Point\(int64, int64\) has no field 'z'"):
        k[1, 1](np.zeros(1), Point(1, 2))


def test_a_bad_element_names_the_parameter_and_frees_the_others():
    @cuda.jit
    def k(t):
        pass

    x = np.zeros(3)
    before = sys.getrefcount(x)
    for _ in range(3):
        with pytest.raises(TypeError, match="argument 't'.*got str"):
            k[1, 1]((x, (x, "no")))
    assert sys.getrefcount(x) == before    # the converted arrays' buffers were released


def test_deeply_nested_tuple_is_refused():
    t = 1
    for _ in range(20):
        t = (t,)

    @cuda.jit
    def k(x):
        pass

    with pytest.raises(ValueError, match="nested more than 16 deep"):
        k[1, 1](t)
