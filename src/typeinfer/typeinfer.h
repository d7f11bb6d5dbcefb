/* Type inference: the typed AST.
 *
 * Requires: a Module from the frontend (names resolved).
 * Produces: for each kernel, one specialization per signature (from its decorator or from the
 *           options' extra signatures), appended to the kernel's `specs`; device functions are
 *           specialized on demand, once per argument-type tuple. In every specialization each
 *           expression has `ty`, each variable its unified type, EX_CAST nodes mark every
 *           conversion, and calls point at the specialization they call.
 * Invalidates: nothing; the generic functions stay untyped (they are templates). */
#ifndef P2C_TYPEINFER_TYPEINFER_H
#define P2C_TYPEINFER_TYPEINFER_H

#include "frontend/ast.h"
#include "types/types.h"

typedef struct ExtraSig {
  const char *kernel;       /* kernel name */
  const char *text;         /* the signature, "(float32[:], int64)" or "void(...)" */
  size_t len;
} ExtraSig;

typedef struct TypeinferOptions {
  const ExtraSig *extra;        /* signatures from outside the source (--sig, launch arguments) */
  size_t nextra;
  bool skip_unsigned;           /* kernels with no signature are left untyped, not reported */
  const char *const *only;      /* report missing signatures only for these kernels (NULL: all) */
  size_t nonly;
} TypeinferOptions;

/* Returns false when errors were reported. */
bool typeinfer_run(Compilation *c, Module *m, TypeTable *tt, const TypeinferOptions *o);

#endif
