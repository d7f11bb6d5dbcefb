/* Signatures of @jit host functions from their calls in the file's host code
 * (p2c_compiler_set_host_call_signatures: `pyk2cuda emit`). A @jit function without a
 * signature is typed by the Python package at each call, from the actual arguments; the command
 * line has no arguments, so it reads the calls the file itself makes: module-level statements
 * and the bodies of plain (undecorated) functions, in source order, where a call's arguments
 * are values whose types can be told without running anything:
 *   - literals (int64, float64, bool, complex128), NumPy scalars (np.float32(2.5)) and the
 *     module's constants, as the kernels' constant folding reads them;
 *   - arrays made by np.empty/zeros/ones/full (shape an int or a tuple, dtype=, order='F'), their
 *     _like forms, np.arange, np.linspace, np.random.random/rand/randn, a Generator's
 *     .random/.standard_normal (rng = np.random.default_rng(...)), and .reshape, .astype, .copy
 *     of a known array: NumPy's types, typed as Numba types them (a new array is C-contiguous);
 *   - names bound by a plain assignment to one of these, the last binding before the call (a
 *     binding this cannot type, a tuple target, a loop's target other than range()'s, forgets
 *     the name).
 * Each call whose every argument is known gives the function one signature (once per distinct
 * text), which typeinfer types as it types --sig (infer.c); any other call is passed over. A
 * guess that is wrong is an error as the call itself would raise, at the function. No
 * diagnostic of this walk is kept: host code is never translated. */
#include <string.h>

#include "frontend/lower.h"

typedef struct HostType {
  enum { HT_SCALAR, HT_ARRAY, HT_GENERATOR } kind;
  const Type *dtype;   /* the scalar's type, the array's elements' */
  int ndim;
  char layout;         /* 'C' or 'F' */
} HostType;

typedef struct HostWalk {
  Lowerer *L;
  StrMap module, local;   /* name -> HostType * (NULL: bound to something not known) */
  bool in_function;
  int depth;
} HostWalk;

static void walk_block(HostWalk *w, TSNode block);
static const HostType *type_of(HostWalk *w, TSNode n);

static HostType *new_type(HostWalk *w, int kind, const Type *dtype, int ndim, char layout) {
  HostType *t = arena_alloc(w->L->a, sizeof *t);
  *t = (HostType){kind, dtype, ndim, layout};
  return t;
}

static bool bound(HostWalk *w, const char *name) {
  return (w->in_function && strmap_has(&w->local, name)) || strmap_has(&w->module, name);
}

static const HostType *lookup(HostWalk *w, const char *name) {
  if (w->in_function && strmap_has(&w->local, name)) return strmap_get(&w->local, name);
  return strmap_get(&w->module, name);
}

static void bind(HostWalk *w, const char *name, const HostType *t) {
  strmap_put(w->in_function ? &w->local : &w->module, name, (void *)t);
}

/* ---- what a value is ---- */

/* The arguments of a call: positional ones, and dtype= and order= */
typedef struct CallArgs {
  TSNode pos[8];
  int npos;
  TSNode dtype, order;
  bool has_dtype, has_order, other;   /* other: a keyword or splat this does not read */
} CallArgs;

static CallArgs call_args(HostWalk *w, TSNode call) {
  CallArgs a = {0};
  TSNode kids[16], args = lower_field(w->L, call, F_arguments);
  if (node_is(w->L, args, K_generator_expression)) {   /* f(x for x in y) */
    a.other = true;
    return a;
  }
  int k = node_kids(w->L, args, kids, 16);
  a.other = k > 16;
  for (int i = 0; i < k && i < 16; i++) {
    if (node_is(w->L, kids[i], K_keyword_argument)) {
      char *name = node_str(w->L, lower_field(w->L, kids[i], F_name));
      TSNode v = lower_field(w->L, kids[i], F_value);
      if (!strcmp(name, "dtype")) a.dtype = v, a.has_dtype = true;
      else if (!strcmp(name, "order")) a.order = v, a.has_order = true;
      else a.other = true;
    } else if (a.npos < 8 && !node_is(w->L, kids[i], K_list_splat) && !node_is(w->L, kids[i], K_dictionary_splat) &&
               !node_is(w->L, kids[i], K_generator_expression)) {
      a.pos[a.npos++] = kids[i];
    } else {
      a.other = true;
    }
  }
  return a;
}

