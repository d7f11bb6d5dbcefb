/* Typing of NumPy's array creation in @jit functions the host calls (issue 33): np.empty, zeros,
 * ones, full, empty_like, zeros_like, ones_like, full_like and arange, as Numba types them
 * (numba/np/arrayobj.py): a new array of the shape given (an int or a tuple of ints, known only
 * when the call runs), of the dtype given or the default (float64; full's value's type; the
 * prototype's dtype; arange's bounds' type), layout C (the _like forms keep a C or F prototype's
 * layout). Codegen allocates it on the host's heap (emit_alloc.c). A kernel cannot allocate:
 * a kernel's own call is refused here, a device function's that a kernel reaches by the
 * analysis (analysis.c), since one device specialization may serve a kernel and the host. */
#include <string.h>

#include "typeinfer/infer.h"

/* The parameter names of each kind of call, in Numba's order (NULL-terminated). */
static const char *const *param_names(NpAlloc which) {
  static const char *const shape_dtype[] = {"shape", "dtype", NULL};
  static const char *const full[] = {"shape", "fill_value", "dtype", NULL};
  static const char *const like_dtype[] = {"a", "dtype", NULL};
  static const char *const full_like[] = {"a", "fill_value", "dtype", NULL};
  static const char *const arange[] = {"start", "stop", "step", "dtype", NULL};
  switch (which) {
  case NPA_EMPTY: case NPA_ZEROS: case NPA_ONES: return shape_dtype;
  case NPA_FULL: return full;
  case NPA_EMPTY_LIKE: case NPA_ZEROS_LIKE: case NPA_ONES_LIKE: return like_dtype;
  case NPA_FULL_LIKE: return full_like;
  case NPA_ARANGE: return arange;
  }
  return shape_dtype;
}

/* Where the value bound to parameter `name` goes in *out. */
static const Expr **arg_slot(NpAllocArgs *out, const char *name) {
  if (strcmp(name, "shape") == 0) return &out->shape;
  if (strcmp(name, "a") == 0) return &out->like;
  if (strcmp(name, "fill_value") == 0) return &out->fill;
  if (strcmp(name, "dtype") == 0) return &out->dtype;
  if (strcmp(name, "start") == 0) return &out->start;
  if (strcmp(name, "stop") == 0) return &out->stop;
  return &out->step;
}

bool typeinfer_np_alloc_args(const Expr *e, NpAllocArgs *out, const Expr **bad) {
  const char *const *names = param_names((NpAlloc)e->kids[0]->builtin->alloc);
  memset(out, 0, sizeof *out);
  *bad = NULL;
  int n = 0;
  while (names[n]) n++;
  if (e->nkids - 1 > n) return *bad = e->kids[n + 1], false;
  for (int i = 1; i < e->nkids; i++) *arg_slot(out, names[i - 1]) = e->kids[i];
  for (int k = 0; k < e->nkeywords; k++) {
    int p = 0;
    while (names[p] && strcmp(names[p], e->keywords[k].name) != 0) p++;
    const Expr **slot = names[p] ? arg_slot(out, names[p]) : NULL;
    if (!slot || *slot) return *bad = e->keywords[k].value, false;
    *slot = e->keywords[k].value;
  }
  /* arange(stop): one bound alone is the stop, as in Numba */
  if (e->kids[0]->builtin->alloc == NPA_ARANGE && !out->stop) out->stop = out->start, out->start = NULL;
  return true;
}

/* The dimensions of a shape argument: 1 for an int, n for a tuple of n ints; -1 after an error. */
static int shape_ndim(Infer *I, const char *name, const Expr *shape) {
  const Type *t = shape->ty;
  if (t->kind == TY_INT) return 1;
  bool ints = t->kind == TY_TUPLE && !t->tuple_class && t->nelems >= 1 && t->nelems <= P2C_MAX_NDIM;
  for (int i = 0; ints && i < t->nelems; i++) ints = t->elems[i]->kind == TY_INT;
  if (!ints) {
    TERR(I, shape->loc, "E-shape", "%s() takes a shape of an int or a tuple of 1 to %d ints, not %s", name,
         P2C_MAX_NDIM, t->name);
    return -1;
  }
  if (shape->kind != EX_TUPLE && !infer_can_repeat(shape)) {   /* its elements are read one by one */
    TERR(I, shape->loc, "E-shape", "%s(): a shape computed by a device function or with effects is not "
         "supported: assign it to a variable first", name);
    return -1;
  }
  return t->nelems;
}

/* A dtype NumPy arrays of pyk2cuda's host functions hold: a number, a bool or a complex number. */
static const Type *element_dtype(Infer *I, const char *name, const Expr *e, const Expr *d) {
  if (d && d->kind == EX_BUILTIN && d->builtin->id == BI_CAST && d->builtin->result)
    return d->builtin->result;   /* dtype=int, float, bool: int64, float64, bool, as in Numba */
  const Type *t = typeinfer_dtype_arg(I->final ? I->c : NULL, I->tt, e, d);
  if (t && !type_is_number(t) && !type_is_complex(t)) {
    TERR(I, d->loc, "E-dtype", "%s() of %s is not supported (numbers, bools and complex numbers)", name, t->name);
    return NULL;
  }
  return t;
}

