/* Typing of tuples as values, as Numba types them: a tuple whose elements all have one type is
 * a UniTuple (it can be indexed with a runtime index), any other is a heterogeneous Tuple
 * (indexed with constants only). Tuples are built from literals, returned from and passed to
 * device functions, concatenated with +, unpacked, and converted element by element where two
 * tuple types unify ((int64, int64) and (float64, int64) give (float64, int64)). */
#include "typeinfer/infer.h"

enum { MAX_TUPLE = 256, MAX_TUPLE_NEST = 16 };

/* Tuples nest at most MAX_TUPLE_NEST deep: a recursive function that wraps its argument in a
 * tuple at each call would otherwise build ever larger types. */
static const Type *checked_tuple(Infer *I, Expr *e, const Type **elems, int n) {
  const Type *t = type_tuple(I->tt, elems, n);
  if (t->nest <= MAX_TUPLE_NEST) return t;
  TERR(I, e->loc, "E-too-deep", "tuples nested more than %d deep", MAX_TUPLE_NEST);
  return NULL;
}

const Type *type_as_value(TypeTable *tt, const Type *t) {
  /* A constant array stays one: a variable holding it points at the __constant__ data. */
  return t->kind == TY_ARRAY && t->fixed_shape && t->space != MEM_CONST ? type_array_as_param(tt, t) : t;
}

/* (a, b, ...) */
const Type *infer_tuple_literal(Infer *I, Expr *e) {
  const Type *t[MAX_TUPLE];
  bool known = true;
  if (e->nkids > MAX_TUPLE) return NULL;   /* the frontend refuses longer tuples */
  for (int i = 0; i < e->nkids; i++) {
    t[i] = infer_expr(I, e->kids[i]);
    if (!t[i]) {
      known = false;
      continue;
    }
    /* A record is a reference, which tuples (values) do not hold yet. */
    if (t[i]->kind == TY_STR || t[i]->kind == TY_BYTES || t[i]->kind == TY_CHARSEQ || t[i]->kind == TY_DTYPE ||
        t[i]->kind == TY_VOID || t[i]->kind == TY_RECORD) {
      TERR(I, e->kids[i]->loc, "E-bad-value", "a value of type %s cannot be a tuple element",
           t[i]->name);
      return NULL;
    }
    t[i] = type_as_value(I->tt, t[i]);
  }
  return known ? checked_tuple(I, e, t, e->nkids) : NULL;
}

/* t[i] with i known only when the kernel runs: Numba allows it on UniTuples only. */
static const Type *infer_tuple_runtime_index(Infer *I, Expr *e, const Type *tt) {
  Expr *base = e->kids[0];
  if (e->nkids != 2) {
    TERR(I, e->loc, "E-tuple-index", "a tuple takes one index, got %d", e->nkids - 1);
    return NULL;
  }
  const Type *it = e->kids[1]->ty;
  if (it->kind != TY_INT && it->kind != TY_BOOL) {
    TERR(I, e->kids[1]->loc, "E-tuple-index", "tuple index must be an integer, not %s", it->name);
    return NULL;
  }
  if (!type_tuple_uniform(tt)) {
    TERR(I, e->loc, "E-tuple-index",
         "tuple %s has elements of different types: it can only be indexed with a constant "
         "integer", tt->name);
    return NULL;
  }
  infer_coerce(I, &e->kids[1], &type_int64);
  if (base->kind == EX_CONST) base->konst->indexed = true;
  e->ival = -1;
  return tt->elems[0];
}

const Type *infer_tuple_index(Infer *I, Expr *e, const Type *tt) {
  int64_t k;
  if (e->nkids != 2 || !infer_const_int(e->kids[1], &k)) return infer_tuple_runtime_index(I, e, tt);
  if (k < 0 && k >= -(int64_t)tt->nelems) k += tt->nelems;
  if (k < 0 || k >= tt->nelems) {
    TERR(I, e->loc, "E-tuple-index", "tuple index out of range for %s", tt->name);
    return NULL;
  }
  e->ival = k;
  return tt->elems[k];
}

/* p.x of a namedtuple: becomes p[k], the field's element, so that every later phase sees an
 * ordinary tuple index. */
const Type *infer_tuple_field(Infer *I, Expr *e, const Type *tt) {
  int k = type_tuple_field(tt, e->str);
  if (k < 0) {
    TERR(I, e->loc, "E-attribute", "%s has no field '%s'", tt->name, e->str);
    return NULL;
  }
  Expr *index = ast_new_expr(&I->c->arena, EX_INT, e->loc);
  index->ival = k;
  index->ty = &type_int64;
  Expr **kids = arena_alloc(&I->c->arena, 2 * sizeof *kids);
  kids[0] = e->kids[0];
  kids[1] = index;
  e->kind = EX_INDEX;
  e->kids = kids;
  e->nkids = 2;
  e->str = NULL;
  e->ival = k;
  return tt->elems[k];
}

const Type *infer_tuple_concat(Infer *I, Expr *e, const Type *a, const Type *b) {
  const Type *t[MAX_TUPLE];
  if (a->nelems + b->nelems > MAX_TUPLE) {
    TERR(I, e->loc, "E-too-many", "a tuple of more than %d elements is not supported", MAX_TUPLE);
    return NULL;
  }
  for (int i = 0; i < a->nelems; i++) t[i] = a->elems[i];
  for (int i = 0; i < b->nelems; i++) t[a->nelems + i] = b->elems[i];
  return checked_tuple(I, e, t, a->nelems + b->nelems);
}

/* A tuple literal converts in place, element by element (the output then reads
 * `T{(double)x, y}`); any other tuple value is wrapped in a cast that codegen expands. */
void infer_coerce_tuple(Infer *I, Expr **slot, const Type *to) {
  Expr *e = *slot;
  if (e->ty->nelems != to->nelems) return;   /* unification guarantees equal lengths */
  if (e->kind == EX_TUPLE) {
    for (int i = 0; i < e->nkids; i++) infer_coerce(I, &e->kids[i], to->elems[i]);
    e->ty = to;
    return;
  }
  Expr *c = ast_new_expr(&I->c->arena, EX_CAST, e->loc);
  c->ty = to;
  c->kids = arena_alloc(&I->c->arena, sizeof(Expr *));
  c->kids[0] = e;
  c->nkids = 1;
  *slot = c;
}

Expr *infer_tuple_elem_expr(Infer *I, Expr *x, int k) {
  Expr *ix = ast_new_expr(&I->c->arena, EX_INDEX, x->loc);
  ix->kids = arena_alloc(&I->c->arena, 2 * sizeof *ix->kids);
  ix->kids[0] = k == 0 ? x : ast_clone_expr(&I->c->arena, x);
  ix->kids[1] = ast_new_expr(&I->c->arena, EX_INT, x->loc);
  ix->kids[1]->ival = k;
  ix->kids[1]->uval = (uint64_t)k;
  ix->nkids = 2;
  return ix;
}
