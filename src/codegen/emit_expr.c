/* Emission of expressions as C expressions. Typeinfer made every conversion explicit (EX_CAST),
 * so this file only chooses spellings: Python operators whose C counterpart means something
 * else go through prelude helpers (//, %, **, negative indices, min/max), the rest are C
 * operators, parenthesized by precedence so the output reads like hand-written code. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"

static void open_paren(StrBuf *sb, int p, int prec) {
  if (p < prec) sb_putc(sb, '(');
}

static void close_paren(StrBuf *sb, int p, int prec) {
  if (p < prec) sb_putc(sb, ')');
}

const char *ctype_of(Gen *G, const Type *t) {
  if (t->kind == TY_ENUM) return ctype_of(G, t->dtype);   /* held as its value */
  if (G->c_form && t->kind == TY_ARRAY) return c_form_array_type(G, t);
  if (G->c_form && t->kind != TY_BOOL && t->kind != TY_INT && t->kind != TY_FLOAT && t->kind != TY_VOID &&
      t->kind != TY_TUPLE)
    c_form_refuse(G, "records, complex numbers, float16, character sequences or datetimes");
  if (t->kind == TY_ARRAY) {
    if (t->ndim == 0) type_helper_use(&G->helpers, TH_ARRAY0);
    return arena_printf(G->a, "p2c_array<%s, %d>", t->dtype->cname, t->ndim);
  }
  if (t->kind == TY_TUPLE) return tuple_ctype(G, t);
  if (t->kind == TY_RECORD) return arena_printf(G->a, "%s *", t->cname);   /* a reference, as in Numba */
  return t->cname;
}

/* ---- records ----
 * A record value is a reference to a record in memory, as Numba's data model makes it: a
 * variable, parameter, result or temporary of record type is a pointer; a record read from an
 * array (a[i]) is the element itself. */

/* Whether record-typed e is held as a pointer (rather than being the element in place). */
static bool record_is_pointer(const Expr *e) {
  return e->kind == EX_VAR || e->kind == EX_CALL || e->kind == EX_TEMP;
}

static void emit_node(Gen *G, const Expr *e, StrBuf *sb, int prec);

/* A pointer to the record e denotes: for a variable's value, argument or result. */
void emit_record_ref(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  if (record_is_pointer(e)) {
    emit_node(G, e, sb, prec);
    return;
  }
  open_paren(sb, P_UNARY, prec);
  sb_putc(sb, '&');
  emit_expr(G, e, sb, P_UNARY);
  close_paren(sb, P_UNARY, prec);
}

/* r.b, r['b'], a[i].b: a field of a record (a nested array field is a fixed-shape array, which
 * the caller subscripts). */
static void emit_field(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const Expr *r = e->kids[0];
  const char *member = record_member(G, r->ty, e->str);
  if (record_is_pointer(r)) {
    emit_node(G, r, sb, P_POSTFIX);
    sb_printf(sb, "->%s", member);
  } else {
    emit_expr(G, r, sb, P_POSTFIX);
    sb_printf(sb, ".%s", member);
  }
  (void)prec;   /* a postfix expression needs no parentheses */
}

const char *new_temp(Gen *G, const Type *t) {
  TempDecl d = {ctype_of(G, t), namer_claim_temp(&G->local, "t")};
  vec_push(G->a, &G->temps, d);
  return d.name;
}

/* ---- literals ---- */

