/* The checks that need no argument types, on the functions typeinfer left untyped: under
 * `check` (P2cTranslateOptions.skip_unsigned_kernels), kernels without a signature, and device
 * functions no typed code calls. Without them `check` said nothing about a kernel that returns
 * a value or calls a builtin with the wrong number of arguments until it was given a --sig.
 * Each check gives the code and message typeinfer gives for the same mistake in typed code:
 *   - a kernel's `return` with a value (E-kernel-return);
 *   - a builtin called with a number of arguments its row does not take (E-arity);
 *   - arithmetic on a string literal (E-operand).
 * What needs types (operand types, shapes' sizes, recursion through device functions) stays
 * with typeinfer: `check` says per kernel that its types were not checked (api/compiler.c). */
#include "analysis/walk.h"
#include "builtins/builtins.h"

typedef struct Untyped {
  Compilation *c;
  const Function *f;
} Untyped;

static bool check_stmt(Walker *w, const Stmt *s) {
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

static bool check_expr(Walker *w, const Expr *e) {
  Untyped *u = w->ctx;
  if (e->kind == EX_CALL && e->nkids > 0 && e->kids[0]->kind == EX_BUILTIN && e->kids[0]->builtin)
    check_arity(u->c, e);
  if (e->kind == EX_BINARY && (e->kids[0]->kind == EX_STR || e->kids[1]->kind == EX_STR))
    diag_error(u->c, e->loc, "E-operand", "unsupported operand type for %s: a string (unicode_type)",
               op_python_spelling(e->op));
  return true;
}

void analysis_check_untyped(Compilation *c, const Module *m) {
  for (size_t i = 0; i < m->funcs.len; i++) {
    const Function *f = m->funcs.items[i];
    if (f->specs.len > 0) continue;   /* typed: typeinfer checked it */
    Untyped u = {c, f};
    Walker w = {check_stmt, check_expr, &u};
    an_walk_block(&w, &f->body);
  }
}
