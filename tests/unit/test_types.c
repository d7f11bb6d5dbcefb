/* Unit tests for src/types/types.c and src/types/sig.c: the typing rules shared by the passes and the
 * signature parser.
 *
 * Covered: NumPy's promote_types for two scalars (type_promote), Numba's integer typing NBEP
 * for arithmetic on integers (type_int_result), unification of the types assigned to one
 * variable (type_unify), interning of array and tuple types (equal types are the same pointer),
 * sig_parse on good signatures (layouts C, F and A, argument-only forms, dotted type names) and
 * on bad ones with the byte offset of the error, and sig_format round trips; tuple and
 * namedtuple types in signatures, and their C layout as kernel parameters (type_value_size);
 * datetime64 and timedelta64: Numba's unit rules, their names, and their spellings in signatures.
 * Each test gets a fresh arena and type table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "types/types.h"

typedef struct Fixture {
  Arena arena;
  TypeTable tt;
} Fixture;

static int setup(void **state) {
  static Fixture fx;
  arena_init(&fx.arena, NULL);
  types_init(&fx.tt, &fx.arena);
  *state = &fx;
  return 0;
}

static int teardown(void **state) {
  Fixture *fx = *state;
  arena_free(&fx->arena);
  return 0;
}

static TypeTable *table(void **state) { return &((Fixture *)*state)->tt; }

/* ---- type_promote: NumPy's promote_types ---------------------------------------------------- */

static void promote_mixed_sign_ints_widen(void **state) {
  (void)state;
  assert_ptr_equal(type_promote(&type_int8, &type_uint8), &type_int16);
  assert_ptr_equal(type_promote(&type_uint8, &type_int8), &type_int16);
  assert_ptr_equal(type_promote(&type_uint32, &type_int32), &type_int64);
  assert_ptr_equal(type_promote(&type_int16, &type_uint16), &type_int32);
}

static void promote_uint64_with_signed_is_float64(void **state) {
  (void)state;
  assert_ptr_equal(type_promote(&type_uint64, &type_int64), &type_float64);
  assert_ptr_equal(type_promote(&type_int8, &type_uint64), &type_float64);
}

static void promote_same_sign_takes_wider(void **state) {
  (void)state;
  assert_ptr_equal(type_promote(&type_int8, &type_int32), &type_int32);
  assert_ptr_equal(type_promote(&type_uint16, &type_uint8), &type_uint16);
  assert_ptr_equal(type_promote(&type_int64, &type_int64), &type_int64);
  /* a wider signed type holds the unsigned one */
  assert_ptr_equal(type_promote(&type_int32, &type_uint16), &type_int32);
}

static void promote_int_with_float(void **state) {
  (void)state;
  assert_ptr_equal(type_promote(&type_int16, &type_float32), &type_float32);
  assert_ptr_equal(type_promote(&type_uint8, &type_float32), &type_float32);
  assert_ptr_equal(type_promote(&type_int32, &type_float32), &type_float64);
  assert_ptr_equal(type_promote(&type_float32, &type_int64), &type_float64);
  assert_ptr_equal(type_promote(&type_int8, &type_float64), &type_float64);
  assert_ptr_equal(type_promote(&type_float32, &type_float64), &type_float64);
}

static void promote_bool_yields_other(void **state) {
  (void)state;
  const Type *all[] = {&type_int8,   &type_int16,  &type_int32,  &type_int64,
                       &type_uint8,  &type_uint16, &type_uint32, &type_uint64,
                       &type_float32, &type_float64, &type_bool};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    assert_ptr_equal(type_promote(&type_bool, all[i]), all[i]);
    assert_ptr_equal(type_promote(all[i], &type_bool), all[i]);
  }
}

static void promote_with_complex(void **state) {
  (void)state;
  /* complex64 keeps float32 parts only where float32 holds the other operand */
  assert_ptr_equal(type_promote(&type_complex64, &type_int16), &type_complex64);
  assert_ptr_equal(type_promote(&type_uint8, &type_complex64), &type_complex64);
  assert_ptr_equal(type_promote(&type_complex64, &type_float32), &type_complex64);
  assert_ptr_equal(type_promote(&type_complex64, &type_bool), &type_complex64);
  assert_ptr_equal(type_promote(&type_complex64, &type_int32), &type_complex128);
  assert_ptr_equal(type_promote(&type_int64, &type_complex64), &type_complex128);
  assert_ptr_equal(type_promote(&type_complex64, &type_float64), &type_complex128);
  assert_ptr_equal(type_promote(&type_complex64, &type_complex128), &type_complex128);
  assert_ptr_equal(type_promote(&type_complex128, &type_float32), &type_complex128);
  assert_ptr_equal(type_arith(&type_complex64, &type_int16), &type_complex64);
  assert_null(type_arith(&type_complex64, &type_str));
  assert_ptr_equal(type_scalar_by_name("c8"), &type_complex64);
  assert_ptr_equal(type_scalar_by_name("complex128"), &type_complex128);
  assert_ptr_equal(type_of_scalar(P2C_COMPLEX64), &type_complex64);
}

/* ---- type_conversion: Numba's conversion kinds ---------------------------------------------- */

/* Every pair of bool and number types against Numba 0.56.4's own table
 * (numba.core.typeconv.rules.default_type_manager.check_compatible, printed by a script: X exact,
 * P promote, S safe, U unsafe, - none), rows and columns in P2cScalarType's order. A complex
 * number converts to no real type (Numba's float -> complex rules are one way). */
