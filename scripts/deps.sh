#!/usr/bin/env bash
# Installs what building and testing pyk2cuda needs on a fresh Debian machine, and fetches the
# tree-sitter-python grammar into third_party/ (git-ignored; third-party source is never
# committed). Safe to run again: each step is skipped when its result is already there.
#
# The grammar's source release (tree-sitter-python 0.23.6, ABI 14) ships parser.c and scanner.c
# but not the four headers they include (tree_sitter/parser.h, array.h, alloc.h, ts_assert.h).
# Those come from the tree-sitter core sources bundled in py-tree-sitter 0.23.2's source release,
# the same generation of the headers. Both archives are fetched by package name with pip and
# checked against the sha256 below before anything is unpacked.
#
# PYK2CUDA_SDIST_DIR=FOLDER: take the two source releases from FOLDER instead of downloading them
# (for machines behind a proxy pip cannot pass).
# `deps.sh --grammar` fetches only the grammar. `deps.sh --browser` installs only Chromium, for the
# browser suite (the explore view's pages in a headless browser; skipped without it): 57 s here,
# about 100 MB with its libraries, so it is not part of the default set; .ci/run asks for it.
# `deps.sh --nvdisasm` fetches NVIDIA's nvdisasm (the wheel nvidia-cuda-nvdisasm, pinned, sha256
# checked, 5 MB) into third_party/nvdisasm for the explore view's SASS column and its tests
# (docs/explore.md); never committed, and nothing else uses it. .ci/run asks for it.
# PYK2CUDA_NO_INSTALL=1: install nothing; only check that the grammar is there (for machines
# that reach no package registry and bring their build, such as the lent GPU machines).
set -euo pipefail
cd "$(dirname "$0")/.."

GRAMMAR_PKG=tree-sitter-python GRAMMAR_VER=0.23.6
GRAMMAR_SHA=354bfa0a2f9217431764a631516f85173e9711af2c13dbd796a8815acfe505d9
HEADERS_PKG=tree-sitter HEADERS_VER=0.23.2
HEADERS_SHA=66bae8dd47f1fed7bdef816115146d3a41c39b5c482d7bad36d9ba1def088450
DEST=third_party/tree-sitter-python
NVDISASM_PKG=nvidia-cuda-nvdisasm NVDISASM_VER=13.5.37
NVDISASM_SHA=d3fdbdd49fa53e2e4aacd3db8259d052bd2b049ececdcb69e92e083c6728e7ca
NVDISASM_DEST=third_party/nvdisasm

# clang and its runtime libraries (libFuzzer, sanitizers): the fuzz harnesses (scripts/fuzz.sh).
# python3-dev, python3-pytest, python3-venv: the Python package's extension, its pytest suite and
# the check that `pip install .` builds it in a fresh virtual environment. python3-dask: the
# scale-out sample (samples/python/dask_chunks.py), run by the pytest suite. libtcc-dev: the
# first tier of @jit host functions (libpyk2cuda-tcc.so is built from its libtcc.a).
debs=(libtree-sitter-dev libcmocka-dev libunistring-dev meson ninja-build pkg-config python3-numba
      python3-numpy g++ clang libclang-rt-14-dev python3-dev python3-pytest python3-venv
      python3-dask libtcc-dev)

