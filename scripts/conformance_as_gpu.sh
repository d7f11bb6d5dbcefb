#!/usr/bin/env bash
# Both of Numba's CUDA test suites as on a GPU (issue 28; docs/conformance.md, "As on a GPU"), in
# one command: each suite runs once with --device gpu, which gives pyk2cuda's simulator column
# and its GPU-path column (a GPU where libcuda loads, else the CUDA driver stand-in the build
# made), and the simulator's table is rendered from that run's column (--from-device). Rewrites
# docs/conformance.md's "as on a GPU" tables and docs/conformance-as-gpu.md.
#
#   scripts/conformance_as_gpu.sh             run both suites, then render
#   scripts/conformance_as_gpu.sh --render    render from the last runs only
# NUMBA_CUDA_ARGS: more options for numba-cuda's run (e.g. "--offline --venv DIR");
# BUILD: the build folder (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
if [ -z "${PYK2CUDA_LIBCUDA:-}" ] && ! "$PY" -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>/dev/null; then
  export PYK2CUDA_LIBCUDA=$PWD/$BUILD/tests/standin/libcuda.so.1   # no driver here: the stand-in
fi
read -r -a nc_args <<<"${NUMBA_CUDA_ARGS:-}"
for suite in numba numba-cuda; do
  args=(--build "$BUILD" --suite "$suite" --as-gpu)
  [ "$suite" = numba-cuda ] && args+=("${nc_args[@]}")
  if [ "${1:-}" != --render ]; then
    "$PY" scripts/conformance.py "${args[@]}" --device gpu --timeout 900 --no-doc
  fi
  "$PY" scripts/conformance.py "${args[@]}" --device gpu --render
  "$PY" scripts/conformance.py "${args[@]}" --from-device --render
done
