"""numba.cuda.launchconfig (numba-cuda's): the launch configuration that Python code running
while a launch compiles a kernel may ask for. A launch that needs a new specialization calls the
kernel's `_compile_for_args(*args)` (cuda.py) with its launch configuration (the Launcher:
dispatcher, griddim, blockdim, sharedmem, stream, and args, the launch's arguments) current on
its thread (python/src/kernel.c, compile_for_launch); at any other time none is current.
pyk2cuda's translation itself runs no Python code, so only code wrapping `_compile_for_args`
(as capture_compile_config does) can see it."""
import contextlib
import threading
import types as _pytypes

from . import _core

_marks = threading.local()   # the kernel and configuration mark_launch_config_sensitive() named


def current_launch_config():
    """The launch configuration of the compilation in progress on this thread, or None."""
    return _core.current_launch_config()


def ensure_current_launch_config():
    config = current_launch_config()
    if config is None:
        raise RuntimeError("No launch config set for this thread")
    return config


@contextlib.contextmanager
def capture_compile_config(dispatcher):
    """{'config': the launch configuration current when a launch in the block compiled
    `dispatcher`} (None when nothing compiled): the kernel's `_compile_for_args` is wrapped on
    the instance for the block, and what the instance had before is put back after it."""
    if dispatcher is None:
        raise TypeError("dispatcher is required")
    seen = {"config": None}
    absent = object()
    own = dispatcher.__dict__.get("_compile_for_args", absent)
    compile_now = dispatcher._compile_for_args

    def recording(self, *args, **kws):
        seen["config"] = current_launch_config()
        return compile_now(*args, **kws)

    dispatcher._compile_for_args = _pytypes.MethodType(recording, dispatcher)
    try:
        yield seen
    finally:
        if own is absent:
            del dispatcher._compile_for_args
        else:
            dispatcher._compile_for_args = own


def _mark(kernel):
    """mark_launch_config_sensitive(): remembered for the compilation in progress."""
    _marks.pending = (kernel, current_launch_config())


def _take_mark(kernel):
    """Whether the compilation `kernel` just finished was marked (the mark is used up)."""
    pending = getattr(_marks, "pending", None)
    if pending is None or pending[0] is not kernel or pending[1] is not current_launch_config():
        return False
    _marks.pending = None
    return True


__all__ = ["current_launch_config", "ensure_current_launch_config", "capture_compile_config"]
