/* Typing of complex numbers, as Numba types them: complex64 and complex128 operands of
 * + - * / ** promote with NumPy's rules (complex64 with int16 or float32 stays complex64, with
 * int32, int64 or float64 becomes complex128); == and != compare, ordered comparisons, //, %
 * and bit operations are errors (Python's TypeError). `.real`, `.imag` and `.conjugate()` work
 * on every number (an int's .imag is 0 of its type), abs() of a complex number is its float
 * type, complex(re, im) is complex128, and the cmath functions take any number (a real
 * argument is converted: float32 and small ints to complex64, the others to complex128). */
#include <string.h>

#include "typeinfer/infer.h"

/* The complex type a real or complex argument of a cmath function is converted to. */
static const Type *cmath_arg_type(const Type *t) {
  return t->kind == TY_COMPLEX ? t : type_promote(&type_complex64, t);
}

static bool require_numeric(Infer *I, const Expr *e, const Type *t) {
  if (type_is_numeric(t) && !type_is_alone(t)) return true;   /* cmath has no bfloat16, fp8 */
  TERR(I, e->loc, "E-operand", "expected a number, got %s", t->name);
  return false;
}

const Type *infer_complex_binary(Infer *I, Expr *e, const Type *a, const Type *b) {
  bool arith = e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL || e->op == OP_DIV || e->op == OP_POW;
  if (!arith || !type_is_numeric(a) || !type_is_numeric(b)) {
    TERR(I, e->loc, "E-operand", "unsupported operand types for %s: %s and %s", op_python_spelling(e->op),
         a->name, b->name);
    return NULL;
  }
  const Type *t = type_promote(a, b);
  if (!t) {   /* bfloat16 */
    TERR(I, e->loc, "E-operand", "unsupported operand types for %s: %s and %s", op_python_spelling(e->op),
         a->name, b->name);
    return NULL;
  }
  infer_coerce(I, &e->kids[0], t);
  infer_coerce(I, &e->kids[1], t);
  return t;
}

const Type *infer_complex_unary(Infer *I, Expr *e, const Type *t) {
  if (e->op == OP_INVERT) {
    TERR(I, e->loc, "E-operand", "unsupported operand type for unary ~: %s", t->name);
    return NULL;
  }
  return t;
}

bool complex_compare_ok(Infer *I, Expr *e, Op op, const Type *a, const Type *b) {
  if (op == OP_EQ || op == OP_NE) return require_numeric(I, e, a) && require_numeric(I, e, b);
  TERR(I, e->loc, "E-operand", "complex numbers cannot be ordered ('%s' between %s and %s)",
       op_python_spelling(op), a->name, b->name);
  return false;
}

/* x.real, x.imag of any number. */
const Type *infer_numeric_attr(Infer *I, Expr *e, const Type *t) {
  if (t->kind == TY_COMPLEX) return type_complex_part(t);
  if (type_is_number(t)) return t;
  TERR(I, e->loc, "E-attribute", "%s has no supported attribute '%s'", t->name, e->str);
  return NULL;
}

/* x.method(), a method without arguments that is a builtin of x: rewritten in place into a call
 * of the builtin at `path` with x as its argument, which the builtin machinery then types and
 * emits. */
static const Type *method_as_builtin(Infer *I, Expr *e, const char *path) {
  Expr *callee = e->kids[0];
  if (e->nkids != 1 || e->nkeywords) {
    TERR(I, e->loc, "E-arity", "%s() takes no arguments", callee->str);
    return NULL;
  }
  Expr **kids = arena_alloc(&I->c->arena, 2 * sizeof *kids);
  kids[0] = ast_new_expr(&I->c->arena, EX_BUILTIN, callee->loc);
  kids[0]->builtin = builtin_lookup(path);
  kids[1] = callee->kids[0];
  e->kids = kids;
  e->nkids = 2;
  return infer_expr(I, e);
}

/* g.sync() of a grid group: the row numba.cuda.cg.GridGroup.sync (a barrier with effects that
 * makes the kernel cooperative; emitted p2c_grid_sync(g)). */
static const Type *grid_group_method(Infer *I, Expr *e) {
  Expr *callee = e->kids[0];
  if (strcmp(callee->str, "sync") != 0) {
    TERR(I, callee->loc, "E-not-callable", "method '%s' of GridGroup is not supported (only sync())",
         callee->str);
    return NULL;
  }
  return method_as_builtin(I, e, "numba.cuda.cg.GridGroup.sync");
}

