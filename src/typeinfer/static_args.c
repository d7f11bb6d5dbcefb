/* Compile-time arguments of device functions: functions, dtypes and literals as values.
 *
 * Numba types a function (cuda.atomic.add, a device function, operator.add), a dtype (uint32)
 * and a literal (32, False, (4, 8)) as types of their own, and compiles a device function once
 * per such argument. Here a call that passes such values makes an *instance* of the callee per
 * distinct tuple of them: a copy of its body where each such parameter is replaced by the value
 * it was given and dropped from the parameters. A call through the parameter (`binop_func(sm,
 * i, v)`) becomes a direct call of the function given (`cuda.atomic.add(sm, i, v)`), a dtype
 * parameter is a dtype where one is required (`cuda.shared.array(n, ary_dtype)`), and an `if`
 * (or a conditional expression) on a parameter given a literal keeps only the branch taken, as
 * Numba's dead-branch pruning does for literal arguments. The instance is then specialized per
 * argument types like any device function, and named `callee__values` in the CUDA C.
 *
 * Which literals: only those the callee needs as constants (a parameter that is a shared or
 * local array's shape or part of one, an `if` condition, cuda.grid's argument, or passed on to
 * a device function that needs it), so that `f(x, 1)` and `f(x, 2)` stay one function where
 * the value does not matter; a parameter the callee assigns to is never replaced. Functions and
 * dtypes have no run-time form, so they are always replaced; a parameter holding one cannot be
 * assigned to. Nor has None (a parameter left to its default None, Numba's Omitted): replaced
 * too, so that `if b is None:` keeps only its branch taken (infer.c, prune_none_test). */
#include <stdio.h>
#include <string.h>

#include "typeinfer/infer.h"

/* ---- what an argument is ---- */

typedef enum ArgKind { ARG_RUNTIME, ARG_FUNCTION, ARG_DTYPE, ARG_LITERAL, ARG_NONE, ARG_STRING } ArgKind;

static bool is_literal(const Expr *e) {
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT:
  case EX_BOOL: return true;
  case EX_UNARY: return (e->op == OP_NEG || e->op == OP_POS) && (e->kids[0]->kind == EX_INT || e->kids[0]->kind == EX_FLOAT);
  case EX_TUPLE:
    for (int i = 0; i < e->nkids; i++)
      if (!is_literal(e->kids[i])) return false;
    return true;
  case EX_CONST: return !const_names_itself(e->konst);
  default: return false;
  }
}

static ArgKind arg_kind(const Expr *e) {
  if (e->kind == EX_FUNC) return ARG_FUNCTION;
  if (e->kind == EX_NONE) return ARG_NONE;
  if (e->kind == EX_STR) return ARG_STRING;   /* Numba's string literal: a value of compile time */
  if (e->kind == EX_BUILTIN) {
    const Builtin *b = e->builtin;
    if (b->kind == BK_TYPE && b->result != &type_void) return ARG_DTYPE;
    if (b->kind == BK_FUNC || b->kind == BK_OPERATOR) return ARG_FUNCTION;
    return ARG_RUNTIME;   /* a value (threadIdx.x), or something typeinfer refuses */
  }
  return is_literal(e) ? ARG_LITERAL : ARG_RUNTIME;
}

/* Whether e is (or is a unary minus of) a literal, and its truth as Python's bool() gives it. */
static bool literal_truth(const Expr *e, bool *out) {
  if (e->kind == EX_CONST && !const_names_itself(e->konst)) e = e->konst->value;
  if (e->kind == EX_UNARY && (e->op == OP_NEG || e->op == OP_POS)) e = e->kids[0];
  switch (e->kind) {
  case EX_BOOL:
  case EX_INT: *out = e->is_unsigned_literal ? e->uval != 0 : e->ival != 0; return true;
  case EX_FLOAT: *out = e->fval != 0; return true;
  case EX_TUPLE: *out = e->nkids > 0; return true;
  default: return false;
  }
}

