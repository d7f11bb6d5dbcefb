/* Lowering of the tree-sitter CST to the AST: the driver (frontend_run) and the module level
 * (imports, constants, decorated functions, their locals). Statements are in lower_stmt.c,
 * expressions in lower_expr.c, the CST helpers and names in lower_cst.c.
 *
 * The module is read in two passes: the first records imports, constants and the names of
 * kernels and device functions, so that a kernel may call a device function defined after it;
 * the second lowers function bodies. Within a function, a name assigned anywhere is local
 * (Python's rule), so locals are collected before the body is lowered. */
#include <assert.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uninorm.h>

#include "frontend/lower.h"
#include "frontend/parse.h"
#include "frontend/pynum.h"
#include "util/side.h"

const TSLanguage *tree_sitter_python(void);

/* ---- imports ---- */

/* The Python package re-exports numba's names (`from pyk2cuda import cuda, float32`,
 * `import pyk2cuda as numba`), so a path under "pyk2cuda" means the same path under "numba":
 * the builtins table keeps one spelling. */
static const char *canonical_path(Lowerer *L, const char *path) {
  static const char pkg[] = "pyk2cuda";
  size_t n = sizeof pkg - 1;
  if (strncmp(path, pkg, n) != 0 || (path[n] != '\0' && path[n] != '.')) return path;
  return arena_printf(L->a, "numba%s", path + n);
}

static void add_alias(Lowerer *L, const char *name, const char *path) {
  strmap_put(&L->alias_by_name, name, (void *)canonical_path(L, path));
}

/* `X as Y`: binds Y to X, or to BASE.X inside `from BASE import`. */
static void add_aliased_import(Lowerer *L, TSNode n, const char *base) {
  const char *path = node_str(L, lower_field(L, n, F_name));
  const char *as = node_str(L, lower_field(L, n, F_alias));
  add_alias(L, as, base ? arena_printf(L->a, "%s.%s", base, path) : path);
}

/* import a.b [as c]: binds c to "a.b", or a to "a". */
static void lower_import(Lowerer *L, TSNode n) {
  TSNode kids[64];
  int k = node_kids(L, n, kids, 64);
  for (int i = 0; i < k && i < 64; i++) {
    TSNode name = kids[i];
    if (node_is(L, name, K_aliased_import)) {
      add_aliased_import(L, name, NULL);
    } else {
      char *path = node_str(L, name);
      char *dot = strchr(path, '.');
      add_alias(L, dot ? arena_strndup(L->a, path, (size_t)(dot - path)) : path,
                dot ? arena_strndup(L->a, path, (size_t)(dot - path)) : path);
    }
  }
}

/* from m import a [as b], ...: binds b to "m.a". */
static void lower_import_from(Lowerer *L, TSNode n) {
  TSNode mod = lower_field(L, n, F_module_name);
  const char *base = node_str(L, mod);
  TSNode kids[64];
  int k = node_kids(L, n, kids, 64);
  for (int i = 1; i < k && i < 64; i++) {
    TSNode name = kids[i];
    if (node_is(L, name, K_aliased_import)) {
      add_aliased_import(L, name, base);
    } else if (node_is(L, name, K_dotted_name)) {
      char *s = node_str(L, name);
      add_alias(L, s, arena_printf(L->a, "%s.%s", base, s));
    }
  }
}

/* ---- module-level constants ---- */

static void add_other_global(Lowerer *L, TSNode target, const char *why) {
  OtherGlobal g = {node_str(L, target), node_loc(L, target), why, false, false};
  vec_push(L->a, &L->others, g);
}

/* The constant NAME (at `left`) whose value names itself, as an array's or a record dtype's
 * does (so that scalar-only code sees no literal); the caller sets what it holds. */
static Const *add_self_named_const(Lowerer *L, TSNode left) {
  Const *k = arena_alloc(L->a, sizeof *k);
  k->name = node_str(L, left);
  k->loc = node_loc(L, left);
  k->value = ast_new_expr(L->a, EX_CONST, k->loc);
  k->value->konst = k;
  vec_push(L->a, &L->m->consts, k);
  strmap_put(&L->const_by_name, k->name, k);
  return k;
}

/* NAME = np.array(...) and friends: a constant array (see lower_array.c). */
static bool lower_module_array(Lowerer *L, TSNode left, TSNode right) {
  const char *why;
  ConstArray *arr = lower_const_array(L, right, &why);
  if (!arr) {
    if (why) add_other_global(L, left, why);
    return why != NULL;
  }
  add_self_named_const(L, left)->array = arr;
  return true;
}

/* Item `n` of a tuple of constant arrays: an earlier constant array (by name) or an array
 * built in place, which becomes a constant of its own, named NAME_k but not by Python (only
 * the tuple reaches it); NULL, with *why where NumPy's call cannot be evaluated. */
static Const *tuple_array_item(Lowerer *L, TSNode left, TSNode n, int k, const char **why) {
  *why = NULL;
  if (node_is(L, n, K_identifier)) {
    Const *c = find_const(L, node_str(L, n));
    return c && c->array ? c : NULL;
  }
  ConstArray *arr = lower_const_array(L, n, why);
  if (!arr) return NULL;
  Const *c = arena_alloc(L->a, sizeof *c);
  c->name = arena_printf(L->a, "%s_%d", node_str(L, left), k);
  c->loc = node_loc(L, n);
  c->value = ast_new_expr(L->a, EX_CONST, c->loc);
  c->value->konst = c;
  c->array = arr;
  vec_push(L->a, &L->m->consts, c);
  return c;
}

/* NAME = (np.array(...), B, ...): a tuple of constant arrays, of any dtypes and shapes, as
 * Numba freezes a global tuple of arrays (kernels iterate one with literal_unroll). Its value
 * is the tuple of the arrays' constants; each use is a copy of it (lower_expr.c). */
