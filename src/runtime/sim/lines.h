/* Which line of the generated source a simulator module's instruction came from
 * (src/runtime/sim/lines.c). Private to src/runtime/sim.
 *
 * The host compiler builds each module with line tables only (-g1, DWARF 4): .debug_line maps
 * every instruction to a file and line, and nothing of it is loaded or run. At load the module
 * keeps that section's bytes (SimLines); only after a kernel faulted is the table decoded, to
 * name the line of the generated CUDA C that faulted, which the compiler maps to a Python line
 * (docs/simulator.md, "Faults"). */
#ifndef P2C_RUNTIME_SIM_LINES_H
#define P2C_RUNTIME_SIM_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pyk2cuda.h"

/* A module's .debug_line section; empty when the object has none (or one this reader does not
 * know: compressed, DWARF 5, larger than SIM_LINES_MAX_BYTES). */
typedef struct SimLines {
  unsigned char *bytes;
  size_t size;
} SimLines;

enum { SIM_LINES_MAX_BYTES = 64 << 20 };

/* Reads the .debug_line section of the ELF shared object at `path` into *out (allocated with
 * `alloc`). False, with *out empty, when the file has no such section or cannot be read: a
 * module without line tables still loads and runs; its faults name no line. */
bool sim_lines_read(const P2cAllocator *alloc, const char *path, SimLines *out);

/* The lines (1-based) of `file` (a file table name that is `file` or ends in `/<file>`) that the
 * table gives the instruction at link-time address `addr`, in the table's order, into out (the
 * last `cap` of them); returns how many were written. An optimized build gives one address
 * several rows: each statement whose code begins there (an inlined function's entry, a statement
 * left with no code of its own, then the one whose instruction it is), and a file's rows may sit
 * beside those of another (the prelude's loop around an inlined kernel); the caller chooses.
 * 0 when no row of `file` covers the address. Reads only inside lines->bytes: a damaged table
 * gives 0. */
size_t sim_lines_find(const SimLines *lines, const char *file, uint64_t addr, uint32_t *out, size_t cap);

void sim_lines_free(const P2cAllocator *alloc, SimLines *lines);

#endif
