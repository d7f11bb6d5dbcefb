/* Functions defined inside a kernel or a device function (docs/semantics.md, "Nested functions").
 *
 * Numba compiles a closure two ways: one only called where it is visible is inlined into its
 * caller (inline_closure_call), so it sees the enclosing function's variables as they are at the
 * call; one passed on as a value (it may escape: `consumer(inner, x)`) becomes a function of its
 * own, whose free variables must be constants (MakeFunctionToJitFunction). Here every nested
 * `def NAME` becomes a device function of the module, OUTER__NAME (lambda lifting), and each
 * variable of the enclosing function it reads is captured:
 *  - bound once in the enclosing function, by `NAME = constant` (a literal, a module constant,
 *    a tuple of those): the constant is written where the nested function reads it;
 *  - any other (a parameter, a variable bound several times or to a computed value): a
 *    parameter of the nested function, of the variable's name, which each direct call passes by
 *    keyword, so the function reads the value at the call, as Python's closure cell gives it.
 * A nested function with a capture of the second kind cannot be passed as a value: Numba's
 * errors for that ("Cannot capture ...") are given at the argument. */
#include <string.h>

#include "frontend/lower.h"

NestedFn *lower_find_nested(const Lowerer *L, const char *name) {
  for (const Scope *s = L->fn ? L->scope : NULL; s; s = s->up) {
    NestedFn *nf = strmap_get(&s->nested, name);
    if (nf) return nf;
  }
  return NULL;
}

/* The NestedFn of f when f is a nested function visible here, or NULL. */
static NestedFn *nested_of(const Lowerer *L, const Function *f) {
  for (const Scope *s = L->fn ? L->scope : NULL; s; s = s->up)
    for (NestedFn *nf = s->last; nf; nf = nf->prev)
      if (nf->fn == f) return nf;
  return NULL;
}

const Capture *lower_find_capture(const Lowerer *L, const char *name) {
  for (const Scope *s = L->fn ? L->scope : NULL; s; s = s->up)
    for (int i = 0; s->self && i < s->self->ncaptures; i++)
      if (s->self->captures[i].value && strcmp(s->self->captures[i].name, name) == 0) return &s->self->captures[i];
  return NULL;
}

/* ---- what is captured ---- */

/* Whether target t (a name, or a tuple or list of targets) binds name. */
static bool target_binds(Lowerer *L, TSNode t, const char *name, int depth) {
  if (node_is(L, t, K_identifier)) return strcmp(node_str(L, t), name) == 0;
  if (depth > P2C_MAX_NESTING) return false;
  uint32_t count;
  TSNode *kids = node_named_children(L, t, &count);
  for (uint32_t i = 0; i < count; i++)
    if (target_binds(L, kids[i], name, depth + 1)) return true;
  return false;
}

/* Counts the bindings of name in n (another function's or class's body is its own scope; a
 * def or class of that name binds it); *value is the value of the last `name = value`. A
 * binding that is not `name = value` counts twice: the variable is not a constant. */
static void count_bindings(Lowerer *L, TSNode n, const char *name, int *count, TSNode *value, int depth) {
  if (depth > P2C_MAX_NESTING) return;
  NodeKind k = node_kind(L, n);
  if (k == K_function_definition || k == K_class_definition || k == K_lambda) {
    if (k != K_lambda && strcmp(node_str(L, lower_field(L, n, F_name)), name) == 0) *count += 2;
    return;
  }
  if (k == K_assignment || k == K_augmented_assignment || k == K_for_statement || k == K_named_expression) {
    TSNode t = lower_field(L, n, k == K_named_expression ? F_name : F_left);
    if (target_binds(L, t, name, 0)) {
      bool plain = k == K_assignment && node_is(L, t, K_identifier);
      *count += plain ? 1 : 2;
      if (plain) *value = lower_field(L, n, F_right);
    }
  }
  uint32_t nkids;
  TSNode *kids = node_named_children(L, n, &nkids);
  for (uint32_t i = 0; i < nkids; i++) count_bindings(L, kids[i], name, count, value, depth + 1);
}

