/* The analysis phase: what codegen needs to know about the typed AST, computed before it
 * prints and recorded on the AST, so that codegen asks nothing of the tree but prints it (it
 * still builds expression nodes of its own to print, docs/architecture.md, "Nodes codegen makes").
 *
 * Requires: a Module after typeinfer (kernel specializations typed, casts inserted).
 * Produces: an Analysis: the kernel and ufunc specializations to emit, the device-function
 *           specializations they reach (in the order codegen declares them), and the prelude
 *           helpers that the types in use need; in each of those functions, `nonneg` and
 *           `positive` (per variable: every value it holds is >= 0, > 0), `lockstep_loop`
 *           (kernels the simulator may run in lockstep), `regions` (kernels with barriers it may
 *           run as regions, or `regions_refused`, why not), `private_atomics` (the array
 *           parameters whose atomics the simulator may run on a worker's copy); on each range() loop of them, its
 *           RangeFacts (step sign, whether the counter can overflow, rebinding); `checks_bounds`
 *           (a kernel whose options or decorator ask for it: debug=True, boundscheck=True; a
 *           device function when any kernel does, since one specialization serves them all); on their
 *           subscripts and operands of // and %, Expr.facts (EF_NONNEG, EF_POSITIVE); EF_STABLE
 *           on the parts of a for loop's iterable that the loop cannot change; `local_bytes` on
 *           the kernels and what they call (local arrays on the deepest call path).
 * Invalidates: nothing. Running it twice gives the same facts. */
#ifndef P2C_ANALYSIS_ANALYSIS_H
#define P2C_ANALYSIS_ANALYSIS_H

#include "frontend/ast.h"

typedef VEC(Function *) FunctionList;

typedef struct AnalysisOptions {
  const char *const *only_kernels;   /* NULL: all kernels */
  size_t nonly;
  bool check_bounds;                 /* every function checks its indices (--check-bounds,
                                        --sanitize); else those whose decorator asks */
  bool fibers;                       /* kernels with barriers keep the simulator's fibers, no
                                        regions (--sanitize, $PYK2CUDA_SIM_FIBERS) */
} AnalysisOptions;

typedef struct Analysis {
  FunctionList kernels;    /* typed specializations of the selected kernels, in source order */
  FunctionList ufuncs;     /* typed specializations of the selected @vectorize ufuncs */
  FunctionList hosts;      /* host entries (Function.host_entry) of the selected @jit functions;
                              each is a device function too (in `devices`), which codegen wraps */
  FunctionList exports;    /* exported specializations (Function.export_entry) of the selected
                              device functions; each in `devices` too, which codegen wraps */
  FunctionList devices;    /* device functions they call, at any depth, in order of first call */
  bool uses_complex;       /* a complex type appears in them (the prelude's complex helpers) */
  bool uses_half;          /* float16 appears in them (the prelude's float16 helpers) */
  bool uses_bf16;          /* bfloat16 appears in them (the prelude's bfloat16 helpers) */
  bool uses_fp8;           /* an fp8 type appears in them (the prelude's TH_FP8) */
  bool uses_charseq;       /* a character sequence appears in them (the prelude's structs) */
  VEC(const Type *) records;   /* the record types they name, each once (a struct each) */
  bool checks_bounds;      /* some function sets Function.checks_bounds */
} Analysis;

/* `check`'s checks that need no types, on every function typeinfer left untyped (untyped.c):
 * a kernel returning a value, builtin arity, arithmetic on strings, shared and local arrays'
 * shapes and dtypes (record dtypes made in tt). Errors are diagnostics. */
void analysis_check_untyped(Compilation *c, const Module *m, TypeTable *tt);

/* Analyses the module's selected kernels and ufuncs and everything they call. */
void analysis_run(Compilation *c, Module *m, const AnalysisOptions *o, Analysis *out);
/* Prints the facts (the --dump=analysis form) into sb. */
void analysis_dump(StrBuf *sb, const Analysis *an);

/* ---- the question codegen still asks of expressions it prints ---- */

/* Whether e can be evaluated twice without a visible difference (no calls with effects). */
bool an_expr_is_pure(const Expr *e);

#endif
