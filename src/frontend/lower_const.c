/* Folding of module-level constants (NAME = value): numbers, bools and tuples of them, built
 * from literals, earlier constants, unary minus, + - * /, and the conversions int(), float(),
 * bool() and NumPy's scalar types (np.float32(2.5), np.int64(N)). A NumPy scalar keeps its type,
 * as Numba types such a global; arithmetic on one follows NumPy 1.x's rule for scalars (a Python
 * int counts as int64, a float as float64, `/` of integers is float64). A value that cannot be
 * folded exactly (an overflow, a division by zero, a value that does not fit its NumPy type) is
 * not a constant, which is an error only where a kernel uses it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lower.h"

/* A folded value: a literal (EX_INT, EX_FLOAT, EX_BOOL, or a tuple of those) and, for a NumPy
 * scalar, its type (NULL: a Python number, typed as Python's). */
typedef struct Folded {
  Expr *e;
  const Type *np;
} Folded;

static const Folded no_fold = {NULL, NULL};

static Folded fold(Lowerer *L, TSNode n);

static bool is_literal(const Expr *e) {
  if (e->kind == EX_INT || e->kind == EX_FLOAT || e->kind == EX_BOOL) return true;
  if (e->kind != EX_TUPLE) return false;
  for (int i = 0; i < e->nkids; i++)
    if (!is_literal(e->kids[i])) return false;
  return true;
}

static bool is_number(const Expr *e) {
  return (e->kind == EX_INT && !e->is_unsigned_literal) || e->kind == EX_FLOAT || e->kind == EX_BOOL;
}

static double as_double(const Expr *e) { return e->kind == EX_FLOAT ? e->fval : (double)e->ival; }

static Expr *int_lit(Lowerer *L, int64_t v, Loc loc) {
  Expr *r = ast_new_expr(L->a, EX_INT, loc);
  r->ival = v;
  r->uval = (uint64_t)v;
  return r;
}

static Expr *float_lit(Lowerer *L, double v, Loc loc) {
  Expr *r = ast_new_expr(L->a, EX_FLOAT, loc);
  r->fval = v;
  return r;
}

/* The type a folded number has in NumPy's promotion: its own, or Python's int64/float64/bool. */
static const Type *type_of(Folded f) {
  if (f.np) return f.np;
  return f.e->kind == EX_FLOAT ? &type_float64 : f.e->kind == EX_BOOL ? &type_bool : &type_int64;
}

static bool int_fits(int64_t v, const Type *t) {
  if (t->bits == 64) return t->is_signed || v >= 0;   /* uint64 beyond int64 is not folded */
  int64_t lim = (int64_t)1 << (t->bits - (t->is_signed ? 1 : 0));
  return t->is_signed ? v >= -lim && v < lim : v >= 0 && v < lim;
}

/* v converted to the number type t (a NumPy scalar type or Python's int64/float64/bool), as
 * NumPy's and Python's constructors convert it; NULL where that is not exact and defined
 * (a float that is not finite or does not fit an integer type, an int out of range). */
static Expr *convert(Lowerer *L, const Expr *v, const Type *t, Loc loc) {
  if (t->kind == TY_BOOL) {
    Expr *r = int_lit(L, as_double(v) != 0, loc);
    r->kind = EX_BOOL;
    return r;
  }
  if (t->kind == TY_FLOAT) {
    double d = as_double(v);
    return float_lit(L, t == &type_float32 ? (double)(float)d : d, loc);
  }
  if (t->kind != TY_INT) return NULL;   /* complex, float16: not folded */
  int64_t i = v->ival;
  if (v->kind == EX_FLOAT) {
    double d = trunc(v->fval);
    if (!(d >= -0x1p63 && d < 0x1p63)) return NULL;   /* also NaN */
    i = (int64_t)d;
  }
  return int_fits(i, t) ? int_lit(L, i, loc) : NULL;
}

/* float("inf"), np.float32("nan"), float("1.5"): Python's spellings (no hex, no "nan(...)"). */
static Expr *parse_float_string(Lowerer *L, TSNode n) {
  const char *s;
  size_t len;
  if (!lower_string_value(L, n, &s, &len) || strlen(s) != len || len == 0 || strpbrk(s, "xX(")) return NULL;
  char *end;
  double d = strtod(s, &end);
  while (*end == ' ') end++;
  return *end ? NULL : float_lit(L, d, node_loc(L, n));
}

