/* Unit tests for the frontend (src/frontend): source preparation and lowering to the AST.
 *
 * source_prepare: the BOM is stripped; CRLF and lone CR become LF and keep Python's line
 * numbers; NUL bytes and invalid UTF-8 (bad lead bytes, overlong forms, surrogates, code points
 * past U+10FFFF, truncated sequences) are refused with a diagnostic at the offending character;
 * source_loc counts columns in characters (multi-byte UTF-8 and tabs are one column each).
 * frontend_run on small sources: import aliases resolve to the right builtins, module constants
 * are folded (ints, floats, negatives, tuples, arithmetic on earlier constants), the decorator
 * forms of cuda.jit give kernels and device functions with their signature texts, augmented
 * assignment, elif chains, docstrings, deep nesting (a diagnostic, never a crash), and the
 * --dump=ast text of one small kernel; parsing in two parts; indentation depth measured before
 * parsing. Regression tests for fixed bugs are at the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "frontend/frontend.h"
#include "frontend/parse.h"

typedef struct Fixture {
  Compilation c;
  Module m;
} Fixture;

static int setup(void **state) {
  Fixture *fx = calloc(1, sizeof *fx);
  if (!fx) return -1;
  arena_init(&fx->c.arena, NULL);
  fx->c.file = "t.py";
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  Fixture *fx = *state;
  arena_free(&fx->c.arena);
  free(fx);
  return 0;
}

static Compilation *comp(void **state) { return &((Fixture *)*state)->c; }

static bool prepare(void **state, const char *raw, size_t len) {
  return source_prepare(comp(state), raw, len);
}

/* Prepares and lowers a NUL-terminated source. */
static bool lower(void **state, const char *src) {
  Fixture *fx = *state;
  if (!source_prepare(&fx->c, src, strlen(src))) return false;
  bool ok = frontend_run(&fx->c, &fx->m);
  frontend_finish(&fx->c);
  return ok;
}

static void lower_ok(void **state, const char *src) {
  if (lower(state, src)) return;
  const Compilation *c = comp(state);
  for (size_t i = 0; i < c->diags.len; i++)
    print_message("%u:%u: %s [%s]\n", c->diags.items[i].line, c->diags.items[i].column,
                  c->diags.items[i].message, c->diags.items[i].code);
  fail_msg("the source was rejected");
}

static bool has_diag(void **state, const char *code) {
  const Compilation *c = comp(state);
  for (size_t i = 0; i < c->diags.len; i++)
    if (strcmp(c->diags.items[i].code, code) == 0) return true;
  return false;
}

/* The first diagnostic must have `code` at line:col. */
static void expect_first_diag(void **state, const char *code, uint32_t line, uint32_t col) {
  const Compilation *c = comp(state);
  assert_true(c->diags.len >= 1);
  const P2cDiagnostic *d = &c->diags.items[0];
  assert_string_equal(d->code, code);
  assert_string_equal(d->file, "t.py");
  if (d->line != line || d->column != col)
    fail_msg("%s at %u:%u, expected %u:%u (%s)", code, d->line, d->column, line, col, d->message);
}

static Function *func(void **state, const char *name) {
  const Module *m = &((Fixture *)*state)->m;
  for (size_t i = 0; i < m->funcs.len; i++)
    if (strcmp(m->funcs.items[i]->name, name) == 0) return m->funcs.items[i];
  fail_msg("no function '%s'", name);
  return NULL;
}

static Const *konst(void **state, const char *name) {
  const Module *m = &((Fixture *)*state)->m;
  for (size_t i = 0; i < m->consts.len; i++)
    if (strcmp(m->consts.items[i]->name, name) == 0) return m->consts.items[i];
  fail_msg("no constant '%s'", name);
  return NULL;
}

/* ---- source_prepare ------------------------------------------------------------------------- */

static void bom_is_stripped(void **state) {
  const char src[] = "\xEF\xBB\xBFx = 1\n";
  assert_true(prepare(state, src, sizeof src - 1));
  assert_string_equal(comp(state)->text, "x = 1\n");
  assert_int_equal(comp(state)->len, 6);
  assert_int_equal(comp(state)->line_starts.len, 1);
}

static void crlf_becomes_lf_and_keeps_lines(void **state) {
  const char src[] = "a\r\nbc\r\nd";
  assert_true(prepare(state, src, sizeof src - 1));
  Compilation *c = comp(state);
  assert_string_equal(c->text, "a\nbc\nd\n");
  assert_int_equal(c->line_starts.len, 3);
  Loc l = source_loc(c, 5);   /* 'd' */
  assert_int_equal(l.line, 3);
  assert_int_equal(l.col, 1);
  size_t len;
  const char *s = source_line(c, 2, &len);
  assert_int_equal(len, 2);
  assert_memory_equal(s, "bc", 2);
}

static void lone_cr_is_a_newline(void **state) {
  const char src[] = "a\rb\r\r\nc\n";
  assert_true(prepare(state, src, sizeof src - 1));
  Compilation *c = comp(state);
  assert_string_equal(c->text, "a\nb\n\nc\n");
  assert_int_equal(c->line_starts.len, 4);
  Loc l = source_loc(c, 5);   /* 'c' */
  assert_int_equal(l.line, 4);
  assert_int_equal(l.col, 1);
}

static void missing_final_newline_is_added(void **state) {
  assert_true(prepare(state, "x", 1));
  assert_string_equal(comp(state)->text, "x\n");
  assert_int_equal(comp(state)->line_starts.len, 1);
}

static void empty_source_is_one_empty_line(void **state) {
  assert_true(prepare(state, "", 0));
  assert_string_equal(comp(state)->text, "\n");
  assert_int_equal(comp(state)->line_starts.len, 1);
}

static void nul_byte_is_rejected_at_its_position(void **state) {
  const char src[] = "x = 1\r\ny = \0\n";
  assert_false(prepare(state, src, sizeof src - 1));
  expect_first_diag(state, "E-nul-byte", 2, 5);
}

static void nul_byte_column_counts_characters(void **state) {
  /* s = 'é€' then NUL: the NUL is the 9th character. */
  const char src[] = "s = '\xC3\xA9\xE2\x82\xAC'\0";
  assert_false(prepare(state, src, sizeof src - 1));
  expect_first_diag(state, "E-nul-byte", 1, 9);
}

static void invalid_lead_byte_is_rejected(void **state) {
  const char src[] = "a = 1\nb = '\xFF'\n";
  assert_false(prepare(state, src, sizeof src - 1));
  expect_first_diag(state, "E-bad-utf8", 2, 6);
}

static void overlong_encoding_is_rejected(void **state) {
  const char two[] = "#\xC0\xAF\n";
  assert_false(prepare(state, two, sizeof two - 1));
  expect_first_diag(state, "E-bad-utf8", 1, 2);
}

static void overlong_three_byte_is_rejected(void **state) {
  const char three[] = "ab\xE0\x80\xAF";
  assert_false(prepare(state, three, sizeof three - 1));
  expect_first_diag(state, "E-bad-utf8", 1, 3);
}