/* Whether two compile-time values are the same value. */
static bool same_value(const Expr *a, const Expr *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case EX_FUNC: return a->func == b->func;
  case EX_NONE: return true;
  case EX_BUILTIN: return a->builtin == b->builtin;
  case EX_CONST: return a->konst == b->konst;
  case EX_BOOL: return a->ival == b->ival;
  case EX_INT:
    return a->is_unsigned_literal == b->is_unsigned_literal && a->ival == b->ival && a->uval == b->uval;
  case EX_FLOAT: return memcmp(&a->fval, &b->fval, sizeof a->fval) == 0;   /* -0.0 is not 0.0 */
  case EX_UNARY: return a->op == b->op && same_value(a->kids[0], b->kids[0]);
  case EX_TUPLE:
    if (a->nkids != b->nkids) return false;
    for (int i = 0; i < a->nkids; i++)
      if (!same_value(a->kids[i], b->kids[i])) return false;
    return true;
  default: return false;
  }
}

/* The value written in C-name characters, for the instance's name: a builtin by its name
 * without the cuda. prefix (atomic_add, operator_add, math_sin), a dtype by its type (uint32),
 * numbers with m for a minus and p for a point (m1p5), tuples joined by x (4x8), () as empty. */
static void value_text(StrBuf *sb, const Expr *e) {
  switch (e->kind) {
  case EX_FUNC: sb_puts(sb, e->func->name); return;
  case EX_NONE: sb_puts(sb, "None"); return;
  case EX_CONST: sb_puts(sb, e->konst->name); return;
  case EX_BOOL: sb_puts(sb, e->ival ? "True" : "False"); return;
  case EX_INT:
    if (e->is_unsigned_literal) sb_printf(sb, "%llu", (unsigned long long)e->uval);
    else if (e->ival < 0) sb_printf(sb, "m%llu", 0ull - (unsigned long long)e->ival);
    else sb_printf(sb, "%lld", (long long)e->ival);
    return;
  case EX_FLOAT: {
    char num[40];
    snprintf(num, sizeof num, "%.17g", e->fval);
    for (const char *p = num; *p; p++) sb_putc(sb, *p == '.' ? 'p' : *p == '-' ? 'm' : *p == '+' ? '_' : *p);
    return;
  }
  case EX_UNARY:
    if (e->op == OP_NEG) sb_putc(sb, 'm');
    value_text(sb, e->kids[0]);
    return;
  case EX_TUPLE:
    if (e->nkids == 0) sb_puts(sb, "empty");
    for (int i = 0; i < e->nkids; i++) {
      if (i) sb_putc(sb, 'x');
      value_text(sb, e->kids[i]);
    }
    return;
  case EX_BUILTIN: {
    const Builtin *b = e->builtin;
    if (b->kind == BK_TYPE) {
      sb_puts(sb, b->result->name);
      return;
    }
    const char *name = builtin_display_name(b);
    if (strncmp(name, "cuda.", 5) == 0) name += 5;
    for (const char *p = name; *p; p++) sb_putc(sb, *p == '.' ? '_' : *p);
    return;
  }
  case EX_STR:   /* its first bytes, letters and digits as they are, others in hex */
    sb_putc(sb, 's');
    for (size_t i = 0; i < e->str_len && i < 24; i++) {
      unsigned char c = (unsigned char)e->str[i];
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) sb_putc(sb, (char)c);
      else sb_printf(sb, "_%02x", c);
    }
    return;
  default: sb_puts(sb, "value"); return;
  }
}

/* ---- which parameters need a constant ---- */

enum { PARAM_PLAIN = 0, PARAM_NEEDS_CONST = 1, PARAM_ASSIGNED = 2 };

typedef struct Needs {
  Infer *I;
  const Function *f;
  int8_t *need;         /* per parameter: used where a constant is required */
  bool *assigned;       /* per parameter: bound by an assignment or a loop */
  int depth;
} Needs;

static const int8_t *const_params(Infer *I, Function *f, int depth);

static int param_of(const Needs *n, const Expr *e) {
  return e && e->kind == EX_VAR && e->var < n->f->nparams ? e->var : -1;
}

