"""CUDA vector types through the Python package (docs/python.md, docs/semantics.md "CUDA vector
types"): the names and aliases numba.cuda has, kernels using them, compared with Numba's
simulator."""
import os

import pytest

from pyk2cuda import cuda
from pyk2cuda.cuda import vector_types
from conftest import HERE, run_script
from test_samples import has_numba, numba_simulator_output

SCRIPT = os.path.join(HERE, "vector_kernels.py")


def test_every_numba_vector_type_and_alias_is_a_name_of_cuda():
    assert len(vector_types.vector_types) == 40
    for name, v in vector_types.vector_types.items():
        assert getattr(cuda, name) is v and v.user_facing_object is v and v.name == name
        assert v.num_elements == int(name[-1]) and str(v.base_type) == name[:-2]
        for alias in v.aliases:
            assert getattr(cuda, alias) is v
    assert cuda.float4.aliases == ["float4"] and cuda.int64x2.aliases == ["long2", "longlong2"]


def test_a_vector_type_called_on_the_host_is_an_error():
    with pytest.raises(cuda.Error, match="only be called in a kernel"):
        cuda.float4(1, 2, 3, 4)


def test_script_of_vector_kernels():
    rc, out, err = run_script([SCRIPT])
    assert rc == 0, out + err
    assert len([l for l in out.splitlines() if ": ok " in l]) == 5, out


@pytest.mark.skipif(not has_numba(), reason="Numba's simulator (Debian's python3-numba) is not installed")
def test_script_of_vector_kernels_matches_numba_simulator():
    rc, ours, err = run_script([SCRIPT])
    assert rc == 0, ours + err
    assert numba_simulator_output(SCRIPT) == ours