/* A shape argument: an int (1-d), a tuple of them, or an array's .shape; 0 when unknown. */
static int shape_ndim(HostWalk *w, TSNode n) {
  if (node_is(w->L, n, K_tuple)) {
    TSNode kids[33];
    int k = node_kids(w->L, n, kids, 33);
    for (int i = 0; i < k && i < 33; i++) {
      const HostType *t = type_of(w, kids[i]);
      if (!t || t->kind != HT_SCALAR || t->dtype->kind != TY_INT) return 0;
    }
    return k <= 32 ? k : 0;
  }
  if (node_is(w->L, n, K_attribute) && !strcmp(node_str(w->L, lower_field(w->L, n, F_attribute)), "shape")) {
    const HostType *t = type_of(w, lower_field(w->L, n, F_object));
    return t && t->kind == HT_ARRAY ? t->ndim : 0;
  }
  const HostType *t = type_of(w, n);
  return t && t->kind == HT_SCALAR && t->dtype->kind == TY_INT ? 1 : 0;
}

/* order='F' or 'C' (the default); 0 for anything else */
static char order_of(HostWalk *w, const CallArgs *a) {
  if (!a->has_order) return 'C';
  size_t len;
  const char *s = node_text(w->L, a->order, &len);
  return len == 3 && (s[1] == 'F' || s[1] == 'C') && (s[0] == '\'' || s[0] == '"') ? s[1] : 0;
}

/* The dtype= argument's type, else `fallback` */
static const Type *dtype_or(HostWalk *w, const CallArgs *a, const Type *fallback) {
  return a->has_dtype ? lower_dtype_of(w->L, a->dtype) : fallback;
}

static const HostType *array_of(HostWalk *w, const Type *dtype, int ndim, char layout) {
  if (!dtype || ndim < 1 || !layout) return NULL;
  if (dtype->kind != TY_BOOL && dtype->kind != TY_INT && dtype->kind != TY_FLOAT && dtype->kind != TY_COMPLEX) return NULL;
  return new_type(w, HT_ARRAY, dtype, ndim, layout);
}

/* np.arange's element type: int64 when every bound is an int, else float64 */
static const Type *arange_dtype(HostWalk *w, const CallArgs *a) {
  const Type *t = &type_int64;
  for (int i = 0; i < a->npos; i++) {
    const HostType *b = type_of(w, a->pos[i]);
    if (!b || b->kind != HT_SCALAR || (b->dtype->kind != TY_INT && b->dtype->kind != TY_FLOAT)) return NULL;
    if (b->dtype->kind == TY_FLOAT) t = &type_float64;
  }
  return a->npos >= 1 && a->npos <= 3 ? t : NULL;
}

/* The type of a call of NumPy's array creation at module path `path` */
static const HostType *numpy_call(HostWalk *w, const char *path, const CallArgs *a) {
  static const char *const plain[] = {"numpy.empty", "numpy.zeros", "numpy.ones"};
  static const char *const likes[] = {"numpy.empty_like", "numpy.zeros_like", "numpy.ones_like", "numpy.full_like"};
  if (a->other) return NULL;
  for (size_t i = 0; i < 3; i++)
    if (!strcmp(path, plain[i]) && a->npos >= 1)
      return array_of(w, a->npos >= 2 ? lower_dtype_of(w->L, a->pos[1]) : dtype_or(w, a, &type_float64),
                      shape_ndim(w, a->pos[0]), order_of(w, a));
  if (!strcmp(path, "numpy.full") && a->npos >= 2) {
    const HostType *v = type_of(w, a->pos[1]);
    const Type *fill = v && v->kind == HT_SCALAR ? v->dtype : NULL;
    return array_of(w, a->npos >= 3 ? lower_dtype_of(w->L, a->pos[2]) : dtype_or(w, a, fill), shape_ndim(w, a->pos[0]),
                    order_of(w, a));
  }
  for (size_t i = 0; i < 4; i++)
    if (!strcmp(path, likes[i]) && a->npos >= 1 && !a->has_order) {
      const HostType *x = type_of(w, a->pos[0]);
      if (!x || x->kind != HT_ARRAY) return NULL;
      size_t dt = i == 3 ? 2 : 1;   /* full_like(x, value, dtype) */
      return array_of(w, (size_t)a->npos > dt ? lower_dtype_of(w->L, a->pos[dt]) : dtype_or(w, a, x->dtype), x->ndim,
                      x->layout);
    }
  if (!strcmp(path, "numpy.arange")) return array_of(w, dtype_or(w, a, arange_dtype(w, a)), 1, 'C');
  if (!strcmp(path, "numpy.linspace") && a->npos >= 2) return array_of(w, dtype_or(w, a, &type_float64), 1, 'C');
  if (!strcmp(path, "numpy.random.random") && a->npos == 1) return array_of(w, &type_float64, shape_ndim(w, a->pos[0]), 'C');
  if ((!strcmp(path, "numpy.random.rand") || !strcmp(path, "numpy.random.randn")) && a->npos >= 1) {
    for (int i = 0; i < a->npos; i++)
      if (shape_ndim(w, a->pos[i]) != 1 || node_is(w->L, a->pos[i], K_tuple)) return NULL;
    return array_of(w, &type_float64, a->npos, 'C');
  }
  if (!strcmp(path, "numpy.random.default_rng")) return new_type(w, HT_GENERATOR, NULL, 0, 0);
  return NULL;
}

