/* @numba.stencil functions: the kernel that computes one, made here so that every front (`emit`,
 * `check`, `ptx`, `run`, `build`, the C API) sees it as an ordinary kernel. As Numba defines a
 * stencil (numba/stencils/stencil.py), the function indexes its arrays relative to the element
 * computed (`a[-1, 0]` is the element one row up), and a call returns an array of the first
 * input's shape holding the function's value where every relative index stays inside the array
 * (the interior, given by the neighbourhood: inferred from the constant offsets, or given as
 * `neighborhood=((lo, hi), ...)`) and `cval` (default 0) on the border. Arguments named in
 * `standard_indexing=` are indexed as written.
 *
 * The decorated function stays a device function, NAME_body, its relative indices made absolute
 * (`a[-1, 0]` becomes `a[__p2c_i0 + -1, __p2c_i1 + 0]`, the element's indices added as its last
 * parameters), and a kernel of the stencil's name is made beside it, one thread per element:
 *
 *     def NAME(a, b, ..., out):
 *         i1, i0 = cuda.grid(2)                       # x runs along the last axis
 *         if b.shape[0] < a.shape[0] or ...: raise ValueError(...)   # secondary inputs
 *         if i0 < out.shape[0] and i1 < out.shape[1]:
 *             if lo0 <= i0 < a.shape[0] - hi0 and lo1 <= i1 < a.shape[1] - hi1:
 *                 out[i0, i1] = NAME_body(a, b, ..., i0, i1)
 *             else:                                   # only when cval= is given
 *                 out[i0, i1] = cval
 *
 * The kernel computes what Numba's call with out= computes: the border is cval where cval= is
 * given and is left as it was otherwise, so a call without out= is the kernel on a new array of
 * zeros (Numba fills the border of a new result with 0 then).
 * A signature of the stencil's inputs alone (`--sig 'NAME(float64[:, :])'`) gets `out` from
 * typeinfer: a C-contiguous array of the type the body returns for those inputs, as Numba infers
 * the result's dtype (infer.c, complete_stencil_sig); so do the inputs' types of each typed call
 * in a @jit function (infer.c, type_stencil_from_calls). Every position of the kernel is the
 * decorator's; the body's are the user's own.
 *
 * A call of the stencil in a @jit function the host calls (Numba's njit allows it; the Python
 * package puts the stencil, decorated, in such a function's module) becomes a call of its loops on
 * the CPU, as Numba's _stencil_wrapper: NAME(inputs) calls NAME_call(inputs), which makes the
 * result (np.full of the body's type's zero) and passes it to NAME_loops(inputs, out), the kernel's
 * work as a loop nest over the first input; NAME(inputs, out=o) calls NAME_loops(inputs, o). */
#include <stdatomic.h>
#include <string.h>

#include "frontend/ast_walk.h"
#include "frontend/lower.h"

/* What the decorator gave, kept until the body is lowered (lower_stencil_kernel). */
struct StencilDecl {
  Loc loc;                 /* the decorator's expression */
  Function *body;
  Expr *cval;              /* a number literal or a module constant; NULL: not given */
  int nb_ndim;             /* neighborhood=: its dimensions (0: not given) */
  int64_t nb[P2C_MAX_NDIM][2];
  const char **standard;   /* standard_indexing= names */
  int nstandard;
  Loc standard_loc;
  bool ok;
  const char *name;        /* the stencil's Python name */
  /* A call in a @jit function (lower_stencil_call): NAME_call(inputs) makes the result and fills
   * it, NAME_loops(inputs, out) fills out; made (and added to the module) when a call names one. */
  Function *call_fn, *loops_fn;
  atomic_bool called;      /* set by bodies lowered on either thread (lower.c) */
};

/* ---- the decorator ---- */

static bool stencil_fail(Lowerer *L, Loc loc, const char *msg) {
  diag_error(L->c, loc, "E-stencil", "%s", msg);
  return false;
}

/* func_or_mode: 'constant', the only mode Numba has. */
static bool lower_mode(Lowerer *L, TSNode v) {
  const char *text;
  size_t len;
  if (!node_is(L, v, K_string)) return stencil_fail(L, node_loc(L, v), "a stencil's mode must be the string 'constant'");
  if (!lower_string_value(L, v, &text, &len)) return false;
  if (len == 8 && memcmp(text, "constant", 8) == 0) return true;
  diag_error(L->c, node_loc(L, v), "E-stencil", "Unsupported mode style %.*s (the only mode is 'constant')",
             (int)len, text);
  return false;
}

/* cval=: a number: a literal (folded: -1.5, 1e999 - 1e999), a module constant, np.nan, or a call
 * such as np.float32(1.5) or complex(0.0, 1.0) (the Python package writes those); the store into
 * the result types it. */
static bool lower_cval(Lowerer *L, StencilDecl *d, TSNode v) {
  NodeKind k = node_kind(L, v);
  if (k == K_list || k == K_tuple || k == K_string || k == K_none || k == K_lambda)
    return stencil_fail(L, node_loc(L, v), "cval must be a number (a literal or a module-level constant)");
  Expr *e = lower_expr(L, v);
  if (!e) return false;
  const Expr *value = e->kind == EX_CONST && e->konst->value ? e->konst->value : e;
  if (value->kind == EX_STR || value->kind == EX_TUPLE || value->kind == EX_NONE || value->kind == EX_FUNC ||
      (value->kind == EX_BUILTIN && value->builtin->id != BI_MATH_CONST) || value->kind == EX_CONST)
    return stencil_fail(L, node_loc(L, v), "cval must be a number (a literal or a module-level constant)");
  d->cval = e;
  return true;
}

