#!/usr/bin/env python3
"""Writes a C file holding the bytes of a text file: embed.py INPUT OUTPUT.

The simulator's host prelude (prelude.h) is compiled by the host C++ compiler at run time, so
libpyk2cuda carries its text as `sim_prelude_text` (NUL-terminated) and `sim_prelude_size`
(without the NUL). A byte array needs no escaping, whatever the text holds."""
import sys

data = open(sys.argv[1], "rb").read()
lines = [",".join(str(b) for b in data[i:i + 24]) + "," for i in range(0, len(data), 24)]
with open(sys.argv[2], "w") as out:
    out.write("/* Generated from src/runtime/sim/prelude.h by embed.py: do not edit. */\n")
    out.write("#include <stddef.h>\n\n")
    out.write("extern const char sim_prelude_text[];\nextern const size_t sim_prelude_size;\n\n")
    out.write("const char sim_prelude_text[] = {\n" + "\n".join(lines) + "\n0};\n")
    out.write("const size_t sim_prelude_size = %d;\n" % len(data))
