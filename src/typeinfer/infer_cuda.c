/* Type inference for the CUDA intrinsics under cuda.*: atomics, barriers with a predicate,
 * fences, warp operations, bit and arithmetic intrinsics, and cuda.const.array_like.
 *
 * The rules are Numba's: numba-cuda's cudadecl.py and intrinsics.py, checked against Debian's
 * Numba 0.56 typing (docs/semantics.md lists each). Where a Numba overload would convert an
 * argument (a value stored by an atomic, a predicate, a lane index), the final pass inserts the
 * cast here, so codegen sees exactly the C types the intrinsic takes. Where Numba would accept
 * a float as a warp mask or a lane index through an unsafe conversion, we refuse: a mask or
 * lane that is a float is a mistake, and a diagnostic is clearer than a truncation. */
#include <string.h>

#include "typeinfer/infer.h"

static const char *name_of(const Expr *e) { return builtin_display_name(e->builtin); }

static bool is_int_or_bool(const Type *t) { return t->kind == TY_INT || t->kind == TY_BOOL; }

/* Argument k must be an integer or bool; it is converted to `to`. */
static bool int_arg(Infer *I, Expr *e, int k, const Type *t, const char *what, const Type *to) {
  if (!is_int_or_bool(t)) {
    TERR(I, e->kids[k]->loc, "E-operand", "%s() needs an integer %s, not %s", name_of(e), what, t->name);
    return false;
  }
  infer_coerce(I, &e->kids[k], to);
  return true;
}

/* Argument k must be a number; it is converted to `to`. */
static bool number_arg(Infer *I, Expr *e, int k, const Type *t, const char *what, const Type *to) {
  if (!type_is_number(t)) {
    TERR(I, e->kids[k]->loc, "E-operand", "%s() needs a number as its %s, not %s", name_of(e), what, t->name);
    return false;
  }
  infer_coerce(I, &e->kids[k], to);
  return true;
}

/* A warp mask: an integer, passed as the 32-bit lane mask CUDA takes. The message keeps
 * numba-cuda's words ("Mask type must be an integer"), which programs and tests match. */
static bool mask_arg(Infer *I, Expr *e, int k, const Type *t) {
  if (t->kind != TY_INT) {
    TERR(I, e->kids[k]->loc, "E-mask",
         "%s(): Mask type must be an integer lane mask (such as 0xffffffff), not %s", name_of(e), t->name);
    return false;
  }
  infer_coerce(I, &e->kids[k], &type_uint32);
  return true;
}

/* ---- atomics ---- */

static bool atomic_dtype_ok(AtomicClass cls, const Type *d) {
  bool i32_64 = d == &type_int32 || d == &type_uint32 || d == &type_int64 || d == &type_uint64;
  switch (cls) {
  case AC_INCDEC: return d == &type_uint32 || d == &type_uint64;
  case AC_BITWISE: return i32_64;
  case AC_ARITH:
  case AC_SUB:
  case AC_MINMAX: return i32_64 || d == &type_float32 || d == &type_float64;
  }
  return false;
}

static const char *atomic_dtypes(AtomicClass cls) {
  switch (cls) {
  case AC_INCDEC: return "uint32 and uint64";
  case AC_BITWISE: return "int32, uint32, int64 and uint64";
  case AC_ARITH:
  case AC_SUB:
  case AC_MINMAX: return "int32, uint32, int64, uint64, float32 and float64";
  }
  return "";
}

/* The array an atomic works on: global or shared memory, a dtype the operation supports. */
static bool check_atomic_array(Infer *I, Expr *e, const Type *at) {
  AtomicClass cls = e->builtin->atomic;
  Expr *arr = e->kids[1];
  if (at->kind != TY_ARRAY) {
    TERR(I, arr->loc, "E-atomic", "%s() needs an array as its first argument, not %s", name_of(e), at->name);
    return false;
  }
  if (at->space == MEM_LOCAL || at->space == MEM_CONST) {
    TERR(I, arr->loc, "E-atomic", "%s() works on global and shared arrays, not on a %s array",
         name_of(e), at->space == MEM_LOCAL ? "local" : "constant");
    return false;
  }
  if (!atomic_dtype_ok(cls, at->dtype)) {
    TERR(I, arr->loc, "E-atomic", "%s() supports arrays of %s, not %s", name_of(e), atomic_dtypes(cls),
         at->name);
    return false;
  }
  if (e->builtin->id == BI_ATOMIC_COMPARE_AND_SWAP && at->ndim != 1) {
    TERR(I, arr->loc, "E-atomic", "cuda.atomic.compare_and_swap() works on the first element of a 1-D "
         "array; use cuda.atomic.cas(array, index, old, value) for %s", at->name);
    return false;
  }
  return true;
}