/* One (lo, hi) pair of neighborhood=, dimension dim. */
static bool lower_nb_pair(Lowerer *L, StencilDecl *d, TSNode pair, int dim) {
  TSNode kids[3];
  int k = (node_is(L, pair, K_tuple) || node_is(L, pair, K_list)) ? node_kids(L, pair, kids, 3) : 0;
  for (int i = 0; k == 2 && i < 2; i++) {
    Expr *e = lower_expr(L, kids[i]);
    if (!e || e->kind != EX_INT) break;
    d->nb[dim][i] = e->ival;
    if (i == 1) return true;
  }
  return stencil_fail(L, node_loc(L, pair), "neighborhood= gives each dimension a pair (low, high) of "
                      "integer constants, as in ((-1, 1), (-2, 2))");
}

static bool lower_neighborhood(Lowerer *L, StencilDecl *d, TSNode v) {
  TSNode kids[P2C_MAX_NDIM + 1];
  if (!node_is(L, v, K_tuple) && !node_is(L, v, K_list))
    return stencil_fail(L, node_loc(L, v), "neighborhood= must be a tuple of (low, high) pairs, one per "
                        "dimension, as in ((-1, 1), (-1, 1))");
  int k = node_kids(L, v, kids, P2C_MAX_NDIM + 1);
  if (k < 1 || k > 3)
    return stencil_fail(L, node_loc(L, v), "pyk2cuda computes stencils of 1 to 3 dimensions: neighborhood= "
                        "needs 1 to 3 pairs");
  for (int i = 0; i < k; i++)
    if (!lower_nb_pair(L, d, kids[i], i)) return false;
  d->nb_ndim = k;
  return true;
}

/* standard_indexing=: a parameter's name, or a tuple or list of them. */
static bool lower_standard(Lowerer *L, StencilDecl *d, TSNode v) {
  TSNode one[1], kids[64];
  int k = 1;
  const TSNode *names = one;
  one[0] = v;
  if (node_is(L, v, K_tuple) || node_is(L, v, K_list)) {
    k = node_kids(L, v, kids, 64);
    names = kids;
  }
  d->standard = arena_alloc(L->a, sizeof *d->standard * (size_t)(k > 0 ? k : 1));
  d->standard_loc = node_loc(L, v);
  for (int i = 0; i < k && i < 64; i++) {
    size_t len;
    if (!node_is(L, names[i], K_string))
      return stencil_fail(L, node_loc(L, names[i]), "standard_indexing= names parameters by strings, as in "
                          "standard_indexing=('w',)");
    if (!lower_string_value(L, names[i], &d->standard[d->nstandard], &len)) return false;
    d->nstandard++;
  }
  return true;
}

static bool lower_stencil_keyword(Lowerer *L, StencilDecl *d, TSNode kw) {
  char *name = node_str(L, lower_field(L, kw, F_name));
  TSNode v = lower_field(L, kw, F_value);
  if (strcmp(name, "cval") == 0) return lower_cval(L, d, v);
  if (strcmp(name, "neighborhood") == 0) return lower_neighborhood(L, d, v);
  if (strcmp(name, "standard_indexing") == 0) return lower_standard(L, d, v);
  if (strcmp(name, "func_or_mode") == 0) return lower_mode(L, v);
  diag_error(L->c, node_loc(L, kw), "E-stencil", "Unknown stencil option %s (the options are cval, "
             "neighborhood, standard_indexing and the mode 'constant')", name);
  return false;
}

/* @stencil, @stencil(...), @stencil('constant', ...): f becomes the stencil's body. */
bool lower_stencil_decorator(Lowerer *L, Function *f, TSNode e) {
  f->kind = FN_DEVICE;
  StencilDecl *d = arena_alloc(L->a, sizeof *d);
  d->loc = node_loc(L, e);
  d->ok = true;
  L->stencil = d;
  if (!node_is(L, e, K_call)) return true;
  TSNode kids[16];
  int k = node_kids(L, lower_field(L, e, F_arguments), kids, 16);
  for (int i = 0; i < k && i < 16; i++) {
    if (node_is(L, kids[i], K_keyword_argument)) d->ok &= lower_stencil_keyword(L, d, kids[i]);
    else if (i == 0) d->ok &= lower_mode(L, kids[i]);
    else d->ok = stencil_fail(L, node_loc(L, kids[i]), "a stencil's decorator takes its mode and keyword "
                              "options (cval=, neighborhood=, standard_indexing=)");
  }
  return true;
}

/* The parameters are known: the checks Numba makes when the stencil is defined. */
bool lower_is_stencil_body(const Lowerer *L, const Function *f) {
  for (size_t i = 0; i < L->stencils.len; i++)
    if (L->stencils.items[i]->body == f) return true;
  return false;
}

