#!/usr/bin/env python3
"""The compiler's folders include one another in one direction only (docs/architecture.md, "The
phases"): a folder includes its own headers and those of the folders before it in LAYERS, never
one after it, so that no circle of includes can form again (issue 27 broke one: ast.h ->
builtins.h -> codegen/prelude.h, and builtins/table.c -> the typing and codegen hook headers).

    python3 tests/layers.py SRC_DIR
"""
import os
import re
import sys

LAYERS = ["util", "types", "builtins", "frontend", "typeinfer", "analysis", "codegen", "explore"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)


def main(src):
    bad = []
    for rank, folder in enumerate(LAYERS):
        path = os.path.join(src, folder)
        for name in sorted(os.listdir(path)):
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(path, name), encoding="utf-8") as f:
                for target in INCLUDE.findall(f.read()):
                    if target in LAYERS and LAYERS.index(target) > rank:
                        bad.append("%s/%s includes %s/ (after %s/ in the phase order)" % (folder, name, target, folder))
    for line in bad:
        print(line)
    print("%d includes against the phase order" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
