"""Stencils whose generated modules are golden cases (tests/golden/stencil_*.py, emitted by the
golden suite as any kernel file): test_stencil.py requires that what stencil.py writes for them
is those files, byte for byte.  /usr/bin/python3 tests/python/stencil_golden.py --update
(PYTHONPATH=build/python) rewrites them; review `git diff tests/golden` before committing."""
import os
import sys

import numpy as np
from pyk2cuda import njit, stencil


@stencil(cval=-1.0)
def blur(a):
    return (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1]) * 0.25


@stencil(neighborhood=((-2, 2),), standard_indexing=("w",))
def window(a, w, scale):
    s = 0.0
    for i in range(-2, 3):
        s += w[i + 2] * a[i]
    return s * scale


@njit
def smooth_both(img, f, w, out):              # stencils inside @njit: loop nests in its module
    window(f, w, 2, out=out)
    return blur(img)


# name -> (the stencil or @njit function, the arguments whose types its module is made for)
CASES = {"stencil_blur": (blur, (np.zeros((4, 5)),)),
         "stencil_window": (window, (np.zeros(8, np.float32), np.ones(5), 2)),
         "stencil_in_njit": (smooth_both, (np.zeros((4, 5)), np.zeros(8, np.float32), np.ones(5), np.zeros(8)))}
GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "golden")


def generated(name):
    """The module stencil.py writes for the case (the @njit function's, cpu.py's), after one call."""
    f, args = CASES[name]
    f(*args)
    return f._unit.source.decode() if hasattr(f, "_unit") else f.kernel_source(*args)


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    for name in CASES:
        with open(os.path.join(GOLDEN, name + ".py"), "w") as out:
            out.write(generated(name))
