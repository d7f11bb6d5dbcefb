/* Lowering of statements: assignments (to names, subscripts and tuples of those), augmented
 * assignments, if/elif/else, while, for over range() (ST_FOR_RANGE) or another iterable
 * (ST_FOR_ITER), return, break, continue, pass, raise and assert (ST_RAISE) and expression
 * statements. Each unsupported form
 * is a diagnostic at its node. Expressions are lower_expr.c's. */
#include <string.h>

#include "frontend/lower.h"

/* ---- statements ---- */


static Stmt *new_stmt(Lowerer *L, StmtKind kind, TSNode n) {
  Stmt *s = ast_new_stmt(L->a, kind, node_loc(L, n));
  TSPoint end = ts_node_end_point(n);   /* the line of the statement's last character: */
  s->end_line = end.column == 0 && end.row > 0 ? end.row : end.row + 1;
  return s;
}

static bool is_assign_target(Expr *e) {
  if (e->kind == EX_VAR || e->kind == EX_INDEX || e->kind == EX_ATTR) return true;   /* r.b: a record field */
  if (e->kind != EX_TUPLE) return false;
  for (int i = 0; i < e->nkids; i++)
    if (!is_assign_target(e->kids[i])) return false;
  return true;
}

static Expr *lower_target(Lowerer *L, TSNode t) {
  Expr *e = lower_expr(L, t);
  if (e && !is_assign_target(e)) {
    diag_error(L->c, node_loc(L, t), "E-bad-target", "cannot assign to this expression");
    return NULL;
  }
  return e;
}

/* a = b = value: the CST nests assignments to the right. */
static Stmt *lower_assign(Lowerer *L, TSNode n, TSNode stmt_node) {
  Stmt *s = new_stmt(L, ST_ASSIGN, stmt_node);
  Expr *targets[32];
  int nt = 0;
  TSNode cur = n;
  for (;;) {
    if (!ts_node_is_null(lower_field(L, cur, F_type))) {
      lower_unsupported(L, cur, "an annotated assignment");
      return NULL;
    }
    if (nt == 32) {
      lower_unsupported(L, cur, "more than 32 chained assignment targets");
      return NULL;
    }
    targets[nt++] = lower_target(L, lower_field(L, cur, F_left));
    TSNode right = lower_field(L, cur, F_right);
    if (ts_node_is_null(right)) {
      lower_unsupported(L, cur, "a declaration without a value");
      return NULL;
    }
    if (!node_is(L, right, K_assignment)) {
      s->value = lower_expr(L, right);
      break;
    }
    cur = right;
  }
  for (int i = 0; i < nt; i++)
    if (!targets[i]) return NULL;
  s->targets = arena_dup(L->a, targets, sizeof *targets * (size_t)nt);
  s->ntargets = nt;
  return s->value ? s : NULL;
}

static const struct {
  const char *text;
  Op op;
} aug_ops[] = {{"+=", OP_ADD},      {"-=", OP_SUB},     {"*=", OP_MUL},     {"/=", OP_DIV},
               {"//=", OP_FLOORDIV}, {"%=", OP_MOD},     {"**=", OP_POW},    {"<<=", OP_LSHIFT},
               {">>=", OP_RSHIFT},  {"&=", OP_BITAND},  {"|=", OP_BITOR},   {"^=", OP_BITXOR}};

static Stmt *lower_augassign(Lowerer *L, TSNode n, TSNode stmt_node) {
  Stmt *s = new_stmt(L, ST_AUGASSIGN, stmt_node);
  TSNode opn = lower_field(L, n, F_operator);
  const char *op = ts_node_type(opn);
  size_t i = 0;
  while (i < sizeof aug_ops / sizeof aug_ops[0] && strcmp(aug_ops[i].text, op) != 0) i++;
  if (i == sizeof aug_ops / sizeof aug_ops[0]) {
    diag_error(L->c, node_loc(L, opn), "E-unsupported", "operator '%s' is not supported", op);
    return NULL;
  }
  s->op = aug_ops[i].op;
  /* x op= v becomes x = x op v: the value is a binary whose left operand is a second lowering
   * of the target (Python evaluates the target's subscript once; ours are side-effect free). */
  TSNode left = lower_field(L, n, F_left);
  Expr *t = lower_target(L, left);
  Expr *kids[2] = {lower_expr(L, left), lower_expr(L, lower_field(L, n, F_right))};
  if (!t || !kids[0] || !kids[1]) return NULL;
  s->value = ast_new_expr(L->a, EX_BINARY, node_loc(L, opn));
  s->value->op = s->op;
  s->value->kids = arena_dup(L->a, kids, sizeof kids);
  s->value->nkids = 2;
  if (t->kind == EX_TUPLE) {
    diag_error(L->c, t->loc, "E-bad-target", "augmented assignment to a tuple is not possible");
    return NULL;
  }
  s->targets = arena_alloc(L->a, sizeof *s->targets);
  s->targets[0] = t;
  s->ntargets = 1;
  return s;
}