static bool lower_module_array_tuple(Lowerer *L, TSNode left, TSNode right) {
  if (!node_is(L, right, K_tuple)) return false;
  TSNode items[64];
  int n = node_kids(L, right, items, 64);
  if (n == 0 || n > 64) return false;
  Expr **kids = arena_alloc(L->a, sizeof *kids * (size_t)n);
  for (int k = 0; k < n; k++) {
    const char *why;
    Const *c = tuple_array_item(L, left, items[k], k, &why);
    if (!c) {
      if (why) add_other_global(L, left, why);
      return why != NULL;
    }
    kids[k] = c->value;
  }
  Const *t = add_self_named_const(L, left);
  t->value = ast_new_expr(L->a, EX_TUPLE, t->loc);
  t->value->kids = kids;
  t->value->nkids = n;
  t->array_tuple = true;
  return true;
}

/* NAME = cuda._captured_array(...): a device array captured from a Python global. */
static bool lower_module_captured(Lowerer *L, TSNode left, TSNode right) {
  bool is_one;
  CapturedArray *c = lower_captured_array(L, right, &is_one);
  if (c) add_self_named_const(L, left)->captured = c;
  return is_one;
}

/* NAME = np.dtype([...]): a record dtype (lower_record.c), which shared and local arrays take. */
static bool lower_module_record(Lowerer *L, TSNode left, TSNode right) {
  const char *why;
  RecordDtype *r = lower_record_dtype(L, right, &why);
  if (!r) {
    if (why) {
      add_other_global(L, left, why);
      L->others.items[L->others.len - 1].record = true;
    }
    return why != NULL;
  }
  add_self_named_const(L, left)->record = r;
  return true;
}

/* NAME = "text": a str constant, which a kernel may give as an exception's message (Numba
 * freezes it as it freezes numbers). Only a plain string literal, not an f-string or bytes. */
static bool lower_module_string(Lowerer *L, TSNode left, TSNode right) {
  if (!node_is(L, right, K_string) && !node_is(L, right, K_concatenated_string)) return false;
  size_t errors = L->c->error_count, ndiags = L->c->diags.len;
  const char *s;
  size_t len;
  bool ok = lower_string_value(L, right, &s, &len) && strlen(s) == len;
  L->c->error_count = errors;
  L->c->diags.len = ndiags;
  if (ok) strmap_put(&L->str_by_name, node_str(L, left), (void *)s);
  else add_other_global(L, left, NULL);
  return true;
}

/* NAME = value at module level: a compile-time constant when value folds to literals. */
static void lower_module_assign(Lowerer *L, TSNode n) {
  TSNode left = lower_field(L, n, F_left);
  TSNode right = lower_field(L, n, F_right);
  if (ts_node_is_null(right) || !node_is(L, left, K_identifier)) return;
  if (node_is(L, right, K_assignment)) return;   /* a = b = ...: left as other globals */
  if (lower_declare_device(L, left, right) || lower_module_captured(L, left, right)) return;
  TSNode *value = arena_alloc(L->a, sizeof *value);
  *value = right;
  strmap_put(&L->value_by_name, node_str(L, left), value);
  if (lower_module_string(L, left, right) || lower_module_record(L, left, right)) return;
  int errors = (int)L->c->error_count;
  size_t ndiags = L->c->diags.len;
  const Type *np;
  const char *why;
  Expr *v = fold_const_value(L, right, &np, &why);
  /* A value we cannot fold is not an error until a kernel uses it. */
  L->c->error_count = (size_t)errors;
  L->c->diags.len = ndiags;
  if (!v && (lower_module_array(L, left, right) || lower_module_array_tuple(L, left, right))) return;
  if (!v) {
    add_other_global(L, left, why);
    return;
  }
  Const *k = arena_alloc(L->a, sizeof *k);
  k->name = node_str(L, left);
  k->loc = node_loc(L, left);
  k->value = v;
  k->scalar = np;
  vec_push(L->a, &L->m->consts, k);
  strmap_put(&L->const_by_name, k->name, k);
}

/* ---- decorators and function headers ---- */

void lower_add_sig(Lowerer *L, Function *f, TSNode n) {
  SigText s = {0};
  if (node_is(L, n, K_string)) {
    if (!lower_string_value(L, n, &s.text, &s.len)) return;
    s.loc = node_loc(L, n);
    s.loc.col += 1;   /* past the opening quote */
  } else {
    s.text = node_text(L, n, &s.len);
    s.loc = node_loc(L, n);
  }
  SigText *sigs = arena_alloc(L->a, sizeof *sigs * (size_t)(f->nsigs + 1));
  if (f->nsigs) memcpy(sigs, f->sigs, sizeof *sigs * (size_t)f->nsigs);
  sigs[f->nsigs++] = s;
  f->sigs = sigs;
}

/* Options of numba.cuda.jit that change nothing in the translation (docs/python.md: the Python
 * package accepts the same ones). debug and boundscheck are read (lower_jit_keyword): both turn
 * on bounds checking, and debug also makes raise and assert report; fastmath, lineinfo and opt
 * are read too (they choose NVRTC's options: docs/python.md, "Options that change the code"),
 * and link (the CUDA C compiled with the module: lower_link.c). */
static const char *const ignored_jit_options[] = {"cache",
                                                  "inline", "max_registers", "lto",
                                                  "extensions", "shared_memory_carveout", NULL};

static bool is_ignored_option(const char *name) {
  for (int i = 0; ignored_jit_options[i]; i++)
    if (strcmp(ignored_jit_options[i], name) == 0) return true;
  return false;
}

