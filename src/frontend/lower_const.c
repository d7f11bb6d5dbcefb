/* Folding of module-level constants (NAME = value), the values Numba freezes when a kernel reads
 * a global: numbers, bools and tuples of them, built from literals, earlier constants, the
 * constants of math and NumPy (math.pi, np.inf), Python's operators, math's functions, the
 * conversions int(), float(), bool() and NumPy's scalar types (np.float32(2.5), np.int64(N)).
 * Python numbers compute as CPython computes them (pynum.c: exact ints, CPython's float rules);
 * a math function with the libm function CPython's math module returns (the builtin row's
 * fold1/fold2), and not where CPython raises. A NumPy scalar keeps its type, as Numba types such
 * a global; arithmetic on one follows NumPy 1.x's rule for scalars (a Python int counts as
 * int64, a float as float64, `/` of integers is float64). A value that cannot be folded is not a
 * constant, which is an error only where a kernel uses it; the fold says why where it can
 * (a function CPython computes with its own code, an operation that raises). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lower.h"
#include "frontend/pynum.h"

/* A folded value: a number (v) or a tuple of literals (tuple); for a NumPy scalar, its type
 * (np; NULL: a Python number, typed as Python's). Not ok: why (NULL when the form is simply
 * not one that folds: the caller's message says what does). */
typedef struct Folded {
  bool ok;
  PyNum v;
  Expr *tuple;
  const Type *np;
  const char *why;
} Folded;

static Folded fold(Lowerer *L, TSNode n);

static Folded number(PyNum v, const Type *np) { return (Folded){.ok = true, .v = v, .np = np}; }

/* Not folded, because of `reason` about the source text at n ("'1 / 0' raises ..."). */
static Folded refuse(Lowerer *L, TSNode n, const char *reason) {
  size_t len;
  const char *s = node_text(L, n, &len);
  int shown = len > 48 ? 45 : (int)len;
  return (Folded){.why = arena_printf(L->a, "'%.*s%s' %s", shown, s, len > 48 ? "..." : "", reason)};
}

/* The number a literal Expr (a constant's value) holds. */
static PyNum literal_num(const Expr *e) {
  if (e->kind == EX_FLOAT) return pynum_float(e->fval);
  if (e->kind == EX_IMAG) return pynum_complex(e->real, e->fval);
  if (e->kind == EX_BOOL) return pynum_bool(e->ival != 0);
  return e->is_unsigned_literal ? pynum_uint(e->uval) : pynum_int(e->ival);
}

static bool is_literal(const Expr *e) {
  if (e->kind == EX_INT || e->kind == EX_FLOAT || e->kind == EX_BOOL || e->kind == EX_IMAG) return true;
  if (e->kind != EX_TUPLE) return false;
  for (int i = 0; i < e->nkids; i++)
    if (!is_literal(e->kids[i])) return false;
  return true;
}

static Expr *int_lit(Lowerer *L, int64_t v, Loc loc) {
  Expr *r = ast_new_expr(L->a, EX_INT, loc);
  r->ival = v;
  r->uval = (uint64_t)v;
  return r;
}

/* The literal of a folded number; NULL for an int beyond int64 and uint64. */
static Expr *literal_of(Lowerer *L, const PyNum *v, Loc loc) {
  if (v->kind == PN_FLOAT || v->kind == PN_COMPLEX) {
    Expr *e = ast_new_expr(L->a, v->kind == PN_FLOAT ? EX_FLOAT : EX_IMAG, loc);
    e->fval = v->kind == PN_FLOAT ? v->f : v->im;
    e->real = v->kind == PN_FLOAT ? 0.0 : v->f;
    return e;
  }
  if (v->kind == PN_BOOL) {
    Expr *e = int_lit(L, pynum_truth(v), loc);
    e->kind = EX_BOOL;
    return e;
  }
  int64_t i;
  bool is_unsigned;
  if (!pynum_to_int64(v, &i, &is_unsigned)) return NULL;
  Expr *e = int_lit(L, i, loc);
  e->is_unsigned_literal = is_unsigned;
  return e;
}

