/* Device functions with barriers inlined into a copy of their kernel, for the simulator's regions
 * (docs/simulator.md, "Regions"; regions.c plans the copy, codegen's emit_regions.c prints it).
 *
 * A region is a loop over the block's threads between two barriers, so a barrier must be a
 * statement of the kernel itself. A call of a device function that reaches one (Function
 * .uses_barrier), as a statement of its own or as the value of an assignment, is replaced in the
 * copy by the function's body: its parameters bound to the arguments (or, where the function never
 * rebinds one and the argument is a variable of the parameter's type or a shared or local array,
 * named by the argument itself), its variables new variables of the kernel (one for each shared
 * array of a function however often it is inlined: a device function's shared array is one per
 * block), a final `return v` an assignment to a new variable that the call's statement reads. The
 * body is inlined in turn. The copy runs as the original: the function's statements in order, on
 * values of the same types.
 *
 * What cannot be inlined keeps the kernel on the fibers, with the reason: a call inside another
 * expression, a return before the function's end, a raise or assert (the planner's refusal), a
 * grid group in a device function, an argument of a type that an assignment cannot bind, recursion
 * or calls deeper than INLINE_DEPTH, more than INLINE_CALLS calls inlined in all (the copy's
 * size). Only the simulator's block function is built from the copy; the kernel itself (CUDA C,
 * fibers) still calls the function. */
#include <string.h>

#include "analysis/walk.h"

enum { INLINE_DEPTH = 16, INLINE_CALLS = 256 };   /* nested calls; calls inlined in all */

typedef struct SharedCopy {
  const Function *g;   /* a device function specialization */
  int var;             /* its shared array */
  int copy;            /* the kernel's variable for it */
} SharedCopy;

typedef struct Inliner {
  Arena *a;
  VEC(Var) vars;            /* the copy's variables: the kernel's, then the inlined ones */
  VEC(SharedCopy) shared;
  VEC(const char *) names;  /* the functions inlined, each once, in order */
  bool checks_bounds;       /* an inlined function checks its indices */
  const char *refused;
  int depth;
  int calls;                /* inlined so far (a bound on the copy's size: each may inline more) */
} Inliner;

typedef VEC(Stmt *) StmtVec;

static void refuse(Inliner *in, const char *why) {
  if (!in->refused) in->refused = why;
}

/* A call of a device function that reaches a barrier (its own or a callee's). */
static bool is_barrier_call(const Expr *e) {
  return e && e->kind == EX_CALL && e->kids[0]->kind == EX_FUNC && e->func && e->func->uses_barrier;
}

static bool find_barrier_call(AstWalker *w, const Expr *e) {
  if (is_barrier_call(e)) *(bool *)w->ctx = true;
  return true;
}

static bool has_barrier_call(const Expr *e) {
  bool found = false;
  AstWalker w = {NULL, find_barrier_call, &found};
  if (e) ast_walk_expr(&w, e);
  return found;
}

static bool find_grid_call(AstWalker *w, const Expr *e) {
  if (e->kind == EX_CALL && e->kids[0]->kind == EX_BUILTIN && builtin_has(e->kids[0]->builtin, BF_GRID))
    *(bool *)w->ctx = true;
  return true;
}

/* Whether device function g uses the grid group (this_grid, its sync), here or in a callee. */
static bool uses_grid(const Function *g, int depth) {
  bool found = false;
  AstWalker w = {NULL, find_grid_call, &found};
  ast_walk_block(&w, &g->body);
  return found || depth >= INLINE_DEPTH;
}

/* A new variable of the copy, like v (never a parameter); returns its index. */
static int new_var(Inliner *in, const Var *v) {
  Var c = *v;
  c.is_param = false;
  vec_push(in->a, &in->vars, c);
  return (int)in->vars.len - 1;
}

static Expr *var_expr(Inliner *in, int var, Loc loc) {
  Expr *e = ast_new_expr(in->a, EX_VAR, loc);
  e->var = var;
  e->ty = in->vars.items[var].ty;
  return e;
}

/* target = value, at loc; value converted to the target's type where both are numbers. */
static Stmt *bind_stmt(Inliner *in, int var, Expr *value, Loc loc) {
  const Type *t = in->vars.items[var].ty;
  if (value->ty != t) {
    if (!type_is_number(value->ty) || !type_is_number(t)) {
      refuse(in, "a device function with a barrier whose argument or result an assignment cannot bind");
      return NULL;
    }
    Expr *cast = ast_new_expr(in->a, EX_CAST, loc);
    cast->ty = t;
    cast->kids = arena_alloc(in->a, sizeof(Expr *));
    cast->kids[0] = value;
    cast->nkids = 1;
    value = cast;
  }
  Stmt *s = ast_new_stmt(in->a, ST_ASSIGN, loc);
  s->targets = arena_alloc(in->a, sizeof(Expr *));
  s->targets[0] = var_expr(in, var, loc);
  s->ntargets = 1;
  s->value = value;
  return s;
}

