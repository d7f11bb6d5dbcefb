#!/usr/bin/env bash
# Checks that `pip install .` builds and installs the Python package on this machine, as the
# README says: a fresh virtual environment over Debian's python3 (--system-site-packages, for
# NumPy), pip install of the clone (meson-python and meson, pinned in pyproject.toml, come from
# the package index), then a kernel launched from a script outside the clone.
# Usage: check_wheel.sh WORKDIR (git-ignored; the meson test passes a folder of the build dir).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m "${1:?usage: check_wheel.sh WORKDIR}")
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check . >"$work/pip.log" 2>&1 \
  || { tail -40 "$work/pip.log"; echo "pip install . failed"; exit 1; }
cat >"$work/quick_start.py" <<'PY'
import numpy as np
import pyk2cuda
from pyk2cuda import cuda

@cuda.jit
def add(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + y[i]

x = np.arange(100_000, dtype=np.float32); y = 2 * x
d_out = cuda.device_array_like(x)
add[(x.size + 255) // 256, 256](cuda.to_device(x), cuda.to_device(y), d_out)
assert (d_out.copy_to_host() == 3 * x).all()
assert pyk2cuda.__file__.startswith(r"%s"), pyk2cuda.__file__
print("installed pyk2cuda", pyk2cuda.__version__, "ran on", pyk2cuda.device_kind())
PY
sed -i "s|%s|$work/venv|" "$work/quick_start.py"
(cd "$work" && "$work/venv/bin/python" quick_start.py)
