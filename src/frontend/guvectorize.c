/* @guvectorize([sig, ...], '(m,n),(n,p)->(m,p)', target='cuda'): Numba's CUDA generalized
 * ufuncs. As Numba builds them (numba/cuda/vectorizers.py), the decorated function becomes a
 * device function (the core), and a kernel of the same name is made beside it, one thread per
 * index of the loop dimensions, flattened into one by the caller:
 *
 *     def name(A, B, C):                   # each argument with one leading loop dimension
 *         tid = cuda.grid(1)
 *         if tid < min(A.shape[0], B.shape[0], C.shape[0]):
 *             core(A[tid, :, :], B[tid, :, :], C[tid, :, :])
 *
 * An argument with core dimensions is passed as the slice of its loop index; a scalar one
 * ('()' with a scalar type) as its element; an array one with '()' (int32[:], Numba's old
 * spelling of a scalar output) as the one-element slice A[tid:tid + 1]. The kernel's
 * signatures are the decorator's with one more dimension on every argument (a scalar becomes
 * a 1-d array), as Numba's _determine_gufunc_outer_types makes them. The kernel is built here,
 * as an AST at the decorator's location, so that every later phase (typing, codegen, `emit`,
 * `run`) sees an ordinary kernel. The layout's grammar is here too, public as
 * p2c_gufunc_layout, which the Python package asks for the dimension names it schedules a call
 * with. The broadcasting of the loop dimensions is the caller's: the Python package's GUFunc
 * (docs/python.md, "Generalized ufuncs"), or whoever launches the kernel. */
#include <stdio.h>
#include <string.h>

#include "frontend/lower.h"

/* How the kernel passes an argument to the core. */
typedef enum GuPass { GU_SLICE, GU_ELEMENT, GU_ONE } GuPass;

static bool is_ident_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The layout's reader: text, the position, and the layout it fills (with the first problem). */
typedef struct LayoutReader {
  const char *s;
  size_t len, at;
  P2cGufuncLayout *g;
} LayoutReader;

static char peek(LayoutReader *r) {
  while (r->at < r->len && is_space(r->s[r->at])) r->at++;
  return r->at < r->len ? r->s[r->at] : '\0';
}

static bool layout_fail(LayoutReader *r, size_t at, const char *msg) {
  snprintf(r->g->error, sizeof r->g->error, "%s", msg);
  r->g->error_at = at;
  return false;
}

/* One group "(a, b)" (a trailing comma is allowed, as in Numba) into argument `k`. */
static bool read_group(LayoutReader *r, int k) {
  P2cGufuncLayout *g = r->g;
  if (peek(r) != '(') return layout_fail(r, r->at, "expected '(' to start an argument's dimensions");
  r->at++;
  g->ndims[k] = 0;
  while (peek(r) != ')') {
    if (!is_ident_start(peek(r))) return layout_fail(r, r->at, "expected a dimension name or ')'");
    size_t start = r->at;
    while (r->at < r->len && is_ident_char(r->s[r->at])) r->at++;
    if (g->ndims[k] == P2C_MAX_NDIM) return layout_fail(r, start, "more than 8 core dimensions");
    g->name_at[k][g->ndims[k]] = (uint32_t)start;
    g->name_len[k][g->ndims[k]++] = (uint32_t)(r->at - start);
    if (peek(r) == ',') r->at++;
    else if (peek(r) != ')') return layout_fail(r, r->at, "expected ',' or ')' after a dimension name");
  }
  r->at++;
  return true;
}

/* Groups separated by commas, up to '->' (inputs) or the end (outputs). */
static bool read_groups(LayoutReader *r, bool inputs) {
  for (;;) {
    if (r->g->nargs == P2C_MAX_GUFUNC_ARGS) return layout_fail(r, r->at, "more than 64 arguments");
    if (!read_group(r, r->g->nargs)) return false;
    r->g->nargs++;
    char c = peek(r);
    if (c == ',') {
      r->at++;
      c = peek(r);
      if (c == '(') continue;
    }
    if (inputs && c == '-' && r->at + 1 < r->len && r->s[r->at + 1] == '>') return true;
    if (!inputs && c == '\0') return true;
    return layout_fail(r, r->at, inputs ? "expected '->' after the inputs" : "unexpected text after the output");
  }
}