/* The type a folded number has in NumPy's promotion: its own, or Python's int64/float64/bool. */
static const Type *type_of(const Folded *f) {
  if (f->np) return f->np;
  if (f->v.kind == PN_COMPLEX) return &type_complex128;
  return f->v.kind == PN_FLOAT ? &type_float64 : f->v.kind == PN_BOOL ? &type_bool : &type_int64;
}

static bool int_fits(int64_t v, const Type *t) {
  if (t->bits == 64) return t->is_signed || v >= 0;   /* uint64 beyond int64 is not folded */
  int64_t lim = (int64_t)1 << (t->bits - (t->is_signed ? 1 : 0));
  return t->is_signed ? v >= -lim && v < lim : v >= 0 && v < lim;
}

/* The int64 a number that NumPy's scalar arithmetic or an int type takes holds (a float
 * truncated, as NumPy's and Python's int conversions do); false where that is not exact and
 * defined (NaN, inf, a value past int64). */
static bool as_int64(const PyNum *v, int64_t *out) {
  if (v->kind == PN_FLOAT) {
    double d = trunc(v->f);
    if (!(d >= -0x1p63 && d < 0x1p63)) return false;   /* also NaN */
    *out = (int64_t)d;
    return true;
  }
  bool is_unsigned;
  return pynum_to_int64(v, out, &is_unsigned) && !is_unsigned;
}

/* v converted to the number type t (a NumPy scalar type or Python's int64/float64/bool), as
 * NumPy's and Python's constructors convert it; false where that is not exact and defined
 * (a float that is not finite or does not fit an integer type, an int out of range). */
static bool convert(const PyNum *v, const Type *t, PyNum *out) {
  if (t->kind == TY_BOOL) return *out = pynum_bool(pynum_truth(v)), true;
  if (t->kind == TY_FLOAT) {
    double d = pynum_as_double(v);
    return *out = pynum_float(t == &type_float32 ? (double)(float)d : d), true;
  }
  int64_t i;
  if (t->kind != TY_INT || !as_int64(v, &i) || !int_fits(i, t)) return false;   /* complex, float16 */
  return *out = pynum_int(i), true;
}

/* float("inf"), np.float32("nan"), float("1.5"): Python's spellings (no hex, no "nan(...)"). */
static bool parse_float_string(Lowerer *L, TSNode n, PyNum *out) {
  const char *s;
  size_t len;
  if (!lower_string_value(L, n, &s, &len) || strlen(s) != len || len == 0 || strpbrk(s, "xX(")) return false;
  char *end;
  double d = strtod(s, &end);
  while (*end == ' ') end++;
  return !*end && (*out = pynum_float(d), true);
}

/* np.datetime64(COUNT, 'UNIT'), np.timedelta64(COUNT, 'UNIT'), COUNT an int or 'NaT' (the
 * package freezes a module's datetime values in this form): a value of that type. NumPy's other
 * forms (a date string, no unit) are not folded. */
static Folded fold_time_value(Lowerer *L, const Builtin *b, TSNode n) {
  TSNode args[3];
  const char *unit, *nat;
  size_t len, nat_len;
  if (node_kids(L, lower_field(L, n, F_arguments), args, 3) != 2 || !node_is(L, args[1], K_string) ||
      !lower_string_value(L, args[1], &unit, &len))
    return (Folded){0};
  int u = time_unit_parse(unit, len);
  Folded count = {0};
  if (!node_is(L, args[0], K_string)) count = fold(L, args[0]);
  else if (lower_string_value(L, args[0], &nat, &nat_len) && nat_len == 3 && memcmp(nat, "NaT", 3) == 0)
    count = number(pynum_int(INT64_MIN), NULL);
  int64_t c;
  if (u < 0 || u == P2C_UNIT_GENERIC || !count.ok || count.tuple || count.np || count.v.kind != PN_INT ||
      !as_int64(&count.v, &c))
    return (Folded){0};
  const Type *t = strcmp(b->path, "numpy.datetime64") == 0 ? type_datetime((P2cTimeUnit)u) : type_timedelta((P2cTimeUnit)u);
  return number(pynum_int(c), t);
}