static void mark(Needs *n, const Expr *e) {
  int p = param_of(n, e);
  if (p >= 0) n->need[p] = PARAM_NEEDS_CONST;
}

static void mark_targets(Needs *n, const Expr *t) {
  if (t->kind == EX_TUPLE)
    for (int i = 0; i < t->nkids; i++) mark_targets(n, t->kids[i]);
  int p = param_of(n, t);
  if (p >= 0) n->assigned[p] = true;
}

static const Expr *keyword_value(const Expr *e, const char *name) {
  for (int i = 0; i < e->nkeywords; i++)
    if (strcmp(e->keywords[i].name, name) == 0) return e->keywords[i].value;
  return NULL;
}

/* Call e: the parameters it needs as constants (a shape, a grid's dimension count, an argument
 * that the device function called needs as a constant). */
static void scan_call(Needs *n, const Expr *e) {
  const Expr *callee = e->kids[0];
  if (callee->kind == EX_BUILTIN && builtin_has(callee->builtin, BF_ARRAY_ALLOC)) {
    const Expr *shape = e->nkids > 1 ? e->kids[1] : keyword_value(e, "shape");
    if (shape && shape->kind == EX_TUPLE)
      for (int i = 0; i < shape->nkids; i++) mark(n, shape->kids[i]);
    else mark(n, shape);
  } else if (callee->kind == EX_BUILTIN && (callee->builtin->id == BI_GRID || callee->builtin->id == BI_GRIDSIZE)) {
    if (e->nkids > 1) mark(n, e->kids[1]);
  } else if (callee->kind == EX_FUNC && callee->func->nparams == e->nkids - 1) {
    const int8_t *inner = const_params(n->I, callee->func, n->depth + 1);
    for (int i = 1; inner && i < e->nkids; i++)
      if (inner[i - 1] == PARAM_NEEDS_CONST) mark(n, e->kids[i]);
  }
}

static void scan_expr(Needs *n, const Expr *e) {
  if (!e) return;
  if (e->kind == EX_CALL) scan_call(n, e);
  if (e->kind == EX_IFEXP) mark(n, e->kids[0]->kind == EX_NOT ? e->kids[0]->kids[0] : e->kids[0]);
  for (int i = 0; i < e->nkids; i++) scan_expr(n, e->kids[i]);
  for (int i = 0; i < e->nkeywords; i++) scan_expr(n, e->keywords[i].value);
}

static void scan_block(Needs *n, const Block *b);

/* Statement s: every part that holds an expression, whatever its kind (as ast.c's copy does),
 * plus what binds a variable and the condition of an if. */
static void scan_stmt(Needs *n, const Stmt *s) {
  bool binds = s->kind == ST_ASSIGN || s->kind == ST_AUGASSIGN || s->kind == ST_FOR_ITER;
  for (int i = 0; i < s->ntargets; i++) {
    if (binds) mark_targets(n, s->targets[i]);
    scan_expr(n, s->targets[i]);
  }
  if ((s->kind == ST_FOR_RANGE || s->kind == ST_FOR_ITER) && s->var >= 0 && s->var < n->f->nparams)
    n->assigned[s->var] = true;
  if (s->kind == ST_IF) mark(n, s->cond->kind == EX_NOT ? s->cond->kids[0] : s->cond);
  const Expr *parts[] = {s->value, s->cond, s->start, s->stop, s->step};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) scan_expr(n, parts[i]);
  scan_block(n, &s->body);
  scan_block(n, &s->orelse);
}

static void scan_block(Needs *n, const Block *b) {
  for (int i = 0; i < b->len; i++) scan_stmt(n, b->items[i]);
}

/* Per parameter of template f: PARAM_NEEDS_CONST when a literal given to it is needed as a
 * constant, PARAM_ASSIGNED when the body binds it (nothing may replace it), else PARAM_PLAIN.
 * Memoized on f; a function still being scanned (recursion) or past the call depth needs
 * nothing. */