/* An int literal's truth: some digit other than 0 (past a 0x/0o/0b prefix; '_' separates). */
static bool int_literal_true(const char *t) {
  if (t[0] == '0' && t[1] && strchr("xXoObB", t[1])) t += 2;
  for (; *t; t++)
    if (*t != '0' && *t != '_') return true;
  return false;
}

/* fastmath={'arcp', 'contract', ...}: Numba's flag sets. Any non-empty one turns on all of
 * fastmath, as Numba's CUDA target does (its NVVM options follow the option's truth). */
static bool fastmath_flag_set(Lowerer *L, TSNode val) {
  if (node_is(L, val, K_false) || node_is(L, val, K_none) || node_is(L, val, K_integer) ||
      node_is(L, val, K_identifier))
    return false;
  TSNode kids[1];
  return node_kids(L, val, kids, 1) > 0;
}

/* One bound of launch_bounds=: a positive int literal that fits CUDA's int. */
static bool launch_bound(Lowerer *L, TSNode n, int64_t *out) {
  size_t len;
  const char *s = node_text(L, n, &len);
  PyNum v;
  bool is_unsigned;
  return node_is(L, n, K_integer) && pynum_parse_int(s, len, &v) && pynum_to_int64(&v, out, &is_unsigned) &&
         *out > 0 && *out <= INT32_MAX;
}

/* launch_bounds=N or a tuple of one to three (numba-cuda's: the most threads per block, the
 * fewest blocks per multiprocessor, the most blocks per cluster), each a positive int literal;
 * more than three is numba-cuda's error (E-launch-bounds, its ValueError in the package). */
static void lower_launch_bounds(Lowerer *L, Function *f, TSNode val) {
  TSNode kids[4];
  bool tuple = node_is(L, val, K_tuple) || node_is(L, val, K_parenthesized_expression);
  int k = tuple ? node_kids(L, val, kids, 4) : (kids[0] = val, 1);
  if (k > 3) {
    diag_error(L->c, node_loc(L, val), "E-launch-bounds", "Got %d launch bounds: %s. A maximum of three are "
               "supported: (max_threads_per_block, min_blocks_per_sm, max_blocks_per_cluster)", k,
               node_str(L, val));
    return;
  }
  for (int i = 0; i < k; i++)
    if (!launch_bound(L, kids[i], &f->launch_bounds[i])) {
      diag_error(L->c, node_loc(L, val), "E-launch-bounds", "launch_bounds= must be a positive int literal "
                 "or a tuple of one to three of them (max_threads_per_block, min_blocks_per_sm, "
                 "max_blocks_per_cluster)");
      return;
    }
  f->nlaunch_bounds = k;
}

/* device=..., debug=... and boundscheck=...: read as Numba reads them, by their truth: True,
 * False, None or an int literal. Any other debug= or boundscheck= value (a module flag) is taken
 * as False, as before they had a meaning here; any other device= value is an error. */
static void lower_jit_keyword(Lowerer *L, Function *f, TSNode kw) {
  char *name = node_str(L, lower_field(L, kw, F_name));
  TSNode val = lower_field(L, kw, F_value);
  bool truth = node_is(L, val, K_true) || (node_is(L, val, K_integer) && int_literal_true(node_str(L, val)));
  if (strcmp(name, "debug") == 0) {
    f->debug = truth;
  } else if (strcmp(name, "boundscheck") == 0) {
    f->boundscheck = truth;
  } else if (strcmp(name, "fastmath") == 0) {
    f->fastmath = truth || fastmath_flag_set(L, val);
  } else if (strcmp(name, "lineinfo") == 0) {
    f->lineinfo = truth;
  } else if (strcmp(name, "forceinline") == 0) {
    f->forceinline = truth;
  } else if (strcmp(name, "launch_bounds") == 0) {
    lower_launch_bounds(L, f, val);
  } else if (strcmp(name, "link") == 0) {
    lower_link_list(L, val);   /* CUDA C compiled with the module (lower_link.c) */
  } else if (strcmp(name, "opt") == 0) {   /* only a literal False (or 0) turns it off */
    f->noopt = node_is(L, val, K_false) || (node_is(L, val, K_integer) && !truth);
  } else if (strcmp(name, "device") == 0) {
    if (truth)
      f->kind = FN_DEVICE;
    else if (!node_is(L, val, K_false) && !node_is(L, val, K_integer) && strcmp(node_str(L, val), "None") != 0)
      diag_error(L->c, node_loc(L, val), "E-decorator", "device= must be True, False, None or an int literal");
  } else if (!is_ignored_option(name)) {
    diag_error(L->c, node_loc(L, kw), "E-decorator", "unsupported option '%s' of cuda.jit", name);
  }
}

/* lower_add_sigs; `depth` bounds a chain of names (s = s names itself). */
static void add_sigs(Lowerer *L, Function *f, TSNode n, int depth) {
  if (node_is(L, n, K_identifier) && depth < 8) {
    const TSNode *value = strmap_get(&L->value_by_name, node_str(L, n));
    if (value) {
      add_sigs(L, f, *value, depth + 1);
      return;
    }
  }
  if (!node_is(L, n, K_list) && !node_is(L, n, K_tuple)) {
    lower_add_sig(L, f, n);
    return;
  }
  TSNode items[64];
  int k = node_kids(L, n, items, 64);
  if (k > 64) diag_error(L->c, node_loc(L, n), "E-decorator", "more than 64 signatures");
  for (int j = 0; j < k && j < 64; j++) add_sigs(L, f, items[j], depth);
}

void lower_add_sigs(Lowerer *L, Function *f, TSNode n) { add_sigs(L, f, n, 0); }

/* The arguments of @cuda.jit(...): signatures (strings, lists of strings, type expressions, or
 * names bound to those) and keywords. */
