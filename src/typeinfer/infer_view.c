/* Typing of subscripts: a[i, j] (an element), and the views Numba's basic indexing gives:
 * fewer integer indices than dimensions (a[i] of a 2-D array is its row) and slices
 * (a[i, :], a[lo:hi], a[::2]). A view is an array of the base's dtype, one dimension fewer
 * per integer index, whose layout follows Numba's rule (numba/core/typing/arraydecl.py):
 *   C base: the view is C when every index but the last is an integer and the last is an
 *           integer or a slice without a step (a[i], a[i, :], a[lo:hi]); else A.
 *   F base: the view is F when every index is given, the first is an integer or a slice
 *           without a step and the others are integers (f[:, j]); else A.
 *   A base: A.
 * Views live wherever the base lives; their type says global memory (a generic address),
 * since only arrays declared with cuda.shared.array/local.array are declared storage. */
#include <string.h>

#include "typeinfer/infer.h"

enum { SLICE_START = 1, SLICE_STOP = 2, SLICE_STEP = 4 };

const Type *infer_slice(Infer *I, Expr *e) {
  bool known = true;
  for (int i = 0; i < e->nkids; i++) {
    const Type *t = infer_expr(I, e->kids[i]);
    if (!t) {
      known = false;
      continue;
    }
    if (t->kind != TY_INT && t->kind != TY_BOOL) {
      TERR(I, e->kids[i]->loc, "E-index", "slice bounds must be integers, not %s", t->name);
      return NULL;
    }
    infer_coerce(I, &e->kids[i], &type_int64);
  }
  int64_t step;
  if ((e->ival & SLICE_STEP) && infer_const_int(e->kids[e->nkids - 1], &step) && step == 0) {
    TERR(I, e->kids[e->nkids - 1]->loc, "E-slice-step", "slice step cannot be zero");
    return NULL;
  }
  return known ? &type_void : NULL;   /* "a slice": only EX_INDEX looks at it */
}

/* a[i][j] of an array is a[i, j]: a subscript of integer-only partial subscript is merged into
 * one (the same element or view, without building the intermediate view). */
static void merge_chained_index(Infer *I, Expr *e) {
  Expr *inner = e->kids[0];
  if (inner->kind != EX_INDEX) return;
  merge_chained_index(I, inner);
  for (int i = 1; i < inner->nkids; i++)
    if (inner->kids[i]->kind == EX_SLICE) return;
  const Type *bt = infer_expr(I, inner->kids[0]);
  int n = inner->nkids - 1 + e->nkids - 1;
  if (!bt || bt->kind != TY_ARRAY || inner->nkids - 1 >= bt->ndim || n > bt->ndim) return;
  Expr **kids = arena_alloc(&I->c->arena, sizeof *kids * (size_t)(n + 1));
  memcpy(kids, inner->kids, sizeof *kids * (size_t)inner->nkids);
  memcpy(kids + inner->nkids, e->kids + 1, sizeof *kids * (size_t)(e->nkids - 1));
  e->kids = kids;
  e->nkids = n + 1;
}

static bool keeps_contiguity(const Expr *ix, bool innermost) {
  return ix->kind != EX_SLICE || (innermost && !(ix->ival & SLICE_STEP));
}

/* Numba's layout of a view of an array of type at indexed with ix[0..n). */
static char view_layout(const Type *at, Expr *const *ix, int n) {
  if (at->layout == 'C') {
    for (int i = 0; i < n; i++)
      if (!keeps_contiguity(ix[i], i == n - 1)) return 'A';
    return 'C';
  }
  if (at->layout == 'F' && n == at->ndim) {
    for (int i = n; i-- > 0;)
      if (!keeps_contiguity(ix[i], i == 0)) return 'A';
    return 'F';
  }
  return 'A';
}

/* x[()] for index i of e, x a 0-d array of integers: Numba indexes with its element
 * (numba/core/typing/arraydecl.py: a 0-d integer array used as an integer index). */