static Expr *int_literal(Infer *I, int64_t v, Loc loc) {
  Expr *k = ast_new_expr(&I->c->arena, EX_INT, loc);
  k->ival = v;
  k->uval = (uint64_t)v;
  return k;
}

/* The scalar indices that `ix` (of type it) stands for: an integer, a tuple literal, or any
 * tuple-valued expression (then one constant subscript of it per element). */
static int atomic_indices(Infer *I, Expr *e, Expr *ix, const Type *it, int ndim, Expr **out) {
  if (is_int_or_bool(it)) {
    out[0] = ix;
    if (ndim == 1) return 1;
  } else if (it->kind == TY_TUPLE && it->nelems == ndim) {
    for (int k = 0; k < ndim; k++) {
      if (!is_int_or_bool(it->elems[k])) {
        TERR(I, ix->loc, "E-atomic", "%s() needs integer indices, not %s", name_of(e), it->name);
        return -1;
      }
      if (ix->kind == EX_TUPLE) {
        out[k] = ix->kids[k];
        continue;
      }
      Expr *sub = ast_new_expr(&I->c->arena, EX_INDEX, ix->loc);
      sub->kids = arena_alloc(&I->c->arena, sizeof(Expr *) * 2);
      sub->kids[0] = ix;
      sub->kids[1] = int_literal(I, k, ix->loc);
      sub->nkids = 2;
      out[k] = sub;
    }
    return ndim;
  } else if (it->kind != TY_TUPLE) {
    TERR(I, ix->loc, "E-atomic", "%s() needs an integer index or a tuple of them, not %s", name_of(e), it->name);
    return -1;
  }
  if (it->kind == TY_TUPLE)
    TERR(I, ix->loc, "E-atomic", "%s() on a %d-D array needs %d indices, not a tuple of %d", name_of(e), ndim,
         ndim, it->nelems);
  else
    TERR(I, ix->loc, "E-atomic", "%s() on a %d-D array needs a tuple of %d indices, not %s", name_of(e), ndim,
         ndim, it->name);
  return -1;
}

/* Replaces the array and index arguments by one element expression, arr[i, j], whose address
 * the atomic (or cache hint) takes: kids become callee, element, value (cas: callee, element,
 * old, value; a cache hint's load: callee, element).
 * e->ival marks the call as rewritten, since typing runs over the body several times. */
static bool rewrite_atomic_target(Infer *I, Expr *e, const Type **t) {
  bool cas0 = e->builtin->id == BI_ATOMIC_COMPARE_AND_SWAP;
  Expr *arr = e->kids[1];
  Expr *ix[P2C_MAX_NDIM];
  int n = cas0 ? (ix[0] = int_literal(I, 0, arr->loc), 1) : atomic_indices(I, e, e->kids[2], t[2], t[1]->ndim, ix);
  if (n < 0) return false;
  Expr *target = ast_new_expr(&I->c->arena, EX_INDEX, cas0 ? arr->loc : e->kids[2]->loc);
  target->kids = arena_alloc(&I->c->arena, sizeof(Expr *) * (size_t)(n + 1));
  target->kids[0] = arr;
  memcpy(target->kids + 1, ix, sizeof(Expr *) * (size_t)n);
  target->nkids = n + 1;
  if (!infer_expr(I, target)) return false;
  int skip = cas0 ? 0 : 1;   /* the index argument goes away */
  e->kids[1] = target;
  for (int k = 2; k + skip < e->nkids; k++) e->kids[k] = e->kids[k + skip];
  e->nkids -= skip;
  e->ival = 1;
  return true;
}