static const int8_t *const_params(Infer *I, Function *f, int depth) {
  if (f->const_params || depth > TYPEINFER_MAX_CALL_DEPTH) return f->const_params;
  Arena *a = &I->c->arena;
  size_t np = (size_t)(f->nparams ? f->nparams : 1);
  Needs n = {I, f, arena_alloc(a, np), arena_alloc(a, np * sizeof(bool)), depth};
  memset(n.need, 0, np);
  memset(n.assigned, 0, np * sizeof(bool));
  int8_t *busy = arena_alloc(a, np);
  memset(busy, PARAM_PLAIN, np);
  f->const_params = busy;   /* a recursive call sees "nothing needed" */
  scan_block(&n, &f->body);
  for (int i = 0; i < f->nparams; i++)
    if (n.assigned[i]) n.need[i] = PARAM_ASSIGNED;
  f->const_params = n.need;
  return n.need;
}

/* Whether assignment target t binds variable v. */
static bool names_var(const Expr *t, int v) {
  if (t->kind == EX_VAR) return t->var == v;
  if (t->kind != EX_TUPLE) return false;
  for (int i = 0; i < t->nkids; i++)
    if (names_var(t->kids[i], v)) return true;
  return false;
}

/* ---- making an instance ---- */

typedef struct Subst {
  Arena *a;
  const Expr **value;   /* per variable of the template: its value, or NULL */
} Subst;

static bool is_static_var(const Subst *S, const Expr *e) {
  return e->kind == EX_VAR && S->value[e->var];
}

static void subst_expr(Subst *S, Expr **slot);

/* A call whose callee became an operator row (f(a, b) given operator.add) is that operator. */
static void direct_operator(Subst *S, Expr **slot) {
  Expr *e = *slot;
  const Expr *callee = e->kids[0];
  if (callee->kind == EX_BUILTIN && callee->builtin->kind == BK_OPERATOR && e->nkeywords == 0 &&
      e->nkids - 1 == callee->builtin->min_args)
    *slot = ast_operator_call(S->a, e);
  /* other forms keep the call: typeinfer reports them as for operator.add(...) itself */
}

static void subst_expr(Subst *S, Expr **slot) {
  Expr *e = *slot;
  if (!e) return;
  if (is_static_var(S, e)) {
    Expr *v = ast_clone_expr(S->a, S->value[e->var]);
    v->loc = e->loc;   /* errors about the value point at its use */
    *slot = v;
    return;
  }
  bool prune = e->kind == EX_IFEXP && (is_static_var(S, e->kids[0]) ||
               (e->kids[0]->kind == EX_NOT && is_static_var(S, e->kids[0]->kids[0])));
  for (int i = 0; i < e->nkids; i++) subst_expr(S, &e->kids[i]);
  for (int i = 0; i < e->nkeywords; i++) subst_expr(S, &e->keywords[i].value);
  bool taken;
  if (prune && literal_truth(e->kids[0]->kind == EX_NOT ? e->kids[0]->kids[0] : e->kids[0], &taken)) {
    taken ^= e->kids[0]->kind == EX_NOT;
    *slot = e->kids[taken ? 1 : 2];
    return;
  }
  if (e->kind == EX_CALL) direct_operator(S, slot);
}

static Block subst_block(Subst *S, Block b);

/* If statement s on a parameter given a literal: the block it takes, in *taken. */
static bool pruned_if(Subst *S, Stmt *s, Block *taken) {
  if (s->kind != ST_IF) return false;
  bool negated = s->cond->kind == EX_NOT;
  const Expr *c = negated ? s->cond->kids[0] : s->cond;
  bool truth;
  if (!is_static_var(S, c) || !literal_truth(S->value[c->var], &truth)) return false;
  *taken = truth != negated ? s->body : s->orelse;
  return true;
}

static void subst_stmt(Subst *S, Stmt *s) {
  for (int i = 0; i < s->ntargets; i++) subst_expr(S, &s->targets[i]);
  Expr **parts[] = {&s->value, &s->cond, &s->start, &s->stop, &s->step};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) subst_expr(S, parts[i]);
  s->body = subst_block(S, s->body);
  s->orelse = subst_block(S, s->orelse);
}