static const Type *zero_d_index(Infer *I, Expr *e, int i) {
  Expr *x = e->kids[i];
  Expr *elem = ast_new_expr(&I->c->arena, EX_INDEX, x->loc);
  elem->kids = arena_alloc(&I->c->arena, sizeof *elem->kids);
  elem->kids[0] = x;
  elem->nkids = 1;
  e->kids[i] = elem;
  return infer_expr(I, elem);
}

static bool is_zero_d_int_array(const Type *t) {
  return t->kind == TY_ARRAY && t->ndim == 0 && t->dtype->kind == TY_INT;
}

static const Type *infer_array_subscript(Infer *I, Expr *e, const Type *at, const Type **t) {
  int n = e->nkids - 1, nints = 0;
  for (int i = 1; i <= n; i++)
    if (is_zero_d_int_array(t[i]) && !(t[i] = zero_d_index(I, e, i))) return NULL;
  if (n > at->ndim) {
    TERR(I, e->loc, "E-index", "too many indices for a %d-D array: %d", at->ndim, n);
    return NULL;
  }
  for (int i = 1; i <= n; i++) {
    if (e->kids[i]->kind == EX_SLICE) continue;
    if (t[i]->kind != TY_INT && t[i]->kind != TY_BOOL) {
      TERR(I, e->kids[i]->loc, "E-index", "array index must be an integer, not %s", t[i]->name);
      return NULL;
    }
    nints++;
  }
  if (nints == at->ndim) return at->dtype;
  char layout = view_layout(at, e->kids + 1, n);
  /* A view of a constant array stays read-only (MEM_CONST without a fixed shape). */
  return type_array(I->tt, at->dtype, at->ndim - nints, layout, at->space == MEM_CONST ? MEM_CONST : MEM_GLOBAL, NULL);
}

/* r['b'] of a record is r.b, and r[k] with a constant k its k-th field, as Numba's static
 * getitem gives it: the node becomes that attribute. */
static const Type *record_subscript(Infer *I, Expr *e) {
  const Expr *k = e->kids[1];
  const Type *r = e->kids[0]->ty;
  int64_t pos = -1;
  bool by_name = e->nkids == 2 && k->kind == EX_STR && !memchr(k->str, '\0', k->str_len);
  if (!by_name && (e->nkids != 2 || !infer_const_int(k, &pos))) {
    TERR(I, e->loc, "E-index", "a record is indexed by a field name (a string literal) or a constant position");
    return NULL;
  }
  if (!by_name && (pos < 0 || pos >= r->nfields)) {
    TERR(I, k->loc, "E-index", "record field %lld does not exist: the record has %d fields", (long long)pos, r->nfields);
    return NULL;
  }
  e->kind = EX_ATTR;
  e->str = by_name ? k->str : r->fields[pos].name;
  e->nkids = 1;
  return infer_attr(I, e);
}

/* a[t] of an array, t a tuple of integers (a[cuda.grid(2)], old[gid]): a[t[0], t[1], ...], as
 * Numba indexes with a tuple. t is written once per element, so it must be a value that
 * evaluating again cannot change. */
static const Type *array_tuple_subscript(Infer *I, Expr *e, const Type *tt) {
  Expr *x = e->kids[1];
  for (int k = 0; k < tt->nelems; k++)
    if (tt->elems[k]->kind != TY_INT && tt->elems[k]->kind != TY_BOOL) {
      TERR(I, x->loc, "E-index", "array index must be an integer or a tuple of integers, not %s", tt->name);
      return NULL;
    }
  if (tt->nelems == 0 || tt->nelems > P2C_MAX_NDIM) {
    TERR(I, x->loc, "E-index", "an array is indexed by 1 to %d integers, not %s", P2C_MAX_NDIM, tt->name);
    return NULL;
  }
  if (!infer_can_repeat(x)) {
    TERR(I, x->loc, "E-index", "indexing with a tuple computed by a device function or with effects is not "
         "supported: assign it to a variable first");
    return NULL;
  }
  Expr **kids = arena_alloc(&I->c->arena, sizeof *kids * (size_t)(tt->nelems + 1));
  kids[0] = e->kids[0];
  for (int k = 0; k < tt->nelems; k++) kids[k + 1] = infer_tuple_elem_expr(I, x, k);
  e->kids = kids;
  e->nkids = tt->nelems + 1;
  return infer_subscript(I, e);
}

