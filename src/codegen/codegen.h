/* Code generation: the typed AST -> CUDA C text.
 *
 * Requires: a Module after typeinfer (kernel specializations typed, casts inserted) and its
 *           Analysis (which functions to emit, the facts recorded on them).
 * Produces: one CUDA C text holding a minimal prelude (only the helpers used), module
 *           constants, device-function specializations reachable from the kernels, one
 *           extern "C" __global__ function per kernel specialization, and the simulator entry
 *           points (docs/generated-code.md); and a descriptor per kernel for the runtime.
 * Invalidates: nothing. */
#ifndef P2C_CODEGEN_CODEGEN_H
#define P2C_CODEGEN_CODEGEN_H

#include <stdint.h>
#include "analysis/analysis.h"
#include "frontend/ast.h"

/* The name the simulator gives the generated CUDA C in a module's work folder, and so the file
 * its line table names (runtime/sim reads it there): codegen's #line directives after linked CUDA C
 * name it in the simulator's build (emit_link.c). */
#define P2C_SIM_SOURCE_FILE "src.cu"

typedef struct KernelDesc {
  const Function *spec;
  const char *symbol;
  const char *signature;
  P2cParam *params;
  int nparams;
  uint32_t static_shared_bytes;
  bool is_ufunc;           /* a @vectorize kernel: inputs and out as broadcast views (emit_ufunc.c) */
  /* A @jit function's host entry (emit_host.c): its parameters, then, with has_result, the
   * bytes `result` (params[nparams - 1], a uint8 array) where its kernel stores what it
   * returns, laid out as `result_type` describes (a parameter of the result's type). */
  bool is_host;
  bool has_result;
  P2cParam result_type;
  /* The arrays in the result (P2cKernelInfo.result_arrays), and where the addresses of their
   * heap blocks start in `result` (result_owners; emit_host.c), and all its bytes. */
  size_t result_arrays, result_owners, result_bytes;
  bool is_export;          /* an exported device function (Function.export_entry), not a kernel */
} KernelDesc;

typedef struct CodegenResult {
  const char *text;        /* arena */
  size_t len;
  /* For each line of text (index 0 is line 1): the Python line its code came from, 0 for lines
   * outside function bodies (prelude, declarations). Used to report NVRTC's errors at Python
   * lines. nlines counts the lines of text. */
  const uint32_t *python_line;
  size_t nlines;
  KernelDesc *kernels;
  int nkernels;
  KernelDesc *exports;     /* the exported device functions (compile_ptx(device=True)) */
  int nexports;
  bool reports_raises;     /* a checked raise or assert uses the bounds record (H_RAISE) */
  bool defines_bounds_record;  /* the text defines p2c_bounds_report (H_BOUNDS): only where a
                                  kernel has an index to check or a raise to report */
  /* codegen_c_form only: why the C form cannot be run (NULL: it can), and the libm functions
   * its text calls (NULL-terminated). */
  const char *c_refused;
  const char *const *c_externs;
} CodegenResult;

typedef struct CodegenOptions {
  bool line_directives;
  /* Which functions check their array accesses is the analysis's Function.checks_bounds. */
  /* The simulator's checker (--sanitize, docs/simulator.md): every element access, shared and
   * local array, barrier and warp operation reported to it. Needs every function's
   * checks_bounds (the analysis's check_bounds option); the text compiles on the simulator only. */
  bool sanitize;
  /* Modules with at least this many functions to emit are emitted on two threads
   * (0: P2C_EMIT_SPLIT_MIN; SIZE_MAX: never). The text is the same either way. */
  size_t split_min;
} CodegenOptions;

enum {
  /* Below this, a second thread costs more than it saves (a function takes ~15 us to emit). */
  P2C_EMIT_SPLIT_MIN = 64,
};

bool codegen_run(Compilation *c, Module *m, const Analysis *an, const CodegenOptions *opts, CodegenResult *out);

/* The C form of the module's host entries, for the first tier (emit_c.c; docs/simulator.md,
 * "Host functions: two tiers"): C that libtcc compiles, each host entry a function of its
 * kernel's symbol taking kernelParams (void **). Requires what codegen_run requires, and `cg`,
 * codegen_run's result for the same module (its entry symbols). Produces out->text, and
 * out->c_refused when the C form cannot say what a host entry does (then the text is not to be
 * run). Whether it can is decided here, by the printer, because only the printer knows what it
 * prints. Invalidates nothing: it names the functions as codegen_run did. */
bool codegen_c_form(Compilation *c, Module *m, const Analysis *an, const CodegenResult *cg, CodegenResult *out);

#endif