static void surrogate_is_rejected(void **state) {
  const char src[] = "\xC3\xA9\xED\xA0\x80";
  assert_false(prepare(state, src, sizeof src - 1));
  expect_first_diag(state, "E-bad-utf8", 1, 2);
}

static void code_point_past_max_is_rejected(void **state) {
  const char src[] = "\n\n\xF4\x90\x80\x80";
  assert_false(prepare(state, src, sizeof src - 1));
  expect_first_diag(state, "E-bad-utf8", 3, 1);
}

static void truncated_sequence_is_rejected(void **state) {
  const char src[] = "x = '\xE2\x82";
  assert_false(prepare(state, src, sizeof src - 1));
  expect_first_diag(state, "E-bad-utf8", 1, 6);
}

static void stray_continuation_byte_is_rejected(void **state) {
  const char src[] = "\t\x80";
  assert_false(prepare(state, src, sizeof src - 1));
  expect_first_diag(state, "E-bad-utf8", 1, 2);
}

static void valid_utf8_of_every_length_is_kept(void **state) {
  const char src[] = "# \x41 \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF\n";
  assert_true(prepare(state, src, sizeof src - 1));
  assert_string_equal(comp(state)->text, src);
}

static void columns_count_characters_not_bytes(void **state) {
  /* "é = '€😀' + x": é is 2 bytes, € 3, 😀 4; each is one column. */
  const char src[] = "\xC3\xA9 = '\xE2\x82\xAC\xF0\x9F\x98\x80' + x\n";
  assert_true(prepare(state, src, sizeof src - 1));
  Compilation *c = comp(state);
  size_t x = (size_t)(strchr(c->text, 'x') - c->text);
  Loc l = source_loc(c, x);
  assert_int_equal(l.line, 1);
  assert_int_equal(l.col, 12);
  l = source_loc(c, 3);   /* '=' after "é " */
  assert_int_equal(l.col, 3);
}

static void a_tab_is_one_column(void **state) {
  const char src[] = "if x:\n\t\ty = 1\n";
  assert_true(prepare(state, src, sizeof src - 1));
  Loc l = source_loc(comp(state), 8);   /* 'y' */
  assert_int_equal(l.line, 2);
  assert_int_equal(l.col, 3);
}

static void offsets_past_the_end_clamp(void **state) {
  assert_true(prepare(state, "a\nb\n", 4));
  Loc l = source_loc(comp(state), 1000);   /* the end of the text: after "b\n" */
  assert_int_equal(l.line, 2);
  assert_int_equal(l.col, 3);
}

static void oversized_source_is_rejected(void **state) {
  size_t n = (size_t)P2C_MAX_SOURCE + 1;
  char *big = malloc(n);
  assert_non_null(big);
  memset(big, ' ', n);
  assert_false(prepare(state, big, n));
  free(big);
  expect_first_diag(state, "E-too-large", 1, 1);
}

/* ---- frontend_run: names and imports -------------------------------------------------------- */

typedef VEC(const Expr *) ExprList;

static void collect_builtins_expr(Arena *a, const Expr *e, ExprList *out) {
  if (!e) return;
  if (e->kind == EX_BUILTIN) vec_push(a, out, e);
  for (int i = 0; i < e->nkids; i++) collect_builtins_expr(a, e->kids[i], out);
  for (int i = 0; i < e->nkeywords; i++) collect_builtins_expr(a, e->keywords[i].value, out);
}

/* Every EX_BUILTIN of a block in source order (targets, then the other parts). */
static void collect_builtins(Arena *a, const Block *b, ExprList *out) {
  for (int i = 0; i < b->len; i++) {
    const Stmt *s = b->items[i];
    for (int k = 0; k < s->ntargets; k++) collect_builtins_expr(a, s->targets[k], out);
    const Expr *parts[] = {s->cond, s->start, s->stop, s->step, s->value};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) collect_builtins_expr(a, parts[k], out);
    collect_builtins(a, &s->body, out);
    collect_builtins(a, &s->orelse, out);
  }
}

static void import_aliases_resolve_to_builtins(void **state) {
  lower_ok(state,
           "from numba import cuda as cu\n"
           "import numba\n"
           "import math\n"
           "from math import sqrt\n"
           "import numpy as np\n"
           "\n"
           "@cu.jit\n"
           "def k(a):\n"
           "    i = cu.grid(1)\n"
           "    a[i] = math.sqrt(a[i]) + sqrt(a[i]) + np.float32(1) + numba.cuda.threadIdx.x\n"
           "    a[0] = math.pi + np.sin(a[1]) + abs(a[2])\n");
  ExprList found = {0};
  collect_builtins(&comp(state)->arena, &func(state, "k")->body, &found);
  static const struct {
    const char *path;
    BuiltinId id;
  } expected[] = {
      {"numba.cuda.grid", BI_GRID},         {"math.sqrt", BI_MATH_UNARY},
      {"math.sqrt", BI_MATH_UNARY},         {"numpy.float32", BI_TYPE},
      {"numba.cuda.threadIdx.x", BI_INDEX}, {"math.pi", BI_MATH_CONST},
      {"numpy.sin", BI_MATH_UNARY},         {"builtins.abs", BI_ABS},
  };
  assert_int_equal(found.len, sizeof expected / sizeof expected[0]);
  for (size_t i = 0; i < found.len; i++) {
    assert_string_equal(found.items[i]->builtin->path, expected[i].path);
    assert_int_equal(found.items[i]->builtin->id, expected[i].id);
  }
  assert_ptr_equal(found.items[3]->builtin->result, &type_float32);
}

/* ast_verify accepts what the frontend made and names the first node a broken phase left. */
static void ast_verify_finds_a_broken_tree(void **state) {
  lower_ok(state,
           "from numba import cuda\n"
           "@cuda.jit\n"
           "def k(a, n):\n"
           "    i = cuda.grid(1)\n"
           "    a[i] = n\n");
  Module *m = &((Fixture *)*state)->m;
  assert_true(ast_verify(comp(state), m, AST_RESOLVED));
  assert_int_equal(comp(state)->error_count, 0);
  Stmt *s = func(state, "k")->body.items[1];   /* a[i] = n */
  s->value->var = 99;                          /* a variable the function does not have */
  assert_false(ast_verify(comp(state), m, AST_RESOLVED));
  assert_int_equal(comp(state)->error_count, 1);
  assert_string_equal(comp(state)->diags.items[0].code, "E-internal");
  assert_int_equal(comp(state)->diags.items[0].line, 5);
  assert_non_null(strstr(comp(state)->diags.items[0].message, "not the function's"));
}