const Type *infer_subscript(Infer *I, Expr *e) {
  merge_chained_index(I, e);
  const Type *t[P2C_MAX_NDIM + 1] = {0};
  bool known = true;
  for (int i = 0; i < e->nkids; i++)
    if (!(t[i] = infer_expr(I, e->kids[i]))) known = false;
  if (!known) return NULL;
  if (t[0]->kind == TY_RECORD) return record_subscript(I, e);
  if (t[0]->kind == TY_TUPLE) {
    for (int i = 1; i < e->nkids; i++)
      if (e->kids[i]->kind == EX_SLICE) {
        TERR(I, e->kids[i]->loc, "E-tuple-index", "slicing a tuple is not supported");
        return NULL;
      }
    return infer_tuple_index(I, e, t[0]);
  }
  if (t[0]->kind != TY_ARRAY) {
    TERR(I, e->loc, "E-index", "a value of type %s cannot be indexed", t[0]->name);
    return NULL;
  }
  if (e->nkids == 2 && t[1]->kind == TY_TUPLE) return array_tuple_subscript(I, e, t[1]);
  return infer_array_subscript(I, e, t[0], t);
}

/* ---- a.view(dtype) ----
 * NumPy's ndarray.view with a dtype reinterprets the elements' bytes (numba/np/arrayobj.py
 * array_view; NumPy's array_descr_set). Same item size: the shape and strides stay, whatever
 * the layout. Another item size: the last axis is rescaled (n items of the old size are
 * n * old / new of the new one, its stride the new size), which needs that axis contiguous
 * (its stride the old item size, or one element, or an empty array) and, for a larger dtype,
 * its byte length divisible by the new size. What typing can prove is checked here; the rest
 * (an A or F layout, a larger dtype on an extent known only at run time) at run time, marked
 * by ival 1 on the call. The view has the array's layout (Numba's copy(dtype=...)), except an
 * F array of several dimensions whose item size changes, which becomes A. */

static const Type *view_dtype_arg(Infer *I, const Expr *d, const Type *t) {
  if (t->kind == TY_DTYPE && type_is_numeric(t->dtype)) return t->dtype;
  if (t->kind == TY_STR && d->kind == EX_STR) {
    const Type *s = type_scalar_by_name(d->str);
    if (s && type_is_numeric(s)) return s;
  }
  TERR(I, d->loc, "E-dtype", "view() takes a number dtype such as np.int32, not %s", t->name);
  return NULL;
}

/* Whether an array of type at (not 0-d) has a contiguous last axis by its type. */
static bool last_axis_contiguous(const Type *at) {
  return at->layout == 'C' || (at->layout == 'F' && at->ndim == 1);
}

/* The item size change of a view, checked where typing can; sets e->ival when the rest is
 * checked at run time. False after an error. */
static bool view_size_ok(Infer *I, Expr *e, const Type *at, const Type *to) {
  int64_t from_size = at->dtype->bits / 8, to_size = to->bits / 8;
  if (at->ndim == 0) {
    TERR(I, e->loc, "E-view", "a 0-d array can only be viewed as a dtype of its item size (%s has "
         "%lld bytes, %s %lld)", at->dtype->name, (long long)from_size, to->name, (long long)to_size);
    return false;
  }
  if (to_size < from_size && from_size % to_size != 0) {
    TERR(I, e->loc, "E-view", "cannot view %s as %s: %lld bytes are not a whole number of %lld-byte "
         "items", at->dtype->name, to->name, (long long)from_size, (long long)to_size);
    return false;
  }
  const int64_t *fixed = at->fixed_shape;
  if (to_size > from_size && fixed && fixed[at->ndim - 1] * from_size % to_size != 0) {
    TERR(I, e->loc, "E-view", "cannot view %s as %s: the last axis has %lld bytes, not a multiple "
         "of %lld", at->dtype->name, to->name, (long long)(fixed[at->ndim - 1] * from_size),
         (long long)to_size);
    return false;
  }
  e->ival = !last_axis_contiguous(at) || (to_size > from_size && !fixed);
  return true;
}

