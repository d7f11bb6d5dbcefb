/* Typing of NumPy's reductions of a whole array (np.sum(a), a.sum(), np.nanmin(a), ...), as
 * numba-cuda implements them (numba/cuda/np/arraymath.py) for arrays of bools, integers and
 * floats: each gives one scalar. Their result types are Numba's: a sum or product of integers
 * is int64 (uint64 for unsigned ones; nansum and nanprod give int64 for both), of bools int64,
 * of floats their own type; mean, var and std of integers and bools are float64; min and max
 * keep the dtype; nanmean is float64 always; count_nonzero int64; all and any bool. Complex,
 * float16 and other elements are refused with a message. Codegen: emit_reduce.c. */
#include "typeinfer/infer.h"

/* The type Numba's implementation of reduction r gives for elements of type d. */
static const Type *reduce_result(NpReduce r, const Type *d) {
  bool is_float = d->kind == TY_FLOAT;
  const Type *wide_int = d->kind == TY_INT && !d->is_signed ? &type_uint64 : &type_int64;
  switch (r) {
  case NPR_SUM:
  case NPR_PROD: return is_float ? d : wide_int;
  case NPR_MEAN:
  case NPR_VAR:
  case NPR_STD: return is_float ? d : &type_float64;
  case NPR_MIN:
  case NPR_MAX:
  case NPR_NANMIN:
  case NPR_NANMAX: return d;
  case NPR_NANMEAN: return &type_float64;
  case NPR_NANSUM:
  case NPR_NANPROD: return is_float ? d : &type_int64;
  case NPR_COUNT_NONZERO: return &type_int64;
  case NPR_ALL:
  case NPR_ANY: return &type_bool;
  }
  return NULL;
}

/* np.sum(a) and the other BI_NP_REDUCE rows: a is an array of bools, integers or floats. */
const Type *infer_np_reduce_call(Infer *I, Expr *e, const Type **t) {
  const Builtin *b = e->kids[0]->builtin;
  const Type *at = t[1];
  const char *name = builtin_display_name(b);
  if (at->kind != TY_ARRAY) {
    TERR(I, e->kids[1]->loc, "E-type", "%s() takes an array in kernels, not %s", name, at->name);
    return NULL;
  }
  const Type *d = at->dtype;
  if (d->kind != TY_BOOL && d->kind != TY_INT && d->kind != TY_FLOAT) {
    TERR(I, e->kids[1]->loc, "E-unsupported", "%s() of %s is not supported (pyk2cuda reduces arrays "
         "of bools, integers, float32 and float64)", name, at->name);
    return NULL;
  }
  return reduce_result((NpReduce)b->reduce, d);
}
