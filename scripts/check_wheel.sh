#!/usr/bin/env bash
# Checks that `pip install .` builds and installs the Python package on this machine, as the
# README says: a fresh virtual environment over Debian's python3 (--system-site-packages, for
# NumPy), pip install of the clone (meson-python and meson, pinned in pyproject.toml, come from
# the package index), then a kernel launched from a script outside the clone, and the `pyk2cuda`
# command the wheel puts on the environment's PATH: the README's first commands, as typed.
# Usage: check_wheel.sh WORKDIR (git-ignored; the meson test passes a folder of the build dir).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(realpath -m "${1:?usage: check_wheel.sh WORKDIR}")
rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check . >"$work/pip.log" 2>&1 \
  || { tail -40 "$work/pip.log"; echo "pip install . failed"; exit 1; }
# The README's quick start, from outside the clone, must import the installed package.
got=$(cd "$work" && "$work/venv/bin/python" "$root/tests/install/quick_start.py") || exit 1
case "$got" in *" $work/venv/"*) ;; *) echo "the installed package was not the one imported: $got"; exit 1 ;; esac
# The command, found on PATH as a user of the environment finds it, emits the README's sample.
cli=$(cd "$work" && PATH="$work/venv/bin:$PATH" command -v pyk2cuda) || { echo "pip install . put no pyk2cuda command on PATH"; exit 1; }
[ "$cli" = "$work/venv/bin/pyk2cuda" ] || { echo "the pyk2cuda command found is $cli, not the environment's"; exit 1; }
(cd "$work" && "$cli" emit "$root/samples/smooth.py" --sig 'smooth_gpu(int32[:, ::1], int32[:, ::1])' >"$work/smooth.cu") \
  || { echo "the installed pyk2cuda command failed to emit samples/smooth.py"; exit 1; }
grep -q '__global__' "$work/smooth.cu" || { echo "the installed command's output has no kernel"; exit 1; }
echo "installed pyk2cuda $got and the command $cli"
