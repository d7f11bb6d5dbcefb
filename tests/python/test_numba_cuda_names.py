"""numba-cuda's spellings of names Numba 0.56 kept outside numba.cuda (docs/python.md): the
package's `numba.cuda.types` (with Numba's short names f2, i4, ...), `numba.cuda.np.numpy_support`
(from_dtype, as_dtype) and `numba.cuda.HAS_NUMBA`, which numba-cuda's own tests import
(docs/conformance.md, the numba-cuda run), and the types API those tests use (Numba's
`types.Array(dtype, ndim, layout)`, `underlying_float`, a signature that is not a `types.Type`,
`numba.cuda.typing.signature`).
The names are compared with Numba's (Debian's numba.core.types and numba.np.numpy_support, the
same facts numba-cuda re-exports)."""
import importlib.util
import json
import subprocess

import numpy as np
import pytest

from pyk2cuda import cuda, types
from conftest import run_script
from test_samples import ORACLE, has_numba

SHORT = "b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 c8 c16".split()
DTYPES = ["bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64", "complex64",
          "complex128"]
RECORD = [("a", "int32"), ("b", "float64")]
# Numba's Array(dtype, ndim, layout) and the slice spelling of the same type.
ARRAYS = [(1, "C", "::1"), (1, "A", ":"), (2, "C", ":, ::1"), (2, "F", "::1, :"), (3, "A", ":, :, :"),
          (3, "C", ":, :, ::1")]

NUMBA_FACTS = """
import json, numpy as np
from numba.core import types
from numba.np import numpy_support as ns
from numba.core.typing import signature
rec = np.dtype(%r, align=True)
print(json.dumps({"short": {n: str(getattr(types, n)) for n in %r},
                  "from": [str(ns.from_dtype(np.dtype(d))) for d in %r],
                  "as": [str(ns.as_dtype(ns.from_dtype(np.dtype(d)))) for d in %r],
                  "record": str(ns.from_dtype(rec)), "record_as": str(ns.as_dtype(ns.from_dtype(rec))),
                  "arrays": [types.Array(types.float32, n, l) == eval("types.float32[%%s]" %% dims)
                             for n, l, dims in %r],
                  "underlying": [str(types.complex64.underlying_float),
                                 str(types.complex128.underlying_float)],
                  "signature_is_type": isinstance(types.void(types.int32[:]), types.Type),
                  "signature_is_call": signature(types.void, types.int32[:], types.f2)
                                       == types.void(types.int32[:], types.f2)}))
""" % (RECORD, SHORT, DTYPES, DTYPES, ARRAYS)


def test_numba_cuda_namespace():
    assert cuda.types is types
    assert cuda.HAS_NUMBA == (importlib.util.find_spec("numba") is not None)
    assert cuda.np.numpy_support.from_dtype is types.from_dtype
    assert cuda.f8 is types.f8  # numba.cuda re-exports every type name, short ones included
    cuda.legacy_default_stream().synchronize()   # the default stream (numba-cuda's test_stream_api)
    with pytest.raises(TypeError, match="has no NumPy dtype"):
        cuda.np.numpy_support.as_dtype(types.float32[::1])


@pytest.mark.skipif(not has_numba(), reason="Numba (Debian's python3-numba) is not installed")
def test_names_are_numbas():
    p = subprocess.run([ORACLE, "-c", NUMBA_FACTS], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    numba = json.loads(p.stdout)
    ns = cuda.np.numpy_support
    rec = np.dtype(RECORD, align=True)
    assert {n: str(getattr(types, n)) for n in SHORT} == numba["short"]
    assert [str(ns.from_dtype(np.dtype(d))) for d in DTYPES] == numba["from"]
    assert [str(ns.as_dtype(ns.from_dtype(np.dtype(d)))) for d in DTYPES] == numba["as"]
    assert str(ns.from_dtype(rec)) == numba["record"]
    assert str(ns.as_dtype(ns.from_dtype(rec))) == numba["record_as"]
    assert all(numba["arrays"])
    assert all(types.Array(types.float32, n, l) == eval("types.float32[%s]" % dims)
               for n, l, dims in ARRAYS)
    assert [str(types.complex64.underlying_float), str(types.complex128.underlying_float)] \
        == numba["underlying"]
    assert isinstance(types.void(types.int32[:]), types.Type) == numba["signature_is_type"]
    signature = cuda.typing.signature
    assert (signature(types.void, types.int32[:], types.f2) == types.void(types.int32[:], types.f2)) \
        == numba["signature_is_call"]


SCRIPT = """
import numpy as np
from numba import cuda
from numba.cuda import types, HAS_NUMBA
from numba.cuda.types import f8, i4
from numba.cuda.np import numpy_support
from numba.cuda.np.numpy_support import from_dtype, as_dtype
from numba.cuda.typing import signature

@cuda.jit(signature(types.void, from_dtype(np.dtype("float64"))[::1], i4))
def scale(a, k):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * k

a = np.arange(5, dtype=as_dtype(f8))
scale[1, 32](a, 3)
print(a.tolist(), numpy_support.as_dtype(types.int32), HAS_NUMBA in (True, False))
"""


def test_numba_cuda_spellings_under_python_m_pyk2cuda(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)
    rc, out, err = run_script(["-m", "pyk2cuda", str(path)])
    assert rc == 0, out + err
    assert out.strip() == "[0.0, 3.0, 6.0, 9.0, 12.0] int32 True", out
