"""float(x) of a float32 or float64 keeps its type, as Numba types it (its typing of float():
a float32 stays float32, an integer or bool becomes float64). The
results are checked against compiled Numba (Debian's numba.njit, which shares the CUDA
target's typing: Numba's simulator runs Python's float() and cannot judge)."""

import numpy as np

from pyk2cuda import cuda, float32


def squares(r, x, n):
    r[0] = float(x[0]) * float(x[0])   # float32 * float32, rounded to float32, then stored
    r[1] = float(n) / 3                # an integer: float64


NUMBA = """
import json, numba, numpy as np
@numba.njit
def squares(x, n):
    return float(x[0]) * float(x[0]), float(n) / 3
print(json.dumps(squares(np.array([1.1], np.float32), 7)))
"""


def test_float_of_float32_computes_in_float32_as_compiled_numba():
    import json
    from conftest import run_script
    code, out, err = run_script(["-c", NUMBA], env={"PYTHONPATH": ""})
    assert code == 0, err
    r = np.zeros(2)
    cuda.jit(squares)[1, 1](r, np.array([1.1], np.float32), 7)
    np.testing.assert_array_equal(r, json.loads(out))
    assert r[0] != 1.1 * 1.1   # float64's product would differ


def native_cast(x):
    return float(x)


def test_float_of_float32_returns_float32():
    """numba-cuda's test_native_cast compiles this: the result is float32 (its `st.f32` store
    is its ABI's, through a result pointer; pyk2cuda's exported function returns it in
    func_retval0, `st.param.f32`)."""
    ptx, resty = cuda.compile_ptx(native_cast, (float32,), device=True)
    assert resty == float32 and "st.param.f32" in ptx