void lower_stencil_declared(Lowerer *L, Function *f) {
  StencilDecl *d = L->stencil;
  L->stencil = NULL;
  d->body = f;
  d->name = f->name;
  d->call_fn = arena_alloc(L->a, sizeof *d->call_fn);
  *d->call_fn = (Function){.name = arena_printf(L->a, "%s_call", f->name), .loc = f->loc, .kind = FN_DEVICE};
  d->loops_fn = arena_alloc(L->a, sizeof *d->loops_fn);
  *d->loops_fn = (Function){.name = arena_printf(L->a, "%s_loops", f->name), .loc = f->loc, .kind = FN_DEVICE};
  for (int i = 0; d->ok && i < d->nstandard; i++) {
    int p = -1;
    for (int j = 0; j < f->nparams; j++)
      if (strcmp(f->vars[j].name, d->standard[i]) == 0) p = j;
    if (p < 0)
      d->ok = stencil_fail(L, d->standard_loc, "Standard indexing requested for an array name not present "
                           "in the stencil kernel definition.");
    else if (p == 0)
      d->ok = stencil_fail(L, d->standard_loc, "The first argument to a stencil kernel must use relative "
                           "indexing, not standard indexing.");
  }
  if (d->ok && f->nparams == 0)
    d->ok = stencil_fail(L, f->loc, "a stencil takes its input array as its first parameter");
  vec_push(L->a, &L->stencils, d);
}

/* ---- the body: relative indices made absolute ---- */

/* What the body's walk finds and needs (one walk per question, AstWalker's ctx). */
typedef struct BodyScan {
  Lowerer *L;
  StencilDecl *d;
  Function *f;
  int nparams;             /* the user's parameters (the indices come after them) */
  bool *relative;          /* per parameter: indexed relatively (not standard_indexing=) */
  bool *accessed;          /* per parameter: has a relative access */
  int *bindings;           /* per variable: how many times it is bound */
  const Expr **bound_to;   /* per variable: its value, where bound once by `name = value` */
  int ndim;                /* 0 until the first access */
  bool inferred;           /* the neighbourhood is inferred (not given) */
  int64_t nb[P2C_MAX_NDIM][2];
  bool ok;
} BodyScan;

static void count_binding(BodyScan *b, const Expr *t, const Expr *value) {
  if (t->kind == EX_TUPLE) {
    for (int i = 0; i < t->nkids; i++) count_binding(b, t->kids[i], NULL);
  } else if (t->kind == EX_VAR && t->var >= 0 && t->var < b->f->nvars) {
    b->bindings[t->var]++;
    b->bound_to[t->var] = value;
  }
}

static bool scan_bindings(AstWalker *w, const Stmt *s) {
  BodyScan *b = w->ctx;
  bool single = s->kind == ST_ASSIGN && s->ntargets == 1;
  if (s->kind == ST_ASSIGN || s->kind == ST_AUGASSIGN || s->kind == ST_FOR_ITER)
    for (int i = 0; i < s->ntargets; i++) count_binding(b, s->targets[i], single ? s->value : NULL);
  if ((s->kind == ST_FOR_RANGE || s->kind == ST_FOR_ITER) && s->var >= 0 && s->var < b->f->nvars) {
    b->bindings[s->var]++;
    b->bound_to[s->var] = NULL;
  }
  return true;
}

static bool is_int_tuple(const Expr *e) {
  if (!e || e->kind != EX_TUPLE || e->nkids == 0) return false;
  for (int i = 0; i < e->nkids; i++)
    if (e->kids[i]->kind != EX_INT) return false;
  return true;
}

/* The constant that index part e is: an int literal, or a local bound once to one (or to a tuple
 * of them: *tuple is set). NULL: not constant. */
static const Expr *constant_of(const BodyScan *b, const Expr *e) {
  if (e->kind == EX_INT) return e;
  if (e->kind != EX_VAR || e->var < b->nparams || e->var >= b->f->nvars || b->bindings[e->var] != 1) return NULL;
  const Expr *v = b->bound_to[e->var];
  return v && (v->kind == EX_INT || is_int_tuple(v)) ? v : NULL;
}

/* The parts of a relative index: a[i, j] -> i, j; a[(i, j)] -> i, j. */
static Expr **index_parts(Expr *e, int *n) {
  if (e->nkids == 2 && e->kids[1]->kind == EX_TUPLE) {
    *n = e->kids[1]->nkids;
    return e->kids[1]->kids;
  }
  *n = e->nkids - 1;
  return e->kids + 1;
}

static bool is_relative_access(const BodyScan *b, const Expr *e) {
  return e->kind == EX_INDEX && e->kids[0]->kind == EX_VAR && e->kids[0]->var < b->nparams &&
         b->relative[e->kids[0]->var];
}


/* Records offset `v` (or a non-constant part, v NULL) of dimension dim. */
static void record_offset(BodyScan *b, const Expr *part, const Expr *v, int dim, const char *name) {
  if (!v) {
    if (b->inferred) {
      diag_error(b->L->c, part->loc, "E-stencil", "stencil kernel index is not constant, 'neighborhood' "
                 "option required (a relative index of '%s' is a constant offset such as -1, or a local "
                 "variable bound once to one)", name);
      b->ok = false;
    }
    return;
  }
  if (!b->inferred) return;
  if (v->ival < b->nb[dim][0]) b->nb[dim][0] = v->ival;
  if (v->ival > b->nb[dim][1]) b->nb[dim][1] = v->ival;
}

/* One relative access a[...] (found before any is rewritten): checked, its offsets recorded. An
 * index given whole, a[idx] with idx a local tuple, stands for all the dimensions. */
