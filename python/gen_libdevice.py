"""Writes the Python package's table of the libdevice functions (pyk2cuda/_libdevice_table.py)
from the compiler's, src/builtins/libdevice.def, at build time: one place for the list.

    python3 gen_libdevice.py libdevice.def _libdevice_table.py"""
import re
import sys

LINE = re.compile(r'^LD\((\w+), (\d+), "([a-zA-Z]):([a-zA-Z]*)"\)$')


def main(source, target):
    rows = []
    with open(source, encoding="utf-8") as f:
        for line in f:
            m = LINE.match(line.strip())
            if m:
                rows.append("    %r: %r," % (m.group(1), m.group(3) + ":" + m.group(4)))
    if not rows:
        sys.exit("gen_libdevice.py: no LD(...) lines in %s" % source)
    with open(target, "w", encoding="utf-8") as f:
        f.write("# Generated from src/builtins/libdevice.def by python/gen_libdevice.py: do not edit.\n"
                "# name: libdevice's prototype, \"R:PARAMS\" in the letters libdevice.def explains.\n"
                "PROTOTYPES = {\n%s\n}\n" % "\n".join(rows))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
