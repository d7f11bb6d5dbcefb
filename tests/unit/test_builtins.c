/* Unit tests for the builtin table (src/builtins): every row is complete for its kind, so that
 * a builtin added with a hook or a fact missing fails here rather than as wrong C later.
 *
 * Each callable row has a typing hook, and an emitting hook unless it never reaches codegen
 * (local arrays and a.copy() are declared by their assignment, print() is a statement,
 * range/enumerate/zip only drive for loops); each value has a type and an emitting hook; arities are ordered;
 * facts that imply others hold them (a barrier or warp rendezvous has effects; a positive
 * result is non-negative); paths are unique and look up to their own row; math rows have a
 * float32 name; atomics name both CUDA's function and the prelude's; NumPy's ufuncs name a
 * complex loop that is a cmath function, and its comparisons and logical functions give bool. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "codegen/cg.h"
#include "typeinfer/infer.h"

static bool never_emitted(const Builtin *b) {
  return b->id == BI_LOCAL_ARRAY || b->id == BI_PRINT || b->id == BI_TIME_VALUE ||   /* its infer refuses */
         b->id == BI_LITERAL_UNROLL ||   /* its for loop is lowered to a loop over its tuple */
         (b->facts & (BF_ITERABLE | BF_NEW_ARRAY));
}

static void callable_rows_have_hooks(void **state) {
  (void)state;
  size_t n;
  const Builtin *t = builtin_table(&n);
  for (size_t i = 0; i < n; i++) {
    const Builtin *b = &t[i];
    if (b->kind != BK_FUNC && b->kind != BK_TYPE) continue;
    if (!b->infer || (!b->emit && !never_emitted(b))) fail_msg("%s: a hook is missing", b->path);
    if (b->min_args < 0 || b->min_args > b->max_args) fail_msg("%s: arity %d..%d", b->path, b->min_args, b->max_args);
  }
}

static void values_have_types_and_spellings(void **state) {
  (void)state;
  size_t n;
  const Builtin *t = builtin_table(&n);
  for (size_t i = 0; i < n; i++) {
    const Builtin *b = &t[i];
    if (b->kind == BK_VALUE && (!b->result || !b->emit || b->infer)) fail_msg("%s: value row incomplete", b->path);
    if (b->kind == BK_TYPE && !b->result) fail_msg("%s: no scalar type", b->path);
    if ((b->kind == BK_MODULE || b->kind == BK_DECORATOR) && (b->infer || b->emit))
      fail_msg("%s: hooks on a name that is not called", b->path);
    /* an operator function is lowered into its operator: no hooks, two operands, a binary op */
    if (b->kind == BK_OPERATOR &&
        (b->infer || b->emit || b->min_args != 2 || b->max_args != 2 || b->op == OP_NEG ||
         b->op == OP_POS || b->op == OP_INVERT || b->op == OP_AND || b->op == OP_OR))
      fail_msg("%s: operator row malformed", b->path);
  }
}

static void facts_are_consistent(void **state) {
  (void)state;
  size_t n;
  const Builtin *t = builtin_table(&n);
  for (size_t i = 0; i < n; i++) {
    const Builtin *b = &t[i];
    if ((b->facts & (BF_BARRIER | BF_COLLECTIVE | BF_ARRAY_ALLOC)) && !(b->facts & BF_EFFECTS))
      fail_msg("%s: a rendezvous or allocation without BF_EFFECTS", b->path);
    if ((b->facts & BF_POSITIVE) && !(b->facts & BF_NONNEG)) fail_msg("%s: positive but not non-negative", b->path);
    if (b->id == BI_ATOMIC && (!b->c64 || !b->helper_fn)) fail_msg("%s: atomic names missing", b->path);
    if (b->infer == infer_math_call && (!b->c64 || !b->c32)) fail_msg("%s: math names missing", b->path);
    if (b->emit == emit_spelled_value && !b->c64) fail_msg("%s: no spelling", b->path);
    /* a NumPy ufunc's complex loop is a cmath row of one argument, as the ufunc has */
    if (b->complex_row) {
      const Builtin *c = builtin_lookup(b->complex_row);
      if (!c || c->id != BI_CMATH || c->min_args != 1 || b->min_args != 1 || !(b->facts & BF_UFUNC))
        fail_msg("%s: complex_row %s is not a cmath function of one argument", b->path, b->complex_row);
    }
    if (b->id == BI_NP_ELEMENTWISE &&
        (!b->c64 || !(b->facts & BF_UFUNC) || b->max_args != b->min_args + 1 ||
         (b->result && b->result != &type_bool) ||
         ((b->elementwise == NPE_COMPARE || b->elementwise == NPE_LOGICAL) != (b->result != NULL))))
      fail_msg("%s: elementwise ufunc row malformed", b->path);
  }
}

static void paths_are_unique_and_found(void **state) {
  (void)state;
  size_t n;
  const Builtin *t = builtin_table(&n);
  for (size_t i = 0; i < n; i++) {
    for (size_t j = i + 1; j < n; j++)
      if (strcmp(t[i].path, t[j].path) == 0) fail_msg("%s: two rows", t[i].path);
    if (t[i].kind == BK_MODULE) assert_true(builtin_is_namespace(t[i].path));
    else assert_ptr_equal(builtin_lookup(t[i].path), &t[i]);
  }
}

/* libdevice's rows (builtins/libdevice.def): 317, Numba 0.56's count; each prototype's letters
 * are types, at most three out-parameters (the emitter's room), a void result only with out-
 * parameters, the arity the count of inputs, and the C name libdevice's own. */
static void libdevice_rows_are_well_formed(void **state) {
  (void)state;
  size_t n, count = 0;
  const Builtin *t = builtin_table(&n);
  for (size_t i = 0; i < n; i++) {
    if (t[i].id != BI_LIBDEVICE) continue;
    count++;
    const char *p = t[i].proto;
    assert_non_null(builtin_libdevice_type(p[0]));
    assert_int_equal(p[1], ':');
    int inputs = 0, outs = 0;
    for (const char *q = p + 2; *q; q++) {
      assert_non_null(builtin_libdevice_type(*q));
      assert_true(*q != 'v');
      if (*q >= 'A' && *q <= 'Z') outs++;
      else inputs++;
    }
    assert_int_equal(t[i].min_args, inputs);
    assert_int_equal(t[i].max_args, inputs);
    assert_true(outs <= 3);
    assert_true(p[0] != 'v' || outs >= 2);
    assert_string_equal(t[i].c64 + 5, t[i].path + strlen("numba.cuda.libdevice."));
    assert_memory_equal(t[i].c64, "__nv_", 5);
  }
  assert_int_equal(count, 317);
}

static void ldexp_is_one_row(void **state) {
  (void)state;
  const Builtin *b = builtin_lookup("math.ldexp");
  assert_non_null(b);
  assert_int_equal(b->min_args, 2);
  assert_int_equal(b->max_args, 2);
  assert_string_equal(b->c32, "ldexpf");
  assert_false(b->facts & BF_EFFECTS);
  assert_string_equal(builtin_display_name(b), "math.ldexp");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(callable_rows_have_hooks),
      cmocka_unit_test(values_have_types_and_spellings),
      cmocka_unit_test(facts_are_consistent),
      cmocka_unit_test(paths_are_unique_and_found),
      cmocka_unit_test(ldexp_is_one_row),
      cmocka_unit_test(libdevice_rows_are_well_formed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