static void scan_access(BodyScan *b, Expr *e) {
  Lowerer *L = b->L;
  const char *name = b->f->vars[e->kids[0]->var].name;
  int n;
  Expr **parts = index_parts(e, &n);
  b->accessed[e->kids[0]->var] = true;
  for (int i = 0; i < n; i++)
    if (parts[i]->kind == EX_SLICE) {
      diag_error(L->c, parts[i]->loc, "E-stencil", "a slice in a stencil's relative index is not supported by "
                 "pyk2cuda: index single elements of '%s', as in %s[-1]", name, name);
      b->ok = false;
      return;
    }
  const Expr *cv = n == 1 ? constant_of(b, parts[0]) : NULL;
  bool whole = n == 1 && parts[0]->kind == EX_VAR && ((cv && cv->kind == EX_TUPLE) || (!cv && b->ndim > 1));
  int count = whole ? (cv ? cv->nkids : b->ndim) : n;
  if (b->ndim == 0) b->ndim = count;
  if (count != b->ndim) {
    diag_error(L->c, e->loc, "E-stencil", "Stencil index does not match array dimensionality: '%s' is indexed "
               "with %d offset(s), the stencil's input has %d dimension(s)", name, count, b->ndim);
    b->ok = false;
    return;
  }
  for (int d = 0; d < count && d < P2C_MAX_NDIM; d++) {
    const Expr *v = whole ? (cv ? cv->kids[d] : NULL) : constant_of(b, parts[d]);
    if (v && v->kind != EX_INT) v = NULL;
    record_offset(b, whole ? parts[0] : parts[d], v, d, name);
  }
}

static bool scan_stores(AstWalker *w, const Stmt *s) {
  BodyScan *b = w->ctx;
  if (s->kind != ST_ASSIGN && s->kind != ST_AUGASSIGN) return true;
  for (int i = 0; i < s->ntargets && b->ok; i++)
    if (is_relative_access(b, s->targets[i])) {
      diag_error(b->L->c, s->targets[i]->loc, "E-stencil", "Assignments to arrays passed to stencil kernels "
                 "is not allowed ('%s' is an argument of the stencil)", b->f->vars[s->targets[i]->kids[0]->var].name);
      b->ok = false;
    }
  return b->ok;
}

static bool scan_accesses(AstWalker *w, const Expr *e) {
  BodyScan *b = w->ctx;
  if (b->ok && is_relative_access(b, e)) scan_access(b, (Expr *)e);
  return b->ok;
}

static Expr *new_binary(Lowerer *L, Op op, Expr *l, Expr *r, Loc loc) {
  Expr *e = ast_new_node(L->a, EX_BINARY, loc, 2);
  e->op = op;
  e->kids[0] = l;
  e->kids[1] = r;
  return e;
}

/* Rewrites one relative access: part d becomes `__p2c_iD + part` (a tuple given whole, idx,
 * becomes __p2c_i0 + idx[0], __p2c_i1 + idx[1], ...). */
static void rewrite_access(BodyScan *b, Expr *e) {
  Lowerer *L = b->L;
  int n;
  Expr **parts = index_parts(e, &n);
  Expr **kids = arena_alloc(L->a, sizeof *kids * (size_t)(b->ndim + 1));
  kids[0] = e->kids[0];
  for (int d = 0; d < b->ndim; d++) {
    Expr *part = parts[n == b->ndim ? d : 0];
    if (n != b->ndim) {   /* idx[d] */
      Expr *item = ast_new_node(L->a, EX_INDEX, part->loc, 2);
      item->kids[0] = ast_new_var(L->a, part->var, part->loc);
      item->kids[1] = ast_new_int(L->a, d, part->loc);
      part = item;
    }
    kids[d + 1] = new_binary(L, OP_ADD, ast_new_var(L->a, b->nparams + d, part->loc), part, part->loc);
  }
  e->kids = kids;
  e->nkids = b->ndim + 1;
}

static bool rewrite_accesses(AstWalker *w, const Expr *e) {
  BodyScan *b = w->ctx;
  if (!is_relative_access(b, e)) return true;
  rewrite_access(b, (Expr *)e);
  return true;   /* on into the new parts: an offset may read another input (a[b[0]]) */
}

/* The index parameters go after the user's: every local's index moves up by ndim. */
static bool shift_expr(AstWalker *w, const Expr *e) {
  BodyScan *b = w->ctx;
  if (e->kind == EX_VAR && e->var >= b->nparams) ((Expr *)e)->var += b->ndim;
  return true;
}

static bool shift_stmt(AstWalker *w, const Stmt *s) {
  BodyScan *b = w->ctx;
  if ((s->kind == ST_FOR_RANGE || s->kind == ST_FOR_ITER) && s->var >= b->nparams) ((Stmt *)s)->var += b->ndim;
  return true;
}

static void add_index_params(BodyScan *b) {
  Lowerer *L = b->L;
  Function *f = b->f;
  AstWalker shift = {.stmt = shift_stmt, .expr = shift_expr, .ctx = b};
  ast_walk_block(&shift, &f->body);
  Var *vars = arena_alloc(L->a, sizeof *vars * (size_t)(f->nvars + b->ndim));
  memcpy(vars, f->vars, sizeof *vars * (size_t)f->nparams);
  for (int d = 0; d < b->ndim; d++)
    vars[f->nparams + d] = (Var){.name = arena_printf(L->a, "__p2c_i%d", d), .loc = f->loc, .is_param = true};
  memcpy(vars + f->nparams + b->ndim, f->vars + f->nparams, sizeof *vars * (size_t)(f->nvars - f->nparams));
  f->vars = vars;
  f->nvars += b->ndim;
  f->nparams += b->ndim;
  if (f->defaults) {
    Expr **defaults = arena_alloc(L->a, sizeof *defaults * (size_t)f->nparams);
    memcpy(defaults, f->defaults, sizeof *defaults * (size_t)b->nparams);
    f->defaults = defaults;
  }
}