/* x.method(...) of a known array or Generator */
static const HostType *method_call(HostWalk *w, const HostType *x, const char *method, const CallArgs *a) {
  if (a->other) return NULL;
  if (x->kind == HT_GENERATOR && (!strcmp(method, "random") || !strcmp(method, "standard_normal")))
    return a->npos == 1 && !a->has_dtype ? array_of(w, &type_float64, shape_ndim(w, a->pos[0]), 'C') : NULL;
  if (x->kind != HT_ARRAY) return NULL;
  if (!strcmp(method, "copy") && a->npos == 0 && !a->has_dtype) return array_of(w, x->dtype, x->ndim, 'C');
  if (!strcmp(method, "astype") && a->npos == 1 && !a->has_order)
    return array_of(w, lower_dtype_of(w->L, a->pos[0]), x->ndim, x->layout);
  if (!strcmp(method, "reshape") && a->npos >= 1 && !a->has_dtype && !a->has_order) {
    int nd = a->npos == 1 ? shape_ndim(w, a->pos[0]) : a->npos;
    for (int i = 0; a->npos > 1 && i < a->npos; i++)
      if (shape_ndim(w, a->pos[i]) != 1 || node_is(w->L, a->pos[i], K_tuple)) return NULL;
    return x->layout == 'C' ? array_of(w, x->dtype, nd, 'C') : NULL;
  }
  return NULL;
}

static const HostType *call_type(HostWalk *w, TSNode call) {
  TSNode callee = lower_field(w->L, call, F_function);
  CallArgs a = call_args(w, call);
  Resolved r;
  if (resolve_dotted(w->L, callee, &r)) {
    const Type *scalar = lower_dtype_of(w->L, callee);   /* np.float32(2.5) */
    if (scalar && a.npos == 1 && !a.other && !a.has_dtype && !a.has_order) {
      const HostType *v = type_of(w, a.pos[0]);
      return v && v->kind == HT_SCALAR ? new_type(w, HT_SCALAR, scalar, 0, 0) : NULL;
    }
    return numpy_call(w, r.path, &a);
  }
  if (!node_is(w->L, callee, K_attribute)) return NULL;
  const HostType *x = type_of(w, lower_field(w->L, callee, F_object));
  return x ? method_call(w, x, node_str(w->L, lower_field(w->L, callee, F_attribute)), &a) : NULL;
}

/* A literal, or a constant expression as the kernels' folding reads it */
static const HostType *folded_type(HostWalk *w, TSNode n) {
  const Type *numpy_type = NULL;
  Expr *e = fold_const_expr(w->L, n, &numpy_type);
  if (!e) return NULL;
  if (numpy_type) return new_type(w, HT_SCALAR, numpy_type, 0, 0);
  switch (e->kind) {
  case EX_INT: return e->is_unsigned_literal ? NULL : new_type(w, HT_SCALAR, &type_int64, 0, 0);
  case EX_FLOAT: return new_type(w, HT_SCALAR, &type_float64, 0, 0);
  case EX_BOOL: return new_type(w, HT_SCALAR, &type_bool, 0, 0);
  case EX_IMAG: return new_type(w, HT_SCALAR, &type_complex128, 0, 0);
  default: return NULL;
  }
}