/* Whether n is written as a constant, as Numba freezes a closure's free variable: a number or
 * bool literal (signed), a module constant or a captured one, a tuple of those. */
static bool constant_syntax(Lowerer *L, TSNode n, int depth) {
  if (depth > P2C_MAX_NESTING) return false;
  switch (node_kind(L, n)) {
  case K_integer:
  case K_float:
  case K_true:
  case K_false: return true;
  case K_unary_operator: {
    TSNode x = lower_field(L, n, F_argument);
    return node_is(L, x, K_integer) || node_is(L, x, K_float);
  }
  case K_identifier: {
    const char *name = node_str(L, n);
    return find_var(L, name) < 0 && (lower_find_capture(L, name) || find_const(L, name));
  }
  case K_parenthesized_expression:
  case K_tuple: {
    uint32_t count;
    TSNode *kids = node_named_children(L, n, &count);
    for (uint32_t i = 0; i < count; i++)
      if (!node_is_extra(L, kids[i]) && !constant_syntax(L, kids[i], depth + 1)) return false;
    return true;
  }
  default: return false;
  }
}

/* The capture of the enclosing function's variable name (L is in the enclosing function). */
static Capture capture(Lowerer *L, const char *name) {
  Capture c = {.name = name};
  if (L->fn->vars[find_var(L, name)].is_param) return c;
  int count = 0;
  TSNode value = {0};
  count_bindings(L, L->scope->body, name, &count, &value, 0);
  c.several = count > 1;
  if (count == 1 && !ts_node_is_null(value) && constant_syntax(L, value, 0)) c.value = lower_expr(L, value);
  return c;
}

typedef struct Scan {
  const StrMap *own;       /* the nested function's parameters and locals */
  StrMap seen;
  VEC(Capture) captures;
} Scan;

/* The enclosing function's variables that n reads (functions nested deeper included: what they
 * capture passes through this one). */
static void scan_free(Lowerer *L, Scan *S, TSNode n, int depth) {
  if (depth > P2C_MAX_NESTING) return;
  switch (node_kind(L, n)) {
  case K_identifier: {
    const char *name = node_str(L, n);
    if (strmap_has(S->own, name) || strmap_has(&S->seen, name) || find_var(L, name) < 0) return;
    strmap_put(&S->seen, name, (void *)1);
    vec_push(L->a, &S->captures, capture(L, name));
    return;
  }
  case K_attribute: scan_free(L, S, lower_field(L, n, F_object), depth + 1); return;
  case K_keyword_argument: scan_free(L, S, lower_field(L, n, F_value), depth + 1); return;
  case K_function_definition: scan_free(L, S, lower_field(L, n, F_body), depth + 1); return;
  case K_lambda: scan_free(L, S, lower_field(L, n, F_body), depth + 1); return;
  default: break;
  }
  uint32_t count;
  TSNode *kids = node_named_children(L, n, &count);
  for (uint32_t i = 0; i < count; i++) scan_free(L, S, kids[i], depth + 1);
}

/* ---- the nested function ---- */

/* What lowering a function body changes in the Lowerer, kept while a nested one is lowered. */
typedef struct Saved {
  Function *fn;
  StrMap vars;
  int vars_cap, loops;
  Scope *scope;
} Saved;

static Saved save(const Lowerer *L) { return (Saved){L->fn, L->var_by_name, L->vars_cap, L->loops, L->scope}; }

static void restore(Lowerer *L, Saved s) {
  L->fn = s.fn;
  L->var_by_name = s.vars;
  L->vars_cap = s.vars_cap;
  L->loops = s.loops;
  L->scope = s.scope;
}

static void index_vars(Lowerer *L, const Function *g) {
  strmap_init(&L->var_by_name, L->a);
  for (int i = 0; i < g->nvars; i++) strmap_put(&L->var_by_name, g->vars[i].name, (void *)(uintptr_t)(i + 1));
}