/* Block b with the values in place; an if that is pruned is replaced by the statements of the
 * branch it takes. A block left empty holds a `pass`, as Python's blocks are never empty. */
static Block subst_block(Subst *S, Block b) {
  if (b.len == 0) return b;
  VEC(Stmt *) out = {0};
  for (int i = 0; i < b.len; i++) {
    Block taken;
    if (pruned_if(S, b.items[i], &taken)) {
      taken = subst_block(S, taken);
      for (int j = 0; j < taken.len; j++) vec_push(S->a, &out, taken.items[j]);
      continue;
    }
    subst_stmt(S, b.items[i]);
    vec_push(S->a, &out, b.items[i]);
  }
  if (out.len == 0) vec_push(S->a, &out, ast_new_stmt(S->a, ST_PASS, b.items[0]->loc));
  return (Block){out.items, (int)out.len};
}

/* ---- renumbering the variables once the replaced parameters are gone ---- */

static void renumber_expr(const int *map, Expr *e) {
  if (!e) return;
  if (e->kind == EX_VAR) e->var = map[e->var];
  for (int i = 0; i < e->nkids; i++) renumber_expr(map, e->kids[i]);
  for (int i = 0; i < e->nkeywords; i++) renumber_expr(map, e->keywords[i].value);
}

static void renumber_block(const int *map, Block *b) {
  for (int i = 0; i < b->len; i++) {
    Stmt *s = b->items[i];
    for (int j = 0; j < s->ntargets; j++) renumber_expr(map, s->targets[j]);
    Expr *parts[] = {s->value, s->cond, s->start, s->stop, s->step};
    for (size_t j = 0; j < sizeof parts / sizeof parts[0]; j++) renumber_expr(map, parts[j]);
    if ((s->kind == ST_FOR_RANGE || s->kind == ST_FOR_ITER) && s->var >= 0) s->var = map[s->var];
    renumber_block(map, &s->body);
    renumber_block(map, &s->orelse);
  }
}

/* Drops the replaced parameters from inst's variables: the others keep their order. */
static void drop_params(Arena *a, Function *inst, const Expr **value) {
  int *map = arena_alloc(a, sizeof *map * (size_t)(inst->nvars ? inst->nvars : 1));
  Var *vars = arena_alloc(a, sizeof *vars * (size_t)(inst->nvars ? inst->nvars : 1));
  int n = 0, nparams = 0;
  for (int i = 0; i < inst->nvars; i++) {
    map[i] = -1;
    if (i < inst->nparams && value[i]) continue;
    map[i] = n;
    vars[n++] = inst->vars[i];
    if (i < inst->nparams) nparams++;
  }
  renumber_block(map, &inst->body);
  inst->vars = vars;
  inst->nvars = n;
  inst->nparams = nparams;
}


/* The first statement of block b that binds variable v (for the message), or NULL. */
static const Stmt *first_binding(const Block *b, int v) {
  for (int i = 0; i < b->len; i++) {
    const Stmt *s = b->items[i];
    if ((s->kind == ST_FOR_RANGE || s->kind == ST_FOR_ITER) && s->var == v) return s;
    bool binds = s->kind == ST_ASSIGN || s->kind == ST_AUGASSIGN || s->kind == ST_FOR_ITER;
    for (int j = 0; j < s->ntargets && binds; j++)
      if (names_var(s->targets[j], v)) return s;
    const Stmt *in = first_binding(&s->body, v);
    if (!in) in = first_binding(&s->orelse, v);
    if (in) return in;
  }
  return NULL;
}

/* The instance of template g for values statics[0..n) (parameter order), made on first use.
 * NULL, with *why set, when a function or a dtype is given to a parameter g assigns to. */
