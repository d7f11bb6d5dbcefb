#!/usr/bin/env python3
"""Writes a C file holding the bytes of a text file: embed.py INPUT OUTPUT [NAME].

The simulator's host prelude (prelude.h) is compiled by the host C++ compiler at run time, so
libpyk2cuda carries its text as `sim_prelude_text` (NUL-terminated) and `sim_prelude_size`
(without the NUL); the explore view's page template (src/explore/page.html) likewise, as
`explore_page_text` (NAME explore_page). A byte array needs no escaping, whatever the text holds."""
import os
import sys

name = sys.argv[3] if len(sys.argv) > 3 else "sim_prelude"
data = open(sys.argv[1], "rb").read()
lines = [",".join(str(b) for b in data[i:i + 24]) + "," for i in range(0, len(data), 24)]
with open(sys.argv[2], "w") as out:
    out.write("/* Generated from %s by embed.py: do not edit. */\n" % os.path.basename(sys.argv[1]))
    out.write("#include <stddef.h>\n\n")
    out.write("extern const char %s_text[];\nextern const size_t %s_size;\n\n" % (name, name))
    out.write("const char %s_text[] = {\n" % name + "\n".join(lines) + "\n0};\n")
    out.write("const size_t %s_size = %d;\n" % (name, len(data)))