void emit_float_digits(StrBuf *sb, double v, bool as_float32) {
  char buf[40];
  for (int prec = as_float32 ? 6 : 15; prec <= (as_float32 ? 9 : 17); prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (as_float32 ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
  }
  sb_puts(sb, buf);
  if (!strpbrk(buf, ".en")) sb_puts(sb, ".0");
  if (as_float32) sb_putc(sb, 'f');
}

static void emit_float_literal(Gen *G, double v, bool as_float32, StrBuf *sb, int prec) {
  if (isinf(v) || isnan(v)) {
    helper_use(&G->helpers, H_INF_NAN);
    bool neg = v < 0;
    open_paren(sb, neg ? P_UNARY : P_POSTFIX, prec);
    sb_puts(sb, as_float32 ? "(float)" : "");
    sb_puts(sb, isnan(v) ? "p2c_nan" : neg ? "-p2c_inf" : "p2c_inf");
    close_paren(sb, neg ? P_UNARY : P_POSTFIX, prec);
    return;
  }
  bool exact32 = (double)(float)v == v;
  int p = (v < 0 || signbit(v)) ? P_UNARY : (as_float32 && !exact32) ? P_UNARY : P_POSTFIX;
  open_paren(sb, p, prec);
  if (as_float32 && !exact32) sb_puts(sb, "(float)");
  emit_float_digits(sb, v, false);
  if (as_float32 && exact32) sb_putc(sb, 'f');
  close_paren(sb, p, prec);
}

/* Whether an int64 literal is written as a C int literal: C types a decimal literal past int
 * `long`, not the prelude's int64_t (`long long`), and `-2147483648` is the negation of such a
 * literal; either would make an overloaded helper's call ambiguous (p2c_mod(long, int)). */
static bool literal_is_c_int(int64_t v) { return v > INT_MIN && v <= INT_MAX; }

static void emit_int_literal(const Expr *e, StrBuf *sb, int prec) {
  if (e->is_unsigned_literal) {
    sb_printf(sb, "%lluULL", (unsigned long long)e->uval);
  } else if (e->ival == INT64_MIN) {
    open_paren(sb, P_ADD, prec);
    sb_puts(sb, "-9223372036854775807LL - 1");
    close_paren(sb, P_ADD, prec);
  } else {
    open_paren(sb, e->ival < 0 ? P_UNARY : P_POSTFIX, prec);
    sb_printf(sb, "%lld%s", (long long)e->ival, literal_is_c_int(e->ival) ? "" : "LL");
    close_paren(sb, e->ival < 0 ? P_UNARY : P_POSTFIX, prec);
  }
}

/* A cast of a literal is written as a literal of the target type where C allows it. */
static bool emit_literal_cast(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const Expr *k = e->kids[0];
  if (k->kind == EX_CONST && k->konst->value->kind != EX_TUPLE && !const_names_itself(k->konst)) k = k->konst->value;
  if (e->ty->kind == TY_FLOAT && (k->kind == EX_INT || k->kind == EX_FLOAT)) {
    double v = k->kind == EX_FLOAT ? k->fval : k->is_unsigned_literal ? (double)k->uval : (double)k->ival;
    if (e->ty == &type_float32 && k->kind == EX_INT) v = (double)(float)v;
    emit_float_literal(G, v, e->ty == &type_float32, sb, prec);
    return true;
  }
  if (e->ty == &type_int64 && k->kind == EX_INT && !k->is_unsigned_literal) {
    emit_int_literal(k, sb, prec);
    return true;
  }
  return false;
}

/* ---- operators ---- */

static int binary_prec(Op op) {
  switch (op) {
  case OP_ADD:
  case OP_SUB: return P_ADD;
  case OP_MUL:
  case OP_DIV: return P_MUL;
  case OP_LSHIFT:
  case OP_RSHIFT: return P_SHIFT;
  case OP_BITAND: return P_BAND;
  case OP_BITXOR: return P_BXOR;
  case OP_BITOR: return P_BOR;
  default: return P_POSTFIX;
  }
}

static const char *c_operator(Op op) {
  switch (op) {
  case OP_ADD: return "+";
  case OP_SUB: return "-";
  case OP_MUL: return "*";
  case OP_DIV: return "/";
  case OP_LSHIFT: return "<<";
  case OP_RSHIFT: return ">>";
  case OP_BITAND: return "&";
  case OP_BITOR: return "|";
  case OP_BITXOR: return "^";
  case OP_LT: return "<";
  case OP_LE: return "<=";
  case OP_GT: return ">";
  case OP_GE: return ">=";
  case OP_EQ: return "==";
  case OP_NE: return "!=";
  default: return "?";
  }
}

/* ---- integer literals that C would compute in `int` ----
 *
 * Python's integer literals are int64 (Numba types `1 << n` and `100000 * 100000` int64), but C
 * gives a literal that fits in `int` that type, and computes an operator on two of them in it:
 * `100000 * 100000` overflows and `1 << n` is undefined from n = 31 on. Where that could happen
 * the left operand is cast to the 64-bit type (`(int64_t)1 << n`); literal arithmetic whose
 * every step fits in `int` (`4 * 32`, the common case) is left as it is written. */

typedef enum CInt {
  CINT_NO,       /* the C text has another type (a variable, a helper's int64_t, a cast) */
  CINT_FITS,     /* C's `int`, and every step of it fits there: the value is known */
  CINT_UNKNOWN,  /* C's `int`, and a step may not fit or the value is not known */
} CInt;

static bool fits_int(int64_t v) { return v >= INT_MIN && v <= INT_MAX; }

static CInt c_int_of(const Expr *e, int64_t *value);

/* Whether the generator widens e, a 64-bit integer operation C would compute in `int`. */
static bool widens_int_operation(const Expr *e, CInt left, CInt right, int64_t a, int64_t b, int64_t *value) {
  if (e->ty->kind != TY_INT || e->ty->bits != 64) return false;
  bool shift = e->op == OP_LSHIFT || e->op == OP_RSHIFT;
  if (!shift && e->op != OP_ADD && e->op != OP_SUB && e->op != OP_MUL) return false;
  /* A shift has its left operand's type; another operator, the wider of the two. */
  if (left == CINT_NO || (!shift && right == CINT_NO)) return false;
  if (left != CINT_FITS || right != CINT_FITS) return true;
  bool overflow;
  switch (e->op) {
  case OP_ADD: overflow = __builtin_add_overflow(a, b, value); break;
  case OP_SUB: overflow = __builtin_sub_overflow(a, b, value); break;
  case OP_MUL: overflow = __builtin_mul_overflow(a, b, value); break;
  case OP_LSHIFT:
    overflow = a < 0 || b < 0 || b > 30 || a > (INT_MAX >> b);
    if (!overflow) *value = a << b;
    break;
  default: /* OP_RSHIFT; C's >> of a negative int is arithmetic on every target NVRTC has */
    overflow = b < 0 || b > 31;
    if (!overflow) *value = a >> b;
    break;
  }
  return overflow || !fits_int(*value);
}

/* Whether e, a // or % of integers known to be >= 0 and > 0, is written as C's / and %, which
 * agree with Python's there. */
static bool plain_int_division(const Expr *e) {
  return e->kids[0]->ty->kind == TY_INT && (e->op == OP_FLOORDIV || e->op == OP_MOD) &&
         (e->kids[0]->facts & EF_NONNEG) && (e->kids[1]->facts & EF_POSITIVE);
}

static CInt c_int_of_binary(const Expr *e, int64_t *value) {
  int64_t a = 0, b = 0;
  CInt left = c_int_of(e->kids[0], &a), right = c_int_of(e->kids[1], &b);
  if (widens_int_operation(e, left, right, a, b, value)) return CINT_NO;
  switch (e->op) {
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_LSHIFT: case OP_RSHIFT:
    /* Not widened: of another type, or both operands fit and widens_int_operation computed *value. */
    if (e->ty->kind != TY_INT || e->ty->bits != 64 || left == CINT_NO || right == CINT_NO) return CINT_NO;
    return CINT_FITS;
  case OP_BITAND: case OP_BITOR: case OP_BITXOR:
    if (left == CINT_NO || right == CINT_NO) return CINT_NO;
    if (left == CINT_UNKNOWN || right == CINT_UNKNOWN) return CINT_UNKNOWN;
    *value = e->op == OP_BITAND ? (a & b) : e->op == OP_BITOR ? (a | b) : (a ^ b);
    return CINT_FITS;
  case OP_FLOORDIV: case OP_MOD:   /* C's / and % of two ints are an int (the prelude's helpers are not) */
    if (!plain_int_division(e) || left == CINT_NO || right == CINT_NO) return CINT_NO;
    if (left == CINT_UNKNOWN || right == CINT_UNKNOWN || b == 0) return CINT_UNKNOWN;
    *value = e->op == OP_FLOORDIV ? a / b : a % b;
    return CINT_FITS;
  default: return CINT_NO;
  }
}

static CInt c_int_of(const Expr *e, int64_t *value) {
  switch (e->kind) {
  case EX_INT:
    if (e->is_unsigned_literal || !literal_is_c_int(e->ival)) return CINT_NO;
    *value = e->ival;
    return CINT_FITS;
  case EX_CAST: /* emit_literal_cast writes a cast of a literal to int64 as the bare literal */
    if (e->ty == &type_int64 && e->kids[0]->kind == EX_INT) return c_int_of(e->kids[0], value);
    return CINT_NO;
  case EX_UNARY: {
    int64_t v = 0;
    CInt k = c_int_of(e->kids[0], &v);
    bool exact = k == CINT_FITS && (e->op != OP_NEG || v != INT_MIN);
    if (exact) *value = e->op == OP_NEG ? -v : e->op == OP_INVERT ? ~v : v;
    /* A negation that may overflow `int` is widened (needs_widening) and so is int64_t. */
    if (e->op == OP_NEG && e->ty->kind == TY_INT && e->ty->bits == 64 && !exact) return CINT_NO;
    return k == CINT_NO ? CINT_NO : exact ? CINT_FITS : CINT_UNKNOWN;
  }
  case EX_BINARY: return c_int_of_binary(e, value);
  case EX_IFEXP: {   /* C's ?: of two ints is an int */
    int64_t v = 0;
    return c_int_of(e->kids[1], &v) == CINT_NO || c_int_of(e->kids[2], &v) == CINT_NO ? CINT_NO : CINT_UNKNOWN;
  }
  case EX_ATTR: {   /* a.ndim, and s.size of a shared or local array, are written as literals */
    if (!expr_is_array_attr(e)) return CINT_NO;
    const Type *t = e->kids[0]->ty;
    int64_t n = 1;
    if (strcmp(e->str, "ndim") == 0) n = t->ndim;
    else if (strcmp(e->str, "size") == 0 && t->fixed_shape)
      for (int k = 0; k < t->ndim; k++) n *= t->fixed_shape[k];   /* bounded by the array's bytes */
    else return CINT_NO;
    *value = n;
    return fits_int(n) ? CINT_FITS : CINT_NO;
  }
  case EX_INDEX: {   /* s.shape[k] of a shared or local array: a literal */
    const Expr *s = e->kids[0];
    if (s->kind != EX_ATTR || !expr_is_array_attr(s) || !s->kids[0]->ty->fixed_shape) return CINT_NO;
    const Type *t = s->kids[0]->ty;
    if (e->kids[1]->kind != EX_INT || e->kids[1]->ival < -t->ndim || e->kids[1]->ival >= t->ndim) return CINT_UNKNOWN;
    *value = t->fixed_shape[(e->kids[1]->ival + t->ndim) % t->ndim];
    return CINT_FITS;
  }
  case EX_CALL: {
    /* abs, min and max of literals alone (`abs(-5)`) are the prelude's templates for int; len()
     * of a tuple or of a shared or local array is a literal */
    const Builtin *b = e->builtin;
    if (b && b->id == BI_LEN) {
      const Type *t = e->kids[1]->ty;
      if (t->kind != TY_TUPLE && !t->fixed_shape) return CINT_NO;
      *value = t->kind == TY_TUPLE ? t->nelems : t->fixed_shape[0];
      return CINT_FITS;
    }
    if (!b || (b->id != BI_ABS && b->id != BI_MIN && b->id != BI_MAX)) return CINT_NO;
    int64_t v = 0;
    for (int i = 1; i < e->nkids; i++)
      if (c_int_of(e->kids[i], &v) == CINT_NO) return CINT_NO;
    return CINT_UNKNOWN;
  }
  default: return CINT_NO;
  }
}

/* Whether e, a 64-bit unary or binary integer operation, has an operand C would compute in
 * `int` where it may not fit. */
static bool needs_widening(const Expr *e) {
  int64_t v = 0;
  if (e->kind == EX_UNARY) {
    return e->op == OP_NEG && c_int_of(e->kids[0], &v) != CINT_NO && c_int_of(e, &v) == CINT_NO;
  }
  int64_t a = 0, b = 0;
  CInt left = c_int_of(e->kids[0], &a), right = c_int_of(e->kids[1], &b);
  return widens_int_operation(e, left, right, a, b, &v);
}

/* An argument of an overloaded prelude helper (p2c_mod, p2c_floordiv, p2c_pow), cast to its type
 * when `cast`. */
static void emit_overload_arg(Gen *G, const Expr *a, bool cast, StrBuf *sb) {
  if (cast) {
    sb_printf(sb, "(%s)", a->ty->cname);
    emit_expr(G, a, sb, P_UNARY);
    return;
  }
  emit_expr(G, a, sb, P_ASSIGN);
}

/* Whether integer expression e, of a 64-bit type, is written as a C expression of that type
 * (int64_t, uint64_t) and not as C's `int`: a variable, an array's element, a record's field, a
 * module constant (a constexpr of its type), a cast of something other than a literal, and an
 * operator on such a value (c_int_of says it is not C's int). Everything else may be written
 * as an `int`: a literal, len(t), a.ndim, s.size and s.shape[k] of a shared array, `x if c
 * else y` of those, and the calls that give one. */
static bool written_as_64_bits(const Expr *e) {
  int64_t v;
  switch (e->kind) {
  case EX_VAR: return true;
  case EX_INDEX: return e->kids[0]->ty->kind == TY_ARRAY;
  case EX_CONST: return e->konst->cname != NULL;
  case EX_CAST: return e->kids[0]->kind != EX_INT;
  case EX_ATTR: return expr_is_field(e);
  case EX_UNARY:
  case EX_BINARY:
  case EX_IFEXP: return c_int_of(e, &v) == CINT_NO;
  default: return false;
  }
}

/* Whether e's C text holds an integer literal of a `long long` type (`LL`, `ULL`), outside a
 * cast: an operator on it has that type, which is not the simulator's int64_t (`long`). */
static bool holds_long_literal(const Expr *e) {
  switch (e->kind) {
  case EX_INT: return e->is_unsigned_literal || !literal_is_c_int(e->ival);
  case EX_UNARY:
  case EX_BINARY:
  case EX_IFEXP:
    for (int i = 0; i < e->nkids; i++)
      if (holds_long_literal(e->kids[i])) return true;
    return false;
  default: return false;
  }
}

/* Whether integer expression e, of a 64-bit type, is written as a C expression of exactly that
 * type under NVRTC and in the simulator, which picks one overload of a helper: written as 64
 * bits, and not through a `long long` literal (`(int64_t)v ^ -9223372036854775807LL - 1` is a
 * `long long` in the simulator, and p2c_floordiv(1, it) was ambiguous: fuzz.py --kind ops,
 * seed 34). */
static bool written_as_its_type(const Expr *e) { return written_as_64_bits(e) && !holds_long_literal(e); }

/* fn(a, b). Two integer arguments that may both be written as C's `int` (integer literals and
 * operators on them, len(t), a.ndim, ...) match no overload of the helper better than another
 * (int64_t, uint64_t, double): they are cast to their type. One argument written as its 64-bit
 * type is enough for C to pick the overload. */
static void emit_call2(Gen *G, const char *fn, const Expr *a, const Expr *b, StrBuf *sb) {
  bool cast = a->ty->kind == TY_INT && b->ty->kind == TY_INT && a->ty->bits == 64 && b->ty->bits == 64 &&
              !written_as_its_type(a) && !written_as_its_type(b);
  sb_printf(sb, "%s(", fn);
  emit_overload_arg(G, a, cast, sb);
  sb_puts(sb, ", ");
  emit_overload_arg(G, b, cast, sb);
  sb_putc(sb, ')');
}

static Helper typed_helper(const Type *t, Helper i64, Helper u64, Helper f64, Helper f32) {
  if (t == &type_float32) return f32;
  if (t->kind == TY_FLOAT) return f64;
  return t->is_signed ? i64 : u64;
}

static void emit_pow(Gen *G, const Expr *e, StrBuf *sb) {
  const Expr *a = e->kids[0], *b = e->kids[1];
  if (e->ty->kind == TY_COMPLEX) {
    emit_complex_pow(G, e, sb);
    return;
  }
  if (e->ty->kind == TY_INT) {
    helper_use(&G->helpers, e->ty->is_signed ? H_POW_I64 : H_POW_U64);
    emit_call2(G, "p2c_pow", a, b, sb);
  } else if (b->ty->kind == TY_INT) {
    helper_use(&G->helpers, e->ty == &type_float32 ? H_POWI_F32 : H_POWI_F64);
    emit_call2(G, "p2c_powi", a, b, sb);
  } else {
    emit_call2(G, e->ty == &type_float32 ? "powf" : "pow", a, b, sb);
  }
}

/* Python's message for a division of this kind by zero ("integer modulo by zero"; in a function
 * with Numba's CPU error model, python_errors, Numba's CPU message), or NULL where the division
 * needs no check: outside debug=True and that model, for complex numbers (Numba does not
 * check them), for a divisor known to be > 0 or a nonzero literal, for a float32 `/` with
 * fastmath=True. An int `/` divides its
 * operands converted to float64; its message is the int's. */
static const char *zero_division_message(const Gen *G, const Expr *e) {
  const Expr *d = e->kids[1];
  if (!(G->fn->debug || G->fn->python_errors) || (e->op != OP_DIV && e->op != OP_FLOORDIV && e->op != OP_MOD)) return NULL;
  if (!type_is_number(d->ty) || (d->facts & EF_POSITIVE)) return NULL;
  if ((d->kind == EX_INT && d->ival != 0) || (d->kind == EX_FLOAT && d->fval != 0)) return NULL;
  const Expr *n = e->kids[0];
  /* fastmath=True: a float32 `/` is Numba's fast division (its maybe_fast_truediv), unchecked */
  if (G->fn->fastmath && e->op == OP_DIV && n->ty == &type_float32 && d->ty == &type_float32) return NULL;
  bool ints = (d->kind == EX_CAST ? d->kids[0] : d)->ty->kind != TY_FLOAT &&
              (n->kind == EX_CAST ? n->kids[0] : n)->ty->kind != TY_FLOAT;
  if (G->fn->python_errors) {   /* Numba's CPU messages (numba/cpython/numbers.py) */
    if (e->op == OP_DIV) return "division by zero";
    if (e->op == OP_FLOORDIV) return ints ? "integer division by zero" : "division by zero";
    return ints ? "integer modulo by zero" : "modulo by zero";
  }
  switch (e->op) {
  case OP_DIV: return ints ? "division by zero" : "float division by zero";
  case OP_FLOORDIV: return ints ? "integer division or modulo by zero" : "float floor division by zero";
  default: return ints ? "integer modulo by zero" : "float modulo";
  }
}

/* e with its divisor checked by p2c_divisor: `p2c_divisor<T>(d, LINE, COLUMN, "...")` in its
 * place, a temporary node that the operator's emitter writes as it is. */
static const Expr *with_checked_divisor(Gen *G, const Expr *e, const char *message) {
  StrBuf d;
  sb_init(&d, G->a);
  helper_use(&G->helpers, H_BOUNDS);
  helper_use(&G->helpers, H_RAISE);
  helper_use(&G->helpers, H_DIVISOR);
  sb_printf(&d, G->c_form ? "p2c_divisor_c(%s, " : "p2c_divisor<%s>(", e->kids[1]->ty->cname);
  emit_expr(G, e->kids[1], &d, P_ASSIGN);
  sb_printf(&d, ", %u, %u, \"ZeroDivisionError: %s\")", e->kids[1]->loc.line, e->kids[1]->loc.col, message);
  Expr *temp = arena_alloc(G->a, sizeof *temp);
  *temp = (Expr){.kind = EX_TEMP, .ty = e->kids[1]->ty, .str = sb_str(&d), .loc = e->kids[1]->loc};
  Expr **kids = arena_alloc(G->a, 2 * sizeof *kids);
  kids[0] = e->kids[0];
  kids[1] = temp;
  Expr *checked = arena_alloc(G->a, sizeof *checked);
  *checked = *e;
  checked->kids = kids;
  return checked;
}

static void emit_binary(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  if (type_is_time(e->kids[0]->ty) || type_is_time(e->kids[1]->ty)) {   /* before the zero check: NaT */
    emit_time_binary(G, e, sb);
    return;
  }
  const char *zero_message = zero_division_message(G, e);
  if (zero_message) e = with_checked_divisor(G, e, zero_message);
  const Type *t = e->kids[0]->ty;
  bool plain = plain_int_division(e);   /* on integers >= 0 and > 0, C's / and % */
  switch (plain ? OP_DIV : e->op) {
  case OP_FLOORDIV:
    helper_use(&G->helpers, typed_helper(t, H_FLOORDIV_I64, H_FLOORDIV_U64, H_FLOORDIV_F64, H_FLOORDIV_F32));
    emit_call2(G, "p2c_floordiv", e->kids[0], e->kids[1], sb);
    return;
  case OP_MOD:
    helper_use(&G->helpers, typed_helper(t, H_MOD_I64, H_MOD_U64, H_MOD_F64, H_MOD_F32));
    emit_call2(G, "p2c_mod", e->kids[0], e->kids[1], sb);
    return;
  case OP_POW: emit_pow(G, e, sb); return;
  default: break;
  }
  int p = plain ? P_MUL : binary_prec(e->op);
  open_paren(sb, p, prec);
  if (needs_widening(e)) {
    sb_printf(sb, "(%s)", e->ty->cname);
    emit_expr(G, e->kids[0], sb, P_UNARY);
  } else {
    emit_expr(G, e->kids[0], sb, p);
  }
  sb_printf(sb, " %s ", plain ? (e->op == OP_MOD ? "%" : "/") : c_operator(e->op));
  emit_expr(G, e->kids[1], sb, p + 1);
  close_paren(sb, p, prec);
}

static void emit_unary(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  if (type_is_time(e->ty)) {
    emit_time_unary(G, e, sb, prec);
    return;
  }
  if (e->op == OP_POS) {
    emit_expr(G, e->kids[0], sb, prec);
    return;
  }
  open_paren(sb, P_UNARY, prec);
  sb_putc(sb, e->op == OP_NEG ? '-' : '~');
  const Expr *k = e->kids[0];
  if (needs_widening(e)) sb_printf(sb, "(%s)", e->ty->cname);
  bool nested = k->kind == EX_UNARY || (k->kind == EX_INT && k->ival < 0) ||
                (k->kind == EX_FLOAT && k->fval < 0);
  size_t start = sb->len;
  emit_expr(G, k, sb, nested ? P_POSTFIX + 1 : P_UNARY);
  /* An operand that still prints with a leading '-' (a cast or constant folded to a negative
   * literal: -numba.int64(-2) gave "--2", C's decrement) is set apart by a space. */
  if (e->op == OP_NEG && sb->len > start && sb->data[start] == '-') {
    sb_putc(sb, ' ');
    memmove(sb->data + start + 1, sb->data + start, sb->len - start - 1);
    sb->data[start] = ' ';
  }
  close_paren(sb, P_UNARY, prec);
}

const Type *compare_type(const Type *a, const Type *b) {
  if (a == b || type_is_time(a)) return a;   /* datetimes: emit_time_compare brings units together */
  if (a->kind == TY_BOOL && b->kind == TY_BOOL) return a;
  /* uint64 with a signed integer: no integer type holds both, so Numba's OrderedCmpOp picks
   * (float64, float64): uint64(2**64-1) > int64(-1), and uint64(2**63) != int64(-2**63). */
  if (type_compares_mixed_sign(a, b)) return &type_float64;
  /* A bool with an integer compares in the integer's type (OrderedCmpOp converts the bool),
   * where arithmetic takes bool as signed: uint64(2**64-3) <= False is False. */
  if (a->kind == TY_BOOL && b->kind == TY_INT) return type_int_result(b, b);
  if (b->kind == TY_BOOL && a->kind == TY_INT) return type_int_result(a, a);
  return type_arith(a, b);
}

/* One comparison of a chain; the operands are written with casts to their common type. */
static void emit_cast_to(Gen *G, const Expr *e, const Type *t, const char *temp, StrBuf *sb, int prec) {
  bool cast = type_plain(e->ty) != type_plain(t);
  if (cast && (t->kind == TY_HALF || e->ty->kind == TY_HALF || t->kind == TY_COMPLEX)) {
    /* conversions a C cast cannot spell */
    Expr held = {.kind = EX_TEMP, .ty = e->ty, .str = temp, .loc = e->loc};
    Expr *kids[1] = {temp ? &held : (Expr *)e};
    Expr conv = {.kind = EX_CAST, .ty = t, .kids = kids, .nkids = 1, .loc = e->loc};
    emit_expr(G, &conv, sb, prec);
    return;
  }
  if (cast) {
    open_paren(sb, P_UNARY, prec);
    sb_printf(sb, "(%s)", t->cname);
  }
  if (temp) sb_puts(sb, temp);
  else emit_expr(G, e, sb, cast ? P_UNARY : prec);
  if (cast) close_paren(sb, P_UNARY, prec);
}

static bool is_simple(const Expr *e);

/* Comparison i of chain e as C writes it: `is` and `is not` of operands that == compares are
 * == and !=; NULL where the outcome is known from the types (*known receives it). */
static const char *pair_operator(const Expr *e, int i, bool *known) {
  Op op = e->cmps[i];
  if (op != OP_IS && op != OP_IS_NOT) return c_operator(op);
  Identity id = type_identity(e->kids[i]->ty, e->kids[i + 1]->ty);
  if (id == ID_BY_EQUALITY) return c_operator(op == OP_IS ? OP_EQ : OP_NE);
  *known = (id == ID_ALWAYS) == (op == OP_IS);
  return NULL;
}

/* Operand i of chain e, or the temporary that holds it. */
static Expr *pair_operand(Gen *G, const Expr *e, int i, const char *const *names) {
  if (!names || !names[i]) return e->kids[i];
  Expr *t = ast_new_expr(G->a, EX_TEMP, e->kids[i]->loc);
  t->ty = e->kids[i]->ty;
  t->str = names[i];
  t->facts = EF_AT_HAND;
  return t;
}

/* e, typed as the value it holds: an Enum member as its value (the same C value). */
static Expr *as_held_value(Gen *G, Expr *e) {
  if (e->ty->kind != TY_ENUM) return e;
  Expr *v = arena_dup(G->a, e, sizeof *e);
  v->ty = e->ty->dtype;
  return v;
}

static Expr *bool_node(Gen *G, ExprKind kind, Loc loc, Expr **kids, int n) {
  Expr *e = ast_new_expr(G->a, kind, loc);
  e->ty = &type_bool;
  e->kids = arena_dup(G->a, kids, sizeof *kids * (size_t)n);
  e->nkids = n;
  return e;
}

static Expr *bool_const(Gen *G, Loc loc, bool v) {
  Expr *e = ast_new_expr(G->a, EX_BOOL, loc);
  e->ty = &type_bool;
  e->ival = v;
  return e;
}

static Expr *compare_node(Gen *G, Op op, Expr *a, Expr *b) {
  Expr *kids[2] = {a, b};
  Expr *c = bool_node(G, EX_COMPARE, a->loc, kids, 2);
  c->cmps = arena_dup(G->a, &op, sizeof op);
  return c;
}

/* a op b of two tuples (pure, or held in temporaries), as Numba compares them (tupleobj.py):
 * == is every position's elements equal, with tuples of two lengths unequal; an ordering is
 * decided by the first position whose elements differ, else by the lengths:
 * a0 != b0 ? a0 < b0 : a1 != b1 ? a1 < b1 : LEN_A < LEN_B. */
static Expr *tuple_comparison(Gen *G, Op op, Expr *a, Expr *b) {
  int n = a->ty->nelems, m = b->ty->nelems, common = n < m ? n : m;
  if (op == OP_EQ || op == OP_NE) {
    Expr *all;
    if (n != m || n == 0) {
      all = bool_const(G, a->loc, n == m);
    } else {
      Expr **eqs = arena_alloc(G->a, sizeof *eqs * (size_t)n);
      for (int k = 0; k < n; k++) eqs[k] = compare_node(G, OP_EQ, tuple_elem_expr(G, a, k), tuple_elem_expr(G, b, k));
      if (n == 1) {
        all = eqs[0];
      } else {
        all = bool_node(G, EX_BOOLOP, a->loc, eqs, n);
        all->op = OP_AND;
      }
    }
    return op == OP_EQ ? all : bool_node(G, EX_NOT, a->loc, &all, 1);
  }
  Expr *r = bool_const(G, a->loc, op == OP_LT ? n < m : op == OP_LE ? n <= m : op == OP_GT ? n > m : n >= m);
  for (int k = common; k-- > 0;) {
    Expr *ak = tuple_elem_expr(G, a, k), *bk = tuple_elem_expr(G, b, k);
    Expr *kids[3] = {compare_node(G, OP_NE, ak, bk), compare_node(G, op, ak, bk), r};
    r = bool_node(G, EX_IFEXP, a->loc, kids, 3);
  }
  return r;
}

/* x in t of a UniTuple t (pure, or held in temporaries): x == t0 || x == t1 || ...; false for
 * the empty tuple. */
static Expr *tuple_membership(Gen *G, Expr *x, Expr *t) {
  int n = t->ty->nelems;
  if (n == 0) return bool_const(G, x->loc, false);
  Expr **eqs = arena_alloc(G->a, sizeof *eqs * (size_t)n);
  for (int k = 0; k < n; k++) eqs[k] = compare_node(G, OP_EQ, x, tuple_elem_expr(G, t, k));
  if (n == 1) return eqs[0];
  Expr *any = bool_node(G, EX_BOOLOP, x->loc, eqs, n);
  any->op = OP_OR;
  return any;
}

/* x in a of an array: p2c_contains<C>(a, x), walking a's elements and comparing each with x
 * in C, the type == compares them in. */
static void emit_array_membership(Gen *G, Expr *x, Expr *a, StrBuf *sb) {
  const Type *ct = compare_type(x->ty, a->ty->dtype);
  type_helper_use(&G->helpers, TH_VIEW_WALK);
  type_helper_use(&G->helpers, TH_CONTAINS);
  sb_printf(sb, "p2c_contains<%s>(", ct->cname);
  emit_array_value(G, a, sb);
  sb_puts(sb, ", ");
  emit_cast_to(G, x, ct, NULL, sb, P_ASSIGN);
  sb_putc(sb, ')');
}

/* a is b of two arrays of one type: p2c_same_array(a, b), the same data, shape and strides, as
 * Numba's array_is compares them (a view of all of an array is the array). */
static void emit_array_identity(Gen *G, Expr *a, Expr *b, bool negate, StrBuf *sb) {
  type_helper_use(&G->helpers, TH_SAME_ARRAY);
  sb_puts(sb, negate ? "!p2c_same_array(" : "p2c_same_array(");
  emit_array_value(G, a, sb);
  sb_puts(sb, ", ");
  emit_array_value(G, b, sb);
  sb_putc(sb, ')');
}

/* One comparison of a chain, its operands held in temporaries `names` (NULL: written out). */
static void emit_pair(Gen *G, const Expr *e, int i, const char *const *names, StrBuf *sb) {
  if ((e->cmps[i] == OP_IS || e->cmps[i] == OP_IS_NOT) &&
      type_identity(e->kids[i]->ty, e->kids[i + 1]->ty) == ID_BY_ADDRESS) {
    emit_array_identity(G, pair_operand(G, e, i, names), pair_operand(G, e, i + 1, names),
                        e->cmps[i] == OP_IS_NOT, sb);
    return;
  }
  if (e->cmps[i] == OP_IN || e->cmps[i] == OP_NOT_IN) {
    Expr *x = pair_operand(G, e, i, names), *t = pair_operand(G, e, i + 1, names);
    bool negate = e->cmps[i] == OP_NOT_IN;
    if (negate) sb_putc(sb, '!');
    if (t->ty->kind == TY_ARRAY) emit_array_membership(G, x, t, sb);
    else emit_expr(G, tuple_membership(G, x, t), sb, negate ? P_UNARY : P_EQ + 1);
    return;
  }
  bool known = false;
  const char *op = pair_operator(e, i, &known);
  if (!op) {   /* pure operands need not be evaluated; others were, into their temporaries */
    sb_puts(sb, known ? "true" : "false");
    return;
  }
  int cp = e->cmps[i] >= OP_EQ ? P_EQ : P_REL;
  const Type *held = e->kids[i]->ty->kind == TY_ENUM ? e->kids[i]->ty->dtype : e->kids[i]->ty;
  if (held->kind == TY_TUPLE) {   /* tuples, and members of an Enum whose values are tuples */
    Op tuple_op = e->cmps[i] == OP_IS ? OP_EQ : e->cmps[i] == OP_IS_NOT ? OP_NE : e->cmps[i];
    Expr *a = as_held_value(G, pair_operand(G, e, i, names));
    Expr *b = as_held_value(G, pair_operand(G, e, i + 1, names));
    emit_expr(G, tuple_comparison(G, tuple_op, a, b), sb, cp + 1);
    return;
  }
  if (type_is_time(held)) {   /* `is` of one datetime type is its == (NaT is not NaT) */
    Op time_op = e->cmps[i] == OP_IS ? OP_EQ : e->cmps[i] == OP_IS_NOT ? OP_NE : e->cmps[i];
    emit_time_compare(G, time_op, e->kids[i], names ? names[i] : NULL, e->kids[i + 1], names ? names[i + 1] : NULL, sb);
    return;
  }
  const Type *ct = compare_type(e->kids[i]->ty, e->kids[i + 1]->ty);
  emit_cast_to(G, e->kids[i], ct, names ? names[i] : NULL, sb, cp);
  sb_printf(sb, " %s ", op);
  emit_cast_to(G, e->kids[i + 1], ct, names ? names[i + 1] : NULL, sb, cp + 1);
}

/* a < b < c with every operand pure: (a < b && b < c). */
static void emit_pure_compare(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  int n = e->nkids;
  int p = n > 2 ? P_AND : e->cmps[0] >= OP_EQ ? P_EQ : P_REL;
  open_paren(sb, p, prec);
  for (int i = 0; i + 1 < n; i++) {
    if (i) sb_puts(sb, " && ");
    emit_pair(G, e, i, NULL, sb);
  }
  close_paren(sb, p, prec);
}

/* With a side effect among the operands, Python's order is kept exactly: each operand is
 * evaluated once, left to right, and only if the comparisons before it held:
 * (t0 = a, t1 = b, t0 < t1) && (t2 = c, t1 < t2). */
static void emit_sequenced_compare(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  int n = e->nkids;
  const char *names[64];
  open_paren(sb, P_AND, prec);
  for (int i = 0; i < n; i++) {
    names[i] = NULL;
    if (is_simple(e->kids[i])) continue;
    names[i] = new_temp(G, e->kids[i]->ty);
  }
  for (int i = 0; i + 1 < n; i++) {
    sb_puts(sb, i ? " && (" : "(");
    for (int k = i == 0 ? 0 : i + 1; k <= i + 1; k++) {
      if (!names[k]) continue;
      sb_printf(sb, "%s = ", names[k]);
      emit_expr(G, e->kids[k], sb, P_ASSIGN);
      sb_puts(sb, ", ");
    }
    emit_pair(G, e, i, names, sb);
    sb_putc(sb, ')');
  }
  close_paren(sb, P_AND, prec);
}

static void emit_compare(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  bool pure = true;
  for (int i = 0; i < e->nkids; i++) pure &= an_expr_is_pure(e->kids[i]);
  if (pure) emit_pure_compare(G, e, sb, prec);
  else emit_sequenced_compare(G, e, sb, prec);
}

static bool is_simple(const Expr *e) {
  return e->kind == EX_VAR || e->kind == EX_INT || e->kind == EX_FLOAT || e->kind == EX_BOOL ||
         e->kind == EX_CONST || e->kind == EX_NONE;
}

/* a and b / a or b: C's && and || when every operand is a bool; otherwise Python's rule that
 * the result is the deciding operand: a ? b : a, a ? a : b. */
static void emit_boolop_from(Gen *G, const Expr *e, int i, StrBuf *sb, int prec) {
  if (i == e->nkids - 1) {
    emit_expr(G, e->kids[i], sb, prec);
    return;
  }
  const Expr *k = e->kids[i];
  const char *t = NULL;
  open_paren(sb, P_COND, prec);
  if (!is_simple(k)) {
    t = new_temp(G, k->ty);
    sb_printf(sb, "(%s = ", t);
    emit_expr(G, k, sb, P_ASSIGN);
    sb_puts(sb, ")");
  } else {
    emit_expr(G, k, sb, P_OR);
  }
  sb_puts(sb, " ? ");
  if (e->op == OP_AND) emit_boolop_from(G, e, i + 1, sb, P_COND);
  else if (t) sb_puts(sb, t);
  else emit_expr(G, k, sb, P_COND);
  sb_puts(sb, " : ");
  if (e->op == OP_OR) emit_boolop_from(G, e, i + 1, sb, P_COND);
  else if (t) sb_puts(sb, t);
  else emit_expr(G, k, sb, P_COND);
  close_paren(sb, P_COND, prec);
}

static void emit_boolop(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  bool all_bool = true;
  for (int i = 0; i < e->nkids; i++) all_bool &= e->kids[i]->ty->kind == TY_BOOL;
  if (!all_bool) {
    emit_boolop_from(G, e, 0, sb, prec);
    return;
  }
  int p = e->op == OP_AND ? P_AND : P_OR;
  open_paren(sb, p, prec);
  for (int i = 0; i < e->nkids; i++) {
    if (i) sb_puts(sb, e->op == OP_AND ? " && " : " || ");
    emit_expr(G, e->kids[i], sb, p + 1);
  }
  close_paren(sb, p, prec);
}

void emit_ifexp(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  open_paren(sb, P_COND, prec);
  emit_expr(G, e->kids[0], sb, P_OR);
  sb_puts(sb, " ? ");
  emit_expr(G, e->kids[1], sb, P_COND);
  sb_puts(sb, " : ");
  emit_expr(G, e->kids[2], sb, P_COND);
  close_paren(sb, P_COND, prec);
}

static void emit_cast(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  if (e->ty->kind == TY_COMPLEX) {
    emit_complex_cast(G, e, sb);
    return;
  }
  if (e->ty->kind == TY_HALF || e->kids[0]->ty->kind == TY_HALF) {
    emit_half_cast(G, e, sb, prec);
    return;
  }
  if (emit_literal_cast(G, e, sb, prec)) return;
  open_paren(sb, P_UNARY, prec);
  sb_printf(sb, "(%s)", e->ty->cname);
  emit_expr(G, e->kids[0], sb, P_UNARY);
  close_paren(sb, P_UNARY, prec);
}

/* ---- arrays ---- */

/* An index as C uses it: as is when it is known to be >= 0, else wrapped Python's way around
 * `extent` (C text). */
void emit_wrapped_index(Gen *G, const Expr *ix, const char *extent, StrBuf *sb, int prec) {
  if (ix->facts & EF_NONNEG) {
    emit_expr(G, ix, sb, prec);
    return;
  }
  helper_use(&G->helpers, H_WRAP);
  sb_puts(sb, "p2c_wrap(");
  emit_expr(G, ix, sb, P_ASSIGN);
  sb_printf(sb, ", %s)", extent);
}

static void emit_index_value(Gen *G, const Expr *ix, const Expr *arr, const Type *at, int k,
                             StrBuf *sb, int prec) {
  StrBuf extent;
  sb_init(&extent, G->a);
  if (at->fixed_shape) {
    sb_printf(&extent, "%lld", (long long)at->fixed_shape[k]);
  } else {
    emit_expr(G, arr, &extent, P_POSTFIX);
    sb_printf(&extent, ".shape[%d]", k);
  }
  emit_wrapped_index(G, ix, sb_str(&extent), sb, prec);
}

void emit_extent(Gen *G, const Expr *arr, const Type *at, int k, StrBuf *sb) {
  emit_expr(G, arr, sb, P_POSTFIX);
  sb_printf(sb, ".shape[%d]", k);
}

/* C order: ((i0 * n1 + i1) * n2 + i2); F order: i0 + n0 * (i1 + n1 * i2). */
static void emit_linear_index(Gen *G, const Expr *arr, const Type *at, Expr *const *ix, StrBuf *sb) {
  int n = at->ndim;
  if (at->layout == 'F') {
    for (int k = 0; k < n; k++) {
      emit_index_value(G, ix[k], arr, at, k, sb, k + 1 < n ? P_ADD : P_MUL + 1);   /* the last: a right operand of * */
      if (k + 1 < n) {
        sb_puts(sb, " + ");
        emit_extent(G, arr, at, k, sb);
        sb_puts(sb, k + 2 < n ? " * (" : " * ");
      }
    }
    for (int k = 0; k + 2 < n; k++) sb_putc(sb, ')');
    return;
  }
  for (int k = 0; k + 2 < n; k++) sb_putc(sb, '(');
  for (int k = 0; k < n; k++) {
    if (k) {
      sb_puts(sb, " * ");
      emit_extent(G, arr, at, k, sb);
      sb_puts(sb, " + ");
    }
    emit_index_value(G, ix[k], arr, at, k, sb, k + 1 < n ? P_MUL : P_ADD + 1);
    if (k && k + 1 < n) sb_putc(sb, ')');
  }
}

/* ---- checked indexing (--check-bounds) ---- */

/* An index as p2c_index wants it: int64_t, with a uint64 past INT64_MAX saturated. */
void emit_checked_index_value(Gen *G, const Expr *ix, StrBuf *sb) {
  if (ix->ty == &type_uint64) {
    sb_puts(sb, "p2c_bounds_u64(");
    emit_expr(G, ix, sb, P_ASSIGN);
    sb_putc(sb, ')');
  } else {
    emit_cast_to(G, ix, &type_int64, NULL, sb, P_ASSIGN);
  }
}

/* p2c_bounds_offset<'L', N>(p2c_index<N>{{i, j}}, SHAPE, STRIDES, LINE, COLUMN): the indices
 * as written (the helper wraps negative ones), evaluated left to right as braced
 * initializers are. */
static void emit_bounds_offset(Gen *G, const Expr *e, char layout, const char *shape,
                               const char *strides, StrBuf *sb) {
  int n = e->nkids - 1;
  helper_use(&G->helpers, H_BOUNDS);
  helper_use(&G->helpers, H_BOUNDS_VIEW);
  sb_printf(sb, "p2c_bounds_offset<'%c', %d>(p2c_index<%d>{{", layout, n, n);
  for (int k = 0; k < n; k++) {
    if (k) sb_puts(sb, ", ");
    emit_checked_index_value(G, e->kids[k + 1], sb);
  }
  sb_printf(sb, "}}, %s, %s, %u, %u)", shape, strides, e->loc.line, e->loc.col);
}

/* Whether `arr` is one of the kernel's array parameters that the kernel never stores to (the
 * analysis' param_written: not through views, atomics or device functions, never rebound or
 * bound to another name), so a read of it is of memory no thread of the launch writes unless
 * another argument aliases it (the launch decides: P2C_SAN_READ_INPUT). */
static bool reads_input(const Gen *G, const Expr *arr) {
  const Function *f = G->fn;
  return f->kind == FN_KERNEL && f->param_written && arr->kind == EX_VAR && arr->var < f->nparams &&
         !f->param_written[arr->var];
}

/* --sanitize: p2c_san_offset<'L', N, KIND, SPACE>(p2c_index<N>{{i, j}}, SHAPE, STRIDES, LINE,
 * COLUMN, BASE, "NAME"): the checked offset, with the access reported to the simulator's
 * checker (the element's address is BASE plus the offset). */
static void emit_san_offset(Gen *G, const Expr *e, const Expr *arr, SanKind access, char layout,
                            const char *shape, const char *strides, const char *base, StrBuf *sb) {
  static const char *const kinds[] = {"P2C_SAN_READ", "P2C_SAN_WRITE", "P2C_SAN_UPDATE", "P2C_SAN_ATOMIC",
                                      "P2C_SAN_READ_INPUT"};
  int n = e->nkids - 1;
  if (access == SAN_READ && reads_input(G, arr)) access = SAN_READ_INPUT;
  const char *kind = kinds[access];
  helper_use(&G->helpers, H_BOUNDS);
  helper_use(&G->helpers, H_BOUNDS_VIEW);
  helper_use(&G->helpers, H_SANITIZE);
  sb_printf(sb, "p2c_san_offset<'%c', %d, %s, %s>(p2c_index<%d>{{", layout, n, kind,
            san_space_name(arr->ty->space), n);
  for (int k = 0; k < n; k++) {
    if (k) sb_puts(sb, ", ");
    emit_checked_index_value(G, e->kids[k + 1], sb);
  }
  const char *name = arr->kind == EX_VAR ? G->fn->vars[arr->var].name : "array";
  sb_printf(sb, "}}, %s, %s, %u, %u, %s, ", shape, strides, e->loc.line, e->loc.col, base);
  emit_san_name(sb, name, "");
  sb_putc(sb, ')');
}

/* --sanitize: a write of a whole view (a fill, a ufunc's out) is wrapped in
 * p2c_san_view_written<SPACE>(WRITE, LINE, COLUMN, "NAME[...]"), which reports each element's
 * write to the checker and gives the view back; without --sanitize both write nothing. */
void san_view_written_open(Gen *G, const Type *view, StrBuf *sb) {
  if (!G->sanitize) return;
  type_helper_use(&G->helpers, TH_VIEW_WALK);
  type_helper_use(&G->helpers, TH_VIEW_WRITTEN_SAN);
  sb_printf(sb, "p2c_san_view_written<%s>(", san_space_name(view->space));
}

void san_view_written_close(Gen *G, const Expr *view, StrBuf *sb) {
  if (!G->sanitize) return;
  const Expr *base = view;
  while (base->kind == EX_INDEX) base = base->kids[0];
  sb_printf(sb, ", %u, %u, ", view->loc.line, view->loc.col);
  emit_san_name(sb, base->kind == EX_VAR ? G->fn->vars[base->var].name : "array", "[...]");
  sb_putc(sb, ')');
}

/* The checker's name for a memory space (MemSpace). */
const char *san_space_name(MemSpace space) {
  static const char *const spaces[] = {[MEM_GLOBAL] = "P2C_SAN_GLOBAL", [MEM_SHARED] = "P2C_SAN_SHARED",
                                       [MEM_LOCAL] = "P2C_SAN_LOCAL", [MEM_CONST] = "P2C_SAN_CONST"};
  return spaces[space];
}

/* "NAME" followed by suffix, a C string literal of an array's Python name for the checker's
 * messages: Python names may hold any letter, so bytes outside ASCII are escaped. */
void emit_san_name(StrBuf *sb, const char *name, const char *suffix) {
  sb_putc(sb, '"');
  for (const char *p = name; *p; p++)
    if ((unsigned char)*p < 0x80 && *p != '"' && *p != '\\') sb_putc(sb, *p);
    else sb_printf(sb, "\\%03o", (unsigned char)*p);
  sb_printf(sb, "%s\"", suffix);
}

void emit_checked_tuple_index(Gen *G, const Expr *e, int nelems, StrBuf *sb) {
  helper_use(&G->helpers, H_BOUNDS);
  helper_use(&G->helpers, H_RAISE);
  helper_use(&G->helpers, H_TUPLE_INDEX);
  sb_puts(sb, "p2c_tuple_index(");
  emit_checked_index_value(G, e->kids[1], sb);
  sb_printf(sb, ", %d, %u, %u)", nelems, e->loc.line, e->loc.col);
}

/* A checked element of a shared or local array: (&s[0][0])[offset], C order. */
static void emit_checked_fixed_index(Gen *G, const Expr *e, const Expr *arr, SanKind access, StrBuf *sb) {
  const Type *at = arr->ty;
  StrBuf shape;
  sb_init(&shape, G->a);
  sb_printf(&shape, "p2c_index<%d>{{", at->ndim);
  for (int k = 0; k < at->ndim; k++)
    sb_printf(&shape, "%s%lld", k ? ", " : "", (long long)at->fixed_shape[k]);
  sb_puts(&shape, "}}.v");
  if (at->ndim == 1) {
    emit_expr(G, arr, sb, P_POSTFIX);
  } else {
    sb_puts(sb, "(&");
    emit_expr(G, arr, sb, P_POSTFIX);
    for (int k = 0; k < at->ndim; k++) sb_puts(sb, "[0]");
    sb_putc(sb, ')');
  }
  sb_putc(sb, '[');
  if (G->sanitize) {
    StrBuf base;
    sb_init(&base, G->a);
    sb_puts(&base, "&");
    emit_expr(G, arr, &base, P_POSTFIX);
    for (int k = 0; k < at->ndim; k++) sb_puts(&base, "[0]");
    emit_san_offset(G, e, arr, access, 'C', sb_str(&shape), "nullptr", sb_str(&base), sb);
  } else {
    emit_bounds_offset(G, e, 'C', sb_str(&shape), "nullptr", sb);
  }
  sb_putc(sb, ']');
}

/* A checked element of an array: a.data[offset], or by byte strides for layout 'A'. `arr` is
 * e's array, or the temporary holding it. */
static void emit_checked_array_index(Gen *G, const Expr *e, const Expr *arr, SanKind access, StrBuf *sb,
                                     int prec) {
  const Type *at = arr->ty;
  if (at->fixed_shape) {
    emit_checked_fixed_index(G, e, arr, access, sb);
    return;
  }
  StrBuf name, shape, strides;
  sb_init(&name, G->a);
  sb_init(&shape, G->a);
  sb_init(&strides, G->a);
  emit_expr(G, arr, &name, P_POSTFIX);
  sb_printf(&shape, "%s.shape", sb_str(&name));
  sb_printf(&strides, "%s.strides", sb_str(&name));
  if (at->layout == 'A') {
    open_paren(sb, P_UNARY, prec);
    sb_printf(sb, "*(%s *)((char *)%s.data + ", at->dtype->cname, sb_str(&name));
    if (G->sanitize)
      emit_san_offset(G, e, arr, access, 'A', sb_str(&shape), sb_str(&strides),
                      arena_printf(G->a, "%s.data", sb_str(&name)), sb);
    else emit_bounds_offset(G, e, 'A', sb_str(&shape), sb_str(&strides), sb);
    sb_putc(sb, ')');
    close_paren(sb, P_UNARY, prec);
    return;
  }
  sb_printf(sb, "%s.data[", sb_str(&name));
  char layout = at->layout == 'F' ? 'F' : 'C';
  if (G->sanitize)
    emit_san_offset(G, e, arr, access, layout, sb_str(&shape), sb_str(&strides),
                    arena_printf(G->a, "%s.data", sb_str(&name)), sb);
  else emit_bounds_offset(G, e, layout, sb_str(&shape), sb_str(&strides), sb);
  sb_putc(sb, ']');
}

/* ---- indexing ---- */

/* An array expression read more than once (data, extents, strides) is evaluated once: an array
 * that is not a variable goes into a temporary, assigned at the start of a comma expression
 * written to sb; the caller closes it with close_array_once. Returns what to read instead. */
/* t[1] or t[0][2] of a tuple variable: a member (t.f1), which can be read more than once. */
static bool tuple_member_of_var(const Expr *e) {
  if (e->kind == EX_VAR || e->kind == EX_TEMP) return true;
  return e->kind == EX_INDEX && e->kids[0]->ty->kind == TY_TUPLE && e->ival >= 0 && tuple_member_of_var(e->kids[0]);
}

static const Expr *array_once(Gen *G, const Expr *arr, StrBuf *sb) {
  if (arr->kind == EX_VAR || arr->kind == EX_TEMP || arr->kind == EX_CONST) return arr;
  if (tuple_member_of_var(arr)) return arr;   /* t[1][i]: the member array t.f1, read in place */
  if (expr_is_field(arr) && an_expr_is_pure(arr)) return arr;   /* r.h[k]: a member array, read once */
  Expr *t = temp_expr(G, arr->ty);
  sb_printf(sb, "(%s = ", t->str);
  emit_array_value(G, arr, sb);
  sb_puts(sb, ", ");
  return t;
}

static void close_array_once(const Expr *arr, const Expr *used, StrBuf *sb) {
  if (used != arr) sb_putc(sb, ')');
}

static void emit_element(Gen *G, const Expr *e, const Expr *arr, StrBuf *sb, int prec);

static void emit_array_index(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  int access = G->san_kind;   /* this element's; whatever array_once emits is read */
  G->san_kind = SAN_READ;
  const Expr *arr = array_once(G, e->kids[0], sb);
  G->san_kind = access;
  emit_element(G, e, arr, sb, arr == e->kids[0] ? prec : P_ASSIGN);
  close_array_once(e->kids[0], arr, sb);
}

/* arr[e's indices]: arr is e's array, or the temporary holding it. */
static void emit_element(Gen *G, const Expr *e, const Expr *arr, StrBuf *sb, int prec) {
  const Type *at = arr->ty;
  SanKind access = (SanKind)G->san_kind;
  G->san_kind = SAN_READ;   /* what the subscript reads (its indices, its array) is read */
  if (at->ndim == 0) {   /* a[()]: the one element, which no index can miss */
    emit_expr(G, arr, sb, P_POSTFIX);
    sb_puts(sb, at->fixed_shape ? "[0]" : ".data[0]");   /* storage of one element, or a view */
    return;
  }
  if (G->fn->checks_bounds) {
    emit_checked_array_index(G, e, arr, access, sb, prec);
    return;
  }
  if (at->fixed_shape) {
    emit_expr(G, arr, sb, P_POSTFIX);
    for (int k = 0; k < at->ndim; k++) {
      sb_putc(sb, '[');
      emit_index_value(G, e->kids[k + 1], arr, at, k, sb, P_LOWEST);
      sb_putc(sb, ']');
    }
    return;
  }
  if (at->layout == 'A') {
    open_paren(sb, P_UNARY, prec);
    sb_printf(sb, "*(%s *)((char *)", at->dtype->cname);
    emit_expr(G, arr, sb, P_POSTFIX);
    sb_puts(sb, ".data");
    for (int k = 0; k < at->ndim; k++) {
      sb_puts(sb, " + ");
      emit_index_value(G, e->kids[k + 1], arr, at, k, sb, P_MUL);
      sb_puts(sb, " * ");
      emit_expr(G, arr, sb, P_POSTFIX);
      sb_printf(sb, ".strides[%d]", k);
    }
    sb_putc(sb, ')');
    close_paren(sb, P_UNARY, prec);
    return;
  }
  emit_expr(G, arr, sb, P_POSTFIX);
  sb_puts(sb, ".data[");
  emit_linear_index(G, arr, at, e->kids + 1, sb);
  sb_putc(sb, ']');
}

static void emit_index(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  if (e->kids[0]->ty->kind != TY_TUPLE) {
    if (e->ty->kind == TY_ARRAY) emit_view(G, e, sb);
    else emit_array_index(G, e, sb, prec);
  } else if (e->ival < 0) emit_tuple_runtime_index(G, e, sb);
  else emit_tuple_elem(G, e->kids[0], (int)e->ival, sb, prec);
}

/* A constant that the array's type gives (a.ndim, a.size of a 0-d array): the array's
 * expression still runs where it has effects. */
static void emit_rank_constant(Gen *G, const Expr *arr, int value, StrBuf *sb) {
  if (an_expr_is_pure(arr)) {
    sb_printf(sb, "%d", value);
    return;
  }
  sb_puts(sb, "((void)");
  emit_array_value(G, arr, sb);
  sb_printf(sb, ", %d)", value);
}

static void emit_size(Gen *G, const Expr *arr, StrBuf *sb, int prec) {
  const Type *at = arr->ty;
  if (at->ndim > 1 && !at->fixed_shape) {
    const Expr *once = array_once(G, arr, sb);
    if (once != arr) {
      emit_size(G, once, sb, P_ASSIGN);
      close_array_once(arr, once, sb);
      return;
    }
  }
  if (at->ndim == 0) {   /* one element, whatever the array */
    emit_rank_constant(G, arr, 1, sb);
    return;
  }
  if (at->fixed_shape) {
    int64_t n = 1;
    for (int k = 0; k < at->ndim; k++) n *= at->fixed_shape[k];
    sb_printf(sb, "%lld", (long long)n);
    return;
  }
  open_paren(sb, at->ndim > 1 ? P_MUL : P_POSTFIX, prec);
  for (int k = 0; k < at->ndim; k++) {
    if (k) sb_puts(sb, " * ");
    emit_extent(G, arr, at, k, sb);
  }
  close_paren(sb, at->ndim > 1 ? P_MUL : P_POSTFIX, prec);
}

static void emit_attr(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  if (e->kids[0]->ty->kind == TY_RECORD) emit_field(G, e, sb, prec);
  else if (e->kids[0]->ty->kind == TY_ENUM) emit_expr(G, e->kids[0], sb, prec);   /* .value */
  else if (e->kids[0]->ty->kind == TY_VECTOR) emit_vector_lane(G, e, sb, prec);
  else if (e->ty->kind == TY_ARRAY) emit_array_part(G, e, sb, prec);   /* a.real, a.imag */
  else if (strcmp(e->str, "real") == 0 || strcmp(e->str, "imag") == 0) emit_part(G, e, sb, prec);
  else if (strcmp(e->str, "size") == 0) emit_size(G, e->kids[0], sb, prec);
  else if (e->ty->kind == TY_DTYPE) sb_puts(sb, "0");   /* a.dtype has no run-time value: a statement of its own */
  else emit_rank_constant(G, e->kids[0], e->kids[0]->ty->ndim, sb);   /* ndim */
}

/* ---- cuda.grid ---- */

static const char dim_letters[] = "xyz";

void emit_grid_elem(const Expr *call, int k, StrBuf *sb, int prec) {
  bool grid = call->kids[0]->builtin->id == BI_GRID;
  char d = dim_letters[k];
  open_paren(sb, grid ? P_ADD : P_MUL, prec);
  if (grid) sb_printf(sb, "(int64_t)blockIdx.%c * blockDim.%c + threadIdx.%c", d, d, d);
  else sb_printf(sb, "(int64_t)blockDim.%c * gridDim.%c", d, d);
  close_paren(sb, grid ? P_ADD : P_MUL, prec);
}

/* ---- calls ---- */

static void emit_args(Gen *G, const Expr *e, int from, StrBuf *sb) {
  for (int i = from; i < e->nkids; i++) {
    if (i > from) sb_puts(sb, ", ");
    emit_expr(G, e->kids[i], sb, P_ASSIGN);
  }
}

void emit_array_value(Gen *G, const Expr *a, StrBuf *sb) {
  const Type *t = a->ty;
  if (t->kind == TY_RECORD) {   /* records are passed and returned by reference */
    emit_record_ref(G, a, sb, P_ASSIGN);
    return;
  }
  if (t->kind != TY_ARRAY || !t->fixed_shape) {
    emit_expr(G, a, sb, P_ASSIGN);
    return;
  }
  /* A shared, local or constant array is passed as a view of its storage. */
  sb_printf(sb, G->c_form ? "(%s){" : "%s{", ctype_of(G, t));   /* C: a compound literal */
  if (t->space == MEM_CONST) sb_printf(sb, "(%s *)", t->dtype->cname);
  sb_putc(sb, '&');
  emit_expr(G, a, sb, P_POSTFIX);
  for (int k = 0; k < (t->ndim ? t->ndim : 1); k++) sb_puts(sb, "[0]");   /* 0-d: storage of one */
  if (t->ndim == 0) {   /* a 0-d array is its address alone */
    sb_putc(sb, '}');
    return;
  }
  sb_puts(sb, ", {");
  int64_t stride = t->dtype->bits / 8;
  int64_t strides[P2C_MAX_NDIM];
  for (int k = t->ndim; k-- > 0;) strides[k] = stride, stride *= t->fixed_shape[k];
  for (int k = 0; k < t->ndim; k++) sb_printf(sb, "%s%lld", k ? ", " : "", (long long)t->fixed_shape[k]);
  sb_puts(sb, "}, {");
  for (int k = 0; k < t->ndim; k++) sb_printf(sb, "%s%lld", k ? ", " : "", (long long)strides[k]);
  sb_puts(sb, "}}");
}

/* math.sqrt(x) and the other functions of CUDA's math library: the float variant (c32) for
 * float32 arguments; floor/ceil/trunc give int64; isnan/isinf/isfinite of an integer are
 * constants. */
/* The prelude p2c_ufunc needs: the view walk, the overlap rule, and p2c_raise (which needs the
 * bounds record) for its run-time ValueErrors. */
void use_ufunc_helpers(Gen *G) {
  type_helper_use(&G->helpers, TH_VIEW_WALK);
  type_helper_use(&G->helpers, TH_VIEW_OVERLAP);
  type_helper_use(&G->helpers, TH_UFUNC);
  helper_use(&G->helpers, H_BOUNDS);
  helper_use(&G->helpers, H_RAISE);
}

/* The types of a ufunc call's element function's parameters, from its inputs' element types
 * elems: the loop type (builtin_ufunc_loop, which typeinfer checked), except that an int64 and
 * a uint64 compare as they are. */
static void ufunc_loop_types(const Builtin *b, const Type **elems, const Type **loop) {
  int n = b->min_args;
  bool mixed = b->id == BI_NP_ELEMENTWISE && b->elementwise == NPE_COMPARE && n == 2 &&
               type_compares_mixed_sign(elems[0], elems[1]);
  const Type *t = builtin_ufunc_loop(b, elems);
  for (int i = 0; i < n; i++) loop[i] = mixed ? (elems[i]->is_signed ? &type_int64 : &type_uint64) : t;
}

/* np.less(a, b) and the other elementwise functions on their loop types: the prelude function,
 * with the loop type as its template argument where it is one real type (a literal argument
 * must not choose another instance). */
static void emit_elementwise_on(Gen *G, const Builtin *b, const Expr *const *args, StrBuf *sb) {
  int n = b->min_args;
  const Type *t0 = args[0]->ty;
  bool one_real_type = (n == 1 || args[1]->ty == t0) && !type_is_complex(t0);
  if (type_is_complex(t0)) type_helper_use(&G->helpers, TH_NP_ELEMENTWISE_C);
  sb_puts(sb, b->c64);
  if (one_real_type) sb_printf(sb, "<%s>", t0->cname);
  sb_putc(sb, '(');
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(sb, ", ");
    emit_expr(G, args[i], sb, P_ASSIGN);
  }
  sb_putc(sb, ')');
}

