/* The checks that need no argument types, on the functions typeinfer left untyped: under
 * `check` (P2cTranslateOptions.skip_unsigned_kernels), kernels without a signature, and device
 * functions no typed code calls. Without them `check` said nothing about a kernel that returns
 * a value or calls a builtin with the wrong number of arguments until it was given a --sig.
 * Each check gives the code and message typeinfer gives for the same mistake in typed code:
 *   - a kernel's `return` with a value (E-kernel-return);
 *   - a builtin called with a number of arguments its row does not take (E-arity);
 *   - arithmetic on a string literal (E-operand);
 *   - a shared or local array whose shape is not constant, whose dtype is not one, or which is
 *     empty or past its memory's limit (E-shape, E-dtype, E-array-size: typeinfer's own check),
 *     unless a parameter gives its shape or dtype (a caller may pass a constant: static_args.c);
 *   - recursion that typeinfer would refuse whatever the argument types (E-recursion): mutual
 *     recursion back into a function with no declared return type, and a function whose every
 *     returned value calls itself.
 * What needs types (operand types, unification) stays with typeinfer: `check` says per kernel
 * that its types were not checked (api/compiler.c). */
#include <stdint.h>
#include <stdlib.h>

#include "analysis/walk.h"
#include "builtins/builtins.h"
#include "typeinfer/typeinfer.h"

typedef struct Untyped {
  Compilation *c;
  const Function *f;
  TypeTable *tt;            /* for the record type of a shared or local array's dtype */
} Untyped;

static bool check_stmt(AstWalker *w, const Stmt *s) {
  Untyped *u = w->ctx;
  if (s->kind == ST_RETURN && s->value && u->f->kind == FN_KERNEL)
    diag_error(u->c, s->loc, "E-kernel-return", "a kernel cannot return a value");
  return true;
}

/* A builtin call's argument count, as typeinfer's infer_check_arity says it. */
static void check_arity(Compilation *c, const Expr *e) {
  const Builtin *b = e->kids[0]->builtin;
  int n = e->nkids - 1, lo = b->min_args, hi = b->max_args;
  if (!b->infer || (b->facts & BF_CHECKS_ARITY) || (n >= lo && n <= hi)) return;
  const char *name = builtin_display_name(b);
  if (lo == hi) diag_error(c, e->loc, "E-arity", "%s() takes %d argument%s, got %d", name, lo, lo == 1 ? "" : "s", n);
  else diag_error(c, e->loc, "E-arity", "%s() takes %d to %d arguments, got %d", name, lo, hi, n);
}

/* Whether e names a parameter of device function f, or is a tuple holding one: a caller may
 * give it a constant (a shape, a dtype), so only typeinfer can check what uses it. A kernel's
 * parameters are never constants. */
static bool names_param(const Function *f, const Expr *e) {
  if (f->kind != FN_DEVICE) return false;
  if (e->kind == EX_VAR) return e->var < f->nparams;
  for (int i = 0; e->kind == EX_TUPLE && i < e->nkids; i++)
    if (names_param(f, e->kids[i])) return true;
  return false;
}

/* cuda.shared.array(shape, dtype) / cuda.local.array: their checks, unless a parameter gives
 * the shape or the dtype. */
static void check_alloc(Untyped *u, const Expr *e) {
  for (int i = 1; i < e->nkids; i++)
    if (names_param(u->f, e->kids[i])) return;
  for (int i = 0; i < e->nkeywords; i++)
    if (names_param(u->f, e->keywords[i].value)) return;
  ArrayAlloc a;
  typeinfer_array_alloc(u->c, u->tt, e, &a);
}

static bool check_expr(AstWalker *w, const Expr *e) {
  Untyped *u = w->ctx;
  if (e->kind == EX_CALL && e->nkids > 0 && e->kids[0]->kind == EX_BUILTIN && e->kids[0]->builtin) {
    check_arity(u->c, e);
    if (builtin_has(e->kids[0]->builtin, BF_ARRAY_ALLOC)) check_alloc(u, e);
  }
  if (e->kind == EX_BINARY && (e->kids[0]->kind == EX_STR || e->kids[1]->kind == EX_STR))
    diag_error(u->c, e->loc, "E-operand", "unsupported operand type for %s: a string (unicode_type)",
               op_python_spelling(e->op));
  return true;
}

/* ---- recursion ----
 * A depth-first walk of the calls between untyped functions, in the order typeinfer would type
 * them (each function's calls in source order), from each untyped kernel and then from each
 * device function not reached yet. A call back into a function still on the walk's path is
 * recursion: typeinfer accepts it only where the function called declares its return type
 * (mutual recursion) or already has a return that does not recurse (self-recursion). */

typedef enum Mark { UNSEEN = 0, ON_PATH, DONE } Mark;

/* A function and its index in the module, in a table sorted by address (func_index). */
typedef struct FuncRef {
  const Function *f;
  size_t index;
} FuncRef;

typedef struct Calls {
  Compilation *c;
  const Module *m;
  FuncRef *by_address;
  Mark *mark;                  /* per function of m, by index */
  const Function **path;       /* the functions on the walk's path, path[0] its root */
  int depth;
} Calls;