static void dotted_import_binds_the_root(void **state) {
  lower_ok(state,
           "import numba.cuda\n"
           "@numba.cuda.jit\n"
           "def k(a):\n"
           "    a[numba.cuda.blockIdx.y] = 1\n");
  ExprList found = {0};
  collect_builtins(&comp(state)->arena, &func(state, "k")->body, &found);
  assert_int_equal(found.len, 1);
  assert_string_equal(found.items[0]->builtin->c64, "blockIdx.y");
}

static void locals_shadow_builtins(void **state) {
  lower_ok(state,
           "from numba import cuda\n"
           "@cuda.jit\n"
           "def k(a):\n"
           "    abs = 2\n"
           "    a[0] = abs\n");
  const Function *f = func(state, "k");
  const Stmt *s = f->body.items[1];
  assert_int_equal(s->value->kind, EX_VAR);
  assert_string_equal(f->vars[s->value->var].name, "abs");
}

static void unknown_name_is_reported(void **state) {
  assert_false(lower(state,
                     "from numba import cuda\n"
                     "@cuda.jit\n"
                     "def k(a):\n"
                     "    a[0] = undefined_thing\n"));
  expect_first_diag(state, "E-undefined", 4, 12);
}

static void unaliased_module_is_not_visible(void **state) {
  /* math is used without being imported. */
  assert_false(lower(state,
                     "from numba import cuda\n"
                     "@cuda.jit\n"
                     "def k(a):\n"
                     "    a[0] = math.sqrt(2.0)\n"));
  expect_first_diag(state, "E-undefined", 4, 12);
}

/* ---- frontend_run: module constants --------------------------------------------------------- */

static void module_constants_are_folded(void **state) {
  lower_ok(state,
           "N = 4\n"
           "F = 2.5\n"
           "NEG = -3\n"
           "T = (1, 2, 3)\n"
           "M = N * 2 + 1\n"
           "H = F / 2\n"
           "NF = -F\n"
           "B = True\n"
           "P = (N, -N, F)\n"
           "D = N - 10\n");
  Const *k = konst(state, "N");
  assert_int_equal(k->value->kind, EX_INT);
  assert_int_equal(k->value->ival, 4);
  k = konst(state, "F");
  assert_int_equal(k->value->kind, EX_FLOAT);
  assert_true(k->value->fval == 2.5);
  k = konst(state, "NEG");
  assert_int_equal(k->value->kind, EX_INT);
  assert_int_equal(k->value->ival, -3);
  k = konst(state, "T");
  assert_int_equal(k->value->kind, EX_TUPLE);
  assert_int_equal(k->value->nkids, 3);
  assert_int_equal(k->value->kids[2]->ival, 3);
  k = konst(state, "M");
  assert_int_equal(k->value->kind, EX_INT);
  assert_int_equal(k->value->ival, 9);
  k = konst(state, "H");
  assert_int_equal(k->value->kind, EX_FLOAT);
  assert_true(k->value->fval == 1.25);
  k = konst(state, "NF");
  assert_true(k->value->fval == -2.5);
  assert_int_equal(konst(state, "B")->value->kind, EX_BOOL);
  k = konst(state, "P");
  assert_int_equal(k->value->nkids, 3);
  assert_int_equal(k->value->kids[1]->ival, -4);
  assert_true(k->value->kids[2]->fval == 2.5);
  assert_int_equal(konst(state, "D")->value->ival, -6);
}

/* What Numba freezes from math and NumPy: Python's arithmetic (big ints in between, // % **),
 * math's constants and libm-computed functions, NumPy's constants and scalar types. */
static void math_and_numpy_constants_are_folded(void **state) {
  lower_ok(state,
           "import math\n"
           "import numpy as np\n"
           "from math import sqrt\n"
           "SQRT_2PI = np.float32((2 * math.pi) ** 0.5)\n"
           "MS = np.int64(30 * 60 * 1000)\n"
           "R = sqrt(2.0) / 2\n"
           "I = -np.inf\n"
           "Q = 2 ** 100 // 2 ** 98 % 3\n"
           "FL = math.floor(1.5e19)\n"
           "U = 2 ** 64 - 1\n"
           "NAN = math.isnan(np.nan)\n");
  Const *k = konst(state, "SQRT_2PI");
  assert_ptr_equal(k->scalar, &type_float32);
  assert_true(k->value->fval == 2.5066282749176025);   /* CPython's */
  k = konst(state, "MS");
  assert_ptr_equal(k->scalar, &type_int64);
  assert_int_equal(k->value->ival, 1800000);
  k = konst(state, "R");
  assert_null(k->scalar);
  assert_true(k->value->fval == 0.7071067811865476);
  assert_true(konst(state, "I")->value->fval < -1e308);
  assert_int_equal(konst(state, "Q")->value->ival, 1);
  assert_int_equal(konst(state, "FL")->value->is_unsigned_literal, true);
  assert_true(konst(state, "FL")->value->uval == 15000000000000000000u);
  k = konst(state, "U");
  assert_true(k->value->is_unsigned_literal && k->value->uval == UINT64_MAX);
  assert_int_equal(konst(state, "NAN")->value->kind, EX_BOOL);
  assert_int_equal(konst(state, "NAN")->value->ival, 1);
}

static void unfoldable_globals_are_not_constants(void **state) {
  lower_ok(state,
           "import numpy as np\n"
           "A = np.random.rand(3)\n"
           "import math\n"
           "BIG = 9223372036854775807 * 4\n"
           "Z = 1 / 0\n"
           "G = math.gamma(0.5)\n"
           "L = math.log(0.0)\n"
           "P = np.float32(2) ** 2\n"
           "S = 'text'\n");
  const Module *m = &((Fixture *)*state)->m;
  assert_int_equal(m->consts.len, 0);
  assert_int_equal(comp(state)->error_count, 0);
}

static void using_a_non_constant_global_is_an_error(void **state) {
  assert_false(lower(state,
                     "from numba import cuda\n"
                     "import numpy as np\n"
                     "A = np.random.rand(3)\n"
                     "@cuda.jit\n"
                     "def k(a):\n"
                     "    a[0] = A\n"));
  expect_first_diag(state, "E-global-not-const", 6, 12);
  assert_int_equal(comp(state)->diags.items[1].severity, P2C_SEVERITY_NOTE);
  assert_int_equal(comp(state)->diags.items[1].line, 3);
}

static const ConstArray *const_array(void **state, const char *name) {
  const Const *k = konst(state, name);
  assert_non_null(k->array);
  return k->array;
}

