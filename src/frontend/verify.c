/* The AST verifier (ast.h, ast_verify): checks that a phase left the AST in the shape the next
 * phase relies on, so that a malformed tree is reported where it was made, not as wrong C later.
 * run_pipeline calls it after each phase in builds without NDEBUG (the default build and the
 * tests). A violation is our bug, reported as an E-internal diagnostic at the node. */
#include "frontend/ast.h"

typedef struct Verify {
  Compilation *c;
  const Function *f;
  AstStage stage;
  bool ok;
} Verify;

static void bad(Verify *v, Loc loc, const char *what) {
  if (!v->ok) return;   /* the first problem says enough */
  v->ok = false;
  static const char *const stages[] = {"the frontend", "typeinfer", "the analysis"};
  diag_error(v->c, loc.line ? loc : v->f->loc, "E-internal", "ast_verify after %s, in '%s': %s",
             stages[v->stage], v->f->name, what);
}

static void verify_expr(Verify *v, const Expr *e);

static void verify_kids(Verify *v, const Expr *e, int at_least) {
  if (e->nkids < at_least) bad(v, e->loc, "an expression lacks operands");
  for (int i = 0; i < e->nkids && v->ok; i++) {
    if (!e->kids[i]) bad(v, e->loc, "a NULL operand");
    else verify_expr(v, e->kids[i]);
  }
}

/* A call's callee is a name, not a value: typeinfer types the call, not it. */
static void verify_call(Verify *v, const Expr *e) {
  if (e->nkids < 1 || !e->kids[0]) {
    bad(v, e->loc, "a call without a callee");
    return;
  }
  const Expr *callee = e->kids[0];
  if (callee->kind == EX_ATTR) {
    verify_expr(v, callee);
  } else if (callee->kind != EX_FUNC && callee->kind != EX_BUILTIN) {
    /* Calling a value (a function passed as an argument) is the user's error, which typeinfer
     * reports (E-not-callable): only a typed AST must not hold such a call. */
    if (v->stage >= AST_TYPED) bad(v, callee->loc, "a callee that is not a name");
    else verify_expr(v, callee);
  }
  for (int i = 1; i < e->nkids && v->ok; i++) verify_expr(v, e->kids[i]);
  for (int i = 0; i < e->nkeywords && v->ok; i++) verify_expr(v, e->keywords[i].value);
  if (v->stage >= AST_TYPED && callee->kind == EX_FUNC && !e->func) bad(v, e->loc, "a device call without its specialization");
  if (v->stage >= AST_TYPED && e->unpack_at) bad(v, e->loc, "a call whose *args typeinfer did not expand");
  if (v->stage >= AST_TYPED && callee->kind == EX_BUILTIN && e->builtin != callee->builtin)
    bad(v, e->loc, "a builtin call without its row");
}

/* Casts where types differ, where typeinfer is responsible for them: the operands of
 * arithmetic, of `and`/`or` and of a conditional expression are cast to the expression's
 * number type (float ** int keeps its int exponent; timedelta / timedelta, a float64, keeps its
 * operands). Comparisons cast per pair in codegen, and
 * stores convert in codegen (see docs/architecture.md). */
static void verify_operand_casts(Verify *v, const Expr *e) {
  if (v->stage < AST_TYPED || !e->ty || !type_is_numeric(e->ty)) return;
  int first = e->kind == EX_IFEXP ? 1 : 0;
  bool arith = e->kind == EX_BINARY || e->kind == EX_UNARY || e->kind == EX_BOOLOP || e->kind == EX_IFEXP;
  /* timedelta / timedelta is a float64 of operands that keep their types (emit_time.c) */
  if (e->kind == EX_BINARY && type_is_time(e->kids[0]->ty)) return;
  for (int i = first; arith && i < e->nkids && v->ok; i++) {
    const Type *t = e->kids[i]->ty;
    bool int_exponent = e->kind == EX_BINARY && e->op == OP_POW && i == 1 && t && t->kind == TY_INT;
    if (t && type_plain(t) != type_plain(e->ty) && !int_exponent) bad(v, e->kids[i]->loc, "an operand of another type than its operation, without a cast");
  }
}

