/* One variable per for loop where Python's name is only a loop's target (for v in ..., for v in
 * range(...)): Numba types each
 * assignment of a name on its own (SSA), so `for v in (a2, b2): ...` then `for v in (a4, b4):
 * ...` gives v a 2-lane vector type in the first loop and a 4-lane one in the second (Numba's
 * test_vector_type). pyk2cuda gives a variable one type, so such a name becomes one variable per
 * loop. This is safe when every mention of the name is inside one of these loops (its target,
 * body or else block), no loop binding it lies inside another, and nothing else binds it: each
 * read then sees the binding of its own loop. */
#include <string.h>

#include "frontend/frontend.h"

typedef void VarFn(int *var, void *ctx);

static void walk_block(Block *b, VarFn *fn, void *ctx);

static void walk_expr(Expr *e, VarFn *fn, void *ctx) {
  if (!e) return;
  if (e->kind == EX_VAR) fn(&e->var, ctx);
  for (int i = 0; i < e->nkids; i++) walk_expr(e->kids[i], fn, ctx);
  for (int i = 0; i < e->nkeywords; i++) walk_expr(e->keywords[i].value, fn, ctx);
}

/* Every variable mention of s: the fields a statement kind leaves unused are NULL or empty. */
static void walk_stmt(Stmt *s, VarFn *fn, void *ctx) {
  for (int i = 0; i < s->ntargets; i++) walk_expr(s->targets[i], fn, ctx);
  walk_expr(s->value, fn, ctx);
  walk_expr(s->cond, fn, ctx);
  walk_expr(s->start, fn, ctx);
  walk_expr(s->stop, fn, ctx);
  walk_expr(s->step, fn, ctx);
  if (s->kind == ST_FOR_RANGE || (s->kind == ST_FOR_ITER && s->var >= 0)) fn(&s->var, ctx);
  walk_block(&s->body, fn, ctx);
  walk_block(&s->orelse, fn, ctx);
}

static void walk_block(Block *b, VarFn *fn, void *ctx) {
  for (int i = 0; i < b->len; i++) walk_stmt(b->items[i], fn, ctx);
}

typedef struct Split {
  int var;
  int mentions;     /* of var anywhere */
  int in_loops;     /* of var inside the loops binding it (counted once each) */
  int loops;        /* loops binding var, not nested in one another */
  bool nested;      /* a loop binding var inside another */
  Stmt *found[64];
} Split;

static void count_var(int *var, void *ctx) {
  int *n = ctx;
  n[0] += *var == n[1];
}

static int mentions_in(Stmt *s, int var) {
  int n[2] = {0, var};
  walk_stmt(s, count_var, n);
  return n[0];
}

/* Whether loop s's iterable (evaluated before s binds its variable) or else block mentions var. */
static bool header_mentions(Stmt *s, int var) {
  int n[2] = {0, var};
  walk_expr(s->value, count_var, n);
  walk_expr(s->start, count_var, n);
  walk_expr(s->stop, count_var, n);
  walk_expr(s->step, count_var, n);
  walk_block(&s->orelse, count_var, n);   /* after no iteration, the else block sees the old value */
  return n[0] > 0;
}

/* The loops whose single-name target is sp->var (range loops too), outermost first; a loop
 * inside another, or one whose iterable reads the name, makes the split unsafe (`nested`). */
static void find_loops(Split *sp, Block *b, bool inside) {
  for (int i = 0; i < b->len; i++) {
    Stmt *s = b->items[i];
    bool binds = (s->kind == ST_FOR_ITER || s->kind == ST_FOR_RANGE) && s->var == sp->var;
    if (binds && (inside || header_mentions(s, sp->var))) sp->nested = true;
    if (binds && !inside) {
      if (sp->loops < 64) sp->found[sp->loops] = s;
      sp->loops++;
      sp->in_loops += mentions_in(s, sp->var);
    }
    find_loops(sp, &s->body, inside || binds);
    find_loops(sp, &s->orelse, inside || binds);
  }
}

static void renumber(int *var, void *ctx) {
  int *n = ctx;
  if (*var == n[0]) *var = n[1];
}

void frontend_split_loop_vars(Arena *a, Function *f) {
  int nvars = f->nvars;
  for (int v = f->nparams; v < nvars; v++) {
    Split sp = {.var = v};
    int n[2] = {0, v};
    walk_block(&f->body, count_var, n);
    sp.mentions = n[0];
    find_loops(&sp, &f->body, false);
    if (sp.loops < 2 || sp.loops > 64 || sp.nested || sp.in_loops != sp.mentions) continue;
    Var *vars = arena_alloc(a, sizeof *vars * (size_t)(f->nvars + sp.loops - 1));
    memcpy(vars, f->vars, sizeof *vars * (size_t)f->nvars);
    f->vars = vars;
    for (int k = 1; k < sp.loops; k++) {
      int to[2] = {v, f->nvars};
      f->vars[f->nvars] = f->vars[v];
      f->vars[f->nvars].loc = sp.found[k]->loc;
      f->nvars++;
      walk_stmt(sp.found[k], renumber, to);
    }
  }
}
