/* Lowering of expressions, and the folding of module-level constants. Names are resolved
 * here: locals, then module constants, then device functions, then imported builtins, then
 * Python's builtins (the order Python looks them up in, with locals decided per function). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <uniname.h>

#include "frontend/lower.h"

static Expr *new_expr(Lowerer *L, ExprKind kind, TSNode n) {
  return ast_new_expr(L->a, kind, node_loc(L, n));
}

static Expr **kids_array(Lowerer *L, int n) {
  return arena_alloc(L->a, sizeof(Expr *) * (size_t)(n > 0 ? n : 1));
}

/* ---- literals ---- */

/* Integer literal: decimal, 0x, 0o, 0b, with underscores. */
static Expr *lower_imaginary(Lowerer *L, TSNode n, const char *s, size_t len);

static Expr *lower_integer(Lowerer *L, TSNode n) {
  size_t len;
  const char *s = node_text(L, n, &len);
  if (len && (s[len - 1] == 'j' || s[len - 1] == 'J')) return lower_imaginary(L, n, s, len - 1);
  int base = 10;
  size_t i = 0;
  if (len > 1 && s[0] == '0' && strchr("xXoObB", s[1])) {
    base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
    i = 2;
  }
  uint64_t v = 0;
  for (; i < len; i++) {
    if (s[i] == '_') continue;
    int d = s[i] <= '9' ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10;
    if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) {
      diag_error(L->c, node_loc(L, n), "E-int-too-large",
                 "integer literal does not fit in 64 bits (uint64)");
      return NULL;
    }
    v = v * (uint64_t)base + (uint64_t)d;
  }
  Expr *e = new_expr(L, EX_INT, n);
  e->uval = v;
  e->ival = (int64_t)v;
  e->is_unsigned_literal = v > INT64_MAX;
  return e;
}

/* The decimal digits of a float literal without underscores, as strtod reads them. */
static double float_digits(const char *s, size_t len, char *buf, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < len && k + 1 < cap; i++)
    if (s[i] != '_') buf[k++] = s[i];
  buf[k] = '\0';
  errno = 0;
  return strtod(buf, NULL);   /* overflow gives inf, as in Python */
}

double lower_float_text(const char *s, size_t len) {
  char buf[128];
  return float_digits(s, len, buf, sizeof buf);
}

static Expr *lower_float(Lowerer *L, TSNode n) {
  size_t len;
  const char *s = node_text(L, n, &len);
  if (len && (s[len - 1] == 'j' || s[len - 1] == 'J')) return lower_imaginary(L, n, s, len - 1);
  char buf[128];
  Expr *e = new_expr(L, EX_FLOAT, n);
  e->fval = float_digits(s, len, buf, sizeof buf);
  e->str = arena_strdup(L->a, buf);
  return e;
}

/* 2j, 1.5e3J: Python reads the digits before the j as a float, whatever they look like. */
static Expr *lower_imaginary(Lowerer *L, TSNode n, const char *s, size_t len) {
  char buf[128];
  Expr *e = new_expr(L, EX_IMAG, n);
  e->fval = float_digits(s, len, buf, sizeof buf);
  return e;
}

/* ---- strings ---- */