/* Scans the lowered body (accesses checked, ndim and the neighbourhood found), then rewrites it.
 * False after a diagnostic. */
static bool rewrite_body(Lowerer *L, StencilDecl *d, BodyScan *b) {
  Function *f = d->body;
  *b = (BodyScan){.L = L, .d = d, .f = f, .nparams = f->nparams, .ok = true, .inferred = d->nb_ndim == 0,
                  .ndim = d->nb_ndim};
  b->relative = arena_alloc(L->a, sizeof *b->relative * (size_t)f->nparams);
  b->accessed = arena_alloc(L->a, sizeof *b->accessed * (size_t)f->nparams);
  b->bindings = arena_alloc(L->a, sizeof *b->bindings * (size_t)(f->nvars ? f->nvars : 1));
  b->bound_to = arena_alloc(L->a, sizeof *b->bound_to * (size_t)(f->nvars ? f->nvars : 1));
  for (int i = 0; i < f->nparams; i++) b->relative[i] = true;
  for (int i = 0; i < d->nstandard; i++)
    for (int j = 0; j < f->nparams; j++)
      if (strcmp(f->vars[j].name, d->standard[i]) == 0) b->relative[j] = false;
  memcpy(b->nb, d->nb, sizeof b->nb);
  AstWalker bind = {.stmt = scan_bindings, .expr = NULL, .ctx = b};
  ast_walk_block(&bind, &f->body);
  AstWalker scan = {.stmt = scan_stores, .expr = scan_accesses, .ctx = b};
  ast_walk_block(&scan, &f->body);
  if (!b->ok) return false;
  if (b->ndim == 0)
    return stencil_fail(L, f->loc, "Stencil kernel with no accesses to relatively indexed arrays: pyk2cuda "
                        "cannot infer its neighborhood (give neighborhood=)");
  if (b->ndim > 3) {
    diag_error(L->c, f->loc, "E-stencil", "pyk2cuda computes stencils of 1 to 3 dimensions, '%s' indexes %d",
               f->name, b->ndim);
    return false;
  }
  add_index_params(b);
  AstWalker rewrite = {.stmt = NULL, .expr = rewrite_accesses, .ctx = b};
  ast_walk_block(&rewrite, &f->body);
  return true;
}

/* ---- the kernel ---- */

/* A name that none of the kernel's parameters has: want, else _want, __want, ... */
static const char *fresh_name(Lowerer *L, const Function *k, int n, const char *want) {
  for (const char *name = want;; name = arena_printf(L->a, "_%s", name)) {
    bool clash = false;
    for (int i = 0; i < n; i++) clash = clash || strcmp(k->vars[i].name, name) == 0;
    if (!clash) return name;
  }
}

static Expr *shape_of(Lowerer *L, int var, int d, Loc loc) {
  Expr *shape = ast_new_node(L->a, EX_ATTR, loc, 1);
  shape->kids[0] = ast_new_var(L->a, var, loc);
  shape->str = "shape";
  Expr *e = ast_new_node(L->a, EX_INDEX, loc, 2);
  e->kids[0] = shape;
  e->kids[1] = ast_new_int(L->a, d, loc);
  return e;
}

static Expr *compare(Lowerer *L, Expr *l, Op op, Expr *r, Loc loc) {
  Expr *e = ast_new_node(L->a, EX_COMPARE, loc, 2);
  e->cmps = arena_alloc(L->a, sizeof *e->cmps);
  e->cmps[0] = op;
  e->kids[0] = l;
  e->kids[1] = r;
  return e;
}

/* kids[0] and kids[1] and ...; one operand alone is itself. */
static Expr *all_of(Lowerer *L, Expr **kids, int n, Loc loc) {
  if (n == 1) return kids[0];
  Expr *e = ast_new_node(L->a, EX_BOOLOP, loc, n);
  e->op = OP_AND;
  memcpy(e->kids, kids, sizeof *kids * (size_t)n);
  return e;
}

static Expr *any_of(Lowerer *L, Expr **kids, int n, Loc loc) {
  Expr *e = all_of(L, kids, n, loc);
  if (n > 1) e->op = OP_OR;
  return e;
}

static Stmt *new_stmt(Lowerer *L, StmtKind kind, Loc loc) { return ast_new_stmt(L->a, kind, loc); }

static Block one_stmt(Lowerer *L, Stmt *s) {
  Block b = {arena_alloc(L->a, sizeof(Stmt *)), 1};
  b.items[0] = s;
  return b;
}

/* The kernel's shape: its parameters (the stencil's, then out) and its index variables. */
typedef struct KernelShape {
  Function *k;
  int out;                 /* out's variable */
  int idx;                 /* the first index variable (i0, i1, ... follow) */
  int ndim;
  Loc loc;
} KernelShape;

/* i1, i0 = cuda.grid(2) (i0 = cuda.grid(1) in 1-D): x runs along the last axis. */
static Stmt *grid_stmt(Lowerer *L, const KernelShape *ks) {
  Stmt *s = new_stmt(L, ST_ASSIGN, ks->loc);
  s->targets = arena_alloc(L->a, sizeof *s->targets);
  s->ntargets = 1;
  if (ks->ndim == 1) {
    s->targets[0] = ast_new_var(L->a, ks->idx, ks->loc);
  } else {
    s->targets[0] = ast_new_node(L->a, EX_TUPLE, ks->loc, ks->ndim);
    for (int d = 0; d < ks->ndim; d++)
      s->targets[0]->kids[d] = ast_new_var(L->a, ks->idx + ks->ndim - 1 - d, ks->loc);
  }
  Expr *call = ast_new_node(L->a, EX_CALL, ks->loc, 2);
  call->kids[0] = ast_new_node(L->a, EX_BUILTIN, ks->loc, 0);
  call->kids[0]->builtin = builtin_lookup("numba.cuda.grid");
  call->kids[1] = ast_new_int(L->a, ks->ndim, ks->loc);
  s->value = call;
  return s;
}