/* np.datetime64(COUNT, 'UNIT'), np.timedelta64(COUNT, 'UNIT'), COUNT an int or 'NaT' (the
 * package freezes a module's datetime values in this form): a value of that type. NumPy's other
 * forms (a date string, no unit) are not folded. */
static Folded fold_time_value(Lowerer *L, const Builtin *b, TSNode n) {
  TSNode args[3];
  const char *unit;
  size_t len;
  if (node_kids(L, lower_field(L, n, F_arguments), args, 3) != 2 || !node_is(L, args[1], K_string) ||
      !lower_string_value(L, args[1], &unit, &len))
    return no_fold;
  int u = time_unit_parse(unit, len);
  const char *nat;
  size_t nat_len;
  Folded count = node_is(L, args[0], K_string) ? no_fold : fold(L, args[0]);
  if (node_is(L, args[0], K_string) && lower_string_value(L, args[0], &nat, &nat_len) && nat_len == 3 &&
      memcmp(nat, "NaT", 3) == 0)
    count.e = int_lit(L, INT64_MIN, node_loc(L, args[0]));
  if (u < 0 || u == P2C_UNIT_GENERIC || !count.e || count.e->kind != EX_INT || count.np || count.e->is_unsigned_literal)
    return no_fold;
  const Type *t = strcmp(b->path, "numpy.datetime64") == 0 ? type_datetime((P2cTimeUnit)u) : type_timedelta((P2cTimeUnit)u);
  return (Folded){count.e, t};
}

/* int(x), float(x), bool(x), np.float32(x), ...: one positional argument, a number (or, for a
 * float type, a string). */
static Folded fold_call(Lowerer *L, TSNode n) {
  Resolved r;
  if (!resolve_dotted(L, lower_field(L, n, F_function), &r) || !r.builtin) return no_fold;
  const Builtin *b = r.builtin;
  if (b->id == BI_TIME_VALUE) return fold_time_value(L, b, n);
  bool numpy = b->kind == BK_TYPE;
  if (!(numpy || b->id == BI_CAST) || !b->result || !type_is_numeric(b->result)) return no_fold;
  TSNode args[2];
  if (node_kids(L, lower_field(L, n, F_arguments), args, 2) != 1) return no_fold;
  const Type *t = b->result;
  Folded v = no_fold;
  if (node_is(L, args[0], K_string)) {
    if (t->kind == TY_FLOAT) v.e = parse_float_string(L, args[0]);
  } else {
    v = fold(L, args[0]);
  }
  if (!v.e || !is_number(v.e)) return no_fold;
  Folded out = {convert(L, v.e, t, node_loc(L, n)), numpy ? t : NULL};
  return out.e ? out : no_fold;
}

static Folded fold_neg(Lowerer *L, Folded f) {
  Expr *e = f.e;
  if (f.np && type_is_time(f.np)) return no_fold;   /* computed in the kernel, by NumPy's rules */
  if (e->kind == EX_FLOAT) return (Folded){float_lit(L, -e->fval, e->loc), f.np};
  if (e->kind != EX_INT || e->is_unsigned_literal || e->ival == INT64_MIN) return no_fold;
  if (f.np && !int_fits(-e->ival, f.np)) return no_fold;
  return (Folded){int_lit(L, -e->ival, e->loc), f.np};
}

static bool int_op(Op op, int64_t x, int64_t y, int64_t *v) {
  switch (op) {
  case OP_ADD: return !__builtin_add_overflow(x, y, v);
  case OP_SUB: return !__builtin_sub_overflow(x, y, v);
  case OP_MUL: return !__builtin_mul_overflow(x, y, v);
  default: return false;
  }
}

static bool float_op(Op op, double x, double y, double *v) {
  switch (op) {
  case OP_ADD: *v = x + y; return true;
  case OP_SUB: *v = x - y; return true;
  case OP_MUL: *v = x * y; return true;
  case OP_DIV: *v = x / y; return y != 0;
  default: return false;
  }
}

/* + - * on two Python ints stays an int; anything else with / or a float is a float. With a
 * NumPy scalar the result has NumPy's promoted type; a float32 result is the double result
 * rounded once, which is float32 arithmetic's own result for + - * / (double has more than
 * twice float32's precision). */