static void put_utf8(StrBuf *sb, uint32_t cp) {
  char b[4];
  int n;
  if (cp < 0x80) b[0] = (char)cp, n = 1;
  else if (cp < 0x800) b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
  else if (cp < 0x10000)
    b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
    b[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
  else
    b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
  sb_putn(sb, b, (size_t)n);
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c |= 0x20;
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decodes \xhh, \uhhhh, \Uhhhhhhhh (ndigits hex digits) at s; returns digits consumed or -1. */
static int decode_hex(const char *s, size_t avail, int ndigits, uint32_t *cp) {
  if (avail < (size_t)ndigits) return -1;
  uint32_t v = 0;
  for (int i = 0; i < ndigits; i++) {
    int h = hexval(s[i]);
    if (h < 0) return -1;
    v = v * 16 + (uint32_t)h;
  }
  *cp = v;
  return ndigits;
}

static const char simple_escapes[][2] = {{'n', '\n'}, {'t', '\t'}, {'r', '\r'}, {'\\', '\\'},
                                         {'\'', '\''}, {'"', '"'}, {'a', '\a'}, {'b', '\b'},
                                         {'f', '\f'}, {'v', '\v'}};

/* \N{NAME} at s ("N{...}"): the character of that Unicode name, matched without regard to
 * case as Python's unicodedata.lookup does (libunistring's table). Returns the characters
 * consumed, or -1. */
static int decode_named(StrBuf *sb, const char *s, size_t avail) {
  char name[128];
  size_t n = 0;
  if (avail < 3 || s[1] != '{') return -1;
  for (size_t i = 2; i < avail && s[i] != '}'; i++) {
    if (n + 1 == sizeof name) return -1;
    name[n++] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
  }
  if (n == 0 || 2 + n >= avail) return -1;
  name[n] = '\0';
  ucs4_t cp = unicode_name_character(name);
  if (cp == UNINAME_INVALID) return -1;
  put_utf8(sb, (uint32_t)cp);
  return (int)(n + 3);
}

/* One escape sequence after a backslash at s[0]; returns the characters consumed, or -1. */
static int decode_escape(StrBuf *sb, const char *s, size_t avail) {
  if (avail == 0) return -1;
  for (size_t i = 0; i < sizeof simple_escapes / sizeof simple_escapes[0]; i++)
    if (s[0] == simple_escapes[i][0]) return sb_putc(sb, simple_escapes[i][1]), 1;
  if (s[0] == '\n') return 1;   /* line continuation inside the string */
  if (s[0] >= '0' && s[0] <= '7') {
    int v = 0, k = 0;
    while (k < 3 && k < (int)avail && s[k] >= '0' && s[k] <= '7') v = v * 8 + (s[k++] - '0');
    put_utf8(sb, (uint32_t)v);
    return k;
  }
  int nd = s[0] == 'x' ? 2 : s[0] == 'u' ? 4 : s[0] == 'U' ? 8 : 0;
  if (nd) {
    uint32_t cp;
    if (decode_hex(s + 1, avail - 1, nd, &cp) < 0 || cp > 0x10FFFF) return -1;
    put_utf8(sb, cp);
    return nd + 1;
  }
  if (s[0] == 'N') return decode_named(sb, s, avail);
  sb_putc(sb, '\\');   /* unknown escapes keep their backslash, as in Python */
  return 0;
}

/* One escape sequence of a bytes literal after a backslash at s[0]: \xhh and octal escapes are
 * one byte each; \u, \U and \N are no escapes in bytes (kept with their backslash, as in
 * Python). Returns the characters consumed, or -1. */
static int decode_bytes_escape(StrBuf *sb, const char *s, size_t avail) {
  if (avail == 0) return -1;
  uint32_t v = 0;
  if (s[0] >= '0' && s[0] <= '7') {
    int k = 0;
    while (k < 3 && k < (int)avail && s[k] >= '0' && s[k] <= '7') v = v * 8 + (uint32_t)(s[k++] - '0');
    return sb_putc(sb, (char)(v & 0xFF)), k;
  }
  if (s[0] == 'x') return decode_hex(s + 1, avail - 1, 2, &v) < 0 ? -1 : (sb_putc(sb, (char)v), 3);
  if (s[0] == 'u' || s[0] == 'U' || s[0] == 'N') return sb_putc(sb, '\\'), 0;
  return decode_escape(sb, s, avail);
}

/* A string literal's text into sb. *bytes is -1 until the first part says whether the literal
 * is a bytes literal (1) or a str (0); parts of both kinds cannot be concatenated. Bytes
 * literals are refused unless allow_bytes. */
static bool decode_string_node(Lowerer *L, TSNode n, StrBuf *sb, bool allow_bytes, int *bytes) {
  TSNode start = ts_node_child(n, 0), end = ts_node_child(n, ts_node_child_count(n) - 1);
  size_t plen;
  const char *prefix = node_text(L, start, &plen);
  bool raw = false, is_bytes = false;
  for (size_t i = 0; i < plen && prefix[i] != '\'' && prefix[i] != '"'; i++) {
    char p = prefix[i] | 0x20;
    if (p == 'r') raw = true;
    if (p == 'b') is_bytes = true;
  }
  if (is_bytes && !allow_bytes) return lower_unsupported(L, n, "a bytes literal here"), false;
  if (*bytes >= 0 && *bytes != is_bytes) {
    diag_error(L->c, node_loc(L, n), "E-syntax", "cannot mix bytes and nonbytes literals");
    return false;
  }
  *bytes = is_bytes;
  uint32_t count;
  TSNode *parts = node_named_children(L, n, &count);
  for (uint32_t i = 0; i < count; i++)
    if (node_is(L, parts[i], K_interpolation))
      return lower_unsupported(L, n, "an f-string with replacement fields"), false;
  const char *body = L->c->text + ts_node_end_byte(start);
  size_t len = ts_node_start_byte(end) - ts_node_end_byte(start);
  for (size_t i = 0; i < len; i++) {
    if (body[i] != '\\' || raw) {
      sb_putc(sb, body[i]);
      continue;
    }
    int k = is_bytes ? decode_bytes_escape(sb, body + i + 1, len - i - 1) : decode_escape(sb, body + i + 1, len - i - 1);
    if (k < 0) {
      diag_error(L->c, source_loc(L->c, (size_t)(body + i - L->c->text)), "E-bad-escape",
                 body[i + 1] == 'N' ? "unknown Unicode character name in \\N{...}"
                                    : "unsupported or malformed escape sequence in string");
      return false;
    }
    i += (size_t)k;
  }
  return true;
}

static bool decode_literal(Lowerer *L, TSNode n, const char **out, size_t *len, bool allow_bytes, int *bytes) {
  StrBuf sb;
  sb_init(&sb, L->a);
  sb_puts(&sb, "");
  if (node_is(L, n, K_concatenated_string)) {
    TSNode parts[256];
    int k = node_kids(L, n, parts, 256);
    for (int i = 0; i < k && i < 256; i++)
      if (!decode_string_node(L, parts[i], &sb, allow_bytes, bytes)) return false;
  } else if (!decode_string_node(L, n, &sb, allow_bytes, bytes)) {
    return false;
  }
  *out = sb.data;
  *len = sb.len;
  return true;
}

bool lower_string_value(Lowerer *L, TSNode n, const char **out, size_t *len) {
  int bytes = -1;
  return decode_literal(L, n, out, len, false, &bytes);
}

/* A str literal (its UTF-8 bytes) or a bytes literal (is_bytes: its bytes, which typeinfer
 * lets only be stored into a character sequence). */
static Expr *lower_string(Lowerer *L, TSNode n) {
  Expr *e = new_expr(L, EX_STR, n);
  int bytes = -1;
  if (!decode_literal(L, n, &e->str, &e->str_len, true, &bytes)) return NULL;
  e->is_bytes = bytes == 1;
  return e;
}

/* ---- names ---- */

const OtherGlobal *find_other_global(const Lowerer *L, const char *name) {
  for (size_t i = L->others.len; i-- > 0;)
    if (strcmp(L->others.items[i].name, name) == 0) return &L->others.items[i];
  return NULL;
}

/* numba.cuda.random's kernel side is Python: device functions of the Python package
 * (python/pyk2cuda/random.py), which puts them in the module of a kernel that calls them, with
 * states made on the host by create_xoroshiro128p_states. A file given to emit or run has neither,
 * so the message names what it needs. */
static void refuse_cuda_random(Lowerer *L, TSNode n, const char *path) {
  diag_error(L->c, node_loc(L, n), "E-unknown-builtin",
             "'%s' is not available to `pyk2cuda emit` and `run`: numba.cuda.random's generators "
             "are Python device functions that the Python package (pyk2cuda.cuda.random) adds to "
             "the kernel's module, and their states are made on the host by "
             "create_xoroshiro128p_states; launch this kernel from Python", path);
}

/* cuda.threadIdx (blockIdx, blockDim, gridDim) as a value, Numba's Dim3: the tuple of its .x,
 * .y and .z (the rows of those builtins), which print() writes as Numba does, "(1, 0, 0)".
 * NULL where `path` has no such members. */
static Expr *dim3_value(Lowerer *L, TSNode n, const char *path) {
  Expr *kids[3];
  for (int k = 0; k < 3; k++) {
    const Builtin *b = builtin_lookup(arena_printf(L->a, "%s.%c", path, "xyz"[k]));
    if (!b || b->id != BI_INDEX) return NULL;
    kids[k] = new_expr(L, EX_BUILTIN, n);
    kids[k]->builtin = b;
  }
  Expr *e = new_expr(L, EX_TUPLE, n);
  e->kids = arena_dup(L->a, kids, sizeof kids);
  e->nkids = 3;
  return e;
}

static Expr *builtin_expr(Lowerer *L, TSNode n, const Resolved *r) {
  if (r->builtin && r->builtin->kind != BK_MODULE && r->builtin->kind != BK_DECORATOR) {
    Expr *e = new_expr(L, EX_BUILTIN, n);
    e->builtin = r->builtin;
    return e;
  }
  Expr *dim3 = r->path && builtin_is_namespace(r->path) ? dim3_value(L, n, r->path) : NULL;
  if (dim3) return dim3;
  if (builtin_is_namespace(r->path))
    diag_error(L->c, node_loc(L, n), "E-not-value", "module '%s' cannot be used as a value", r->path);
  else if (strncmp(r->path, "numba.cuda.random.", 18) == 0)
    refuse_cuda_random(L, n, r->path);
  else
    diag_error(L->c, node_loc(L, n), "E-unknown-builtin", "'%s' is not supported in %s",
               r->path, lower_context(L));
  return NULL;
}


static Expr *lower_identifier(Lowerer *L, TSNode n) {
  char *name = node_str(L, n);
  int v = find_var(L, name);
  if (v >= 0) {
    Expr *e = new_expr(L, EX_VAR, n);
    e->var = v;
    return e;
  }
  const Capture *cap = lower_find_capture(L, name);
  if (cap) {   /* an enclosing function's constant (lower_nested.c) */
    Expr *e = ast_clone_expr(L->a, cap->value);
    e->loc = node_loc(L, n);
    return e;
  }
  Const *k = find_const(L, name);
  if (k && k->array_tuple) {   /* a tuple of constant arrays: the tuple of its arrays */
    Expr *e = ast_clone_expr(L->a, k->value);
    e->loc = node_loc(L, n);
    for (int i = 0; i < e->nkids; i++) {
      e->kids[i]->loc = e->loc;
      atomic_store_explicit(&e->kids[i]->konst->used, true, memory_order_relaxed);
    }
    return e;
  }
  if (k) {
    Expr *e = new_expr(L, EX_CONST, n);
    e->konst = k;
    atomic_store_explicit(&k->used, true, memory_order_relaxed);
    return e;
  }
  Function *f = find_func(L, name);
  if (f) {
    Expr *e = new_expr(L, EX_FUNC, n);
    e->func = f;
    return e;
  }
  Resolved r;
  if (resolve_dotted(L, n, &r)) return builtin_expr(L, n, &r);
  const ModuleClass *cls = find_class(L, name);
  if (cls) {
    diag_error(L->c, node_loc(L, n), "E-not-value", "class '%s' cannot be used as a value (a kernel "
               "can raise an exception class and read an enum's members)", name);
    return NULL;
  }
  if (strmap_get(&L->str_by_name, name)) {
    diag_error(L->c, node_loc(L, n), "E-not-value", "str constant '%s' can only be an exception's "
               "message in a kernel", name);
    return NULL;
  }
  const OtherGlobal *g = find_other_global(L, name);
  if (g && g->stencil) {
    diag_error(L->c, node_loc(L, n), "E-stencil",
               "'%s' is a @stencil function, which only the host and @jit functions the host calls may "
               "call (Numba's CUDA target has no stencils): the host launches its kernel '%s' (its "
               "inputs, then the result array)", name, name);
    return NULL;
  }
  if (g && g->why && g->record) {
    diag_error(L->c, node_loc(L, n), "E-dtype",
               "record dtype '%s' is not supported: %s (kernels take np.dtype([('name', dtype), "
               "('name', dtype, shape), ...], align=...) of number types and strings ('U12', 'S5'))",
               name, g->why);
    diag_note(L->c, g->loc, "'%s' is defined here", name);
    return NULL;
  }
  if (g && g->why) {
    diag_error(L->c, node_loc(L, n), "E-global-not-const",
               "global '%s' cannot be made a constant: %s (kernels can use module-level numbers, NumPy "
               "scalars such as np.float32(2.5), and NumPy arrays built with np.array, np.arange, "
               "np.zeros, np.ones or np.full from constants)",
               name, g->why);
    diag_note(L->c, g->loc, "'%s' is defined here", name);
    return NULL;
  }
  if (g) {
    diag_error(L->c, node_loc(L, n), "E-global-not-const",
               "global '%s' is not a compile-time constant (kernels can use module-level ints, "
               "floats, bools, NumPy scalars such as np.float32(2.5), tuples of numbers, or "
               "functions decorated with @cuda.jit)", name);
    diag_note(L->c, g->loc, "'%s' is defined here", name);
    return NULL;
  }
  diag_error(L->c, node_loc(L, n), "E-undefined", "name '%s' is not defined", name);
  return NULL;
}

static Expr *lower_attribute(Lowerer *L, TSNode n) {
  Resolved r;
  if (resolve_dotted(L, n, &r)) return builtin_expr(L, n, &r);
  bool member;
  Expr *m = lower_enum_member(L, lower_field(L, n, F_object), lower_field(L, n, F_attribute), n, &member);
  if (member) return m;
  Expr *obj = lower_expr(L, lower_field(L, n, F_object));
  if (!obj) return NULL;
  const char *attr = node_str(L, lower_field(L, n, F_attribute));
  if (obj->kind == EX_CONST && obj->konst->enum_of && obj->konst->enum_of->is_int && strcmp(attr, "value") == 0)
    return obj;   /* an IntEnum member is its value */
  Expr *e = new_expr(L, EX_ATTR, n);
  e->kids = kids_array(L, 1);
  e->kids[0] = obj;
  e->nkids = 1;
  e->str = attr;
  return e;
}

/* ---- operators ---- */

static const struct {
  const char *text;
  Op op;
} binops[] = {{"+", OP_ADD},     {"-", OP_SUB},      {"*", OP_MUL},     {"/", OP_DIV},
              {"//", OP_FLOORDIV}, {"%", OP_MOD},    {"**", OP_POW},    {"<<", OP_LSHIFT},
              {">>", OP_RSHIFT}, {"&", OP_BITAND},   {"|", OP_BITOR},   {"^", OP_BITXOR},
              {"<", OP_LT},      {"<=", OP_LE},      {">", OP_GT},      {">=", OP_GE},
              {"==", OP_EQ},     {"!=", OP_NE},      {"is", OP_IS},     {"is not", OP_IS_NOT},
              {"in", OP_IN},     {"not in", OP_NOT_IN},
              {"and", OP_AND},   {"or", OP_OR}};

bool lower_op_from_text(const char *text, Op *op) {
  for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
    if (strcmp(binops[i].text, text) == 0) return *op = binops[i].op, true;
  return false;
}

const char *op_python_spelling(Op op) {
  for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
    if (binops[i].op == op) return binops[i].text;
  return op == OP_NEG ? "-" : op == OP_POS ? "+" : op == OP_INVERT ? "~" : "?";
}

static Expr *make_node(Lowerer *L, ExprKind kind, TSNode n, Expr **kids, int nkids) {
  for (int i = 0; i < nkids; i++)
    if (!kids[i]) return NULL;
  Expr *e = new_expr(L, kind, n);
  e->kids = arena_dup(L->a, kids, sizeof *kids * (size_t)nkids);
  e->nkids = nkids;
  return e;
}

/* One binary operator node whose left operand is already lowered. */
static Expr *lower_binary_step(Lowerer *L, TSNode n, Expr *left) {
  TSNode opn = lower_field(L, n, F_operator);
  Op op;
  Expr *right = lower_expr(L, lower_field(L, n, F_right));
  if (!lower_op_from_text(ts_node_type(opn), &op) || op >= OP_NEG) {
    diag_error(L->c, node_loc(L, opn), "E-unsupported", "operator '%s' is not supported",
               ts_node_type(opn));
    return NULL;
  }
  Expr *kids[2] = {left, right};
  Expr *e = make_node(L, EX_BINARY, n, kids, 2);
  if (e) e->op = op;
  return e;
}

/* a[0] + a[1] - a[2] + ...: the CST nests binary operators to the left, one level per term.
 * The left spine is walked in a loop and counts as one level of nesting (each right operand
 * nests as usual): a stencil written out term by term is not deep nesting. The AST keeps one
 * left-deep EX_BINARY per operator; the later phases' recursion along a chain is bounded by
 * P2C_MAX_CHAIN operators. */
static Expr *lower_binary(Lowerer *L, TSNode n) {
  VEC(TSNode) spine = {0};
  TSNode cur = n;
  for (; node_is(L, cur, K_binary_operator); cur = lower_field(L, cur, F_left)) {
    if (spine.len == P2C_MAX_CHAIN) {
      diag_error(L->c, node_loc(L, n), "E-too-many",
                 "a chain of more than %d binary operators is not supported (split it with a variable)",
                 P2C_MAX_CHAIN);
      return NULL;
    }
    vec_push(L->a, &spine, cur);
  }
  Expr *acc;
  size_t folded = 0;   /* the operators at the bottom that fold with the leaf (1 + 2 + x is 3 + x) */
  if (!lower_fold_chain(L, spine.items, spine.len, cur, &acc, &folded)) acc = lower_expr(L, cur);
  for (size_t i = spine.len - folded; i-- > 0;) acc = lower_binary_step(L, spine.items[i], acc);
  return acc;
}

static Expr *lower_unary(Lowerer *L, TSNode n) {
  Expr *folded;
  if (lower_fold(L, n, &folded)) return folded;
  const char *t = ts_node_type(lower_field(L, n, F_operator));
  Expr *kid = lower_expr(L, lower_field(L, n, F_argument));
  Expr *e = make_node(L, EX_UNARY, n, &kid, 1);
  if (e) e->op = t[0] == '-' ? OP_NEG : t[0] == '+' ? OP_POS : OP_INVERT;
  return e;
}

static Expr *lower_not(Lowerer *L, TSNode n) {
  Expr *folded;
  if (lower_fold(L, n, &folded)) return folded;
  Expr *kid = lower_expr(L, lower_field(L, n, F_argument));
  return make_node(L, EX_NOT, n, &kid, 1);
}

/* a and b and c: the CST nests to the left; runs of the same operator are flattened, walking
 * down the left spine without recursion (hostile inputs can nest very deep). */
enum { MAX_BOOLOP_OPERANDS = 256 };

static Expr *lower_boolop(Lowerer *L, TSNode n) {
  const char *op = ts_node_type(lower_field(L, n, F_operator));
  VEC(TSNode) rights = {0};
  TSNode cur = n;
  for (;;) {
    vec_push(L->a, &rights, lower_field(L, cur, F_right));
    TSNode left = lower_field(L, cur, F_left);
    if (!node_is(L, left, K_boolean_operator) ||
        ts_node_symbol(lower_field(L, left, F_operator)) != ts_node_symbol(lower_field(L, n, F_operator))) {
      vec_push(L->a, &rights, left);
      break;
    }
    cur = left;
  }
  int k = (int)rights.len;
  if (k > MAX_BOOLOP_OPERANDS) {
    diag_error(L->c, node_loc(L, n), "E-too-many", "a chain of more than %d '%s' operands is not supported",
               MAX_BOOLOP_OPERANDS, op);
    return NULL;
  }
  Expr **kids = arena_alloc(L->a, sizeof *kids * (size_t)k);
  for (int i = 0; i < k; i++) kids[i] = lower_expr(L, rights.items[k - 1 - i]);
  Expr *e = make_node(L, EX_BOOLOP, n, kids, k);
  if (e) e->op = strcmp(op, "and") == 0 ? OP_AND : OP_OR;
  return e;
}

static bool is_identity(Op op) { return op == OP_IS || op == OP_IS_NOT; }

/* Whether an operator beside operand k of a comparison of `no` operators is `is` or `is not`,
 * the only ones None is an operand of. */
static bool beside_is(const Op *ops, int no, int k) {
  return (k > 0 && is_identity(ops[k - 1])) || (k < no && is_identity(ops[k]));
}

static Expr *lower_compare(Lowerer *L, TSNode n) {
  Expr *kids[64];
  TSNode none_at[64];   /* the None operands, lowered once the operators beside them are known */
  bool is_none[64] = {false};
  Op ops[64];
  int nk = 0, no = 0;
  uint32_t count = ts_node_child_count(n);
  for (uint32_t i = 0; i < count; i++) {
    TSNode ch = ts_node_child(n, i);
    if (node_is(L, ch, K_comment) || node_is(L, ch, K_line_continuation)) continue;
    if (nk == 64 || no == 64) {
      lower_unsupported(L, n, "a comparison chain of more than 64 operands");
      return NULL;
    }
    if (ts_node_is_named(ch) && node_is(L, ch, K_none)) {
      none_at[nk] = ch;
      is_none[nk++] = true;
    } else if (ts_node_is_named(ch)) {
      kids[nk++] = lower_expr(L, ch);
    } else if (!lower_op_from_text(ts_node_type(ch), &ops[no++]) || ops[no - 1] < OP_LT) {
      diag_error(L->c, node_loc(L, ch), "E-unsupported", "comparison '%s' is not supported",
                 ts_node_type(ch));
      return NULL;
    }
  }
  for (int k = 0; k < nk; k++)   /* None beside another operator is lowered for its diagnostic */
    if (is_none[k]) kids[k] = beside_is(ops, no, k) ? new_expr(L, EX_NONE, none_at[k]) : lower_expr(L, none_at[k]);
  Expr *e = make_node(L, EX_COMPARE, n, kids, nk);
  if (e) e->cmps = arena_dup(L->a, ops, sizeof *ops * (size_t)no);
  return e;
}

static Expr *lower_ifexp(Lowerer *L, TSNode n) {
  TSNode parts[3];
  if (node_kids(L, n, parts, 3) != 3) return lower_unsupported(L, n, "this conditional expression"), NULL;
  /* `a if c else b`: the CST lists a, c, b; the AST wants c, a, b. */
  Expr *kids[3] = {lower_expr(L, parts[1]), lower_expr(L, parts[0]), lower_expr(L, parts[2])};
  return make_node(L, EX_IFEXP, n, kids, 3);
}

static Expr *lower_tuple(Lowerer *L, TSNode n) {
  TSNode items[256];
  int k = node_kids(L, n, items, 256);
  if (k > 256) return lower_unsupported(L, n, "a tuple of more than 256 elements"), NULL;
  Expr *kids[256];
  for (int i = 0; i < k; i++) kids[i] = lower_expr(L, items[i]);
  return make_node(L, EX_TUPLE, n, kids, k);
}

/* ---- calls and subscripts ---- */

/* pow(a, b), operator.add(a, b), operator.lt(a, b), ...: the operator's expression itself
 * (a ** b, a + b, a < b), typed and printed as the operator is. */
static Expr *lower_operator_call(Lowerer *L, TSNode n, Expr *call) {
  const Builtin *b = call->kids[0]->builtin;
  const char *name = builtin_display_name(b);
  if (call->nkeywords) {
    diag_error(L->c, call->keywords[0].loc, "E-keyword", "%s() does not take keyword arguments", name);
    return NULL;
  }
  if (call->nkids - 1 != b->min_args) {
    diag_error(L->c, node_loc(L, n), "E-arity", "%s() takes %d arguments, got %d", name, b->min_args,
               call->nkids - 1);
    return NULL;
  }
  return ast_operator_call(L->a, call);
}

/* An argument of a call; None is one where the callee is a device function (its parameter is
 * then None: typeinfer/static_args.c). */
static Expr *lower_arg(Lowerer *L, TSNode a, const Expr *callee) {
  if (callee && callee->kind == EX_FUNC && node_is(L, a, K_none)) return new_expr(L, EX_NONE, a);
  return lower_expr(L, a);
}

static Expr *lower_call(Lowerer *L, TSNode n) {
  bool stencil;
  Expr *called = lower_stencil_call(L, n, &stencil);
  if (stencil) return called;
  TSNode args = lower_field(L, n, F_arguments);
  if (node_is(L, args, K_generator_expression)) return lower_unsupported(L, args, "a generator"), NULL;
  TSNode items[256];
  int k = node_kids(L, args, items, 256);
  if (k > 255) return lower_unsupported(L, n, "a call with more than 255 arguments"), NULL;
  Expr *kids[256];
  Keyword kws[256];
  int nk = 0, nkw = 0;
  kids[nk++] = lower_expr(L, lower_field(L, n, F_function));
  int unpack_at = 0;
  for (int i = 0; i < k; i++) {
    TSNode a = items[i];
    if (node_is(L, a, K_list_splat)) {
      TSNode inner[2];
      if (unpack_at || node_kids(L, a, inner, 2) != 1)
        return lower_unsupported(L, a, unpack_at ? "a second *args in one call" : "this argument unpacking"), NULL;
      unpack_at = nk;
      kids[nk++] = lower_expr(L, inner[0]);   /* f(a, *t): typeinfer expands t */
    } else if (node_is(L, a, K_keyword_argument)) {
      kws[nkw].name = node_str(L, lower_field(L, a, F_name));
      kws[nkw].loc = node_loc(L, a);
      if (!(kws[nkw++].value = lower_arg(L, lower_field(L, a, F_value), kids[0])))
        return NULL;
    } else if (node_is(L, a, K_dictionary_splat)) {
      return lower_unsupported(L, a, "keyword argument unpacking (**)"), NULL;
    } else {
      kids[nk++] = lower_arg(L, a, kids[0]);
    }
  }
  Expr *e = make_node(L, EX_CALL, n, kids, nk);
  if (!e) return NULL;
  e->keywords = arena_dup(L->a, kws, sizeof *kws * (size_t)nkw);
  e->nkeywords = nkw;
  e->unpack_at = unpack_at;
  if (!lower_nested_call(L, n, e)) return NULL;
  if (kids[0]->kind == EX_BUILTIN && kids[0]->builtin->kind == BK_OPERATOR) {
    if (unpack_at) return lower_unsupported(L, n, "argument unpacking into an operator's function"), NULL;
    return lower_operator_call(L, n, e);
  }
  return e;
}

/* lo:hi:step, each part optional: kids are the parts given, in order; ival has bit 0 set when
 * the start is given, bit 1 for the stop, bit 2 for the step. */
static Expr *lower_slice(Lowerer *L, TSNode n) {
  Expr *kids[3];
  int nk = 0, colons = 0, flags = 0;
  uint32_t count = ts_node_child_count(n);
  for (uint32_t i = 0; i < count; i++) {
    TSNode ch = ts_node_child(n, i);
    if (node_is(L, ch, K_comment) || node_is(L, ch, K_line_continuation)) continue;
    if (!ts_node_is_named(ch)) {
      colons++;
      continue;
    }
    if (colons > 2 || nk == 3) return lower_unsupported(L, n, "this slice"), NULL;
    flags |= 1 << colons;
    kids[nk++] = lower_expr(L, ch);
  }
  Expr *e = make_node(L, EX_SLICE, n, kids, nk);
  if (e) e->ival = flags;
  return e;
}

static Expr *lower_subscript(Lowerer *L, TSNode n) {
  TSNode items[P2C_MAX_NDIM + 2];
  int k = node_kids(L, n, items, P2C_MAX_NDIM + 2);
  if (k == 2) {   /* Color['red'] */
    bool member;
    Expr *m = lower_enum_member(L, items[0], items[1], n, &member);
    if (member) return m;
  }
  if (k > P2C_MAX_NDIM + 1) return lower_unsupported(L, n, "indexing with more than 8 indices"), NULL;
  Expr *kids[P2C_MAX_NDIM + 1];
  int nk = 0;
  for (int i = 0; i < k; i++) {
    Expr *e = i > 0 && node_is(L, items[i], K_slice) ? lower_slice(L, items[i]) : lower_expr(L, items[i]);
    if (i > 0 && e && e->kind == EX_TUPLE) {   /* a[(i, j)] is a[i, j] */
      if (e->nkids + nk > P2C_MAX_NDIM + 1) return lower_unsupported(L, n, "more than 8 indices"), NULL;
      for (int j = 0; j < e->nkids; j++) kids[nk++] = e->kids[j];
    } else {
      kids[nk++] = e;
    }
  }
  /* a[()] (nk == 1, no index): the element of a 0-d array, or a view of the whole array */
  return make_node(L, EX_INDEX, n, kids, nk);
}

static const struct {
  const char *type;
  const char *what;
} unsupported_exprs[] = {
    {"list", "a list"}, {"dictionary", "a dict"}, {"set", "a set"},
    {"list_comprehension", "a list comprehension"}, {"dictionary_comprehension", "a dict comprehension"},
    {"set_comprehension", "a set comprehension"}, {"generator_expression", "a generator"},
    {"lambda", "lambda"}, {"await", "await"}, {"named_expression", "the walrus operator (:=)"},
    {"none", "None other than in `x is None` or as a device function's argument"}, {"ellipsis", "'...'"}, {"slice", "slicing"}, {"yield", "yield"},
    {"list_splat", "argument unpacking"},
};

static Expr *lower_expr_kind(Lowerer *L, TSNode n) {
  switch (node_kind(L, n)) {
  case K_identifier: return lower_identifier(L, n);
  case K_integer: return lower_integer(L, n);
  case K_float: return lower_float(L, n);
  case K_true:
  case K_false: {
    Expr *e = new_expr(L, EX_BOOL, n);
    e->ival = node_is(L, n, K_true);
    return e;
  }
  case K_string:
  case K_concatenated_string: return lower_string(L, n);
  case K_binary_operator: return lower_binary(L, n);
  case K_unary_operator: return lower_unary(L, n);
  case K_not_operator: return lower_not(L, n);
  case K_boolean_operator: return lower_boolop(L, n);
  case K_comparison_operator: return lower_compare(L, n);
  case K_conditional_expression: return lower_ifexp(L, n);
  case K_parenthesized_expression: {
    TSNode inner[2];
    if (node_kids(L, n, inner, 2) != 1) return lower_unsupported(L, n, "this parenthesized form"), NULL;
    return lower_expr(L, inner[0]);
  }
  case K_tuple:
  case K_expression_list:
  case K_pattern_list:
  case K_tuple_pattern: return lower_tuple(L, n);
  case K_call: return lower_call(L, n);
  case K_attribute: return lower_attribute(L, n);
  case K_subscript: return lower_subscript(L, n);
  default: break;
  }
  const char *t = ts_node_type(n);
  for (size_t i = 0; i < sizeof unsupported_exprs / sizeof unsupported_exprs[0]; i++)
    if (strcmp(unsupported_exprs[i].type, t) == 0)
      return lower_unsupported(L, n, unsupported_exprs[i].what), NULL;
  diag_error(L->c, node_loc(L, n), "E-unsupported", "expression '%s' is not supported in %s", t, lower_context(L));
  return NULL;
}

Expr *lower_expr(Lowerer *L, TSNode n) {
  if (ts_node_is_null(n) || !lower_enter(L, n)) return NULL;
  Expr *e = lower_expr_kind(L, n);
  lower_leave(L);
  return e;
}