static void conversions_are_numbas(void **state) {
  (void)state;
  static const char *const numba[] = {
      "XSSSSSSSSSSSSU",   /* from bool */
      "UXPPPUUUUSSSSU",   /* from int8 */
      "UUXPPUUUUSSSSU",   /* from int16 */
      "UUUXPUUUUUSUSU",   /* from int32 */
      "UUUUXUUUUUSUSU",   /* from int64 */
      "UUSSSXPPPSSSSU",   /* from uint8 */
      "UUUSSUXPPUSUSU",   /* from uint16 */
      "UUUUSUUXPUSUSU",   /* from uint32 */
      "UUUUUUUUXUSUSU",   /* from uint64 */
      "UUUUUUUUUXPSSU",   /* from float32 */
      "UUUUUUUUUUXUSU",   /* from float64 */
      "-----------XP-",   /* from complex64 */
      "-----------UX-",   /* from complex128 */
      "UUUUUUUUUPPSSX",   /* from float16 */
  };
  static const char kinds[] = "XPSU-";   /* CONV_EXACT .. CONV_NONE */
  for (int a = 0; a <= P2C_FLOAT16; a++)
    for (int b = 0; b <= P2C_FLOAT16; b++) {
      char got = kinds[type_conversion((P2cScalarType)a, (P2cScalarType)b)];
      if (got != numba[a][b]) fail_msg("conversion %d -> %d: %c, Numba %c", a, b, got, numba[a][b]);
    }
}

/* ---- type_int_result: Numba's integer typing ------------------------------------------------ */

static void int_result_is_at_least_64_bits(void **state) {
  (void)state;
  assert_ptr_equal(type_int_result(&type_int32, &type_int32), &type_int64);
  assert_ptr_equal(type_int_result(&type_int8, &type_int16), &type_int64);
  assert_ptr_equal(type_int_result(&type_uint32, &type_uint32), &type_uint64);
  assert_ptr_equal(type_int_result(&type_uint8, &type_uint16), &type_uint64);
}

static void int_result_signed_if_either_signed(void **state) {
  (void)state;
  assert_ptr_equal(type_int_result(&type_uint64, &type_int64), &type_int64);
  assert_ptr_equal(type_int_result(&type_int8, &type_uint8), &type_int64);
  assert_ptr_equal(type_int_result(&type_uint32, &type_int8), &type_int64);
  assert_ptr_equal(type_int_result(&type_bool, &type_bool), &type_int64);
}

static void arith_uses_int_result_for_ints_and_promote_for_floats(void **state) {
  (void)state;
  assert_ptr_equal(type_arith(&type_int32, &type_int32), &type_int64);
  assert_ptr_equal(type_arith(&type_int32, &type_float32), &type_float64);
  assert_ptr_equal(type_arith(&type_float32, &type_float32), &type_float32);
  assert_null(type_arith(&type_str, &type_int64));
}

/* ---- type_unify ----------------------------------------------------------------------------- */

static void unify_numbers_promote(void **state) {
  TypeTable *tt = table(state);
  assert_ptr_equal(type_unify(tt, &type_int64, &type_float64), &type_float64);
  assert_ptr_equal(type_unify(tt, &type_float64, &type_int64), &type_float64);
  assert_ptr_equal(type_unify(tt, &type_int32, &type_int32), &type_int32);
  assert_ptr_equal(type_unify(tt, &type_bool, &type_int64), &type_int64);
}

static void unify_c_and_f_arrays_gives_layout_a(void **state) {
  TypeTable *tt = table(state);
  const Type *c = type_array(tt, &type_float32, 2, 'C', MEM_GLOBAL, NULL);
  const Type *f = type_array(tt, &type_float32, 2, 'F', MEM_GLOBAL, NULL);
  const Type *u = type_unify(tt, c, f);
  assert_non_null(u);
  assert_int_equal(u->kind, TY_ARRAY);
  assert_int_equal(u->layout, 'A');
  assert_int_equal(u->ndim, 2);
  assert_ptr_equal(u->dtype, &type_float32);
  assert_ptr_equal(u, type_array(tt, &type_float32, 2, 'A', MEM_GLOBAL, NULL));
  assert_string_equal(u->name, "array(float32, 2d, A)");
}

static void unify_rejects_mismatched_arrays_and_scalars(void **state) {
  TypeTable *tt = table(state);
  const Type *a = type_array(tt, &type_float32, 1, 'C', MEM_GLOBAL, NULL);
  const Type *other_dtype = type_array(tt, &type_float64, 1, 'C', MEM_GLOBAL, NULL);
  const Type *other_ndim = type_array(tt, &type_float32, 2, 'C', MEM_GLOBAL, NULL);
  assert_null(type_unify(tt, a, &type_float32));
  assert_null(type_unify(tt, &type_int64, a));
  assert_null(type_unify(tt, a, other_dtype));
  assert_null(type_unify(tt, a, other_ndim));
}

static void unify_tuples_elementwise(void **state) {
  TypeTable *tt = table(state);
  const Type *ia[] = {&type_int64, &type_int32};
  const Type *fa[] = {&type_float64, &type_int32};
  const Type *u = type_unify(tt, type_tuple(tt, ia, 2), type_tuple(tt, fa, 2));
  assert_non_null(u);
  assert_string_equal(u->name, "(float64, int32)");
  assert_null(type_unify(tt, type_tuple(tt, ia, 2), type_tuple(tt, ia, 1)));
}

/* ---- interning ------------------------------------------------------------------------------ */

