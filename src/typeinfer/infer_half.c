/* Typing of float16, as numba-cuda types it: float16 op float16 is float16 for + - * / (each
 * operation rounds to float16, as the GPU's f16 instructions do); mixed with other numbers the
 * operands promote with NumPy's rules (bools and 8-bit ints stay float16, 16-bit ints give
 * float32, wider ints float64, float32 and float64 win) and the operation is that type's.
 * float16 has no //, %, ** or bit operations of its own, and the math module does not take it;
 * cuda.fp16 has the intrinsics (hadd ... hle), whose parameters are float16: a bool, int or
 * float argument converts to float16, as Numba's overload resolution converts it (an unsafe
 * conversion it allows: hmul(h, 2), hadd(h, x32)). */
#include "typeinfer/infer.h"

static bool is_bit_op(Op op) {
  return op == OP_LSHIFT || op == OP_RSHIFT || op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR;
}

const Type *infer_half_binary(Infer *I, Expr *e, const Type **a, const Type **b) {
  const Type *t = type_arith(*a, *b);
  if (!t || is_bit_op(e->op)) {
    TERR(I, e->loc, "E-operand", "unsupported operand types for %s: %s and %s", op_python_spelling(e->op),
         (*a)->name, (*b)->name);
    return NULL;
  }
  if (t == &type_float16 && e->op != OP_ADD && e->op != OP_SUB && e->op != OP_MUL && e->op != OP_DIV) {
    TERR(I, e->loc, "E-operand", "'%s' on float16 is not supported (convert with float(x) first)",
         op_python_spelling(e->op));
    return NULL;
  }
  infer_coerce(I, &e->kids[0], t);
  infer_coerce(I, &e->kids[1], t);
  *a = *b = t;
  return t;
}

const Type *infer_half_unary(Infer *I, Expr *e, const Type *t) {
  if (e->op == OP_INVERT) {
    TERR(I, e->loc, "E-operand", "unsupported operand type for unary ~: %s", t->name);
    return NULL;
  }
  return t;
}

/* cuda.fp16.hadd(a, b) and the other intrinsics. */
const Type *infer_fp16_call(Infer *I, Expr *e, const Type **t) {
  const Builtin *b = e->builtin;
  int n = b->min_args;
  for (int i = 1; i <= n; i++) {
    if (t[i] != &type_float16 && !type_is_number(t[i])) {
      TERR(I, e->kids[i]->loc, "E-arg", "%s() takes float16 arguments (or bool, int and float ones, "
           "converted), not %s", builtin_display_name(b), t[i]->name);
      return NULL;
    }
    infer_coerce(I, &e->kids[i], &type_float16);
  }
  return b->result;
}