/* cuda.atomic.add(a, i, v) and the other atomics: the element's dtype. */
const Type *infer_atomic_call(Infer *I, Expr *e, const Type **t) {
  int nargs = e->builtin->min_args;
  if (e->ival != 1) {
    if (!infer_check_arity(I, e, nargs, nargs) || !check_atomic_array(I, e, t[1])) return NULL;
    if (!rewrite_atomic_target(I, e, t)) return NULL;
  }
  const Type *dtype = e->kids[1]->ty;
  for (int k = 2; k < e->nkids; k++) {
    const Type *vt = e->kids[k]->ty;
    if (!type_is_number(vt)) {
      TERR(I, e->kids[k]->loc, "E-atomic", "%s() needs a number to combine with the element, not %s",
           name_of(e), vt->name);
      return NULL;
    }
    infer_coerce(I, &e->kids[k], dtype);
  }
  return dtype;
}

/* ---- loads and stores with a cache hint: cuda.ldca ... cuda.stwt ---- */

/* The hint's own name ("ldcs"), as numba-cuda's messages say it. */
static const char *hint_name(const Expr *e) { return strrchr(e->builtin->path, '.') + 1; }

/* Whether index type it is numba-cuda's valid index of an array of ndim dimensions: an integer
 * (1-D only) or a tuple of ndim integers; else its error, in numba-cuda's words. */
static bool check_hint_index(Infer *I, Expr *ix, const Type *it, int ndim) {
  bool ints = it->kind == TY_TUPLE && it->nelems > 0;
  for (int k = 0; ints && k < it->nelems; k++) ints = it->elems[k]->kind == TY_INT && it->elems[k] == it->elems[0];
  if (it->kind == TY_INT && ndim != 1)
    TERR(I, ix->loc, "E-index", "Expected %d indices, got a scalar", ndim);
  else if (ints && it->nelems != ndim)
    TERR(I, ix->loc, "E-index", "Expected %d indices, got %d", ndim, it->nelems);
  else if (it->kind != TY_INT && !ints)
    TERR(I, ix->loc, "E-index", "%s is not a valid index", it->name);
  else
    return true;
  return false;
}

/* numba-cuda's checks of a cache hint's array and index (its cache_hints.py), in its words, and
 * pyk2cuda's: the array is in global memory, as ld.global and st.global need. */
static bool check_hint_target(Infer *I, Expr *e, const Type *at, const Type *it) {
  Expr *arr = e->kids[1];
  if (at->kind != TY_ARRAY) {
    TERR(I, arr->loc, "E-operand", "%s operates on arrays or pointers. Got type %s", hint_name(e), at->name);
    return false;
  }
  if (!check_hint_index(I, e->kids[2], it, at->ndim)) return false;
  const Type *d = at->dtype;
  if (d->kind != TY_INT && d->kind != TY_FLOAT && d->kind != TY_HALF) {
    TERR(I, arr->loc, "E-operand", "%s requires array of integer or float type, got %s", hint_name(e), d->name);
    return false;
  }
  if (at->space != MEM_GLOBAL) {
    TERR(I, arr->loc, "E-operand", "%s() loads and stores global arrays (PTX's ld.global, st.global), not "
         "%s", name_of(e), at->name);
    return false;
  }
  return true;
}

/* cuda.ldca(a, i) ... ldcv: the element's dtype; cuda.stcg(a, i, v) ... stwt: nothing, v
 * converted to the element's dtype. */
const Type *infer_cache_hint_call(Infer *I, Expr *e, const Type **t) {
  int nargs = e->builtin->min_args;
  if (e->ival != 1) {
    if (!infer_check_arity(I, e, nargs, nargs) || !check_hint_target(I, e, t[1], t[2])) return NULL;
    if (!rewrite_atomic_target(I, e, t)) return NULL;
  }
  const Type *dtype = e->kids[1]->ty;
  if (nargs == 2) return dtype;
  const Type *vt = e->kids[2]->ty;
  if (!type_is_number(vt) && !type_is_half(vt)) {
    TERR(I, e->kids[2]->loc, "E-operand", "%s() stores an integer or a float, not %s", name_of(e), vt->name);
    return NULL;
  }
  infer_coerce(I, &e->kids[2], dtype);
  return &type_void;
}

/* ---- barriers, fences, warp operations ---- */