/* ---- renaming the callee's variables ---- */

static void rename_block(const int *map, Inliner *in, Block *b);

static void rename_expr(const int *map, Inliner *in, Expr *e) {
  if (!e) return;
  if (e->kind == EX_VAR) {
    e->var = map[e->var];
    e->ty = in->vars.items[e->var].ty;
  }
  for (int i = 0; i < e->nkids; i++) rename_expr(map, in, e->kids[i]);
  for (int i = 0; i < e->nkeywords; i++) rename_expr(map, in, e->keywords[i].value);
}

static void rename_stmt(const int *map, Inliner *in, Stmt *s) {
  for (int i = 0; i < s->ntargets; i++) rename_expr(map, in, s->targets[i]);
  Expr *parts[] = {s->value, s->cond, s->start, s->stop, s->step};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) rename_expr(map, in, parts[i]);
  if ((s->kind == ST_FOR_RANGE || s->kind == ST_FOR_ITER) && s->var >= 0) s->var = map[s->var];
  rename_block(map, in, &s->body);
  rename_block(map, in, &s->orelse);
}

static void rename_block(const int *map, Inliner *in, Block *b) {
  for (int i = 0; i < b->len; i++) rename_stmt(map, in, b->items[i]);
}

/* ---- binding the parameters ---- */

static bool is_storage(const Type *t) {
  return t && t->kind == TY_ARRAY && t->fixed_shape;
}

/* Whether parameter j of g may be named by argument arg itself: g never rebinds it, and the
 * argument is a variable of the parameter's type, or a shared or local array (passed as a view
 * of its storage, which the inlined body then indexes in place). */
static bool names_argument(const Function *g, int j, const Expr *arg) {
  if (arg->kind != EX_VAR || an_assigns_var(&g->body, j)) return false;
  if (arg->ty == g->vars[j].ty) return true;
  const Type *p = g->vars[j].ty;
  return is_storage(arg->ty) && p->kind == TY_ARRAY && p->dtype == arg->ty->dtype && p->ndim == arg->ty->ndim;
}

/* The kernel's variable for variable j of g: a new one, or for a shared array the one every
 * inlining of g shares. */
static int copy_var(Inliner *in, const Function *g, int j) {
  const Type *t = g->vars[j].ty;
  if (!(is_storage(t) && t->space == MEM_SHARED)) return new_var(in, &g->vars[j]);
  for (size_t i = 0; i < in->shared.len; i++)
    if (in->shared.items[i].g == g && in->shared.items[i].var == j) return in->shared.items[i].copy;
  SharedCopy sc = {g, j, new_var(in, &g->vars[j])};
  vec_push(in->a, &in->shared, sc);
  return sc.copy;
}

/* The map from g's variables to the kernel's; the parameters' bindings go to out. */
static int *bind_params(Inliner *in, const Function *g, const Expr *call, StmtVec *out) {
  int *map = arena_alloc(in->a, sizeof(int) * (size_t)(g->nvars ? g->nvars : 1));
  for (int j = 0; j < g->nparams; j++) {
    Expr *arg = call->kids[1 + j];
    if (names_argument(g, j, arg)) {
      map[j] = arg->var;
      continue;
    }
    if (is_storage(arg->ty) || arg->ty->kind == TY_RECORD) {
      refuse(in, "a device function with a barrier whose argument an assignment cannot bind");
      return map;
    }
    map[j] = new_var(in, &g->vars[j]);
    Stmt *s = bind_stmt(in, map[j], arg, arg->loc);
    if (s) vec_push(in->a, out, s);
  }
  for (int j = g->nparams; j < g->nvars; j++) map[j] = copy_var(in, g, j);
  return map;
}

/* ---- inlining ---- */

static Block inline_block(Inliner *in, Block b);

static void note_name(Inliner *in, const Function *g) {
  const char *name = g->generic ? g->generic->name : g->name;
  for (size_t i = 0; i < in->names.len; i++)
    if (strcmp(in->names.items[i], name) == 0) return;
  vec_push(in->a, &in->names, name);
}

/* Whether block b returns anywhere but in its last statement (top is g's body). */
static bool returns_early(const Block *b, bool top) {
  for (int i = 0; i < b->len; i++) {
    const Stmt *s = b->items[i];
    if (s->kind == ST_RETURN && !(top && i == b->len - 1)) return true;
    if (returns_early(&s->body, false) || returns_early(&s->orelse, false)) return true;
  }
  return false;
}