static void lower_jit_args(Lowerer *L, Function *f, TSNode args) {
  TSNode kids[64];
  int k = node_kids(L, args, kids, 64);
  for (int i = 0; i < k && i < 64; i++) {
    TSNode a = kids[i];
    if (node_is(L, a, K_keyword_argument)) lower_jit_keyword(L, f, a);
    else lower_add_sigs(L, f, a);
  }
}

/* Options of numba.jit and njit that change nothing in the translation: a @jit function's C is
 * the same whatever they say (docs/python.md, "CPU functions"). debug= and boundscheck= are read
 * as cuda.jit's; parallel= by its truth (True or a nonzero int literal), as Function.parallel. */
static const char *const ignored_cpu_jit_options[] = {"nopython", "nogil", "cache",
                                                      "fastmath", "error_model", "inline", "looplift",
                                                      "forceinline", "no_cpython_wrapper",
                                                      "no_cfunc_wrapper", "_nrt", NULL};

/* One keyword of @numba.jit(...)/@njit(...). */
static void lower_cpu_jit_keyword(Lowerer *L, Function *f, TSNode kw) {
  char *name = node_str(L, lower_field(L, kw, F_name));
  for (int i = 0; ignored_cpu_jit_options[i]; i++)
    if (strcmp(ignored_cpu_jit_options[i], name) == 0) return;
  if (strcmp(name, "debug") == 0 || strcmp(name, "boundscheck") == 0) {
    lower_jit_keyword(L, f, kw);
    return;
  }
  if (strcmp(name, "parallel") == 0) {   /* its prange loops run over the cores (analysis/parallel.c) */
    TSNode val = lower_field(L, kw, F_value);
    f->parallel = node_is(L, val, K_true) || (node_is(L, val, K_integer) && int_literal_true(node_str(L, val)));
    return;
  }
  diag_error(L->c, node_loc(L, kw), "E-decorator", "unsupported option '%s' of numba.jit", name);
}

/* @numba.jit, @njit, with signatures and options: a function the host may call (compiled for
 * the CPU, Function.host_jit) that kernels call as a device function. */
static void lower_cpu_jit(Lowerer *L, Function *f, TSNode e) {
  f->kind = FN_DEVICE;
  f->host_jit = true;
  if (!node_is(L, e, K_call)) return;
  TSNode kids[64];
  int k = node_kids(L, lower_field(L, e, F_arguments), kids, 64);
  for (int i = 0; i < k && i < 64; i++) {
    if (node_is(L, kids[i], K_keyword_argument)) lower_cpu_jit_keyword(L, f, kids[i]);
    else lower_add_sigs(L, f, kids[i]);
  }
}

/* Looks at a function's decorators; returns true when it is a cuda.jit, numba.jit or vectorize
 * function. */
static bool lower_decorators(Lowerer *L, TSNode def, Function *f) {
  TSNode kids[16];
  int k = node_kids(L, def, kids, 16);
  bool is_cuda = false;
  for (int i = 0; i < k && i < 16; i++) {
    if (!node_is(L, kids[i], K_decorator)) continue;
    TSNode e = ts_node_named_child(kids[i], 0);
    TSNode callee = node_is(L, e, K_call) ? lower_field(L, e, F_function) : e;
    Resolved r;
    if (!resolve_dotted(L, callee, &r) || !r.builtin) continue;
    if (r.builtin->id == BI_VECTORIZE) return lower_vectorize_decorator(L, f, e, r.path);
    if (r.builtin->id == BI_GUVECTORIZE) return lower_guvectorize_decorator(L, f, e);
    if (r.builtin->id == BI_STENCIL) return lower_stencil_decorator(L, f, e);
    if (r.builtin->id == BI_JIT) {
      lower_cpu_jit(L, f, e);
      return true;
    }
    if (r.builtin->id != BI_CUDA_JIT) continue;
    is_cuda = true;
    if (node_is(L, e, K_call)) lower_jit_args(L, f, lower_field(L, e, F_arguments));
  }
  return is_cuda;
}

/* Appends a variable to f (the function being declared or lowered), growing its array
 * geometrically. */
static int append_var(Lowerer *L, Function *f, Var v) {
  if (f->nvars == L->vars_cap) {
    if (L->vars_cap > INT_MAX / 2) arena_oom(L->a);
    int cap = L->vars_cap ? 2 * L->vars_cap : 8;
    Var *vars = arena_alloc(L->a, sizeof *vars * (size_t)cap);
    if (f->nvars) memcpy(vars, f->vars, sizeof *vars * (size_t)f->nvars);
    f->vars = vars;
    L->vars_cap = cap;
  }
  f->vars[f->nvars] = v;
  return f->nvars++;
}

static int param_index(const Function *f, const char *name) {
  for (int i = 0; i < f->nvars; i++)
    if (strcmp(f->vars[i].name, name) == 0) return i;
  return -1;
}

/* A local of the function being lowered (L->fn), declared on its first binding. */
static int add_local(Lowerer *L, const char *name, Loc loc) {
  int i = find_var(L, name);
  if (i >= 0) return i;
  i = append_var(L, L->fn, (Var){.name = name, .loc = loc});
  strmap_put(&L->var_by_name, name, (void *)(uintptr_t)(i + 1));
  return i;
}

/* Whether default value e is a constant Python evaluates once, as the def runs: a literal
 * (negated, too), None, a module constant, or a tuple of those. */
static bool constant_default(const Expr *e) {
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT:
  case EX_IMAG:
  case EX_BOOL:
  case EX_NONE:
  case EX_CONST: return true;
  case EX_UNARY: return (e->op == OP_NEG || e->op == OP_POS) && constant_default(e->kids[0]);
  case EX_TUPLE:
    for (int i = 0; i < e->nkids; i++)
      if (!constant_default(e->kids[i])) return false;
    return true;
  default: return false;
  }
}

