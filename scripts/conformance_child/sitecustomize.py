"""Python processes that a conformance test starts (scripts/conformance.py, pyk2cuda and GPU
modes) answer `numba.cuda` with pyk2cuda too.

Some of Numba's tests run their kernels in a child interpreter (test_print runs `python -c
CODE`, capturing its output): without this, that child imported Numba's own simulator, so the
test judged Numba in every mode, and Numba's simulator prints each piece of a print() apart, from
many threads, so the lines came out mixed now and then (a flaky test that said nothing about
pyk2cuda). The harness puts this folder first on the children's PYTHONPATH; importing
`numba.cuda` (or one of the submodules pyk2cuda provides) then yields pyk2cuda's module.
Nothing is imported until a child asks for numba.cuda, so other children pay nothing."""

import importlib.abc
import importlib.util
import sys


class _PyK2CudaForNumbaCuda(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name != "numba.cuda" and not name.startswith("numba.cuda."):
            return None
        from pyk2cuda import cuda
        if name != "numba.cuda" and name[len("numba.cuda."):] not in cuda.SUBMODULES:
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        from pyk2cuda import cuda
        sub = spec.name[len("numba.cuda."):]
        return cuda.SUBMODULES[sub] if sub else cuda

    def exec_module(self, module):
        pass   # pyk2cuda's module is complete as it is


sys.meta_path.insert(0, _PyK2CudaForNumbaCuda())