static Folded fold_binary(Lowerer *L, Op op, Folded a, Folded b, Loc loc) {
  if (!is_number(a.e) || !is_number(b.e)) return no_fold;
  if ((a.np && type_is_time(a.np)) || (b.np && type_is_time(b.np))) return no_fold;
  bool numpy = a.np || b.np;
  if (!numpy && (a.e->kind == EX_BOOL || b.e->kind == EX_BOOL)) return no_fold;
  const Type *t = numpy ? type_promote(type_of(a), type_of(b)) : NULL;
  if (numpy && t->kind != TY_INT && t->kind != TY_FLOAT) return no_fold;   /* bool, float16 */
  bool as_int = numpy ? t->kind == TY_INT && op != OP_DIV : a.e->kind == EX_INT && b.e->kind == EX_INT && op != OP_DIV;
  if (numpy && !as_int) t = t->kind == TY_FLOAT ? t : &type_float64;
  if (as_int) {
    int64_t v;
    if (!int_op(op, a.e->ival, b.e->ival, &v) || (numpy && !int_fits(v, t))) return no_fold;
    return (Folded){int_lit(L, v, loc), t};
  }
  double v;
  if (!float_op(op, as_double(a.e), as_double(b.e), &v)) return no_fold;
  return (Folded){float_lit(L, t == &type_float32 ? (double)(float)v : v, loc), t};
}

static Folded fold_tuple(Lowerer *L, TSNode n) {
  TSNode items[64];
  int k = node_kids(L, n, items, 64);
  if (node_is(L, n, K_parenthesized_expression) && k == 1) return fold(L, items[0]);
  if (k > 64) return no_fold;
  Expr *kids[64];
  for (int i = 0; i < k; i++) {
    Folded f = fold(L, items[i]);
    /* Not folded: a tuple of NumPy scalars (its type is not modelled), or one holding inf or
     * NaN (a runtime-indexed tuple is a C table, whose initializer must be constant). */
    if (!f.e || f.np || (f.e->kind == EX_FLOAT && !isfinite(f.e->fval))) return no_fold;
    kids[i] = f.e;
  }
  Expr *e = ast_new_expr(L->a, EX_TUPLE, node_loc(L, n));
  e->kids = arena_dup(L->a, kids, sizeof *kids * (size_t)(k ? k : 1));
  e->nkids = k;
  return (Folded){e, NULL};
}

static Folded fold_kind(Lowerer *L, TSNode n) {
  switch (node_kind(L, n)) {
  case K_integer:
  case K_float:
  case K_true:
  case K_false: return (Folded){lower_expr(L, n), NULL};
  case K_identifier: {
    Const *k = find_const(L, node_str(L, n));
    if (!k || k->array) return no_fold;
    return (Folded){arena_dup(L->a, k->value, sizeof *k->value), k->scalar};
  }
  case K_unary_operator: {
    const char *t = ts_node_type(lower_field(L, n, F_operator));
    Folded kid = fold(L, lower_field(L, n, F_argument));
    if (!kid.e) return no_fold;
    return t[0] == '-' ? fold_neg(L, kid) : t[0] == '+' ? kid : no_fold;
  }
  case K_binary_operator: {
    Op op;
    Folded a = fold(L, lower_field(L, n, F_left));
    Folded b = a.e ? fold(L, lower_field(L, n, F_right)) : no_fold;
    if (!b.e || !lower_op_from_text(ts_node_type(lower_field(L, n, F_operator)), &op)) return no_fold;
    return fold_binary(L, op, a, b, node_loc(L, n));
  }
  case K_call: return fold_call(L, n);
  case K_parenthesized_expression:
  case K_tuple: return fold_tuple(L, n);
  default: return no_fold;
  }
}

static Folded fold(Lowerer *L, TSNode n) {
  if (ts_node_is_null(n) || !lower_enter(L, n)) return no_fold;
  Folded f = fold_kind(L, n);
  lower_leave(L);
  return f.e && is_literal(f.e) ? f : no_fold;
}

Expr *fold_const_expr(Lowerer *L, TSNode n, const Type **numpy_type) {
  Folded f = fold(L, n);
  *numpy_type = f.np;
  return f.e;
}