static void same_array_type_is_same_pointer(void **state) {
  TypeTable *tt = table(state);
  const Type *a = type_array(tt, &type_int32, 3, 'F', MEM_GLOBAL, NULL);
  const Type *b = type_array(tt, &type_int32, 3, 'F', MEM_GLOBAL, NULL);
  assert_ptr_equal(a, b);
  assert_string_equal(a->name, "array(int32, 3d, F)");
  assert_ptr_not_equal(a, type_array(tt, &type_int32, 3, 'C', MEM_GLOBAL, NULL));
  assert_ptr_not_equal(a, type_array(tt, &type_int32, 3, 'F', MEM_SHARED, NULL));
}

static void fixed_shapes_are_part_of_identity(void **state) {
  TypeTable *tt = table(state);
  int64_t s1[] = {16, 16}, s1_copy[] = {16, 16}, s2[] = {16, 32};
  const Type *a = type_array(tt, &type_float32, 2, 'C', MEM_SHARED, s1);
  assert_ptr_equal(a, type_array(tt, &type_float32, 2, 'C', MEM_SHARED, s1_copy));
  assert_ptr_not_equal(a, type_array(tt, &type_float32, 2, 'C', MEM_SHARED, s2));
  assert_string_equal(a->name, "array(float32, 2d, C, shared)");
  /* The parameter form drops the space and the fixed shape. */
  const Type *p = type_array_as_param(tt, a);
  assert_int_equal(p->space, MEM_GLOBAL);
  assert_null(p->fixed_shape);
}

static void same_tuple_type_is_same_pointer(void **state) {
  TypeTable *tt = table(state);
  const Type *e1[] = {&type_int64, &type_float32};
  const Type *e2[] = {&type_int64, &type_float32};
  assert_ptr_equal(type_tuple(tt, e1, 2), type_tuple(tt, e2, 2));
  assert_ptr_equal(type_uniform_tuple(tt, &type_int64, 3), type_uniform_tuple(tt, &type_int64, 3));
  assert_string_equal(type_uniform_tuple(tt, &type_int64, 1)->name, "(int64,)");
  assert_ptr_equal(type_dtype(tt, &type_float32), type_dtype(tt, &type_float32));
}

static void scalar_names_and_aliases(void **state) {
  (void)state;
  assert_ptr_equal(type_scalar_by_name("float32"), &type_float32);
  assert_ptr_equal(type_scalar_by_name("f4"), &type_float32);
  assert_ptr_equal(type_scalar_by_name("intp"), &type_int64);
  assert_ptr_equal(type_scalar_by_name("bool_"), &type_bool);
  assert_null(type_scalar_by_name("flot32"));
  assert_ptr_equal(type_of_scalar(P2C_UINT16), &type_uint16);
  assert_null(type_of_scalar(P2C_SCALAR_TYPE_COUNT));
}

/* ---- type_can_cast: NumPy's can_cast ------------------------------------------------------- */

/* NumPy 1.24's np.can_cast(row, column, casting) for every pair of its number types, in the
 * order of P2cScalarType (bool, int8..int64, uint8..uint64, float32, float64, complex64,
 * complex128, float16), written out by
 *   for a in ts: print(''.join('1' if np.can_cast(a, b, c) else '.' for b in ts))
 * with c 'safe', then 'same_kind'. */
static const char *const numpy_safe[] = {
    "11111111111111", ".1111....11111", "..111....1111.", "...11.....1.1.", "....1.....1.1.",
    "..111111111111", "...11.1111111.", "....1..11.1.1.", "........1.1.1.", ".........1111.",
    "..........1.1.", "...........11.", "............1.", ".........11111"};
static const char *const numpy_same_kind[] = {
    "11111111111111", ".1111....11111", ".1111....11111", ".1111....11111", ".1111....11111",
    ".1111111111111", ".1111111111111", ".1111111111111", ".1111111111111", ".........11111",
    ".........11111", "...........11.", "...........11.", ".........11111"};

static void can_cast_is_numpys(void **state) {
  (void)state;
  for (int a = 0; a < 14; a++)
    for (int b = 0; b < 14; b++) {
      const Type *from = type_of_scalar((P2cScalarType)a), *to = type_of_scalar((P2cScalarType)b);
      if (type_can_cast(from, to, CAST_SAFE) != (numpy_safe[a][b] == '1'))
        fail_msg("safe cast of %s to %s is not NumPy's", from->name, to->name);
      if (type_can_cast(from, to, CAST_SAME_KIND) != (numpy_same_kind[a][b] == '1'))
        fail_msg("same_kind cast of %s to %s is not NumPy's", from->name, to->name);
      assert_int_equal(type_can_cast(from, to, CAST_NO), a == b);
      assert_true(type_can_cast(from, to, CAST_UNSAFE));
    }
  assert_false(type_can_cast(type_datetime(P2C_UNIT_D), &type_int64, CAST_UNSAFE));
  assert_true(type_can_cast(type_datetime(P2C_UNIT_D), type_datetime(P2C_UNIT_D), CAST_SAFE));
}

/* ---- sig_parse: good signatures ------------------------------------------------------------- */

static Signature parse_ok(void **state, const char *text) {
  Signature s;
  const char *err = NULL;
  size_t off = 0;
  if (!sig_parse(table(state), text, strlen(text), &s, &err, &off))
    fail_msg("'%s' rejected at %zu: %s", text, off, err);
  return s;
}

static void sig_void_with_array_and_scalar(void **state) {
  Signature s = parse_ok(state, "void(float32[:], int64)");
  assert_ptr_equal(s.ret, &type_void);
  assert_int_equal(s.nargs, 2);
  assert_int_equal(s.args[0]->kind, TY_ARRAY);
  assert_ptr_equal(s.args[0]->dtype, &type_float32);
  assert_int_equal(s.args[0]->ndim, 1);
  assert_int_equal(s.args[0]->layout, 'A');
  assert_ptr_equal(s.args[1], &type_int64);
}

