"""Python processes that a conformance test starts (scripts/conformance.py, pyk2cuda and GPU
modes) answer `numba.cuda` with pyk2cuda too.

Some of Numba's tests run their kernels in a child interpreter (test_print runs `python -c
CODE`, capturing its output): without this, that child imported Numba's own simulator, so the
test judged Numba in every mode, and Numba's simulator prints each piece of a print() apart, from
many threads, so the lines came out mixed now and then (a flaky test that said nothing about
pyk2cuda). The harness puts this folder first on the children's PYTHONPATH; importing
`numba.cuda` (or one of the submodules pyk2cuda provides) then yields pyk2cuda's module.
Nothing is imported until a child asks for numba.cuda, so other children pay nothing.

A child started with multiprocessing's 'spawn' (test_ipc, test_multithreads, test_caching's
multiprocess test) unpickles functions of the test's module by its name in the harness's private
package (conformance_cudapy.test_x). That package exists only in the worker; the second finder
prepares it the same way in the child, on the child's first import of it (the worker's settings
are in the environment), so that the child runs the test's code with pyk2cuda, shimmed and
skip-decided as its parent."""

import importlib.abc
import importlib.util
import os
import sys


_CHILD = "P2C_CONFORMANCE_CHILD"   # scripts/conformance.py's CHILD_SETTINGS


def _prepare_child():
    """The harness's shim and private package, as the parent worker has them (child_package).
    The harness installs the whole shim itself, Numba's helpers first (imported while numba.cuda
    is still Numba's): this process's own finders step aside. Returns the package."""
    sys.meta_path[:] = [f for f in sys.meta_path
                        if not isinstance(f, (_PyK2CudaForNumbaCuda, _ConformancePackage))]
    harness_spec = importlib.util.spec_from_file_location(
        "conformance_harness", os.environ["P2C_CONFORMANCE_HARNESS"])
    harness = importlib.util.module_from_spec(harness_spec)
    harness_spec.loader.exec_module(harness)
    return harness.child_package()


class _PyK2CudaForNumbaCuda(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name != "numba.cuda" and not name.startswith("numba.cuda."):
            return None
        if name == "numba.cuda" and _CHILD in os.environ:
            # A child of a test (test_caching's `python -c`, which imports the test's helper
            # module and so numba.cuda.testing): shimmed as its parent, Numba's helpers included.
            _prepare_child()
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


class _ConformancePackage(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    PACKAGE = "conformance_cudapy"   # scripts/conformance.py's _PACKAGE

    def find_spec(self, name, path=None, target=None):
        if name != self.PACKAGE or _CHILD not in os.environ:
            return None
        return importlib.util.spec_from_loader(name, self, is_package=True)

    def create_module(self, spec):
        return _prepare_child()

    def exec_module(self, module):
        pass   # prepared by the harness


sys.meta_path.insert(0, _PyK2CudaForNumbaCuda())
sys.meta_path.insert(0, _ConformancePackage())