/* The default value of parameter node p (name=value, name: type=value), lowered before the
 * parameters are known, as Python evaluates it outside the function; NULL after an error. */
static Expr *lower_default(Lowerer *L, TSNode p) {
  TSNode v = lower_field(L, p, F_value);
  Expr *e = node_is(L, v, K_none) ? ast_new_expr(L->a, EX_NONE, node_loc(L, v)) : lower_expr(L, v);
  if (e && !constant_default(e)) {
    diag_error(L->c, node_loc(L, v), "E-unsupported", "a default value must be a constant (a number, a "
               "bool, None, a module constant or a tuple of those)");
    return NULL;
  }
  return e;
}

/* The node that names parameter p (an identifier unless p is *args, **kwargs, / or *), and
 * whether p has a default value (name=value, name: type=value). */
static TSNode param_name(Lowerer *L, TSNode p, bool *has_default) {
  *has_default = node_is(L, p, K_default_parameter) || node_is(L, p, K_typed_default_parameter);
  if (*has_default) return lower_field(L, p, F_name);
  return node_is(L, p, K_typed_parameter) ? ts_node_named_child(p, 0) : p;   /* annotation ignored */
}

/* Whether parameter node p is `*NAME` of a device function, which takes the extra positional
 * arguments as a tuple (Numba's StarArgTuple; typeinfer packs them: bind_call_args). Kernels
 * take each argument by a parameter of its own. */
static bool is_vararg(Lowerer *L, const Function *f, TSNode p) {
  return f->kind == FN_DEVICE && node_is(L, p, K_list_splat_pattern) && ts_node_named_child_count(p) == 1 &&
         node_is(L, ts_node_named_child(p, 0), K_identifier);
}

void lower_params(Lowerer *L, Function *f, TSNode params) {
  TSNode kids[256];
  int k = node_kids(L, params, kids, 256);
  if (k > 256) {
    diag_error(L->c, node_loc(L, params), "E-too-many", "more than 256 parameters");
    k = 256;
  }
  bool any_default = false;
  TSNode refused[256];
  int nrefused = 0;
  for (int i = 0; i < k; i++) {
    bool has_default;
    TSNode p = param_name(L, kids[i], &has_default);
    if (f->vararg && node_is(L, p, K_identifier)) {   /* after *args: keyword-only */
      lower_unsupported(L, kids[i], "a parameter after *args (keyword-only)");
      refused[nrefused++] = p;   /* named below */
      continue;
    }
    if (is_vararg(L, f, p)) {
      p = ts_node_named_child(p, 0);
      if (param_index(f, node_str(L, p)) >= 0) {
        diag_error(L->c, node_loc(L, p), "E-duplicate-param", "duplicate parameter '%s'", node_str(L, p));
        continue;
      }
      append_var(L, f, (Var){.name = node_str(L, p), .loc = node_loc(L, p), .is_param = true});
      f->vararg = f->nvars;
      continue;
    }
    if (!node_is(L, p, K_identifier)) {
      lower_unsupported(L, kids[i], "this kind of parameter (*args, **kwargs, / and *)");
      if (ts_node_named_child_count(p) == 1 && node_is(L, ts_node_named_child(p, 0), K_identifier))
        refused[nrefused++] = ts_node_named_child(p, 0);   /* *rest, **kw: named below */
      continue;
    }
    char *name = node_str(L, p);
    if (param_index(f, name) >= 0) {
      diag_error(L->c, node_loc(L, p), "E-duplicate-param", "duplicate parameter '%s'", name);
      continue;
    }
    if (has_default && f->kind != FN_DEVICE) {
      diag_error(L->c, node_loc(L, kids[i]), "E-unsupported", "default values are supported on a device "
                 "function's parameters; a %s takes every argument", f->kind == FN_KERNEL ? "kernel" : "ufunc");
    } else if (has_default) {
      any_default = true;   /* its value is lowered with the body (lower_defaults) */
    } else if (any_default) {
      diag_error(L->c, node_loc(L, p), "E-syntax", "parameter '%s' without a default follows one with a default", name);
    }
    append_var(L, f, (Var){.name = name, .loc = node_loc(L, p), .is_param = true});
  }
  f->nparams = f->nvars;
  if (any_default) f->defaults = arena_alloc(L->a, sizeof *f->defaults * (size_t)f->nparams);
  /* The names of refused parameters are known, and poisoned: their uses add no errors. */
  for (int i = 0; i < nrefused; i++)
    append_var(L, f, (Var){.name = node_str(L, refused[i]), .loc = node_loc(L, refused[i]), .poisoned = true});
}

/* The default values of f's parameters, lowered where Python evaluates them, in the module's
 * scope (its constants are all declared by now, wherever they appear in the source). */
void lower_defaults(Lowerer *L, Function *f, TSNode params) {
  if (!f->defaults) return;
  TSNode kids[256];
  int k = node_kids(L, params, kids, 256), j = 0;
  for (int i = 0; i < k && i < 256 && j < f->nparams; i++) {
    bool has_default;
    TSNode name = param_name(L, kids[i], &has_default);
    if (!node_is(L, name, K_identifier) || strcmp(f->vars[j].name, node_str(L, name)) != 0) continue;   /* refused */
    if (has_default) f->defaults[j] = lower_default(L, kids[i]);
    j++;
  }
}

/* ---- locals: every name bound in the body ---- */

static void collect_target(Lowerer *L, TSNode t) {
  if (node_is(L, t, K_identifier)) {
    add_local(L, node_str(L, t), node_loc(L, t));
  } else if (node_is(L, t, K_pattern_list) || node_is(L, t, K_tuple_pattern) ||
             node_is(L, t, K_parenthesized_expression) || node_is(L, t, K_tuple)) {
    TSNode kids[64];
    int k = node_kids(L, t, kids, 64);
    for (int i = 0; i < k && i < 64; i++) collect_target(L, kids[i]);
  }
}

