/* Unit tests for the analysis phase (src/analysis): the facts it records on the typed AST.
 *
 * Which variables are known non-negative and positive (cuda.grid, a gridsize stride, a loop
 * counter over a non-negative range; not a parameter, not a value that can be negative); the
 * facts of range loops (step sign, exact advance, the counter used directly or not, bounds the
 * loop rebinds); which kernel the simulator may run in lockstep; the device functions reached,
 * in order of first call, each once; the complex and float16 types in use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "frontend/frontend.h"
#include "typeinfer/typeinfer.h"

typedef struct Fixture {
  Compilation c;
  Module m;
  TypeTable tt;
  Analysis an;
} Fixture;

static int setup(void **state) {
  Fixture *f = test_calloc(1, sizeof *f);
  arena_init(&f->c.arena, NULL);
  f->c.file = "t.py";
  *state = f;
  return 0;
}

static int teardown(void **state) {
  Fixture *f = *state;
  arena_free(&f->c.arena);
  test_free(f);
  return 0;
}

/* Translates src through typeinfer and runs the analysis. */
static Analysis *analyse(void **state, const char *src) {
  Fixture *f = *state;
  assert_true(source_prepare(&f->c, src, strlen(src)));
  bool ok = frontend_run(&f->c, &f->m);
  frontend_finish(&f->c);
  assert_true(ok);
  types_init(&f->tt, &f->c.arena);
  TypeinferOptions tio = {0};
  assert_true(typeinfer_run(&f->c, &f->m, &f->tt, &tio));
  AnalysisOptions ao = {0};
  analysis_run(&f->c, &f->m, &ao, &f->an);
  return &f->an;
}

static int var_of(const Function *f, const char *name) {
  for (int i = 0; i < f->nvars; i++)
    if (strcmp(f->vars[i].name, name) == 0) return i;
  fail_msg("no variable %s", name);
  return -1;
}

static const Stmt *last_stmt(const Block *b) { return b->items[b->len - 1]; }

static void nonneg_and_positive_variables(void **state) {
  Analysis *an = analyse(state, "from numba import cuda\n"
                                "@cuda.jit('void(float32[::1], int64)')\n"
                                "def k(a, n):\n"
                                "    i = cuda.grid(1)\n"
                                "    s = cuda.gridsize(1)\n"
                                "    d = n - i\n"
                                "    for j in range(i, a.size, s):\n"
                                "        a[j] = d\n");
  assert_int_equal(an->kernels.len, 1);
  const Function *f = an->kernels.items[0];
  assert_true(f->nonneg[var_of(f, "i")]);
  assert_false(f->positive[var_of(f, "i")]);
  assert_true(f->positive[var_of(f, "s")]);
  assert_false(f->nonneg[var_of(f, "n")]);   /* a parameter */
  assert_false(f->nonneg[var_of(f, "d")]);   /* n - i can be negative */
  assert_true(f->nonneg[var_of(f, "j")]);    /* from i >= 0 by a positive step */
  const Stmt *loop = last_stmt(&f->body);
  assert_int_equal(loop->range.sign, 1);
  assert_true(loop->range.direct);
  assert_true(loop->range.stop_stable);
  assert_true(loop->range.step_stable);
  assert_ptr_equal(f->lockstep_loop, loop);   /* a grid-stride loop ends the kernel */
}

static void range_facts_of_rebound_loops(void **state) {
  Analysis *an = analyse(state, "from numba import cuda\n"
                                "@cuda.jit('void(int64[::1], int64, int64)')\n"
                                "def k(a, n, s):\n"
                                "    for j in range(0, n, s):\n"
                                "        n -= 1\n"   /* updates: one web with what they read (webs.c) */
                                "        j += 1\n"
                                "    a[0] = j\n");
  const Function *f = an->kernels.items[0];
  const Stmt *loop = f->body.items[0];
  assert_int_equal(loop->range.sign, 2);         /* s is known only at run time */
  assert_false(loop->range.direct);              /* the body rebinds j, which is read after */
  assert_false(loop->range.stop_stable);         /* the body rebinds n */
  assert_true(loop->range.step_stable);
  assert_false(loop->range.exact_advance);       /* n and s may be near the top of int64 */
  assert_null(f->lockstep_loop);                 /* not a grid-stride loop */
}

static void devices_in_order_of_first_call(void **state) {
  Analysis *an = analyse(state, "from numba import cuda\n"
                                "@cuda.jit(device=True)\n"
                                "def leaf(x):\n"
                                "    return x + 1j\n"
                                "@cuda.jit(device=True)\n"
                                "def mid(x):\n"
                                "    return leaf(x).real\n"
                                "@cuda.jit(device=True)\n"
                                "def other(x):\n"
                                "    return x * 2\n"
                                "@cuda.jit('void(float64[::1])')\n"
                                "def k(a):\n"
                                "    a[0] = mid(a[0]) + other(a[1]) + mid(a[2])\n");
  assert_int_equal(an->devices.len, 3);
  assert_string_equal(an->devices.items[0]->generic->name, "mid");
  assert_string_equal(an->devices.items[1]->generic->name, "leaf");
  assert_string_equal(an->devices.items[2]->generic->name, "other");
  assert_true(an->uses_complex);   /* only leaf names a complex type */
  assert_false(an->uses_half);
}