static void numpy_arrays_are_evaluated(void **state) {
  lower_ok(state,
           "import numpy as np\n"
           "A = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)\n"
           "B = np.arange(12).reshape(3, -1)\n"
           "C = np.arange(0, 1, 0.25)\n"
           "D = np.full((2, 2), 7)\n"
           "E = np.zeros(4, np.int8)\n"
           "F = np.array([1.5, -2.7]).astype(np.int32)\n"
           "G = np.array([300]).astype(np.uint8)\n"
           "H = np.ones(3, dtype=bool)\n"
           "I = np.array([9223372036854775808])\n"
           "J = B.astype('f4')\n"
           "K = np.array([[], []])\n"
           "L = np.arange(5, 1)\n"
           "M = np.array([9223372036854775808, 1])\n"
           "N = np.array(7, dtype=np.int16)\n");
  const ConstArray *a = const_array(state, "A");
  assert_ptr_equal(a->dtype, &type_float32);
  assert_int_equal(a->ndim, 2);
  assert_int_equal(a->shape[0], 2);
  assert_int_equal(a->shape[1], 3);
  assert_true(a->floats[5] == 6.0);
  a = const_array(state, "B");
  assert_ptr_equal(a->dtype, &type_int64);
  assert_int_equal(a->shape[1], 4);
  assert_int_equal(a->ints[11], 11);
  a = const_array(state, "C");
  assert_ptr_equal(a->dtype, &type_float64);
  assert_int_equal(a->count, 4);
  assert_true(a->floats[3] == 0.75);
  a = const_array(state, "D");
  assert_int_equal(a->ndim, 2);
  assert_int_equal(a->ints[3], 7);
  assert_ptr_equal(const_array(state, "E")->dtype, &type_int8);
  a = const_array(state, "F");
  assert_int_equal(a->ints[0], 1);
  assert_int_equal(a->ints[1], -2);
  assert_int_equal(const_array(state, "G")->ints[0], 44);   /* .astype wraps, as NumPy's does */
  assert_ptr_equal(const_array(state, "H")->dtype, &type_bool);
  assert_ptr_equal(const_array(state, "I")->dtype, &type_uint64);
  a = const_array(state, "J");
  assert_ptr_equal(a->dtype, &type_float32);
  assert_true(a->floats[7] == 7.0);
  a = const_array(state, "K");   /* empty: NumPy's float64, not bool */
  assert_ptr_equal(a->dtype, &type_float64);
  assert_int_equal(a->ndim, 2);
  assert_int_equal(a->shape[0], 2);
  assert_int_equal(a->shape[1], 0);
  assert_int_equal(a->count, 0);
  a = const_array(state, "L");   /* an empty range is an empty array, as in NumPy */
  assert_ptr_equal(a->dtype, &type_int64);
  assert_int_equal(a->shape[0], 0);
  a = const_array(state, "M");   /* int64 and uint64 ints: float64, as NumPy 1.24 makes it */
  assert_ptr_equal(a->dtype, &type_float64);
  assert_true(a->floats[0] == 9223372036854775808.0);
  a = const_array(state, "N");   /* 0-d: one element, shape () */
  assert_ptr_equal(a->dtype, &type_int16);
  assert_int_equal(a->ndim, 0);
  assert_int_equal(a->count, 1);
  assert_int_equal(a->ints[0], 7);
}

static void numpy_arrays_that_cannot_be_evaluated(void **state) {
  lower_ok(state,
           "import numpy as np\n"
           "A = np.random.rand(3)\n"
           "B = np.array([300], dtype=np.uint8)\n"
           "C = np.array([[1, 2], [3]])\n"
           "D = np.zeros(100000)\n"
           "E = np.arange(0, float('nan'))\n"
           "G = np.arange(4) * 2\n");
  assert_int_equal(((Fixture *)*state)->m.consts.len, 0);
  assert_int_equal(comp(state)->error_count, 0);
}

static void constant_reassignment_takes_the_last_value(void **state) {
  lower_ok(state,
           "from numba import cuda\n"
           "N = 1\n"
           "N = N + 1\n"
           "@cuda.jit\n"
           "def k(a):\n"
           "    a[0] = N\n");
  const Stmt *s = func(state, "k")->body.items[0];
  assert_int_equal(s->value->kind, EX_CONST);
  assert_int_equal(s->value->konst->value->ival, 2);
  assert_true(s->value->konst->used);
}

/* ---- frontend_run: decorators --------------------------------------------------------------- */

static const char decorators_src[] =
    "from numba import cuda, void, float32\n"
    "import numba\n"
    "@cuda.jit\n"
    "def plain(a):\n"
    "    pass\n"
    "@cuda.jit(\"void(float32[:])\")\n"
    "def one_sig(a):\n"
    "    pass\n"
    "@cuda.jit([\"void(float32[:])\", 'void(float64[::1])'])\n"
    "def two_sigs(a):\n"
    "    pass\n"
    "@cuda.jit(void(float32[:]))\n"
    "def typed_sig(a):\n"
    "    pass\n"
    "@cuda.jit(device=True)\n"
    "def dev(x):\n"
    "    return x\n"
    "@numba.cuda.jit(fastmath=True)\n"
    "def full_path(a):\n"
    "    pass\n"
    "def not_a_kernel(a):\n"
    "    pass\n";

static void expect_sig(const Function *f, int i, const char *text) {
  assert_true(i < f->nsigs);
  assert_int_equal(f->sigs[i].len, strlen(text));
  assert_memory_equal(f->sigs[i].text, text, strlen(text));
}

static void decorator_forms(void **state) {
  lower_ok(state, decorators_src);
  const Module *m = &((Fixture *)*state)->m;
  assert_int_equal(m->funcs.len, 6);
  Function *f = func(state, "plain");
  assert_int_equal(f->kind, FN_KERNEL);
  assert_int_equal(f->nsigs, 0);
  f = func(state, "one_sig");
  assert_int_equal(f->nsigs, 1);
  expect_sig(f, 0, "void(float32[:])");
  f = func(state, "two_sigs");
  assert_int_equal(f->nsigs, 2);
  expect_sig(f, 0, "void(float32[:])");
  expect_sig(f, 1, "void(float64[::1])");
  f = func(state, "typed_sig");
  assert_int_equal(f->nsigs, 1);
  expect_sig(f, 0, "void(float32[:])");
  assert_int_equal(func(state, "dev")->kind, FN_DEVICE);
  f = func(state, "full_path");
  assert_int_equal(f->kind, FN_KERNEL);
  assert_int_equal(f->nsigs, 0);
  for (size_t i = 0; i < m->funcs.len; i++) assert_string_not_equal(m->funcs.items[i]->name, "not_a_kernel");
}

static void signature_string_location_is_inside_the_quotes(void **state) {
  lower_ok(state, decorators_src);
  const Function *f = func(state, "one_sig");
  assert_int_equal(f->sigs[0].loc.line, 6);
  assert_int_equal(f->sigs[0].loc.col, 12);   /* @cuda.jit(" is 11 characters */
  assert_int_equal(f->loc.line, 7);
  assert_int_equal(f->loc.col, 5);
}

static void unknown_jit_option_is_reported(void **state) {
  assert_false(lower(state,
                     "from numba import cuda\n"
                     "@cuda.jit(bogus_option=32)\n"
                     "def k(a):\n"
                     "    pass\n"));
  expect_first_diag(state, "E-decorator", 2, 11);
}

