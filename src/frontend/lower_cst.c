/* The lowerer's view of the CST: node text, kinds, children and locations (tree-sitter's
 * nodes read through the symbol and field tables built once, lower.c), the nesting limit, and
 * names: local variables, module constants and functions, and dotted paths resolved through
 * import aliases onto the builtin table. */
#include <string.h>

#include <uninorm.h>

#include "frontend/lower.h"

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

bool node_is_extra(const Lowerer *L, TSNode n) {
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
      if (node_is_extra(L, ch)) continue;
      if (k < cap) out[k] = ch;
      k++;
    }
    return k;
  }
  TSTreeCursor cur = ts_tree_cursor_new(n);
  for (bool more = ts_tree_cursor_goto_first_child(&cur); more;
       more = ts_tree_cursor_goto_next_sibling(&cur)) {
    TSNode ch = ts_tree_cursor_current_node(&cur);
    if (!ts_node_is_named(ch) || node_is_extra(L, ch)) continue;
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

bool lower_enter(Lowerer *L, TSNode n) {
  if (++L->depth <= P2C_MAX_NESTING) return true;
  if (L->depth == P2C_MAX_NESTING + 1)
    diag_error(L->c, node_loc(L, n), "E-too-deep", "nesting deeper than %d levels is not supported",
               P2C_MAX_NESTING);
  L->depth--;
  return false;
}

void lower_leave(Lowerer *L) { L->depth--; }

const char *lower_context(const Lowerer *L) {
  return L->fn && L->fn->host_jit ? "@jit functions" : "kernels";
}

void lower_unsupported(Lowerer *L, TSNode n, const char *what) {
  diag_error(L->c, node_loc(L, n), "E-unsupported", "%s is not supported in %s", what, lower_context(L));
}

/* ---- names ---- */

int find_var(const Lowerer *L, const char *name) {
  if (!L->fn) return -1;
  return (int)((uintptr_t)strmap_get(&L->var_by_name, name)) - 1;
}

Const *find_const(const Lowerer *L, const char *name) { return strmap_get(&L->const_by_name, name); }

Function *find_func(const Lowerer *L, const char *name) {
  const NestedFn *nf = lower_find_nested(L, name);   /* an enclosing function's name first */
  return nf ? nf->fn : strmap_get(&L->func_by_name, name);
}

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
    if (find_var(L, name) >= 0 || lower_find_capture(L, name) || find_const(L, name) || find_func(L, name)) return NULL;
    const char *p = alias_path(L, name);
    return p ? p : python_builtin_path(L, name);
  }
  if (!node_is(L, n, K_attribute)) return NULL;
  const char *base = dotted_path_at(L, lower_field(L, n, F_object), depth + 1);
  if (!base) return NULL;
  TSNode attr = lower_field(L, n, F_attribute);
  return arena_printf(L->a, "%s.%s", base, node_str(L, attr));
}

bool resolve_dotted(Lowerer *L, TSNode n, Resolved *out) {
  out->path = dotted_path(L, n);
  out->builtin = out->path ? strmap_get(&L->builtin_by_path, out->path) : NULL;
  return out->path != NULL;
}
