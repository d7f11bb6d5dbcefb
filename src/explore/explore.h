/* The explore view (issue 32; docs/explore.md): one self-contained HTML page that shows, per
 * kernel specialization, the Python with each name's inferred type, the CUDA C, the PTX, the
 * lines linked both ways, the diagnostics at their lines, the resources ptxas reports and the
 * theoretical occupancy.
 *
 * Requires: the outputs of the phases before it, gathered by the caller (src/api/explore.c) into
 *           an ExploreInput: the normalized Python text, the typed kernel specializations, the
 *           CUDA C with codegen's map from C lines to Python lines (the map #line directives
 *           print), NVRTC's PTX compiled with line info (`.loc` entries naming C lines) and its
 *           ptxas log (-Xptxas -v), the CUBIN, nvdisasm's SASS of it where nvdisasm is found, the
 *           diagnostics, and the simulator's checker's findings where the caller has them.
 * Produces: the page's text in an arena (explore_page), and on the way the pieces it is made
 *           of, each a function of its own so that tests can check them: the resources of each
 *           entry from ptxas's log and the CUBIN (ptxas.c), the C line of each PTX line and the
 *           entries' line ranges (ptx_lines.c), the same for the SASS (sass_lines.c), occupancy
 *           (occupancy.c).
 * Invalidates: nothing; it only reads. */
#ifndef P2C_EXPLORE_EXPLORE_H
#define P2C_EXPLORE_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frontend/ast.h"
#include "util/arena.h"
#include "util/buf.h"

/* What ptxas says about one entry (kernel), and what its CUBIN's sections hold. -1: not
 * reported. */
typedef struct EntryResources {
  const char *symbol;
  int registers, barriers;
  int64_t stack_bytes, spill_store_bytes, spill_load_bytes;   /* stack frame: local memory */
  int64_t local_bytes;       /* "lmem", where ptxas reports it (older ptxas) */
  int64_t shared_bytes;      /* static __shared__ ("smem") */
  int64_t constant_bytes[8]; /* per bank, cmem[N] from the log or .nv.constantN.<symbol> */
} EntryResources;

/* Fills out[0..cap) with the entries of ptxas's verbose log, in the log's order; returns how
 * many it found (only the first cap are written). */
size_t explore_parse_ptxas_log(Arena *a, const char *log, EntryResources *out, size_t cap);
/* Adds the constant banks of `symbol` from a CUBIN's section headers (.nv.constantN.SYMBOL, and
 * the module's .nv.constantN banks other than 0, which every kernel may read) to r, for the banks
 * the log did not report. A damaged or non-ELF image adds nothing; every read is bounded by size. */
void explore_cubin_constants(const void *cubin, size_t size, EntryResources *r);

/* PTX with line info: for each PTX line (index 0 is line 1) the CUDA C line its instruction came
 * from (the `.loc` in force, for the file whose name is `program`; at an inlined call, the
 * instruction's own line when it came from Python, python_line[line - 1] != 0 of ncuda C lines,
 * else the call's line), 0 for none; *nlines counts the PTX's lines. */
uint32_t *explore_ptx_cuda_lines(Arena *a, const char *ptx, size_t len, const char *program,
                                 const uint32_t *python_line, size_t ncuda, size_t *nlines);
/* nvdisasm's SASS listing with line info (-c -gi): for each of its lines the CUDA C line it came
 * from, by the `//## File "F", line N [inlined at "G", line M]` comments for the file named
 * `program` (the innermost line from Python, python_line[line - 1] != 0 of ncuda C lines, else
 * the outermost of the program's), 0 for none; *nlines counts the listing's lines. */
uint32_t *explore_sass_cuda_lines(Arena *a, const char *sass, size_t len, const char *program,
                                  const uint32_t *python_line, size_t ncuda, size_t *nlines);
/* A function defined in the PTX (`.entry NAME(` or `.func ... NAME(`) or in the CUDA C (a
 * `__global__` or `__device__` definition at the margin): its name and 1-based first and last
 * lines (the closing brace at the margin). */
typedef struct TextDef {
  const char *name;
  uint32_t first, last;
} TextDef;

/* Every definition of the text, in order (*n of them), found in one pass. */
TextDef *explore_definitions(Arena *a, const char *text, size_t len, bool ptx, size_t *n);
/* Every code section of a SASS listing (`//--------------------- .text.SYMBOL`), in order (*n of
 * them): its symbol, its banner line and its last line that is not blank. */
TextDef *explore_sass_definitions(Arena *a, const char *sass, size_t len, size_t *n);
/* The definition of `name` among defs, or NULL. */
const TextDef *explore_find_definition(const TextDef *defs, size_t n, const char *name);

typedef struct ExploreKernel {
  const char *python_name, *symbol, *signature;
  const Function *spec;      /* the typed kernel specialization */
} ExploreKernel;

typedef struct ExploreInput {
  const char *file;          /* the .py as given */
  const char *version;       /* pyk2cuda's */
  const char *python;        /* normalized text */
  size_t python_len;
  const uint32_t *line_starts;   /* byte offset of each Python line's first character */
  size_t nline_starts;
  const char *cuda;          /* NULL after errors */
  size_t cuda_len;
  const uint32_t *python_line;   /* per C line; nlines entries */
  size_t nlines;
  const char *ptx;           /* NULL when not compiled */
  size_t ptx_len;
  const char *program;       /* the name NVRTC was given for the CUDA C (the .loc file) */
  const char *ptxas_log;     /* NULL when not compiled */
  const void *cubin;
  size_t cubin_size;
  const char *compile_error; /* why there is no PTX (NVRTC's message), or NULL */
  const char *sass;          /* nvdisasm -c -gi of the CUBIN, or NULL */
  size_t sass_len;
  const char *sass_error;    /* why there is no SASS (no nvdisasm, ...), or NULL */
  const char *arch;          /* "sm_90" */
  int block_threads;
  uint32_t dynamic_shared;
  const ExploreKernel *kernels;
  size_t nkernels;
  const P2cDiagnostic *diags;
  size_t ndiags;
  const P2cFinding *findings;    /* the checker's, to mark at their lines */
  size_t nfindings;
} ExploreInput;

/* The page for `in`, NUL-terminated, allocated in `a` (an arena whose out-of-memory jump the
 * caller has set). */
const char *explore_page(Arena *a, const ExploreInput *in, size_t *len);

#endif
