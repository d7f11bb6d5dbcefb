#!/usr/bin/env bash
# The install as a user gets it: `meson install` into a temporary prefix, which is then moved
# elsewhere (a relocated install), and LD_LIBRARY_PATH unset. The installed CLI must start and
# translate and run a sample; samples/embed.c must build with `pkg-config --define-prefix`
# alone and run; pyk2cuda.pc must name no path of the build machine.
#   check_install.sh MESON BUILD_DIR SOURCE_DIR CC [SANITIZE]
# SANITIZE is the build's b_sanitize ("none", "address,undefined"): a sanitized library needs
# the sanitizers' runtime in the program that links it, so embed.c is built with them too.
set -euo pipefail
meson=$1 build=$2 src=$3 cc=$4 sanitize=${5:-none}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH
fail() { echo "FAIL: $*" >&2; exit 1; }

"$meson" install -C "$build" --destdir "$tmp/stage" --no-rebuild --quiet
pc=$(find "$tmp/stage" -name pyk2cuda.pc)
[ -n "$pc" ] || fail "no pyk2cuda.pc installed"
prefix_dir=$(sed -n 's/^prefix=//p' "$pc")
mv "$tmp/stage$prefix_dir" "$tmp/moved"
pc=$(find "$tmp/moved" -name pyk2cuda.pc)
exe=$(find "$tmp/moved" -name pyk2cuda -type f)
grep -q 'Libs.private\|/gcc/\|'"$build" "$pc" && fail "pyk2cuda.pc names build-machine paths: $(cat "$pc")"

"$exe" --version | grep -q '^pyk2cuda ' || fail "the installed CLI does not start"
"$exe" emit "$src/samples/vecadd.py" --sig 'vecadd(int32[::1], int32[::1], float64[::1])' | grep -q '__global__' || fail "the installed CLI does not translate"
PYK2CUDA_CACHE_DIR="$tmp/cache" "$exe" run "$src/samples/vecadd.py" vecadd --device sim --grid 1 \
    --block 8 arange:int32[8] arange:int32[8] zeros:float64[8] --out-dir "$tmp/out" 2>/dev/null \
    || fail "the installed CLI does not run a kernel on the simulator"
[ -s "$tmp/out/c.npy" ] || fail "no output from the installed CLI"

flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-prefix --cflags --libs pyk2cuda)
case "$flags" in *"$tmp/moved"*) ;; *) fail "pkg-config --define-prefix gives '$flags'";; esac
# shellcheck disable=SC2086
[ "$sanitize" = none ] || flags="-fsanitize=$sanitize $flags"
"$cc" -std=c11 "$src/samples/embed.c" $flags -o "$tmp/embed"
"$tmp/embed" | grep -q '^kernel axpy' || fail "samples/embed.c built against the install does not run"
echo "ok: installed CLI and samples/embed.c run from a relocated prefix without LD_LIBRARY_PATH"
