/* Type inference for expressions: operators, indexing, attributes, and the calls of builtins
 * and device functions. Each function returns the expression's type (NULL: not known yet, or
 * an error was reported) and, in the final pass, wraps operands in casts to the type the
 * operation computes in. */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "typeinfer/infer.h"

/* ---- casts ---- */

void infer_coerce(Infer *I, Expr **slot, const Type *to) {
  Expr *e = *slot;
  if (!I->final || !e || !e->ty || !to || type_plain(e->ty) == type_plain(to)) return;   /* an IntEnum is its int */
  if (e->ty->kind == TY_TUPLE && to->kind == TY_TUPLE) {
    infer_coerce_tuple(I, slot, to);
    return;
  }
  if (!type_is_numeric(e->ty) || !type_is_numeric(to)) return;
  Expr *c = ast_new_expr(&I->c->arena, EX_CAST, e->loc);
  c->ty = to;
  c->kids = arena_alloc(&I->c->arena, sizeof(Expr *));
  c->kids[0] = e;
  c->nkids = 1;
  *slot = c;
}

bool check_truthy(Infer *I, Expr *e, const Type *t) {
  if (type_is_numeric(t)) return true;
  TERR(I, e->loc, "E-truth", "a value of type %s cannot be used as a condition", t->name);
  return false;
}

/* ---- literals and names ---- */

/* The type of a literal or of a module constant's value; the elements of a constant tuple get
 * their types too, since codegen writes them one by one. */
static const Type *literal_type(Infer *I, Expr *e) {
  switch (e->kind) {
  case EX_INT: return e->is_unsigned_literal ? &type_uint64 : &type_int64;
  case EX_FLOAT: return &type_float64;
  case EX_IMAG: return &type_complex128;
  case EX_BOOL: return &type_bool;
  case EX_TUPLE: {
    const Type *elems[256];
    for (int i = 0; i < e->nkids && i < 256; i++) elems[i] = e->kids[i]->ty = literal_type(I, e->kids[i]);
    return e->ty = type_tuple(I->tt, elems, e->nkids);
  }
  default: return NULL;
  }
}

static const Type *infer_var(Infer *I, Expr *e) {
  const Var *v = &I->fn->vars[e->var];
  if (!v->ty && !v->poisoned) TERR(I, e->loc, "E-unbound", "'%s' has no type here (its first assignment failed or comes later)", v->name);
  return v->ty;
}

static const Type *infer_builtin_value(Infer *I, Expr *e) {
  const Builtin *b = e->builtin;
  if (b->kind == BK_VALUE) return b->result;
  if (b->kind == BK_TYPE && b->result != &type_void) return type_dtype(I->tt, b->result);
  if (b->kind == BK_FUNC || b->kind == BK_OPERATOR)
    TERR(I, e->loc, "E-not-value", "'%s' is a function: it can be called, or passed to a device "
         "function as an argument, but not used as a value here", builtin_display_name(b));
  else
    TERR(I, e->loc, "E-not-value", "'%s' cannot be used as a value", builtin_display_name(b));
  return NULL;
}

/* The name of the function e is (a device function, or a builtin function such as
 * cuda.atomic.add or operator.add), or NULL when e is not one. */
const char *infer_function_name(const Expr *e) {
  if (e->kind == EX_FUNC) return e->func->name;
  if (e->kind == EX_BUILTIN && (e->builtin->kind == BK_FUNC || e->builtin->kind == BK_OPERATOR))
    return builtin_display_name(e->builtin);
  return NULL;
}

/* ---- operators ---- */

/* Types the children into out[]; returns out[0] (or, with no children, void) when all are
 * known, else NULL. */
static const Type *infer_kids(Infer *I, Expr *e, const Type **out) {
  bool known = true;
  const Type *first = &type_void;
  for (int i = 0; i < e->nkids; i++) {
    out[i] = infer_expr(I, e->kids[i]);
    if (!out[i]) known = false;
    if (i == 0) first = out[0];
  }
  return known ? first : NULL;
}

/* An operator or comparison with a character sequence or a bytes literal on either side: Numba
 * types them (through its CPU implementations) but its CUDA target cannot lower them, so they are
 * refused by name. Returns true when it reported. */
static bool charseq_operand(Infer *I, const Expr *e, Op op, const Type *a, const Type *b) {
  const Type *cs = a->kind == TY_CHARSEQ ? a : b && b->kind == TY_CHARSEQ ? b : NULL;
  if (!cs && a->kind != TY_BYTES && (!b || b->kind != TY_BYTES)) return false;
  TERR(I, e->loc, "E-unsupported", "'%s' on %s is not supported: Numba's CUDA target stores and copies "
       "character sequences, but cannot compare them or compute with them", op_python_spelling(op),
       cs ? "a character sequence" : "a bytes literal");
  return true;
}

static bool require_numbers(Infer *I, Expr *e, const Type *a, const Type *b) {
  if (type_is_number(a) && (!b || type_is_number(b))) return true;
  if (charseq_operand(I, e, e->op, a, b)) return false;
  if (b)
    TERR(I, e->loc, "E-operand", "unsupported operand types for %s: %s and %s",
         op_python_spelling(e->op), a->name, b->name);
  else
    TERR(I, e->loc, "E-operand", "unsupported operand type for unary %s: %s",
         op_python_spelling(e->op), a->name);
  return false;
}

/* The type a binary operator computes in (operands are cast to it) and its result type. */
static const Type *binary_operand_type(Infer *I, Expr *e, const Type *a, const Type *b) {
  bool ints = a->kind != TY_FLOAT && b->kind != TY_FLOAT;
  switch (e->op) {
  case OP_DIV: return ints ? &type_float64 : type_arith(a, b);
  case OP_LSHIFT:
  case OP_RSHIFT:
  case OP_BITAND:
  case OP_BITOR:
  case OP_BITXOR:
    if (!ints) {
      TERR(I, e->loc, "E-operand", "unsupported operand types for %s: %s and %s",
           op_python_spelling(e->op), a->name, b->name);
      return NULL;
    }
    if (a->kind == TY_BOOL && b->kind == TY_BOOL && e->op >= OP_BITAND) return &type_bool;
    /* Numba's BitwiseShiftOperation: only the left operand's signedness counts (uint64 >> 1 is
     * a logical shift giving a uint64); both are cast to that type. */
    if (e->op == OP_LSHIFT || e->op == OP_RSHIFT) return type_int_result(a, a);
    return type_int_result(a, b);
  default: return type_arith(a, b);
  }
}

static const Type *infer_binary(Infer *I, Expr *e) {
  const Type *t[2];
  if (!infer_kids(I, e, t) || !t[1]) return NULL;
  if (e->op == OP_ADD && t[0]->kind == TY_TUPLE && t[1]->kind == TY_TUPLE)
    return infer_tuple_concat(I, e, t[0], t[1]);
  if (type_is_time(t[0]) || type_is_time(t[1])) return infer_time_binary(I, e, t[0], t[1]);
  if (type_is_complex(t[0]) || type_is_complex(t[1])) return infer_complex_binary(I, e, t[0], t[1]);
  if (type_is_half(t[0]) || type_is_half(t[1])) {   /* float16, or the type it promotes to */
    const Type *h = infer_half_binary(I, e, &t[0], &t[1]);
    if (!h || h->kind == TY_HALF) return h;
  }
  if (!require_numbers(I, e, t[0], t[1])) return NULL;
  if (e->op == OP_POW && t[0]->kind == TY_FLOAT && t[1]->kind != TY_FLOAT) {
    /* float ** int keeps the float's type and multiplies (Numba's BinOpPower cases). */
    infer_coerce(I, &e->kids[1], &type_int64);
    return t[0];
  }
  const Type *ty = binary_operand_type(I, e, t[0], t[1]);
  infer_coerce(I, &e->kids[0], ty);
  infer_coerce(I, &e->kids[1], ty);
  return ty;
}

/* -x and ~x of an integer narrower than 64 bits: Numba negates or inverts at the operand's
 * width, then widens the result (int_negate_impl, int_invert_impl: -uint8(1) is 255 as a uint64,
 * -int32(-2**31) stays -2**31). e, already computing in the 64-bit result type, becomes that
 * result cast to the operand's type and back: the low bits are the operand width's result. e's
 * node turns into the outer cast in place (its parent holds it); inferring it again finds the
 * inner node's operand already 64 bits wide and changes nothing. */
static void at_operand_width(Infer *I, Expr *e, const Type *t) {
  Expr *op = arena_dup(&I->c->arena, e, sizeof *e);
  Expr **inner = arena_alloc(&I->c->arena, sizeof(Expr *));
  *inner = op;
  op->ty = type_int_result(t, t);
  infer_coerce(I, inner, t);
  e->kind = EX_CAST;
  e->kids = arena_alloc(&I->c->arena, sizeof(Expr *));
  e->kids[0] = *inner;
  e->nkids = 1;
}