/* np.sin(x, out): p2c_ufunc(OUT, LINE, COLUMN, [](FT x0, ...) { return sin(x0); }, x, ...), the
 * lambda being the scalar function on parameters of the loop types, written as a call on
 * numbers is (cmath's function for complex ones); --sanitize reports out's writes. */
static void emit_ufunc_array_call(Gen *G, const Expr *e, StrBuf *sb) {
  const Builtin *b = e->builtin;
  int n = b->min_args;
  const Expr *out = e->kids[n + 1];
  const Type *elems[2], *loop[2];
  for (int i = 0; i < n; i++) {
    const Type *ti = e->kids[i + 1]->ty;
    elems[i] = ti->kind == TY_ARRAY ? ti->dtype : ti;
  }
  ufunc_loop_types(b, elems, loop);
  /* The parameters have the loop types, which the elements convert to implicitly, except that
   * a complex loop type is the function's argument: x0 is the element, converted there. */
  static const char *const names[] = {"x0", "x1"};
  Expr params[2], casts[2], *cast_kids[2] = {&params[0], &params[1]};
  Expr *args[2];
  for (int i = 0; i < n; i++) {
    bool convert = type_is_complex(loop[i]) && elems[i] != loop[i];
    params[i] = (Expr){.kind = EX_TEMP, .ty = convert ? elems[i] : loop[i], .str = names[i], .loc = e->loc};
    casts[i] = (Expr){.kind = EX_CAST, .ty = loop[i], .kids = &cast_kids[i], .nkids = 1, .loc = e->loc};
    args[i] = convert ? &casts[i] : &params[i];
  }
  use_ufunc_helpers(G);
  san_view_written_open(G, out->ty, sb);
  sb_puts(sb, "p2c_ufunc(");
  emit_array_value(G, out, sb);
  sb_printf(sb, ", %u, %u, [](", e->loc.line, e->loc.col);
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%s %s", i ? ", " : "", params[i].ty->cname, names[i]);
  sb_puts(sb, ") { return ");
  if (b->id == BI_NP_ELEMENTWISE) {
    emit_elementwise_on(G, b, (const Expr *const *)args, sb);
  } else {
    Expr *kids[3] = {e->kids[0], args[0], args[1]};
    Expr scalar = {.kind = EX_CALL, .builtin = b, .ty = loop[0], .kids = kids, .nkids = n + 1, .loc = e->loc};
    emit_math_call(G, &scalar, sb, P_ASSIGN);
  }
  sb_puts(sb, "; }");
  for (int i = 1; i <= n; i++) {
    sb_puts(sb, ", ");
    emit_array_value(G, e->kids[i], sb);   /* a number too: emitted as itself */
  }
  sb_putc(sb, ')');
  san_view_written_close(G, out, sb);
}

