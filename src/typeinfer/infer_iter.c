/* Typing of a for loop's iterable (other than a plain range(), which infer.c types as a counted
 * loop). What each iterable yields, as Numba types it:
 *   a 1-D array          its dtype
 *   an N-D array         (N-1)-D views of layout A (Numba's ArrayIterator)
 *   a UniTuple           its element type
 *   range(...)           int32, int64 or uint64 (infer_range)
 *   enumerate(it[, n])   Tuple(int64, what it yields); the count is int64 whatever n is
 *   zip(a, b, ...)       Tuple(what a yields, what b yields, ...)
 * The calls of range, enumerate and zip are typed here, not as expressions: their `ty` is what
 * they yield, and `builtin` names the call for codegen. */
#include <string.h>

#include "typeinfer/infer.h"

enum { MAX_ZIP = 32 };

static bool is_iter_call(const Expr *e, BuiltinId id) {
  return e->kind == EX_CALL && e->kids[0]->kind == EX_BUILTIN && e->kids[0]->builtin->id == id;
}

static const Type *iter_range(Infer *I, Expr *e) {
  int n = e->nkids - 1;
  if (n < 1 || n > 3 || e->nkeywords) {
    TERR(I, e->loc, "E-arity", "range() takes 1 to 3 positional arguments");
    return NULL;
  }
  Expr *parts[3] = {n >= 2 ? e->kids[1] : NULL, n >= 2 ? e->kids[2] : e->kids[1],
                    n == 3 ? e->kids[3] : NULL};
  const Type *t = infer_range(I, parts);
  /* Write the cast parts back where they came from. */
  if (n == 1) e->kids[1] = parts[1];
  else
    for (int i = 0; i < n; i++) e->kids[i + 1] = parts[i];
  return t;
}

/* enumerate(it), enumerate(it, start), enumerate(it, start=n) */
static const Type *iter_enumerate(Infer *I, Expr *e) {
  int n = e->nkids - 1;
  bool kw_start = e->nkeywords == 1 && strcmp(e->keywords[0].name, "start") == 0;
  if (n < 1 || n + (kw_start ? 1 : 0) > 2 || (e->nkeywords && !kw_start)) {
    TERR(I, e->loc, "E-arity", "enumerate() takes an iterable and an optional start");
    return NULL;
  }
  if (kw_start) {   /* the start becomes the second argument */
    Expr **kids = arena_alloc(&I->c->arena, 3 * sizeof(Expr *));
    kids[0] = e->kids[0], kids[1] = e->kids[1], kids[2] = e->keywords[0].value;
    e->kids = kids, e->nkids = 3, e->nkeywords = 0;
  }
  const Type *inner = infer_iterable(I, e->kids[1]);
  if (e->nkids == 3) {
    const Type *st = infer_expr(I, e->kids[2]);
    if (!st) return NULL;
    if (st->kind != TY_INT && st->kind != TY_BOOL) {
      TERR(I, e->kids[2]->loc, "E-iterate", "enumerate() start must be an integer, not %s", st->name);
      return NULL;
    }
    infer_coerce(I, &e->kids[2], &type_int64);
  }
  if (!inner) return NULL;
  const Type *elems[2] = {&type_int64, inner};
  return type_tuple(I->tt, elems, 2);
}

static const Type *iter_zip(Infer *I, Expr *e) {
  int n = e->nkids - 1;
  if (n < 1 || n > MAX_ZIP || e->nkeywords) {
    TERR(I, e->loc, "E-arity", "zip() takes 1 to %d iterables (and no keywords)", MAX_ZIP);
    return NULL;
  }
  const Type *elems[MAX_ZIP];
  bool known = true;
  for (int i = 0; i < n; i++)
    if (!(elems[i] = infer_iterable(I, e->kids[i + 1]))) known = false;
  return known ? type_tuple(I->tt, elems, n) : NULL;
}

/* An array or a tuple used as an iterable. */
static const Type *iter_value(Infer *I, Expr *e) {
  const Type *t = infer_expr(I, e);
  if (!t) return NULL;
  if (t->kind == TY_ARRAY && t->ndim == 0) {   /* NumPy: "iteration over a 0-d array" */
    TERR(I, e->loc, "E-iterate", "cannot iterate over a 0-d array (%s): read its element with a[()]", t->name);
    return NULL;
  }
  if (t->kind == TY_ARRAY && t->ndim == 1) return t->dtype;
  if (t->kind == TY_ARRAY)
    return type_array(I->tt, t->dtype, t->ndim - 1, 'A', t->space == MEM_CONST ? MEM_CONST : MEM_GLOBAL, NULL);
  if (t->kind == TY_TUPLE && type_tuple_uniform(t)) {
    /* The loop reads it at a run-time index: a module constant needs its device table. */
    if (e->kind == EX_CONST) e->konst->indexed = true;
    return t->elems[0];
  }
  if (t->kind == TY_TUPLE && t->nelems > 0)
    TERR(I, e->loc, "E-iterate", "cannot iterate over %s: its elements have different types", t->name);
  else
    TERR(I, e->loc, "E-iterate",
         "cannot iterate over %s (arrays, tuples, range(), enumerate() and zip() can be iterated)",
         t->name);
  return NULL;
}

/* The tuple of `for x in literal_unroll(t)`. Numba unrolls the loop, one copy of its body per
 * element; pyk2cuda's loop reads the tuple at a run-time index, which means the same where the
 * elements have one type, and is refused where they do not. Numba takes only a tuple here. */
const Type *infer_unrolled(Infer *I, Expr *it) {
  const Type *t = infer_expr(I, it);
  if (!t) return NULL;
  if (t->kind != TY_TUPLE) {
    TERR(I, it->loc, "E-iterate", "literal_unroll() takes a tuple, not %s", t->name);
    return NULL;
  }
  if (t->nelems == 0 || !type_tuple_uniform(t)) {
    TERR(I, it->loc, "E-unsupported",
         "literal_unroll() of %s: pyk2cuda iterates a tuple whose elements have one type (Numba "
         "unrolls the loop for elements of different types, which pyk2cuda does not)", t->name);
    return NULL;
  }
  if (it->kind == EX_CONST) it->konst->indexed = true;   /* read at a run-time index */
  return it->yield_ty = t->elems[0];
}

const Type *infer_iterable(Infer *I, Expr *it) {
  const Type *t;
  if (is_iter_call(it, BI_RANGE)) t = iter_range(I, it);
  else if (is_iter_call(it, BI_ENUMERATE)) t = iter_enumerate(I, it);
  else if (is_iter_call(it, BI_ZIP)) t = iter_zip(I, it);
  else return it->yield_ty = iter_value(I, it);
  it->builtin = it->kids[0]->builtin;
  it->ty = t;
  return it->yield_ty = t;
}