/* numpy.ndarray.view(a, dtype), which a.view(dtype) is rewritten to. */
const Type *infer_array_view_call(Infer *I, Expr *e, const Type **t) {
  if (e->nkids != 3) {
    TERR(I, e->loc, "E-arity", "view() takes 1 argument (a dtype), got %d", e->nkids - 2);
    return NULL;
  }
  if (t[1]->kind != TY_ARRAY) {
    TERR(I, e->kids[1]->loc, "E-view", "view() needs an array, not %s", t[1]->name);
    return NULL;
  }
  const Type *at = t[1], *to = view_dtype_arg(I, e->kids[2], t[2]);
  if (!to) return NULL;
  if (!type_is_numeric(at->dtype)) {
    TERR(I, e->loc, "E-view", "view() of an array of %s is not supported (arrays of numbers only)",
         at->dtype->name);
    return NULL;
  }
  e->ival = 0;
  char layout = at->layout;
  if (to->bits != at->dtype->bits) {
    if (!view_size_ok(I, e, at, to)) return NULL;
    if (!last_axis_contiguous(at)) layout = 'A';
  }
  return type_array(I->tt, to, at->ndim, layout, at->space == MEM_CONST ? MEM_CONST : MEM_GLOBAL, NULL);
}

/* numpy.ndarray.reshape(a, shape) (a.reshape(shape), a.reshape(d0, d1, ...)): a C-ordered view of
 * a C-contiguous array, as Numba reshapes (contiguous arrays only). The shape is an integer, a
 * tuple of integers or several integers (int64); one may be -1. Whether the extents fit is
 * checked at run time (p2c_reshape). */
const Type *infer_array_reshape_call(Infer *I, Expr *e, const Type **t) {
  if (t[1]->kind != TY_ARRAY) {
    TERR(I, e->kids[1]->loc, "E-view", "reshape() needs an array, not %s", t[1]->name);
    return NULL;
  }
  const Type *at = t[1];
  if (at->layout != 'C' && !(at->layout == 'F' && at->ndim == 1)) {
    TERR(I, e->kids[1]->loc, "E-view", "reshape() of %s is not supported: as in Numba, only of a "
         "C-contiguous array (give the kernel a contiguous one, typed [:, ::1])", at->name);
    return NULL;
  }
  int n = e->nkids - 2;
  const Type *shape = t[2];
  if (n == 1 && shape->kind == TY_TUPLE) {
    for (int k = 0; k < shape->nelems; k++)
      if (shape->elems[k]->kind != TY_INT) {
        TERR(I, e->kids[2]->loc, "E-view", "reshape() takes a shape of integers, not %s", shape->name);
        return NULL;
      }
    n = shape->nelems;
  } else {
    for (int i = 2; i < e->nkids; i++) {
      if (t[i]->kind != TY_INT) {
        TERR(I, e->kids[i]->loc, "E-view", "reshape() takes integers or a tuple of them, not %s", t[i]->name);
        return NULL;
      }
      infer_coerce(I, &e->kids[i], &type_int64);
    }
  }
  if (n < 1 || n > P2C_MAX_NDIM) {
    TERR(I, e->loc, "E-view", "reshape() to %d dimensions is not supported (1 to %d)", n, P2C_MAX_NDIM);
    return NULL;
  }
  return type_array(I->tt, at->dtype, n, 'C', at->space == MEM_CONST ? MEM_CONST : MEM_GLOBAL, NULL);
}

/* numpy.ndarray.copy(a) (q = a.copy()): a new C-ordered local array of a's shape and dtype,
 * which the assignment fills (emit_assign_one). Numba allocates it on the heap; a kernel here
 * cannot allocate, so the shape must be known when compiling: a module-level constant array, a
 * cuda.local.array or a cuda.shared.array. Like an allocation, the copy is the whole value of an
 * assignment to a variable, whose declaration is its storage. */