/* np.less(a, b), np.maximum(a, b) ... of numbers (typeinfer converted them to the loop type),
 * or of arrays into an output array. */
void emit_np_elementwise_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  if (e->ty->kind == TY_ARRAY) emit_ufunc_array_call(G, e, sb);
  else emit_elementwise_on(G, e->builtin, (const Expr *const *)e->kids + 1, sb);
}

void emit_math_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const Builtin *b = e->builtin;
  if (e->ty->kind == TY_ARRAY) {
    emit_ufunc_array_call(G, e, sb);
    return;
  }
  if (b->complex_row && type_is_complex(e->kids[1]->ty)) {   /* NumPy's complex loop: cmath's */
    const Builtin *cb = builtin_lookup(b->complex_row);
    Expr call = *e;
    call.builtin = cb;
    helper_add(&G->helpers, cb->helpers);
    emit_cmath_call(G, &call, sb, prec);
    return;
  }
  if (type_is_half(e->kids[1]->ty)) {
    bool bf16 = type_is_bf16(e->kids[1]->ty);
    type_helper_use(&G->helpers, bf16 ? TH_BF16_MATH : TH_HALF_MATH);
    emit_half_call(G, bf16 ? b->cb16 : b->c16, e, sb);
    return;
  }
  bool f32 = e->kids[1]->ty == &type_float32;
  const char *fn = f32 ? b->c32 : b->c64;
  bool to_int = b->result == &type_int64;
  if (b->result == &type_bool && e->kids[1]->ty->kind != TY_FLOAT) {
    sb_puts(sb, b->c64[2] == 'f' ? "true" : "false");   /* isfinite(int) is true */
    return;
  }
  if (to_int) {
    open_paren(sb, P_UNARY, prec);
    sb_puts(sb, "(int64_t)");
  }
  if (G->c_form && strncmp(fn, "p2c_", 4) != 0) {
    if ((b->id == BI_MATH_UNARY || b->id == BI_MATH_BINARY || b->id == BI_MATH_TO_INT) && (!b->result || to_int))
      c_form_math(G, fn, b->id == BI_MATH_BINARY ? 2 : 1, f32);
    else c_form_refuse(G, "a math function of another shape");
  }
  sb_printf(sb, "%s(", fn);
  emit_args(G, e, 1, sb);
  sb_putc(sb, ')');
  if (to_int) close_paren(sb, P_UNARY, prec);
}