/* The one number argument of a call of `what`; not ok (with why) otherwise. */
static Folded number_arg(Lowerer *L, TSNode n, TSNode arg, const char *what) {
  Folded v = fold(L, arg);
  if (v.ok && (v.tuple || (v.np && type_is_time(v.np))))
    return refuse(L, n, arena_printf(L->a, "gives %s a value that is not a number", what));
  if (v.ok && v.v.kind == PN_COMPLEX)   /* int(1j), float(1j), math.sqrt(1j) raise TypeError */
    return refuse(L, n, arena_printf(L->a, "gives %s a complex number, which the CLI does not convert", what));
  return v;
}

/* int(x), float(x), bool(x), np.float32(x), ...: one positional argument, a number (or, for a
 * float type, a string). */
static Folded fold_conversion(Lowerer *L, const Builtin *b, TSNode n) {
  bool numpy = b->kind == BK_TYPE;
  const Type *t = b->result;
  TSNode args[2];
  if (!t || !type_is_numeric(t) || node_kids(L, lower_field(L, n, F_arguments), args, 2) != 1)
    return (Folded){0};
  Folded v = {0};
  if (node_is(L, args[0], K_string)) v.ok = t->kind == TY_FLOAT && parse_float_string(L, args[0], &v.v);
  else v = number_arg(L, n, args[0], builtin_display_name(b));
  if (!v.ok) return v;
  PyNum out;
  if (!numpy && t->kind == TY_INT) {   /* int(): exact, as Python's */
    bool ok = v.v.kind == PN_FLOAT ? pynum_from_integral(trunc(v.v.f), &out) : pynum_unary(OP_POS, &v.v, &out);
    return ok ? number(out, NULL) : refuse(L, n, "raises in Python (the int of an infinity or NaN)");
  }
  if (!convert(&v.v, t, &out))
    return refuse(L, n, numpy ? "is out of its type's range (or not a number NumPy converts exactly)"
                              : "raises in Python, or its int is past 64 bits");
  return number(out, numpy ? t : NULL);
}

/* complex(re) or complex(re, im) of real Python numbers: exactly those parts (CPython's
 * complex() converts each with float() and does no arithmetic on them), which is how the Python
 * package writes a complex global. A complex or NumPy argument is not folded. */
static Folded fold_complex_ctor(Lowerer *L, TSNode n) {
  TSNode args[3];
  int k = node_kids(L, lower_field(L, n, F_arguments), args, 3);
  double part[2] = {0.0, 0.0};
  if (k < 1 || k > 2) return (Folded){0};
  for (int i = 0; i < k; i++) {
    Folded v = number_arg(L, n, args[i], "complex()");
    if (!v.ok) return v;
    if (v.np) return refuse(L, n, "gives complex() a NumPy scalar, which the CLI does not convert");
    part[i] = pynum_as_double(&v.v);
  }
  return number(pynum_complex(part[0], part[1]), NULL);
}

/* math.f(x) or math.f(x, y) with the function CPython's math module computes it with: a float,
 * except math.floor/ceil/trunc (an int) and the predicates (a bool). Not where CPython raises:
 * a NaN from numbers that are not NaN (a domain error), an infinity from finite ones (an
 * overflow), the int of an infinity or NaN. */
