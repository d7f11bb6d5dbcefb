/* Lowering of the tree-sitter CST to the AST: the module level (imports, constants, decorated
 * functions) and statements. Expressions are in lower_expr.c.
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
#include "util/side.h"

const TSLanguage *tree_sitter_python(void);

/* ---- CST helpers ---- */

const char *node_text(Lowerer *L, TSNode n, size_t *len) {
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  *len = e - s;
  return L->c->text + s;
}

static bool is_ascii(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)s[i] >= 0x80) return false;
  return true;
}

/* An identifier's name as Python sees it: NFKC-normalized (PEP 3131), so that "ﬁ" and "fi"
 * are one variable. ASCII is its own normal form. */
static char *identifier_name(Lowerer *L, const char *s, size_t len) {
  if (is_ascii(s, len)) return arena_strndup(L->a, s, len);
  size_t out_len = 0;
  uint8_t *nfkc = u8_normalize(UNINORM_NFKC, (const uint8_t *)s, len, NULL, &out_len);
  if (!nfkc) arena_oom(L->a);   /* the text is valid UTF-8 (source_prepare): only memory fails */
  char *name = arena_strndup(L->a, (const char *)nfkc, out_len);
  free(nfkc);
  return name;
}

char *node_str(Lowerer *L, TSNode n) {
  size_t len;
  const char *s = node_text(L, n, &len);
  if (node_is(L, n, K_identifier)) return identifier_name(L, s, len);
  return arena_strndup(L->a, s, len);
}

/* tree-sitter counts rows as it parses (the text's only line break is "\n", see source.c):
 * the row saves a search of the line table for every node. */
Loc node_loc(Lowerer *L, TSNode n) {
  return source_loc_on_row(L->c, ts_node_start_point(n).row, ts_node_start_byte(n));
}

NodeKind node_kind(const Lowerer *L, TSNode n) {
  TSSymbol sym = ts_node_symbol(n);
  if (sym < L->symbols.count) return (NodeKind)L->symbols.kind[sym];
  return sym == (TSSymbol)-1 ? K_ERROR : K_other;   /* (TSSymbol)-1 is tree-sitter's ERROR */
}

bool node_is(const Lowerer *L, TSNode n, NodeKind kind) { return node_kind(L, n) == kind; }

static bool is_extra(const Lowerer *L, TSNode n) {
  NodeKind k = node_kind(L, n);
  return k == K_comment || k == K_line_continuation;
}

/* A node with few children is read by index: tree-sitter 0.20 finds child i by walking from
 * the first (cost i), but its cursor pays about 250 instructions for each step to a sibling.
 * Past this many named children the cursor's linear walk wins. */
enum { KIDS_BY_INDEX_MAX = 8 };

int node_kids(const Lowerer *L, TSNode n, TSNode *out, int cap) {
  int k = 0;
  uint32_t named = ts_node_named_child_count(n);
  if (named <= KIDS_BY_INDEX_MAX) {
    for (uint32_t i = 0; i < named; i++) {
      TSNode ch = ts_node_named_child(n, i);
      if (is_extra(L, ch)) continue;
      if (k < cap) out[k] = ch;
      k++;
    }
    return k;
  }
  TSTreeCursor cur = ts_tree_cursor_new(n);
  for (bool more = ts_tree_cursor_goto_first_child(&cur); more;
       more = ts_tree_cursor_goto_next_sibling(&cur)) {
    TSNode ch = ts_tree_cursor_current_node(&cur);
    if (!ts_node_is_named(ch) || is_extra(L, ch)) continue;
    if (k < cap) out[k] = ch;
    k++;
  }
  ts_tree_cursor_delete(&cur);
  return k;
}

TSNode *node_named_children(Lowerer *L, TSNode n, uint32_t *count) {
  uint32_t cap = ts_node_named_child_count(n);
  /* Allocated before the cursor exists: running out of memory jumps out of this frame. */
  TSNode *kids = arena_alloc(L->a, sizeof *kids * (cap ? cap : 1));
  if (cap <= KIDS_BY_INDEX_MAX) {
    for (uint32_t i = 0; i < cap; i++) kids[i] = ts_node_named_child(n, i);
    *count = cap;
    return kids;
  }
  uint32_t k = 0;
  TSTreeCursor cur = ts_tree_cursor_new(n);
  for (bool more = ts_tree_cursor_goto_first_child(&cur); more && k < cap;
       more = ts_tree_cursor_goto_next_sibling(&cur)) {
    TSNode ch = ts_tree_cursor_current_node(&cur);
    if (ts_node_is_named(ch)) kids[k++] = ch;
  }
  ts_tree_cursor_delete(&cur);
  *count = k;
  return kids;
}