static bool same_name(const LayoutReader *r, int k, int d, int k2, int d2) {
  const P2cGufuncLayout *g = r->g;
  return g->name_len[k][d] == g->name_len[k2][d2] &&
         memcmp(r->s + g->name_at[k][d], r->s + g->name_at[k2][d2], g->name_len[k][d]) == 0;
}

static bool input_names(const LayoutReader *r, int k, int d) {
  for (int i = 0; i < r->g->ninputs; i++)
    for (int j = 0; j < r->g->ndims[i]; j++)
      if (same_name(r, i, j, k, d)) return true;
  return false;
}

/* "(m,n),(n,p)->(m,p)" (frontend.h). */
bool frontend_gufunc_layout(const char *text, size_t len, P2cGufuncLayout *g) {
  memset(g, 0, sizeof *g);
  LayoutReader r = {.s = text, .len = len, .g = g};
  if (!read_groups(&r, true)) return false;
  g->ninputs = g->nargs;
  r.at += 2;
  if (!read_groups(&r, false)) return false;
  for (int out = g->ninputs; out < g->nargs; out++)
    for (int d = 0; d < g->ndims[out]; d++)
      if (!input_names(&r, out, d)) {
        layout_fail(&r, g->name_at[out][d], "");
        snprintf(g->error, sizeof g->error, "output dimension '%.*s' is not a dimension of any input",
                 (int)(g->name_len[out][d] < 40 ? g->name_len[out][d] : 40), text + g->name_at[out][d]);
        return false;
      }
  return true;
}

/* ---- the decorator ---- */

/* What the decorator gave, kept on the Lowerer until the parameters are known. */
struct GuDecorator {
  Loc loc;                 /* the decorator's expression: where the kernel's code points */
  P2cGufuncLayout layout;
  Function sigs;           /* only its sigs: the decorator's signatures, as written */
  bool ok;
};

/* Signatures: one (a string, a type expression, a tuple of argument types), a list of them, or
 * a module-level name bound to either. A tuple is one signature here, as in Numba's
 * guvectorize, where cuda.jit reads a tuple as several. */
static void add_gu_sigs(Lowerer *L, Function *f, TSNode n, int depth) {
  if (node_is(L, n, K_identifier) && depth < 8) {
    const TSNode *value = strmap_get(&L->value_by_name, node_str(L, n));
    if (value) {
      add_gu_sigs(L, f, *value, depth + 1);
      return;
    }
  }
  if (!node_is(L, n, K_list)) {
    lower_add_sig(L, f, n);
    return;
  }
  TSNode items[64];
  int k = node_kids(L, n, items, 64);
  if (k > 64) diag_error(L->c, node_loc(L, n), "E-decorator", "more than 64 signatures");
  for (int j = 0; j < k && j < 64; j++) lower_add_sig(L, f, items[j]);
}

/* The layout argument: a string literal, parsed; diagnostics point into it. */
static bool lower_layout(Lowerer *L, TSNode n, P2cGufuncLayout *g) {
  const char *text;
  size_t len;
  if (!node_is(L, n, K_string)) {
    diag_error(L->c, node_loc(L, n), "E-decorator", "guvectorize's layout must be a string such as "
               "'(n),(n)->(n)'");
    return false;
  }
  if (!lower_string_value(L, n, &text, &len)) return false;
  if (frontend_gufunc_layout(text, len, g)) return true;
  Loc loc = node_loc(L, n);
  loc.col += 1 + (uint32_t)g->error_at;   /* past the opening quote */
  diag_error(L->c, loc, "E-gufunc-layout", "bad gufunc layout '%.*s': %s", (int)len, text, g->error);
  return false;
}

/* Options of numba.guvectorize(target='cuda') that change nothing in the kernel. Numba's CUDA
 * builder takes nopython=True and no other target option; identity is for reductions. */
static const char *const ignored_gu_options[] = {"nopython", "identity", NULL};