/* if b.shape[0] < a.shape[0] or ...: raise ValueError(...) for a secondary relative input b
 * (Numba's raise_if_incompatible_array_sizes): its reads would leave it. NULL when it has none. */
static Stmt *sizes_check(Lowerer *L, const KernelShape *ks, const BodyScan *b) {
  Expr *smaller[64 * 3];
  int n = 0;
  for (int p = 1; p < b->nparams && n + ks->ndim <= 64 * 3; p++)
    if (b->accessed[p])
      for (int d = 0; d < ks->ndim; d++)
        smaller[n++] = compare(L, shape_of(L, p, d, ks->loc), OP_LT, shape_of(L, 0, d, ks->loc), ks->loc);
  if (n == 0) return NULL;
  Stmt *s = new_stmt(L, ST_IF, ks->loc);
  s->cond = any_of(L, smaller, n, ks->loc);
  Stmt *raise = new_stmt(L, ST_RAISE, ks->loc);
  raise->exc = "ValueError: Secondary stencil array has some dimension smaller the same dimension in the first "
               "stencil input.";
  s->body = one_stmt(L, raise);
  return s;
}

/* out[i0, i1, ...] */
static Expr *out_element(Lowerer *L, const KernelShape *ks) {
  Expr *e = ast_new_node(L->a, EX_INDEX, ks->loc, ks->ndim + 1);
  e->kids[0] = ast_new_var(L->a, ks->out, ks->loc);
  for (int d = 0; d < ks->ndim; d++) e->kids[d + 1] = ast_new_var(L->a, ks->idx + d, ks->loc);
  return e;
}

static Stmt *store(Lowerer *L, const KernelShape *ks, Expr *value) {
  Stmt *s = new_stmt(L, ST_ASSIGN, ks->loc);
  s->targets = arena_alloc(L->a, sizeof *s->targets);
  s->targets[0] = out_element(L, ks);
  s->ntargets = 1;
  s->value = value;
  return s;
}

/* lo <= iD < a.shape[D] - hi for each dimension (lo = max(0, -low), hi = max(0, high)). */
static Expr *interior(Lowerer *L, const KernelShape *ks, const BodyScan *b) {
  Expr *parts[3];
  for (int d = 0; d < ks->ndim; d++) {
    int64_t lo = b->nb[d][0] < 0 ? -b->nb[d][0] : 0, hi = b->nb[d][1] > 0 ? b->nb[d][1] : 0;
    Expr *extent = shape_of(L, 0, d, ks->loc);
    if (hi) extent = new_binary(L, OP_SUB, extent, ast_new_int(L->a, hi, ks->loc), ks->loc);
    Expr *c = compare(L, ast_new_var(L->a, ks->idx + d, ks->loc), OP_LT, extent, ks->loc);
    if (lo) {
      Expr *chain = ast_new_node(L->a, EX_COMPARE, ks->loc, 3);
      chain->cmps = arena_alloc(L->a, sizeof *chain->cmps * 2);
      chain->cmps[0] = OP_LE;
      chain->cmps[1] = OP_LT;
      chain->kids[0] = ast_new_int(L->a, lo, ks->loc);
      chain->kids[1] = c->kids[0];
      chain->kids[2] = c->kids[1];
      c = chain;
    }
    parts[d] = c;
  }
  return all_of(L, parts, ks->ndim, ks->loc);
}

/* NAME_body(a, b, ..., i0, i1) */
static Expr *body_call(Lowerer *L, const KernelShape *ks, const BodyScan *b) {
  Expr *call = ast_new_node(L->a, EX_CALL, ks->loc, b->nparams + ks->ndim + 1);
  call->kids[0] = ast_new_node(L->a, EX_FUNC, ks->loc, 0);
  call->kids[0]->func = b->f;
  for (int p = 0; p < b->nparams; p++) call->kids[p + 1] = ast_new_var(L->a, p, ks->loc);
  for (int d = 0; d < ks->ndim; d++) call->kids[b->nparams + d + 1] = ast_new_var(L->a, ks->idx + d, ks->loc);
  return call;
}

/* if i0 < out.shape[0] and ...: (if interior: out[...] = body(...) [else: out[...] = cval]) */
static Stmt *element_stmt(Lowerer *L, const KernelShape *ks, const BodyScan *b, const StencilDecl *d) {
  Expr *inside[3];
  for (int i = 0; i < ks->ndim; i++)
    inside[i] = compare(L, ast_new_var(L->a, ks->idx + i, ks->loc), OP_LT, shape_of(L, ks->out, i, ks->loc),
                        ks->loc);
  Stmt *in = new_stmt(L, ST_IF, ks->loc);
  in->cond = all_of(L, inside, ks->ndim, ks->loc);
  Stmt *test = new_stmt(L, ST_IF, ks->loc);
  test->cond = interior(L, ks, b);
  test->body = one_stmt(L, store(L, ks, body_call(L, ks, b)));
  if (d->cval) test->orelse = one_stmt(L, store(L, ks, d->cval));
  in->body = one_stmt(L, test);
  return in;
}