static bool is_docstring_like(const Lowerer *L, TSNode e) {
  NodeKind k = node_kind(L, e);
  return k == K_string || k == K_concatenated_string;
}

static Stmt *lower_expression_statement(Lowerer *L, TSNode n) {
  TSNode e = ts_node_named_child(n, 0);
  if (node_is(L, e, K_assignment)) return lower_assign(L, e, n);
  if (node_is(L, e, K_augmented_assignment)) return lower_augassign(L, e, n);
  if (is_docstring_like(L, e)) return NULL;   /* docstrings and bare strings do nothing */
  if (ts_node_named_child_count(n) > 1) {
    lower_unsupported(L, n, "a tuple expression statement");
    return NULL;
  }
  Stmt *s = new_stmt(L, ST_EXPR, n);
  s->value = lower_expr(L, e);
  return s->value ? s : NULL;
}

static Stmt *lower_if_chain(Lowerer *L, TSNode cond, TSNode body, TSNode *alts, int nalts,
                            TSNode at) {
  Stmt *s = new_stmt(L, ST_IF, at);
  s->cond = lower_expr(L, cond);
  s->body = lower_block(L, body);
  if (nalts > 0 && node_is(L, alts[0], K_elif_clause)) {
    TSNode c = lower_field(L, alts[0], F_condition);
    TSNode b = lower_field(L, alts[0], F_consequence);
    Stmt *nested = lower_if_chain(L, c, b, alts + 1, nalts - 1, alts[0]);
    if (nested) {
      s->orelse.items = arena_alloc(L->a, sizeof(Stmt *));
      s->orelse.items[0] = nested;
      s->orelse.len = 1;
    }
  } else if (nalts > 0) {
    s->orelse = lower_block(L, lower_field(L, alts[0], F_body));
  }
  return s->cond ? s : NULL;
}

static Stmt *lower_if(Lowerer *L, TSNode n) {
  uint32_t count;
  TSNode *alts = node_named_children(L, n, &count);
  int nalts = 0, nelifs = 0;
  for (uint32_t i = 0; i < count; i++) {
    bool elif = node_is(L, alts[i], K_elif_clause);
    if (!elif && !node_is(L, alts[i], K_else_clause)) continue;
    /* Each elif nests one level deeper in the AST, and later phases recurse on nesting. */
    if (elif && ++nelifs > P2C_MAX_ELIFS) {
      diag_error(L->c, node_loc(L, alts[i]), "E-too-many", "more than %d elif clauses in one if statement",
                 P2C_MAX_ELIFS);
      return NULL;
    }
    alts[nalts++] = alts[i];
  }
  return lower_if_chain(L, lower_field(L, n, F_condition),
                        lower_field(L, n, F_consequence), alts, nalts, n);
}

static bool reject_loop_else(Lowerer *L, TSNode n) {
  TSNode alt = lower_field(L, n, F_alternative);
  if (ts_node_is_null(alt)) return false;
  lower_unsupported(L, alt, "'else' on a loop");
  return true;
}

static Block lower_loop_body(Lowerer *L, TSNode body) {
  L->loops++;
  Block b = lower_block(L, body);
  L->loops--;
  return b;
}

static Stmt *lower_while(Lowerer *L, TSNode n) {
  if (reject_loop_else(L, n)) return NULL;
  Stmt *s = new_stmt(L, ST_WHILE, n);
  s->cond = lower_expr(L, lower_field(L, n, F_condition));
  s->body = lower_loop_body(L, lower_field(L, n, F_body));
  return s->cond ? s : NULL;
}

/* A loop target: a name, or a tuple of targets (for i, (x, y) in enumerate(zip(a, b))). */
static bool is_loop_target(const Expr *e) {
  if (e->kind == EX_VAR) return true;
  if (e->kind != EX_TUPLE) return false;
  for (int i = 0; i < e->nkids; i++)
    if (!is_loop_target(e->kids[i])) return false;
  return true;
}

/* The iterable of `for x in literal_unroll(t)` (numba's): t, which the loop iterates as Numba
 * does (infer_unrolled checks that it is a tuple); NULL after an error. */
static Expr *lower_unrolled(Lowerer *L, TSNode call) {
  Expr *e = lower_expr(L, call);
  if (!e) return NULL;
  if (e->nkids != 2 || e->nkeywords) {
    diag_error(L->c, e->loc, "E-arity", "literal_unroll() takes one positional argument");
    return NULL;
  }
  return e->kids[1];
}

/* for x in range(...) / for x in array / for i, x in enumerate(...) / zip(...) /
 * literal_unroll(tuple) */