/* math.modf(x), math.frexp(x): C's function returns the first element and stores the second
 * through a pointer, here to a temporary: TUPLE{{modf(x, &t), t}}, TUPLE{frexp(x, &t), t} (the
 * elements of a braced list are evaluated in order). */
void emit_math_split_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  const Type *ft = e->ty->elems[0];
  const char *t = new_temp(G, e->ty->elems[1]);
  bool uniform = e->ty->elems[1] == ft;   /* modf: a UniTuple, whose struct holds an array */
  sb_printf(sb, "%s{%s%s(", tuple_ctype(G, e->ty), uniform ? "{" : "",
            ft == &type_float32 ? e->builtin->c32 : e->builtin->c64);
  emit_expr(G, e->kids[1], sb, P_ASSIGN);
  sb_printf(sb, ", &%s), %s}%s", t, t, uniform ? "}" : "");
}

/* Whether e is min(a, b) or max(a, b) of two floats (float32 or float64 as written, before
 * promotion), which Numba's CUDA target compiles to libdevice's fmin/fmax (numba/cuda/cudaimpl.py:
 * `min.f32`, `max.f64` in the PTX): a NaN operand gives the other operand. Other calls keep
 * Python's order (its do_minmax: the first of equal values, NaN as comparisons give it). */
static bool is_float_pair_minmax(const Expr *e) {
  if (e->nkids != 3 || e->ty->kind != TY_FLOAT || e->ty == &type_float16) return false;
  for (int i = 1; i < 3; i++) {
    const Expr *a = e->kids[i]->kind == EX_CAST ? e->kids[i]->kids[0] : e->kids[i];
    if (a->ty != &type_float32 && a->ty != &type_float64) return false;
  }
  return true;
}

