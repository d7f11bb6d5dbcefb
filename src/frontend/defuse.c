/* A use of a local variable that no assignment can reach, as Numba treats it (it compiles
 * bytecode, so order in the source matters):
 *  - where no assignment of the name comes before it in the source, Numba fails to compile
 *    ("Variable 'y' is not defined"): an error here too (`E-unbound`);
 *  - where one does (on another path: `c = 0` in one branch, `c += 1` in the other), Numba
 *    compiles it, the value undefined, and warns with ALWAYS_WARN_UNINIT_VAR ("Detected
 *    uninitialized variable c"): a warning here (`W-uninit`), and the variable reads as 0
 *    (locals are zero-initialized), as Python would have raised UnboundLocalError there.
 * The check walks the structured body once with the set of variables possibly assigned so
 * far: a branch merges the sets of its arms; a loop body starts with everything the loop
 * assigns, since an earlier iteration may have run. A variable assigned on only some paths is
 * accepted: it reads as 0 on the others (docs/semantics.md). Webs (webs.c) may have cut one
 * name into several variables: the source order is the name's. A variable named by a rejected
 * statement is poisoned (lower_stmt.c): its error was reported there. */
#include <string.h>

#include "frontend/frontend.h"
#include "util/strmap.h"

typedef struct DefUse {
  Compilation *c;
  const Function *fn;
  bool *reported;
  int *name_of;            /* per variable: the first variable of its Python name */
  bool *seen;              /* per name (name_of): an assignment of it came before in the source */
} DefUse;

static void check_expr(DefUse *d, const Expr *e, const bool *assigned) {
  if (!e) return;
  if (e->kind == EX_VAR && !assigned[e->var] && !d->reported[e->var] && !d->fn->vars[e->var].poisoned) {
    d->reported[e->var] = true;
    const char *name = d->fn->vars[e->var].name;
    if (d->seen[d->name_of[e->var]])
      diag_warning(d->c, e->loc, "W-uninit", "Detected uninitialized variable %s: no assignment reaches this "
                   "use (Python would raise UnboundLocalError here); it reads as 0", name);
    else
      diag_error(d->c, e->loc, "E-unbound", "'%s' is used before it is assigned", name);
  }
  for (int i = 0; i < e->nkids; i++) check_expr(d, e->kids[i], assigned);
  for (int i = 0; i < e->nkeywords; i++) check_expr(d, e->keywords[i].value, assigned);
}

static void mark_target(const Expr *t, bool *assigned) {
  if (t->kind == EX_VAR) assigned[t->var] = true;
  if (t->kind == EX_TUPLE)
    for (int i = 0; i < t->nkids; i++) mark_target(t->kids[i], assigned);
}

/* The variables statement s binds itself (not in its blocks); an augmented assignment only
 * with `aug` (it binds nothing new: a loop's earlier iterations do not make `x += 1` bind x).
 * A switch without default, so that the compiler names a new statement kind here. */
static void mark_stmt(const Stmt *s, bool *assigned, bool aug) {
  switch (s->kind) {
  case ST_AUGASSIGN:
    if (!aug) break;
    /* fall through */
  case ST_ASSIGN:
    for (int k = 0; k < s->ntargets; k++) mark_target(s->targets[k], assigned);
    break;
  case ST_FOR_RANGE: assigned[s->var] = true; break;
  case ST_FOR_ITER: mark_target(s->targets[0], assigned); break;
  case ST_EXPR:
  case ST_IF:
  case ST_WHILE:
  case ST_BREAK:
  case ST_CONTINUE:
  case ST_PASS:
  case ST_RETURN:
  case ST_RAISE: break;
  }
}

static void mark_block(const Block *b, bool *assigned) {
  for (int i = 0; i < b->len; i++) {
    mark_stmt(b->items[i], assigned, false);
    mark_block(&b->items[i]->body, assigned);
    mark_block(&b->items[i]->orelse, assigned);
  }
}

static void check_block(DefUse *d, const Block *b, bool *assigned);

static void check_target_reads(DefUse *d, const Expr *t, const bool *assigned) {
  if (expr_is_store(t)) check_expr(d, t, assigned);
  if (t->kind == EX_TUPLE)
    for (int i = 0; i < t->nkids; i++) check_target_reads(d, t->kids[i], assigned);
}

/* The names statement s binds itself come before what follows it in the source. */
static void see_target(DefUse *d, const Expr *t) {
  if (t->kind == EX_VAR) d->seen[d->name_of[t->var]] = true;
  if (t->kind == EX_TUPLE)
    for (int i = 0; i < t->nkids; i++) see_target(d, t->kids[i]);
}

static void mark_seen(DefUse *d, const Stmt *s) {
  if (s->kind == ST_FOR_RANGE) d->seen[d->name_of[s->var]] = true;
  if (s->kind == ST_ASSIGN || s->kind == ST_AUGASSIGN || s->kind == ST_FOR_ITER)
    for (int k = 0; k < s->ntargets; k++) see_target(d, s->targets[k]);
}

static void check_stmt(DefUse *d, const Stmt *s, bool *assigned) {
  size_t n = (size_t)d->fn->nvars;
  const Expr *reads[] = {s->cond, s->start, s->stop, s->step, s->value};
  for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) check_expr(d, reads[i], assigned);
  for (int k = 0; k < s->ntargets; k++) check_target_reads(d, s->targets[k], assigned);
  mark_seen(d, s);
  switch (s->kind) {
  case ST_ASSIGN:
  case ST_AUGASSIGN: mark_stmt(s, assigned, true); break;
  case ST_IF: {
    bool *other = arena_dup(&d->c->arena, assigned, n ? n : 1);
    check_block(d, &s->body, assigned);
    check_block(d, &s->orelse, other);
    for (size_t i = 0; i < n; i++) assigned[i] |= other[i];
    break;
  }
  case ST_WHILE:
  case ST_FOR_RANGE:
  case ST_FOR_ITER:
    mark_stmt(s, assigned, true);
    mark_block(&s->body, assigned);
    check_block(d, &s->body, assigned);
    break;
  case ST_EXPR:
  case ST_BREAK:
  case ST_CONTINUE:
  case ST_PASS:
  case ST_RETURN:
  case ST_RAISE: break;
  }
}

static void check_block(DefUse *d, const Block *b, bool *assigned) {
  for (int i = 0; i < b->len; i++) check_stmt(d, b->items[i], assigned);
}

void defuse_check(Compilation *c, const Function *f) {
  size_t n = (size_t)f->nvars;
  DefUse d = {c, f, arena_alloc(&c->arena, n ? n : 1), arena_alloc(&c->arena, sizeof(int) * (n ? n : 1)),
              arena_alloc(&c->arena, n ? n : 1)};
  StrMap first;
  strmap_init(&first, &c->arena);
  for (int v = 0; v < f->nvars; v++) {
    if (!strmap_has(&first, f->vars[v].name)) strmap_put(&first, f->vars[v].name, (void *)(intptr_t)(v + 1));
    d.name_of[v] = (int)(intptr_t)strmap_get(&first, f->vars[v].name) - 1;
  }
  bool *assigned = arena_alloc(&c->arena, n ? n : 1);
  for (int i = 0; i < f->nparams; i++) assigned[i] = true;
  check_block(&d, &f->body, assigned);
}