static Folded fold_math(Lowerer *L, const Builtin *b, TSNode n) {
  TSNode args[3];
  int k = node_kids(L, lower_field(L, n, F_arguments), args, 3);
  if (k != b->min_args || k != b->max_args || k > 2)
    return refuse(L, n, "is not computed at compile time in this form (the CLI folds math functions "
                        "of one number, or two for the two-argument ones)");
  PyNum x[2];
  const Type *np = NULL;
  for (int i = 0; i < k; i++) {
    Folded v = number_arg(L, n, args[i], builtin_display_name(b));
    if (!v.ok) return v;
    x[i] = v.v;
    np = v.np;
  }
  /* A Python int keeps its value (math.floor(7) is 7); a NumPy scalar goes through float(), as
   * NumPy's scalars have no __floor__ or __ceil__, and no __trunc__, so math.trunc raises, except
   * on a float64 (a subclass of float). */
  if (b->id == BI_MATH_TO_INT && !np && x[0].kind != PN_FLOAT) {
    PyNum out;
    return pynum_unary(OP_POS, &x[0], &out) ? number(out, NULL) : (Folded){0};
  }
  if (b->id == BI_MATH_TO_INT && np && np != &type_float64 && strcmp(b->path, "math.trunc") == 0)
    return refuse(L, n, "raises in Python (NumPy's scalar types other than float64 have no __trunc__)");
  double a = pynum_as_double(&x[0]), c = k == 2 ? pynum_as_double(&x[1]) : 0;
  double r = k == 1 ? b->fold1(a) : b->fold2(a, c);
  if (b->result == &type_bool) return number(pynum_bool(r != 0), NULL);
  PyNum out;
  if (b->id == BI_MATH_TO_INT)
    return pynum_from_integral(r, &out) ? number(out, NULL) : refuse(L, n, "raises in Python (the int of an infinity or NaN)");
  bool nan_in = isnan(a) || isnan(c), finite_in = isfinite(a) && isfinite(c);
  if ((isnan(r) && !nan_in) || (isinf(r) && finite_in))
    return refuse(L, n, "raises in Python (a math domain error or an overflow)");
  return number(pynum_float(r), NULL);
}

/* The loop type NumPy's float functions (np.sqrt: loops e, f, d) take for an argument of type t:
 * the first that t casts to safely, float16 for a bool or an 8-bit int, float32 for a 16-bit int,
 * float64 for wider ints (NumPy's, not a kernel's typing, where Numba computes ints in float64);
 * a float type its own. */
static const Type *numpy_float_loop(const Type *t) {
  if (t->kind == TY_FLOAT || t->kind == TY_HALF) return t;
  if (t->kind != TY_BOOL && t->kind != TY_INT) return NULL;
  return t->bits <= 8 ? &type_float16 : t->bits == 16 ? &type_float32 : &type_float64;
}

/* np.sqrt(x) of one number, as NumPy computes it: in the loop type NumPy chooses for x's type
 * (numpy_float_loop; a Python float or int is float64 to it), the row's fold1 (IEEE's correctly
 * rounded square root, which NumPy's loops and the C library all give; rounded once more to
 * float32 for a float32 loop, which for a square root is float32's own result), NaN below zero
 * (NumPy warns, it does not raise). Loops in other types (float16 for bools and 8-bit ints,
 * complex) and NumPy's other functions, which it computes with SIMD code of its own, are refused
 * with the reason. */
static Folded fold_ufunc(Lowerer *L, const Builtin *b, TSNode n) {
  TSNode args[3];
  const char *name = builtin_display_name(b);
  if (!b->fold1)
    return refuse(L, n, arena_printf(L->a, "calls %s, which NumPy computes with code of its own that the CLI "
                                           "does not reproduce to the last bit (of NumPy's functions of numbers "
                                           "it folds np.sqrt; compute it in the kernel, or write its value)", name));
  if (node_kids(L, lower_field(L, n, F_arguments), args, 3) != 1)
    return refuse(L, n, arena_printf(L->a, "is folded only as %s(x) of one number", name));
  Folded x = number_arg(L, n, args[0], name);
  if (!x.ok) return x;
  int64_t i;
  bool is_unsigned;
  if (!x.np && x.v.kind == PN_INT && !pynum_to_int64(&x.v, &i, &is_unsigned))   /* an object to NumPy */
    return refuse(L, n, arena_printf(L->a, "gives %s a Python int past 64 bits, which NumPy refuses", name));
  const Type *t = numpy_float_loop(type_of(&x));
  if (t != &type_float32 && t != &type_float64)
    return refuse(L, n, arena_printf(L->a, "computes in %s, which the CLI does not fold (it folds %s in "
                                           "float32 and float64)", t ? t->name : "no type of NumPy's", name));
  double r = b->fold1(pynum_as_double(&x.v));
  return number(pynum_float(t == &type_float32 ? (double)(float)r : r), t);
}

/* A call at module level: a conversion, a NumPy datetime, or a math function CPython computes
 * with libm's; other calls are refused with the reason. */
