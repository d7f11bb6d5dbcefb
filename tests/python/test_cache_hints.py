"""numba-cuda's loads and stores with a cache hint (issue 28; docs/semantics.md, "Loads and stores
with a cache hint"): cuda.ldca, ldcg, ldcs, ldlu, ldcv, stcg, stcs, stwb, stwt. A hint changes
where a value is cached, never the value: the results are checked against Numba's simulator
(Debian's python3-numba) running the same kernel with plain subscripts in their place (neither
Numba 0.56 nor numba-cuda's simulator has the hints), and the PTX (NVRTC's, no GPU needed) has
numba-cuda's instructions, ld.global.ca.b32 and friends."""
import inspect
import json

import numpy as np
import pytest

from pyk2cuda import cuda, typeof
from conftest import run_script

LOADS = (("ldca", "ca"), ("ldcg", "cg"), ("ldcs", "cs"), ("ldlu", "lu"), ("ldcv", "cv"))
STORES = (("stcg", "cg"), ("stcs", "cs"), ("stwb", "wb"), ("stwt", "wt"))


def hinted(r, x, m, out):
    i = cuda.grid(1)
    if i < r.size:
        cuda.stcg(r, i, cuda.ldca(x, i) + cuda.ldcg(x, -1 - i))
        cuda.stcs(m, (i, 0), cuda.ldcs(m, (i, 1)) + cuda.ldlu(x, 0))
        cuda.stwb(out, i, cuda.ldcv(m, (i, 1)))
        cuda.stwt(out, -1 - i, cuda.ldcs(out, i) * 2)


PLAIN_NUMBA = """
import json, numpy as np
from numba import cuda

def _load(a, i):   # a hint as a plain subscript, for Numba's simulator
    return a[i]

def _store(a, i, v):
    a[i] = v
%s
r = np.zeros(8, np.float32); x = np.arange(8, dtype=np.float32) * 1.5
m = np.arange(16, dtype=np.int16).reshape(8, 2); out = np.zeros(16, np.float64)
cuda.jit(hinted)[2, 4](r, x, m, out)
print(json.dumps([r.tolist(), m.tolist(), out.tolist()]))
"""


def _plain(source):
    """`source` with each hint a plain subscript (PLAIN_NUMBA's _load and _store)."""
    import re
    return re.sub(r"cuda\.st\w\w\(", "_store(", re.sub(r"cuda\.ld\w\w\(", "_load(", source))


def test_hints_compute_what_plain_subscripts_compute():
    """Every hint, 1-D and 2-D, negative indices wrapping, values converted to the element's
    type: the same results as Numba's simulator with plain subscripts (exact)."""
    code, out, err = run_script(["-c", PLAIN_NUMBA % _plain(inspect.getsource(hinted))],
                                env={"NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": ""})
    assert code == 0, err
    want = json.loads(out)
    r = np.zeros(8, np.float32)
    x = np.arange(8, dtype=np.float32) * 1.5
    m = np.arange(16, dtype=np.int16).reshape(8, 2)
    o = np.zeros(16, np.float64)
    cuda.jit(hinted)[2, 4](r, x, m, o)
    for got, ref in zip((r, m, o), want):
        np.testing.assert_array_equal(got, np.array(ref, dtype=got.dtype))


@pytest.mark.gpu
def test_hinted_stores_reach_host_arrays_on_the_gpu():
    """On the GPU a launch copies back only the host arrays its kernel may store to; a store with
    a hint is a store (every cuda.stcg ... into a host array was lost on the GPU path until the
    analysis counted them: numba-cuda's test_stores_2d found it on the stand-in)."""
    test_hints_compute_what_plain_subscripts_compute()


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.float16, np.int32, np.float32, np.uint64, np.float64])
def test_ptx_spells_numba_cudas_instructions(dtype):
    """ld.global.ca.bN ... st.global.wt.bN by the element's bits, as numba-cuda's PTX."""
    sig = (typeof(np.zeros(2, dtype)),) * 2
    bits = np.dtype(dtype).itemsize * 8
    assert sig[0].dtype.bitwidth == bits   # Numba's bitwidth, which numba-cuda's test reads
    for name, hint in LOADS:
        load = _with_hint(name, "def load(r, x):\n    r[0] = hint(x, 1)\n")
        ptx, _ = cuda.compile_ptx(load, sig)
        assert "ld.global.%s.b%d" % (hint, bits) in ptx, name
    for name, hint in STORES:
        store = _with_hint(name, "def store(r, x):\n    hint(r, 1, x[0])\n")
        ptx, _ = cuda.compile_ptx(store, sig)
        assert "st.global.%s.b%d" % (hint, bits) in ptx, name


def _with_hint(name, source):
    """The function `source` defines, with `hint` bound to cuda.NAME (as numba-cuda's test binds
    its operator)."""
    import linecache
    filename = "<cache hint %s>" % name
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    scope = {"hint": getattr(cuda, name), "cuda": cuda}
    exec(compile(source, filename, "exec"), scope)
    return next(v for k, v in scope.items() if k in ("load", "store"))


def test_host_call_is_an_error():
    with pytest.raises(Exception, match="can only be called from a kernel"):
        cuda.ldca(np.zeros(2), 0)