static void sig_arguments_only_with_trailing_comma(void **state) {
  Signature s = parse_ok(state, "(int32[:, ::1],)");
  assert_null(s.ret);
  assert_int_equal(s.nargs, 1);
  assert_int_equal(s.args[0]->ndim, 2);
  assert_int_equal(s.args[0]->layout, 'C');
  assert_ptr_equal(s.args[0]->dtype, &type_int32);
}

static void sig_scalar_return(void **state) {
  Signature s = parse_ok(state, "float64(float64, float64)");
  assert_ptr_equal(s.ret, &type_float64);
  assert_int_equal(s.nargs, 2);
  assert_ptr_equal(s.args[0], &type_float64);
  assert_ptr_equal(s.args[1], &type_float64);
}

static void sig_dotted_name_and_fortran_layout(void **state) {
  Signature s = parse_ok(state, "void(numba.float32[::1, :])");
  assert_int_equal(s.nargs, 1);
  assert_ptr_equal(s.args[0]->dtype, &type_float32);
  assert_int_equal(s.args[0]->layout, 'F');
  s = parse_ok(state, "void(nb.types.int16[::1, :, :])");
  assert_ptr_equal(s.args[0]->dtype, &type_int16);
  assert_int_equal(s.args[0]->ndim, 3);
  assert_int_equal(s.args[0]->layout, 'F');
}

static void sig_one_dim_contiguous_is_c(void **state) {
  Signature s = parse_ok(state, "void(uint8[::1])");
  assert_int_equal(s.args[0]->layout, 'C');
  s = parse_ok(state, "  void ( float64 [ : , : : 1 ] , bool )  ");
  assert_int_equal(s.args[0]->layout, 'C');
  assert_ptr_equal(s.args[1], &type_bool);
}

static void sig_eight_dims_is_the_limit(void **state) {
  Signature s = parse_ok(state, "void(float32[:, :, :, :, :, :, :, ::1])");
  assert_int_equal(s.args[0]->ndim, 8);
  assert_int_equal(s.args[0]->layout, 'C');
}

static void sig_zero_d_array(void **state) {   /* pyk2cuda's spelling: Numba has none */
  Signature s = parse_ok(state, "void(float64[()], int32 [ ( ) ])");
  assert_int_equal(s.args[0]->kind, TY_ARRAY);
  assert_int_equal(s.args[0]->ndim, 0);
  assert_int_equal(s.args[0]->layout, 'C');
  assert_ptr_equal(s.args[1]->dtype, &type_int32);
  assert_int_equal(s.args[1]->ndim, 0);
}

static void sig_empty_argument_list(void **state) {
  Signature s = parse_ok(state, "void()");
  assert_int_equal(s.nargs, 0);
  assert_ptr_equal(s.ret, &type_void);
}

static void sig_types_are_interned(void **state) {
  Signature a = parse_ok(state, "void(float32[:, ::1])");
  Signature b = parse_ok(state, "(float32[:, ::1],)");
  assert_ptr_equal(a.args[0], b.args[0]);
}

/* Numba's tuple spellings, printed (UniTuple(T x N), Tuple(A, B)) and built (UniTuple(T, N),
 * Tuple((A, B))), name the same interned types; NamedTuple(Cls, f=T) keeps its names. */
static void sig_tuples(void **state) {
  Signature a = parse_ok(state, "void(UniTuple(int64 x 3), UniTuple(int64, 3), Tuple(int64, int64, int64))");
  assert_int_equal(a.args[0]->kind, TY_TUPLE);
  assert_int_equal(a.args[0]->nelems, 3);
  assert_ptr_equal(a.args[0]->elems[2], &type_int64);
  assert_ptr_equal(a.args[0], a.args[1]);
  assert_ptr_equal(a.args[0], a.args[2]);
  Signature b = parse_ok(state, "void(Tuple((float64[::1], int32)), Tuple(), Tuple(()))");
  assert_int_equal(b.args[0]->nelems, 2);
  assert_int_equal(b.args[0]->elems[0]->kind, TY_ARRAY);
  assert_int_equal(b.args[0]->elems[0]->layout, 'C');
  assert_int_equal(b.args[1]->nelems, 0);
  assert_ptr_equal(b.args[1], b.args[2]);
  Signature c = parse_ok(state, "void(NamedTuple(Point, x=int64, y=Tuple(int64, float32)), UniTuple(UniTuple(int8 x 2) x 2))");
  assert_string_equal(c.args[0]->tuple_class, "Point");
  assert_string_equal(c.args[0]->field_names[1], "y");
  assert_int_equal(c.args[0]->elems[1]->nelems, 2);
  assert_int_equal(type_tuple_field(c.args[0], "y"), 1);
  assert_int_equal(type_tuple_field(c.args[0], "z"), -1);
  assert_string_equal(c.args[0]->name, "Point(int64, (int64, float32))");
  assert_ptr_equal(c.args[1]->elems[0], c.args[1]->elems[1]);
}

/* Enum member types as Numba prints them: one type per class and value type; an IntEnum's is an
 * integer type (TY_INT) that remembers its class. */