const Type *infer_array_copy_call(Infer *I, Expr *e, const Type **t) {
  if (e->nkids != 2 || e->nkeywords) {
    TERR(I, e->loc, "E-arity", "copy() takes no arguments");
    return NULL;
  }
  const Type *at = t[1];
  if (at->kind != TY_ARRAY || !at->fixed_shape) {
    TERR(I, e->loc, "E-alloc", "copy() of %s is not supported: a kernel cannot allocate memory, so "
         "only an array whose shape is known when compiling (a module-level constant array, a "
         "cuda.local.array or cuda.shared.array) can be copied; copy into a cuda.local.array of "
         "constant shape instead (q[:] = a)", at->name);
    return NULL;
  }
  if (e != I->statement_value) {
    TERR(I, e->loc, "E-alloc", "copy() must be assigned to a variable (q = a.copy()) to be used");
    return NULL;
  }
  return type_array(I->tt, at->dtype, at->ndim, 'C', MEM_LOCAL, at->fixed_shape);
}

/* a.method(...) of an array: a.view(dtype), a.reshape(shape) and a.copy() become calls of the
 * rows numpy.ndarray.view, .reshape and .copy with a as their first argument, typed by the
 * builtin machinery (infer_array_view_call, infer_array_reshape_call, infer_array_copy_call);
 * a.sum() and the other reductions Numba has as methods, calls of NumPy's functions
 * (infer_np_reduce_call). */
const Type *infer_array_method(Infer *I, Expr *e) {
  static const char *const methods[][2] = {
    {"view", "numpy.ndarray.view"}, {"reshape", "numpy.ndarray.reshape"}, {"copy", "numpy.ndarray.copy"},
    {"sum", "numpy.sum"}, {"prod", "numpy.prod"}, {"mean", "numpy.mean"}, {"var", "numpy.var"},
    {"std", "numpy.std"}, {"min", "numpy.min"}, {"max", "numpy.max"}, {"all", "numpy.all"},
    {"any", "numpy.any"},
  };
  Expr *callee = e->kids[0];
  const char *path = NULL;
  for (size_t i = 0; i < sizeof methods / sizeof methods[0] && !path; i++)
    if (strcmp(callee->str, methods[i][0]) == 0) path = methods[i][1];
  if (!path) {
    TERR(I, callee->loc, "E-not-callable", "method '%s' of %s is not supported (of arrays only "
         "view(dtype), reshape(shape), copy() and the reductions sum(), prod(), mean(), var(), std(), "
         "min(), max(), all() and any())", callee->str, callee->kids[0]->ty->name);
    return NULL;
  }
  Expr **kids = arena_alloc(&I->c->arena, sizeof *kids * (size_t)(e->nkids + 1));
  kids[0] = ast_new_expr(&I->c->arena, EX_BUILTIN, callee->loc);
  kids[0]->builtin = builtin_lookup(path);
  kids[1] = callee->kids[0];
  for (int i = 1; i < e->nkids; i++) kids[i + 1] = e->kids[i];
  e->kids = kids;
  e->nkids++;
  return infer_expr(I, e);
}

/* ---- a.real, a.imag ----
 * As Numba types them (numba/core/typing/arraydecl.py): of a complex array, a view of the real
 * or imaginary part of each element, an array of the part's float type with layout A (its
 * stride is twice the item size), which can be read, stored to and given to atomics; of an
 * array of real numbers, .real is the array itself. Numba's .imag of a real array is a new
 * read-only array of zeros, which a kernel cannot allocate: refused. */
const Type *infer_array_part(Infer *I, Expr *e, const Type *t) {
  if (type_is_complex(t->dtype))
    return type_array(I->tt, type_complex_part(t->dtype), t->ndim, 'A', t->space == MEM_CONST ? MEM_CONST : MEM_GLOBAL, NULL);
  if (type_is_numeric(t->dtype) && strcmp(e->str, "real") == 0) return t;
  TERR(I, e->loc, "E-attribute", "'%s' of %s is not supported (%s)", e->str, t->name,
       type_is_numeric(t->dtype) ? "Numba gives a new read-only array of zeros" : "arrays of numbers only");
  return NULL;
}