static const Type *infer_unary(Infer *I, Expr *e) {
  const Type *t = infer_expr(I, e->kids[0]);
  if (t && type_is_complex(t)) return infer_complex_unary(I, e, t);
  if (t && type_is_half(t)) return infer_half_unary(I, e, t);
  if (t && type_is_time(t)) return infer_time_unary(I, e, t);
  if (!t || !require_numbers(I, e, t, NULL)) return NULL;
  if (e->op == OP_INVERT && t->kind == TY_FLOAT) {
    TERR(I, e->loc, "E-operand", "unsupported operand type for unary ~: %s", t->name);
    return NULL;
  }
  if (e->op == OP_INVERT && t->kind == TY_BOOL) {   /* Numba's BitwiseInvert: logical not, a bool */
    e->kind = EX_NOT;
    return &type_bool;
  }
  const Type *ty = t->kind == TY_FLOAT ? t : type_int_result(t, t);
  infer_coerce(I, &e->kids[0], ty);
  if (I->final && t->kind == TY_INT && t->bits < 64 && e->op != OP_POS) at_operand_width(I, e, t);
  return ty;
}

/* Members of one Enum class compare with == and != (by value: aliases are one member), as
 * Numba's EnumCompare allows; anything else with an Enum member is an error. */
static bool enum_compare_ok(Infer *I, Expr *e, Op op, const Type *a, const Type *b) {
  if (a == b && (op == OP_EQ || op == OP_NE)) return true;
  TERR(I, e->loc, "E-operand", "unsupported operand types for %s: %s and %s (enum members compare "
       "with == and != to members of their own class)", op_python_spelling(op), a->name, b->name);
  return false;
}

/* a is b, a is not b: codegen decides them by type_identity; records and character sequences
 * are refused. */
static bool identity_compare_ok(Infer *I, Expr *e, Op op, const Type *a, const Type *b) {
  if (type_identity(a, b) != ID_UNSUPPORTED) return true;
  TERR(I, e->loc, "E-operand", "'%s' of two %s is not supported (%s)", op_python_spelling(op), a->name,
       a->kind == TY_RECORD ? "records have no identity in Numba"
       : "Numba's CUDA target has no `is` for character sequences");
  return false;
}

static bool pair_compare_ok(Infer *I, Expr *e, Op op, const Type *a, const Type *b);

/* Tuples compare as Numba compares them (numba/cpython/tupleobj.py): the elements of each
 * position in turn, each pair by the rules of its types; tuples of two lengths are unequal, and
 * order by their length once the shorter one's elements are equal. */
static bool tuple_compare_ok(Infer *I, Expr *e, Op op, const Type *a, const Type *b) {
  if (a->kind != TY_TUPLE || b->kind != TY_TUPLE) {
    TERR(I, e->loc, "E-operand", "unsupported operand types for %s: %s and %s", op_python_spelling(op),
         a->name, b->name);
    return false;
  }
  for (int k = 0; k < a->nelems && k < b->nelems; k++)
    if (!pair_compare_ok(I, e, op, a->elems[k], b->elems[k])) return false;
  return true;
}

/* x in t, x not in t, as Numba's contains takes them: t a tuple of one element type (none for
 * the empty tuple) whose elements compare with x by ==, or an array of numbers and a number x
 * (a whole array's elements, walked at run time). */
static bool membership_ok(Infer *I, Expr *e, Op op, const Type *x, const Type *t) {
  if (t->kind == TY_TUPLE && (t->nelems == 0 || type_tuple_uniform(t)))
    return t->nelems == 0 || pair_compare_ok(I, e, OP_EQ, x, t->elems[0]);
  if (t->kind == TY_ARRAY && type_is_numeric(t->dtype) && type_is_numeric(x))
    return pair_compare_ok(I, e, OP_EQ, x, t->dtype);
  TERR(I, e->loc, "E-operand", "'x %s t' with x %s and t %s is not supported (as in Numba, t is a tuple of "
       "one element type, or an array of numbers and x a number)", op_python_spelling(op), x->name, t->name);
  return false;
}

/* One comparison of a chain, `a op b`. */
static bool pair_compare_ok(Infer *I, Expr *e, Op op, const Type *a, const Type *b) {
  if (op == OP_IS || op == OP_IS_NOT) return identity_compare_ok(I, e, op, a, b);
  if (op == OP_IN || op == OP_NOT_IN) return membership_ok(I, e, op, a, b);
  if (a->kind == TY_TUPLE || b->kind == TY_TUPLE) return tuple_compare_ok(I, e, op, a, b);
  if (type_is_complex(a) || type_is_complex(b)) return complex_compare_ok(I, e, op, a, b);
  if (type_is_fp8(a) || type_is_fp8(b)) {
    TERR(I, e->loc, "E-operand", "'%s' of %s and %s: the fp8 types have no comparisons (convert with "
         "float32(x) first)", op_python_spelling(op), a->name, b->name);
    return false;
  }
  if ((type_is_bf16(a) || type_is_bf16(b)) && a != b) {   /* numba-cuda: bfloat16 with bfloat16 */
    TERR(I, e->loc, "E-operand", "'%s' of %s and %s: bfloat16 compares with bfloat16 only "
         "(convert the other operand with bfloat16(x))", op_python_spelling(op), a->name, b->name);
    return false;
  }
  if ((type_is_half(a) || type_is_half(b)) && type_is_numeric(a) && type_is_numeric(b))
    return true;   /* compared in their promoted type */
  if (type_is_time(a) || type_is_time(b)) return time_compare_ok(I, e, op, a, b);
  if (a->kind == TY_ENUM || b->kind == TY_ENUM) return enum_compare_ok(I, e, op, a, b);
  if (type_is_number(a) && type_is_number(b)) return true;
  if (charseq_operand(I, e, op, a, b)) return false;
  TERR(I, e->loc, "E-operand", "unsupported operand types for %s: %s and %s", op_python_spelling(op),
       a->name, b->name);
  return false;
}

/* "1" == "1": string literals (a device function's parameter given one, static_args.c) compare
 * at compile time, as Numba compares its literal strings; the comparison becomes its result. */
static bool fold_string_compare(Expr *e) {
  if (e->nkids != 2 || e->kids[0]->kind != EX_STR || e->kids[1]->kind != EX_STR) return false;
  if (e->cmps[0] != OP_EQ && e->cmps[0] != OP_NE) return false;
  const Expr *a = e->kids[0], *b = e->kids[1];
  bool equal = a->is_bytes == b->is_bytes && a->str_len == b->str_len && memcmp(a->str, b->str, a->str_len) == 0;
  e->kind = EX_BOOL;
  e->ival = equal == (e->cmps[0] == OP_EQ);
  e->nkids = 0;
  return true;
}

static const Type *infer_compare(Infer *I, Expr *e) {
  if (fold_string_compare(e)) return &type_bool;
  const Type *t[64];
  if (!infer_kids(I, e, t)) return NULL;
  for (int i = 0; i + 1 < e->nkids; i++)
    if (!t[i + 1] || !pair_compare_ok(I, e, e->cmps[i], t[i], t[i + 1])) return NULL;
  /* Each comparison computes in its own common type; codegen casts per pair. */
  return &type_bool;
}

/* `a and b`, `a or b` yield an operand: their types unify. */
static const Type *infer_boolop(Infer *I, Expr *e) {
  const Type *t[256];   /* the frontend allows at most 256 operands */
  const Type *u = infer_kids(I, e, t);   /* the first operand's type */
  if (!u) return NULL;
  for (int i = 0; i < e->nkids; i++) {
    if (!t[i] || !check_truthy(I, e->kids[i], t[i])) return NULL;
    if (i && !(u = type_unify(I->tt, u, t[i]))) {
      TERR(I, e->loc, "E-unify", "operands of '%s' have types %s and %s that do not unify",
           op_python_spelling(e->op), t[0]->name, t[i]->name);
      return NULL;
    }
  }
  for (int i = 0; i < e->nkids; i++) infer_coerce(I, &e->kids[i], u);
  return u;
}

static const Type *infer_ifexp(Infer *I, Expr *e) {
  const char *fa = infer_function_name(e->kids[1]), *fb = infer_function_name(e->kids[2]);
  if (fa || fb) {
    TERR(I, e->loc, "E-func-value", "choosing a function at run time ('%s' or '%s') is not supported: "
         "call each in an if statement, or pass one to a device function", fa ? fa : "a value",
         fb ? fb : "a value");
    return NULL;
  }
  const Type *t[3];
  if (!infer_kids(I, e, t) || !t[1] || !t[2]) return NULL;
  check_truthy(I, e->kids[0], t[0]);
  const Type *u = type_unify(I->tt, t[1], t[2]);
  if (!u) {
    TERR(I, e->loc, "E-unify", "the branches of a conditional expression have types %s and %s",
         t[1]->name, t[2]->name);
    return NULL;
  }
  infer_coerce(I, &e->kids[1], u);
  infer_coerce(I, &e->kids[2], u);
  return u;
}

