/* The state of one compilation, and the one function every user diagnostic goes through.
 *
 * A Compilation owns the arena, the normalized source text with its line table, and the list
 * of diagnostics. Phases report the user's errors with diag_error and keep going where the
 * result still means something; the driver stops between phases when errors were reported. */
#ifndef P2C_UTIL_DIAG_H
#define P2C_UTIL_DIAG_H

#include <stdbool.h>
#include <stdint.h>

#include "pyk2cuda.h"
#include "util/arena.h"
#include "util/buf.h"

/* A position in the source: 1-based line and column (columns count characters). */
typedef struct Loc {
  uint32_t line, col;
} Loc;

/* Limits past which input is refused with a diagnostic rather than risking the C stack or
 * quadratic time. Documented in docs/diagnostics.md ("Limits"). */
enum {
  P2C_MAX_NESTING = 100,       /* nested blocks and expressions */
  P2C_MAX_ELIFS = 256,         /* elif clauses of one if statement (each nests in the AST) */
  P2C_MAX_CHAIN = 4096,        /* binary operators of one left-associative chain (a + b - c ...:
                                  one nesting level in the frontend, one AST level each, about
                                  250 bytes of stack in the later phases' walks; more than
                                  CPython 3.11 compiles, about 2,990) */
  P2C_MAX_ERRORS = 50,         /* diagnostics kept before giving up */
  P2C_MAX_WARNINGS = 8,        /* warnings kept, besides the errors' budget (diag_has_room) */
  P2C_MAX_SOURCE = P2C_MAX_SOURCE_BYTES,   /* bytes of source (the public header's limit) */
};

typedef VEC(P2cDiagnostic) DiagVec;

typedef struct Compilation {
  Arena arena;
  const char *file;           /* as given, for diagnostics */
  const char *text;           /* normalized source: no BOM, newlines are "\n" */
  size_t len;
  VEC(uint32_t) line_starts;  /* byte offset of each line's first character */
  DiagVec diags;
  size_t error_count;
  bool too_many_errors;
  const P2cTranslateOptions *opts;
  /* p2c_compiler_set_host_call_signatures: the frontend reads the host code's calls of @jit
   * functions without a signature (frontend/lower_host_calls.c) */
  bool host_call_signatures;
  /* Sources this long are parsed on two threads (frontend/parse.h); 0: the default. */
  size_t parse_split_min;
  /* Resources held outside the arena while a phase runs (tree-sitter's parser and tree), which
   * the driver must release if out-of-memory jumps out of that phase; and the frontend's
   * background work after it returns (frontend_finish). */
  void (*release)(void *);
  void *release_arg;
} Compilation;

/* Reports an error at `loc`. `code` is a stable identifier (docs/diagnostics.md). */
void diag_error(Compilation *c, Loc loc, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Reports a warning at `loc`: the code is still compiled and run, and every front shows it (the
 * command line beside errors, Python as a NumbaWarning at the user's line). For what Numba
 * accepts with a warning, so that the program runs as it does under Numba. */
void diag_warning(Compilation *c, Loc loc, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_note(Compilation *c, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool diag_has_errors(const Compilation *c);
/* Whether one more diagnostic of severity `sev` is kept (the limits P2C_MAX_ERRORS and
 * P2C_MAX_WARNINGS; side.c merges a second thread's diagnostics under the same rule). */
bool diag_has_room(const Compilation *c, P2cSeverity sev);

/* Position of a byte offset of the normalized text. */
Loc source_loc(const Compilation *c, size_t offset);
/* Position of a byte offset known to lie on line `row` (0-based), as a parser that counts rows
 * reports it: no search of the line table. Falls back to source_loc when row does not hold
 * offset. */
Loc source_loc_on_row(const Compilation *c, uint32_t row, size_t offset);
/* The text of line `line` (1-based) without its newline, and its length. */
const char *source_line(const Compilation *c, uint32_t line, size_t *len);

#endif
