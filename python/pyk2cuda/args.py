"""numba.cuda.args for pyk2cuda: `cuda.In`, `cuda.Out`, `cuda.InOut` say how a host array
argument is copied around a launch, as in Numba (docs/python.md, "Argument wrappers and kernel
extensions"). `from numba.cuda.args import wrap_arg` finds this module under `python3 -m
pyk2cuda`.

A launch hands the arguments to Kernel._prepare_args when one of them is an ArgHint (or the
kernel has extensions); each ArgHint's to_device gives the argument to launch with and appends
to `retr` what must run after the launch."""
import abc


class ArgHint(metaclass=abc.ABCMeta):
    """A kernel argument wrapped to say how it is copied between host and device."""

    def __init__(self, value):
        self.value = value

    @abc.abstractmethod
    def to_device(self, retr, stream=0):
        """The value to launch with (usually a device array); appends to `retr` the
        functions of no arguments to call after the launch."""


class In(ArgHint):
    """Copied to the device before the launch and not back: the kernel's writes to it are
    not seen in the host array."""

    def to_device(self, retr, stream=0):
        from .cuda import devicearray
        devary, _ = devicearray.auto_device(self.value, stream=stream)
        retr.append(lambda: devary)   # keeps it alive until the launch is over, as Numba does
        return devary


class Out(ArgHint):
    """Not copied to the device (the kernel sees a new, zero-filled array), copied back after
    the launch."""

    def to_device(self, retr, stream=0):
        from .cuda import devicearray
        devary, made = devicearray.auto_device(self.value, copy=False, stream=stream)
        if made:
            retr.append(lambda: devary.copy_to_host(self.value, stream=stream))
        return devary


class InOut(ArgHint):
    """Copied to the device and back: what a host array argument gets without a wrapper."""

    def to_device(self, retr, stream=0):
        from .cuda import devicearray
        devary, made = devicearray.auto_device(self.value, stream=stream)
        if made:
            retr.append(lambda: devary.copy_to_host(self.value, stream=stream))
        return devary


def wrap_arg(value, default=InOut):
    """`value` itself when it is an ArgHint, else `default(value)`."""
    return value if isinstance(value, ArgHint) else default(value)


__all__ = ["In", "Out", "InOut", "ArgHint", "wrap_arg"]
