#!/usr/bin/env sh
# meson dist script (meson.build): the source distribution carries the tree-sitter-python
# grammar that scripts/deps.sh fetched into third_party/ (git-ignored, so `meson dist` would
# leave it out), so that a wheel builds from the sdist alone (scripts/check_packaging.sh).
set -eu
src="$MESON_SOURCE_ROOT/third_party/tree-sitter-python"
mkdir -p "$MESON_DIST_ROOT/third_party"
cp -R "$src" "$MESON_DIST_ROOT/third_party/"
