"""cuda.In / Out / InOut and kernel extensions (numba.cuda.args; docs/python.md, "Argument
wrappers and kernel extensions"), checked against NumPy, and numba.cuda.args under
python3 -m pyk2cuda."""
import numpy as np
import pytest

from pyk2cuda import cuda
from conftest import run_script


def add_one(src, dst):
    i = cuda.grid(1)
    if i < src.size:
        dst[i] = src[i] + 1
        src[i] = -7


def test_in_out_inout():
    k = cuda.jit(add_one)
    src, dst = np.arange(5.0), np.full(5, 9.0)
    k[1, 8](cuda.In(src), cuda.Out(dst))
    np.testing.assert_array_equal(src, np.arange(5.0))        # In: never copied back
    np.testing.assert_array_equal(dst, np.arange(5.0) + 1)    # Out: copied back
    k[1, 8](cuda.InOut(src), dst)
    np.testing.assert_array_equal(src, np.full(5, -7.0))      # InOut: copied back


def test_out_is_not_copied_in():
    @cuda.jit
    def keep(a):
        a[0] = a[0] + 1
    a = np.full(1, 41.0)
    keep[1, 1](cuda.Out(a))
    assert a[0] == 1.0             # the kernel saw a new zero-filled array
    keep[1, 1](cuda.InOut(a))
    assert a[0] == 2.0


def test_extensions_map_arguments_last_first():
    calls = []

    class Tag:
        def __init__(self, name):
            self.name = name

        def prepare_args(self, ty, val, stream=0, retr=None):
            calls.append(self.name)
            if isinstance(val, np.ndarray) and self.name == "in":
                return ty, cuda.args.wrap_arg(val, default=cuda.In)
            return ty, val

    k = cuda.jit(add_one)
    k.extensions.append(Tag("in"))
    k.extensions.append(Tag("second"))
    src, dst = np.arange(3.0), np.zeros(3)
    k[1, 4](src, cuda.InOut(dst))
    assert calls == ["second", "in", "second", "in"]
    np.testing.assert_array_equal(src, np.arange(3.0))        # made an In by the extension
    np.testing.assert_array_equal(dst, np.arange(3.0) + 1)    # an explicit InOut is kept


def test_auto_device():
    d, made = cuda.devicearray.auto_device(np.arange(4))
    assert made and d.copy_to_host().tolist() == [0, 1, 2, 3]
    assert cuda.devicearray.auto_device(d) == (d, False)
    e, made = cuda.devicearray.auto_device(np.ones((2, 3), np.float32), copy=False)
    assert made and e.shape == (2, 3) and not e.copy_to_host().any()
    x = np.arange(10.0)
    with pytest.raises(ValueError, match="non-contiguous"):   # as Numba's auto_device
        cuda.devicearray.auto_device(x[::2])
    b, _ = cuda.devicearray.auto_device(np.broadcast_to(x[:3], (4, 3)))   # broadcast: its core is
    assert b.copy_to_host().tolist() == [[0, 1, 2]] * 4                     # contiguous


SCRIPT = """
import numpy as np
from numba import cuda
from numba.cuda.args import wrap_arg, In
from numba.cuda.devicearray import DeviceNDArray

@cuda.jit
def put(a):
    a[0] = 5

a = np.zeros(1)
put[1, 1](wrap_arg(a, default=In))
print("in", a[0], isinstance(cuda.to_device(a), DeviceNDArray))
from numba.cuda.cudadrv.nvvm import NVVM
try:
    import numba.cuda.cudaimpl   # Numba's lowering of CUDA calls: not pyk2cuda's
except ImportError as e:
    print("ImportError", "numba.cuda.cudaimpl" in str(e), NVVM().is_nvvm70)
# Numba's tests take compile_ptx from numba.cuda.compiler; its compiler passes are not there.
from numba.cuda.compiler import compile_ptx, compile_ptx_for_current_device
try:
    from numba.cuda.compiler import run_frontend
except ImportError as e:
    print("compiler", compile_ptx is cuda.compile_ptx, "run_frontend" in str(e))
"""


def test_numba_cuda_args_under_python_m_pyk2cuda(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)
    rc, out, err = run_script(["-m", "pyk2cuda", str(path)])
    assert rc == 0, out + err
    assert out.split("\n")[:3] == ["in 0.0 True", "ImportError True True", "compiler True True"], out
