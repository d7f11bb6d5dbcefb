"""Expected results, computed with NumPy, for the gpu suite's large cases (cases.txt).

Numba's simulator (the oracle of the small cases) runs one Python call per GPU thread, hours
for a million threads, so the large cases take their expected arrays from these functions
(run_diff.py's expect=expect_samples.py:FUNC), called with the kernel's arguments.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples"))

from great_circle import great_circle_reference  # noqa: E402
from normalize import TPB  # noqa: E402
from smooth import smooth_reference  # noqa: E402


def vecadd_expected(a, b, c):
    c[:] = a.astype(np.float64) + b.astype(np.float64)


def smooth_expected(x, out):
    out[:] = smooth_reference(x)


def partial_sums_expected(x, partials):
    # Block b's threads sum the elements whose grid-stride position falls in block b.
    blocks = partials.size
    position = np.arange(x.size) % (blocks * TPB)
    partials[:] = np.bincount(position // TPB, weights=x.astype(np.float64), minlength=blocks)


def divide_expected(x, total):
    x[:] = x / total[0]    # float32 / float32: correctly rounded, as on the GPU


def great_circle_expected(dist, lat0, lon0):
    dist[:] = great_circle_reference(dist.shape[0], dist.shape[1], lat0, lon0)


def matmul_expected(A, B, C):
    C[:] = A.astype(np.float64) @ B.astype(np.float64)