/* device= by its truth, as Numba reads it; options Numba accepts that change nothing pass. */
static void device_keyword_is_read_by_truth(void **state) {
  lower_ok(state,
           "from numba import cuda\n"
           "@cuda.jit(device=1)\n"
           "def d1(a):\n"
           "    return a\n"
           "@cuda.jit(device=0x0, max_registers=32, lto=False, launch_bounds=(256, 2), extensions=[])\n"
           "def k0(a):\n"
           "    pass\n"
           "@cuda.jit(device=None)\n"
           "def k1(a):\n"
           "    pass\n");
  assert_int_equal(func(state, "d1")->kind, FN_DEVICE);
  assert_true(func(state, "k0")->kind != FN_DEVICE);
  assert_true(func(state, "k1")->kind != FN_DEVICE);
}

static void parameters_are_the_first_vars(void **state) {
  lower_ok(state,
           "from numba import cuda\n"
           "@cuda.jit\n"
           "def k(a, b, n):\n"
           "    t = n\n"
           "    a[0] = t\n");
  const Function *f = func(state, "k");
  assert_int_equal(f->nparams, 3);
  assert_int_equal(f->nvars, 4);
  assert_string_equal(f->vars[2].name, "n");
  assert_true(f->vars[2].is_param);
  assert_string_equal(f->vars[3].name, "t");
  assert_false(f->vars[3].is_param);
}

/* ---- frontend_run: statements --------------------------------------------------------------- */

static void augmented_assignment_desugars(void **state) {
  lower_ok(state,
           "from numba import cuda\n"
           "@cuda.jit\n"
           "def k(a, x):\n"
           "    x += 1\n"
           "    a[x] //= 2\n");
  const Function *f = func(state, "k");
  const Stmt *s = f->body.items[0];
  assert_int_equal(s->kind, ST_AUGASSIGN);
  assert_int_equal(s->op, OP_ADD);
  assert_int_equal(s->ntargets, 1);
  assert_int_equal(s->targets[0]->kind, EX_VAR);
  assert_int_equal(s->value->kind, EX_BINARY);
  assert_int_equal(s->value->op, OP_ADD);
  assert_int_equal(s->value->kids[0]->kind, EX_VAR);
  assert_int_equal(s->value->kids[0]->var, s->targets[0]->var);
  assert_int_equal(s->value->kids[1]->kind, EX_INT);
  assert_int_equal(s->value->kids[1]->ival, 1);
  s = f->body.items[1];
  assert_int_equal(s->kind, ST_AUGASSIGN);
  assert_int_equal(s->op, OP_FLOORDIV);
  assert_int_equal(s->targets[0]->kind, EX_INDEX);
  assert_int_equal(s->value->op, OP_FLOORDIV);
  assert_int_equal(s->value->kids[0]->kind, EX_INDEX);
  /* The target and the left operand are separate nodes (typeinfer decorates each). */
  assert_ptr_not_equal(s->value->kids[0], s->targets[0]);
}

static void elif_chains_nest_in_orelse(void **state) {
  lower_ok(state,
           "from numba import cuda\n"
           "@cuda.jit\n"
           "def k(a, x):\n"
           "    if x == 0:\n"
           "        a[0] = 0\n"
           "    elif x == 1:\n"
           "        a[0] = 1\n"
           "    elif x == 2:\n"
           "        a[0] = 2\n"
           "    else:\n"
           "        a[0] = 3\n"
           "        a[1] = 3\n");
  const Function *f = func(state, "k");
  assert_int_equal(f->body.len, 1);
  const Stmt *s = f->body.items[0];
  for (int level = 0; level < 2; level++) {
    assert_int_equal(s->kind, ST_IF);
    assert_int_equal(s->body.len, 1);
    assert_int_equal(s->orelse.len, 1);
    s = s->orelse.items[0];
    assert_int_equal(s->loc.line, 6 + 2 * level);
  }
  assert_int_equal(s->kind, ST_IF);
  assert_int_equal(s->orelse.len, 2);
  assert_int_equal(s->orelse.items[0]->kind, ST_ASSIGN);
}

static void docstrings_are_skipped(void **state) {
  lower_ok(state,
           "\"\"\"Module docstring.\"\"\"\n"
           "from numba import cuda\n"
           "@cuda.jit\n"
           "def k(a):\n"
           "    \"\"\"Kernel docstring,\n"
           "    on two lines.\"\"\"\n"
           "    a[0] = 1\n"
           "    'a bare string'\n");
  const Function *f = func(state, "k");
  assert_int_equal(f->body.len, 1);
  assert_int_equal(f->body.items[0]->kind, ST_ASSIGN);
  assert_int_equal(f->body.items[0]->loc.line, 7);
}

static void for_range_and_iteration(void **state) {
  lower_ok(state,
           "from numba import cuda\n"
           "@cuda.jit\n"
           "def k(a, n):\n"
           "    for i in range(n):\n"
           "        a[i] = i\n"
           "    for j in range(1, n, 2):\n"
           "        a[j] = 0\n"
           "    for v in a:\n"
           "        n += v\n");
  const Function *f = func(state, "k");
  const Stmt *s = f->body.items[0];
  assert_int_equal(s->kind, ST_FOR_RANGE);
  assert_null(s->start);
  assert_non_null(s->stop);
  assert_null(s->step);
  s = f->body.items[1];
  assert_int_equal(s->start->ival, 1);
  assert_int_equal(s->step->ival, 2);
  s = f->body.items[2];
  assert_int_equal(s->kind, ST_FOR_ITER);
  assert_string_equal(f->vars[s->var].name, "v");
}

static void syntax_error_has_a_position(void **state) {
  assert_false(lower(state,
                     "from numba import cuda\n"
                     "@cuda.jit\n"
                     "def k(a):\n"
                     "    a[0] = (1 +\n"));
  assert_true(has_diag(state, "E-syntax"));
  assert_true(comp(state)->diags.items[0].line >= 4);
}

static void break_outside_loop_is_reported(void **state) {
  assert_false(lower(state,
                     "from numba import cuda\n"
                     "@cuda.jit\n"
                     "def k(a):\n"
                     "    break\n"));
  expect_first_diag(state, "E-outside-loop", 4, 5);
}

/* ---- deep nesting --------------------------------------------------------------------------- */

static char *kernel_with_body(const char *body_line_prefix, const char *middle, const char *suffix,
                              int repeat) {
  size_t cap = 256 + strlen(middle) + (strlen(body_line_prefix) + strlen(suffix) + 16) * (size_t)repeat;
  char *s = malloc(cap);
  assert_non_null(s);
  int n = snprintf(s, cap, "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] = ");
  for (int i = 0; i < repeat; i++) n += snprintf(s + n, cap - (size_t)n, "%s", body_line_prefix);
  n += snprintf(s + n, cap - (size_t)n, "%s", middle);
  for (int i = 0; i < repeat; i++) n += snprintf(s + n, cap - (size_t)n, "%s", suffix);
  snprintf(s + n, cap - (size_t)n, "\n");
  return s;
}