/* The captures that are not constants become parameters of g, after its own (before the
 * locals); false after a diagnostic. */
static bool add_capture_params(Lowerer *L, Function *g, const NestedFn *nf, TSNode at) {
  int nl = 0;
  for (int i = 0; i < nf->ncaptures; i++) nl += !nf->captures[i].value;
  if (!nl) return true;
  if (g->vararg) {
    diag_error(L->c, node_loc(L, at), "E-unsupported", "nested function '%s' has *args and reads "
               "variable '%s' of the enclosing function, which is not a constant: not supported (pass "
               "it as an argument)", nf->name, nf->captures[0].name);
    return false;
  }
  Var *vars = arena_alloc(L->a, sizeof *vars * (size_t)(g->nvars + nl));
  if (g->nparams) memcpy(vars, g->vars, sizeof *vars * (size_t)g->nparams);
  int k = g->nparams;
  for (int i = 0; i < nf->ncaptures; i++)
    if (!nf->captures[i].value) vars[k++] = (Var){.name = nf->captures[i].name, .loc = g->loc, .is_param = true};
  if (g->nvars > g->nparams) memcpy(vars + k, g->vars + g->nparams, sizeof *vars * (size_t)(g->nvars - g->nparams));
  if (g->defaults) {
    Expr **d = arena_alloc(L->a, sizeof *d * (size_t)(g->nparams + nl));
    memcpy(d, g->defaults, sizeof *d * (size_t)g->nparams);
    g->defaults = d;
  }
  g->vars = vars;
  g->nvars += nl;
  g->nparams += nl;
  return true;
}

static Function *new_nested(Lowerer *L, TSNode name_node, const char *name) {
  Function *outer = L->fn, *g = arena_alloc(L->a, sizeof *g);
  g->kind = FN_DEVICE;
  g->name = arena_printf(L->a, "%s__%s", outer->name, name);
  g->loc = node_loc(L, name_node);
  /* compiled with the options of the function it is part of, as Numba compiles a closure */
  g->debug = outer->debug;
  g->boundscheck = outer->boundscheck;
  g->fastmath = outer->fastmath;
  g->lineinfo = outer->lineinfo;
  g->noopt = outer->noopt;
  return g;
}

void lower_nested_def(Lowerer *L, TSNode def) {
  if (node_is(L, ts_node_child(def, 0), K_async) || !L->scope) {
    lower_unsupported(L, def, L->scope ? "an async function" : "a nested function here");
    return;
  }
  TSNode name_node = lower_field(L, def, F_name), params = lower_field(L, def, F_parameters),
         body = lower_field(L, def, F_body);
  const char *name = node_str(L, name_node);
  if (strmap_has(&L->scope->nested, name) || find_var(L, name) >= 0) {
    diag_error(L->c, node_loc(L, name_node), "E-redefined", "'%s' is bound more than once in '%s': a "
               "nested function must be the only binding of its name", name, L->fn->name);
    return;
  }
  NestedFn *nf = arena_alloc(L->a, sizeof *nf);
  Function *g = nf->fn = new_nested(L, name_node, name);
  nf->name = name;
  nf->prev = L->scope->last;
  L->scope->last = nf;
  strmap_put(&L->scope->nested, name, nf);   /* before its body: it may call itself */
  Saved outer = save(L);
  /* its own names */
  L->fn = g;
  L->vars_cap = 0;
  strmap_init(&L->var_by_name, L->a);
  lower_params(L, g, params);
  index_vars(L, g);
  if (!ts_node_is_null(body)) lower_collect_locals(L, body);
  /* what it captures, decided in the enclosing function */
  StrMap own = L->var_by_name;
  Scan S = {.own = &own};
  strmap_init(&S.seen, L->a);
  restore(L, outer);
  if (!ts_node_is_null(body)) scan_free(L, &S, body, 0);
  nf->captures = S.captures.items;
  nf->ncaptures = (int)S.captures.len;
  if (!add_capture_params(L, g, nf, name_node)) return;
  /* its default values, in the module's scope; then its body */
  L->fn = NULL;
  L->scope = NULL;
  strmap_init(&L->var_by_name, L->a);
  lower_defaults(L, g, params);
  L->fn = g;
  L->vars_cap = g->nvars;
  L->loops = 0;
  index_vars(L, g);
  Scope scope = {.up = outer.scope, .self = nf, .body = body};
  strmap_init(&scope.nested, L->a);
  L->scope = &scope;
  g->body = lower_block(L, body);
  frontend_split_loop_vars(L->a, g);
  frontend_split_webs(L->a, g);
  defuse_check(L->c, g);
  restore(L, outer);
  vec_push(L->a, &L->nested_funcs, g);
}