static Stmt *lower_for(Lowerer *L, TSNode n) {
  if (reject_loop_else(L, n)) return NULL;
  TSNode left = lower_field(L, n, F_left);
  TSNode right = lower_field(L, n, F_right);
  Stmt *s = new_stmt(L, ST_FOR_ITER, n);
  bool name = node_is(L, left, K_identifier);
  s->var = name ? find_var(L, node_str(L, left)) : -1;
  Resolved r;
  TSNode callee = lower_field(L, right, F_function);
  bool builtin = node_is(L, right, K_call) && resolve_dotted(L, callee, &r) && r.builtin;
  bool range = builtin && r.builtin->id == BI_RANGE;
  if (!range || !name) {
    Expr *target = lower_expr(L, left);
    if (!target) return NULL;
    if (!is_loop_target(target)) {
      lower_unsupported(L, left, "a loop target other than names and tuples of names");
      return NULL;
    }
    s->targets = arena_alloc(L->a, sizeof(Expr *));
    s->targets[0] = target;
    s->ntargets = 1;
  }
  if (range && name) {
    s->kind = ST_FOR_RANGE;
    Expr *call = lower_expr(L, right);
    if (!call) return NULL;
    int nargs = call->nkids - 1;
    if (nargs < 1 || nargs > 3 || call->nkeywords) {
      diag_error(L->c, call->loc, "E-arity", "range() takes 1 to 3 positional arguments");
      return NULL;
    }
    s->start = nargs >= 2 ? call->kids[1] : NULL;
    s->stop = nargs >= 2 ? call->kids[2] : call->kids[1];
    s->step = nargs == 3 ? call->kids[3] : NULL;
    s->parallel = builtin_has(r.builtin, BF_PARALLEL);
  } else {
    s->unroll = builtin && r.builtin->id == BI_LITERAL_UNROLL;
    s->value = s->unroll ? lower_unrolled(L, right) : lower_expr(L, right);
    if (!s->value) return NULL;
  }
  s->body = lower_loop_body(L, lower_field(L, n, F_body));
  return s;
}

/* return [EXPR]; `return None` is a bare return, as in Python (a kernel may write it). */
static Stmt *lower_return(Lowerer *L, TSNode n) {
  Stmt *s = new_stmt(L, ST_RETURN, n);
  TSNode kids[2];
  int k = node_kids(L, n, kids, 2);
  if (k == 0 || node_is(L, kids[0], K_none)) return s;
  s->value = lower_expr(L, kids[0]);
  return s->value ? s : NULL;
}

static Stmt *lower_jump(Lowerer *L, TSNode n, StmtKind kind) {
  if (L->loops == 0) {
    diag_error(L->c, node_loc(L, n), "E-outside-loop", "'%s' outside a loop",
               kind == ST_BREAK ? "break" : "continue");
    return NULL;
  }
  return new_stmt(L, kind, n);
}

/* ---- raise and assert ---- */

/* "ValueError: message" (Python's spelling of the exception), or the class alone without a
 * message; the message must be a string literal or a module-level str constant (Numba freezes
 * an exception's arguments). */
static const char *exception_text(Lowerer *L, const char *cls, TSNode msg, const char *what) {
  if (ts_node_is_null(msg)) return cls;
  if (node_is(L, msg, K_identifier)) {
    const char *name = node_str(L, msg);
    const char *text = find_var(L, name) < 0 && !find_const(L, name) ? strmap_get(&L->str_by_name, name) : NULL;
    if (text) return arena_printf(L->a, "%s: %s", cls, text);
  }
  if (!node_is(L, msg, K_string) && !node_is(L, msg, K_concatenated_string)) {
    lower_unsupported(L, msg, what);
    return NULL;
  }
  const char *s;
  size_t len;
  if (!lower_string_value(L, msg, &s, &len)) return NULL;
  return arena_printf(L->a, "%s: %.*s", cls, (int)strnlen(s, len), s);
}

/* assert cond[, "message"]: raises AssertionError("message") where cond is false. */
static Stmt *lower_assert(Lowerer *L, TSNode n) {
  TSNode kids[3];
  int k = node_kids(L, n, kids, 3);
  if (k < 1 || k > 2) return lower_unsupported(L, n, "this form of 'assert'"), NULL;
  Stmt *s = new_stmt(L, ST_RAISE, n);
  s->cond = lower_expr(L, kids[0]);
  s->exc = exception_text(L, "AssertionError", k == 2 ? kids[1] : (TSNode){0},
                          "an assert message other than a string literal");
  return s->cond && s->exc ? s : NULL;
}

/* raise Cls / raise Cls("message"), Cls one of Python's builtin exceptions or an exception class
 * of the module (lower_class.c). */