static void build_kernel_body(Lowerer *L, const KernelShape *ks, const BodyScan *b, const StencilDecl *d) {
  Stmt *check = sizes_check(L, ks, b);
  Function *k = ks->k;
  k->body.items = arena_alloc(L->a, sizeof *k->body.items * 3);
  k->body.items[k->body.len++] = grid_stmt(L, ks);
  if (check) k->body.items[k->body.len++] = check;
  k->body.items[k->body.len++] = element_stmt(L, ks, b, d);
}

/* ---- a call in a @jit function: loops on the CPU ---- */

/* NAME_loops(inputs..., out): as the kernel, element by element over the first input's extent
 * (Numba's _stencil_wrapper): the interior from the body, the border cval where cval= is given;
 * returns out. */
static void build_loops(Lowerer *L, const StencilDecl *d, const BodyScan *b) {
  Function *f = d->loops_fn;
  int n = b->nparams;
  f->vars = arena_alloc(L->a, sizeof *f->vars * (size_t)(n + 1 + b->ndim));
  for (int i = 0; i < n; i++) f->vars[i] = (Var){.name = d->body->vars[i].name, .loc = f->loc, .is_param = true};
  f->vars[n] = (Var){.name = fresh_name(L, f, n, "out"), .loc = f->loc, .is_param = true};
  f->nparams = n + 1;
  for (int i = 0; i < b->ndim; i++)
    f->vars[n + 1 + i] = (Var){.name = fresh_name(L, f, n + 1, arena_printf(L->a, "i%d", i)), .loc = f->loc};
  f->nvars = n + 1 + b->ndim;
  KernelShape ks = {f, n, n + 1, b->ndim, d->loc};
  Stmt *inner = store(L, &ks, body_call(L, &ks, b));
  if (d->cval) {
    Stmt *test = new_stmt(L, ST_IF, ks.loc);
    test->cond = interior(L, &ks, b);
    test->body = one_stmt(L, inner);
    test->orelse = one_stmt(L, store(L, &ks, d->cval));
    inner = test;
  }
  for (int dim = b->ndim - 1; dim >= 0; dim--) {   /* for iD in range(lo, a.shape[D] - hi): */
    int64_t lo = b->nb[dim][0] < 0 ? -b->nb[dim][0] : 0, hi = b->nb[dim][1] > 0 ? b->nb[dim][1] : 0;
    Stmt *loop = new_stmt(L, ST_FOR_RANGE, ks.loc);
    loop->var = ks.idx + dim;
    loop->stop = shape_of(L, 0, dim, ks.loc);
    if (!d->cval && hi) loop->stop = new_binary(L, OP_SUB, loop->stop, ast_new_int(L->a, hi, ks.loc), ks.loc);
    if (!d->cval && lo) loop->start = ast_new_int(L->a, lo, ks.loc);
    loop->body = one_stmt(L, inner);
    inner = loop;
  }
  Stmt *check = sizes_check(L, &ks, b), *ret = new_stmt(L, ST_RETURN, ks.loc);
  ret->value = ast_new_var(L->a, ks.out, ks.loc);
  f->body.items = arena_alloc(L->a, sizeof *f->body.items * 3);
  if (check) f->body.items[f->body.len++] = check;
  f->body.items[f->body.len++] = inner;
  f->body.items[f->body.len++] = ret;
}

/* NAME_call(inputs...): NAME_loops(inputs..., np.full(a.shape, zero)), zero a variable of the
 * body's type that the call never made binds (so it reads 0: docs/semantics.md), so that the new
 * result has Numba's dtype and a border of 0. */
static void build_call(Lowerer *L, const StencilDecl *d, const BodyScan *b) {
  Function *f = d->call_fn;
  int n = b->nparams;
  Loc loc = d->loc;
  f->vars = arena_alloc(L->a, sizeof *f->vars * (size_t)(n + 1));
  for (int i = 0; i < n; i++) f->vars[i] = (Var){.name = d->body->vars[i].name, .loc = loc, .is_param = true};
  f->vars[n] = (Var){.name = fresh_name(L, f, n, "zero"), .loc = loc};
  f->nparams = n;
  f->nvars = n + 1;
  KernelShape ks = {f, -1, -1, b->ndim, loc};
  Expr *probe = body_call(L, &ks, b);
  for (int dim = 0; dim < b->ndim; dim++) probe->kids[n + dim + 1] = ast_new_int(L->a, 0, loc);
  Stmt *bind = new_stmt(L, ST_ASSIGN, loc);
  bind->targets = arena_alloc(L->a, sizeof *bind->targets);
  bind->targets[0] = ast_new_var(L->a, n, loc);
  bind->ntargets = 1;
  bind->value = probe;
  Stmt *never = new_stmt(L, ST_IF, loc);   /* if a.shape[0] < 0: zero = NAME_body(inputs, 0, ...) */
  never->cond = compare(L, shape_of(L, 0, 0, loc), OP_LT, ast_new_int(L->a, 0, loc), loc);
  never->body = one_stmt(L, bind);
  Expr *shape = ast_new_node(L->a, EX_ATTR, loc, 1);
  shape->kids[0] = ast_new_var(L->a, 0, loc);
  shape->str = "shape";
  Expr *full = ast_new_node(L->a, EX_CALL, loc, 3);
  full->kids[0] = ast_new_node(L->a, EX_BUILTIN, loc, 0);
  full->kids[0]->builtin = builtin_lookup("numpy.full");
  full->kids[1] = shape;
  full->kids[2] = ast_new_var(L->a, n, loc);
  Expr *loops = ast_new_node(L->a, EX_CALL, loc, n + 2);
  loops->kids[0] = ast_new_node(L->a, EX_FUNC, loc, 0);
  loops->kids[0]->func = d->loops_fn;
  for (int i = 0; i < n; i++) loops->kids[i + 1] = ast_new_var(L->a, i, loc);
  loops->kids[n + 1] = full;
  Stmt *ret = new_stmt(L, ST_RETURN, loc);
  ret->value = loops;
  f->body.items = arena_alloc(L->a, sizeof *f->body.items * 2);
  f->body.items[0] = never;
  f->body.items[1] = ret;
  f->body.len = 2;
}