static void sig_enums(void **state) {
  Signature a = parse_ok(state, "void(Enum<int64>(Color), Enum<UniTuple(float64 x 2)>(Planet), IntEnum<int64>(Shape), "
                                "Enum<int64>(Color), IntEnum<int64>(Other))");
  assert_int_equal(a.args[0]->kind, TY_ENUM);
  assert_ptr_equal(a.args[0]->dtype, &type_int64);
  assert_string_equal(a.args[0]->name, "Enum<int64>(Color)");
  assert_ptr_equal(a.args[0], a.args[3]);
  assert_int_equal(a.args[1]->dtype->kind, TY_TUPLE);
  assert_int_equal(a.args[2]->kind, TY_INT);
  assert_string_equal(a.args[2]->enum_class, "Shape");
  assert_ptr_equal(type_plain(a.args[2]), &type_int64);
  assert_true(a.args[2] != a.args[4]);
  assert_int_equal(type_identity(a.args[2], a.args[4]), ID_NEVER);
  assert_int_equal(type_identity(a.args[1], a.args[1]), ID_BY_EQUALITY);
}

/* A namedtuple is a type of its own: not the plain tuple of its elements, nor another class's. */
static void named_tuples_are_distinct(void **state) {
  const Type *elems[2] = {&type_int64, &type_float64};
  const char *xy[2] = {"x", "y"}, *xz[2] = {"x", "z"};
  const Type *plain = type_tuple(table(state), elems, 2);
  const Type *p = type_named_tuple(table(state), "P", xy, elems, 2);
  assert_ptr_not_equal(plain, p);
  assert_ptr_equal(p, type_named_tuple(table(state), "P", xy, elems, 2));
  assert_ptr_not_equal(p, type_named_tuple(table(state), "P", xz, elems, 2));
  assert_ptr_not_equal(p, type_named_tuple(table(state), "Q", xy, elems, 2));
  assert_null(type_unify(table(state), p, plain));
  const Type *ints[2] = {&type_int64, &type_int64};
  const Type *pi = type_named_tuple(table(state), "P", xy, ints, 2);
  assert_ptr_equal(type_unify(table(state), pi, p), p);   /* element by element, names kept */
}

/* Tuples as generated C holds them (kernel parameters): C's struct layout. */
static void tuple_value_layout(void **state) {
  Signature s = parse_ok(state, "void(Tuple(int8, float64, int16), Tuple(), UniTuple(Tuple() x 3), "
                         "Tuple(bool, float32[:, :]), Tuple(complex64, int8), UniTuple(float16 x 3))");
  const Type *t = s.args[0];
  assert_int_equal(type_tuple_offset(t, 1), 8);
  assert_int_equal(type_tuple_offset(t, 2), 16);
  assert_int_equal(type_value_size(t), 24);
  assert_int_equal(type_value_align(t), 8);
  assert_int_equal(type_value_size(s.args[1]), 1);   /* an empty C++ struct */
  assert_int_equal(type_value_align(s.args[1]), 1);
  assert_int_equal(type_value_size(s.args[2]), 3);
  assert_int_equal(type_tuple_offset(s.args[3], 1), 8);
  assert_int_equal(type_value_size(s.args[3]), 8 + 8 + 32);
  assert_int_equal(type_tuple_offset(s.args[4], 1), 8);
  assert_int_equal(type_value_size(s.args[4]), 12);
  assert_int_equal(type_value_align(s.args[4]), 4);
  assert_int_equal(type_value_size(s.args[5]), 6);
}

/* ---- sig_parse: bad signatures -------------------------------------------------------------- */

/* Parses `text`, expecting a failure at byte `offset` with a message containing `what`. */
static void expect_sig_error(void **state, const char *text, size_t offset, const char *what) {
  Signature s;
  const char *err = NULL;
  size_t off = (size_t)-1;
  if (sig_parse(table(state), text, strlen(text), &s, &err, &off)) fail_msg("'%s' was accepted", text);
  assert_non_null(err);
  if (!strstr(err, what)) fail_msg("'%s': message '%s' lacks '%s'", text, err, what);
  if (off != offset) fail_msg("'%s': error offset %zu, expected %zu (%s)", text, off, offset, err);
}

static void sig_unknown_type_name(void **state) {
  /* The offset is just past the unknown name (tests/diag/bad_signature.err shows the column). */
  expect_sig_error(state, "void(flot32[:])", 11, "unknown type name");
}

static void sig_contiguous_dim_in_the_middle(void **state) {
  expect_sig_error(state, "void(float32[:, ::1, :])", 23, "first or the last");
}

static void sig_contiguous_dim_twice(void **state) {
  expect_sig_error(state, "void(float32[::1, ::1])", 21, "only once");
}

static void sig_nine_dims(void **state) {
  expect_sig_error(state, "void(float32[:, :, :, :, :, :, :, :, :])", 38, "at most 8");
}

static void sig_unbalanced_parens(void **state) {
  expect_sig_error(state, "void(float32[:]", 15, "expected ')'");
  expect_sig_error(state, "void(float32[:]))", 16, "unexpected text");
  expect_sig_error(state, "void((float32))", 5, "expected a type name");
  expect_sig_error(state, "void float32[:])", 5, "expected '('");
}

static void sig_trailing_garbage(void **state) {
  expect_sig_error(state, "void(int64) x", 12, "unexpected text");
  expect_sig_error(state, "void(int64),", 11, "unexpected text");
}

static void sig_bad_dims(void **state) {
  expect_sig_error(state, "void(float32[::2])", 15, "'::1'");
  expect_sig_error(state, "void(float32[])", 13, "expected ':'");
  expect_sig_error(state, "void(float32[:)", 14, "expected ']'");
  expect_sig_error(state, "void(float32[(:])", 14, "'()]'");
  expect_sig_error(state, "void(float32[(), :])", 15, "'()]'");
}