TSNode field(const Lowerer *L, TSNode n, Field f) { return ts_node_child_by_field_id(n, L->field_ids[f]); }

bool enter(Lowerer *L, TSNode n) {
  if (++L->depth <= P2C_MAX_NESTING) return true;
  if (L->depth == P2C_MAX_NESTING + 1)
    diag_error(L->c, node_loc(L, n), "E-too-deep", "nesting deeper than %d levels is not supported",
               P2C_MAX_NESTING);
  L->depth--;
  return false;
}

void leave(Lowerer *L) { L->depth--; }

void unsupported(Lowerer *L, TSNode n, const char *what) {
  diag_error(L->c, node_loc(L, n), "E-unsupported", "%s is not supported in kernels", what);
}

/* ---- names ---- */

int find_var(const Lowerer *L, const char *name) {
  if (!L->fn) return -1;
  return (int)((uintptr_t)strmap_get(&L->var_by_name, name)) - 1;
}

Const *find_const(const Lowerer *L, const char *name) { return strmap_get(&L->const_by_name, name); }

Function *find_func(const Lowerer *L, const char *name) { return strmap_get(&L->func_by_name, name); }

const char *alias_path(const Lowerer *L, const char *name) { return strmap_get(&L->alias_by_name, name); }

/* "builtins.NAME" when NAME is a Python builtin we know (the table's own string), else NULL. */
static const char *python_builtin_path(Lowerer *L, const char *name) {
  char path[64];
  if (snprintf(path, sizeof path, "builtins.%s", name) >= (int)sizeof path) return NULL;
  const Builtin *b = strmap_get(&L->builtin_by_path, path);
  return b ? b->path : NULL;
}

/* The module path of an identifier or attribute chain, or NULL if its root is not an import
 * alias or a Python builtin. */
static const char *dotted_path_at(Lowerer *L, TSNode n, int depth);

static const char *dotted_path(Lowerer *L, TSNode n) { return dotted_path_at(L, n, 0); }

static const char *dotted_path_at(Lowerer *L, TSNode n, int depth) {
  if (depth > P2C_MAX_NESTING) return NULL;   /* no builtin is that deep; the value path reports */
  if (node_is(L, n, K_identifier)) {
    char *name = node_str(L, n);
    if (find_var(L, name) >= 0 || find_const(L, name) || find_func(L, name)) return NULL;
    const char *p = alias_path(L, name);
    return p ? p : python_builtin_path(L, name);
  }
  if (!node_is(L, n, K_attribute)) return NULL;
  const char *base = dotted_path_at(L, field(L, n, F_object), depth + 1);
  if (!base) return NULL;
  TSNode attr = field(L, n, F_attribute);
  return arena_printf(L->a, "%s.%s", base, node_str(L, attr));
}

bool resolve_dotted(Lowerer *L, TSNode n, Resolved *out) {
  out->path = dotted_path(L, n);
  out->builtin = out->path ? strmap_get(&L->builtin_by_path, out->path) : NULL;
  return out->path != NULL;
}

/* ---- imports ---- */

static void add_alias(Lowerer *L, const char *name, const char *path) {
  strmap_put(&L->alias_by_name, name, (void *)path);
}

/* `X as Y`: binds Y to X, or to BASE.X inside `from BASE import`. */
static void add_aliased_import(Lowerer *L, TSNode n, const char *base) {
  const char *path = node_str(L, field(L, n, F_name));
  const char *as = node_str(L, field(L, n, F_alias));
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
  TSNode mod = field(L, n, F_module_name);
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
  OtherGlobal g = {node_str(L, target), node_loc(L, target), why};
  vec_push(L->a, &L->others, g);
}

/* NAME = np.array(...) and friends: a constant array (see lower_array.c). */
static bool lower_module_array(Lowerer *L, TSNode left, TSNode right) {
  const char *why;
  ConstArray *arr = lower_const_array(L, right, &why);
  if (!arr) {
    if (why) add_other_global(L, left, why);
    return why != NULL;
  }
  Const *k = arena_alloc(L->a, sizeof *k);
  k->name = node_str(L, left);
  k->loc = node_loc(L, left);
  k->array = arr;
  k->value = ast_new_expr(L->a, EX_CONST, k->loc);
  k->value->konst = k;
  vec_push(L->a, &L->m->consts, k);
  strmap_put(&L->const_by_name, k->name, k);
  return true;
}

