/* AST construction, deep copies for specialization, and the printable form (--dump=ast,
 * --dump=types): one node per line, indented by depth, with its type once typeinfer ran. */
#include "frontend/ast.h"

#include <math.h>

#include <string.h>

Expr *ast_new_expr(Arena *a, ExprKind kind, Loc loc) {
  Expr *e = arena_alloc(a, sizeof *e);
  e->kind = kind;
  e->loc = loc;
  return e;
}

Expr *ast_new_node(Arena *a, ExprKind kind, Loc loc, int nkids) {
  Expr *e = ast_new_expr(a, kind, loc);
  e->nkids = nkids;
  e->kids = nkids ? arena_alloc(a, sizeof *e->kids * (size_t)nkids) : NULL;
  return e;
}

Expr *ast_new_var(Arena *a, int var, Loc loc) {
  Expr *e = ast_new_node(a, EX_VAR, loc, 0);
  e->var = var;
  return e;
}

Expr *ast_new_int(Arena *a, int64_t v, Loc loc) {
  Expr *e = ast_new_node(a, EX_INT, loc, 0);
  e->ival = v;
  return e;
}

Stmt *ast_new_stmt(Arena *a, StmtKind kind, Loc loc) {
  Stmt *s = arena_alloc(a, sizeof *s);
  s->kind = kind;
  s->loc = loc;
  return s;
}

/* ---- cloning ---- */

static Expr *clone_expr(Arena *a, const Expr *e);

static Expr **clone_exprs(Arena *a, Expr *const *v, int n) {
  if (!v) return NULL;
  Expr **out = arena_alloc(a, sizeof *out * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) out[i] = clone_expr(a, v[i]);
  return out;
}

Expr *ast_clone_expr(Arena *a, const Expr *e) { return clone_expr(a, e); }

static Expr *clone_expr(Arena *a, const Expr *e) {
  if (!e) return NULL;
  Expr *c = arena_dup(a, e, sizeof *e);
  c->kids = clone_exprs(a, e->kids, e->nkids);
  if (e->nkeywords) {
    c->keywords = arena_dup(a, e->keywords, sizeof *e->keywords * (size_t)e->nkeywords);
    for (int i = 0; i < e->nkeywords; i++) c->keywords[i].value = clone_expr(a, e->keywords[i].value);
  }
  return c;
}

static Block clone_block(Arena *a, Block b);

static Stmt *clone_stmt(Arena *a, const Stmt *s) {
  Stmt *c = arena_dup(a, s, sizeof *s);
  c->targets = clone_exprs(a, s->targets, s->ntargets);
  c->value = clone_expr(a, s->value);
  c->cond = clone_expr(a, s->cond);
  c->start = clone_expr(a, s->start);
  c->stop = clone_expr(a, s->stop);
  c->step = clone_expr(a, s->step);
  c->body = clone_block(a, s->body);
  c->orelse = clone_block(a, s->orelse);
  return c;
}

static Block clone_block(Arena *a, Block b) {
  Block c = {arena_alloc(a, sizeof(Stmt *) * (size_t)(b.len ? b.len : 1)), b.len};
  for (int i = 0; i < b.len; i++) c.items[i] = clone_stmt(a, b.items[i]);
  return c;
}

Block ast_clone_block(Arena *a, Block b) { return clone_block(a, b); }

Function *ast_clone_function(Arena *a, const Function *f) {
  Function *c = arena_dup(a, f, sizeof *f);
  /* A function without variables (a kernel with no parameters) has no vars array to copy. */
  c->vars = f->nvars ? arena_dup(a, f->vars, sizeof *f->vars * (size_t)f->nvars)
                     : arena_alloc(a, sizeof *f->vars);
  c->body = clone_block(a, f->body);
  memset(&c->specs, 0, sizeof c->specs);
  memset(&c->instances, 0, sizeof c->instances);
  c->const_params = NULL;
  return c;
}

Expr *ast_operator_call(Arena *a, const Expr *call) {
  Op op = (Op)call->kids[0]->builtin->op;
  Expr *e = ast_new_expr(a, op >= OP_LT ? EX_COMPARE : EX_BINARY, call->loc);
  e->kids = arena_dup(a, call->kids + 1, sizeof *e->kids * 2);
  e->nkids = 2;
  if (op >= OP_LT) {
    e->cmps = arena_alloc(a, sizeof *e->cmps);
    e->cmps[0] = op;
  } else {
    e->op = op;
  }
  return e;
}