install_debs() {
  local missing=()
  for p in "${debs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "deps: installing ${missing[*]}" >&2
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# fetch PKG VER SHA DIR: puts PKG's source release into DIR (from $PYK2CUDA_SDIST_DIR when it
# holds it, else downloaded by pip), checks its hash and prints its path. A failed download says
# so with pip's own message and how to supply the archive by hand.
fetch() {
  local pkg=$1 ver=$2 sha=$3 dir=$4 archive log
  mkdir -p "$dir"
  local local_copy
  local_copy=$(ls "${PYK2CUDA_SDIST_DIR:-/nonexistent}"/{"$pkg","${pkg//-/_}"}-"$ver".tar.gz 2>/dev/null | head -n 1)
  if [ -n "$local_copy" ]; then
    cp "$local_copy" "$dir/"
  else
    local pip=(python3 -m pip); command -v pip3 >/dev/null && pip=(pip3)
    log=$(mktemp)
    if ! "${pip[@]}" download -q --no-binary :all: --no-deps --no-build-isolation "$pkg==$ver" -d "$dir" 2>"$log" &&
       ! "${pip[@]}" download -q --no-binary :all: --no-deps "$pkg==$ver" -d "$dir" 2>"$log"; then
      { echo "deps: could not download $pkg $ver's source release with pip:"
        sed 's/^/  /' "$log"
        echo "deps: to supply it by hand, put ${pkg//-/_}-$ver.tar.gz (sha256 $sha) in a folder"
        echo "      and run: PYK2CUDA_SDIST_DIR=FOLDER bash scripts/deps.sh"; } >&2
      rm -f "$log"; exit 1
    fi
    rm -f "$log"
  fi
  archive=$(ls "$dir"/*.tar.gz | head -n 1)
  echo "$sha  $archive" | sha256sum -c --quiet - 2>/dev/null ||
    { echo "deps: $pkg $ver: $(basename "$archive") does not have the expected sha256 $sha" >&2; exit 1; }
  echo "$archive"
}

fetch_grammar() {
  [ -f "$DEST/src/parser.c" ] && [ -f "$DEST/src/tree_sitter/parser.h" ] && return 0
  echo "deps: fetching $GRAMMAR_PKG $GRAMMAR_VER and its headers" >&2
  local tmp; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' RETURN
  local g h
  g=$(fetch "$GRAMMAR_PKG" "$GRAMMAR_VER" "$GRAMMAR_SHA" "$tmp/g")
  h=$(fetch "$HEADERS_PKG" "$HEADERS_VER" "$HEADERS_SHA" "$tmp/h")
  tar -xzf "$g" -C "$tmp/g"; tar -xzf "$h" -C "$tmp/h"
  rm -rf "$DEST"; mkdir -p "$DEST/src/tree_sitter"
  cp "$tmp"/g/tree_sitter_python-*/src/{parser.c,scanner.c} "$tmp"/g/tree_sitter_python-*/LICENSE "$DEST/src/"
  cp "$tmp"/h/tree-sitter-*/tree_sitter/core/lib/src/{parser.h,array.h,alloc.h,ts_assert.h} "$DEST/src/tree_sitter/"
  echo "$GRAMMAR_VER" > "$DEST/VERSION"
}

# fetch_nvdisasm: the pinned wheel by pip, its hash checked, its one program unpacked with
# Python's zipfile (no unzip needed) into $NVDISASM_DEST/nvidia/cu13/bin/nvdisasm.
fetch_nvdisasm() {
  local bin=$NVDISASM_DEST/nvidia/cu13/bin/nvdisasm
  [ -x "$bin" ] && return 0
  echo "deps: fetching $NVDISASM_PKG $NVDISASM_VER" >&2
  local tmp; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' RETURN
  local pip=(python3 -m pip); command -v pip3 >/dev/null && pip=(pip3)
  "${pip[@]}" download -q --no-deps --only-binary :all: --platform manylinux2014_x86_64 \
    "$NVDISASM_PKG==$NVDISASM_VER" -d "$tmp" || { echo "deps: could not download $NVDISASM_PKG" >&2; return 1; }
  local wheel; wheel=$(ls "$tmp"/*.whl | head -n 1)
  echo "$NVDISASM_SHA  $wheel" | sha256sum -c --quiet - 2>/dev/null ||
    { echo "deps: $(basename "$wheel") does not have the expected sha256 $NVDISASM_SHA" >&2; return 1; }
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("nvidia/cu13/bin/nvdisasm", sys.argv[2])' \
    "$wheel" "$NVDISASM_DEST"
  chmod +x "$bin"
}

if [ "${PYK2CUDA_NO_INSTALL:-0}" = 1 ]; then
  [ -f "$DEST/src/parser.c" ] || { echo "deps: $DEST missing and PYK2CUDA_NO_INSTALL=1" >&2; exit 1; }
  exit 0
fi
# --nvdisasm: only nvdisasm (above).
if [ "${1:-}" = --nvdisasm ]; then
  fetch_nvdisasm
  exit $?
fi
# --browser: only Chromium (above).
if [ "${1:-}" = --browser ]; then
  debs=(chromium)
  install_debs
  exit 0
fi
# --grammar: only the grammar (meson.build runs this when a build starts without it).
[ "${1:-}" = --grammar ] || install_debs
fetch_grammar