static Stmt *lower_raise(Lowerer *L, TSNode n) {
  if (!ts_node_is_null(ts_node_child_by_field_name(n, "cause", 5)))
    return lower_unsupported(L, n, "'raise ... from ...'"), NULL;
  TSNode kids[2];
  if (node_kids(L, n, kids, 2) != 1) return lower_unsupported(L, n, "a bare 'raise' (re-raising)"), NULL;
  TSNode e = kids[0], callee = e, msg = {0};
  if (node_is(L, e, K_call)) {
    callee = lower_field(L, e, F_function);
    TSNode args[2];
    int na = node_kids(L, lower_field(L, e, F_arguments), args, 2);
    if (na > 1) return lower_unsupported(L, e, "an exception with more than one argument"), NULL;
    if (na == 1) msg = args[0];
  }
  const char *cls = node_is(L, callee, K_identifier) ? node_str(L, callee) : NULL;
  if (!cls || !lower_is_exception_class(L, cls)) {
    diag_error(L->c, node_loc(L, callee), "E-unsupported", "a kernel can raise only exception classes: "
               "Python's builtin ones (ValueError, IndexError, AssertionError, ...) or a module-level "
               "class derived from one");
    return NULL;
  }
  Stmt *s = new_stmt(L, ST_RAISE, n);
  s->exc = exception_text(L, cls, msg, "an exception argument other than a string literal or a module-level str constant");
  return s->exc ? s : NULL;
}

static const struct {
  const char *type;
  const char *what;
} unsupported_stmts[] = {
    {"with_statement", "'with'"},          {"try_statement", "'try'"},
    {"global_statement", "'global'"},
    {"nonlocal_statement", "'nonlocal'"},  {"delete_statement", "'del'"},
    {"import_statement", "an import inside a function"},
    {"import_from_statement", "an import inside a function"},
    {"decorated_definition", "a decorated nested function (define it without a decorator)"},
    {"class_definition", "a class definition"}, {"match_statement", "'match'"},
    {"exec_statement", "'exec'"},          {"print_statement", "Python 2 'print'"},
    {"type_alias_statement", "'type'"},
};

static Stmt *lower_stmt(Lowerer *L, TSNode n) {
  switch (node_kind(L, n)) {
  case K_expression_statement: return lower_expression_statement(L, n);
  case K_if_statement: return lower_if(L, n);
  case K_while_statement: return lower_while(L, n);
  case K_for_statement: return lower_for(L, n);
  case K_return_statement: return lower_return(L, n);
  case K_pass_statement: return new_stmt(L, ST_PASS, n);
  case K_break_statement: return lower_jump(L, n, ST_BREAK);
  case K_continue_statement: return lower_jump(L, n, ST_CONTINUE);
  case K_assert_statement: return lower_assert(L, n);
  case K_raise_statement: return lower_raise(L, n);
  case K_function_definition: lower_nested_def(L, n); return NULL;   /* a function of the module */
  default: break;
  }
  const char *t = ts_node_type(n);
  for (size_t i = 0; i < sizeof unsupported_stmts / sizeof unsupported_stmts[0]; i++)
    if (strcmp(unsupported_stmts[i].type, t) == 0) {
      lower_unsupported(L, n, unsupported_stmts[i].what);
      return NULL;
    }
  diag_error(L->c, node_loc(L, n), "E-unsupported", "statement '%s' is not supported in %s", t, lower_context(L));
  return NULL;
}

/* A statement that was rejected still names the locals it would have assigned: they are
 * marked poisoned, so that their later uses do not add "used before it is assigned" to the
 * error already reported for that statement (defuse.c). Every local the statement names is
 * marked, which may also silence a real unbound read inside the rejected statement itself. */
static void poison_names(Lowerer *L, TSNode n, int depth) {
  if (depth > P2C_MAX_NESTING) return;
  if (node_is(L, n, K_identifier)) {
    int v = find_var(L, node_str(L, n));
    if (v >= 0) L->fn->vars[v].poisoned = true;
    return;
  }
  uint32_t count;
  TSNode *kids = node_named_children(L, n, &count);
  for (uint32_t i = 0; i < count; i++) poison_names(L, kids[i], depth + 1);
}

Block lower_block(Lowerer *L, TSNode block) {
  Block b = {0};
  if (ts_node_is_null(block) || !lower_enter(L, block)) return b;
  uint32_t count;
  TSNode *kids = node_named_children(L, block, &count);
  b.items = arena_alloc(L->a, sizeof(Stmt *) * (count ? count : 1));
  for (uint32_t i = 0; i < count; i++) {
    TSNode ch = kids[i];
    if (node_is_extra(L, ch)) continue;
    size_t errors = L->c->error_count;
    Stmt *s = lower_stmt(L, ch);
    if (s) b.items[b.len++] = s;
    else if (L->c->error_count > errors && L->fn) poison_names(L, ch, 0);
  }
  lower_leave(L);
  return b;
}