/* ---- indexing and attributes ---- */

/* r.b of a record: the field's type (a nested array field is a fixed-shape array inside the
 * record). */
static const Type *infer_field(Infer *I, Expr *e, const Type *r) {
  const RecordField *f = type_record_field(r, e->str);
  if (f) return f->type;
  TERR(I, e->loc, "E-attribute", "the record has no field '%s' (%s)", e->str, r->name);
  return NULL;
}

const Type *infer_attr(Infer *I, Expr *e) {
  const Type *t = infer_expr(I, e->kids[0]);
  if (!t) return NULL;
  if (t->kind == TY_RECORD) return infer_field(I, e, t);
  if (t->kind == TY_ENUM && strcmp(e->str, "value") == 0) return t->dtype;
  if (t->kind == TY_TUPLE && t->tuple_class) return infer_tuple_field(I, e, t);
  if (t->kind == TY_VECTOR) return infer_vector_lane(I, e, t);
  if (t->kind == TY_ARRAY) {
    if (strcmp(e->str, "shape") == 0) return type_uniform_tuple(I->tt, &type_int64, t->ndim);
    if (strcmp(e->str, "size") == 0 || strcmp(e->str, "ndim") == 0) return &type_int64;
    if (strcmp(e->str, "dtype") == 0) return type_dtype(I->tt, t->dtype);   /* a dtype argument */
    if (strcmp(e->str, "real") == 0 || strcmp(e->str, "imag") == 0) return infer_array_part(I, e, t);
  } else if (strcmp(e->str, "real") == 0 || strcmp(e->str, "imag") == 0) {
    return infer_numeric_attr(I, e, t);
  }
  TERR(I, e->loc, "E-attribute", "%s has no supported attribute '%s'", t->name, e->str);
  return NULL;
}

/* ---- calls ---- */

bool infer_check_arity(Infer *I, Expr *e, int lo, int hi) {
  const char *name = builtin_display_name(e->builtin);
  int n = e->nkids - 1;
  if (n >= lo && n <= hi) return true;
  if (lo == hi) TERR(I, e->loc, "E-arity", "%s() takes %d argument%s, got %d", name, lo, lo == 1 ? "" : "s", n);
  else TERR(I, e->loc, "E-arity", "%s() takes %d to %d arguments, got %d", name, lo, hi, n);
  return false;
}

static bool no_keywords(Infer *I, Expr *e, const char *name) {
  if (e->nkeywords == 0) return true;
  TERR(I, e->keywords[0].loc, "E-keyword", "%s() does not take keyword arguments", name);
  return false;
}

/* An integer known at compile time: literals and module constants combined with + - * and //
 * (without overflow). */
static bool const_int(const Expr *e, int64_t *out) {
  int64_t a, b;
  if (e->kind == EX_CAST) e = e->kids[0];
  if (e->kind == EX_INT) return !e->is_unsigned_literal && (*out = e->ival, true);
  if (e->kind == EX_CONST && e->konst->value->kind == EX_INT) return *out = e->konst->value->ival, true;
  if (e->kind == EX_UNARY && e->op == OP_NEG && const_int(e->kids[0], &a))
    return a != INT64_MIN && (*out = -a, true);
  if (e->kind != EX_BINARY || !const_int(e->kids[0], &a) || !const_int(e->kids[1], &b)) return false;
  switch (e->op) {
  case OP_ADD: return !__builtin_add_overflow(a, b, out);
  case OP_SUB: return !__builtin_sub_overflow(a, b, out);
  case OP_MUL: return !__builtin_mul_overflow(a, b, out);
  case OP_FLOORDIV:
    if (b == 0 || (a == INT64_MIN && b == -1)) return false;
    *out = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
    return true;
  default: return false;
  }
}

bool infer_const_int(const Expr *e, int64_t *out) { return const_int(e, out); }

/* cuda.grid(n), cuda.gridsize(n) */
const Type *infer_grid_call(Infer *I, Expr *e, const Type **t) {
  const char *name = builtin_display_name(e->builtin);
  int64_t n;
  (void)t;
  if (!const_int(e->kids[1], &n) || n < 1 || n > 3) {
    TERR(I, e->kids[1]->loc, "E-grid", "%s() takes a constant 1, 2 or 3", name);
    return NULL;
  }
  e->ival = n;
  return n == 1 ? &type_int64 : type_uniform_tuple(I->tt, &type_int64, (int)n);
}

static const Expr *keyword(const Expr *e, const char *name) {
  for (int i = 0; i < e->nkeywords; i++)
    if (strcmp(e->keywords[i].name, name) == 0) return e->keywords[i].value;
  return NULL;
}

/* The shape argument of shared.array / local.array: an int or a tuple of ints, constant. */
static int const_shape(const Expr *e, int64_t *dims) {
  const Expr *v = e->kind == EX_CONST ? e->konst->value : e;
  if (v->kind != EX_TUPLE) return const_int(v, &dims[0]) ? 1 : -1;
  if (v->nkids < 1 || v->nkids > P2C_MAX_NDIM) return -1;
  for (int i = 0; i < v->nkids; i++)
    if (!const_int(v->kids[i], &dims[i])) return -1;
  return v->nkids;
}

const Type *typeinfer_record_dtype(TypeTable *tt, const RecordDtype *r, const char **why) {
  RecordField *fields = arena_alloc(tt->arena, sizeof *fields * (size_t)r->nfields);
  for (int i = 0; i < r->nfields; i++) {
    const RecordDtypeField *f = &r->fields[i];
    const Type *t = !f->scalar ? type_charseq(tt, f->unicode, f->chars)
                    : f->ndim ? type_array(tt, f->scalar, f->ndim, 'C', MEM_GLOBAL, f->shape) : f->scalar;
    fields[i] = (RecordField){f->name, t, f->offset};
  }
  *why = record_layout_error(tt->arena, fields, r->nfields, r->size);
  return *why ? NULL : type_record(tt, fields, r->nfields, r->size, r->aligned);
}

/* The record type of module constant k, a record dtype; NULL after an error at `at` (which the
 * frontend's own check of the layout, lower_record.c, leaves for nothing but a broken invariant). */
static const Type *record_dtype_of(Compilation *report, TypeTable *tt, const Const *k, Loc at) {
  const char *why;
  const Type *t = typeinfer_record_dtype(tt, k->record, &why);
  if (!t && report)
    diag_error(report, at, "E-dtype", "record dtype '%s' is not supported: %s", k->name, why);
  return t;
}

const Type *typeinfer_dtype_arg(Compilation *report, TypeTable *tt, const Expr *e, const Expr *d) {
  if (d && d->kind == EX_BUILTIN && d->builtin->kind == BK_TYPE && d->builtin->result != &type_void)
    return d->builtin->result;
  if (d && d->kind == EX_CONST && d->konst->record) return record_dtype_of(report, tt, d->konst, d->loc);
  if (d && d->ty && d->ty->kind == TY_DTYPE && d->ty->dtype) return d->ty->dtype;   /* a.dtype, typed */
  if (d && d->kind == EX_STR) {
    const Type *t = type_scalar_by_name(d->str);
    if (t) return t;
    /* a string that is no NumPy dtype at all, in Numba's words (its tests match them) */
    P2cScalarType scalar;
    bool swap, unicode;
    int64_t chars;
    if (type_dtype_parse(d->str, strlen(d->str), &scalar, &swap) == DTYPE_UNKNOWN &&
        !type_charseq_parse(d->str, strlen(d->str), &unicode, &chars)) {
      if (report) diag_error(report, d->loc, "E-dtype", "Invalid NumPy dtype specified: '%s' (a dtype is "
                             "a type such as numba.float32 or np.int32, or its name: 'float32')", d->str);
      return NULL;
    }
  }
  if (report) diag_error(report, d ? d->loc : e->loc, "E-dtype", "expected a dtype such as numba.float32 or np.int32");
  return NULL;
}

enum { MAX_STATIC_SHARED = 48 * 1024, MAX_LOCAL = 512 * 1024 };

/* Whether an array of nd dims of dtype fits space's limit: each extent positive and within 32
 * bits, the byte count computed without overflow. */
static bool alloc_fits(const Type *dtype, const int64_t *dims, int nd, MemSpace space) {
  uint64_t bytes = (uint64_t)dtype->bits / 8;
  for (int i = 0; i < nd; i++) {
    if (dims[i] <= 0 || (uint64_t)dims[i] > UINT32_MAX || bytes * (uint64_t)dims[i] / (uint64_t)dims[i] != bytes ||
        (bytes *= (uint64_t)dims[i]) > (space == MEM_SHARED ? MAX_STATIC_SHARED : MAX_LOCAL))
      return false;
  }
  return true;
}

/* alignment= of shared.array / local.array, numba-cuda's rule (its _validate_alignment): a
 * constant integer, positive, a power of two and a multiple of the size of a pointer (8); and
 * at most 2**28, beyond which the simulator's host compiler refuses it. */