/* cuda.syncthreads_count(p), _and, _or */
const Type *infer_sync_predicate_call(Infer *I, Expr *e, const Type **t) {
  if (!int_arg(I, e, 1, t[1], "or bool predicate", &type_int32)) return NULL;
  return &type_int32;
}

/* cuda.syncwarp([mask]) */
const Type *infer_syncwarp_call(Infer *I, Expr *e, const Type **t) {
  if (e->nkids == 2 && !mask_arg(I, e, 1, t[1])) return NULL;
  return &type_void;
}

/* nanosleep(ns): Numba's signature is void(uint32), so any integer converts to uint32. */
const Type *infer_nanosleep_call(Infer *I, Expr *e, const Type **t) {
  if (!int_arg(I, e, 1, t[1], "number of nanoseconds", &type_uint32)) return NULL;
  return &type_void;
}

static bool is_shfl_type(const Type *v) {
  return v == &type_int32 || v == &type_int64 || v == &type_float32 || v == &type_float64;
}

/* shfl_sync(mask, value, lane), shfl_up/down_sync(mask, value, delta), shfl_xor_sync(mask,
 * value, lane_mask): numba-cuda shuffles int32, int64, float32 and float64 only. */
const Type *infer_shfl_call(Infer *I, Expr *e, const Type **t) {
  if (!mask_arg(I, e, 1, t[1])) return NULL;
  if (!is_shfl_type(t[2])) {
    TERR(I, e->kids[2]->loc, "E-operand",
         "%s() shuffles int32, int64, float32 and float64 values, not %s (convert it first, e.g. "
         "np.int64(x))", name_of(e), t[2]->name);
    return NULL;
  }
  if (!int_arg(I, e, 3, t[3], e->builtin->arg_name, &type_int32)) return NULL;
  return t[2];
}

/* all_sync, any_sync, eq_sync (bool), ballot_sync (int32): (mask, predicate) */
const Type *infer_vote_call(Infer *I, Expr *e, const Type **t) {
  if (!mask_arg(I, e, 1, t[1])) return NULL;
  if (t[2]->kind != TY_INT && t[2]->kind != TY_BOOL) {   /* numba-cuda's rule, and its words */
    TERR(I, e->kids[2]->loc, "E-operand", "%s(): Predicate must be an integer or boolean, not %s", name_of(e),
         t[2]->name);
    return NULL;
  }
  if (!number_arg(I, e, 2, t[2], "predicate", &type_bool)) return NULL;
  return e->builtin->result;
}

/* The type Numba's match_*_sync overloads (int32, int64, float32, float64) convert a value to:
 * narrow integers and bool to int32, uint32 and int64 to int64, uint64 to float64. */
static const Type *match_value_type(const Type *v) {
  if (v->kind == TY_FLOAT) return v;
  if (v->kind == TY_BOOL || (v->bits < 32) || v == &type_int32) return &type_int32;
  return v == &type_uint64 ? &type_float64 : &type_int64;
}

/* match_any_sync (int32), match_all_sync ((int32, bool)): (mask, value) */
const Type *infer_match_call(Infer *I, Expr *e, const Type **t) {
  if (!mask_arg(I, e, 1, t[1])) return NULL;
  if (!number_arg(I, e, 2, t[2], "value", type_is_number(t[2]) ? match_value_type(t[2]) : NULL)) return NULL;
  if (e->builtin->result) return e->builtin->result;
  const Type *elems[2] = {&type_int32, &type_bool};
  return type_tuple(I->tt, elems, 2);
}

/* ---- bit and arithmetic intrinsics ---- */

/* popc, clz: the argument's integer type (bool counts as int8, as Numba picks); ffs: uint32. */
const Type *infer_bitcount_call(Infer *I, Expr *e, const Type **t) {
  const Type *to = t[1]->kind == TY_BOOL ? &type_int8 : t[1];
  if (!int_arg(I, e, 1, t[1], "argument", to)) return NULL;
  return e->builtin->result ? e->builtin->result : to;
}

/* brev: uint64 stays uint64; any other integer is reversed as a uint32 (Numba's first match). */
const Type *infer_brev_call(Infer *I, Expr *e, const Type **t) {
  const Type *to = t[1] == &type_uint64 ? &type_uint64 : &type_uint32;
  return int_arg(I, e, 1, t[1], "argument", to) ? to : NULL;
}

