/* Folding of constant expressions in kernels, as CPython's compiler folds them before Numba
 * sees the bytecode (Python 3.11's Python/ast_opt.c, fold_unaryop and fold_binop): a unary `-`,
 * `+`, `~` or `not`, or a binary arithmetic or bitwise operator, whose operands are number, bool
 * or imaginary literals (after folding) becomes one literal of the type Python computes: `10**-2`
 * is the float 0.01, `2**63` an int that Numba types uint64, `-(1)` the int -1, `True + True` the
 * int 2, `~True` the int -2, `(1+2j)**2` the complex (-3+4j) and `(-8.0)**0.5` a complex one
 * (complex128, as Numba types a complex constant). What CPython does not fold stays an operator
 * for typeinfer: an operation that raises (`1 // 0`, `1 << -1`, `0.0 ** -1`, `1j / 0`, `1j // 1`,
 * an overflowing float or complex `**`), an int product, power or left shift past 128 bits
 * (ast_opt.c's limits, so `2**64 * 2**64` is computed at run time, in int64, as Numba does), and
 * anything with a name or a call in it. A left-nested chain folds from the left as far as its
 * operands are constant (`1 + 2 + x` is `3 + x`), walked without recursion. A folded int that
 * does not fit int64 or uint64 is an error, as Numba refuses such a constant. The arithmetic
 * itself is pynum.c's, which lower_const.c uses for module-level constants too. */
#include "frontend/lower.h"
#include "frontend/pynum.h"

static bool fold_value(Lowerer *L, TSNode n, PyNum *out);

/* Whether a number literal's text ends in j (an imaginary literal). */
static bool is_imaginary(const char *s, size_t len) { return len && (s[len - 1] == 'j' || s[len - 1] == 'J'); }

static bool fold_literal(Lowerer *L, TSNode n, PyNum *out) {
  size_t len;
  const char *s = node_text(L, n, &len);
  if (is_imaginary(s, len)) return *out = pynum_complex(0.0, lower_float_text(s, len - 1)), true;
  if (node_is(L, n, K_integer)) return pynum_parse_int(s, len, out);
  *out = pynum_float(lower_float_text(s, len));
  return true;
}

static bool fold_unary(Lowerer *L, TSNode n, PyNum *out) {
  const char *t = ts_node_type(lower_field(L, n, F_operator));
  PyNum v;
  if (!fold_value(L, lower_field(L, n, F_argument), &v)) return false;
  return pynum_unary(t[0] == '-' ? OP_NEG : t[0] == '+' ? OP_POS : OP_INVERT, &v, out);
}

/* The left spine of a chain of binary operators: n, then its left operand while that is a
 * binary operator; the leaf (the bottom node's left operand) in *leaf. */
static size_t chain_spine(Lowerer *L, TSNode n, TSNode **spine, TSNode *leaf) {
  VEC(TSNode) v = {0};
  for (; node_is(L, n, K_binary_operator); n = lower_field(L, n, F_left)) vec_push(L->a, &v, n);
  *spine = v.items;
  *leaf = n;
  return v.len;
}

/* Applies the spine's operators from the bottom (spine[len - 1]) up while their right operands
 * fold and CPython would fold the operation; returns how many were applied to *acc. */
static size_t fold_spine(Lowerer *L, TSNode *spine, size_t len, PyNum *acc) {
  size_t done = 0;
  for (size_t i = len; i-- > 0; done++) {
    Op op;
    PyNum right;
    const char *text = ts_node_type(lower_field(L, spine[i], F_operator));
    if (!lower_op_from_text(text, &op) || op > OP_BITXOR) break;
    if (!fold_value(L, lower_field(L, spine[i], F_right), &right)) break;
    if (!pynum_binary(op, acc, &right, PY_FOLD, acc)) break;
  }
  return done;
}

static bool fold_binary(Lowerer *L, TSNode n, PyNum *out) {
  TSNode *spine, leaf;
  size_t len = chain_spine(L, n, &spine, &leaf);
  return fold_value(L, leaf, out) && fold_spine(L, spine, len, out) == len;
}

static bool fold_kind(Lowerer *L, TSNode n, PyNum *out) {
  TSNode inner[2];
  switch (node_kind(L, n)) {
  case K_integer:
  case K_float: return fold_literal(L, n, out);
  case K_true:
  case K_false: *out = pynum_bool(node_is(L, n, K_true)); return true;
  case K_parenthesized_expression: return node_kids(L, n, inner, 2) == 1 && fold_value(L, inner[0], out);
  case K_unary_operator: return fold_unary(L, n, out);
  case K_not_operator:
    if (!fold_value(L, lower_field(L, n, F_argument), out)) return false;
    *out = pynum_bool(!pynum_truth(out));
    return true;
  case K_binary_operator: return fold_binary(L, n, out);
  default: return false;
  }
}

/* The value n folds to; false when it is no constant expression CPython folds. Nesting is bounded
 * as the lowering's is, without a diagnostic (the lowering that follows reports it). */
static bool fold_value(Lowerer *L, TSNode n, PyNum *out) {
  if (ts_node_is_null(n) || L->depth >= P2C_MAX_NESTING) return false;
  L->depth++;
  bool ok = fold_kind(L, n, out);
  L->depth--;
  return ok;
}

/* The literal of a folded value, at n; NULL after a diagnostic for an int beyond uint64. */
static Expr *literal_of(Lowerer *L, const PyNum *v, TSNode n) {
  Loc loc = node_loc(L, n);
  if (v->kind == PN_FLOAT || v->kind == PN_COMPLEX) {
    Expr *e = ast_new_expr(L->a, v->kind == PN_FLOAT ? EX_FLOAT : EX_IMAG, loc);
    e->fval = v->kind == PN_FLOAT ? v->f : v->im;
    e->real = v->kind == PN_FLOAT ? 0.0 : v->f;
    return e;
  }
  int64_t i = 0;
  bool is_unsigned = false;
  if (v->kind == PN_INT && !pynum_to_int64(v, &i, &is_unsigned)) {
    char text[160];
    pynum_int_text(v, text, sizeof text);
    diag_error(L->c, loc, "E-int-too-large", "the constant %s does not fit in 64 bits (Numba types an "
               "int constant as int64, or uint64 above INT64_MAX)", text);
    return NULL;
  }
  Expr *e = ast_new_expr(L->a, v->kind == PN_BOOL ? EX_BOOL : EX_INT, loc);
  e->ival = v->kind == PN_BOOL ? (int64_t)pynum_truth(v) : i;
  e->uval = (uint64_t)e->ival;
  e->is_unsigned_literal = is_unsigned;
  return e;
}

bool lower_fold(Lowerer *L, TSNode n, Expr **out) {
  PyNum v;
  if (!fold_value(L, n, &v)) return false;
  *out = literal_of(L, &v, n);
  return true;
}

bool lower_fold_chain(Lowerer *L, TSNode *spine, size_t len, TSNode leaf, Expr **out, size_t *done) {
  PyNum v;
  if (!fold_value(L, leaf, &v)) return false;
  *done = fold_spine(L, spine, len, &v);
  *out = literal_of(L, &v, *done ? spine[len - *done] : leaf);
  return true;
}
