/* Typing of datetime64 and timedelta64, as Numba types them (numba.core.typing.npdatetime;
 * docs/semantics.md, "Datetimes and timedeltas"):
 *  - timedelta +- timedelta: the finer of two convertible units (Y M never meet W D ... as);
 *  - datetime +- timedelta (and timedelta + datetime): a datetime of time_unit_combine's unit;
 *  - datetime - datetime: a timedelta of the finer unit (any two units: the calendar converts);
 *  - timedelta * int or float, int or float * timedelta, timedelta / int or float, timedelta //
 *    int or float: a timedelta of its own unit (an int operand is converted to int64);
 *  - timedelta / timedelta: float64 (convertible units);
 *  - -timedelta, +timedelta, abs(timedelta);
 *  - comparisons of two datetimes (any units), and of two timedeltas (== and != of any units,
 *    ordered ones of convertible units);
 *  - np.isnat(x) of either; min() and max() of values of one type.
 * Anything else on them is an error, as in Numba: no mixing with plain numbers in + - or
 * comparisons, no % or //  between timedeltas (Numba 0.56 fails to compile td // td), no bit
 * operators, no truth value. */
#include "typeinfer/infer.h"

static const Type *operand_error(Infer *I, Expr *e, Op op, const Type *a, const Type *b, const char *why) {
  TERR(I, e->loc, "E-operand", "unsupported operand types for %s: %s and %s%s", op_python_spelling(op),
       a->name, b->name, why);
  return NULL;
}

/* The unit of timedelta +- timedelta: the one the other converts to, or -1. */
static int timedelta_sum_unit(const Type *a, const Type *b) {
  if (time_unit_can_cast(a->unit, b->unit)) return (int)b->unit;
  if (time_unit_can_cast(b->unit, a->unit)) return (int)a->unit;
  return -1;
}

static bool timedelta_units_compatible(const Type *a, const Type *b) { return timedelta_sum_unit(a, b) >= 0; }

static const char incompatible_units[] =
    " (their units do not convert into each other: Y and M do not mix with W, D and finer units)";

/* + and -. */
static const Type *additive(Infer *I, Expr *e, const Type *a, const Type *b) {
  bool sub = e->op == OP_SUB;
  if (a->kind == TY_TIMEDELTA && b->kind == TY_TIMEDELTA) {
    int u = timedelta_sum_unit(a, b);
    return u < 0 ? operand_error(I, e, e->op, a, b, incompatible_units) : type_timedelta((P2cTimeUnit)u);
  }
  if (sub && a->kind == TY_DATETIME && b->kind == TY_DATETIME)
    return type_timedelta(time_unit_best(a->unit, b->unit));
  const Type *dt = a->kind == TY_DATETIME ? a : b, *td = a->kind == TY_DATETIME ? b : a;
  if (dt->kind == TY_DATETIME && td->kind == TY_TIMEDELTA && !(sub && a == td)) {
    int u = time_unit_combine(dt->unit, td->unit);
    if (u < 0)
      return operand_error(I, e, e->op, a, b, " (a timedelta of years or months does not combine with a "
                           "datetime of a finer unit)");
    return type_datetime((P2cTimeUnit)u);
  }
  return operand_error(I, e, e->op, a, b, "");
}

/* timedelta * n, n * timedelta, timedelta / n, timedelta // n: n is an int (converted to
 * int64) or a float (kept: the product is computed in its type). */
static const Type *scaled(Infer *I, Expr *e, const Type *a, const Type *b) {
  bool td_left = a->kind == TY_TIMEDELTA;
  const Type *n = td_left ? b : a;
  if ((e->op != OP_MUL && !td_left) || (n->kind != TY_INT && n->kind != TY_FLOAT))
    return operand_error(I, e, e->op, a, b, "");
  if (n->kind == TY_INT) infer_coerce(I, &e->kids[td_left ? 1 : 0], &type_int64);
  return td_left ? a : b;
}

const Type *infer_time_binary(Infer *I, Expr *e, const Type *a, const Type *b) {
  switch (e->op) {
  case OP_ADD:
  case OP_SUB: return additive(I, e, a, b);
  case OP_MUL: return scaled(I, e, a, b);
  case OP_DIV:
    if (a->kind == TY_TIMEDELTA && b->kind == TY_TIMEDELTA)
      return timedelta_units_compatible(a, b) ? &type_float64 : operand_error(I, e, e->op, a, b, incompatible_units);
    return scaled(I, e, a, b);
  case OP_FLOORDIV:
    if (a->kind == TY_TIMEDELTA && b->kind == TY_TIMEDELTA)
      return operand_error(I, e, e->op, a, b, " (Numba does not compile // of two timedeltas; use "
                           "np.int64(a) // np.int64(b) on timedeltas of one unit)");
    return scaled(I, e, a, b);
  default: return operand_error(I, e, e->op, a, b, "");
  }
}

const Type *infer_time_unary(Infer *I, Expr *e, const Type *t) {
  if (t->kind == TY_TIMEDELTA && (e->op == OP_NEG || e->op == OP_POS)) return t;
  TERR(I, e->loc, "E-operand", "unsupported operand type for unary %s: %s", op_python_spelling(e->op), t->name);
  return NULL;
}

bool time_compare_ok(Infer *I, Expr *e, Op op, const Type *a, const Type *b) {
  if (a->kind == TY_DATETIME && b->kind == TY_DATETIME) return true;
  if (a->kind == TY_TIMEDELTA && b->kind == TY_TIMEDELTA &&
      (op == OP_EQ || op == OP_NE || timedelta_units_compatible(a, b)))
    return true;
  operand_error(I, e, op, a, b, a->kind == TY_TIMEDELTA && b->kind == TY_TIMEDELTA ? incompatible_units :
                " (datetimes compare with datetimes, timedeltas with timedeltas)");
  return false;
}

/* np.isnat(x): whether a datetime or timedelta is NaT (NumPy has no isnat of numbers). */
const Type *infer_isnat_call(Infer *I, Expr *e, const Type **t) {
  if (type_is_time(t[1])) return &type_bool;
  TERR(I, e->kids[1]->loc, "E-arg", "numpy.isnat() takes a datetime64 or timedelta64, not %s", t[1]->name);
  return NULL;
}

const Type *infer_time_minmax(Infer *I, Expr *e, const Type **t) {
  for (int i = 2; i < e->nkids; i++)
    if (t[i] != t[1]) {
      TERR(I, e->kids[i]->loc, "E-arg", "%s() takes values of one type here: %s and %s (Numba unifies "
           "no two datetime or timedelta types)", builtin_display_name(e->builtin), t[1]->name, t[i]->name);
      return NULL;
    }
  return t[1];
}

/* np.datetime64(...) and np.timedelta64(...) inside a kernel: Numba's CUDA target has no such
 * call either. A module-level constant made by one (np.datetime64(12820, 'D')) is folded by the
 * frontend into a value of its type. */
const Type *infer_time_value_call(Infer *I, Expr *e, const Type **t) {
  (void)t;
  TERR(I, e->loc, "E-unsupported", "%s() inside a kernel is not supported (Numba's CUDA target refuses "
       "it too): pass the value as an argument, or make it a module-level constant "
       "(%s(COUNT, 'UNIT'))", builtin_display_name(e->builtin), builtin_display_name(e->builtin));
  return NULL;
}