static Function *instance(Infer *I, Function *g, const StaticArg *statics, int n, const Expr **why_at,
                          const char **why) {
  for (size_t i = 0; i < g->instances.len; i++) {
    Function *inst = g->instances.items[i];
    bool same = inst->nstatics == n;
    for (int j = 0; same && j < n; j++)
      same = inst->statics[j].param == statics[j].param && same_value(inst->statics[j].value, statics[j].value);
    if (same) return inst;
  }
  Arena *a = &I->c->arena;
  const int8_t *kinds = const_params(I, g, 0);
  for (int j = 0; j < n; j++) {
    if (kinds[statics[j].param] != PARAM_ASSIGNED) continue;
    const Stmt *s = first_binding(&g->body, statics[j].param);
    ArgKind k = arg_kind(statics[j].value);
    const char *what = k == ARG_DTYPE ? "a dtype" : k == ARG_NONE ? "None" : k == ARG_STRING ? "a string" : "a function";
    *why_at = statics[j].value;
    *why = arena_printf(a, "parameter '%s' of '%s' is given %s, but '%s' assigns to it (line %u): a "
                        "parameter that holds %s cannot be reassigned", statics[j].name, g->name,
                        what, g->name, s ? s->loc.line : g->loc.line, what);
    return NULL;
  }
  Function *inst = ast_clone_function(a, g);
  const Expr **value = arena_alloc(a, sizeof *value * (size_t)(g->nvars ? g->nvars : 1));
  memset(value, 0, sizeof *value * (size_t)(g->nvars ? g->nvars : 1));
  for (int j = 0; j < n; j++) value[statics[j].param] = statics[j].value;
  Subst S = {a, value};
  inst->body = subst_block(&S, inst->body);
  drop_params(a, inst, value);
  inst->defaults = NULL;   /* calls are bound to g's parameters before an instance is made */
  inst->vararg = 0;        /* so are its *args (bind_call_args) */
  inst->instance_of = g;
  inst->statics = arena_dup(a, statics, sizeof *statics * (size_t)n);
  inst->nstatics = n;
  StrBuf sb;
  sb_init(&sb, a);
  if (g->static_suffix) sb_printf(&sb, "%s_", g->static_suffix);
  for (int j = 0; j < n; j++) sb_printf(&sb, "%s%s", j ? "_" : "", statics[j].text);
  inst->static_suffix = sb_str(&sb);
  inst->nsigs = 0;
  vec_push(a, &g->instances, inst);
  return inst;
}

/* The compile-time values among call e's arguments, in *out; returns how many. */
static int static_args(Infer *I, const Expr *e, Function *g, StaticArg *out) {
  const int8_t *kinds = NULL;
  int n = 0;
  for (int i = 1; i < e->nkids; i++) {
    ArgKind k = arg_kind(e->kids[i]);
    if (k == ARG_RUNTIME) continue;
    if (k == ARG_LITERAL) {
      if (!kinds) kinds = const_params(I, g, 0);
      if (kinds[i - 1] != PARAM_NEEDS_CONST) continue;
    }
    StrBuf sb;
    sb_init(&sb, &I->c->arena);
    value_text(&sb, e->kids[i]);
    out[n++] = (StaticArg){i - 1, g->vars[i - 1].name, e->kids[i], sb_str(&sb)};
  }
  return n;
}

bool infer_static_args(Infer *I, Expr *e) {
  Expr *callee = e->kids[0];
  Function *g = callee->func;
  StaticArg statics[256];
  int n = static_args(I, e, g, statics);
  if (n == 0) return true;
  const Expr *why_at = NULL;
  const char *why = NULL;
  Function *inst = instance(I, g, statics, n, &why_at, &why);
  if (!inst) {
    TERR(I, why_at->loc, "E-func-arg", "%s", why);
    return false;
  }
  /* The call now calls the instance with the other arguments. */
  int k = 1;
  for (int i = 1, j = 0; i < e->nkids; i++) {
    if (j < n && statics[j].param == i - 1) {
      j++;
      continue;
    }
    e->kids[k++] = e->kids[i];
  }
  e->nkids = k;
  callee->func = inst;
  return true;
}
