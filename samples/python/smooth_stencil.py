# smooth_stencil.py -- a 3x3 mean filter over a 2-D image, one thread per pixel
# (cuda.grid(2)), with the edges left as they are; against NumPy.
# Run: python3 samples/python/smooth_stencil.py [H W]
import sys

import numpy as np
from pyk2cuda import cuda


@cuda.jit
def smooth(img, out):
    i, j = cuda.grid(2)
    h, w = img.shape
    if 0 < i < h - 1 and 0 < j < w - 1:
        acc = 0.0
        for di in range(-1, 2):
            for dj in range(-1, 2):
                acc += img[i + di, j + dj]
        out[i, j] = acc / 9.0
    elif i < h and j < w:
        out[i, j] = img[i, j]


h, w = (int(a) for a in sys.argv[1:3]) if len(sys.argv) > 2 else (200, 300)
img = np.random.default_rng(5).random((h, w))
out = np.zeros_like(img)
block = (16, 16)
grid = ((img.shape[0] + 15) // 16, (img.shape[1] + 15) // 16)
smooth[grid, block](img, out)

expected = img.copy()
expected[1:-1, 1:-1] = sum(img[1 + di:img.shape[0] - 1 + di, 1 + dj:img.shape[1] - 1 + dj]
                           for di in (-1, 0, 1) for dj in (-1, 0, 1)) / 9.0
assert np.allclose(out, expected, rtol=1e-12)
print("smooth_stencil: ok")
