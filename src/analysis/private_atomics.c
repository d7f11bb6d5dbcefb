/* Which array parameters of a kernel the simulator may give each worker a private copy of, for
 * its atomics (Function.private_atomics; docs/simulator.md, "Atomics"): a histogram's
 * `cuda.atomic.add(hist, bin, 1)` from every thread of two workers makes both cores fight over
 * the same cache lines, and runs slower than on one. A worker that adds into a copy of its own,
 * with plain adds, and adds the copy into the array once per chunk of blocks, fights over
 * nothing, and gives the same integers: integer addition (with wrap-around), and, or, xor, max
 * and min are associative and commutative, so the order of the updates cannot show.
 *
 * Nothing else in the kernel may see the array while the copy holds part of its updates. So a
 * parameter qualifies only when every use of it is one of:
 *   - the element of an atomic statement whose result is not used (`cuda.atomic.add(a, i, v)` as
 *     a statement), all of one kind: add and sub (both additions), and_, or_, xor, max, min (or
 *     nanmax, nanmin, which are max and min on integers); on an integer dtype;
 *   - a non-array attribute (a.shape, a.size, a.ndim) or len(a): the array's extents.
 * Anything else (an element read or written, a view, a device call, another kind of atomic, an
 * atomic whose old value is used, exch, cas, inc, dec) keeps the array shared. A kernel with a
 * parameter that holds arrays without being one (a tuple of arrays, a record) privatizes
 * nothing: the launch checks that a privatized array overlaps no other array parameter, and it
 * sees only the plain ones. --sanitize keeps every array shared (codegen: its checker follows
 * addresses). */
#include "analysis/walk.h"

#include <string.h>

typedef struct Private {
  const Function *f;
  uint8_t *op;     /* per parameter: PA_* (analysis.h), or PA_SHARED once disqualified */
  bool *seen;      /* per parameter: disqualified */
} Private;

static bool is_int_array(const Type *t) {
  return t && t->kind == TY_ARRAY && t->dtype && t->dtype->kind == TY_INT;
}

/* The private kind of an atomic row (its CUDA C name), or PA_SHARED for one that cannot be. */
static uint8_t atomic_kind(const Builtin *b) {
  static const struct {
    const char *c64;
    uint8_t kind;
  } kinds[] = {{"atomicAdd", PA_ADD}, {"atomicSub", PA_ADD}, {"atomicAnd", PA_AND},
               {"atomicOr", PA_OR},   {"atomicXor", PA_XOR}, {"atomicMax", PA_MAX},
               {"atomicMin", PA_MIN}};
  if (b->id != BI_ATOMIC || !b->c64) return PA_SHARED;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(b->c64, kinds[i].c64) == 0) return kinds[i].kind;
  return PA_SHARED;
}

/* The array parameter named by e itself, or -1. */
static int param_of(const Private *p, const Expr *e) {
  if (e->kind == EX_VAR && e->var < p->f->nparams && e->ty && e->ty->kind == TY_ARRAY) return e->var;
  return -1;
}

static void disqualify(Private *p, int param) {
  if (param >= 0) p->seen[param] = true;
}

/* Any other expression: an array parameter named in it is used as an array, except through its
 * extents. */
static bool scan_expr(AstWalker *w, const Expr *e) {
  Private *p = w->ctx;
  if (e->kind == EX_ATTR && e->nkids == 1 && param_of(p, e->kids[0]) >= 0 && e->ty &&
      e->ty->kind != TY_ARRAY)
    return false;
  if (e->kind == EX_CALL && e->builtin && e->builtin->id == BI_LEN && e->nkids == 2 &&
      param_of(p, e->kids[1]) >= 0)
    return false;
  disqualify(p, param_of(p, e));
  return true;
}

/* `cuda.atomic.OP(a, i, v)` as a statement, a the parameter: its kind joins a's; the indices and
 * the value are scanned as any expression. Returns false for any other statement. */
static bool private_atomic_stmt(AstWalker *w, const Stmt *s) {
  Private *p = w->ctx;
  const Expr *e = s->value;
  if (s->kind != ST_EXPR || !e || e->kind != EX_CALL || !e->builtin || e->nkids < 3 || e->nkeywords)
    return false;
  uint8_t kind = atomic_kind(e->builtin);
  const Expr *target = e->kids[1];
  if (kind == PA_SHARED || target->kind != EX_INDEX || target->nkids < 1) return false;
  int a = param_of(p, target->kids[0]);
  if (a < 0 || !is_int_array(target->kids[0]->ty)) return false;
  if (p->op[a] != PA_SHARED && p->op[a] != kind) disqualify(p, a);
  p->op[a] = kind;
  for (int i = 1; i < target->nkids; i++) ast_walk_expr(w, target->kids[i]);
  for (int i = 2; i < e->nkids; i++) ast_walk_expr(w, e->kids[i]);
  return true;
}

static bool scan_stmt(AstWalker *w, const Stmt *s) {
  return !private_atomic_stmt(w, s);   /* the walker scans the other statements' expressions */
}

/* Whether some parameter holds arrays without being an array (a tuple of arrays, a record). */
static bool holds_hidden_arrays(const Type *t) {
  if (!t || t->kind == TY_RECORD) return true;
  for (int i = 0; t->kind == TY_TUPLE && i < t->nelems; i++)
    if (!t->elems[i] || t->elems[i]->kind == TY_ARRAY || holds_hidden_arrays(t->elems[i])) return true;
  return false;
}

const uint8_t *an_private_atomics(Function *f, Arena *a) {
  if (f->kind != FN_KERNEL || f->nparams == 0) return NULL;
  for (int i = 0; i < f->nparams; i++)
    if (f->arg_types[i]->kind != TY_ARRAY && holds_hidden_arrays(f->arg_types[i])) return NULL;
  size_t n = (size_t)f->nparams;
  uint8_t *op = arena_alloc(a, n * sizeof *op);
  bool *seen = arena_alloc(a, n * sizeof *seen);
  memset(op, PA_SHARED, n * sizeof *op);
  memset(seen, 0, n * sizeof *seen);
  Private p = {f, op, seen};
  AstWalker w = {.stmt = scan_stmt, .expr = scan_expr, .ctx = &p};
  ast_walk_block(&w, &f->body);
  bool any = false;
  for (size_t i = 0; i < n; i++) {
    if (seen[i]) op[i] = PA_SHARED;
    any |= op[i] != PA_SHARED;
  }
  return any ? op : NULL;
}