static bool is_assignment(const Lowerer *L, TSNode n) {
  NodeKind k = node_kind(L, n);
  return k == K_assignment || k == K_augmented_assignment;
}

/* Declares the names that node n binds directly; false when its subtree is another scope. */
static bool bind_names(Lowerer *L, TSNode n) {
  if (node_is(L, n, K_function_definition) || node_is(L, n, K_class_definition) || node_is(L, n, K_lambda))
    return false;
  if (is_assignment(L, n) || node_is(L, n, K_for_statement)) collect_target(L, lower_field(L, n, F_left));
  else if (node_is(L, n, K_named_expression)) collect_target(L, lower_field(L, n, F_name));
  return true;
}

/* Whether a subtree below n can bind a name. Statements hold other statements; within an
 * expression only a walrus binds (comprehensions and lambdas are other scopes), so an
 * expression whose text has no ":=" need not be walked. Most of a body is expressions: this
 * prunes most of the walk. An assignment's value can be another assignment (a = b = 1). */
static bool may_bind_below(Lowerer *L, TSNode n) {
  TSSymbol sym = ts_node_symbol(n);
  if (sym < L->symbols.count && L->symbols.holds_statements[sym]) return true;
  size_t len;
  const char *text = node_text(L, n, &len);
  for (size_t i = 0; i + 1 < len; i++)
    if (text[i] == ':' && text[i + 1] == '=') return true;
  return false;
}

/* Declares every name bound in body, in the order of first binding, with one cursor walk
 * (no recursion, no allocation per node). Of an assignment's children only the value is
 * searched further: its targets are bound above. Past P2C_MAX_NESTING nothing is searched; the
 * lowering of the body reports the depth. */
static void walk_locals(Lowerer *L, TSTreeCursor *cur) {
  bool below_assignment[P2C_MAX_NESTING + 2] = {false};   /* per depth: the parent is one */
  int depth = 0;
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(cur);
    bool search = ts_node_is_named(n) && depth <= P2C_MAX_NESTING;
    if (below_assignment[depth] && ts_tree_cursor_current_field_id(cur) != L->field_ids[F_right])
      search = false;
    if (search && bind_names(L, n) && may_bind_below(L, n) && ts_tree_cursor_goto_first_child(cur)) {
      below_assignment[++depth] = is_assignment(L, n);
      continue;
    }
    while (depth > 0 && !ts_tree_cursor_goto_next_sibling(cur)) {
      ts_tree_cursor_goto_parent(cur);
      depth--;
    }
    if (depth == 0) break;
  }
}

/* The walk allocates (each local's name and slot) while its cursor, which tree-sitter mallocs,
 * is alive: out of memory deletes the cursor on its way out. The cursor is kept in *L, not in
 * this frame, so that it is still what it was when the jump lands here. */
void lower_collect_locals(Lowerer *L, TSNode body) {
  L->walk = ts_tree_cursor_new(body);
  jmp_buf *outer = L->a->oom;
  jmp_buf here;
  if (setjmp(here)) {
    ts_tree_cursor_delete(&L->walk);
    L->a->oom = outer;
    arena_oom(L->a);
  }
  L->a->oom = &here;
  walk_locals(L, &L->walk);
  L->a->oom = outer;
  ts_tree_cursor_delete(&L->walk);
}

/* ---- functions ---- */

static void lower_function_body(Lowerer *L, Function *f, TSNode def) {
  strmap_init(&L->var_by_name, L->a);   /* empty: a default value sees the module's names */
  lower_defaults(L, f, lower_field(L, def, F_parameters));
  L->fn = f;
  L->vars_cap = f->nvars;   /* the parameters' array: the first local reallocates it */
  for (int i = 0; i < f->nvars; i++)
    strmap_put(&L->var_by_name, f->vars[i].name, (void *)(uintptr_t)(i + 1));
  TSNode body = lower_field(L, def, F_body);
  Scope scope = {.body = body};   /* the functions nested in it (lower_nested.c) */
  strmap_init(&scope.nested, L->a);
  L->scope = &scope;
  if (!ts_node_is_null(body)) lower_collect_locals(L, body);
  f->body = lower_block(L, body);
  L->fn = NULL;
  L->scope = NULL;
  frontend_split_loop_vars(L->a, f);
  if (!lower_is_stencil_body(L, f)) frontend_split_webs(L->a, f);   /* stencil.c says why */
  defuse_check(L->c, f);
}

/* First pass over a decorated definition: a cuda.jit function is recorded with its
 * parameters; its body waits for the second pass. */
static Function *declare_function(Lowerer *L, TSNode decorated) {
  TSNode def = lower_field(L, decorated, F_definition);
  if (!node_is(L, def, K_function_definition)) return NULL;
  Function *f = arena_alloc(L->a, sizeof *f);
  f->kind = FN_KERNEL;
  L->gufunc = NULL;   /* set by a @guvectorize among the decorators */
  L->stencil = NULL;  /* set by a @stencil */
  if (!lower_decorators(L, decorated, f)) return NULL;
  if (node_is(L, ts_node_child(def, 0), K_async)) {
    lower_unsupported(L, def, "an async function");
    return NULL;
  }
  TSNode name = lower_field(L, def, F_name);
  f->name = node_str(L, name);
  f->loc = node_loc(L, name);
  if (L->stencil) {   /* not a function calls may name: a call of it is E-stencil (lower_expr.c) */
    add_other_global(L, name, NULL);
    L->others.items[L->others.len - 1].stencil = true;
  } else if (!strmap_add(&L->func_by_name, f->name, f)) {
    diag_error(L->c, f->loc, "E-redefined", "function '%s' is defined twice", f->name);
  }
  L->vars_cap = 0;
  lower_params(L, f, lower_field(L, def, F_parameters));
  vec_push(L->a, &L->m->funcs, f);
  if (L->gufunc) {   /* a gufunc's kernel, made now that the core's parameters are known */
    Function *k = lower_guvectorize_kernel(L, f);
    if (k) vec_push(L->a, &L->gufunc_kernels, k);
  }
  if (L->stencil) lower_stencil_declared(L, f);
  return f;
}