static void sig_bad_tuples(void **state) {
  expect_sig_error(state, "void(UniTuple(int64 x 0))", 24, "1 to 256");
  expect_sig_error(state, "void(UniTuple(int64 y 3))", 20, "expected 'x' or ','");
  expect_sig_error(state, "void(Tuple(int64,, int8))", 17, "expected a type name");
  expect_sig_error(state, "void(Tuple((int64))", 19, "expected ')'");
  expect_sig_error(state, "void(NamedTuple(P, x=int64, x=int8))", 29, "given twice");
  expect_sig_error(state, "void(NamedTuple(a.P, x=int64))", 19, "without dots");
  expect_sig_error(state, "void(NamedTuple(P, x:int64))", 20, "'field=type'");
  expect_sig_error(state, "void(Tuple(Record(a[type=int32;offset=0];4;False)))", 49, "record cannot be");
  char deep[400] = "void(";
  for (int i = 0; i < 17; i++) strcat(deep, "Tuple(");
  strcat(deep, "int8");
  for (int i = 0; i < 17; i++) strcat(deep, ")");
  strcat(deep, ")");
  expect_sig_error(state, deep, 5 + 16 * 6 + 5, "nested more than 16 deep");
}

static void sig_bad_enums(void **state) {
  expect_sig_error(state, "void(IntEnum<float64>(Shape))", 28, "values are integers");
  expect_sig_error(state, "void(Enum<float64[:]>(Color))", 28, "numbers or tuples of numbers");
  expect_sig_error(state, "void(Enum<int64>Color)", 16, "expected 'Enum<type>(Class)'");
}

static void sig_void_only_as_return(void **state) {
  expect_sig_error(state, "void(void)", 9, "only a return type");
}

static void sig_name_starting_with_digit(void **state) {
  expect_sig_error(state, "void(3d)", 7, "expected a type name");
}

static void sig_empty_text(void **state) {
  expect_sig_error(state, "", 0, "expected a type name");
}

static void sig_uses_the_given_length(void **state) {
  /* Text after `len` is not read: the decorator's string need not be NUL-terminated. */
  Signature s;
  const char *err = NULL;
  size_t off = 0;
  const char *text = "void(int64)GARBAGE";
  assert_true(sig_parse(table(state), text, 11, &s, &err, &off));
  assert_int_equal(s.nargs, 1);
}

/* ---- sig_format ----------------------------------------------------------------------------- */

static void expect_round_trip(void **state, const char *text, const char *expected) {
  Fixture *fx = *state;
  Signature s = parse_ok(state, text);
  const char *formatted = sig_format(&fx->arena, &s);
  assert_string_equal(formatted, expected);
  Signature again = parse_ok(state, formatted);
  assert_int_equal(again.nargs, s.nargs);
  for (int i = 0; i < s.nargs; i++) assert_ptr_equal(again.args[i], s.args[i]);
  assert_string_equal(sig_format(&fx->arena, &again), expected);
}

static void sig_format_round_trips(void **state) {
  expect_round_trip(state, "void(float32[:, ::1], int64)", "void(float32[:, ::1], int64)");
  expect_round_trip(state, "void(float64[::1, :, :])", "void(float64[::1, :, :])");
  expect_round_trip(state, "void(int8[:], bool, uint64[::1])", "void(int8[:], bool, uint64[::1])");
  expect_round_trip(state, "float32(float32, float32)", "float32(float32, float32)");
  expect_round_trip(state, "void()", "void()");
  expect_round_trip(state, "void(float64[()], int64[ () ])", "void(float64[()], int64[()])");
  expect_round_trip(state, "void(UniTuple(int64, 3), Tuple((float64[::1], Tuple())))",
                    "void(UniTuple(int64 x 3), Tuple(float64[::1], Tuple()))");
  expect_round_trip(state, "void(NamedTuple(P, x=int64, r=float64), NamedTuple(E))",
                    "void(NamedTuple(P, x=int64, r=float64), NamedTuple(E))");
}

static void sig_format_normalizes_spelling(void **state) {
  expect_round_trip(state, "(numba.f4[:,::1],)", "void(float32[:, ::1])");
  expect_round_trip(state, "none(intp, double)", "void(int64, float64)");
}

/* ---- character sequences ------------------------------------------------------------------- */

/* Numba's spellings ("[char x 12]", as it prints them) and numba.types' (CharSeq(12)) name one
 * interned type, whose itemsize, alignment and launch code are NumPy's S12 / U12. */
static void charseq_types(void **state) {
  Signature s = parse_ok(state, "void([char x 12][::1], CharSeq(12)[:], types.UnicodeCharSeq(3)[:, ::1], [unichr x 3][:])");
  const Type *c = s.args[0]->dtype, *u = s.args[2]->dtype;
  assert_ptr_equal(s.args[1]->dtype, c);
  assert_ptr_equal(s.args[3]->dtype, u);
  assert_ptr_equal(c, type_charseq(table(state), false, 12));
  assert_int_equal(c->kind, TY_CHARSEQ);
  assert_string_equal(c->name, "[char x 12]");
  assert_string_equal(u->name, "[unichr x 3]");
  assert_string_equal(u->cname, "p2c_unichars<3>");
  assert_int_equal(type_byte_size(c), 12);
  assert_int_equal(type_byte_size(u), 12);
  assert_int_equal(type_alignment(c), 1);
  assert_int_equal(type_alignment(u), 4);
  assert_int_equal(c->scalar, P2C_CHARSEQ(12));
  assert_int_equal(u->scalar, P2C_UNICHARSEQ(3));
  assert_ptr_not_equal(type_charseq(table(state), true, 12), c);
  assert_null(type_unify(table(state), c, type_charseq(table(state), false, 11)));
}

