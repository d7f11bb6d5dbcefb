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

/* ---- literal_unroll over elements of different types ----
 * `for x in literal_unroll(t): BODY` becomes, for each element k of t, `x_k = t[k]` followed
 * by a copy of BODY that reads x_k, a variable of its own with the element's type (named x
 * too: codegen keeps C names apart); the last copy's is x itself, which keeps the last element
 * after the loop as Python's does. Where t is a tuple expression, element k is its k-th
 * expression itself. A break or continue of the loop has no copy to go to: refused. */

typedef VEC(Stmt *) StmtVec;

static void rename_expr(Expr *e, int from, int to) {
  if (!e) return;
  if (e->kind == EX_VAR && e->var == from) e->var = to;
  for (int i = 0; i < e->nkids; i++) rename_expr(e->kids[i], from, to);
  for (int i = 0; i < e->nkeywords; i++) rename_expr(e->keywords[i].value, from, to);
}

static void rename_block(Block *b, int from, int to) {
  for (int i = 0; i < b->len; i++) {
    Stmt *s = b->items[i];
    for (int j = 0; j < s->ntargets; j++) rename_expr(s->targets[j], from, to);
    Expr *parts[] = {s->value, s->cond, s->start, s->stop, s->step};
    for (size_t j = 0; j < sizeof parts / sizeof parts[0]; j++) rename_expr(parts[j], from, to);
    if ((s->kind == ST_FOR_RANGE || s->kind == ST_FOR_ITER) && s->var == from) s->var = to;
    rename_block(&s->body, from, to);
    rename_block(&s->orelse, from, to);
  }
}

/* A break or continue of the loop whose body is b (not of a loop nested in it), or NULL. */
static const Stmt *loop_exit(const Block *b) {
  for (int i = 0; i < b->len; i++) {
    const Stmt *s = b->items[i];
    if (s->kind == ST_BREAK || s->kind == ST_CONTINUE) return s;
    const Stmt *x = s->kind == ST_IF ? loop_exit(&s->body) : NULL;
    if (!x && s->kind == ST_IF) x = loop_exit(&s->orelse);
    if (x) return x;
  }
  return NULL;
}

/* Whether the loop over tuple type t must be unrolled: elements of different types, or arrays
 * with storage of their own (a constant array), which a tuple read at a run-time index does not
 * hold. */
static bool must_unroll(const Type *t) {
  if (t->kind != TY_TUPLE || t->nelems == 0) return false;
  if (!type_tuple_uniform(t)) return true;
  return t->elems[0]->kind == TY_ARRAY && t->elems[0]->fixed_shape;
}

/* A new variable of the function being typed, a copy of v's name and location, untyped. */
static int new_var_like(Infer *I, int v) {
  Function *f = I->fn;
  Var *vars = arena_alloc(&I->c->arena, sizeof *vars * (size_t)(f->nvars + 1));
  memcpy(vars, f->vars, sizeof *vars * (size_t)f->nvars);
  vars[f->nvars] = (Var){.name = f->vars[v].name, .loc = f->vars[v].loc};
  f->vars = vars;
  return f->nvars++;
}

/* Element k of the unrolled loop s's tuple: the tuple expression's own k-th, else t[k]. */
static Expr *unrolled_elem(Infer *I, const Stmt *s, int k) {
  Arena *a = &I->c->arena;
  if (s->value->kind == EX_TUPLE) return ast_clone_expr(a, s->value->kids[k]);
  Expr *ix = ast_new_expr(a, EX_INDEX, s->value->loc);
  ix->kids = arena_alloc(a, sizeof *ix->kids * 2);
  ix->kids[0] = ast_clone_expr(a, s->value);
  ix->kids[1] = ast_new_expr(a, EX_INT, s->value->loc);
  ix->kids[1]->ival = k;
  ix->nkids = 2;
  return ix;
}

/* Copy k of unrolled loop s: `x_k = t[k]` and the body reading x_k, appended to out. */
static void unrolled_copy(Infer *I, const Stmt *s, int k, StmtVec *out) {
  Arena *a = &I->c->arena;
  int v = k + 1 < s->value->ty->nelems ? new_var_like(I, s->var) : s->var;   /* the last: x itself */
  Stmt *bind = ast_new_stmt(a, ST_ASSIGN, s->loc);
  bind->end_line = s->loc.line;
  bind->targets = arena_alloc(a, sizeof *bind->targets);
  bind->targets[0] = ast_new_expr(a, EX_VAR, s->targets[0]->loc);
  bind->targets[0]->var = v;
  bind->ntargets = 1;
  bind->value = unrolled_elem(I, s, k);
  vec_push(a, out, bind);
  Block body = ast_clone_block(a, s->body);
  rename_block(&body, s->var, v);
  for (int i = 0; i < body.len; i++) vec_push(a, out, body.items[i]);
}

bool infer_unroll_split(Infer *I, Block *b, int i) {
  Stmt *s = b->items[i];
  if (s->kind != ST_FOR_ITER || !s->unroll || s->var < 0) return false;
  const Type *t = infer_expr(I, s->value);
  if (!t || !must_unroll(t) || (s->value->kind != EX_TUPLE && !infer_can_repeat(s->value))) return false;
  if (loop_exit(&s->body)) return false;   /* refused by infer_unrolled */
  StmtVec out = {0};
  for (int k = 0; k < t->nelems; k++) unrolled_copy(I, s, k, &out);
  int n = b->len - 1 + (int)out.len;
  Stmt **items = arena_alloc(&I->c->arena, sizeof *items * (size_t)n);
  memcpy(items, b->items, sizeof *items * (size_t)i);
  memcpy(items + i, out.items, sizeof *items * out.len);
  memcpy(items + i + out.len, b->items + i + 1, sizeof *items * (size_t)(b->len - i - 1));
  b->items = items;
  b->len = n;
  return true;
}

/* The tuple of `for x in literal_unroll(t)` that infer_unroll_split left as a loop. Numba
 * unrolls the loop, one copy of its body per element; pyk2cuda's loop reads the tuple at a
 * run-time index, which means the same where the elements have one type. Numba takes only a
 * tuple here. */
const Type *infer_unrolled(Infer *I, Stmt *s) {
  Expr *it = s->value;
  const Type *t = infer_expr(I, it);
  if (!t) return NULL;
  if (t->kind != TY_TUPLE) {
    TERR(I, it->loc, "E-iterate", "literal_unroll() takes a tuple, not %s", t->name);
    return NULL;
  }
  const Stmt *x = must_unroll(t) ? loop_exit(&s->body) : NULL;
  if (x) {
    TERR(I, x->loc, "E-unsupported", "%s in a literal_unroll() loop over %s: pyk2cuda unrolls this "
         "loop, one copy of its body per element, and has no loop to leave",
         x->kind == ST_BREAK ? "break" : "continue", t->name);
    return NULL;
  }
  if (must_unroll(t)) {
    TERR(I, it->loc, "E-unsupported", "literal_unroll() of %s: pyk2cuda unrolls this loop (its "
         "elements have different types, or are arrays with storage of their own) where its target "
         "is one name and its tuple a variable, a constant or a tuple expression", t->name);
    return NULL;
  }
  if (t->nelems == 0) {
    TERR(I, it->loc, "E-unsupported", "literal_unroll() of an empty tuple is not supported");
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