/* A fill value: a number, a bool or a complex number, which the array's dtype must hold. */
static bool fill_ok(Infer *I, const char *name, const Expr *fill, const Type *dtype) {
  const Type *t = fill->ty;
  if (!type_is_number(t) && !type_is_complex(t)) {
    TERR(I, fill->loc, "E-operand", "%s(): the fill value must be a number, not %s", name, t->name);
    return false;
  }
  if (type_is_complex(t) && !type_is_complex(dtype)) {
    TERR(I, fill->loc, "E-operand", "%s(): a complex fill value cannot be stored in an array of %s", name,
         dtype->name);
    return false;
  }
  return true;
}

/* arange's element type without dtype=, Numba's _arange_dtype: float64 when a bound is a float,
 * else the widest integer type of them and int64 (uint64 where one is). */
static const Type *arange_dtype(const NpAllocArgs *a) {
  const Expr *bounds[3] = {a->start, a->stop, a->step};
  bool unsigned64 = false;
  for (int i = 0; i < 3; i++) {
    if (!bounds[i]) continue;
    if (bounds[i]->ty->kind == TY_FLOAT) return &type_float64;
    unsigned64 = unsigned64 || (bounds[i]->ty->kind == TY_INT && !bounds[i]->ty->is_signed && bounds[i]->ty->bits == 64);
  }
  return unsigned64 ? &type_uint64 : &type_int64;
}

/* np.arange(start, stop, step, dtype): a 1-d array of real numbers. */
static const Type *infer_arange(Infer *I, const NpAllocArgs *a, const Expr *e) {
  const Expr *bounds[3] = {a->start, a->stop, a->step};
  for (int i = 0; i < 3; i++)
    if (bounds[i] && bounds[i]->ty->kind != TY_INT && bounds[i]->ty->kind != TY_FLOAT) {
      TERR(I, bounds[i]->loc, "E-operand", "numpy.arange() takes real numbers, not %s", bounds[i]->ty->name);
      return NULL;
    }
  const Type *dtype = a->dtype ? element_dtype(I, "numpy.arange", e, a->dtype) : arange_dtype(a);
  return dtype ? type_array(I->tt, dtype, 1, 'C', MEM_GLOBAL, NULL) : NULL;
}

/* numpy.empty(...), zeros, ones, full, the _like forms and arange (BI_NP_ALLOC rows) */
const Type *infer_np_alloc_call(Infer *I, Expr *e, const Type **t) {
  (void)t;
  const Builtin *b = e->kids[0]->builtin;
  const char *name = builtin_display_name(b);
  NpAlloc which = (NpAlloc)b->alloc;
  FuncKind kind = (I->fn->generic ? I->fn->generic : I->fn)->kind;
  if (kind != FN_DEVICE) {
    TERR(I, e->loc, "E-alloc", "%s() allocates memory, which a kernel cannot: arrays can be created in "
         "@jit functions called from the host; in a kernel use cuda.local.array of a constant shape", name);
    return NULL;
  }
  NpAllocArgs a;
  const Expr *bad;
  if (!typeinfer_np_alloc_args(e, &a, &bad)) {
    TERR(I, bad->loc, "E-arity", "%s() got an argument it does not take here", name);
    return NULL;
  }
  bool needs_fill = which == NPA_FULL || which == NPA_FULL_LIKE;
  const Expr *base = which == NPA_ARANGE ? a.stop : which >= NPA_EMPTY_LIKE ? a.like : a.shape;
  if (!base || (needs_fill && !a.fill)) {
    TERR(I, e->loc, "E-arity", "%s() is missing its %s argument", name,
         !base ? (which == NPA_ARANGE ? "stop" : which >= NPA_EMPTY_LIKE ? "'a'" : "shape") : "fill_value");
    return NULL;
  }
  if (which == NPA_ARANGE) return infer_arange(I, &a, e);
  int ndim;
  const Type *dtype;
  char layout = 'C';
  if (which >= NPA_EMPTY_LIKE) {
    if (a.like->ty->kind != TY_ARRAY) {
      TERR(I, a.like->loc, "E-operand", "%s() takes an array, not %s", name, a.like->ty->name);
      return NULL;
    }
    if (!infer_can_repeat(a.like)) {   /* its extents are read one by one */
      TERR(I, a.like->loc, "E-operand", "%s(): an array computed by a device function or with effects is not "
           "supported here: assign it to a variable first", name);
      return NULL;
    }
    ndim = a.like->ty->ndim;
    layout = a.like->ty->layout == 'F' ? 'F' : 'C';
    dtype = a.dtype ? element_dtype(I, name, e, a.dtype) : a.like->ty->dtype;
  } else {
    ndim = shape_ndim(I, name, a.shape);
    dtype = a.dtype ? element_dtype(I, name, e, a.dtype) : needs_fill ? a.fill->ty : &type_float64;
  }
  if (ndim < 0 || !dtype || (needs_fill && !fill_ok(I, name, a.fill, dtype))) return NULL;
  if (!type_is_number(dtype) && !type_is_complex(dtype)) {
    TERR(I, base->loc, "E-dtype", "%s() of %s is not supported (numbers, bools and complex numbers)", name,
         dtype->name);
    return NULL;
  }
  return type_array(I->tt, dtype, ndim, layout, MEM_GLOBAL, NULL);
}