/* The statements of call `call` (to out); returns the variable holding its result, or -1. */
static int expand_call(Inliner *in, const Expr *call, StmtVec *out) {
  const Function *g = call->func;
  if (in->depth >= INLINE_DEPTH) refuse(in, "device functions with barriers nested too deep (or recursive)");
  if (++in->calls > INLINE_CALLS) refuse(in, "more than 256 calls of device functions with barriers to inline");
  if (call->nkids - 1 != g->nparams || call->nkeywords) refuse(in, "a device function call bound in an unexpected way");
  if (uses_grid(g, in->depth)) refuse(in, "a grid group in a device function");
  if (returns_early(&g->body, true)) refuse(in, "a return before the end of a device function with a barrier");
  if (in->refused) return -1;
  note_name(in, g);
  in->checks_bounds |= g->checks_bounds;
  int *map = bind_params(in, g, call, out);
  if (in->refused) return -1;
  Function *body = ast_clone_function(in->a, g);
  rename_block(map, in, &body->body);
  Block b = body->body;
  int result = -1;
  if (b.len && b.items[b.len - 1]->kind == ST_RETURN) {
    Stmt *ret = b.items[--b.len];
    if (ret->value && call->ty && call->ty->kind != TY_VOID) {
      Var rv = {.name = "result", .loc = call->loc, .ty = call->ty, .ty_loc = call->loc};
      result = new_var(in, &rv);
      Stmt *s = bind_stmt(in, result, ret->value, ret->loc);
      if (!s) return -1;
      b.items[b.len++] = s;   /* in place of the return: the same slot of the copied array */
    }
  }
  in->depth++;
  b = inline_block(in, b);
  in->depth--;
  for (int i = 0; i < b.len; i++) vec_push(in->a, out, b.items[i]);
  return result;
}

/* The call a statement's value is, under its conversions: where its result goes (*slot). */
static Expr **call_slot(Stmt *s) {
  Expr **slot = &s->value;
  while (*slot && (*slot)->kind == EX_CAST) slot = &(*slot)->kids[0];
  return *slot && is_barrier_call(*slot) ? slot : NULL;
}

/* Statement s (a copy of the kernel's or of an inlined body's) to out, its calls of device
 * functions with barriers inlined. */
static void inline_stmt(Inliner *in, Stmt *s, StmtVec *out) {
  Expr **slot = (s->kind == ST_EXPR || (s->kind == ST_ASSIGN && s->ntargets == 1)) ? call_slot(s) : NULL;
  if (slot) {
    bool keep = s->kind == ST_ASSIGN || *slot != s->value;   /* its result is used */
    int result = expand_call(in, *slot, out);
    if (in->refused || !keep) return;
    if (result < 0) {
      refuse(in, "a device function with a barrier whose result is used but not returned at its end");
      return;
    }
    *slot = var_expr(in, result, (*slot)->loc);
    vec_push(in->a, out, s);
    return;
  }
  for (int i = 0; i < s->ntargets; i++)
    if (has_barrier_call(s->targets[i])) refuse(in, "a device function with a barrier called inside an expression");
  const Expr *parts[] = {s->value, s->cond, s->start, s->stop, s->step};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
    if (has_barrier_call(parts[i])) refuse(in, "a device function with a barrier called inside an expression");
  s->body = inline_block(in, s->body);
  s->orelse = inline_block(in, s->orelse);
  vec_push(in->a, out, s);
}

static Block inline_block(Inliner *in, Block b) {
  StmtVec out = {0};
  for (int i = 0; i < b.len && !in->refused; i++) inline_stmt(in, b.items[i], &out);
  return (Block){out.items, (int)out.len};
}

Function *an_inline_barriers(const Function *f, Arena *a, const char **inlined, const char **why) {
  Inliner in = {.a = a};
  Function *k = ast_clone_function(a, f);
  for (int i = 0; i < f->nvars; i++) vec_push(a, &in.vars, f->vars[i]);
  k->body = inline_block(&in, k->body);
  *why = in.refused;
  if (in.refused) return NULL;
  k->vars = in.vars.items;
  k->nvars = (int)in.vars.len;
  k->checks_bounds |= in.checks_bounds;
  StrBuf sb;
  sb_init(&sb, a);
  for (size_t i = 0; i < in.names.len; i++) sb_printf(&sb, "%s%s", i ? ", " : "", in.names.items[i]);
  *inlined = sb_str(&sb);
  return k;
}
