"""numba.cuda.launchconfig (numba-cuda's): the launch configuration that Python code running
during a kernel's compilation may ask for. numba-cuda sets it while its Python compiler (typing
and lowering extensions) compiles a kernel for a launch. pyk2cuda's compiler is C and runs no
Python code while it compiles, so no configuration is ever current: current_launch_config() is
None, ensure_current_launch_config() raises numba-cuda's RuntimeError, and
capture_compile_config(kernel) records None."""
import contextlib


def current_launch_config():
    """The launch configuration of the compilation in progress: none under pyk2cuda."""
    return None


def ensure_current_launch_config():
    config = current_launch_config()
    if config is None:
        raise RuntimeError("No launch config set for this thread")
    return config


@contextlib.contextmanager
def capture_compile_config(dispatcher):
    """{'config': the configuration seen while `dispatcher` compiled in the block}: None under
    pyk2cuda (its compilation runs no Python code that could see one)."""
    if dispatcher is None:
        raise TypeError("dispatcher is required")
    yield {"config": None}


__all__ = ["current_launch_config", "ensure_current_launch_config", "capture_compile_config"]