static int cmp_ref(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const FuncRef *)a)->f, y = (uintptr_t)((const FuncRef *)b)->f;
  return (x > y) - (x < y);
}

/* f's index in the module (a binary search: a module of many functions stays linear), or -1. */
static int func_index(const Calls *k, const Function *f) {
  FuncRef key = {f, 0};
  const FuncRef *r = bsearch(&key, k->by_address, k->m->funcs.len, sizeof key, cmp_ref);
  return r ? (int)r->index : -1;
}

/* The search for a `return` whose value does not call function self. */
typedef struct BaseReturn {
  const Function *self;
  bool calls_self;             /* in the return value being walked */
  bool found;                  /* a return without a self-call */
} BaseReturn;

static bool find_self_call(AstWalker *w, const Expr *e) {
  BaseReturn *r = w->ctx;
  if (e->kind == EX_CALL && e->nkids > 0 && e->kids[0]->kind == EX_FUNC && e->kids[0]->func == r->self)
    r->calls_self = true;
  return !r->calls_self;
}

static bool find_base_return(AstWalker *w, const Stmt *s) {
  BaseReturn *r = w->ctx;
  if (r->found || s->kind != ST_RETURN || !s->value) return !r->found;
  r->calls_self = false;
  AstWalker calls = {NULL, find_self_call, r};
  ast_walk_expr(&calls, s->value);
  r->found = !r->calls_self;
  return !r->found;
}

/* Whether f returns a value somewhere without calling itself there (typeinfer then knows the
 * type a self-call returns). */
static bool has_base_return(const Function *f) {
  BaseReturn r = {f, false, false};
  AstWalker w = {find_base_return, NULL, &r};
  ast_walk_block(&w, &f->body);
  return r.found;
}

static void walk_calls(Calls *k, const Function *f);

/* A call of g from the function at the end of the walk's path, at loc. */
static void check_call(Calls *k, const Function *g, Loc loc) {
  const Function *f = k->path[k->depth - 1];
  int gi = func_index(k, g);
  if (gi < 0 || g->specs.len > 0) return;   /* typed: typeinfer checked its calls */
  if (k->mark[gi] == UNSEEN) {
    /* deeper, typeinfer refuses the chain itself (E-too-deep); the walk stops there */
    if (k->depth <= TYPEINFER_MAX_CALL_DEPTH) walk_calls(k, g);
    return;
  }
  if (k->mark[gi] != ON_PATH) return;
  if (g == f) {
    if (!g->declared_ret && !has_base_return(g))
      diag_error(k->c, loc, "E-recursion", "cannot type infer runaway recursion: recursive '%s' has no "
                 "return type; give it a return that does not call itself, or a signature with a return "
                 "type", g->name);
    return;
  }
  if (!g->declared_ret)
    diag_error(k->c, loc, "E-recursion", "mutual recursion through '%s' needs a signature with a return "
               "type on '%s' (@cuda.jit(\"int64(int64)\", device=True))", f->name, g->name);
}

static bool visit_call(AstWalker *w, const Expr *e) {
  if (e->kind == EX_CALL && e->nkids > 0 && e->kids[0]->kind == EX_FUNC && e->kids[0]->func)
    check_call(w->ctx, e->kids[0]->func, e->loc);
  return true;
}

static void walk_calls(Calls *k, const Function *f) {
  int fi = func_index(k, f);
  k->mark[fi] = ON_PATH;
  k->path[k->depth++] = f;
  AstWalker w = {NULL, visit_call, k};
  ast_walk_block(&w, &f->body);
  k->depth--;
  k->mark[fi] = DONE;
}

static void check_recursion(Compilation *c, const Module *m) {
  size_t n = m->funcs.len;
  if (n == 0) return;
  Calls k = {.c = c, .m = m, .mark = arena_alloc(&c->arena, n * sizeof *k.mark),
             .path = arena_alloc(&c->arena, n * sizeof *k.path),
             .by_address = arena_alloc(&c->arena, n * sizeof *k.by_address)};
  for (size_t i = 0; i < n; i++) k.by_address[i] = (FuncRef){m->funcs.items[i], i};
  qsort(k.by_address, n, sizeof *k.by_address, cmp_ref);
  for (int pass = 0; pass < 2; pass++)   /* kernels first, then the device functions left */
    for (size_t i = 0; i < n; i++) {
      const Function *f = m->funcs.items[i];
      if (k.mark[i] == UNSEEN && f->specs.len == 0 && (f->kind == FN_KERNEL) == (pass == 0)) walk_calls(&k, f);
    }
}

void analysis_check_untyped(Compilation *c, const Module *m, TypeTable *tt) {
  for (size_t i = 0; i < m->funcs.len; i++) {
    const Function *f = m->funcs.items[i];
    if (f->specs.len > 0 || f->instances.len > 0) continue;   /* typed: typeinfer checked it */
    Untyped u = {c, f, tt};
    AstWalker w = {check_stmt, check_expr, &u};
    ast_walk_block(&w, &f->body);
  }
  check_recursion(c, m);
}