static void deeply_nested_parens_are_refused(void **state) {
  char *src = kernel_with_body("(", "1", ")", 5000);
  assert_false(lower(state, src));
  free(src);
  assert_true(has_diag(state, "E-too-deep"));
  assert_int_equal(comp(state)->diags.items[0].line, 4);
}

static void deeply_nested_unary_minus_is_refused(void **state) {
  char *src = kernel_with_body("-", "1", "", 20000);
  assert_false(lower(state, src));
  free(src);
  assert_true(has_diag(state, "E-too-deep"));
}

/* A left-associative chain is one level of nesting, up to P2C_MAX_CHAIN operators. */
static void long_operator_chain_is_refused(void **state) {
  char *src = kernel_with_body("a[0] + ", "1", "", 20000);
  assert_false(lower(state, src));
  free(src);
  assert_true(has_diag(state, "E-too-many"));
  assert_false(has_diag(state, "E-too-deep"));
}

static void operator_chain_within_the_limit_lowers(void **state) {
  char *src = kernel_with_body("a[0] - ", "1", "", P2C_MAX_CHAIN);
  assert_true(lower(state, src));
  free(src);
}

static char *nested_ifs(int n) {
  size_t cap = 128 + (size_t)n * ((size_t)n + 16);
  char *s = malloc(cap);
  assert_non_null(s);
  int len = snprintf(s, cap, "from numba import cuda\n@cuda.jit\ndef k(a):\n");
  for (int i = 0; i < n; i++) len += snprintf(s + len, cap - (size_t)len, "%*sif a[0]:\n", 4 + i, "");
  snprintf(s + len, cap - (size_t)len, "%*sa[0] = 1\n", 4 + n, "");
  return s;
}

static void nested_ifs_past_the_limit_are_refused(void **state) {
  char *src = nested_ifs(150);
  assert_false(lower(state, src));
  free(src);
  assert_true(has_diag(state, "E-too-deep"));
}

static void two_thousand_nested_ifs_do_not_crash(void **state) {
  char *src = nested_ifs(2000);
  assert_false(lower(state, src));
  free(src);
  assert_true(comp(state)->error_count >= 1);
}

static void long_elif_chain_does_not_crash(void **state) {
  enum { N = 20000 };
  size_t cap = 128 + (size_t)N * 48;
  char *s = malloc(cap);
  assert_non_null(s);
  int len = snprintf(s, cap,
                     "from numba import cuda\n@cuda.jit\ndef k(a):\n"
                     "    if a[0] == 0:\n        a[0] = 1\n");
  for (int i = 1; i <= N; i++)
    len += snprintf(s + len, cap - (size_t)len, "    elif a[0] == %d:\n        a[0] = 1\n", i);
  lower(state, s);
  free(s);
}

/* ---- ast_dump ------------------------------------------------------------------------------- */

static void ast_dump_of_a_small_kernel(void **state) {
  lower_ok(state,
           "from numba import cuda\n"
           "TPB = 4\n"
           "@cuda.jit\n"
           "def k(a, n):\n"
           "    i = cuda.grid(1)\n"
           "    if i < n:\n"
           "        a[i] += 2.5\n"
           "    else:\n"
           "        a[0] = -TPB\n");
  StrBuf sb;
  sb_init(&sb, &comp(state)->arena);
  ast_dump(&sb, &((Fixture *)*state)->m, false);
  assert_string_equal(sb_str(&sb),
                      "Const TPB\n"
                      "  Int 4 @2:7\n"
                      "Kernel k @4:5\n"
                      "  param a\n"
                      "  param n\n"
                      "  local i\n"
                      "  Assign @5:5\n"
                      "    Var i @5:5\n"
                      "    Call @5:9\n"
                      "      Builtin cuda.grid @5:9\n"
                      "      Int 1 @5:19\n"
                      "  If @6:5\n"
                      "    Compare < @6:8\n"
                      "      Var i @6:8\n"
                      "      Var n @6:12\n"
                      "    AugAssign += @7:9\n"
                      "      Index @7:9\n"
                      "        Var a @7:9\n"
                      "        Var i @7:11\n"
                      "      Binary + @7:14\n"
                      "        Index @7:9\n"
                      "          Var a @7:9\n"
                      "          Var i @7:11\n"
                      "        Float 2.5 @7:17\n"
                      "  Else\n"
                      "    Assign @9:9\n"
                      "      Index @9:9\n"
                      "        Var a @9:9\n"
                      "        Int 0 @9:11\n"
                      "      Unary - @9:16\n"
                      "        Const TPB @9:17\n");
}

/* ---- regressions ----------------------------------------------------------------------------- */

/* Past ~254 indentation levels tree-sitter's scanner fails, and the user got "invalid syntax"
 * at 1:1. Indentation is now measured before parsing (parse_too_deep_offset): E-too-deep at the
 * first line past the limit. */
static void regression_2000_nested_ifs_say_too_deep(void **state) {
  char *src = nested_ifs(2000);
  assert_false(lower(state, src));
  free(src);
  assert_true(has_diag(state, "E-too-deep"));
  const P2cDiagnostic *d = &comp(state)->diags.items[0];
  assert_string_equal(d->code, "E-too-deep");
  assert_true(d->line > 100 && d->line < 110);
}

static void indentation_depth_ignores_blank_comment_and_bracketed_lines(void **state) {
  (void)state;
  const char *ok = "if a:\n  if b:\n\n        # deep comment\n    x = (1,\n            2)\n";
  assert_int_equal(parse_too_deep_offset(ok, strlen(ok), 2), SIZE_MAX);
  const char *deep = "if a:\n  if b:\n    if c:\n      x = 1\n";
  assert_int_equal(parse_too_deep_offset(deep, strlen(deep), 2), strstr(deep, "x = 1") - deep);
  const char *dedent = "if a:\n  if b:\n    x\n  y\n  if c:\n    z\n";
  assert_int_equal(parse_too_deep_offset(dedent, strlen(dedent), 2), SIZE_MAX);
}

/* lower_expr.c flatten_boolop: recursion over a left-nested `and` chain without the depth
 * check; 100000 operands overflow the C stack (SIGSEGV). */
static void regression_long_and_chain_does_not_crash(void **state) {
  char *src = kernel_with_body("a[1] and ", "a[2]", "", 100000);
  lower(state, src);
  free(src);
  assert_true(comp(state)->error_count >= 1);
}

/* lower.c dotted_path: recursion over an attribute chain without the depth check; 100000
 * attributes overflow the C stack (SIGSEGV). */
static void regression_long_attribute_chain_does_not_crash(void **state) {
  char *src = kernel_with_body("", "cuda", ".x", 100000);
  lower(state, src);
  free(src);
  assert_true(comp(state)->error_count >= 1);
}

/* lower_expr.c lower_boolop: operands past the 64th of one `and`/`or` chain are dropped
 * silently (flatten_boolop's `if (k < cap)`), so the condition changes meaning. */