/* fma, cbrt: float32 when every argument converts to float32 without loss (float32, bool,
 * 8- and 16-bit integers), else float64: Numba's choice between its two overloads. */
const Type *infer_float_op_call(Infer *I, Expr *e, const Type **t) {
  int n = e->builtin->min_args;
  const Type *ft = &type_float32;
  for (int k = 1; k <= n; k++) {
    if (!type_is_number(t[k])) return number_arg(I, e, k, t[k], "argument", NULL), NULL;
    bool fits32 = t[k] == &type_float32 || t[k]->kind == TY_BOOL || (t[k]->kind == TY_INT && t[k]->bits <= 16);
    if (!fits32) ft = &type_float64;
  }
  for (int k = 1; k <= n; k++) infer_coerce(I, &e->kids[k], ft);
  return ft;
}

/* selp(test, a, b): a and b of one type among those PTX's selp takes. */
const Type *infer_selp_call(Infer *I, Expr *e, const Type **t) {
  if (!number_arg(I, e, 1, t[1], "test", &type_bool)) return NULL;
  const Type *a = t[2];
  bool ok = a == t[3] && (a->kind == TY_FLOAT || (a->kind == TY_INT && a->bits >= 16));
  if (!ok) {
    TERR(I, e->loc, "E-operand", "cuda.selp() needs two values of the same type among int16..uint64, "
         "float32 and float64, not %s and %s", t[2]->name, t[3]->name);
    return NULL;
  }
  return a;
}

/* ---- constant memory ---- */

const Type *infer_const_array(Infer *I, Const *k) {
  const ConstArray *a = k->array;
  const Type *dtype = a->dtype;
  if (a->record) {   /* its layout was checked when it was evaluated (lower_record.c) */
    const char *why;
    if (!(dtype = typeinfer_record_dtype(I->tt, a->record, &why))) {
      TERR(I, k->loc, "E-internal", "record dtype of '%s': %s", k->name, why);
      return NULL;
    }
    k->record_type = dtype;
  }
  return type_array(I->tt, dtype, a->ndim, 'C', MEM_CONST, a->shape);
}

/* cuda.const.array_like(A): A itself, a module-level array in constant memory. */
const Type *infer_const_array_like_call(Infer *I, Expr *e, const Type **t) {
  if (e->kids[1]->kind != EX_CONST || !e->kids[1]->konst->array) {
    TERR(I, e->kids[1]->loc, "E-const-array",
         "cuda.const.array_like() needs a module-level NumPy array built from constants (np.array, "
         "np.arange, np.zeros, np.ones, np.full), not %s", t[1]->name);
    return NULL;
  }
  return t[1];
}

/* ---- libdevice ---- */

/* libdevice.NAME(args): each argument converted to its parameter's type, as Numba's one
 * signature per function converts it (any real number, float16 included, with unsafe casts:
 * libdevice.sinf(x) of a float64 takes float32(x), libdevice.sad of int64s takes int32s); the
 * result is libdevice's result with the out-parameters after it, a tuple where there are two
 * or more (builtins/libdevice.def). */
const Type *infer_libdevice_call(Infer *I, Expr *e, const Type **t) {
  const char *params = e->builtin->proto + 2;
  const Type *elems[4];
  int nelems = 0, k = 0;
  if (e->builtin->proto[0] != 'v') elems[nelems++] = builtin_libdevice_type(e->builtin->proto[0]);
  for (const char *p = params; *p; p++) {
    const Type *pt = builtin_libdevice_type(*p);
    if (*p >= 'A' && *p <= 'Z') {
      elems[nelems++] = pt;
      continue;
    }
    k++;
    if (!type_is_number(t[k]) && !type_is_half(t[k])) {
      TERR(I, e->kids[k]->loc, "E-operand", "%s() needs a real number as its argument %d (%s), not %s",
           name_of(e), k, pt->name, t[k]->name);
      return NULL;
    }
    infer_coerce(I, &e->kids[k], pt);
  }
  return nelems == 1 ? elems[0] : type_tuple(I->tt, elems, nelems);
}