/* The stencil named by identifier `callee` of a call, or NULL. */
static StencilDecl *stencil_named(Lowerer *L, TSNode callee) {
  if (!node_is(L, callee, K_identifier)) return NULL;
  const char *name = node_str(L, callee);
  const OtherGlobal *g = find_var(L, name) < 0 && !find_const(L, name) && !find_func(L, name)
                             ? find_other_global(L, name) : NULL;
  if (!g || !g->stencil) return NULL;
  for (size_t i = L->stencils.len; i-- > 0;)
    if (strcmp(L->stencils.items[i]->name, name) == 0) return L->stencils.items[i];
  return NULL;
}

/* The out= keyword's value (None: NULL), or false after a diagnostic. */
static bool stencil_out_arg(Lowerer *L, TSNode kw, Expr **out) {
  const char *name = node_str(L, lower_field(L, kw, F_name));
  TSNode v = lower_field(L, kw, F_value);
  if (strcmp(name, "out") != 0)
    return stencil_fail(L, node_loc(L, kw), "a stencil takes its inputs by position, and out=");
  if (node_is(L, v, K_none)) return true;
  return (*out = lower_expr(L, v)) != NULL;
}

/* NAME(inputs...) or NAME(inputs..., out=o) in a @jit function the host calls (lower.h). */
Expr *lower_stencil_call(Lowerer *L, TSNode call, bool *handled) {
  StencilDecl *d = stencil_named(L, lower_field(L, call, F_function));
  *handled = d && L->fn && L->fn->host_jit;
  if (!*handled) return NULL;
  TSNode items[64];
  int k = node_kids(L, lower_field(L, call, F_arguments), items, 64), n = d->body->nparams;
  Expr *args[66], *out = NULL;
  int nargs = 0;
  bool ok = k <= 64;
  for (int i = 0; i < k && i < 64 && ok; i++) {
    if (node_is(L, items[i], K_keyword_argument)) ok = stencil_out_arg(L, items[i], &out);
    else if (nargs < n) ok = (args[nargs++] = lower_expr(L, items[i])) != NULL;
    else nargs++;
  }
  if (ok && nargs != n) {
    diag_error(L->c, node_loc(L, call), "E-arity", "stencil '%s' takes %d input(s), %d given", d->name, n, nargs);
    ok = false;
  }
  if (!ok) return NULL;
  atomic_store_explicit(&d->called, true, memory_order_relaxed);
  Expr *e = ast_new_node(L->a, EX_CALL, node_loc(L, call), n + 1 + (out != NULL));
  e->kids[0] = ast_new_node(L->a, EX_FUNC, e->loc, 0);
  e->kids[0]->func = out ? d->loops_fn : d->call_fn;
  memcpy(e->kids + 1, args, sizeof *args * (size_t)n);
  if (out) e->kids[n + 1] = out;
  return e;
}

/* ---- the stencil, its body lowered ---- */

/* The kernel of stencil d and, where a @jit function calls it, its loops (lower.h). */
Function *lower_stencil_kernel(Lowerer *L, StencilDecl *d) {
  BodyScan b;
  if (!d->ok || !rewrite_body(L, d, &b)) return NULL;
  Function *body = d->body;
  Function *k = arena_alloc(L->a, sizeof *k);
  *k = (Function){.name = body->name, .loc = body->loc, .kind = FN_KERNEL, .stencil_body = body,
                  .stencil_ndim = b.ndim};
  int n = b.nparams;
  k->vars = arena_alloc(L->a, sizeof *k->vars * (size_t)(n + 1 + b.ndim));
  for (int i = 0; i < n; i++) k->vars[i] = (Var){.name = body->vars[i].name, .loc = d->loc, .is_param = true};
  k->vars[n] = (Var){.name = fresh_name(L, k, n, "out"), .loc = d->loc, .is_param = true};
  k->nparams = n + 1;
  for (int i = 0; i < b.ndim; i++)
    k->vars[n + 1 + i] = (Var){.name = fresh_name(L, k, n + 1, arena_printf(L->a, "i%d", i)), .loc = d->loc};
  k->nvars = n + 1 + b.ndim;
  KernelShape ks = {k, n, n + 1, b.ndim, d->loc};
  build_kernel_body(L, &ks, &b, d);
  if (atomic_load_explicit(&d->called, memory_order_relaxed)) {
    build_loops(L, d, &b);
    build_call(L, d, &b);
    vec_push(L->a, &L->m->funcs, d->loops_fn);
    vec_push(L->a, &L->m->funcs, d->call_fn);
    k->stencil_loops = d->loops_fn;
  }
  /* The kernel has the stencil's name (what `run`, -k and --sig name); the body, called only by
   * it and the loops, is NAME_body. */
  body->name = arena_printf(L->a, "%s_body", body->name);
  return k;
}