static void verify_expr(Verify *v, const Expr *e) {
  if (!e->loc.line) bad(v, e->loc, "an expression without a location");
  if (v->stage >= AST_TYPED && !e->ty) bad(v, e->loc, "an expression without a type");
  verify_operand_casts(v, e);
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT:
  case EX_IMAG:
  case EX_BOOL:
  case EX_STR:
  case EX_NONE: break;
  case EX_VAR:
    if (e->var < 0 || e->var >= v->f->nvars) bad(v, e->loc, "a variable that is not the function's");
    break;
  case EX_CONST:
    if (!e->konst) bad(v, e->loc, "an unresolved module constant");
    break;
  case EX_FUNC:
    if (!e->func) bad(v, e->loc, "an unresolved function");
    break;
  case EX_BUILTIN:
    if (!e->builtin) bad(v, e->loc, "an unresolved builtin");
    break;
  case EX_TEMP: bad(v, e->loc, "a codegen temporary before codegen"); break;
  case EX_CALL: verify_call(v, e); break;
  case EX_CAST:
    if (v->stage < AST_TYPED) bad(v, e->loc, "a cast before typeinfer");
    verify_kids(v, e, 1);
    break;
  case EX_UNARY:
  case EX_NOT:
  case EX_ATTR: verify_kids(v, e, 1); break;
  case EX_BINARY: verify_kids(v, e, 2); break;
  case EX_IFEXP: verify_kids(v, e, 3); break;
  case EX_COMPARE:
  case EX_BOOLOP:
  case EX_INDEX: verify_kids(v, e, 1); break;   /* a[()]: no index */
  case EX_TUPLE:
  case EX_SLICE: verify_kids(v, e, 0); break;
  }
}

static void verify_block(Verify *v, const Block *b);

static void verify_opt(Verify *v, const Expr *e) {
  if (e && v->ok) verify_expr(v, e);
}

static void need(Verify *v, const Stmt *s, bool ok, const char *what) {
  if (!ok) bad(v, s->loc, what);
}

static void verify_stmt(Verify *v, const Stmt *s) {
  if (!s->loc.line) bad(v, s->loc, "a statement without a location");
  for (int k = 0; k < s->ntargets && v->ok; k++) verify_expr(v, s->targets[k]);
  switch (s->kind) {
  case ST_EXPR: need(v, s, s->value, "an expression statement without its expression"); break;
  case ST_ASSIGN: need(v, s, s->ntargets >= 1 && s->value, "an assignment without targets or value"); break;
  case ST_AUGASSIGN: need(v, s, s->ntargets == 1 && s->value, "an augmented assignment without its parts"); break;
  case ST_IF:
  case ST_WHILE: need(v, s, s->cond, "a condition missing"); break;
  case ST_FOR_RANGE:
    need(v, s, s->stop && s->var >= 0 && s->var < v->f->nvars, "a range loop without its variable or stop");
    /* infer_range casts start, stop and step to the type range() iterates with */
    need(v, s, v->stage < AST_TYPED || !s->stop || ((!s->start || s->start->ty == s->stop->ty) &&
                                                    (!s->step || s->step->ty == s->stop->ty)),
         "range() parts of different types, without casts");
    break;
  case ST_FOR_ITER: need(v, s, s->ntargets == 1 && s->value, "a for loop without its target or iterable"); break;
  case ST_RETURN: {   /* coerce_returns casts every returned number to the return type */
    const Type *r = v->f->ret_type;
    bool number = v->stage >= AST_TYPED && s->value && s->value->ty && r && type_is_numeric(r);
    need(v, s, !number || s->value->ty == r, "a returned value of another type than the function's, without a cast");
    break;
  }
  case ST_RAISE: need(v, s, s->exc, "a raise without its exception"); break;
  case ST_BREAK:
  case ST_CONTINUE:
  case ST_PASS: break;
  }
  verify_opt(v, s->value);
  verify_opt(v, s->cond);
  verify_opt(v, s->start);
  verify_opt(v, s->stop);
  verify_opt(v, s->step);
  verify_block(v, &s->body);
  verify_block(v, &s->orelse);
}

static void verify_block(Verify *v, const Block *b) {
  for (int i = 0; i < b->len && v->ok; i++) verify_stmt(v, b->items[i]);
}

static bool verify_function(Compilation *c, const Function *f, AstStage stage) {
  Verify v = {c, f, stage, true};
  if (f->nparams > f->nvars) bad(&v, f->loc, "more parameters than variables");
  if (stage >= AST_TYPED && f->nparams && !f->arg_types) bad(&v, f->loc, "a specialization without argument types");
  if (stage >= AST_ANALYSED && (!f->nonneg || !f->positive)) bad(&v, f->loc, "a function codegen emits was not analysed");
  verify_block(&v, &f->body);
  return v.ok;
}

/* The specializations of template g and of its instances. */
static bool verify_specs(Compilation *c, const Function *g, AstStage stage) {
  bool ok = true;
  for (size_t j = 0; j < g->specs.len && ok; j++) {
    const Function *s = g->specs.items[j];
    /* a failed specialization (left by a guess that a later pass did not repeat) is never emitted */
    if (s->typed && !s->failed && (stage == AST_TYPED || s->nonneg)) ok = verify_function(c, s, stage);
  }
  for (size_t j = 0; j < g->instances.len && ok; j++) ok = verify_specs(c, g->instances.items[j], stage);
  return ok;
}

bool ast_verify(Compilation *c, const Module *m, AstStage stage) {
  bool ok = true;
  for (size_t i = 0; i < m->funcs.len && ok; i++) {
    const Function *g = m->funcs.items[i];
    if (stage == AST_RESOLVED) ok = verify_function(c, g, stage);
    if (stage >= AST_TYPED && ok) ok = verify_specs(c, g, stage);
  }
  return ok;
}
