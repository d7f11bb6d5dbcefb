#!/usr/bin/env bash
# Checks the packaging forms the README promises beyond `pip install .` (scripts/check_wheel.sh):
#   1. an editable install (`pip install --no-build-isolation -e .`, meson-python's rebuild on
#      import), imported and launched from outside the clone, the package found in the clone;
#   2. an sdist built by meson-python's PEP 517 hook, a wheel built from that sdist alone
#      (`pip wheel`), and that wheel installed in a second fresh environment and launched.
# The build tools are the ones pyproject.toml pins (read from it), from the package index.
# Usage: check_packaging.sh WORKDIR (git-ignored; the meson test passes a folder of the build dir).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(realpath -m "${1:?usage: check_packaging.sh WORKDIR}")
rm -rf "$work" && mkdir -p "$work"
# The pinned build requirements, as pyproject.toml's [build-system] lists them.
mapfile -t requires < <(/usr/bin/python3 - <<'PY'
import re
text = open("pyproject.toml").read()
block = text.split("[build-system]", 1)[1]
print("\n".join(re.findall(r'"([^"]+==[^"]+)"', block.split("]", 1)[0])))
PY
)
# The README's kernel launched with the installed package, from outside the clone (it prints
# the file it imported pyk2cuda from last).
quick_start() { (cd "$work" && "$1/bin/python" "$root/tests/install/quick_start.py"); }
run() { "$@" >>"$work/log" 2>&1 || { tail -40 "$work/log"; echo "failed: $*"; exit 1; }; }

/usr/bin/python3 -m venv --system-site-packages "$work/venv"
pip=("$work/venv/bin/pip" install -q --disable-pip-version-check)
run "${pip[@]}" "${requires[@]}"
# 1. editable, its build folder outside the clone
run "${pip[@]}" --no-build-isolation --config-settings=build-dir="$work/editable-build" -e .
got=$(quick_start "$work/venv")
case "$got" in *"$root/python/pyk2cuda/__init__.py") ;; *) echo "editable install imports $got"; exit 1 ;; esac
echo "editable: $got"
run "$work/venv/bin/pip" uninstall -q -y pyk2cuda
# 2. sdist, then a wheel from the sdist alone, installed in a second environment
run "$work/venv/bin/python" -c "import mesonpy, sys; print(mesonpy.build_sdist(sys.argv[1]))" "$work/dist"
sdist=$(ls "$work"/dist/pyk2cuda-*.tar.gz)
run "$work/venv/bin/pip" wheel -q --no-deps --no-build-isolation -w "$work/dist" "$sdist"
wheel=$(ls "$work"/dist/pyk2cuda-*.whl)
/usr/bin/python3 -m venv --system-site-packages "$work/venv2"
run "$work/venv2/bin/pip" install -q --disable-pip-version-check --no-deps "$wheel"
got=$(quick_start "$work/venv2")
case "$got" in *"$work/venv2/"*) ;; *) echo "the wheel's install imports $got"; exit 1 ;; esac
echo "sdist $(basename "$sdist") -> wheel $(basename "$wheel"): $got"