/* One keyword of @guvectorize(...): target='cuda' (recorded in *target_seen), or an option. */
static bool lower_gu_keyword(Lowerer *L, TSNode kw, bool *target_seen) {
  char *name = node_str(L, lower_field(L, kw, F_name));
  TSNode val = lower_field(L, kw, F_value);
  if (strcmp(name, "target") == 0) {
    const char *text = NULL;
    size_t len = 0;
    if (node_is(L, val, K_string) && lower_string_value(L, val, &text, &len) && len == 4 &&
        memcmp(text, "cuda", 4) == 0)
      return *target_seen = true;
    diag_error(L->c, node_loc(L, val), "E-decorator", "guvectorize's target= must be 'cuda': pyk2cuda "
               "compiles only CUDA gufuncs");
    return false;
  }
  for (int i = 0; ignored_gu_options[i]; i++)
    if (strcmp(ignored_gu_options[i], name) == 0) return true;
  diag_error(L->c, node_loc(L, kw), "E-decorator", "unsupported option '%s' of guvectorize(target='cuda')", name);
  return false;
}

/* @guvectorize(sigs, layout, target='cuda'): its arguments read into L->gufunc (lower.h). */
bool lower_guvectorize_decorator(Lowerer *L, Function *f, TSNode e) {
  f->kind = FN_DEVICE;
  GuDecorator *d = arena_alloc(L->a, sizeof *d);
  d->loc = node_loc(L, e);
  L->gufunc = d;
  bool target_seen = false, ok = true;
  int positional = 0;
  if (node_is(L, e, K_call)) {
    TSNode kids[64];
    int k = node_kids(L, lower_field(L, e, F_arguments), kids, 64);
    for (int i = 0; i < k && i < 64; i++) {
      if (node_is(L, kids[i], K_keyword_argument)) ok &= lower_gu_keyword(L, kids[i], &target_seen);
      else if (positional++ == 0) add_gu_sigs(L, &d->sigs, kids[i], 0);
      else if (positional == 2) ok &= lower_layout(L, kids[i], &d->layout);
    }
  }
  if (ok && positional != 2) {
    diag_error(L->c, d->loc, "E-decorator", "guvectorize takes its signatures and a layout, as in "
               "@guvectorize(['void(float32[:], float32[:])'], '(n)->(n)', target='cuda')%s",
               positional < 2 ? "; the dynamic form, typed at the first call, is not supported" : "");
    ok = false;
  }
  if (ok && !target_seen) {
    diag_error(L->c, d->loc, "E-decorator", "guvectorize without target='cuda' compiles for the CPU in "
               "Numba; pyk2cuda compiles only target='cuda'");
    ok = false;
  }
  if (ok && d->sigs.nsigs == 0) {
    diag_error(L->c, d->loc, "E-no-signature", "guvectorize needs its signatures, as in "
               "@guvectorize(['void(float32[:], float32[:])'], '(n)->(n)', target='cuda')");
    ok = false;
  }
  d->ok = ok;
  return true;
}

/* ---- the kernel's signatures ---- */

/* How argument k of a signature is passed, or false after a diagnostic at the signature. */
static bool pass_of(Lowerer *L, const SigText *st, const P2cGufuncLayout *g, int k, const Type *t, GuPass *out) {
  int nd = g->ndims[k];
  bool array = t->kind == TY_ARRAY;
  if (nd > 0 && array && t->ndim == nd) return *out = GU_SLICE, true;
  if (nd == 0 && !array) return *out = GU_ELEMENT, true;
  if (nd == 0 && array && t->ndim == 1) return *out = GU_ONE, true;
  diag_error(L->c, st->loc, "E-gufunc-layout", "signature '%.*s': argument %d is %s, but the layout "
             "gives it %d core dimension%s%s", (int)st->len, st->text, k + 1, t->name, nd, nd == 1 ? "" : "s",
             nd == 0 ? " (a scalar, or a 1-d array of one element)" : "");
  return false;
}

/* The kernel's signature for one of the decorator's (which returns void, or gives no return
 * type): every argument with one more dimension (a scalar a 1-d array), returning void; the passes it implies in `pass` (NULL or the first
 * signature's, which every other must agree with). */