/* x.conjugate(), g.sync(), i.bit_count(), a.view(dtype): callee is the EX_ATTR. */
const Type *infer_method_call(Infer *I, Expr *e) {
  Expr *callee = e->kids[0];
  const Type *t = infer_expr(I, callee->kids[0]);
  if (!t) return NULL;
  if (t->kind == TY_GRID_GROUP) return grid_group_method(I, e);
  /* numba-cuda's int.bit_count() is cuda.popc: the set bits of the two's complement value */
  if (t->kind == TY_INT && strcmp(callee->str, "bit_count") == 0)
    return method_as_builtin(I, e, "numba.cuda.popc");
  if (t->kind == TY_ARRAY) return infer_array_method(I, e);
  if (strcmp(callee->str, "conjugate") != 0 || !type_is_numeric(t)) {
    TERR(I, callee->loc, "E-not-callable", "method '%s' of %s is not supported", callee->str, t->name);
    return NULL;
  }
  if (e->nkids != 1 || e->nkeywords) {
    TERR(I, e->loc, "E-arity", "conjugate() takes no arguments");
    return NULL;
  }
  callee->ty = t;
  return t;
}

/* complex(re), complex(re, im): complex128 from real numbers (or a complex first argument). */
const Type *infer_complex_ctor_call(Infer *I, Expr *e, const Type **t) {
  int n = e->nkids - 1;
  if (n < 1 || n > 2) {
    TERR(I, e->loc, "E-arity", "complex() takes 1 or 2 arguments, got %d", n);
    return NULL;
  }
  for (int i = 1; i <= n; i++) {
    if (!require_numeric(I, e->kids[i], t[i])) return NULL;
    if (n == 2 && t[i]->kind == TY_COMPLEX) {
      TERR(I, e->kids[i]->loc, "E-operand", "complex() of two complex numbers is not supported");
      return NULL;
    }
    infer_coerce(I, &e->kids[i], t[i]->kind == TY_COMPLEX ? &type_complex128 : &type_float64);
  }
  return &type_complex128;
}

/* The arguments of a cmath function: as many as its row takes (its own message), numbers. */
static bool cmath_args(Infer *I, Expr *e, const Type **t) {
  const Builtin *b = e->builtin;
  int lo = b->min_args, hi = b->max_args, n = e->nkids - 1;
  if (n < lo || n > hi) {
    TERR(I, e->loc, "E-arity", "%s() takes %d%s argument%s, got %d", builtin_display_name(b), lo,
         hi > lo ? " or 2" : "", hi > 1 ? "s" : "", n);
    return false;
  }
  for (int i = 1; i <= n; i++)
    if (!require_numeric(I, e->kids[i], t[i])) return false;
  return true;
}

/* The complex type a cmath function computes in; its arguments are converted to it. */
static const Type *cmath_convert(Infer *I, Expr *e, const Type **t) {
  int n = e->nkids - 1;
  const Type *ct = cmath_arg_type(t[1]);
  if (n == 2) ct = type_promote(ct, cmath_arg_type(t[2]));
  for (int i = 1; i <= n; i++) infer_coerce(I, &e->kids[i], ct);
  return ct;
}

/* cmath.sqrt(z), cmath.log(z[, base]), cmath.isnan(z) ...: the row's result type or complex. */
const Type *infer_cmath_call(Infer *I, Expr *e, const Type **t) {
  if (!cmath_args(I, e, t)) return NULL;
  const Type *ct = cmath_convert(I, e, t);
  return e->builtin->result ? e->builtin->result : ct;
}

/* cmath.phase(z): the float type of z's complex type. */
const Type *infer_cmath_phase_call(Infer *I, Expr *e, const Type **t) {
  if (!cmath_args(I, e, t)) return NULL;
  return type_complex_part(cmath_convert(I, e, t));
}

/* cmath.polar(z): (abs(z), phase(z)) in that float type. */
const Type *infer_cmath_polar_call(Infer *I, Expr *e, const Type **t) {
  if (!cmath_args(I, e, t)) return NULL;
  return type_uniform_tuple(I->tt, type_complex_part(cmath_convert(I, e, t)), 2);
}

/* cmath.rect(r, phi): real numbers to the complex type of their float type. */
const Type *infer_cmath_rect_call(Infer *I, Expr *e, const Type **t) {
  if (!cmath_args(I, e, t)) return NULL;
  for (int i = 1; i <= 2; i++)
    if (t[i]->kind == TY_COMPLEX) {
      TERR(I, e->kids[i]->loc, "E-operand", "cmath.rect() takes real numbers, not %s", t[i]->name);
      return NULL;
    }
  const Type *f = t[1] == &type_float32 && t[2] == &type_float32 ? &type_float32 : &type_float64;
  infer_coerce(I, &e->kids[1], f);
  infer_coerce(I, &e->kids[2], f);
  return type_complex_of(f);
}

/* A conversion to or from a complex type, as np.complex64(x), abs() and bool() see it: real
 * numbers become complex; a complex number becomes only another complex type or a bool. */
bool complex_cast_ok(Infer *I, Expr *e, const Type *from, const Type *to) {
  if (!require_numeric(I, e, from)) return false;
  if (from->kind != TY_COMPLEX || to->kind == TY_COMPLEX || to->kind == TY_BOOL) return true;
  TERR(I, e->loc, "E-operand", "cannot convert %s to %s (take .real or abs() first)", from->name, to->name);
  return false;
}