static void regression_boolop_keeps_every_operand(void **state) {
  char *src = kernel_with_body("a[1] and ", "a[2]", "", 69);
  bool ok = lower(state, src);
  free(src);
  if (!ok) {   /* refusing the chain with a diagnostic is acceptable too */
    assert_true(comp(state)->error_count >= 1);
    return;
  }
  const Stmt *s = func(state, "k")->body.items[0];
  assert_int_equal(s->value->kind, EX_BOOLOP);
  assert_int_equal(s->value->nkids, 70);
}

/* ---- parsing in two parts (frontend/parse.c) ---- */

/* Where parse_split_point cuts `src`, as the text of the line it cuts before ("" for nowhere). */
static const char *cut_line(const char *src) {
  static char line[64];
  size_t len = strlen(src), at = parse_split_point(src, len);
  if (at == 0 || at >= len) return "";
  const char *p = src + at;
  int n = 0;
  while ((size_t)n < len - at && p[n] != '\n' && n < 63) n++;
  snprintf(line, sizeof line, "%.*s", n, p);
  return line;
}

static void split_point_is_a_top_level_definition(void **state) {
  (void)state;
  assert_string_equal(cut_line("x = 1\ny = 2\n@cuda.jit\ndef f():\n    pass\n"), "@cuda.jit");
  /* Never between a decorator and its definition, even across a multi-line decorator,
   * comments and blank lines. */
  assert_string_equal(cut_line("x = 1\n@cuda.jit(\n    'void()')\n\n# c\ndef f():\n    pass\ny = 1\n"), "");
  assert_string_equal(cut_line("x = 1\ny = 2\nz = 3\n@a\n@b\ndef f():\n    pass\n"), "@a");
  /* Not inside strings (any quote form), brackets or after a backslash continuation. */
  assert_string_equal(cut_line("s = '''\n@x\ndef g():\n'''\nt = 1\n"), "");
  assert_string_equal(cut_line("s = \"\"\"a \\\"\"\" \n@x\ndef g():\n\"\"\"\n"), "");
  assert_string_equal(cut_line("s = (1,\n2)\nt = [\n'''x'''\n,\ndef_ := 3]\n"), "");
  assert_string_equal(cut_line("x = 1 + \\\n\\\ndef_y\nq = 2\n"), "");
  assert_string_equal(cut_line("x = f(\"(\"  # )\n)\ny = 2\ndef f():\n    pass\n"), "def f():");
  /* Indented definitions (methods, nested functions) are not top level. */
  assert_string_equal(cut_line("x = 1\ny = 2\nif x:\n    def f():\n        pass\n"), "");
  assert_string_equal(cut_line(""), "");
}

/* A module of n kernels and device functions, with strings and comments that look like
 * definitions, for comparing one-part and two-part parses. */
static char *many_functions(int n, size_t *len) {
  size_t cap = 256 + (size_t)n * 600;
  char *s = malloc(cap);
  assert_non_null(s);
  int k = snprintf(s, cap, "from numba import cuda\nimport math\nTPB = 128\n");
  for (int i = 0; i < n; i++)
    k += snprintf(s + k, cap - (size_t)k,
                  "@cuda.jit(device=True)\n"
                  "def dev%d(x, y):\n"
                  "    \"\"\"doc\n@cuda.jit\ndef fake():\n\"\"\"\n"
                  "    return math.sqrt(x * x + y * y) // 2\n"
                  "# def not_a_function():\n"
                  "@cuda.jit(\n    [\"void(float32[::1], int64)\"])\n"
                  "def kern%d(a, n):\n"
                  "    i = cuda.grid(1)\n"
                  "    for j in range(n):\n"
                  "        if i < a.size and j %% 3 == 1:\n"
                  "            print(\"value @x\", i, j)\n"
                  "    a[0] = dev%d(n, i - TPB) + \\\n        1\n",
                  i, i, i);
  *len = (size_t)k;
  return s;
}

/* Lowers src with the given split threshold into a fresh compilation. */
static bool lower_with_split(Compilation *c, Module *m, const char *src, size_t len, size_t split_min) {
  memset(c, 0, sizeof *c);
  memset(m, 0, sizeof *m);
  arena_init(&c->arena, NULL);
  c->file = "t.py";
  c->parse_split_min = split_min;
  assert_true(source_prepare(c, src, len));
  bool ok = frontend_run(c, m);
  frontend_finish(c);
  return ok;
}

/* The AST dump of src lowered with the given split threshold. */
static char *lowered_dump(const char *src, size_t len, size_t split_min) {
  Compilation c;
  Module m;
  char *text = NULL;
  if (lower_with_split(&c, &m, src, len, split_min)) {
    StrBuf sb;
    sb_init(&sb, &c.arena);
    ast_dump(&sb, &m, false);
    text = strdup(sb_str(&sb));
  }
  arena_free(&c.arena);
  return text;
}

static void two_part_parse_gives_the_same_ast(void **state) {
  (void)state;
  size_t len;
  char *src = many_functions(60, &len);
  size_t cut = parse_split_point(src, len);
  assert_true(cut > len / 4 && cut < len * 3 / 4);
  /* The split really happens (no fallback to one part) ... */
  Compilation c = {0};
  arena_init(&c.arena, NULL);
  c.file = "t.py";
  assert_true(source_prepare(&c, src, len));
  ParseState ps = {0};
  assert_true(parse_source(&c, &ps, 1));
  assert_int_equal(ps.count, 2);
  assert_int_equal(ts_node_start_byte(ts_tree_root_node(ps.trees[1])) >= cut, 1);
  parse_release(&ps);
  arena_free(&c.arena);
  /* ... and lowering both parts gives what lowering the whole gives. */
  char *whole = lowered_dump(src, len, SIZE_MAX);
  char *split = lowered_dump(src, len, 1);
  assert_non_null(whole);
  assert_non_null(split);
  assert_string_equal(whole, split);
  free(whole);
  free(split);
  free(src);
}

/* src with `with` replacing `what` in every `every`-th kernel (an error in its body). */
static char *with_bad_bodies(const char *src, const char *what, const char *with, int every) {
  size_t n = strlen(src), grow = strlen(with) > strlen(what) ? strlen(with) - strlen(what) : 0;
  char *out = malloc(n + 1 + grow * (n / strlen(what) + 1));
  assert_non_null(out);
  const char *p = src;
  char *o = out;
  for (int k = 0;; k++) {
    const char *hit = strstr(p, what);
    size_t keep = hit ? (size_t)(hit - p) : strlen(p);
    memcpy(o, p, keep);
    o += keep;
    if (!hit) break;
    const char *put = k % every == 0 ? with : what;
    memcpy(o, put, strlen(put));
    o += strlen(put);
    p = hit + strlen(what);
  }
  *o = '\0';
  return out;
}

/* Errors in the bodies of both parts (lowered on two threads) are reported exactly as one
 * thread lowering every body in turn reports them: same list, same order, same count, also
 * past the limit on kept diagnostics. */