/* min(a, b, ...), max(a, b, ...): nested calls of the prelude's p2c_min / p2c_max, or fmin/fmax
 * of two floats (is_float_pair_minmax). */
void emit_minmax_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  if (is_float_pair_minmax(e)) {
    bool is_max = e->builtin->id == BI_MAX;
    const char *fn = e->ty == &type_float32 ? (is_max ? "fmaxf" : "fminf") : (is_max ? "fmax" : "fmin");
    emit_call2(G, fn, e->kids[1], e->kids[2], sb);
    return;
  }
  /* The type is explicit: a literal operand must not change which instance is called. */
  const char *fn = arena_printf(G->a, G->c_form ? "%s_of(%s)" : "%s<%s>", e->builtin->c64, e->ty->cname);
  if (type_is_time(e->ty)) fn = emit_time_minmax_function(G, e);
  for (int i = 2; i < e->nkids; i++) sb_printf(sb, "%s(", fn);
  emit_expr(G, e->kids[1], sb, P_ASSIGN);
  for (int i = 2; i < e->nkids; i++) {
    sb_puts(sb, ", ");
    emit_expr(G, e->kids[i], sb, P_ASSIGN);
    sb_putc(sb, ')');
  }
}

static void emit_scalar_cast(Gen *G, const Expr *e, const Type *to, StrBuf *sb, int prec) {
  Expr cast = {.kind = EX_CAST, .ty = to, .kids = e->kids + 1, .nkids = 1, .loc = e->loc};
  if (e->kids[1]->ty == to) emit_expr(G, e->kids[1], sb, prec);
  else emit_cast(G, &cast, sb, prec);
}

