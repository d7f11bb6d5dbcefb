/* The one walker over the AST, for every phase after the frontend. A walk's callbacks see each
 * node before its parts; the walker's switches name every statement and expression kind without
 * a default, so the compiler points at them when a kind is added. */
#ifndef P2C_FRONTEND_AST_WALK_H
#define P2C_FRONTEND_AST_WALK_H

#include <stdbool.h>

#include "frontend/ast.h"

typedef struct AstWalker AstWalker;
struct AstWalker {
  /* Called on each statement before its parts; returning false skips them (and its blocks). */
  bool (*stmt)(AstWalker *w, const Stmt *s);
  /* Called on each expression before its children; returning false skips them. NULL: the
   * walk does not enter expressions at all. */
  bool (*expr)(AstWalker *w, const Expr *e);
  void *ctx;
};

/* Walks every statement of b in order, and in each: its expressions (value, condition, range
 * bounds, targets), then its body, then its else block. */
void ast_walk_block(AstWalker *w, const Block *b);
/* Walks e and its children (operands, arguments, then keyword values) in order. */
void ast_walk_expr(AstWalker *w, const Expr *e);

#endif