static const char *outer_sig(Lowerer *L, TypeTable *tt, const SigText *st, const P2cGufuncLayout *g,
                             int nparams, GuPass *pass, bool first) {
  Signature s;
  const char *err;
  size_t off;
  if (!sig_parse(tt, st->text, st->len, &s, &err, &off)) {
    Loc loc = st->loc;
    loc.col += (uint32_t)off;
    diag_error(L->c, loc, "E-signature", "bad signature '%.*s': %s", (int)st->len, st->text, err);
    return NULL;
  }
  if (s.ret && s.ret != &type_void) {   /* Numba's TypeError, at decoration */
    diag_error(L->c, st->loc, "E-gufunc-return", "guvectorized functions cannot return values: signature "
               "%.*s specifies %s return type", (int)st->len, st->text, s.ret->name);
    return NULL;
  }
  if (s.nargs != g->nargs || s.nargs != nparams) {
    diag_error(L->c, st->loc, "E-gufunc-layout", "signature '%.*s' has %d argument types, the layout %d "
               "arguments and the function %d parameters", (int)st->len, st->text, s.nargs, g->nargs, nparams);
    return NULL;
  }
  const Type **outer = arena_alloc(L->a, sizeof *outer * (size_t)s.nargs);
  for (int k = 0; k < s.nargs; k++) {
    GuPass p;
    if (!pass_of(L, st, g, k, s.args[k], &p)) return NULL;
    if (!first && p != pass[k]) {
      diag_error(L->c, st->loc, "E-gufunc-layout", "signature '%.*s': argument %d is %s here and %s in "
                 "the first signature; the signatures of a gufunc must agree", (int)st->len, st->text, k + 1,
                 p == GU_ELEMENT ? "a scalar" : "an array", pass[k] == GU_ELEMENT ? "a scalar" : "an array");
      return NULL;
    }
    pass[k] = p;
    const Type *t = s.args[k];   /* Numba: at.copy(ndim=nd + 1), or a 1-d array of a scalar */
    outer[k] = t->kind == TY_ARRAY ? type_array(tt, t->dtype, g->ndims[k] + 1, t->layout, MEM_GLOBAL, NULL)
                                   : type_array(tt, t, 1, 'A', MEM_GLOBAL, NULL);
  }
  Signature o = {&type_void, outer, s.nargs};
  return sig_format(L->a, &o);
}

/* ---- the kernel's body ---- */

/* builtin(args...) */
static Expr *builtin_call(Lowerer *L, const char *path, Loc loc, Expr **args, int n) {
  Expr *e = ast_new_node(L->a, EX_CALL, loc, n + 1);
  e->kids[0] = ast_new_node(L->a, EX_BUILTIN, loc, 0);
  e->kids[0]->builtin = builtin_lookup(path);
  for (int i = 0; i < n; i++) e->kids[i + 1] = args[i];
  return e;
}

/* A.shape[0] */
static Expr *loop_extent(Lowerer *L, int var, Loc loc) {
  Expr *shape = ast_new_node(L->a, EX_ATTR, loc, 1);
  shape->kids[0] = ast_new_var(L->a, var, loc);
  shape->str = "shape";
  Expr *e = ast_new_node(L->a, EX_INDEX, loc, 2);
  e->kids[0] = shape;
  e->kids[1] = ast_new_int(L->a, 0, loc);
  return e;
}

/* The core's argument k: A[tid, :, :], A[tid] or A[tid:tid + 1]. */
static Expr *core_arg(Lowerer *L, int k, int nd, GuPass pass, int tid, Loc loc) {
  Expr *e = ast_new_node(L->a, EX_INDEX, loc, pass == GU_SLICE ? nd + 2 : 2);
  e->kids[0] = ast_new_var(L->a, k, loc);
  if (pass == GU_ONE) {
    Expr *slice = ast_new_node(L->a, EX_SLICE, loc, 2);
    slice->ival = 3;   /* start and stop */
    slice->kids[0] = ast_new_var(L->a, tid, loc);
    Expr *next = ast_new_node(L->a, EX_BINARY, loc, 2);
    next->op = OP_ADD;
    next->kids[0] = ast_new_var(L->a, tid, loc);
    next->kids[1] = ast_new_int(L->a, 1, loc);
    slice->kids[1] = next;
    e->kids[1] = slice;
    return e;
  }
  e->kids[1] = ast_new_var(L->a, tid, loc);
  for (int d = 0; pass == GU_SLICE && d < nd; d++) e->kids[d + 2] = ast_new_node(L->a, EX_SLICE, loc, 0);
  return e;
}