static Folded fold_call(Lowerer *L, TSNode n) {
  Resolved r;
  if (!resolve_dotted(L, lower_field(L, n, F_function), &r) || !r.builtin)
    return refuse(L, n, "is a call the CLI does not evaluate (it computes int(), float(), bool(), "
                        "NumPy's scalar types and math's functions of constants)");
  const Builtin *b = r.builtin;
  if (b->id == BI_TIME_VALUE) return fold_time_value(L, b, n);
  if (b->id == BI_COMPLEX) return fold_complex_ctor(L, n);
  if (b->kind == BK_TYPE || b->id == BI_CAST) return fold_conversion(L, b, n);
  if (b->facts & BF_UFUNC) return fold_ufunc(L, b, n);
  if (b->fold1 || b->fold2) return fold_math(L, b, n);
  if (strncmp(b->path, "math.", 5) == 0)
    return refuse(L, n, "is computed by CPython's own code, which the CLI does not reproduce to "
                        "the last bit (compute it in the kernel, or write its value)");
  return refuse(L, n, arena_printf(L->a, "calls %s, which the CLI does not evaluate at module level "
                                         "(it computes int(), float(), bool(), NumPy's scalar types and "
                                         "math's functions of constants)", builtin_display_name(b)));
}

/* -x, +x, ~x: Python's rules for Python numbers, NumPy's for a NumPy scalar (its type kept;
 * folded where the value stays in that type). */