static void charseq_record_fields(void **state) {
  const char *rec = "Record(x[type=int32;offset=0],y[type=[unichr x 12];offset=4],z[type=[char x 3];offset=52];56;False)";
  char text[256];
  snprintf(text, sizeof text, "void(%s[::1])", rec);
  Signature s = parse_ok(state, text);
  const Type *r = s.args[0]->dtype;
  assert_int_equal(r->kind, TY_RECORD);
  assert_ptr_equal(type_record_field(r, "y")->type, type_charseq(table(state), true, 12));
  assert_ptr_equal(type_record_field(r, "z")->type, type_charseq(table(state), false, 3));
  assert_string_equal(r->name, rec);   /* spelled back as Numba spells it */
  /* A UnicodeCharSeq has NumPy's alignment 4, which Numba's CUDA target requires too. */
  expect_sig_error(state, "void(Record(a[type=int8;offset=0],u[type=[unichr x 3];offset=1];13;False)[:])", 73,
                   "is not aligned");
}

static void charseq_bad_spellings(void **state) {
  expect_sig_error(state, "void([char x 0][:])", 15, "1 to 1048576");
  expect_sig_error(state, "void([char x 1048577][:])", 21, "1 to 1048576");
  expect_sig_error(state, "void([wchar x 2][:])", 12, "'[char x N]' or '[unichr x N]'");
  expect_sig_error(state, "void([char 2][:])", 11, "expected 'x'");
  expect_sig_error(state, "void([char x 2)", 14, "malformed character sequence");
  expect_sig_error(state, "void(CharSeq(2, 3)[:])", 14, "malformed character sequence");
  expect_sig_error(state, "void(Tuple([char x 2]))", 21, "cannot be a tuple element");
}

static void charseq_round_trip(void **state) {
  expect_round_trip(state, "void(CharSeq(5)[::1], UnicodeCharSeq(7)[:, :])", "void([char x 5][::1], [unichr x 7][:, :])");
  expect_round_trip(state, "[unichr x 2]([unichr x 2][:], [unichr x 2])", "[unichr x 2]([unichr x 2][:], [unichr x 2])");
}

/* ---- datetime64 and timedelta64: Numba's unit rules, names, signatures ---------------------- */

static void time_unit_cast_rules(void **state) {
  (void)state;
  /* the same unit, from the generic unit, to a finer unit of the same family */
  assert_true(time_unit_can_cast(P2C_UNIT_D, P2C_UNIT_D));
  assert_true(time_unit_can_cast(P2C_UNIT_GENERIC, P2C_UNIT_Y));
  assert_true(time_unit_can_cast(P2C_UNIT_Y, P2C_UNIT_M));
  assert_true(time_unit_can_cast(P2C_UNIT_W, P2C_UNIT_as));
  assert_false(time_unit_can_cast(P2C_UNIT_s, P2C_UNIT_h));        /* coarser */
  assert_false(time_unit_can_cast(P2C_UNIT_M, P2C_UNIT_D));        /* months have no length */
  assert_false(time_unit_can_cast(P2C_UNIT_Y, P2C_UNIT_W));
  assert_false(time_unit_can_cast(P2C_UNIT_D, P2C_UNIT_GENERIC));  /* nothing to generic */
}

static void time_unit_factors(void **state) {
  (void)state;
  assert_int_equal(time_unit_factor(P2C_UNIT_Y, P2C_UNIT_M), 12);
  assert_int_equal(time_unit_factor(P2C_UNIT_W, P2C_UNIT_D), 7);
  assert_int_equal(time_unit_factor(P2C_UNIT_W, P2C_UNIT_s), 7 * 86400);
  assert_int_equal(time_unit_factor(P2C_UNIT_D, P2C_UNIT_ns), 86400000000000LL);
  assert_int_equal(time_unit_factor(P2C_UNIT_ps, P2C_UNIT_as), 1000000);
  assert_int_equal(time_unit_factor(P2C_UNIT_GENERIC, P2C_UNIT_ms), 1);
  assert_int_equal(time_unit_factor(P2C_UNIT_h, P2C_UNIT_h), 1);
  assert_int_equal(time_unit_factor(P2C_UNIT_M, P2C_UNIT_D), 0);
  assert_int_equal(time_unit_factor(P2C_UNIT_Y, P2C_UNIT_D), 0);
  assert_int_equal(time_unit_factor(P2C_UNIT_D, P2C_UNIT_W), 0);
  assert_int_equal(time_unit_factor(P2C_UNIT_s, P2C_UNIT_GENERIC), 0);
}

static void time_unit_best_and_combine(void **state) {
  (void)state;
  assert_int_equal(time_unit_best(P2C_UNIT_M, P2C_UNIT_D), P2C_UNIT_D);
  assert_int_equal(time_unit_best(P2C_UNIT_ns, P2C_UNIT_Y), P2C_UNIT_ns);
  assert_int_equal(time_unit_best(P2C_UNIT_GENERIC, P2C_UNIT_Y), P2C_UNIT_Y);
  assert_int_equal(time_unit_best(P2C_UNIT_h, P2C_UNIT_GENERIC), P2C_UNIT_h);
  assert_int_equal(time_unit_combine(P2C_UNIT_D, P2C_UNIT_h), P2C_UNIT_h);
  assert_int_equal(time_unit_combine(P2C_UNIT_h, P2C_UNIT_D), P2C_UNIT_h);
  assert_int_equal(time_unit_combine(P2C_UNIT_Y, P2C_UNIT_M), P2C_UNIT_M);
  assert_int_equal(time_unit_combine(P2C_UNIT_Y, P2C_UNIT_D), P2C_UNIT_D);   /* the calendar converts */
  assert_int_equal(time_unit_combine(P2C_UNIT_D, P2C_UNIT_M), -1);   /* months of a day's datetime */
  assert_int_equal(time_unit_combine(P2C_UNIT_W, P2C_UNIT_Y), -1);
  assert_int_equal(time_unit_combine(P2C_UNIT_GENERIC, P2C_UNIT_M), P2C_UNIT_M);
  assert_int_equal(time_unit_combine(P2C_UNIT_D, P2C_UNIT_GENERIC), P2C_UNIT_D);
}