static const HostType *type_of(HostWalk *w, TSNode n) {
  if (ts_node_is_null(n) || w->depth > P2C_MAX_NESTING) return NULL;
  w->depth++;
  const HostType *t = NULL;
  if (node_is(w->L, n, K_parenthesized_expression)) {
    t = type_of(w, ts_node_named_child(n, 0));
  } else if (node_is(w->L, n, K_identifier)) {
    char *name = node_str(w->L, n);
    t = bound(w, name) ? lookup(w, name) : folded_type(w, n);
  } else if (node_is(w->L, n, K_call)) {
    t = call_type(w, n);
  } else if (!node_is(w->L, n, K_tuple) && !node_is(w->L, n, K_list)) {
    t = folded_type(w, n);
  }
  w->depth--;
  return t;
}

/* The signature text "(t1, t2)" of a call whose every argument is known, else NULL */
static const char *call_sig(HostWalk *w, TSNode call) {
  CallArgs a = call_args(w, call);
  if (a.other || a.has_dtype || a.has_order) return NULL;
  StrBuf sb;
  sb_init(&sb, w->L->a);
  sb_putc(&sb, '(');
  for (int i = 0; i < a.npos; i++) {
    const HostType *t = type_of(w, a.pos[i]);
    if (!t || t->kind == HT_GENERATOR) return NULL;
    sb_printf(&sb, "%s%s", i ? ", " : "", t->dtype->name);
    if (t->kind == HT_ARRAY) {
      sb_putc(&sb, '[');
      for (int k = 0; k < t->ndim; k++) {
        bool unit = t->layout == 'C' ? k == t->ndim - 1 : k == 0;
        sb_printf(&sb, "%s%s", k ? ", " : "", unit ? "::1" : ":");
      }
      sb_putc(&sb, ']');
    }
  }
  sb_putc(&sb, ')');
  return sb_str(&sb);
}

static void add_call_sig(HostWalk *w, Function *f, const char *text, TSNode at) {
  Module *m = w->L->m;
  for (size_t i = 0; i < m->host_call_sigs.len; i++)
    if (m->host_call_sigs.items[i].func == f && !strcmp(m->host_call_sigs.items[i].sig.text, text)) return;
  HostCallSig s = {f, {text, strlen(text), node_loc(w->L, at), true}};
  vec_push(w->L->a, &m->host_call_sigs, s);
}

/* Every call of a @jit function without a signature in expression n (and in its parts) */
static void find_calls(HostWalk *w, TSNode n, int depth) {
  if (ts_node_is_null(n) || depth > P2C_MAX_NESTING || node_is(w->L, n, K_lambda)) return;
  if (node_is(w->L, n, K_call)) {
    TSNode callee = lower_field(w->L, n, F_function);
    Function *f = node_is(w->L, callee, K_identifier) ? find_func(w->L, node_str(w->L, callee)) : NULL;
    if (f && f->host_jit && f->nsigs == 0 && !bound(w, f->name)) {
      const char *text = call_sig(w, n);
      if (text) add_call_sig(w, f, text, n);
    }
  }
  uint32_t count = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < count; i++) find_calls(w, ts_node_named_child(n, i), depth + 1);
}

/* Forgets the names a target binds (a, (b, c), [d, *e]) */
static void forget_targets(HostWalk *w, TSNode n, int depth) {
  if (ts_node_is_null(n) || depth > P2C_MAX_NESTING) return;
  if (node_is(w->L, n, K_identifier)) {
    bind(w, node_str(w->L, n), NULL);
    return;
  }
  if (node_is(w->L, n, K_attribute) || node_is(w->L, n, K_subscript)) return;
  uint32_t count = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < count; i++) forget_targets(w, ts_node_named_child(n, i), depth + 1);
}

static void assignment(HostWalk *w, TSNode n) {
  TSNode left = lower_field(w->L, n, F_left), right = lower_field(w->L, n, F_right);
  find_calls(w, right, 0);
  if (ts_node_is_null(right)) return;   /* an annotation alone */
  if (node_is(w->L, right, K_assignment)) assignment(w, right);   /* a = b = value */
  TSNode value = right;
  while (node_is(w->L, value, K_assignment)) value = lower_field(w->L, value, F_right);
  if (node_is(w->L, left, K_identifier)) bind(w, node_str(w->L, left), type_of(w, value));
  else forget_targets(w, left, 0);
}

