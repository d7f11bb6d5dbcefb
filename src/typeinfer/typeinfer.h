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

/* How deep device functions may call each other (E-too-deep past it). */
enum { TYPEINFER_MAX_CALL_DEPTH = 32 };

/* What a cuda.shared.array / cuda.local.array call allocates, read from its constant shape and
 * dtype arguments: no other types are needed, so `check` runs it on untyped kernels too
 * (src/analysis/untyped.c). */
typedef struct ArrayAlloc {
  MemSpace space;
  int ndim;
  int64_t dims[P2C_MAX_NDIM];
  const Type *dtype;
  bool dynamic;                 /* cuda.shared.array(0, dtype): sized by the launch */
  int64_t align;                /* alignment= in bytes (numba-cuda's); 0: the dtype's own */
} ArrayAlloc;
/* Reads call e (a builtin with BF_ARRAY_ALLOC) into *out. Returns false when its shape is not
 * constant, its dtype is not one, the array is empty or past the space's limit (48 KiB of
 * static shared memory, 512 KiB of local memory per thread), its alignment is not numba-cuda's
 * (a constant power of two, a multiple of 8, at most 2**28), or it has another argument; reports why (E-shape,
 * E-dtype, E-array-size, E-alignment, E-arity, E-keyword) to `report` unless it is NULL. */
bool typeinfer_array_alloc(Compilation *report, TypeTable *tt, const Expr *e, ArrayAlloc *out);
/* The dtype that argument d of call e names (a NumPy or Numba scalar type, a module-level record
 * dtype, a dtype string); NULL with an E-dtype error at d (at e when d is NULL) to `report`. */
const Type *typeinfer_dtype_arg(Compilation *report, TypeTable *tt, const Expr *e, const Expr *d);

/* The arguments of a NumPy array creation call (a BI_NP_ALLOC row), bound to Numba's parameters
 * by position or name: np.empty(shape, dtype), full(shape, fill_value, dtype), empty_like(a,
 * dtype), full_like(a, fill_value, dtype), arange(start, stop, step, dtype) (one bound alone is
 * the stop). Each is NULL where not given. */
typedef struct NpAllocArgs {
  const Expr *shape, *like, *fill, *dtype;
  const Expr *start, *stop, *step;
} NpAllocArgs;
/* Binds call e's arguments; false (with *bad the first argument that binds to no parameter, or
 * to one twice) when they do not fit. */
bool typeinfer_np_alloc_args(const Expr *e, NpAllocArgs *out, const Expr **bad);

/* The record type of a module-level record dtype (np.dtype([...]) at module level), or NULL with
 * *why set where its layout is one pyk2cuda (and Numba's CUDA target) refuses: a field that is
 * not aligned, an itemsize not a multiple of the widest field's alignment. */
const Type *typeinfer_record_dtype(TypeTable *tt, const RecordDtype *r, const char **why);

/* A signature to suggest for kernel f, which has none, guessed from how its body uses each
 * parameter ("smooth(float32[:, :], float32[:, :], int64)"; element types are a placeholder).
 * For a stencil's kernel, its inputs alone (typeinfer adds the result array). Allocated in a.
 * Used by the messages that ask for a signature (sig_hint.c). */
const char *typeinfer_sig_hint(Arena *a, const Function *f);

/* Returns false when errors were reported. */
bool typeinfer_run(Compilation *c, Module *m, TypeTable *tt, const TypeinferOptions *o);

#endif