static Folded fold_unary(Lowerer *L, TSNode n) {
  const char *t = ts_node_type(lower_field(L, n, F_operator));
  Op op = t[0] == '-' ? OP_NEG : t[0] == '+' ? OP_POS : OP_INVERT;
  Folded f = fold(L, lower_field(L, n, F_argument));
  if (!f.ok) return f;
  if (f.tuple) return refuse(L, n, "applies an operator to a tuple");
  PyNum out;
  if (!f.np) return pynum_unary(op, &f.v, &out) ? number(out, NULL) : refuse(L, n, "raises in Python");
  if (type_is_time(f.np) || op == OP_INVERT || f.v.kind == PN_BOOL)
    return refuse(L, n, "is an operator on a NumPy scalar the CLI does not fold");
  if (op == OP_POS || f.v.kind == PN_FLOAT) return number(op == OP_POS ? f.v : pynum_float(-f.v.f), f.np);
  int64_t i;
  if (!as_int64(&f.v, &i) || i == INT64_MIN || !int_fits(-i, f.np))
    return refuse(L, n, "leaves its NumPy type's range");
  return number(pynum_int(-i), f.np);
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

/* x // y and x % y of NumPy integers (npy_floor_divide, npy_remainder for ints): Python's
 * floor rules, and where C's would be undefined NumPy's own values, which it gives with a
 * RuntimeWarning, not an error: 0 for a zero divisor, the type's minimum for minimum // -1
 * (wrapped, as the result is then put in the type). */
static int64_t np_int_divmod(Op op, int64_t x, int64_t y) {
  if (y == 0 || (y == -1 && x == INT64_MIN)) return op == OP_FLOORDIV && y ? x : 0;
  int64_t q = x / y, r = x % y;
  if (r && ((r < 0) != (y < 0))) q -= 1, r += y;
  return op == OP_FLOORDIV ? q : r;
}

/* x ** y of NumPy integers (scalarmath's power: squaring, wrapping in the type); false for a
 * negative exponent, which NumPy refuses (ValueError). */
static bool np_int_pow(int64_t x, int64_t y, int64_t *out) {
  if (y < 0) return false;
  uint64_t base = (uint64_t)x, r = 1;
  for (uint64_t e = (uint64_t)y; e; e >>= 1, base *= base)
    if (e & 1) r *= base;
  *out = (int64_t)r;
  return true;
}

/* v wrapped to integer type t's width, as a result stored in that type (two's complement). */
static int64_t wrap_to(int64_t v, const Type *t) {
  if (t->bits == 64) return v;
  uint64_t m = (UINT64_C(1) << t->bits) - 1, u = (uint64_t)v & m;
  if (t->is_signed && (u >> (t->bits - 1))) u |= ~m;
  return (int64_t)u;
}

/* NumPy's npy_divmod for float64 (CPython's float rules where y is not zero; NumPy's a / b and
 * fmod where it is: inf or nan, with a warning), floor division or modulo. */
static double np_divmod64(Op op, double a, double b) {
  double mod = fmod(a, b), div, floordiv;
  if (!b) return op == OP_FLOORDIV ? a / b : mod;
  div = (a - mod) / b;
  if (mod) {
    if ((b < 0) != (mod < 0)) mod += b, div -= 1.0;
  } else {
    mod = copysign(0.0, b);
  }
  if (div) {
    floordiv = floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = copysign(0.0, a / b);
  }
  return op == OP_FLOORDIV ? floordiv : mod;
}

/* The same in float32 arithmetic (npy_divmodf: each step rounded to float, as NumPy computes a
 * float32 // or %, which computing in double and rounding once would not match). */
static float np_divmod32(Op op, float a, float b) {
  float mod = fmodf(a, b), div, floordiv;
  if (!b) return op == OP_FLOORDIV ? a / b : mod;
  div = (a - mod) / b;
  if (mod) {
    if ((b < 0) != (mod < 0)) mod += b, div -= 1.0f;
  } else {
    mod = copysignf(0.0f, b);
  }
  if (div) {
    floordiv = floorf(div);
    if (div - floordiv > 0.5f) floordiv += 1.0f;
  } else {
    floordiv = copysignf(0.0f, a / b);
  }
  return op == OP_FLOORDIV ? floordiv : mod;
}

/* An integer operation of NumPy scalars in type t: + - * where the exact result fits t (others
 * leave the range, which the CLI does not fold), // % ** as NumPy computes them (wrapping). */
static Folded numpy_int_op(Lowerer *L, TSNode n, Op op, const Folded *a, const Folded *b, const Type *t) {
  int64_t x, y, v;
  if (!as_int64(&a->v, &x) || !as_int64(&b->v, &y)) return refuse(L, n, "leaves its NumPy type's range");
  if (op == OP_FLOORDIV || op == OP_MOD) return number(pynum_int(wrap_to(np_int_divmod(op, x, y), t)), t);
  if (op == OP_POW) {
    if (!np_int_pow(x, y, &v)) return refuse(L, n, "raises in NumPy (integers to negative integer powers)");
    return number(pynum_int(wrap_to(v, t)), t);
  }
  if (!int_op(op, x, y, &v) || !int_fits(v, t)) return refuse(L, n, "leaves its NumPy type's range");
  return number(pynum_int(v), t);
}

/* A float operation of NumPy scalars in type t (float32 or float64): + - * / as the double
 * result rounded once (double has more than twice float32's precision, so that is float32's own
 * result), // % by npy_divmod in t's arithmetic, ** of two values of type t (a Python float is a
 * float64) by the C library's pow or powf, as NumPy's scalar power calls them; a power of mixed
 * types goes through NumPy's ufunc, whose SIMD loops give other bits (5,469 of 20,000 random
 * float32 ** float cases differ from pow), and is refused. */
static Folded numpy_float_op(Lowerer *L, TSNode n, Op op, const Folded *a, const Folded *b, const Type *t) {
  double x = pynum_as_double(&a->v), y = pynum_as_double(&b->v), v;
  bool f32 = t == &type_float32;
  if (op == OP_FLOORDIV || op == OP_MOD) {
    v = f32 ? (double)np_divmod32(op, (float)x, (float)y) : np_divmod64(op, x, y);
  } else if (op == OP_POW) {
    if (type_of(a) != t || type_of(b) != t)   /* NumPy's ufunc, not its scalar power */
      return refuse(L, n, "is a power of mixed types, which NumPy computes with its own SIMD code (not "
                          "the C library's pow) that the CLI does not reproduce to the last bit; convert both "
                          "to one float type, e.g. np.float64(x) ** 2.0");
    v = f32 ? (double)powf((float)x, (float)y) : pow(x, y);
  } else if (!float_op(op, x, y, &v)) {
    return refuse(L, n, "divides by zero");
  }
  return number(pynum_float(f32 ? (double)(float)v : v), t);
}

/* An arithmetic operator with a NumPy scalar: the result has NumPy's promoted type (a Python
 * int counts as int64, a float as float64), and the value NumPy 1.x's scalar arithmetic gives,
 * bit for bit: + - * / ** // %. Bitwise operators and shifts on NumPy scalars are not folded. */
static Folded fold_numpy_binary(Lowerer *L, TSNode n, Op op, const Folded *a, const Folded *b) {
  int64_t unused;
  if ((!a->np && a->v.kind == PN_INT && !as_int64(&a->v, &unused)) ||
      (!b->np && b->v.kind == PN_INT && !as_int64(&b->v, &unused)))   /* NumPy makes it an object */
    return refuse(L, n, "mixes a NumPy scalar with a Python int past int64, which the CLI does not fold");
  const Type *t = type_promote(type_of(a), type_of(b));
  if ((a->np && type_is_time(a->np)) || (b->np && type_is_time(b->np)) || op > OP_POW ||
      (t->kind != TY_INT && t->kind != TY_FLOAT))   /* bool, float16 */
    return refuse(L, n, "is an operator on a NumPy scalar the CLI does not fold (it folds + - * / ** // %)");
  if (t->kind == TY_INT && op != OP_DIV) return numpy_int_op(L, n, op, a, b, t);
  return numpy_float_op(L, n, op, a, b, t->kind == TY_FLOAT ? t : &type_float64);
}

/* a op b: Python's arithmetic (pynum, as CPython evaluates it) on Python numbers, NumPy's with
 * a NumPy scalar. */
static Folded fold_binary(Lowerer *L, TSNode n) {
  Op op;
  Folded a = fold(L, lower_field(L, n, F_left));
  if (!a.ok) return a;
  Folded b = fold(L, lower_field(L, n, F_right));
  if (!b.ok) return b;
  if (!lower_op_from_text(ts_node_type(lower_field(L, n, F_operator)), &op) || op > OP_BITXOR)
    return (Folded){0};
  if (a.tuple || b.tuple) return refuse(L, n, "is an operator on a tuple, which the CLI does not fold");
  if (a.np || b.np) return fold_numpy_binary(L, n, op, &a, &b);
  PyNum out;
  if (!pynum_binary(op, &a.v, &b.v, PY_EVALUATE, &out))
    return refuse(L, n, "raises in Python, or its value is an int of over 384 bits");
  return number(out, NULL);
}

static Folded fold_tuple(Lowerer *L, TSNode n) {
  TSNode items[64];
  int k = node_kids(L, n, items, 64);
  if (node_is(L, n, K_parenthesized_expression) && k == 1) return fold(L, items[0]);
  if (k > 64) return (Folded){0};
  Expr *kids[64];
  for (int i = 0; i < k; i++) {
    Folded f = fold(L, items[i]);
    if (!f.ok) return f;
    /* Not folded: a tuple of NumPy scalars (its type is not modelled), or one holding inf or
     * NaN (a runtime-indexed tuple is a C table, whose initializer must be constant). */
    if (f.np || (!f.tuple && ((f.v.kind == PN_FLOAT && !isfinite(f.v.f)) || f.v.kind == PN_COMPLEX)))
      return (Folded){0};
    kids[i] = f.tuple ? f.tuple : literal_of(L, &f.v, node_loc(L, items[i]));
    if (!kids[i]) return refuse(L, items[i], "does not fit in 64 bits");
  }
  Expr *e = ast_new_expr(L->a, EX_TUPLE, node_loc(L, n));
  e->kids = arena_dup(L->a, kids, sizeof *kids * (size_t)(k ? k : 1));
  e->nkids = k;
  return (Folded){.ok = true, .tuple = e};
}

/* NAME: an earlier constant (its value), math's or NumPy's constant (from math import pi). */
static Folded fold_name(Lowerer *L, TSNode n) {
  const char *name = node_str(L, n);
  Const *k = find_const(L, name);
  if (k && const_names_itself(k)) return (Folded){0};
  if (k && k->value->kind == EX_TUPLE) return (Folded){.ok = true, .tuple = k->value};
  if (k && is_literal(k->value)) return number(literal_num(k->value), k->scalar);
  if (k) return (Folded){0};
  Resolved r;
  if (resolve_dotted(L, n, &r) && r.builtin && r.builtin->id == BI_MATH_CONST)
    return number(pynum_float(r.builtin->value), NULL);
  const OtherGlobal *g = find_other_global(L, name);
  if (g && g->why) return (Folded){.why = g->why};
  return g ? refuse(L, n, "is not a compile-time constant") : (Folded){0};
}

/* math.pi, np.inf, ...: a constant of math or NumPy. */
static Folded fold_attribute(Lowerer *L, TSNode n) {
  Resolved r;
  if (resolve_dotted(L, n, &r) && r.builtin && r.builtin->id == BI_MATH_CONST)
    return number(pynum_float(r.builtin->value), NULL);
  return refuse(L, n, "is not a constant the CLI knows (it knows math's and NumPy's pi, e, inf, nan)");
}

/* A number literal; an imaginary one (2j) is a complex number. */
static Folded fold_number_literal(Lowerer *L, TSNode n) {
  size_t len;
  const char *s = node_text(L, n, &len);
  if (len && (s[len - 1] == 'j' || s[len - 1] == 'J')) return number(pynum_complex(0.0, lower_float_text(s, len - 1)), NULL);
  PyNum v;
  if (node_is(L, n, K_float)) return number(pynum_float(lower_float_text(s, len)), NULL);
  return pynum_parse_int(s, len, &v) ? number(v, NULL) : refuse(L, n, "is an int of over 384 bits");
}

/* a and b, a or b: Python's value (the operand that decides, not a bool), the right operand
 * folded only where Python evaluates it. Nesting is bounded by fold's depth check. */
static Folded fold_boolop(Lowerer *L, TSNode n) {
  bool is_and = ts_node_type(lower_field(L, n, F_operator))[0] == 'a';
  Folded a = fold(L, lower_field(L, n, F_left));
  if (!a.ok || a.tuple) return a.ok ? (Folded){0} : a;
  return pynum_truth(&a.v) == is_and ? fold(L, lower_field(L, n, F_right)) : a;
}

static Folded fold_kind(Lowerer *L, TSNode n) {
  switch (node_kind(L, n)) {
  case K_integer:
  case K_float: return fold_number_literal(L, n);
  case K_true:
  case K_false: return number(pynum_bool(node_is(L, n, K_true)), NULL);
  case K_identifier: return fold_name(L, n);
  case K_attribute: return fold_attribute(L, n);
  case K_unary_operator: return fold_unary(L, n);
  case K_not_operator: {
    Folded f = fold(L, lower_field(L, n, F_argument));
    if (!f.ok || f.tuple) return f.ok ? (Folded){0} : f;
    return number(pynum_bool(!pynum_truth(&f.v)), NULL);
  }
  case K_binary_operator: return fold_binary(L, n);
  case K_boolean_operator: return fold_boolop(L, n);
  case K_call: return fold_call(L, n);
  case K_parenthesized_expression:
  case K_tuple: return fold_tuple(L, n);
  default: return (Folded){0};
  }
}

static Folded fold(Lowerer *L, TSNode n) {
  if (ts_node_is_null(n) || !lower_enter(L, n)) return (Folded){0};
  Folded f = fold_kind(L, n);
  lower_leave(L);
  return f;
}

Expr *fold_const_value(Lowerer *L, TSNode n, const Type **numpy_type, const char **why) {
  Folded f = fold(L, n);
  *numpy_type = f.np;
  *why = f.why;
  if (!f.ok) return NULL;
  if (f.tuple) return f.tuple;
  Expr *e = literal_of(L, &f.v, node_loc(L, n));
  if (!e) {
    char text[160];
    pynum_int_text(&f.v, text, sizeof text);
    *why = arena_printf(L->a, "its value %s does not fit in 64 bits (Numba types an int global as "
                              "int64, or uint64 above INT64_MAX)", text);
  }
  return e;
}

Expr *fold_const_expr(Lowerer *L, TSNode n, const Type **numpy_type) {
  const char *why;
  return fold_const_value(L, n, numpy_type, &why);
}
