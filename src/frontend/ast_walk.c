/* The one walker over the AST (ast_walk.h): every statement and expression, in source order.
 * Read-only; the phases after the frontend build their walks on it (analysis's facts, typeinfer's
 * signature hint). */
#include "frontend/ast_walk.h"

static void walk_stmt(AstWalker *w, const Stmt *s);

void ast_walk_block(AstWalker *w, const Block *b) {
  for (int i = 0; i < b->len; i++) walk_stmt(w, b->items[i]);
}

static void walk_opt(AstWalker *w, const Expr *e) {
  if (e && w->expr) ast_walk_expr(w, e);
}

static void walk_targets(AstWalker *w, const Stmt *s) {
  for (int k = 0; k < s->ntargets && w->expr; k++) ast_walk_expr(w, s->targets[k]);
}

/* Statement s: the expressions each kind has, then its blocks. */
static void walk_stmt(AstWalker *w, const Stmt *s) {
  if (w->stmt && !w->stmt(w, s)) return;
  switch (s->kind) {
  case ST_EXPR:
  case ST_RETURN: walk_opt(w, s->value); break;
  case ST_ASSIGN:
  case ST_AUGASSIGN:
  case ST_FOR_ITER:
    walk_opt(w, s->value);
    walk_targets(w, s);
    break;
  case ST_IF:
  case ST_WHILE:
  case ST_RAISE: walk_opt(w, s->cond); break;
  case ST_FOR_RANGE:
    walk_opt(w, s->start);
    walk_opt(w, s->stop);
    walk_opt(w, s->step);
    break;
  case ST_BREAK:
  case ST_CONTINUE:
  case ST_PASS: break;
  }
  ast_walk_block(w, &s->body);
  ast_walk_block(w, &s->orelse);
}

/* Expression e: its children, then a call's keyword values. */
void ast_walk_expr(AstWalker *w, const Expr *e) {
  if (!w->expr(w, e)) return;
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT:
  case EX_IMAG:
  case EX_BOOL:
  case EX_STR:
  case EX_NONE:
  case EX_VAR:
  case EX_CONST:
  case EX_FUNC:
  case EX_BUILTIN:
  case EX_TEMP: return;
  case EX_CALL:
    for (int i = 0; i < e->nkids; i++) ast_walk_expr(w, e->kids[i]);
    for (int i = 0; i < e->nkeywords; i++) ast_walk_expr(w, e->keywords[i].value);
    return;
  case EX_UNARY:
  case EX_NOT:
  case EX_BINARY:
  case EX_COMPARE:
  case EX_BOOLOP:
  case EX_IFEXP:
  case EX_ATTR:
  case EX_INDEX:
  case EX_TUPLE:
  case EX_SLICE:
  case EX_CAST:
    for (int i = 0; i < e->nkids; i++) ast_walk_expr(w, e->kids[i]);
    return;
  }
}