static bool alloc_alignment(Compilation *report, const char *name, const Expr *a, int64_t *align) {
  *align = 0;
  if (!a) return true;
  const char *why = NULL;
  if (!const_int(a, align)) why = "must be a constant integer";
  else if (*align <= 0) why = "must be positive";
  else if (*align & (*align - 1)) why = "must be a power of 2";
  else if (*align % 8) why = "must be a multiple of 8 (the size of a pointer)";
  else if (*align > ((int64_t)1 << 28)) why = "must be at most 2**28 (the largest an ELF object file holds)";
  if (why && report) diag_error(report, a->loc, "E-alignment", "%s(): alignment %s", name, why);
  return !why;
}

/* The arguments shared.array / local.array take: (shape, dtype, alignment), by position or by
 * name; anything else is refused rather than ignored. */
static bool alloc_arguments_known(Compilation *report, const char *name, const Expr *e) {
  if (e->nkids - 1 > 3) {
    if (report) diag_error(report, e->loc, "E-arity", "%s() takes at most 3 arguments (shape, dtype, alignment), got %d",
                           name, e->nkids - 1);
    return false;
  }
  for (int i = 0; i < e->nkeywords; i++) {
    const char *k = e->keywords[i].name;
    if (strcmp(k, "shape") != 0 && strcmp(k, "dtype") != 0 && strcmp(k, "alignment") != 0) {
      if (report) diag_error(report, e->keywords[i].value->loc, "E-keyword",
                             "%s() got an unexpected keyword argument '%s' (it takes shape, dtype and alignment)", name, k);
      return false;
    }
  }
  return true;
}

/* Numba's name of the type of argument e, as its "No implementation of function" message shows
 * it: an int literal Literal[int](N), a tuple UniTuple(T x n) or Tuple(...) of its elements', a
 * type class(NAME), else the type typeinfer gave e. False where e has no type (an untyped
 * function's). */
static bool put_numba_arg_type(StrBuf *sb, const Expr *e) {
  if (e->kind == EX_CAST) e = e->kids[0];
  if (e->kind == EX_INT && !e->is_unsigned_literal) {
    sb_printf(sb, "Literal[int](%lld)", (long long)e->ival);
    return true;
  }
  if (e->kind == EX_BUILTIN && e->builtin->kind == BK_TYPE && e->builtin->result != &type_void) {
    sb_printf(sb, "class(%s)", e->builtin->result->name);
    return true;
  }
  if (e->kind != EX_TUPLE) {
    if (e->ty) sb_puts(sb, e->ty->name);
    return e->ty != NULL;
  }
  StrBuf first;   /* a tuple of one type throughout is Numba's UniTuple */
  sb_init(&first, sb->arena);
  bool uniform = e->nkids > 0 && put_numba_arg_type(&first, e->kids[0]);
  StrBuf all;
  sb_init(&all, sb->arena);
  for (int i = 0; i < e->nkids; i++) {
    StrBuf one;
    sb_init(&one, sb->arena);
    if (!put_numba_arg_type(&one, e->kids[i])) return false;
    uniform = uniform && strcmp(sb_str(&one), sb_str(&first)) == 0;
    sb_printf(&all, "%s%s", i ? ", " : "", sb_str(&one));
  }
  if (uniform) sb_printf(sb, "UniTuple(%s x %d)", sb_str(&first), e->nkids);
  else sb_printf(sb, "Tuple(%s)", sb_str(&all));
  return true;
}

/* A shape that is no constant int or tuple of ints: pyk2cuda's reason, then Numba's words ("No
 * implementation of function Function(<function shared.array>) found for signature:\n \n >>>
 * array(shape=float32, dtype=class(float32))", which its tests match, on lines of their own);
 * the reason alone where the arguments have no types (an untyped function's, analysis/untyped.c). */
static void report_bad_shape(Compilation *report, const char *name, const Expr *e, Loc at) {
  StrBuf sig;
  sb_init(&sig, &report->arena);
  bool typed = true;
  for (int i = 1; i < e->nkids && typed; i++) {
    if (i > 1) sb_puts(&sig, ", ");
    typed = put_numba_arg_type(&sig, e->kids[i]);
  }
  for (int i = 0; i < e->nkeywords && typed; i++) {
    sb_printf(&sig, "%s%s=", i || e->nkids > 1 ? ", " : "", e->keywords[i].name);
    typed = put_numba_arg_type(&sig, e->keywords[i].value);
  }
  const char *why = "needs a constant shape (an int or a tuple of ints)";
  if (!typed) {
    diag_error(report, at, "E-shape", "%s() %s", name, why);
    return;
  }
  diag_error(report, at, "E-shape", "%s() %s, as Numba says it: No implementation of function "
             "Function(<function %s>) found for signature:\n \n >>> array(%s)", name, why,
             name + strlen("cuda."), sb_str(&sig));
}

bool typeinfer_array_alloc(Compilation *report, TypeTable *tt, const Expr *e, ArrayAlloc *out) {
  MemSpace space = e->kids[0]->builtin->id == BI_SHARED_ARRAY ? MEM_SHARED : MEM_LOCAL;
  const char *name = space == MEM_SHARED ? "cuda.shared.array" : "cuda.local.array";
  const Expr *shape = e->nkids > 1 ? e->kids[1] : keyword(e, "shape");
  const Expr *dt = e->nkids > 2 ? e->kids[2] : keyword(e, "dtype");
  const Expr *align = e->nkids > 3 ? e->kids[3] : keyword(e, "alignment");
  *out = (ArrayAlloc){.space = space};
  if (!alloc_arguments_known(report, name, e) || !alloc_alignment(report, name, align, &out->align)) return false;
  out->ndim = shape ? const_shape(shape, out->dims) : -1;
  if (out->ndim < 0) {
    if (report) report_bad_shape(report, name, e, shape ? shape->loc : e->loc);
    return false;
  }
  out->dtype = typeinfer_dtype_arg(report, tt, e, dt);
  if (!out->dtype) return false;
  /* cuda.shared.array(0, dtype): dynamic shared memory, sized by the launch (Numba: 1-D only). */
  out->dynamic = space == MEM_SHARED && out->ndim == 1 && out->dims[0] == 0;
  if (out->dynamic || alloc_fits(out->dtype, out->dims, out->ndim, space)) return true;
  if (report) diag_error(report, shape->loc, "E-array-size", "%s() of this shape is too large or empty (the limit is %d bytes)",
                         name, space == MEM_SHARED ? MAX_STATIC_SHARED : MAX_LOCAL);
  return false;
}

/* ---- local constants ----
 * Numba reads a local variable that has one definition, a constant, as that constant where
 * one is needed (`N = 100` then `cuda.shared.array(N, int32)`). */

typedef struct Defs {
  int var, count;
  Expr *value;             /* the one assignment's value */
} Defs;

static void count_defs(Defs *d, const Block *b);

/* Whether assignment target t names d->var (at any depth of a tuple target). */
static bool target_binds(const Expr *t, int var) {
  if (t->kind == EX_VAR) return t->var == var;
  if (t->kind != EX_TUPLE) return false;
  for (int i = 0; i < t->nkids; i++)
    if (target_binds(t->kids[i], var)) return true;
  return false;
}

static void count_stmt_defs(Defs *d, const Stmt *s) {
  switch (s->kind) {
  case ST_ASSIGN:
    for (int i = 0; i < s->ntargets; i++) {
      if (s->targets[i]->kind == EX_VAR && s->targets[i]->var == d->var) d->count++, d->value = s->value;
      else if (target_binds(s->targets[i], d->var)) d->count += 2;   /* unpacked: not one constant */
    }
    break;
  case ST_AUGASSIGN:
  case ST_FOR_ITER:
    for (int i = 0; i < s->ntargets; i++) d->count += 2 * target_binds(s->targets[i], d->var);
    d->count += 2 * (s->kind == ST_FOR_ITER && s->var == d->var);
    break;
  case ST_FOR_RANGE: d->count += 2 * (s->var == d->var); break;
  default: break;
  }
  count_defs(d, &s->body);
  count_defs(d, &s->orelse);
}

static void count_defs(Defs *d, const Block *b) {
  for (int i = 0; i < b->len; i++) count_stmt_defs(d, b->items[i]);
}

/* A copy of the int literal that local variable e (of I->fn) always holds, or e itself. */
static Expr *local_constant(Infer *I, Expr *e) {
  int64_t v;
  if (e->kind != EX_VAR || I->fn->vars[e->var].is_param) return e;
  Defs d = {e->var, 0, NULL};
  count_defs(&d, &I->fn->body);
  if (d.count != 1 || !const_int(d.value, &v)) return e;
  Expr *lit = ast_new_expr(&I->c->arena, EX_INT, e->loc);
  lit->ival = v;
  lit->uval = (uint64_t)v;
  return lit;
}

/* The shape of shared.array / local.array with its local constants read (the AST keeps them:
 * codegen and the later passes see literals). */
