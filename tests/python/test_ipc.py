"""CUDA IPC (docs/python.md, "IPC"): a device array's memory opened by another process, through
Numba's API (get_ipc_handle, IpcHandle, open_ipc_array). The children are spawned processes
(ipc_children.py), as in Numba's test_ipc. On the simulator the memory is shared pages; the GPU
path refuses with its reason (checked on the stand-in)."""
import multiprocessing
import pickle

import numpy as np
import pytest

import ipc_children
from conftest import has_gpu
from pyk2cuda import cuda

sim_only = pytest.mark.skipif(has_gpu(), reason="IPC runs on the simulator; the GPU path's refusal "
                              "is test_gpu_path_refuses_with_its_reason")


@pytest.fixture(scope="module")
def child():
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        yield pool


@sim_only
def test_child_reads_and_writes_the_same_memory(child):
    a = np.arange(10, dtype=np.int64)
    d = cuda.to_device(a)
    handle = d.get_ipc_handle()
    assert np.array_equal(child.apply(ipc_children.read_array, (handle,)), a)
    child.apply(ipc_children.add_one_by_kernel, (handle,))
    assert np.array_equal(d.copy_to_host(), a + 1)   # the child's kernel wrote the parent's memory


@sim_only
def test_slices_and_pickled_context_handles_keep_their_offset(child):
    d = cuda.to_device(np.arange(10, dtype=np.int64))
    view = d[3:8]
    handle = cuda.current_context().get_ipc_handle(view.gpu_data)
    again = pickle.loads(pickle.dumps(handle))
    assert again.base is None and (again.size, again.offset) == (40, 24)
    assert again.handle.reserved == handle.handle.reserved and len(handle.handle.reserved) == 64
    got = child.apply(ipc_children.read_raw, (handle.handle.reserved, handle.size, handle.offset))
    assert list(got) == [3, 4, 5, 6, 7]
    assert child.apply(ipc_children.ends_of, (d[::-1].get_ipc_handle(),)) == (9, 0)


@sim_only
def test_an_opened_handle_opens_once_and_its_arrays_outlive_close(child):
    d = cuda.to_device(np.arange(4, dtype=np.int64))
    assert child.apply(ipc_children.open_twice, (d.get_ipc_handle(),)) == "IpcHandle is already opened"
    handle = cuda.current_context().get_ipc_handle(d.gpu_data)   # opened in this process too
    opened = handle.open_array(None, shape=(4,), dtype=np.int64)
    handle.close()
    assert list(opened.copy_to_host()) == [0, 1, 2, 3]   # the mapping lives while the array does
    with pytest.raises(ValueError, match="not opened"):
        handle.close()


@sim_only
def test_hostile_handles_are_refused_before_anything_is_mapped():
    d = cuda.to_device(np.arange(4, dtype=np.int64))
    reserved = cuda.current_context().get_ipc_handle(d.gpu_data).handle.reserved
    forged = bytearray(reserved)
    forged[32] ^= 1                                      # the token no longer names the memfd
    for bad, why in ((b"x" * 64, "not an IPC handle"), (b"short", "not an IPC handle"),
                     (bytes(forged), "memory is gone")):
        with pytest.raises(ValueError, match=why):
            with cuda.open_ipc_array(bad, 4, np.int64):
                pass
    # A handle whose array is gone names a closed memfd: refused, not mapped.
    stale = cuda.current_context().get_ipc_handle(cuda.to_device(np.ones(4)).gpu_data).handle.reserved
    with pytest.raises(ValueError, match="memory is gone"):
        with cuda.open_ipc_array(stale, 4, np.float64):
            pass
    # More elements than were exported: refused by the array's bounds.
    with pytest.raises(ValueError):
        with cuda.open_ipc_array(reserved, 1 << 20, np.int64):
            pass


@pytest.mark.gpu
def test_gpu_path_refuses_with_its_reason():
    d = cuda.to_device(np.arange(4, dtype=np.int64))
    with pytest.raises(NotImplementedError, match="IPC on the GPU path"):
        d.get_ipc_handle()