/* int(x), float(x), bool(x), np.float32(x) */
void emit_cast_builtin_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  emit_scalar_cast(G, e, e->ty, sb, prec);
}

/* abs(x) */
void emit_abs_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const Type *t = e->kids[1]->ty;
  if (t->kind == TY_COMPLEX) {
    emit_complex_abs(G, e, sb);
  } else if (t->kind == TY_TIMEDELTA) {
    emit_time_abs(G, e, sb);
  } else if (t->kind == TY_HALF) {
    emit_half_call(G, t == &type_bfloat16 ? "p2c_bf16_abs" : "p2c_habs", e, sb);
  } else if (t->kind == TY_FLOAT) {
    sb_puts(sb, t == &type_float32 ? "fabsf(" : "fabs(");
    emit_expr(G, e->kids[1], sb, P_ASSIGN);
    sb_putc(sb, ')');
  } else if (t->kind == TY_BOOL) {
    emit_scalar_cast(G, e, &type_int64, sb, prec);
  } else {
    helper_use(&G->helpers, H_ABS_INT);
    sb_puts(sb, "p2c_abs(");
    emit_expr(G, e->kids[1], sb, P_ASSIGN);
    sb_putc(sb, ')');
  }
}

/* round(x), round(x, ndigits) */
/* isinstance(v, T): the bool typeinfer's rule gives (v is a variable: nothing to evaluate). */
void emit_isinstance_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)G, (void)prec;
  sb_puts(sb, type_plain(e->kids[1]->ty) == e->kids[2]->ty->dtype ? "true" : "false");
}