/* ---- syntax errors ---- */

/* Reports the first ERROR or MISSING node, found without recursion (and reported once the
 * cursor is gone: the report allocates, and out of memory would leave the cursor behind).
 * The token checks' problem `tp` (tokens.c), when there is one inside or before the damaged
 * part, is reported instead: it is where Python reports, and says what was expected. */
static bool report_syntax_errors(Lowerer *L, TSNode root, const TokenProblem *tp) {
  if (!ts_node_has_error(root)) return false;
  TSTreeCursor cur = ts_tree_cursor_new(root);
  TSNode bad = root;
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cur);
    if (ts_node_is_missing(n) || node_is(L, n, K_ERROR)) {
      bad = n;
      break;
    }
    if (ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&cur)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cur))
      if (!ts_tree_cursor_goto_parent(&cur)) goto done;
  }
done:
  ts_tree_cursor_delete(&cur);
  if (tp && tp->offset <= ts_node_end_byte(bad))
    diag_error(L->c, source_loc(L->c, tp->offset), tp->code, "%s", tp->message);
  else if (ts_node_is_missing(bad))
    diag_error(L->c, node_loc(L, bad), "E-syntax", "invalid syntax: expected '%s'", ts_node_type(bad));
  else if (node_is(L, bad, K_ERROR))
    diag_error(L->c, node_loc(L, bad), "E-syntax", "invalid syntax");
  return true;
}

/* ---- the module ---- */

typedef VEC(TSNode) NodeVec;

static void declare_module_item(Lowerer *L, TSNode n, NodeVec *defs) {
  if (node_is(L, n, K_import_statement)) lower_import(L, n);
  else if (node_is(L, n, K_import_from_statement)) lower_import_from(L, n);
  else if (node_is(L, n, K_decorated_definition)) {
    if (declare_function(L, n)) vec_push(L->a, defs, n);
  } else if (node_is(L, n, K_expression_statement)) {
    TSNode e = ts_node_named_child(n, 0);
    if (node_is(L, e, K_assignment)) lower_module_assign(L, e);
    else if (!node_is(L, e, K_string) && !L->m->host_code.line) L->m->host_code = node_loc(L, n);
  } else if (node_is(L, n, K_class_definition)) {
    lower_module_class(L, n);
  } else if (node_is(L, n, K_function_definition)) {
    add_other_global(L, lower_field(L, n, F_name), NULL);
  } else if (!node_is(L, n, K_comment) && !L->m->host_code.line) {
    L->m->host_code = node_loc(L, n);   /* if, for, while, with, try, ... at module level */
  }
}

/* Lowers the bodies of the functions [first, end) of the module; defs[i] declared
 * L->m->funcs.items[i]. */
static void lower_bodies(Lowerer *L, const TSNode *defs, size_t first, size_t end) {
  for (size_t i = first; i < end; i++)
    lower_function_body(L, L->m->funcs.items[i], lower_field(L, defs[i], F_definition));
}

/* Bodies [first, end) for one thread (side.h's work functions take one pointer). */
typedef struct BodyRange {
  Lowerer *L;
  const TSNode *defs;
  size_t first, end;
} BodyRange;

static void lower_body_range(void *arg) {
  BodyRange *r = arg;
  lower_bodies(r->L, r->defs, r->first, r->end);
}

/* Lowers bodies [0, split) here and [split, end) on a second thread (util/side.h). Everything
 * the declarations built (names, constants, functions' headers) is only read while bodies are
 * lowered; what a body writes is its own, and the one flag bodies share (Const.used) is atomic.
 * The trees are not changed by anyone any more, and tree-sitter's reading functions keep their
 * state in the caller's nodes and cursors. */
static void lower_bodies_on_two_threads(Lowerer *L, const TSNode *defs, size_t split, size_t end) {
  Side side;
  Lowerer side_lowerer = *L;
  BodyRange here = {L, defs, 0, split}, there = {&side_lowerer, defs, split, end};
  side_prepare(&side, L->c, lower_body_range, &there);
  side_lowerer.c = &side.c;
  side_lowerer.a = &side.c.arena;
  side_lowerer.fn = NULL;
  side_run(&side, L->c, lower_body_range, &here);
  side_finish(&side, L->c, true);
  for (size_t i = 0; i < side_lowerer.nested_funcs.len; i++)
    vec_push(L->a, &L->nested_funcs, side_lowerer.nested_funcs.items[i]);
}

/* roots: the module's parts in source order (see parse.h). The declarations of every part
 * come first (a kernel may call a device function defined further down); then the bodies, on
 * two threads when the parse made two parts. */