static void time_type_names(void **state) {
  (void)state;
  assert_string_equal(type_datetime(P2C_UNIT_D)->name, "datetime64[D]");
  assert_string_equal(type_timedelta(P2C_UNIT_ns)->name, "timedelta64[ns]");
  assert_string_equal(type_datetime(P2C_UNIT_GENERIC)->name, "datetime64[]");
  assert_ptr_equal(type_scalar_by_name("datetime64[ms]"), type_datetime(P2C_UNIT_ms));
  assert_ptr_equal(type_scalar_by_name("m8[W]"), type_timedelta(P2C_UNIT_W));
  assert_ptr_equal(type_scalar_by_name("M8"), type_datetime(P2C_UNIT_GENERIC));
  assert_ptr_equal(type_scalar_by_name("timedelta64[]"), type_timedelta(P2C_UNIT_GENERIC));
  assert_null(type_scalar_by_name("datetime64[B]"));
  assert_null(type_scalar_by_name("datetime64[10D]"));
  for (int t = P2C_DATETIME64; t < P2C_SCALAR_TYPE_COUNT; t++) {   /* every type by its scalar */
    const Type *ty = type_of_scalar((P2cScalarType)t);
    assert_non_null(ty);
    assert_int_equal(ty->scalar, t);
    assert_int_equal(type_value_size(ty), 8);
    assert_ptr_equal(type_scalar_by_name(ty->name), ty);
  }
  assert_null(type_unify(NULL, type_timedelta(P2C_UNIT_D), type_timedelta(P2C_UNIT_h)));   /* as Numba */
}

static void sig_time_types(void **state) {
  Signature s = parse_ok(state, "void(datetime64[D][::1], NPTimedelta('ns'), m8[:], NPDatetime(\"\"), timedelta64[][:, :])");
  assert_int_equal(s.nargs, 5);
  assert_ptr_equal(s.args[0]->dtype, type_datetime(P2C_UNIT_D));
  assert_int_equal(s.args[0]->layout, 'C');
  assert_ptr_equal(s.args[1], type_timedelta(P2C_UNIT_ns));
  assert_ptr_equal(s.args[2]->dtype, type_timedelta(P2C_UNIT_GENERIC));   /* m8[:]: an array */
  assert_ptr_equal(s.args[3], type_datetime(P2C_UNIT_GENERIC));
  assert_int_equal(s.args[4]->ndim, 2);
  const char *text = sig_format(&((Fixture *)*state)->arena, &s);
  assert_string_equal(text, "void(datetime64[D][::1], timedelta64[ns], timedelta64[][:], datetime64[], timedelta64[][:, :])");
  Signature back = parse_ok(state, text);
  for (int i = 0; i < 5; i++) assert_ptr_equal(back.args[i], s.args[i]);
  expect_sig_error(state, "void(datetime64[B])", 17, "unknown datetime unit");
  expect_sig_error(state, "void(NPDatetime(D))", 16, "expected a quoted unit");
  expect_sig_error(state, "void(datetime64[D)", 17, "expected ']'");
}

int main(void) {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(promote_mixed_sign_ints_widen),
      T(can_cast_is_numpys),
      T(sig_tuples),
      T(named_tuples_are_distinct),
      T(tuple_value_layout),
      T(sig_bad_tuples),
      T(sig_enums),
      T(sig_bad_enums),
      T(promote_uint64_with_signed_is_float64),
      T(promote_same_sign_takes_wider),
      T(promote_int_with_float),
      T(promote_bool_yields_other),
      T(promote_with_complex),
      T(conversions_are_numbas),
      T(int_result_is_at_least_64_bits),
      T(int_result_signed_if_either_signed),
      T(arith_uses_int_result_for_ints_and_promote_for_floats),
      T(unify_numbers_promote),
      T(unify_c_and_f_arrays_gives_layout_a),
      T(unify_rejects_mismatched_arrays_and_scalars),
      T(unify_tuples_elementwise),
      T(same_array_type_is_same_pointer),
      T(fixed_shapes_are_part_of_identity),
      T(same_tuple_type_is_same_pointer),
      T(scalar_names_and_aliases),
      T(sig_void_with_array_and_scalar),
      T(sig_arguments_only_with_trailing_comma),
      T(sig_scalar_return),
      T(sig_dotted_name_and_fortran_layout),
      T(sig_one_dim_contiguous_is_c),
      T(sig_eight_dims_is_the_limit),
      T(sig_zero_d_array),
      T(sig_empty_argument_list),
      T(sig_types_are_interned),
      T(sig_unknown_type_name),
      T(sig_contiguous_dim_in_the_middle),
      T(sig_contiguous_dim_twice),
      T(sig_nine_dims),
      T(sig_unbalanced_parens),
      T(sig_trailing_garbage),
      T(sig_bad_dims),
      T(sig_void_only_as_return),
      T(sig_name_starting_with_digit),
      T(sig_empty_text),
      T(sig_uses_the_given_length),
      T(sig_format_round_trips),
      T(sig_format_normalizes_spelling),
      T(charseq_types),
      T(charseq_record_fields),
      T(charseq_bad_spellings),
      T(charseq_round_trip),
      T(time_unit_cast_rules),
      T(time_unit_factors),
      T(time_unit_best_and_combine),
      T(time_type_names),
      T(sig_time_types),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