void emit_round_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const Expr *x = e->kids[1];
  if (e->nkids == 3 && x->ty->kind == TY_FLOAT) {
    helper_use(&G->helpers, H_ROUND_ND);
    open_paren(sb, P_UNARY, prec);
    sb_printf(sb, "(%s)", e->ty->cname);
    emit_call2(G, "p2c_round", x, e->kids[2], sb);
    close_paren(sb, P_UNARY, prec);
    return;
  }
  if (x->ty->kind != TY_FLOAT) {   /* round of an integer is the integer */
    emit_scalar_cast(G, e, &type_int64, sb, prec);
    return;
  }
  open_paren(sb, P_UNARY, prec);
  sb_printf(sb, "(int64_t)%s(", x->ty == &type_float32 ? "rintf" : "rint");
  emit_expr(G, x, sb, P_ASSIGN);
  sb_putc(sb, ')');
  close_paren(sb, P_UNARY, prec);
}

/* tuple(t): t */
void emit_tuple_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  emit_expr(G, e->kids[1], sb, prec);
}

/* len(a) */
void emit_len_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const Expr *a = e->kids[1];
  (void)prec;
  if (a->ty->kind == TY_TUPLE) sb_printf(sb, "%d", a->ty->nelems);
  else if (a->ty->fixed_shape) sb_printf(sb, "%lld", (long long)a->ty->fixed_shape[0]);
  else emit_extent(G, a, a->ty, 0, sb);
}

/* A call or value of a builtin: its row's prelude helpers, then its hook. */
static void emit_builtin(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const Builtin *b = e->builtin;
  if (!b->emit) {
    diag_error(G->c, e->loc, "E-internal", "codegen: unexpected use of %s", builtin_display_name(b));
    return;
  }
  helper_add(&G->helpers, b->helpers);
  if (G->sanitize && (builtin_has(b, BF_BARRIER) || builtin_has(b, BF_COLLECTIVE))) {
    /* --sanitize: the simulator names the Python line of a barrier or warp operation */
    sb_printf(sb, "(p2c_sim_san_at(%u, %u), ", e->loc.line, e->loc.col);
    b->emit(G, e, sb, P_ASSIGN);
    sb_putc(sb, ')');
    return;
  }
  if (G->sanitize && builtin_has(b, BF_FENCE)) {
    /* --sanitize: the checker orders what the thread did before it with its later atomics */
    sb_puts(sb, "(p2c_sim_san_fence(), ");
    b->emit(G, e, sb, P_ASSIGN);
    sb_putc(sb, ')');
    return;
  }
  b->emit(G, e, sb, prec);
}

static void emit_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  if (e->kids[0]->kind == EX_ATTR) {
    emit_method_call(G, e, sb, prec);
    return;
  }
  if (e->kids[0]->kind == EX_BUILTIN) {
    emit_builtin(G, e, sb, prec);
    return;
  }
  sb_printf(sb, "%s(", e->func->cname);
  for (int i = 1; i < e->nkids; i++) {
    if (i > 1) sb_puts(sb, ", ");
    emit_array_value(G, e->kids[i], sb);
  }
  sb_putc(sb, ')');
}

/* ---- dispatch ---- */

/* threadIdx.x, warpSize, cuda.laneid: the row's CUDA C spelling. */
void emit_spelled_value(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)G, (void)prec;
  sb_puts(sb, e->builtin->c64);
}

/* math.pi, math.inf ... */
void emit_math_const_value(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  emit_float_literal(G, e->builtin->value, false, sb, prec);
}

/* cuda.grid(n), cuda.gridsize(n) of one dimension (a tuple's elements: emit_tuple.c). */
void emit_grid_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)G;
  emit_grid_elem(e, 0, sb, prec);
}

void emit_expr(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  if (e->ty && e->ty->kind == TY_TUPLE && emit_tuple_value(G, e, sb, prec)) return;
  if (e->ty && e->ty->kind == TY_RECORD && record_is_pointer(e)) {
    /* the record itself, where a pointer holds it (a whole-record copy reads it) */
    open_paren(sb, P_UNARY, prec);
    sb_putc(sb, '*');
    emit_node(G, e, sb, P_UNARY);
    close_paren(sb, P_UNARY, prec);
    return;
  }
  emit_node(G, e, sb, prec);
}

/* e as its kind spells it. */
static void emit_node(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  switch (e->kind) {
  case EX_INT: emit_int_literal(e, sb, prec); break;
  case EX_FLOAT: emit_float_literal(G, e->fval, false, sb, prec); break;
  case EX_IMAG: emit_imag_literal(G, e, sb); break;
  case EX_BOOL: sb_puts(sb, e->ival ? "true" : "false"); break;
  case EX_VAR: sb_puts(sb, G->vnames[e->var]); break;
  case EX_CONST:   /* a non-finite float or a complex number has no constexpr name (emit_constants) */
    if (e->konst->cname) sb_puts(sb, e->konst->cname);
    else if (e->konst->value->kind == EX_IMAG) emit_imag_literal(G, e->konst->value, sb);
    else emit_float_literal(G, e->konst->value->fval, e->ty == &type_float32, sb, prec);
    break;
  case EX_TEMP: sb_puts(sb, e->str); break;
  case EX_BUILTIN: emit_builtin(G, e, sb, prec); break;
  case EX_UNARY: emit_unary(G, e, sb, prec); break;
  case EX_NOT:
    open_paren(sb, P_UNARY, prec);
    sb_putc(sb, '!');
    emit_expr(G, e->kids[0], sb, P_UNARY);
    close_paren(sb, P_UNARY, prec);
    break;
  case EX_BINARY: emit_binary(G, e, sb, prec); break;
  case EX_COMPARE: emit_compare(G, e, sb, prec); break;
  case EX_BOOLOP: emit_boolop(G, e, sb, prec); break;
  case EX_IFEXP: emit_ifexp(G, e, sb, prec); break;
  case EX_CALL: emit_call(G, e, sb, prec); break;
  case EX_ATTR: emit_attr(G, e, sb, prec); break;
  case EX_INDEX: emit_index(G, e, sb, prec); break;
  case EX_CAST: emit_cast(G, e, sb, prec); break;
  case EX_STR:
  case EX_NONE:   /* only an operand of is / is not, which never writes it */
  case EX_FUNC:
  case EX_SLICE:
  case EX_TUPLE:
    diag_error(G->c, e->loc, "E-unsupported", "this value cannot be used here");
    break;
  }
}
