"""The PTX Numba's tests look for (issue 28; docs/python.md, "The PTX Numba's tests read"):
float64 atomic add on global memory as atom.add.f64, complex constant arrays loaded as vectors,
cuda.selp without a branch (and with every argument evaluated, as Numba does), float16
conversions as Numba's cvt instructions, get_regs_per_thread's dict under Numba's keys, and
$NUMBA_CUDA_DEBUGINFO as the default of debug=. The PTX is NVRTC's (no GPU needed); results run
on whichever device pyk2cuda chooses (the simulator here), against NumPy or Numba's simulator."""
import os
import re
import shutil
import textwrap

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda, float16, float64, int64
from conftest import run_script


def add_global(idx, ary):
    i = cuda.threadIdx.x
    cuda.atomic.add(ary, idx[i] % ary.size, 1.0)


def add_shared(idx, ary):
    sm = cuda.shared.array(32, float64)
    i = cuda.threadIdx.x
    sm[i] = 0
    cuda.syncthreads()
    cuda.atomic.add(sm, idx[i] % 32, 1.0)
    cuda.syncthreads()
    ary[i] = sm[i]


def test_float64_atomic_add_is_numbas_instruction():
    """test_atomics' assertion: a float64 add on a global array is `atom.add.f64` (Numba's
    generic address; NVRTC alone says atom.global.add.f64), one on a shared array stays
    `atom.shared.add.f64`; the sums are NumPy's."""
    sig = (int64[::1], float64[::1])
    k = cuda.jit(sig)(add_global)
    ptx = k.inspect_asm(sig)
    assert "atom.add.f64" in ptx and "atom.global.add.f64" not in ptx
    shared = cuda.jit(sig)(add_shared)
    assert "atom.shared.add.f64" in shared.inspect_asm(sig)
    idx = np.random.default_rng(1).integers(0, 1000, 32)
    gold = np.bincount(idx % 32, minlength=32).astype(np.float64)
    for kernel in (k, shared):
        ary = np.zeros(32)
        kernel[1, 32](idx, ary)
        np.testing.assert_array_equal(ary, gold)


C3D = np.array([[[0.5 + 1j, 2 + 3j], [1 + 1j, 2 - 3j]], [[-0.5 + 4j, 8j], [7, -1 - 1j]]],
               dtype=np.complex64)


def const3d(a):
    c = cuda.const.array_like(C3D)
    a[cuda.threadIdx.x, cuda.threadIdx.y, cuda.threadIdx.z] = \
        c[cuda.threadIdx.x, cuda.threadIdx.y, cuda.threadIdx.z]


def test_complex_constant_array_loads_as_vectors():
    """test_constmem.test_const_array_3d: a complex64 constant array is aligned to its item's
    size, as Numba aligns it, and an item loads with one ld.const.v2.f32."""
    sig = (pyk2cuda.complex64[:, :, :],)
    k = cuda.jit(sig)(const3d)
    assert "ld.const.v2.f32" in k.inspect_asm(sig)
    a = np.zeros_like(C3D, order="F")
    k[1, (2, 2, 2)](a)
    np.testing.assert_array_equal(a, C3D)


def branching_with_selps(a, b, c):
    i = cuda.grid(1)
    inner = cuda.selp(b % 2 == 0, c[i], 13)
    a[i] = cuda.selp(a[i] > 4, inner, 3)


def test_selp_has_no_branch():
    """test_intrinsics.test_selp: no `bra` in the PTX of two selps whose operands load array
    elements (a conditional expression would load c[i] under a branch), and its results."""
    sig = (int64[:], int64, int64[:])
    k = cuda.jit(sig)(branching_with_selps)
    ptx = k.inspect_asm(sig)
    assert len(re.findall(r"\s+bra\s+", ptx)) == 0 and "selp" in ptx
    a, c = np.arange(32, dtype=np.int64), np.full(32, 17, np.int64)
    k[32, 1](a, 6, c)
    expected = c.copy()
    expected[:5] = 3
    np.testing.assert_array_equal(a, expected)


SELP_EVALUATES_BOTH = textwrap.dedent("""
    import numpy as np
    from numba import cuda

    @cuda.jit(debug=True, opt=False)
    def pick(a, out):
        out[0] = cuda.selp(a[0] > 100, a[5], 1)

    try:
        pick[1, 1](np.zeros(3, np.int64), np.zeros(1, np.int64))
        print("no error")
    except IndexError:
        print("IndexError")
""")


def test_selp_evaluates_every_argument_as_numba():
    """cuda.selp is a call: Numba evaluates a[5] although the condition picks the other value,
    so with debug=True an index out of bounds there raises IndexError, in Numba's simulator and
    in pyk2cuda alike."""
    code, out, err = run_script(["-c", SELP_EVALUATES_BOTH], env={"NUMBA_ENABLE_CUDASIM": "1"})
    assert code == 0 and out.strip() == "IndexError", err

    def pick(a, out):
        out[0] = cuda.selp(a[0] > 100, a[5], 1)
    k = cuda.jit(debug=True, opt=False)(pick)
    with pytest.raises(IndexError):
        k[1, 1](np.zeros(3, np.int64), np.zeros(1, np.int64))


def to_int8(x):
    return np.int8(x)


def to_uint64(x):
    return np.uint64(x)


def to_float16(x):
    return np.float16(x)


def to_float64(x):
    return np.float64(x)


@pytest.mark.parametrize("fn,sig,spelling", [
    (to_int8, (float16,), "cvt.rni.s8.f16"), (to_uint64, (float16,), "cvt.rni.u64.f16"),
    (to_float16, (pyk2cuda.int8,), "cvt.rn.f16.s8"), (to_float16, (pyk2cuda.uint32,), "cvt.rn.f16.u32"),
    (to_float64, (float16,), "cvt.f64.f16")])