static void two_part_lowering_reports_errors_like_one_part(void **state) {
  (void)state;
  size_t len;
  char *src = many_functions(120, &len);
  const int every[] = {40, 1};   /* 3 errors, then 120 (past P2C_MAX_ERRORS) */
  for (int t = 0; t < 2; t++) {
    char *bad = with_bad_bodies(src, "    for j in range(n):", "    for j in [n]:", every[t]);
    size_t bad_len = strlen(bad);
    Compilation split, whole;
    Module m1, m2;
    assert_false(lower_with_split(&split, &m1, bad, bad_len, 1));
    assert_false(lower_with_split(&whole, &m2, bad, bad_len, SIZE_MAX));
    assert_int_equal(split.error_count, whole.error_count);
    assert_int_equal(whole.error_count, t == 0 ? 3 : 120);
    assert_int_equal(split.too_many_errors, whole.too_many_errors);
    assert_int_equal(split.diags.len, whole.diags.len);
    for (size_t i = 0; i < whole.diags.len; i++) {
      assert_int_equal(split.diags.items[i].line, whole.diags.items[i].line);
      assert_int_equal(split.diags.items[i].column, whole.diags.items[i].column);
      assert_string_equal(split.diags.items[i].code, whole.diags.items[i].code);
      assert_string_equal(split.diags.items[i].message, whole.diags.items[i].message);
    }
    /* The last error of the three is in the second part: the split did put bodies there. */
    if (t == 0) assert_true(whole.diags.items[2].line > whole.line_starts.len / 2);
    arena_free(&split.arena);
    arena_free(&whole.arena);
    free(bad);
  }
  free(src);
}

/* A constant used only by a kernel of the second part is marked used (the flag both threads
 * write), so that codegen emits it. */
static void two_part_lowering_marks_constants_used(void **state) {
  (void)state;
  size_t len;
  char *src = many_functions(60, &len);
  char *more = malloc(len + 256);
  assert_non_null(more);
  snprintf(more, len + 256, "ONLY_LAST = 7\nNEVER = 8\n%s@cuda.jit('void(int64[:])')\ndef last(a):\n    a[0] = ONLY_LAST\n", src);
  Compilation c;
  Module m;
  assert_true(lower_with_split(&c, &m, more, strlen(more), 1));
  bool saw_only_last = false, saw_never = false;
  for (size_t i = 0; i < m.consts.len; i++) {
    if (strcmp(m.consts.items[i]->name, "ONLY_LAST") == 0) saw_only_last = m.consts.items[i]->used;
    if (strcmp(m.consts.items[i]->name, "NEVER") == 0) saw_never = !m.consts.items[i]->used;
  }
  assert_true(saw_only_last);
  assert_true(saw_never);
  arena_free(&c.arena);
  free(more);
  free(src);
}

/* A syntax error in either part is reported as the one-part parse reports it. */
static void two_part_parse_reports_errors_like_one_part(void **state) {
  (void)state;
  size_t len;
  char *src = many_functions(40, &len);
  for (int where = 0; where < 2; where++) {
    char *bad = strdup(src);   /* a line broken near the start, then near the end */
    char *p = strstr(where ? bad + len * 3 / 4 : bad, "    i = cuda.grid(1)");
    assert_non_null(p);
    memcpy(p, "    i = ((((((((((((1", 21);
    Compilation split, whole;
    Module m1, m2;
    assert_false(lower_with_split(&split, &m1, bad, len, 1));
    assert_false(lower_with_split(&whole, &m2, bad, len, SIZE_MAX));
    assert_int_equal(split.diags.len, whole.diags.len);
    assert_int_equal(split.diags.items[0].line, whole.diags.items[0].line);
    assert_int_equal(split.diags.items[0].column, whole.diags.items[0].column);
    assert_string_equal(split.diags.items[0].message, whole.diags.items[0].message);
    arena_free(&split.arena);
    arena_free(&whole.arena);
    free(bad);
  }
  free(src);
}

int main(void) {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(split_point_is_a_top_level_definition),
      cmocka_unit_test(two_part_lowering_reports_errors_like_one_part),
      cmocka_unit_test(two_part_lowering_marks_constants_used),
      cmocka_unit_test(two_part_parse_gives_the_same_ast),
      cmocka_unit_test(two_part_parse_reports_errors_like_one_part),
      T(bom_is_stripped),
      T(crlf_becomes_lf_and_keeps_lines),
      T(lone_cr_is_a_newline),
      T(missing_final_newline_is_added),
      T(empty_source_is_one_empty_line),
      T(nul_byte_is_rejected_at_its_position),
      T(nul_byte_column_counts_characters),
      T(invalid_lead_byte_is_rejected),
      T(overlong_encoding_is_rejected),
      T(overlong_three_byte_is_rejected),
      T(surrogate_is_rejected),
      T(code_point_past_max_is_rejected),
      T(truncated_sequence_is_rejected),
      T(stray_continuation_byte_is_rejected),
      T(valid_utf8_of_every_length_is_kept),
      T(columns_count_characters_not_bytes),
      T(a_tab_is_one_column),
      T(offsets_past_the_end_clamp),
      T(oversized_source_is_rejected),
      T(import_aliases_resolve_to_builtins),
      T(dotted_import_binds_the_root),
      T(locals_shadow_builtins),
      T(unknown_name_is_reported),
      T(unaliased_module_is_not_visible),
      T(module_constants_are_folded),
      T(math_and_numpy_constants_are_folded),
      T(unfoldable_globals_are_not_constants),
      T(numpy_arrays_are_evaluated),
      T(numpy_arrays_that_cannot_be_evaluated),
      T(using_a_non_constant_global_is_an_error),
      T(constant_reassignment_takes_the_last_value),
      T(decorator_forms),
      T(signature_string_location_is_inside_the_quotes),
      T(unknown_jit_option_is_reported),
      T(device_keyword_is_read_by_truth),
      T(parameters_are_the_first_vars),
      T(augmented_assignment_desugars),
      T(elif_chains_nest_in_orelse),
      T(docstrings_are_skipped),
      T(for_range_and_iteration),
      T(syntax_error_has_a_position),
      T(break_outside_loop_is_reported),
      T(deeply_nested_parens_are_refused),
      T(deeply_nested_unary_minus_is_refused),
      T(long_operator_chain_is_refused), T(operator_chain_within_the_limit_lowers),
      T(nested_ifs_past_the_limit_are_refused),
      T(two_thousand_nested_ifs_do_not_crash),
      T(long_elif_chain_does_not_crash),
      T(ast_dump_of_a_small_kernel),
      T(ast_verify_finds_a_broken_tree),
      T(regression_2000_nested_ifs_say_too_deep),
      cmocka_unit_test(indentation_depth_ignores_blank_comment_and_bracketed_lines),
      T(regression_boolop_keeps_every_operand),
      T(regression_long_and_chain_does_not_crash),       /* crashes the process: keep these last */
      T(regression_long_attribute_chain_does_not_crash),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