static void lower_module(Lowerer *L, const TSNode *roots, int nroots) {
  NodeVec defs = {0};
  size_t first_def_of_part[2] = {0, 0};
  for (int r = 0; r < nroots; r++) {
    first_def_of_part[r] = defs.len;
    uint32_t count;
    TSNode *items = node_named_children(L, roots[r], &count);
    for (uint32_t i = 0; i < count; i++) declare_module_item(L, items[i], &defs);
  }
  /* This thread has declared every function (about an eighth of the work of lowering a body,
   * by callgrind), so it takes 44 % of the bodies and the second thread the rest; the second
   * thread may read both parts' trees, which nothing changes any more. */
  size_t split = nroots == 2 && first_def_of_part[1] > 0 ? defs.len * 44 / 100 : 0;
  if (split > 0 && split < defs.len) lower_bodies_on_two_threads(L, defs.items, split, defs.len);
  else lower_bodies(L, defs.items, 0, defs.len);
  /* after the bodies: lower_bodies pairs the module's functions with the definitions */
  for (size_t i = 0; i < L->gufunc_kernels.len; i++) vec_push(L->a, &L->m->funcs, L->gufunc_kernels.items[i]);
  for (size_t i = 0; i < L->stencils.len; i++) {   /* a stencil's kernel reads its lowered body */
    Function *k = lower_stencil_kernel(L, L->stencils.items[i]);
    if (k) vec_push(L->a, &L->m->funcs, k);
  }
  for (size_t i = 0; i < L->nested_funcs.len; i++) vec_push(L->a, &L->m->funcs, L->nested_funcs.items[i]);
  for (size_t i = 0; i < L->externs.len; i++) vec_push(L->a, &L->m->funcs, L->externs.items[i]);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Fills L->symbols: the NodeKind of each of the grammar's public symbols, and which symbols
 * are statements, clauses, blocks or assignments (see may_bind_below). */
static void init_symbol_table(Lowerer *L, const TSLanguage *python) {
  static const char *const kind_names[K_COUNT] = {
#define P2C_KIND_NAME(k) [K_##k] = #k,
      P2C_NODE_KINDS(P2C_KIND_NAME)
#undef P2C_KIND_NAME
  };
  SymbolTable *t = &L->symbols;
  t->count = ts_language_symbol_count(python);
  t->kind = arena_alloc(L->a, t->count);
  t->holds_statements = arena_alloc(L->a, sizeof *t->holds_statements * t->count);
  for (int k = K_other + 1; k < K_async; k++) {
    TSSymbol sym = ts_language_symbol_for_name(python, kind_names[k], (uint32_t)strlen(kind_names[k]), true);
    assert(sym != 0 && sym < t->count && "the Python grammar lacks a node kind the lowering reads");
    t->kind[sym] = (uint8_t)k;
  }
  TSSymbol async = ts_language_symbol_for_name(python, "async", 5, false);
  assert(async != 0 && async < t->count);
  t->kind[async] = K_async;
  for (uint32_t sym = 0; sym < t->count; sym++) {
    const char *name = ts_language_symbol_name(python, (TSSymbol)sym);
    t->holds_statements[sym] = ends_with(name, "_statement") || ends_with(name, "_clause") ||
                               strcmp(name, "block") == 0 || ends_with(name, "assignment");
  }
}

static void init_lowerer_tables(Lowerer *L) {
  strmap_init(&L->const_by_name, L->a);
  strmap_init(&L->func_by_name, L->a);
  strmap_init(&L->alias_by_name, L->a);
  strmap_init(&L->var_by_name, L->a);
  strmap_init(&L->builtin_by_path, L->a);
  strmap_init(&L->class_by_name, L->a);
  strmap_init(&L->str_by_name, L->a);
  strmap_init(&L->value_by_name, L->a);
  builtins_index(&L->builtin_by_path);
  static const char *const names[F_COUNT] = {
#define P2C_FIELD_NAME(f) #f,
      P2C_FIELDS(P2C_FIELD_NAME)
#undef P2C_FIELD_NAME
  };
  const TSLanguage *python = tree_sitter_python();
  for (int f = 0; f < F_COUNT; f++) {
    L->field_ids[f] = ts_language_field_id_for_name(python, names[f], (uint32_t)strlen(names[f]));
    assert(L->field_ids[f] != 0 && "the Python grammar lacks a field the lowering reads");
  }
  init_symbol_table(L, python);
}

bool frontend_run(Compilation *c, Module *m) {
  /* In the arena, not on this stack frame: an out-of-memory jump leaves the frame, and the
   * driver then releases the parsers through c->release. */
  ParseState *ps = arena_alloc(&c->arena, sizeof *ps);
  c->release = parse_release;
  c->release_arg = ps;
  size_t too_deep = parse_too_deep_offset(c->text, c->len, P2C_MAX_NESTING);
  if (too_deep != SIZE_MAX) {
    diag_error(c, source_loc(c, too_deep), "E-too-deep", "nesting deeper than %d levels is not supported",
               P2C_MAX_NESTING);
  } else if (parse_source(c, ps, c->parse_split_min)) {
    Lowerer L = {.c = c, .a = &c->arena, .m = m};
    init_lowerer_tables(&L);
    TSNode roots[2];
    TokenProblem problem;
    const TokenProblem *tp = source_check_tokens(c, &problem) ? NULL : &problem;
    bool syntax_errors = false;
    for (int i = 0; i < ps->count; i++) {
      roots[i] = ts_tree_root_node(ps->trees[i]);
      syntax_errors = syntax_errors || report_syntax_errors(&L, roots[i], tp);
    }
    /* What the grammar accepts and Python does not: tabs and spaces mixed, a bad dedent. */
    if (!syntax_errors && tp) {
      diag_error(c, source_loc(c, tp->offset), tp->code, "%s", tp->message);
      syntax_errors = true;
    }
    if (!syntax_errors) lower_module(&L, roots, ps->count);
    if (!syntax_errors && c->host_call_signatures) lower_host_calls(&L, roots, ps->count);
  } else {
    diag_error(c, (Loc){1, 1}, "E-internal", "tree-sitter rejected the Python grammar's ABI");
  }
  parse_release_in_background(ps);   /* c->release still waits for it: frontend_finish */
  return !diag_has_errors(c);
}

void frontend_finish(Compilation *c) {
  if (c->release != parse_release) return;
  parse_release(c->release_arg);
  c->release = NULL;
}