/* ---- printing ---- */

static const char *const expr_names[] = {
    [EX_INT] = "Int",       [EX_FLOAT] = "Float",   [EX_BOOL] = "Bool",   [EX_STR] = "Str", [EX_NONE] = "None",
    [EX_VAR] = "Var",       [EX_CONST] = "Const",   [EX_FUNC] = "Func",   [EX_BUILTIN] = "Builtin",
    [EX_UNARY] = "Unary",   [EX_NOT] = "Not",       [EX_BINARY] = "Binary", [EX_COMPARE] = "Compare",
    [EX_BOOLOP] = "BoolOp", [EX_IFEXP] = "IfExp",   [EX_CALL] = "Call",   [EX_ATTR] = "Attr",
    [EX_INDEX] = "Index",   [EX_TUPLE] = "Tuple",   [EX_CAST] = "Cast",
    [EX_TEMP] = "Temp",     [EX_SLICE] = "Slice",   [EX_IMAG] = "Imag",
};

static const char *const stmt_names[] = {
    [ST_EXPR] = "Expr",         [ST_ASSIGN] = "Assign",   [ST_AUGASSIGN] = "AugAssign",
    [ST_IF] = "If",             [ST_WHILE] = "While",     [ST_FOR_RANGE] = "ForRange",
    [ST_FOR_ITER] = "ForIter",  [ST_BREAK] = "Break",     [ST_CONTINUE] = "Continue",
    [ST_PASS] = "Pass",         [ST_RETURN] = "Return",   [ST_RAISE] = "Raise",
};

typedef struct Printer {
  StrBuf *sb;
  const Function *fn;
} Printer;

static void dump_expr(Printer *p, const Expr *e, int depth);

static void dump_expr_head(Printer *p, const Expr *e) {
  StrBuf *sb = p->sb;
  sb_printf(sb, "%s", expr_names[e->kind]);
  switch (e->kind) {
  case EX_INT:
    if (e->is_unsigned_literal) sb_printf(sb, " %llu", (unsigned long long)e->uval);
    else sb_printf(sb, " %lld", (long long)e->ival);
    break;
  case EX_FLOAT: sb_printf(sb, " %.17g", e->fval); break;
  case EX_IMAG:   /* a literal as Python writes it; a folded complex with its real part */
    if (e->real == 0 && !signbit(e->real)) sb_printf(sb, " %.17gj", e->fval);
    else sb_printf(sb, " (%.17g%+.17gj)", e->real, e->fval);
    break;
  case EX_BOOL: sb_puts(sb, e->ival ? " True" : " False"); break;
  case EX_STR: sb_printf(sb, " (%zu bytes)", e->str_len); break;
  case EX_VAR: sb_printf(sb, " %s", p->fn->vars[e->var].name); break;
  case EX_CONST: sb_printf(sb, " %s", e->konst->name); break;
  case EX_FUNC: sb_printf(sb, " %s", e->func->name); break;
  case EX_BUILTIN: sb_printf(sb, " %s", builtin_display_name(e->builtin)); break;
  case EX_ATTR: sb_printf(sb, " .%s", e->str); break;
  case EX_UNARY:
  case EX_BINARY:
  case EX_BOOLOP: sb_printf(sb, " %s", op_python_spelling(e->op)); break;
  case EX_COMPARE:
    for (int i = 0; i + 1 < e->nkids; i++) sb_printf(sb, " %s", op_python_spelling(e->cmps[i]));
    break;
  default: break;
  }
  sb_printf(sb, " @%u:%u", e->loc.line, e->loc.col);
  if (e->ty) sb_printf(sb, " : %s", e->ty->name);
}

static void dump_expr(Printer *p, const Expr *e, int depth) {
  sb_indent(p->sb, depth * 2);
  dump_expr_head(p, e);
  sb_putc(p->sb, '\n');
  for (int i = 0; i < e->nkids; i++) dump_expr(p, e->kids[i], depth + 1);
  for (int i = 0; i < e->nkeywords; i++) {
    sb_indent(p->sb, depth * 2 + 2);
    sb_printf(p->sb, "%s=\n", e->keywords[i].name);
    dump_expr(p, e->keywords[i].value, depth + 2);
  }
}

static void dump_block(Printer *p, const Block *b, int depth);