static void read_local_constants(Infer *I, Expr *call) {
  Expr **shape = call->nkids > 1 ? &call->kids[1] : NULL;
  for (int i = 0; !shape && i < call->nkeywords; i++)
    if (strcmp(call->keywords[i].name, "shape") == 0) shape = &call->keywords[i].value;
  if (!shape) return;
  *shape = local_constant(I, *shape);
  if ((*shape)->kind == EX_TUPLE)
    for (int i = 0; i < (*shape)->nkids; i++) (*shape)->kids[i] = local_constant(I, (*shape)->kids[i]);
}

/* cuda.shared.array(shape, dtype), cuda.local.array(shape, dtype) */
static const Type *infer_array_alloc(Infer *I, Expr *e) {
  ArrayAlloc a;
  if (e != I->statement_value) {   /* its storage is the declaration of the variable it names */
    TERR(I, e->loc, "E-alloc", "%s() must be assigned to a variable (x = %s(...)) to be used",
         builtin_display_name(e->kids[0]->builtin), builtin_display_name(e->kids[0]->builtin));
    return NULL;
  }
  read_local_constants(I, e);
  if (!typeinfer_array_alloc(I->final ? I->c : NULL, I->tt, e, &a)) return NULL;
  e->ival = a.align;   /* the variable it is assigned to takes it (infer_assign) */
  return type_array(I->tt, a.dtype, a.ndim, 'C', a.space, a.dynamic ? NULL : a.dims);
}

/* cuda.shared.array(shape, dtype) */
const Type *infer_shared_array_call(Infer *I, Expr *e, const Type **t) {
  (void)t;
  return infer_array_alloc(I, e);
}

/* cuda.local.array(shape, dtype) */
const Type *infer_local_array_call(Infer *I, Expr *e, const Type **t) {
  (void)t;
  return infer_array_alloc(I, e);
}

/* Argument k of a math function: a real number (not complex, not float16). */
static bool real_arg(Infer *I, Expr *e, int k, const Type *t) {
  const char *name = builtin_display_name(e->builtin);
  if (type_is_complex(t)) {
    TERR(I, e->kids[k]->loc, "E-operand", "%s() takes real numbers, not %s (cmath has the "
         "complex functions)", name, t->name);
    return false;
  }
  if (type_is_half(t)) {
    const char *variant = type_is_bf16(t) ? e->builtin->cb16 : t == &type_float16 ? e->builtin->c16 : NULL;
    if (variant) return true;
    TERR(I, e->kids[k]->loc, "E-operand", "%s() of %s is not supported (convert with "
         "float(x) first)", name, t->name);
    return false;
  }
  if (type_is_number(t)) return true;
  TERR(I, e->kids[k]->loc, "E-operand", "%s() takes numbers, not %s", name, t->name);
  return false;
}

/* The loop type of a NumPy ufunc call on these element types (builtin_ufunc_loop); where NumPy
 * has none, NULL after an error at `at` that says why. */
static const Type *ufunc_loop_type(Infer *I, const Expr *e, const Type **elems, Loc at) {
  const Builtin *b = e->builtin;
  const Type *loop = builtin_ufunc_loop(b, elems);
  if (loop) return loop;
  const char *name = builtin_display_name(b);
  const Type *p = type_promote(elems[0], elems[b->min_args - 1]);
  if (!p) p = type_is_alone(elems[0]) ? elems[0] : elems[b->min_args - 1];   /* bfloat16, fp8 */
  if (b->id != BI_NP_ELEMENTWISE)
    TERR(I, at, "E-operand", "%s() takes real numbers, not %s", name, p->name);
  else if (b->min_args == 2 && elems[0] != elems[1] && elems[0]->kind == TY_INT && elems[1]->kind == TY_INT)
    TERR(I, at, "E-operand", "%s() takes integers and bools, and %s with %s promote to %s, for "
         "which NumPy has no loop", name, elems[0]->name, elems[1]->name, p->name);
  else
    TERR(I, at, "E-operand", "%s() takes integers and bools, not %s", name, p->name);
  return NULL;
}

/* The element type a ufunc call's elements compute: its loop type, or the row's (bool). */
static const Type *ufunc_result_type(Infer *I, const Expr *e, const Type **elems, Loc at) {
  const Type *loop = ufunc_loop_type(I, e, elems, at);
  return loop && e->builtin->id == BI_NP_ELEMENTWISE && e->builtin->result ? e->builtin->result : loop;
}

/* np.sin(x, out), np.hypot(x, y, out), np.less(x, y, out): a NumPy ufunc on arrays, as Numba
 * compiles one in a kernel, which cannot allocate: the output array is required. Each input is a
 * number or an array of out's dimensions (extents equal or 1, checked at run time); out's
 * elements take the function of the inputs' elements, computed in the ufunc's loop type and
 * stored as NumPy's same_kind casting allows. Its value is out. */
static const Type *infer_ufunc_array_call(Infer *I, Expr *e, const Type **t) {
  const Builtin *b = e->builtin;
  const char *name = builtin_display_name(b);
  int n = b->min_args, nargs = e->nkids - 1;
  if (nargs == n) {
    TERR(I, e->loc, "E-arity", "%s() of an array needs an output array as its last argument "
         "(%s(x%s, out)): a kernel cannot allocate the result", name, name, n == 2 ? ", y" : "");
    return NULL;
  }
  const Type *out = t[nargs];
  if (out->kind != TY_ARRAY || !type_is_numeric(out->dtype) || type_is_half(out->dtype)) {
    TERR(I, e->kids[nargs]->loc, "E-operand", "the output of %s() must be an array of numbers, "
         "not %s", name, out->name);
    return NULL;
  }
  if (out->space == MEM_CONST) {
    TERR(I, e->kids[nargs]->loc, "E-immutable", "a constant array (a module-level NumPy array) cannot be modified");
    return NULL;
  }
  const Type *elems[2];
  for (int i = 1; i <= n; i++) {
    const Type *ti = t[i];
    if (ti->kind == TY_ARRAY && ti->ndim != out->ndim) {
      TERR(I, e->kids[i]->loc, "E-operand", "the arrays of %s() need the output's %d dimension%s, not %d",
           name, out->ndim, out->ndim == 1 ? "" : "s", ti->ndim);
      return NULL;
    }
    elems[i - 1] = ti->kind == TY_ARRAY ? ti->dtype : ti;
    if (!type_is_numeric(elems[i - 1]) || type_is_half(elems[i - 1])) {
      TERR(I, e->kids[i]->loc, "E-operand", "%s() of arrays takes numbers and arrays of them, "
           "not %s", name, ti->name);
      return NULL;
    }
  }
  const Type *r = ufunc_result_type(I, e, elems, e->kids[1]->loc);
  if (!r) return NULL;
  if (!type_can_cast(r, out->dtype, CAST_SAME_KIND)) {
    TERR(I, e->kids[nargs]->loc, "E-operand", "the output of %s() here must be an array that takes "
         "%s values (NumPy's same_kind casting), not %s", name, r->name, out->name);
    return NULL;
  }
  return out;
}

static bool ufunc_on_arrays(const Expr *e, const Type **t) {
  if (!builtin_has(e->builtin, BF_UFUNC)) return false;
  for (int i = 1; i < e->nkids; i++)
    if (t[i]->kind == TY_ARRAY || i > e->builtin->min_args) return true;
  return false;
}

/* math.sqrt(x), math.atan2(y, x), math.floor(x), math.isnan(x) ...: the row's result type
 * (bool, int64) or the float type of the arguments; float16 where the row has a c16 variant.
 * NumPy's ufuncs of complex numbers are their cmath functions (the row's complex_row). */
const Type *infer_math_call(Infer *I, Expr *e, const Type **t) {
  const Builtin *b = e->builtin;
  if (ufunc_on_arrays(e, t)) return infer_ufunc_array_call(I, e, t);
  int n = b->min_args;
  if (b->complex_row && type_is_complex(t[1])) return infer_cmath_call(I, e, t);
  for (int i = 1; i <= n; i++)
    if (!real_arg(I, e, i, t[i])) return NULL;
  if (b->result == &type_bool && t[1]->kind != TY_FLOAT) return &type_bool;
  if (type_is_half(t[1])) return t[1];   /* a c16 (cb16) row: float16 (bfloat16) in and out, floor too */
  const Type *ft = type_math_float(t + 1, n);
  for (int i = 0; i < n; i++) infer_coerce(I, &e->kids[i + 1], ft);
  return b->result ? b->result : ft;
}

/* np.less(x, y), np.logical_not(x), np.bitwise_and(x, y), np.maximum(x, y) ... of numbers: the
 * function in their loop type (NumPy's promotion), giving bool or that type; an int64 and a
 * uint64 compare exactly, each as it is. Of arrays, with an output array: infer_ufunc_array_call. */
