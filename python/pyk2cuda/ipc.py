"""CUDA IPC, Numba's objects: another process opens a device array's memory by a handle.

Numba's API (docs/python.md, "IPC"): `darr.get_ipc_handle()` gives an IpcArrayHandle that pickles
and opens in another process as a device array (`with handle as darr:`);
`cuda.current_context().get_ipc_handle(darr.gpu_data)` gives the lower IpcHandle (its
`handle.reserved`: 64 bytes; `open_array`, `open_staged`, `close`); `cuda.open_ipc_array(bytes,
shape, dtype)` opens those bytes. On the simulator the memory is shared pages
(python/src/ipc.c says how); the GPU path does not export yet and says so."""

import contextlib
import ctypes

from . import _core

_ALREADY_OPEN = "IpcHandle is already opened"


class DevicePointer(int):
    """A device address as Numba's bindings give it: an int, with .value as a ctypes pointer's."""

    @property
    def value(self):
        return int(self)


class MemoryPointer:
    """Numba's MemoryPointer (`darr.gpu_data`): `size` bytes of device memory at `address`, kept
    alive by `owner` (the array, or an opened IPC mapping)."""

    def __init__(self, address, size, owner):
        self.address, self.size, self.owner = int(address), int(size), owner

    @property
    def device_pointer(self):
        return DevicePointer(self.address)

    handle = device_pointer

    @property
    def device_ctypes_pointer(self):
        return ctypes.c_void_p(self.address)

    def __eq__(self, other):   # two arrays over the same bytes have equal gpu_data (a view's)
        return isinstance(other, MemoryPointer) and (self.address, self.size) == (other.address, other.size)

    def __hash__(self):
        return hash((self.address, self.size))

    def __repr__(self):
        return "<pyk2cuda MemoryPointer 0x%x, %d bytes>" % (self.address, self.size)


def _span(darr):
    """(first, bytes, lead): where the bytes the array's elements span begin, how many, and the
    bytes from there to element 0 (nonzero where strides are negative); the extension keeps them."""
    first = darr._span_start
    return first, darr.alloc_size, darr.device_ctypes_pointer - first if darr.alloc_size else 0


def gpu_data(darr):
    """DeviceArray.gpu_data: the bytes the array's elements span."""
    first, size, _ = _span(darr)
    return MemoryPointer(first, size, darr)


class IpcMemHandle:
    """The handle's 64 bytes, as Numba's `ipch.handle.reserved`."""

    def __init__(self, reserved):
        self.reserved = bytes(reserved)

    def __eq__(self, other):
        return isinstance(other, IpcMemHandle) and self.reserved == other.reserved

    def __hash__(self):
        return hash(self.reserved)


class IpcHandle:
    """Numba's IpcHandle: device memory another process may open. `base` is the exporter's
    memory (None where the handle was unpickled), `offset` the bytes from the exported
    allocation's start to that memory, `size` its bytes."""

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base
        self.handle = handle if isinstance(handle, IpcMemHandle) else IpcMemHandle(handle)
        self.size, self.source_info, self.offset = int(size), source_info, int(offset)
        self._opened = None

    def open(self, context=None):
        """The memory, mapped into this process (a MemoryPointer); once per handle until close()."""
        if self._opened is not None:
            raise ValueError(_ALREADY_OPEN)
        owner, address, size = _core.ipc_open(self.handle.reserved)
        if self.offset < 0 or self.offset + self.size > size:
            raise ValueError("IpcHandle: %d bytes at offset %d do not lie in the %d bytes exported"
                             % (self.size, self.offset, size))
        self._opened = MemoryPointer(address + self.offset, self.size, owner)
        return self._opened

    # Numba's staged opening copies to another device through the host; pyk2cuda's process
    # has one device, on which the handle opens directly.
    open_staged = open

    def open_array(self, context, shape, dtype, strides=None):
        """A device array over the opened memory (C-ordered unless `strides` is given)."""
        return _array_over(self.open(context), shape, dtype, strides, 0)

    def close(self):
        """Forgets the opened memory; arrays made over it keep it until they are gone."""
        if self._opened is None:
            raise ValueError("IpcHandle not opened")
        self._opened = None

    def __reduce__(self):   # pickled without its base, which stays in the exporting process
        return (IpcHandle, (None, self.handle.reserved, self.size, self.source_info, self.offset))


class IpcArrayHandle:
    """Numba's IpcArrayHandle (`darr.get_ipc_handle()`): an IpcHandle and the array's layout;
    `with handle as darr:` opens it, and closes it at the block's end."""

    def __init__(self, ipc_handle, array_desc, lead=0):
        self._ipc_handle, self._array_desc, self._lead = ipc_handle, array_desc, lead

    def open(self):
        return _array_over(self._ipc_handle.open(), lead=self._lead, **self._array_desc)

    def close(self):
        self._ipc_handle.close()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()
        return False


def context_ipc_handle(memory):
    """Context.get_ipc_handle(memory): an IpcHandle for a MemoryPointer (`darr.gpu_data`)."""
    if not isinstance(memory, MemoryPointer):
        raise TypeError("get_ipc_handle takes device memory (an array's gpu_data), not %s"
                        % type(memory).__name__)
    reserved, base, _ = _core.ipc_export(memory.address)
    return IpcHandle(memory, reserved, memory.size, offset=memory.address - base)


def array_ipc_handle(darr):
    """DeviceArray.get_ipc_handle(): an IpcArrayHandle for the array."""
    first, size, lead = _span(darr)
    handle = context_ipc_handle(MemoryPointer(first, size, darr))
    return IpcArrayHandle(handle, dict(shape=darr.shape, strides=darr.strides, dtype=darr.dtype), lead)


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """cuda.open_ipc_array: the array another process exported, by its handle's bytes (or its
    IpcMemHandle), for the block's duration."""
    import numpy as np
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    ipch = IpcHandle(None, handle, size, offset=offset)
    yield ipch.open_array(None, shape=shape, dtype=dtype, strides=strides)
    ipch.close()


def device_to_host(dst, src, size, stream=0):
    """numba.cuda.cudadrv.driver.device_to_host: copies `size` bytes of device memory `src` (a
    MemoryPointer or an address) to the host array or buffer `dst`."""
    import numpy as np
    address = src.address if isinstance(src, MemoryPointer) else int(src)
    owner = src.owner if isinstance(src, MemoryPointer) else None
    host = np.frombuffer(memoryview(dst).cast("B"), dtype=np.uint8) if not isinstance(dst, np.ndarray) \
        else dst.reshape(-1).view(np.uint8)
    if size > host.size:
        raise ValueError("device_to_host: %d bytes do not fit in the %d of the host buffer" % (size, host.size))
    _array_over(MemoryPointer(address, size, owner), (size,), np.uint8, None, 0).copy_to_host(host[:size])


def _array_over(memory, shape, dtype, strides, lead):
    """A device array over `memory` whose element 0 lies `lead` bytes into it (0 unless strides
    are negative), C-ordered unless `strides` is given; it keeps the memory's owner alive."""
    import numpy as np
    from . import cuda
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    desc = {"shape": shape, "strides": None if strides is None else tuple(strides),
            "typestr": dtype.str, "data": (memory.address + lead, False), "version": 3}
    return cuda.from_cuda_array_interface(desc, owner=memory, sync=False)
