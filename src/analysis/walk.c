/* The questions about variables that several analyses ask: which statements bind a variable,
 * whether a block rebinds it, whether an expression reads it. The walker they build on is the
 * AST's own (frontend/ast_walk.h). */
#include "analysis/walk.h"

/* ---- variables ---- */

bool an_reads_var(const Expr *e, int var) {
  if (e->kind == EX_VAR && e->var == var) return true;
  for (int i = 0; i < e->nkids; i++)
    if (an_reads_var(e->kids[i], var)) return true;
  return false;
}

bool an_target_names(const Expr *t, int var) {
  if (t->kind == EX_VAR) return t->var == var;
  for (int i = 0; t->kind == EX_TUPLE && i < t->nkids; i++)
    if (an_target_names(t->kids[i], var)) return true;
  return false;
}

/* What assignment `target = value` gives var: the matching element of a tuple literal, else the
 * whole value; NULL when target does not bind var. */
static const Expr *bound_value(const Expr *target, const Expr *value, int var) {
  if (target->kind == EX_VAR) return target->var == var ? value : NULL;
  for (int k = 0; target->kind == EX_TUPLE && k < target->nkids; k++) {
    bool literal = value->kind == EX_TUPLE && value->nkids == target->nkids;
    const Expr *v = literal ? bound_value(target->kids[k], value->kids[k], var)
                            : an_target_names(target->kids[k], var) ? value : NULL;
    if (v) return v;
  }
  return NULL;
}

/* Whether statement s itself (not its blocks) binds var; *value gets what an assignment gives
 * it (see an_each_binding). A switch without default: the compiler names a new kind here. */
static bool stmt_binds(const Stmt *s, int var, const Expr **value) {
  *value = NULL;
  switch (s->kind) {
  case ST_ASSIGN:
    for (int k = 0; k < s->ntargets && !*value; k++) *value = bound_value(s->targets[k], s->value, var);
    return *value != NULL;
  case ST_AUGASSIGN:
    if (an_target_names(s->targets[0], var)) *value = s->value;
    return *value != NULL;
  case ST_FOR_RANGE: return s->var == var;
  case ST_FOR_ITER: return an_target_names(s->targets[0], var);
  case ST_EXPR:
  case ST_IF:
  case ST_WHILE:
  case ST_BREAK:
  case ST_CONTINUE:
  case ST_PASS:
  case ST_RETURN:
  case ST_RAISE: return false;
  }
  return false;
}

bool an_each_binding(const Block *b, int var, BindingVisit visit, void *ctx) {
  for (int i = 0; i < b->len; i++) {
    const Stmt *s = b->items[i];
    const Expr *value;
    if (stmt_binds(s, var, &value) && visit(s, value, ctx)) return true;
    if (an_each_binding(&s->body, var, visit, ctx) || an_each_binding(&s->orelse, var, visit, ctx)) return true;
  }
  return false;
}

bool an_assigns_var(const Block *b, int var) {
  for (int i = 0; i < b->len; i++) {
    const Stmt *s = b->items[i];
    const Expr *value;
    if (stmt_binds(s, var, &value)) return true;
    if (an_assigns_var(&s->body, var) || an_assigns_var(&s->orelse, var)) return true;
  }
  return false;
}

/* Whether statement s itself (not its blocks) reads var: its expressions, and the subscripts
 * of its targets (a target name is written, not read). */
static bool stmt_reads(const Stmt *s, int var) {
  switch (s->kind) {
  case ST_ASSIGN:
  case ST_AUGASSIGN:
  case ST_FOR_ITER:
    for (int k = 0; k < s->ntargets; k++)
      if (expr_is_store(s->targets[k]) && an_reads_var(s->targets[k], var)) return true;
    return an_reads_var(s->value, var);
  case ST_EXPR: return an_reads_var(s->value, var);
  case ST_RETURN: return s->value && an_reads_var(s->value, var);
  case ST_IF:
  case ST_WHILE: return an_reads_var(s->cond, var);
  case ST_RAISE: return s->cond && an_reads_var(s->cond, var);
  case ST_FOR_RANGE:
    return (s->start && an_reads_var(s->start, var)) || an_reads_var(s->stop, var) ||
           (s->step && an_reads_var(s->step, var));
  case ST_BREAK:
  case ST_CONTINUE:
  case ST_PASS: return false;
  }
  return false;
}

bool an_used_outside(const Block *b, const Stmt *loop, int var) {
  for (int i = 0; i < b->len; i++) {
    const Stmt *s = b->items[i];
    if (s == loop) continue;
    if (stmt_reads(s, var)) return true;
    if (an_used_outside(&s->body, loop, var) || an_used_outside(&s->orelse, loop, var)) return true;
  }
  return false;
}