const Type *infer_np_elementwise_call(Infer *I, Expr *e, const Type **t) {
  const Builtin *b = e->builtin;
  if (ufunc_on_arrays(e, t)) return infer_ufunc_array_call(I, e, t);
  int n = b->min_args;
  for (int i = 1; i <= n; i++)
    if (!type_is_numeric(t[i]) || type_is_half(t[i])) {
      TERR(I, e->kids[i]->loc, "E-operand", "%s() takes numbers and arrays of them, not %s",
           builtin_display_name(b), t[i]->name);
      return NULL;
    }
  if (b->elementwise == NPE_COMPARE && n == 2 && type_compares_mixed_sign(t[1], t[2])) {
    for (int i = 1; i <= 2; i++) infer_coerce(I, &e->kids[i], t[i]->is_signed ? &type_int64 : &type_uint64);
    return &type_bool;
  }
  const Type *loop = ufunc_loop_type(I, e, t + 1, e->loc);
  if (!loop) return NULL;
  for (int i = 1; i <= n; i++) infer_coerce(I, &e->kids[i], loop);
  return b->result ? b->result : loop;
}

/* math.ldexp(x, i): x * 2**i in x's float type; i is passed as the int32 CUDA's ldexp takes
 * (Numba's two signatures: float64(float64, int32) and float32(float32, int32)). */
const Type *infer_ldexp_call(Infer *I, Expr *e, const Type **t) {
  if (!real_arg(I, e, 1, t[1])) return NULL;
  if (t[2]->kind != TY_INT && t[2]->kind != TY_BOOL) {
    TERR(I, e->kids[2]->loc, "E-operand", "math.ldexp() needs an integer exponent, not %s", t[2]->name);
    return NULL;
  }
  const Type *ft = type_math_float(t + 1, 1);
  infer_coerce(I, &e->kids[1], ft);
  infer_coerce(I, &e->kids[2], &type_int32);
  return ft;
}

/* math.modf(x), math.frexp(x): (fraction, integral part) and (mantissa, exponent), as Numba
 * types them: a float32 argument keeps float32, any other number is float64; frexp's exponent
 * is int32 (the row's result). */
const Type *infer_math_split_call(Infer *I, Expr *e, const Type **t) {
  if (!real_arg(I, e, 1, t[1])) return NULL;
  const Type *ft = type_math_float(t + 1, 1);
  infer_coerce(I, &e->kids[1], ft);
  const Type *elems[2] = {ft, e->builtin->result ? e->builtin->result : ft};
  return type_tuple(I->tt, elems, 2);
}

/* min(a, b, ...), max(a, b, ...) */
const Type *infer_minmax_call(Infer *I, Expr *e, const Type **t) {
  const char *name = builtin_display_name(e->builtin);
  if (e->nkids < 3) {
    TERR(I, e->loc, "E-arity", "%s() of a single iterable is not supported; give two or more values", name);
    return NULL;
  }
  if (type_is_time(t[1]) || type_is_time(t[2])) return infer_time_minmax(I, e, t);
  const Type *u = t[1];
  for (int i = 1; i < e->nkids; i++) {
    if (!type_is_half(t[i]) && !require_numbers(I, e->kids[i], t[i], NULL)) return NULL;
    if (type_is_fp8(t[i])) {
      TERR(I, e->kids[i]->loc, "E-operand", "%s() of %s: the fp8 types have no comparisons (convert "
           "with float32(x) first)", name, t[i]->name);
      return NULL;
    }
    const Type *before = u;
    u = type_promote(u, t[i]);
    if (!u) {
      TERR(I, e->kids[i]->loc, "E-operand", "%s() of %s with %s: convert one first", name, before->name,
           t[i]->name);
      return NULL;
    }
  }
  for (int i = 1; i < e->nkids; i++) infer_coerce(I, &e->kids[i], u);
  return u;
}

/* round(x), round(x, ndigits) */
const Type *infer_round_call(Infer *I, Expr *e, const Type **t) {
  if (!require_numbers(I, e->kids[1], t[1], NULL)) return NULL;
  if (e->nkids == 3) {
    if (t[2]->kind != TY_INT) {
      TERR(I, e->kids[2]->loc, "E-operand", "round() ndigits must be an integer");
      return NULL;
    }
    infer_coerce(I, &e->kids[2], &type_int64);
    return t[1]->kind == TY_FLOAT ? t[1] : &type_int64;
  }
  return &type_int64;
}

/* tuple(t): a tuple is its own tuple (Numba's tuple() of a tuple); of anything else pyk2cuda
 * would need to build one from an iterable, which kernels cannot size. */
const Type *infer_tuple_call(Infer *I, Expr *e, const Type **t) {
  if (t[1]->kind == TY_TUPLE) return t[1];
  TERR(I, e->kids[1]->loc, "E-operand", "tuple() of %s is not supported (of a tuple only)", t[1]->name);
  return NULL;
}

/* len(a) */
const Type *infer_len_call(Infer *I, Expr *e, const Type **t) {
  if (t[1]->kind == TY_ARRAY && t[1]->ndim == 0) {   /* NumPy: "len() of unsized object" */
    TERR(I, e->loc, "E-operand", "len() of a 0-d array (%s), which has no length", t[1]->name);
    return NULL;
  }
  if (t[1]->kind == TY_ARRAY || t[1]->kind == TY_TUPLE) return &type_int64;
  if (t[1]->kind == TY_CHARSEQ) {
    TERR(I, e->loc, "E-unsupported", "len() of a character sequence (%s) is not supported: Numba's CUDA "
         "target cannot lower it", t[1]->name);
    return NULL;
  }
  TERR(I, e->loc, "E-operand", "len() of %s", t[1]->name);
  return NULL;
}

/* The numbers print() writes for a value of type t (a tuple's, nested ones included, each an item
 * of its own, as Numba's CUDA print formats them), or -1 for a type it cannot print. */
static int print_leaves(const Type *t) {
  if (type_is_number(t) || type_is_half(t)) return 1;
  if (t->kind != TY_TUPLE) return -1;
  int n = 0;
  for (int k = 0; k < t->nelems; k++) {
    int m = print_leaves(t->elems[k]);
    if (m < 0) return -1;
    n += m;
  }
  return n;
}

/* print(...) */
const Type *infer_print_call(Infer *I, Expr *e, const Type **t) {
  enum { MAX_TUPLE_PRINT_ITEMS = 32 };   /* CUDA's printf takes 32 arguments */
  int in_tuples = 0;
  bool tuples = false;
  for (int i = 1; i < e->nkids; i++) {
    int n = t[i]->kind == TY_STR ? 0 : print_leaves(t[i]);
    if (n < 0) {
      TERR(I, e->kids[i]->loc, "E-print", "print() of %s is not supported (strings, numbers and "
           "tuples of numbers only)", t[i]->name);
      return NULL;
    }
    in_tuples += n;
    tuples = tuples || t[i]->kind == TY_TUPLE;
  }
  if (tuples && in_tuples > MAX_TUPLE_PRINT_ITEMS) {
    TERR(I, e->loc, "E-print", "print() of tuples holding %d numbers in all: CUDA's printf takes at "
         "most %d", in_tuples, MAX_TUPLE_PRINT_ITEMS);
    return NULL;
  }
  if (e->nkeywords) TERR(I, e->keywords[0].loc, "E-keyword", "print() keywords (sep, end) are not supported");
  return &type_void;
}

/* np.int64(x), np.uint64(x) of a datetime or timedelta: its count, as Numba's cast (integers
 * of other widths are an error there too). */
static const Type *time_cast(Infer *I, Expr *e, const Type *from, const Type *to) {
  if (e->builtin->kind == BK_TYPE && to->kind == TY_INT && to->bits == 64)
    return to;
  TERR(I, e->kids[1]->loc, "E-arg", "%s() of %s is not supported (Numba converts a datetime or "
       "timedelta to a 64-bit integer only: np.int64(x), np.uint64(x))", builtin_display_name(e->builtin),
       from->name);
  return NULL;
}

/* A scalar cast to `to` of the call's one argument: int(x), np.float32(x), abs(x). */
static const Type *cast_to(Infer *I, Expr *e, const Type **t, const Type *to) {
  if (type_is_time(t[1])) return time_cast(I, e, t[1], to);
  if (type_is_complex(t[1]) || type_is_complex(to)) return complex_cast_ok(I, e->kids[1], t[1], to) ? to : NULL;
  if (type_is_half(t[1]) && (type_is_number(to) || type_is_half(to))) return to;
  if (type_is_half(to) && type_is_number(t[1])) return to;
  if (!require_numbers(I, e->kids[1], t[1], NULL)) return NULL;
  return to;
}

/* The value of float(s) for the string literal s as Python computes it, for the strings
 * numba-cuda's kernels give it ("nan", "inf", "-inf", "infinity", any case and sign, blanks
 * around); false for any other string. */
