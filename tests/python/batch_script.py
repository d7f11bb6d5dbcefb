"""Run by test_batch.py in a process of its own, with a fresh PYK2CUDA_CACHE_DIR: launches the
kernels of batch_kernels.py (and batch_closures.py with `closures`), checks their results against
NumPy and prints, as JSON, how many NVRTC images the compile cache holds (one per NVRTC program
compiled) and which kernels run from a shared program. `--no-batch` turns batching off
(bench/batch_program.py does the same)."""
import glob
import json
import os
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")
from pyk2cuda import cuda

if "--no-batch" in sys.argv:
    cuda.Kernel._batch = lambda self: None
import batch_kernels as K


def main():
    x = np.arange(64, dtype=np.float32)
    d = cuda.to_device(x)
    K.scale[2, 32](d, np.float32(1.5))
    np.testing.assert_array_equal(d.copy_to_host(), x * np.float32(1.5))
    for dtype in (np.int32, np.float64):
        y = np.arange(64, dtype=dtype)
        host = y.copy()
        K.plus_n[2, 32](host)                       # a host array: the copying launch
        np.testing.assert_array_equal(host, y + 3)
    out = cuda.device_array(64, dtype=np.float32)
    K.doubled[2, 32](out, d)
    np.testing.assert_array_equal(out.copy_to_host(), 2 * (x * np.float32(1.5)))
    z = np.zeros(4, dtype=np.int64)
    K.checked_a[1, 1](z, 3)
    try:
        K.checked_b[1, 1](z, 7)                     # out of bounds: its own error, its own line
        raise AssertionError("no IndexError")
    except IndexError as e:
        failure = str(e)
    np.testing.assert_array_equal(z, [0, 0, 0, 1])
    l = np.zeros(1, dtype=np.int64)
    K.lazy[1, 1](l)
    assert l[0] == 6
    kernels = [K.scale, K.plus_n, K.doubled, K.checked_a, K.checked_b, K.lazy]
    if "closures" in sys.argv:
        import batch_closures as C
        for k, n in ((C.fill_1, 1), (C.fill_2, 2)):
            t = np.zeros(100, dtype=np.int64)
            k[1, 128](t)
            np.testing.assert_array_equal(t, np.full(100, n))
        kernels += [C.fill_1, C.fill_2]
    images = glob.glob(os.path.join(os.environ["PYK2CUDA_CACHE_DIR"], "nvrtc", "*.bin"))
    print(json.dumps({"images": len(images), "failure": failure,
                      "in_program": [k._in_program() for k in kernels]}))


main()