/* for TARGET in range(...): an int64 target; any other loop forgets its targets */
static void for_target(HostWalk *w, TSNode n) {
  TSNode left = lower_field(w->L, n, F_left), right = lower_field(w->L, n, F_right);
  find_calls(w, right, 0);
  Resolved r;
  bool range = node_is(w->L, right, K_call) && resolve_dotted(w->L, lower_field(w->L, right, F_function), &r) &&
               !strcmp(r.path, "builtins.range");
  if (range && node_is(w->L, left, K_identifier))
    bind(w, node_str(w->L, left), new_type(w, HT_SCALAR, &type_int64, 0, 0));
  else forget_targets(w, left, 0);
}

static bool holds_statements(const Lowerer *L, TSNode n) {
  TSSymbol sym = ts_node_symbol(n);
  return sym < L->symbols.count && L->symbols.holds_statements[sym];
}

/* A plain function's parameters: names of its own, of no type known here */
static void forget_params(HostWalk *w, TSNode params) {
  uint32_t count = ts_node_named_child_count(params);
  for (uint32_t i = 0; i < count; i++) {
    TSNode p = ts_node_named_child(params, i);
    if (node_is(w->L, p, K_identifier)) bind(w, node_str(w->L, p), NULL);
    else if (node_is(w->L, p, K_default_parameter) || node_is(w->L, p, K_typed_default_parameter))
      forget_targets(w, lower_field(w->L, p, F_name), 0);
    else forget_targets(w, p, 0);   /* typed, *args, **kwargs */
  }
}

static void walk_statement(HostWalk *w, TSNode n, int depth) {
  if (depth > P2C_MAX_NESTING) return;
  Lowerer *L = w->L;
  if (node_is(L, n, K_decorated_definition) || node_is(L, n, K_class_definition) || node_is(L, n, K_import_statement) ||
      node_is(L, n, K_import_from_statement) || node_is_extra(L, n))
    return;
  if (node_is(L, n, K_function_definition)) {   /* a plain function: its body, names its own */
    if (w->in_function) return;
    w->in_function = true;
    strmap_init(&w->local, L->a);
    forget_params(w, lower_field(L, n, F_parameters));
    walk_block(w, lower_field(L, n, F_body));
    w->in_function = false;
    return;
  }
  if (node_is(L, n, K_expression_statement)) {
    TSNode e = ts_node_named_child(n, 0);
    if (node_is(L, e, K_assignment)) assignment(w, e);
    else if (node_is(L, e, K_augmented_assignment)) find_calls(w, lower_field(L, e, F_right), 0);
    else find_calls(w, e, 0);
    return;
  }
  if (node_is(L, n, K_for_statement)) for_target(w, n);
  /* a compound statement: its header's expressions, then its blocks and clauses in order */
  uint32_t count = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < count; i++) {
    TSNode k = ts_node_named_child(n, i);
    if (node_is(L, k, K_block)) walk_block(w, k);
    else if (node_is(L, n, K_for_statement) && i < 2) continue;   /* its target and iterable: above */
    else if (holds_statements(L, k)) walk_statement(w, k, depth + 1);
    else find_calls(w, k, 0);
  }
}

static void walk_block(HostWalk *w, TSNode block) {
  if (ts_node_is_null(block)) return;
  uint32_t count;
  TSNode *items = node_named_children(w->L, block, &count);
  for (uint32_t i = 0; i < count; i++) walk_statement(w, items[i], 0);
}

void lower_host_calls(Lowerer *L, const TSNode *roots, int nroots) {
  bool unsigned_jit = false;
  for (size_t i = 0; i < L->m->funcs.len; i++)
    unsigned_jit |= L->m->funcs.items[i]->host_jit && L->m->funcs.items[i]->nsigs == 0;
  if (!unsigned_jit) return;
  size_t ndiags = L->c->diags.len, nerrors = L->c->error_count;
  bool too_many = L->c->too_many_errors;
  Function *fn = L->fn;
  L->fn = NULL;   /* names resolve as at module level */
  HostWalk w = {.L = L};
  strmap_init(&w.module, L->a);
  for (int r = 0; r < nroots; r++) walk_block(&w, roots[r]);
  L->fn = fn;
  L->c->diags.len = ndiags, L->c->error_count = nerrors, L->c->too_many_errors = too_many;
}