/* NAME = value at module level: a compile-time constant when value folds to literals. */
static void lower_module_assign(Lowerer *L, TSNode n) {
  TSNode left = field(L, n, F_left);
  TSNode right = field(L, n, F_right);
  if (ts_node_is_null(right) || !node_is(L, left, K_identifier)) return;
  if (node_is(L, right, K_assignment)) return;   /* a = b = ...: left as other globals */
  if (lower_module_array(L, left, right)) return;
  int errors = (int)L->c->error_count;
  size_t ndiags = L->c->diags.len;
  Expr *v = fold_const_expr(L, right);
  /* A value we cannot fold is not an error until a kernel uses it. */
  L->c->error_count = (size_t)errors;
  L->c->diags.len = ndiags;
  if (!v) {
    add_other_global(L, left, NULL);
    return;
  }
  Const *k = arena_alloc(L->a, sizeof *k);
  k->name = node_str(L, left);
  k->loc = node_loc(L, left);
  k->value = v;
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

static const char *const ignored_jit_options[] = {"fastmath", "debug", "lineinfo", "cache",
                                                  "opt", "inline", "link", NULL};

static bool is_ignored_option(const char *name) {
  for (int i = 0; ignored_jit_options[i]; i++)
    if (strcmp(ignored_jit_options[i], name) == 0) return true;
  return false;
}

/* device=True / device=False */
static void lower_jit_keyword(Lowerer *L, Function *f, TSNode kw) {
  char *name = node_str(L, field(L, kw, F_name));
  TSNode val = field(L, kw, F_value);
  if (strcmp(name, "device") == 0) {
    if (node_is(L, val, K_true)) f->kind = FN_DEVICE;
    else if (!node_is(L, val, K_false))
      diag_error(L->c, node_loc(L, val), "E-decorator", "device= must be True or False");
  } else if (!is_ignored_option(name)) {
    diag_error(L->c, node_loc(L, kw), "E-decorator", "unsupported option '%s' of cuda.jit", name);
  }
}

/* The arguments of @cuda.jit(...): signatures (strings, lists of strings, or type
 * expressions) and keywords. */
static void lower_jit_args(Lowerer *L, Function *f, TSNode args) {
  TSNode kids[64];
  int k = node_kids(L, args, kids, 64);
  for (int i = 0; i < k && i < 64; i++) {
    TSNode a = kids[i];
    if (node_is(L, a, K_keyword_argument)) {
      lower_jit_keyword(L, f, a);
    } else if (node_is(L, a, K_list) || node_is(L, a, K_tuple)) {
      TSNode items[64];
      int n = node_kids(L, a, items, 64);
      for (int j = 0; j < n && j < 64; j++) lower_add_sig(L, f, items[j]);
    } else {
      lower_add_sig(L, f, a);
    }
  }
}

/* Looks at a function's decorators; returns true when it is a cuda.jit or vectorize function. */
static bool lower_decorators(Lowerer *L, TSNode def, Function *f) {
  TSNode kids[16];
  int k = node_kids(L, def, kids, 16);
  bool is_cuda = false;
  for (int i = 0; i < k && i < 16; i++) {
    if (!node_is(L, kids[i], K_decorator)) continue;
    TSNode e = ts_node_named_child(kids[i], 0);
    TSNode callee = node_is(L, e, K_call) ? field(L, e, F_function) : e;
    Resolved r;
    if (!resolve_dotted(L, callee, &r) || !r.builtin) continue;
    if (r.builtin->id == BI_VECTORIZE) return lower_vectorize_decorator(L, f, e, r.path);
    if (r.builtin->id != BI_CUDA_JIT) continue;
    is_cuda = true;
    if (node_is(L, e, K_call)) lower_jit_args(L, f, field(L, e, F_arguments));
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

static void lower_params(Lowerer *L, Function *f, TSNode params) {
  TSNode kids[256];
  int k = node_kids(L, params, kids, 256);
  if (k > 256) {
    diag_error(L->c, node_loc(L, params), "E-too-many", "more than 256 parameters");
    k = 256;
  }
  for (int i = 0; i < k; i++) {
    TSNode p = kids[i];
    if (node_is(L, p, K_typed_parameter)) p = ts_node_named_child(p, 0);   /* annotation ignored */
    if (!node_is(L, p, K_identifier)) {
      unsupported(L, kids[i], "this kind of parameter (defaults, *args, **kwargs)");
      continue;
    }
    char *name = node_str(L, p);
    if (param_index(f, name) >= 0) {
      diag_error(L->c, node_loc(L, p), "E-duplicate-param", "duplicate parameter '%s'", name);
      continue;
    }
    append_var(L, f, (Var){.name = name, .loc = node_loc(L, p), .is_param = true});
  }
  f->nparams = f->nvars;
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
  if (is_assignment(L, n) || node_is(L, n, K_for_statement)) collect_target(L, field(L, n, F_left));
  else if (node_is(L, n, K_named_expression)) collect_target(L, field(L, n, F_name));
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
static void collect_locals(Lowerer *L, TSNode body) {
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

/* ---- statements ---- */

static Block lower_block(Lowerer *L, TSNode block);

static Stmt *new_stmt(Lowerer *L, StmtKind kind, TSNode n) {
  Stmt *s = ast_new_stmt(L->a, kind, node_loc(L, n));
  TSPoint end = ts_node_end_point(n);   /* the line of the statement's last character: */
  s->end_line = end.column == 0 && end.row > 0 ? end.row : end.row + 1;
  return s;
}

static bool is_assign_target(Expr *e) {
  if (e->kind == EX_VAR || e->kind == EX_INDEX) return true;
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
    if (!ts_node_is_null(field(L, cur, F_type))) {
      unsupported(L, cur, "an annotated assignment");
      return NULL;
    }
    if (nt == 32) {
      unsupported(L, cur, "more than 32 chained assignment targets");
      return NULL;
    }
    targets[nt++] = lower_target(L, field(L, cur, F_left));
    TSNode right = field(L, cur, F_right);
    if (ts_node_is_null(right)) {
      unsupported(L, cur, "a declaration without a value");
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
  TSNode opn = field(L, n, F_operator);
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
  TSNode left = field(L, n, F_left);
  Expr *t = lower_target(L, left);
  Expr *kids[2] = {lower_expr(L, left), lower_expr(L, field(L, n, F_right))};
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
    unsupported(L, n, "a tuple expression statement");
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
    TSNode c = field(L, alts[0], F_condition);
    TSNode b = field(L, alts[0], F_consequence);
    Stmt *nested = lower_if_chain(L, c, b, alts + 1, nalts - 1, alts[0]);
    if (nested) {
      s->orelse.items = arena_alloc(L->a, sizeof(Stmt *));
      s->orelse.items[0] = nested;
      s->orelse.len = 1;
    }
  } else if (nalts > 0) {
    s->orelse = lower_block(L, field(L, alts[0], F_body));
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
  return lower_if_chain(L, field(L, n, F_condition),
                        field(L, n, F_consequence), alts, nalts, n);
}

static bool reject_loop_else(Lowerer *L, TSNode n) {
  TSNode alt = field(L, n, F_alternative);
  if (ts_node_is_null(alt)) return false;
  unsupported(L, alt, "'else' on a loop");
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
  s->cond = lower_expr(L, field(L, n, F_condition));
  s->body = lower_loop_body(L, field(L, n, F_body));
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

/* for x in range(...) / for x in array / for i, x in enumerate(...) / zip(...) */
static Stmt *lower_for(Lowerer *L, TSNode n) {
  if (reject_loop_else(L, n)) return NULL;
  TSNode left = field(L, n, F_left);
  TSNode right = field(L, n, F_right);
  Stmt *s = new_stmt(L, ST_FOR_ITER, n);
  bool name = node_is(L, left, K_identifier);
  s->var = name ? find_var(L, node_str(L, left)) : -1;
  Resolved r;
  TSNode callee = field(L, right, F_function);
  bool range = node_is(L, right, K_call) && resolve_dotted(L, callee, &r) && r.builtin &&
               r.builtin->id == BI_RANGE;
  if (!range || !name) {
    Expr *target = lower_expr(L, left);
    if (!target) return NULL;
    if (!is_loop_target(target)) {
      unsupported(L, left, "a loop target other than names and tuples of names");
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
  } else {
    s->value = lower_expr(L, right);
    if (!s->value) return NULL;
  }
  s->body = lower_loop_body(L, field(L, n, F_body));
  return s;
}

static Stmt *lower_return(Lowerer *L, TSNode n) {
  Stmt *s = new_stmt(L, ST_RETURN, n);
  TSNode kids[2];
  int k = node_kids(L, n, kids, 2);
  if (k == 0) return s;
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

static const struct {
  const char *type;
  const char *what;
} unsupported_stmts[] = {
    {"with_statement", "'with'"},          {"try_statement", "'try'"},
    {"raise_statement", "'raise'"},        {"global_statement", "'global'"},
    {"nonlocal_statement", "'nonlocal'"},  {"delete_statement", "'del'"},
    {"import_statement", "an import inside a function"},
    {"import_from_statement", "an import inside a function"},
    {"function_definition", "a nested function"},
    {"decorated_definition", "a nested function"},
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
  case K_assert_statement: return NULL;   /* Numba drops asserts unless debug */
  default: break;
  }
  const char *t = ts_node_type(n);
  for (size_t i = 0; i < sizeof unsupported_stmts / sizeof unsupported_stmts[0]; i++)
    if (strcmp(unsupported_stmts[i].type, t) == 0) {
      unsupported(L, n, unsupported_stmts[i].what);
      return NULL;
    }
  diag_error(L->c, node_loc(L, n), "E-unsupported", "statement '%s' is not supported in kernels", t);
  return NULL;
}

static Block lower_block(Lowerer *L, TSNode block) {
  Block b = {0};
  if (ts_node_is_null(block) || !enter(L, block)) return b;
  uint32_t count;
  TSNode *kids = node_named_children(L, block, &count);
  b.items = arena_alloc(L->a, sizeof(Stmt *) * (count ? count : 1));
  for (uint32_t i = 0; i < count; i++) {
    TSNode ch = kids[i];
    if (is_extra(L, ch)) continue;
    Stmt *s = lower_stmt(L, ch);
    if (s) b.items[b.len++] = s;
  }
  leave(L);
  return b;
}

/* ---- functions ---- */

static void lower_function_body(Lowerer *L, Function *f, TSNode def) {
  L->fn = f;
  L->vars_cap = f->nvars;   /* the parameters' array: the first local reallocates it */
  strmap_init(&L->var_by_name, L->a);
  for (int i = 0; i < f->nvars; i++)
    strmap_put(&L->var_by_name, f->vars[i].name, (void *)(uintptr_t)(i + 1));
  TSNode body = field(L, def, F_body);
  if (!ts_node_is_null(body)) collect_locals(L, body);
  f->body = lower_block(L, body);
  L->fn = NULL;
  defuse_check(L->c, f);
}

/* First pass over a decorated definition: a cuda.jit function is recorded with its
 * parameters; its body waits for the second pass. */
static Function *declare_function(Lowerer *L, TSNode decorated) {
  TSNode def = field(L, decorated, F_definition);
  if (!node_is(L, def, K_function_definition)) return NULL;
  Function *f = arena_alloc(L->a, sizeof *f);
  f->kind = FN_KERNEL;
  if (!lower_decorators(L, decorated, f)) return NULL;
  if (node_is(L, ts_node_child(def, 0), K_async)) {
    unsupported(L, def, "an async function");
    return NULL;
  }
  TSNode name = field(L, def, F_name);
  f->name = node_str(L, name);
  f->loc = node_loc(L, name);
  if (!strmap_add(&L->func_by_name, f->name, f))
    diag_error(L->c, f->loc, "E-redefined", "function '%s' is defined twice", f->name);
  L->vars_cap = 0;
  lower_params(L, f, field(L, def, F_parameters));
  vec_push(L->a, &L->m->funcs, f);
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
  } else if (node_is(L, n, K_function_definition) || node_is(L, n, K_class_definition)) {
    add_other_global(L, field(L, n, F_name), NULL);
  } else if (!node_is(L, n, K_comment) && !L->m->host_code.line) {
    L->m->host_code = node_loc(L, n);   /* if, for, while, with, try, ... at module level */
  }
}

/* Lowers the bodies of the functions [first, end) of the module; defs[i] declared
 * L->m->funcs.items[i]. */
static void lower_bodies(Lowerer *L, const TSNode *defs, size_t first, size_t end) {
  for (size_t i = first; i < end; i++)
    lower_function_body(L, L->m->funcs.items[i], field(L, defs[i], F_definition));
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