static bool float_of_special(const char *s, size_t len, double *out) {
  while (len && (*s == ' ' || *s == '\t')) s++, len--;
  while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
  double sign = 1;
  if (len && (*s == '+' || *s == '-')) sign = *s == '-' ? -1 : 1, s++, len--;
  if ((len == 3 && strncasecmp(s, "nan", 3) == 0)) *out = copysign(NAN, sign);
  else if ((len == 3 && strncasecmp(s, "inf", 3) == 0) || (len == 8 && strncasecmp(s, "infinity", 8) == 0))
    *out = sign * INFINITY;
  else return false;
  return true;
}

/* int(x), float(x), bool(x), np.float32(x): a cast to the row's type; float() of a float32 or
 * float64 keeps its type, as Numba types it (its real_domain: float(float32) is float32). */
const Type *infer_cast_builtin_call(Infer *I, Expr *e, const Type **t) {
  const Expr *s = e->nkids == 2 ? e->kids[1] : NULL;
  if (e->builtin->result == &type_float64 && e->builtin->kind == BK_FUNC && s && s->kind == EX_STR && !s->is_bytes) {
    double v;   /* float("nan"), float("inf"): the constant, as Numba folds the literal */
    if (!float_of_special(s->str, s->str_len, &v)) {
      TERR(I, s->loc, "E-arg", "float() of a string is supported for 'nan', 'inf' and 'infinity' "
           "(with a sign) only");
      return NULL;
    }
    e->kind = EX_FLOAT;
    e->fval = v;
    e->str = NULL;
    e->nkids = 0;
    e->builtin = NULL;
    return &type_float64;
  }
  const Type *to = e->builtin->result;
  if (e->builtin->id == BI_CAST && to == &type_float64 && t[1]->kind == TY_FLOAT) to = t[1];
  return cast_to(I, e, t, to);
}

/* abs(x): x's own type (bool gives int64, complex its part type). */
const Type *infer_abs_call(Infer *I, Expr *e, const Type **t) {
  if (t[1]->kind == TY_TIMEDELTA) return t[1];
  if (type_is_fp8(t[1])) {
    TERR(I, e->kids[1]->loc, "E-arg", "abs() of %s: the fp8 types have no arithmetic (convert with "
         "float32(x) first)", t[1]->name);
    return NULL;
  }
  if (t[1]->kind == TY_DATETIME) {
    TERR(I, e->kids[1]->loc, "E-arg", "abs() of %s is not supported (abs() takes a timedelta, not a "
         "datetime)", t[1]->name);
    return NULL;
  }
  if (type_is_complex(t[1])) return type_complex_part(t[1]);
  const Type *r = cast_to(I, e, t, t[1]);
  return r && r->kind == TY_BOOL ? &type_int64 : r;
}

/* Calls typed by their row alone: cuda.syncthreads(), cuda.threadfence(), cuda.activemask(). */
const Type *infer_fixed_call(Infer *I, Expr *e, const Type **t) {
  (void)I, (void)t;
  return e->builtin->result;
}

/* isinstance(v, T) of a variable v and a Numba type T (np.float32, numba.int64, bfloat16):
 * whether v's type is T, which is known when the kernel is compiled, as Numba folds it
 * (emit_isinstance_call writes that bool). */
const Type *infer_isinstance_call(Infer *I, Expr *e, const Type **t) {
  if (t[2]->kind != TY_DTYPE) {
    TERR(I, e->kids[2]->loc, "E-arg", "isinstance() takes a Numba type as its second argument "
         "(np.float32, numba.int64, bfloat16), not %s", t[2]->name);
    return NULL;
  }
  if (e->kids[1]->kind != EX_VAR) {
    TERR(I, e->kids[1]->loc, "E-arg", "isinstance() of an expression is not supported (give it a "
         "variable)");
    return NULL;
  }
  return &type_bool;
}

/* range(), enumerate(), zip() anywhere but as a for loop's iterable (infer_iter.c). */
const Type *infer_loop_only_call(Infer *I, Expr *e, const Type **t) {
  (void)t;
  TERR(I, e->loc, "E-range", "%s() is only supported as the iterable of a for loop",
       builtin_display_name(e->builtin));
  return NULL;
}

/* A call of a builtin: its row's hook, after the checks every row asks for. */
static const Type *infer_builtin_call(Infer *I, Expr *e, const Type **t) {
  const Builtin *b = e->builtin;
  if (!b->infer) {
    TERR(I, e->loc, "E-not-callable", "'%s' cannot be called", builtin_display_name(b));
    return NULL;
  }
  /* barriers and warp operations need the simulator's fibers (P2cKernelInfo.uses_barrier) */
  if (b->facts & (BF_BARRIER | BF_COLLECTIVE)) I->fn->uses_barrier = true;
  /* a grid group: the kernel is launched cooperatively (P2cKernelInfo.cooperative) */
  if (b->facts & BF_GRID) I->fn->cooperative = true;
  if (!(b->facts & BF_CHECKS_ARITY) && !infer_check_arity(I, e, b->min_args, b->max_args))
    return NULL;
  return b->infer(I, e, t);
}

/* The checks of a device call that need no types: a device function (not a kernel or a ufunc),
 * no keywords, its parameters' count. */
/* Whether e calls anything (a function or a builtin), which may have effects. */
static bool has_call(const Expr *e) {
  if (e->kind == EX_CALL) return true;
  for (int i = 0; i < e->nkids; i++)
    if (has_call(e->kids[i])) return true;
  return false;
}

/* Keyword arguments are evaluated in the call's order in Python, and in the parameters' order
 * once bound: two given in the other order, one of them with a call, could see each other's
 * effects in the wrong order, so they are refused. pos[k] is keyword k's parameter. */
static bool keyword_order_ok(Infer *I, Expr *e, const Function *g, const int *pos) {
  for (int a = 0; a < e->nkeywords; a++)
    for (int b = a + 1; b < e->nkeywords; b++)
      if (pos[a] > pos[b] && (has_call(e->keywords[a].value) || has_call(e->keywords[b].value))) {
        TERR(I, e->keywords[a].loc, "E-keyword", "%s(): keyword arguments '%s' and '%s' come in another order "
             "than the parameters, and one of them calls a function; pyk2cuda evaluates arguments in the "
             "parameters' order, so give them in that order", g->name, e->keywords[a].name, e->keywords[b].name);
        return false;
      }
  return true;
}

/* f(1, b=2), or f(1) where b has a default: the arguments bound to g's parameters as Python
 * binds them and made positional, defaults (constants) filled in. Done once, in the first pass
 * that sees the call; later passes find it positional. */
static bool bind_call_args(Infer *I, Expr *e, const Function *g) {
  int given = e->nkids - 1, n = g->nparams;
  if (g->vararg ? e->args_bound : e->nkeywords == 0 && given == n) return true;
  Expr *bound[256] = {NULL};
  if (g->vararg) {   /* the extra positional arguments, a tuple: *args */
    int extra = given > n - 1 ? given - (n - 1) : 0;
    Expr *t = ast_new_expr(&I->c->arena, EX_TUPLE, extra ? e->kids[n]->loc : e->loc);
    if (extra) t->kids = arena_dup(&I->c->arena, e->kids + 1 + given - extra, sizeof *t->kids * (size_t)extra);
    t->nkids = extra;
    bound[n - 1] = t;
    given -= extra;
  }
  if (!g->vararg && given + e->nkeywords > n) {   /* with *args, each keyword is checked below */
    TERR(I, e->loc, "E-arity", "%s() takes %d arguments, got %d", g->name, n, given + e->nkeywords);
    return false;
  }
  int pos[256];
  for (int i = 0; i < given; i++) bound[i] = e->kids[i + 1];
  for (int k = 0; k < e->nkeywords; k++) {
    const Keyword *kw = &e->keywords[k];
    int j = 0;
    while (j < n - (g->vararg != 0) && strcmp(g->vars[j].name, kw->name) != 0) j++;
    if (j == n - (g->vararg != 0)) j = n;
    if (j == n) {
      TERR(I, kw->loc, "E-keyword", "%s() got an unexpected keyword argument '%s'", g->name, kw->name);
      return false;
    }
    if (bound[j]) {
      TERR(I, kw->loc, "E-keyword", "%s() got multiple values for argument '%s'", g->name, kw->name);
      return false;
    }
    bound[j] = kw->value;
    pos[k] = j;
  }
  if (!keyword_order_ok(I, e, g, pos)) return false;
  for (int j = 0; j < n; j++) {
    if (bound[j]) continue;
    if (!g->defaults || !g->defaults[j]) {
      TERR(I, e->loc, "E-arity", "%s() missing required argument '%s'", g->name, g->vars[j].name);
      return false;
    }
    bound[j] = ast_clone_expr(&I->c->arena, g->defaults[j]);
  }
  Expr **kids = arena_alloc(&I->c->arena, sizeof *kids * (size_t)(n + 1));
  kids[0] = e->kids[0];
  memcpy(kids + 1, bound, sizeof *kids * (size_t)n);
  e->kids = kids;
  e->nkids = n + 1;
  e->nkeywords = 0;
  e->args_bound = true;
  return true;
}