def test_float16_conversions_are_numbas_instructions(fn, sig, spelling):
    """test_casting's *_ptx assertions: one cvt each, as Numba's code has."""
    ptx, _ = cuda.compile_ptx(fn, sig, device=True)
    assert spelling in ptx


def half_to_ints(h, i8, u8, i64, back):
    i = cuda.grid(1)
    if i < h.size:
        i8[i] = np.int8(h[i])
        u8[i] = np.uint8(h[i])
        i64[i] = np.int64(h[i])
        back[i] = np.float16(i8[i])


def test_float16_to_int_rounds_to_nearest_and_saturates():
    """The meaning those instructions have (cvt.rni: to the nearest integer, ties to even,
    saturating; NaN to 0), which the simulator computes too."""
    h = np.array([0.5, 1.5, 2.5, -2.5, 126.6, 300, -300, np.inf, -np.inf, np.nan, -0.4, 65504],
                 np.float16)
    i8, u8, i64 = np.zeros(h.size, np.int8), np.zeros(h.size, np.uint8), np.zeros(h.size, np.int64)
    back = np.zeros(h.size, np.float16)
    cuda.jit(half_to_ints)[1, 32](h, i8, u8, i64, back)

    def expect(dtype):
        info = np.iinfo(dtype)
        return np.array([0 if v != v else info.max if v >= info.max else info.min if v <= info.min
                         else int(np.rint(v)) for v in h.astype(float)], dtype)
    np.testing.assert_array_equal(i8, expect(np.int8))
    np.testing.assert_array_equal(u8, expect(np.uint8))
    np.testing.assert_array_equal(i64, expect(np.int64))
    np.testing.assert_array_equal(back, expect(np.int8).astype(np.float16))


def pi_sin_array(x, n):
    i = cuda.grid(1)
    if i < n:
        x[i] = 3.14 * np.sin(x[i])


@pytest.mark.skipif(not (shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas")),
                    reason="ptxas (CUDA toolkit) is not installed")
def test_regs_per_thread_of_every_specialization_by_numbas_keys():
    """test_dispatcher.test_get_regs_per_thread_unspecialized: get_regs_per_thread() of a
    kernel with two specializations answers to Numba's keys (sig.args) with the figures
    get_regs_per_thread(sig) gives."""
    k = cuda.jit(pi_sin_array)
    k[1, 10](np.zeros(10, np.float32), 10)
    k[1, 10](np.zeros(10, np.float64), 10)
    sig32 = pyk2cuda.void(pyk2cuda.float32[::1], int64)
    sig64 = pyk2cuda.void(float64[::1], int64)
    every = k.get_regs_per_thread()
    assert every[sig32.args] == k.get_regs_per_thread(sig32) > 0
    assert every[sig64.args] == k.get_regs_per_thread(sig64) > 0


DEBUGINFO_DEFAULT = textwrap.dedent("""
    import pyk2cuda
    from pyk2cuda import cuda
    sig = (pyk2cuda.int32[::1],)
    def store(x):
        x[0] = 1
    for options in ({"opt": False}, {"debug": False}):
        asm = cuda.jit(sig, **options)(store).inspect_asm(sig)
        print(".section\\t.debug_info" in asm)
""")


@pytest.mark.parametrize("value,expect", [("1", ["True", "False"]), ("0", ["False", "False"]),
                                          (None, ["False", "False"])])
def test_numba_cuda_debuginfo_is_the_default_of_debug(value, expect):
    """test_debuginfo.test_environment_override: $NUMBA_CUDA_DEBUGINFO (Numba's config
    CUDA_DEBUGINFO_DEFAULT) is debug='s default; debug=False still says no."""
    env = dict(os.environ)
    env.pop("NUMBA_CUDA_DEBUGINFO", None)
    if value is not None:
        env["NUMBA_CUDA_DEBUGINFO"] = value
    code, out, err = run_script(["-c", DEBUGINFO_DEFAULT], env=env)
    assert code == 0, err
    assert out.split() == expect


def store_one(x):
    x[0] = 1


def mul_add(x, y, z):
    return x * y + z


def test_opt_false_is_nvvms_opt0():
    """opt=False gives NVVM -opt=0 (NVRTC's -Xnvvm=-opt=0, Numba's NVVM option): the kernel keeps
    its local frame (__local_depot0, test_optimization's first fragment) and a device function's
    x * y + z is not fused (test_device_noopt); with the default, both are optimized. Numba's
    other two fragments (call.uni, st.param.b64) are its kernel wrapper's call of the Python
    function, which pyk2cuda's kernels do not have."""
    sig = (float64[::1],)
    assert "__local_depot0" not in cuda.jit(sig)(store_one).inspect_asm(sig)
    assert "__local_depot0" in cuda.jit(sig, opt=False)(store_one).inspect_asm(sig)
    args = (float64, float64, float64)
    for opt in (True, False):
        fused = "fma.rn.f64" in cuda.jit(args, device=True, opt=opt)(mul_add).inspect_asm(args)
        assert fused == opt
        ptx, _ = cuda.compile_ptx(mul_add, args, device=True, opt=opt)
        assert ("fma.rn.f64" in ptx) == opt
    for opt in (True, False):   # a lazy kernel's specializations, made by launch and compile()
        k = cuda.jit(opt=opt)(store_one)
        x = np.zeros(1)
        k[1, 1](x)
        assert x[0] == 1
        k.compile((pyk2cuda.int32[::1],))
        for ptx in k.inspect_asm().values():
            assert ("__local_depot0" in ptx) != opt
