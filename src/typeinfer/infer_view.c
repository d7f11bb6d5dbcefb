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

static const Type *infer_array_subscript(Infer *I, Expr *e, const Type *at, const Type **t) {
  int n = e->nkids - 1, nints = 0;
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
  return infer_array_subscript(I, e, t[0], t);
}
