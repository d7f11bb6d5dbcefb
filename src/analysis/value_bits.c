/* How large an integer can get: an upper bound on the bits of |value|, for range loops
 * (ranges.c, RangeFacts.exact_advance). A C loop `for (k = a; k < n; k += s)` computes k + s once past its last value,
 * and near the top of the counter's type that sum overflows (undefined for NVRTC, a wrap on the
 * host that keeps the loop going), where Python's range simply ends. When n and s are known to
 * be far from the limit the plain loop is exact; otherwise the advance stops at n
 * (p2c_range_next). The bounds come from the types and from what the values are: thread and
 * block indices and dimensions (CUDA's limits), array extents, constants, and, one level deep,
 * the assignments of a local variable. */
#include "analysis/walk.h"

enum { BITS_UNKNOWN = 64, VAR_DEPTH = 4 };

static int max_int(int a, int b) { return a > b ? a : b; }
static int min_int(int a, int b) { return a < b ? a : b; }

static int bit_length(uint64_t v) {
  int n = 0;
  for (; v; v >>= 1) n++;
  return n;
}

/* The bound that an integer or bool type gives by itself. */
static int type_bits(const Type *t) {
  if (!t) return BITS_UNKNOWN;
  if (t->kind == TY_BOOL) return 1;
  if (t->kind == TY_INT) return t->is_signed ? t->bits - 1 : t->bits;
  return BITS_UNKNOWN;
}

/* The bound a builtin's row gives its values (CUDA's limits on threadIdx and friends). */
static int builtin_bits(const Builtin *b) { return b->bits ? b->bits : BITS_UNKNOWN; }

static int bits_of(const Function *f, const Expr *e, int depth);

/* The largest bound among var's bindings (each_binding's visit). */
typedef struct Bindings {
  const Function *f;
  int depth;
  int most;
} Bindings;

static bool widen_to_binding(const Stmt *s, const Expr *value, void *ctx) {
  Bindings *b = ctx;
  int bits = BITS_UNKNOWN;
  switch (s->kind) {
  case ST_ASSIGN: bits = bits_of(b->f, value, b->depth); break;
  case ST_FOR_RANGE:   /* between start and stop (never past stop) */
    bits = max_int(s->start ? bits_of(b->f, s->start, b->depth) : 0, bits_of(b->f, s->stop, b->depth));
    break;
  case ST_AUGASSIGN:   /* anything */
  case ST_FOR_ITER:
  case ST_EXPR:        /* these bind nothing (an_each_binding does not visit them) */
  case ST_IF:
  case ST_WHILE:
  case ST_BREAK:
  case ST_CONTINUE:
  case ST_PASS:
  case ST_RETURN:
  case ST_RAISE: break;
  }
  b->most = max_int(b->most, bits);
  return b->most >= BITS_UNKNOWN;
}

static int var_bits(const Function *f, int var, int depth) {
  const Var *v = &f->vars[var];
  int own = type_bits(v->ty);
  if (v->is_param || depth >= VAR_DEPTH) return own;
  Bindings b = {f, depth + 1, 0};
  an_each_binding(&f->body, var, widen_to_binding, &b);
  return min_int(own, b.most);
}

static bool is_unsigned(const Type *t) { return t && t->kind == TY_INT && !t->is_signed; }

/* Bounds of arithmetic that does not wrap; unsigned subtraction wraps below zero. */
static int binary_bits(const Function *f, const Expr *e, int depth) {
  int a = bits_of(f, e->kids[0], depth), b = bits_of(f, e->kids[1], depth);
  switch (e->op) {
  case OP_ADD: return max_int(a, b) + 1;
  case OP_SUB: return is_unsigned(e->ty) ? BITS_UNKNOWN : max_int(a, b) + 1;
  case OP_MUL: return a + b;
  case OP_FLOORDIV: return a + 1;   /* |a // b| <= |a| for b != 0, and a // -1 may need one more */
  case OP_MOD: return b;            /* |a % b| < |b| */
  default: return BITS_UNKNOWN;     /* bitwise operations on negative values, shifts, ... */
  }
}

static int bits_of(const Function *f, const Expr *e, int depth) {
  int own = type_bits(e->ty);
  int b = BITS_UNKNOWN;
  switch (e->kind) {
  case EX_INT: b = e->is_unsigned_literal ? bit_length(e->uval) : bit_length(e->ival < 0 ? 0 - (uint64_t)e->ival : (uint64_t)e->ival); break;
  case EX_BOOL: b = 1; break;
  case EX_CONST: if (e->konst->value->kind == EX_INT) b = bits_of(f, e->konst->value, depth); break;
  case EX_BUILTIN: b = builtin_bits(e->builtin); break;
  case EX_VAR: b = var_bits(f, e->var, depth); break;
  case EX_ATTR: if (expr_is_array_attr(e)) b = 62; break;   /* an array's size or ndim: no array has 2^62 elements */
  case EX_INDEX: if (expr_is_array_attr(e->kids[0])) b = 62; break;   /* a.shape[k] */
  case EX_CALL:
    if (e->kids[0]->kind == EX_BUILTIN) b = builtin_bits(e->kids[0]->builtin);
    break;
  case EX_CAST: {   /* int to int keeps the value unless it wraps: narrowing (the type's own
                     bound) or a signed value made unsigned (a negative one becomes huge) */
    const Type *from = e->kids[0]->ty;
    bool signed_to_unsigned = is_unsigned(e->ty) && from && from->kind == TY_INT && from->is_signed;
    if (from && (from->kind == TY_INT || from->kind == TY_BOOL) && !signed_to_unsigned)
      b = bits_of(f, e->kids[0], depth);
    break;
  }
  case EX_UNARY:
    if (e->op == OP_POS || (e->op == OP_NEG && !is_unsigned(e->ty))) b = bits_of(f, e->kids[0], depth);
    break;
  case EX_BINARY: b = binary_bits(f, e, depth); break;
  default: break;
  }
  return min_int(min_int(own, b), BITS_UNKNOWN);
}

int an_value_bits(const Function *f, const Expr *e) { return bits_of(f, e, 0); }