static bool device_call_ok(Infer *I, Expr *e) {
  Function *g = e->kids[0]->func;
  if (g->kind == FN_KERNEL) {
    TERR(I, e->loc, "E-kernel-call", "kernel '%s' cannot be called from device code (make it "
         "@cuda.jit(device=True))", g->name);
    return false;
  }
  if (g->kind == FN_UFUNC) {
    TERR(I, e->loc, "E-ufunc-call", "ufunc '%s' cannot be called from device code (make its body "
         "a @cuda.jit(device=True) function and call that)", g->name);
    return false;
  }
  return bind_call_args(I, e, g);
}

/* A call of a device function (or of its instance, once static_args.c replaced the arguments
 * that are compile-time values): the specialization for the argument types. */
static const Type *infer_device_call(Infer *I, Expr *e, const Type **t) {
  Function *g = e->kids[0]->func;
  const Type *args[256];
  for (int i = 1; i < e->nkids; i++) {
    args[i - 1] = t[i]->kind == TY_ARRAY ? type_array_as_param(I->tt, t[i]) : t[i];
    if (t[i]->kind == TY_STR || t[i]->kind == TY_BYTES || t[i]->kind == TY_DTYPE) {
      TERR(I, e->kids[i]->loc, "E-arg", "cannot pass a value of type %s to a device function", t[i]->name);
      return NULL;
    }
  }
  bool declared = g->nsigs > 0 && !g->host_jit && !g->instance_of;
  Function *s = declared ? specialize_declared(I, g, args, e->loc) : specialize(I, g, args, e->loc);
  if (!s) return NULL;
  for (int i = 1; declared && i < e->nkids; i++) infer_coerce(I, &e->kids[i], s->arg_types[i - 1]);
  e->func = s;
  if (s->uses_barrier) I->fn->uses_barrier = true;
  if (s->cooperative) I->fn->cooperative = true;
  return s->ret_type;
}

/* f(...) where f is a variable: a parameter that was given a function is replaced by it
 * (static_args.c), so this variable holds a value. */
static const Type *infer_var_call(Infer *I, Expr *e) {
  const Var *v = &I->fn->vars[e->kids[0]->var];
  if (v->poisoned) return NULL;   /* its assignment was refused already */
  TERR(I, e->kids[0]->loc, "E-not-callable", "'%s' is a variable%s%s, not a function: only device "
       "functions, builtins and parameters given a function can be called", v->name,
       v->ty ? " of type " : "", v->ty ? v->ty->name : "");
  return NULL;
}

/* A call of an operator row that the frontend did not write as its operator: f(a, b, c) where
 * parameter f was given operator.add. */
static const Type *infer_operator_call(Infer *I, Expr *e) {
  const Builtin *b = e->kids[0]->builtin;
  e->builtin = b;
  if (no_keywords(I, e, builtin_display_name(b))) infer_check_arity(I, e, b->min_args, b->max_args);
  return NULL;
}

bool infer_can_repeat(const Expr *e) {
  if (e->kind == EX_CALL) {
    const Expr *callee = e->kids[0];
    if (callee->kind == EX_FUNC || (callee->kind == EX_BUILTIN && (callee->builtin->facts & BF_EFFECTS))) return false;
  }
  for (int i = e->kind == EX_CALL ? 1 : 0; i < e->nkids; i++)
    if (!infer_can_repeat(e->kids[i])) return false;
  return true;
}

/* f(a, *t, b): the elements of tuple t become arguments in its place, t[0], t[1], ... (t written
 * once per element: only a value that evaluating again cannot change, as Python evaluates it
 * once). */
static bool expand_unpacked(Infer *I, Expr *e) {
  int at = e->unpack_at;
  Expr *x = e->kids[at];
  const Type *t = infer_expr(I, x);
  if (!t) return false;
  if (t->kind != TY_TUPLE) {
    TERR(I, x->loc, "E-unpack", "only a tuple can be unpacked into arguments, not %s", t->name);
    return false;
  }
  if (!infer_can_repeat(x)) {
    TERR(I, x->loc, "E-unpack", "unpacking a value computed by a device function or with effects is not "
         "supported: assign it to a variable first");
    return false;
  }
  int n = e->nkids - 1 + t->nelems;
  if (n > 255) {
    TERR(I, e->loc, "E-too-many", "a call with more than 255 arguments");
    return false;
  }
  Expr **kids = arena_alloc(&I->c->arena, sizeof *kids * (size_t)n);
  memcpy(kids, e->kids, sizeof *kids * (size_t)at);
  for (int k = 0; k < t->nelems; k++) kids[at + k] = infer_tuple_elem_expr(I, x, k);
  memcpy(kids + at + t->nelems, e->kids + at + 1, sizeof *kids * (size_t)(e->nkids - at - 1));
  e->kids = kids;
  e->nkids = n;
  e->unpack_at = 0;
  return true;
}

static const Type *infer_call(Infer *I, Expr *e) {
  if (e->unpack_at && !expand_unpacked(I, e)) return NULL;
  Expr *callee = e->kids[0];
  if (callee->kind == EX_ATTR) return infer_method_call(I, e);
  if (callee->kind == EX_VAR) return infer_var_call(I, e);
  if (callee->kind == EX_BUILTIN && callee->builtin->kind == BK_OPERATOR) return infer_operator_call(I, e);
  if (callee->kind != EX_BUILTIN && callee->kind != EX_FUNC) {
    TERR(I, callee->loc, "E-not-callable", "only device functions and builtins can be called");
    return NULL;
  }
  if (callee->kind == EX_FUNC && (!device_call_ok(I, e) || !infer_static_args(I, e))) return NULL;
  const Type *t[256];
  t[0] = NULL;
  for (int i = 1; i < e->nkids; i++)
    if (!(t[i] = infer_expr(I, e->kids[i]))) return NULL;
  for (int i = 0; i < e->nkeywords; i++) infer_expr(I, e->keywords[i].value);
  if (callee->kind == EX_FUNC) return infer_device_call(I, e, t);
  e->builtin = callee->builtin;
  if (callee->builtin->kind != BK_FUNC && callee->builtin->kind != BK_TYPE) {
    TERR(I, e->loc, "E-not-callable", "'%s' cannot be called", builtin_display_name(callee->builtin));
    return NULL;
  }
  if (e->nkeywords && !(callee->builtin->facts & BF_KEYWORDS) &&
      !no_keywords(I, e, builtin_display_name(callee->builtin)))
    return NULL;
  return infer_builtin_call(I, e, t);
}

static const Type *infer_expr_kind(Infer *I, Expr *e) {
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT:
  case EX_IMAG:
  case EX_BOOL: return literal_type(I, e);
  case EX_STR: return e->is_bytes ? &type_bytes : &type_str;
  case EX_NONE: return &type_void;   /* Numba's none */
  case EX_VAR: return infer_var(I, e);
  case EX_CONST: {
    if (e->konst->array) return infer_const_array(I, e->konst);
    if (e->konst->captured)   /* writable memory, as Numba's captured device array */
      return type_array(I->tt, e->konst->captured->dtype, e->konst->captured->ndim,
                        e->konst->captured->layout, MEM_GLOBAL, NULL);
    if (e->konst->record) {
      const Type *r = record_dtype_of(I->c, I->tt, e->konst, e->loc);
      return r ? type_dtype(I->tt, r) : NULL;
    }
    const Type *t = e->konst->scalar ? e->konst->scalar : literal_type(I, e->konst->value);
    const EnumClass *ec = e->konst->enum_of;
    return ec && t ? type_enum(I->tt, ec->name, t, ec->is_int) : t;
  }
  case EX_FUNC:
    TERR(I, e->loc, "E-not-value", "function '%s' can only be called, or passed to a device "
         "function as an argument", e->func->name);
    return NULL;
  case EX_BUILTIN: return infer_builtin_value(I, e);
  case EX_UNARY: return infer_unary(I, e);
  case EX_NOT: {
    const Type *t = infer_expr(I, e->kids[0]);
    return t && check_truthy(I, e->kids[0], t) ? &type_bool : NULL;
  }
  case EX_BINARY: return infer_binary(I, e);
  case EX_COMPARE: return infer_compare(I, e);
  case EX_BOOLOP: return infer_boolop(I, e);
  case EX_IFEXP: return infer_ifexp(I, e);
  case EX_CALL: return infer_call(I, e);
  case EX_ATTR: return infer_attr(I, e);
  case EX_INDEX: return infer_subscript(I, e);
  case EX_SLICE: return infer_slice(I, e);
  case EX_TUPLE: return infer_tuple_literal(I, e);
  case EX_CAST: infer_expr(I, e->kids[0]); return e->ty;
  case EX_TEMP: return e->ty;
  }
  return NULL;
}

const Type *infer_expr(Infer *I, Expr *e) {
  const Type *t = infer_expr_kind(I, e);
  e->ty = t;
  return t;
}