static void no_complex_without_complex_types(void **state) {
  Analysis *an = analyse(state, "from numba import cuda\n"
                                "@cuda.jit('void(float64[::1])')\n"
                                "def k(a):\n"
                                "    print('p2c_complex128')\n"
                                "    a[0] = 1.0\n");
  assert_false(an->uses_complex);
  assert_null(an->kernels.items[0]->lockstep_loop);
}

/* Expression facts (facts.c): what codegen reads instead of asking. */
static void expression_facts(void **state) {
  Analysis *an = analyse(state, "from numba import cuda\n"
                                "@cuda.jit('void(float32[::1], int64[::1], int64)')\n"
                                "def k(a, b, n):\n"
                                "    i = cuda.grid(1)\n"
                                "    a[i + 1] = a[n] + b[i // 3] + b[i % n]\n"
                                "    for x in a[i:n]:\n"
                                "        i += 1\n");
  const Function *f = an->kernels.items[0];
  const Stmt *s = f->body.items[1];
  const Expr *target_ix = s->targets[0]->kids[1];     /* i + 1 */
  assert_true(target_ix->facts & EF_KNOWN);
  assert_true(target_ix->facts & EF_NONNEG);
  assert_true(target_ix->facts & EF_POSITIVE);
  const Expr *sum = s->value;                          /* ((a[n] + b[i // 3]) + b[i % n]) */
  const Expr *left = sum->kids[0]->kind == EX_CAST ? sum->kids[0]->kids[0] : sum->kids[0];
  const Expr *a_n = left->kids[0]->kind == EX_CAST ? left->kids[0]->kids[0] : left->kids[0];
  assert_true(a_n->kids[1]->facts & EF_KNOWN);
  assert_false(a_n->kids[1]->facts & EF_NONNEG);      /* n, a parameter: wrapped */
  const Expr *b_div = left->kids[1]->kind == EX_CAST ? left->kids[1]->kids[0] : left->kids[1];
  const Expr *div = b_div->kids[1];                    /* i // 3 */
  assert_true(div->kids[0]->facts & EF_NONNEG);
  assert_true(div->kids[1]->facts & EF_POSITIVE);
  const Stmt *loop = f->body.items[2];
  const Expr *slice = loop->value->kids[1];            /* i:n, and the body rebinds i */
  assert_false(slice->kids[0]->facts & EF_STABLE);
  assert_true(slice->kids[1]->facts & EF_STABLE);
}

/* How a tuple being unpacked is taken apart (facts.c): through temporaries when the literal
 * reads a target, in place when the value is at hand, into one temporary otherwise. */
static void unpacking_facts(void **state) {
  Analysis *an = analyse(state, "from numba import cuda\n"
                                "@cuda.jit(device=True)\n"
                                "def pair(x):\n"
                                "    return x, x + 1\n"
                                "@cuda.jit('void(int64[::1])')\n"
                                "def k(a):\n"
                                "    x, y = a[0], a[1]\n"
                                "    for w in range(2):\n"   /* reads its own results: one web (webs.c) */
                                "        x, y = y, x\n"
                                "    s, t = pair(x)\n"
                                "    u, v = s, t\n"
                                "    p = (u, v)\n"
                                "    q, r = p\n"
                                "    a[0] = x + y + q + r\n");
  const Block *b = &an->kernels.items[0]->body;
  assert_false(b->items[0]->value->facts & EF_READS_TARGET);   /* x, y = a[0], a[1] */
  assert_true(b->items[1]->body.items[0]->value->facts & EF_READS_TARGET);   /* x, y = y, x */
  assert_false(b->items[2]->value->facts & EF_AT_HAND);        /* a call: one temporary */
  assert_false(b->items[3]->value->facts & EF_READS_TARGET);
  assert_true(b->items[5]->value->facts & EF_AT_HAND);         /* a variable */
}

/* ast_verify after typeinfer: an operand whose cast a broken phase dropped is named. */
static void verify_finds_a_missing_cast(void **state) {
  Analysis *an = analyse(state, "from numba import cuda\n"
                                "@cuda.jit('void(float64[::1], int32)')\n"
                                "def k(a, n):\n"
                                "    a[0] = a[1] + n\n");
  Fixture *fx = *state;
  assert_true(ast_verify(&fx->c, &fx->m, AST_TYPED));
  Expr *sum = (Expr *)an->kernels.items[0]->body.items[0]->value;
  assert_int_equal(sum->kids[1]->kind, EX_CAST);   /* n, int32 -> float64 */
  sum->kids[1] = sum->kids[1]->kids[0];
  assert_false(ast_verify(&fx->c, &fx->m, AST_TYPED));
  assert_string_equal(fx->c.diags.items[fx->c.diags.len - 1].code, "E-internal");
  assert_non_null(strstr(fx->c.diags.items[fx->c.diags.len - 1].message, "without a cast"));
}

int main(void) {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(nonneg_and_positive_variables),
      T(range_facts_of_rebound_loops),
      T(devices_in_order_of_first_call),
      T(no_complex_without_complex_types),
      T(expression_facts),
      T(verify_finds_a_missing_cast),
      T(unpacking_facts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