static void dump_stmt(Printer *p, const Stmt *s, int depth) {
  sb_indent(p->sb, depth * 2);
  sb_printf(p->sb, "%s", stmt_names[s->kind]);
  if (s->kind == ST_AUGASSIGN) sb_printf(p->sb, " %s=", op_python_spelling(s->op));
  if (s->kind == ST_FOR_RANGE) sb_printf(p->sb, " %s", p->fn->vars[s->var].name);
  if (s->kind == ST_RAISE) sb_printf(p->sb, " %s", s->exc);
  sb_printf(p->sb, " @%u:%u\n", s->loc.line, s->loc.col);
  for (int i = 0; i < s->ntargets; i++) dump_expr(p, s->targets[i], depth + 1);
  const Expr *parts[] = {s->cond, s->start, s->stop, s->step, s->value};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    if (parts[i]) dump_expr(p, parts[i], depth + 1);
  dump_block(p, &s->body, depth + 1);
  if (s->orelse.len) {
    sb_indent(p->sb, depth * 2);
    sb_puts(p->sb, "Else\n");
    dump_block(p, &s->orelse, depth + 1);
  }
}

static void dump_block(Printer *p, const Block *b, int depth) {
  for (int i = 0; i < b->len; i++) dump_stmt(p, b->items[i], depth);
}

static void dump_function(StrBuf *sb, const Function *f) {
  Printer p = {sb, f};
  sb_printf(sb, "%s %s", f->kind == FN_KERNEL ? "Kernel" : f->kind == FN_UFUNC ? "Ufunc" : "DeviceFunction", f->name);
  if (f->arg_types) {
    sb_puts(sb, "(");
    for (int i = 0; i < f->nparams; i++) sb_printf(sb, "%s%s", i ? ", " : "", f->arg_types[i]->name);
    sb_printf(sb, ") -> %s", f->ret_type ? f->ret_type->name : "?");
  }
  sb_printf(sb, " @%u:%u\n", f->loc.line, f->loc.col);
  for (const Function *t = f->generic; t && t->instance_of; t = t->instance_of)
    for (int i = 0; i < t->nstatics; i++) sb_printf(sb, "  static %s = %s\n", t->statics[i].name, t->statics[i].text);
  for (int i = 0; i < f->nsigs; i++) sb_printf(sb, "  sig \"%.*s\"\n", (int)f->sigs[i].len, f->sigs[i].text);
  for (int i = 0; i < f->nvars; i++) {
    sb_printf(sb, "  %s %s", f->vars[i].is_param ? "param" : "local", f->vars[i].name);
    if (f->vars[i].ty) sb_printf(sb, " : %s", f->vars[i].ty->name);
    sb_putc(sb, '\n');
  }
  dump_block(&p, &f->body, 1);
}

static void dump_const_array(StrBuf *sb, const ConstArray *a) {
  if (a->record) sb_printf(sb, "  Array record of %d fields, %lld bytes (", a->record->nfields, (long long)a->record->size);
  else sb_printf(sb, "  Array %s (", a->dtype->name);
  for (int i = 0; i < a->ndim; i++) sb_printf(sb, "%s%lld", i ? ", " : "", (long long)a->shape[i]);
  sb_puts(sb, a->ndim == 1 ? ",)\n" : ")\n");
}

static void dump_captured(StrBuf *sb, const CapturedArray *c) {
  sb_printf(sb, "  Captured %s %dd %c at 0x%llx\n", c->dtype->name, c->ndim, c->layout, (unsigned long long)c->address);
}

/* The specializations of template f, then those of its instances (depth-first). */
static void dump_specs(StrBuf *sb, const Function *f) {
  for (size_t j = 0; j < f->specs.len; j++) dump_function(sb, f->specs.items[j]);
  for (size_t j = 0; j < f->instances.len; j++) dump_specs(sb, f->instances.items[j]);
}

void ast_dump(StrBuf *sb, const Module *m, bool typed) {
  for (size_t i = 0; i < m->consts.len; i++) {
    Printer p = {sb, NULL};
    const Const *k = m->consts.items[i];
    sb_printf(sb, "Const %s\n", k->name);
    if (k->array) dump_const_array(sb, k->array);
    else if (k->captured) dump_captured(sb, k->captured);
    else dump_expr(&p, k->value, 1);
  }
  for (size_t i = 0; i < m->funcs.len; i++) {
    const Function *f = m->funcs.items[i];
    if (!typed || (f->specs.len == 0 && f->instances.len == 0)) dump_function(sb, f);
    if (typed) dump_specs(sb, f);
  }
}