/* tid = cuda.grid(1); if tid < min(A.shape[0], ...): core(A[tid, :], ...) */
static void build_body(Lowerer *L, Function *k, Function *core, const P2cGufuncLayout *g, const GuPass *pass, int tid,
                       Loc loc) {
  Stmt *set = ast_new_stmt(L->a, ST_ASSIGN, loc);
  set->targets = arena_alloc(L->a, sizeof *set->targets);
  set->targets[0] = ast_new_var(L->a, tid, loc);
  set->ntargets = 1;
  Expr *one = ast_new_int(L->a, 1, loc);
  set->value = builtin_call(L, "numba.cuda.grid", loc, &one, 1);
  Expr **extents = arena_alloc(L->a, sizeof *extents * (size_t)g->nargs);
  for (int i = 0; i < g->nargs; i++) extents[i] = loop_extent(L, i, loc);
  Stmt *test = ast_new_stmt(L->a, ST_IF, loc);
  test->cond = ast_new_node(L->a, EX_COMPARE, loc, 2);
  test->cond->kids[0] = ast_new_var(L->a, tid, loc);
  test->cond->kids[1] = builtin_call(L, "builtins.min", loc, extents, g->nargs);
  test->cond->cmps = arena_alloc(L->a, sizeof *test->cond->cmps);
  test->cond->cmps[0] = OP_LT;
  Expr *call = ast_new_node(L->a, EX_CALL, loc, g->nargs + 1);
  call->kids[0] = ast_new_node(L->a, EX_FUNC, loc, 0);
  call->kids[0]->func = core;
  for (int i = 0; i < g->nargs; i++) call->kids[i + 1] = core_arg(L, i, g->ndims[i], pass[i], tid, loc);
  Stmt *run = ast_new_stmt(L->a, ST_EXPR, loc);
  run->value = call;
  test->body.items = arena_alloc(L->a, sizeof *test->body.items);
  test->body.items[0] = run;
  test->body.len = 1;
  k->body.items = arena_alloc(L->a, sizeof *k->body.items * 2);
  k->body.items[0] = set;
  k->body.items[1] = test;
  k->body.len = 2;
}

/* A name for the thread's index that no parameter has. */
static const char *tid_name(Lowerer *L, const Function *core) {
  const char *name = "tid";
  for (bool clash = true; clash;) {
    clash = false;
    for (int i = 0; i < core->nparams; i++)
      if (strcmp(core->vars[i].name, name) == 0) clash = true;
    if (clash) name = arena_printf(L->a, "_%s", name);
  }
  return name;
}

/* The kernel beside the core (lower.h). */
Function *lower_guvectorize_kernel(Lowerer *L, Function *core) {
  GuDecorator *d = L->gufunc;
  L->gufunc = NULL;
  if (!d->ok) return NULL;
  TypeTable tt;   /* the signatures' types, only to write the kernel's signatures as text */
  types_init(&tt, L->a);
  GuPass pass[P2C_MAX_GUFUNC_ARGS];
  Function *k = arena_alloc(L->a, sizeof *k);
  *k = (Function){.name = core->name, .loc = core->loc, .kind = FN_KERNEL};
  k->sigs = arena_alloc(L->a, sizeof *k->sigs * (size_t)d->sigs.nsigs);
  for (int i = 0; i < d->sigs.nsigs; i++) {
    const char *text = outer_sig(L, &tt, &d->sigs.sigs[i], &d->layout, core->nparams, pass, i == 0);
    if (!text) return NULL;
    k->sigs[k->nsigs++] = (SigText){text, strlen(text), d->sigs.sigs[i].loc, false};
  }
  k->vars = arena_alloc(L->a, sizeof *k->vars * (size_t)(core->nparams + 1));
  for (int i = 0; i < core->nparams; i++)
    k->vars[i] = (Var){.name = core->vars[i].name, .loc = d->loc, .is_param = true};
  k->nparams = core->nparams;
  k->vars[k->nparams] = (Var){.name = tid_name(L, core), .loc = d->loc};
  k->nvars = k->nparams + 1;
  build_body(L, k, core, &d->layout, pass, k->nparams, d->loc);
  /* The kernel has the Python name (what `run`, `-k` and --sig name); the core, called only by
   * it, is NAME_core in C and in the dumps (numba calls it __core__). */
  core->name = arena_printf(L->a, "%s_core", core->name);
  return k;
}