/* ---- its calls ---- */

/* The first capture of nf that is not a constant, or NULL. */
static const Capture *variable_capture(const NestedFn *nf) {
  for (int i = 0; nf && i < nf->ncaptures; i++)
    if (!nf->captures[i].value) return &nf->captures[i];
  return NULL;
}

/* Argument a of a call: a nested function passed as a value may escape its scope, so it may
 * capture only constants (Numba's rule, and its words). */
static bool escape_ok(Lowerer *L, const Expr *a) {
  if (!a || a->kind != EX_FUNC) return true;
  const NestedFn *nf = nested_of(L, a->func);
  const Capture *c = variable_capture(nf);
  if (!c) return true;
  if (c->several)
    diag_error(L->c, a->loc, "E-closure", "Cannot capture a constant value for variable '%s' as there are "
               "multiple definitions present: '%s' is passed as a value, so it may escape, and a function "
               "that may escape can capture only a variable bound once, to a constant", c->name, nf->name);
  else
    diag_error(L->c, a->loc, "E-closure", "Cannot capture the non-constant value associated with variable "
               "'%s' in a function that may escape: '%s' is passed as a value, and a function that may "
               "escape can capture only a variable bound once, to a constant (pass it as an argument)",
               c->name, nf->name);
  diag_note(L->c, nf->fn->loc, "'%s' is defined here", nf->name);
  return false;
}

/* The value of the enclosing function's variable `name` at a call at n: the caller's own
 * variable of that name; NULL after a diagnostic. */
static Expr *captured_value(Lowerer *L, TSNode n, const NestedFn *nf, const char *name) {
  int v = find_var(L, name);
  if (v < 0) {
    diag_error(L->c, node_loc(L, n), "E-closure", "'%s' cannot be called here: it reads variable '%s' of "
               "the function that defines it, which this function cannot see", nf->name, name);
    return NULL;
  }
  Expr *e = ast_new_expr(L->a, EX_VAR, node_loc(L, n));
  e->var = v;
  return e;
}

bool lower_nested_call(Lowerer *L, TSNode n, Expr *e) {
  for (int i = 1; i < e->nkids; i++)
    if (!escape_ok(L, e->kids[i])) return false;
  for (int i = 0; i < e->nkeywords; i++)
    if (!escape_ok(L, e->keywords[i].value)) return false;
  const NestedFn *nf = e->kids[0]->kind == EX_FUNC ? nested_of(L, e->kids[0]->func) : NULL;
  if (!variable_capture(nf)) return true;
  Keyword *kws = arena_alloc(L->a, sizeof *kws * (size_t)(e->nkeywords + nf->ncaptures));
  if (e->nkeywords) memcpy(kws, e->keywords, sizeof *kws * (size_t)e->nkeywords);
  int k = e->nkeywords;
  for (int i = 0; i < nf->ncaptures; i++) {
    if (nf->captures[i].value) continue;
    kws[k] = (Keyword){.name = nf->captures[i].name, .loc = node_loc(L, n)};
    if (!(kws[k++].value = captured_value(L, n, nf, nf->captures[i].name))) return false;
  }
  e->keywords = kws;
  e->nkeywords = k;
  return true;
}
