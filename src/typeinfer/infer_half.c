/* Typing of float16, as numba-cuda types it: float16 op float16 is float16 for + - * / (each
 * operation rounds to float16, as the GPU's f16 instructions do); mixed with other numbers the
 * operands promote with NumPy's rules (bools and 8-bit ints stay float16, 16-bit ints give
 * float32, wider ints float64, float32 and float64 win) and the operation is that type's.
 * float16 has no //, %, ** or bit operations of its own, and the math module does not take it;
 * cuda.fp16 has the intrinsics (hadd ... hle), whose parameters are float16: a bool, int or
 * float argument converts to float16, as Numba's overload resolution converts it (an unsafe
 * conversion it allows: hmul(h, 2), hadd(h, x32)).
 *
 * bfloat16 (numba-cuda's numba.cuda.bf16, whose typing comes from cuda_bf16.h's operators):
 * bfloat16 op bfloat16 is bfloat16 for + - * / and the comparisons, and it mixes with no other
 * type (cuda_bf16.h has no mixed operators; a value converts with bfloat16(x) or float32(b)).
 * numba.cuda.bf16's intrinsics take the parameter types of their C functions (row proto).
 *
 * The fp8 types (numba.cuda._internal.cuda_fp8) only convert, from and to numbers, float16 and
 * bfloat16: no operators, no math (cuda_fp8.h has none). Its cvt_* intrinsics convert storage
 * bytes and bfloat16 bits (bfloat16_raw), with cuda_fp8.h's enums' members as arguments. */
#include <string.h>

#include "typeinfer/infer.h"

static bool is_bit_op(Op op) {
  return op == OP_LSHIFT || op == OP_RSHIFT || op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR;
}

const Type *infer_half_binary(Infer *I, Expr *e, const Type **a, const Type **b) {
  if (type_is_fp8(*a) || type_is_fp8(*b)) {
    TERR(I, e->loc, "E-operand", "unsupported operand types for %s: %s and %s (the fp8 types have no "
         "arithmetic: convert with float32(x) first)", op_python_spelling(e->op), (*a)->name, (*b)->name);
    return NULL;
  }
  const Type *t = type_arith(*a, *b);
  if (!t || is_bit_op(e->op)) {
    TERR(I, e->loc, "E-operand", "unsupported operand types for %s: %s and %s%s", op_python_spelling(e->op),
         (*a)->name, (*b)->name, !t ? " (bfloat16 computes with bfloat16 only: convert with bfloat16(x) "
         "or float32(b) first)" : "");
    return NULL;
  }
  if (t->kind == TY_HALF && e->op != OP_ADD && e->op != OP_SUB && e->op != OP_MUL && e->op != OP_DIV) {
    TERR(I, e->loc, "E-operand", "'%s' on %s is not supported (convert with float(x) first)",
         op_python_spelling(e->op), t->name);
    return NULL;
  }
  infer_coerce(I, &e->kids[0], t);
  infer_coerce(I, &e->kids[1], t);
  *a = *b = t;
  return t;
}

const Type *infer_half_unary(Infer *I, Expr *e, const Type *t) {
  if (e->op == OP_INVERT || type_is_fp8(t)) {
    TERR(I, e->loc, "E-operand", "unsupported operand type for unary %s: %s", op_python_spelling(e->op), t->name);
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

/* The type a letter of a numba.cuda.bf16 row's proto stands for: b bfloat16, f float32,
 * d float64, s/S int16/uint16, i/I int32/uint32, l/L int64/uint64. */
static const Type *bf16_param_type(char letter) {
  switch (letter) {
  case 'b': return &type_bfloat16;
  case 'f': return &type_float32;
  case 'd': return &type_float64;
  case 's': return &type_int16;
  case 'S': return &type_uint16;
  case 'i': return &type_int32;
  case 'I': return &type_uint32;
  case 'l': return &type_int64;
  case 'L': return &type_uint64;
  default: return NULL;
  }
}

/* numba.cuda.bf16.hadd(a, b), bfloat16_to_int32_rz(b), int16_as_bfloat16(i) ...: a parameter
 * takes a bool, int, float or bfloat16, converted as numba-cuda's overload resolution converts
 * it (cuda_bf16.h's constructors and conversion operators: bfloat16_as_int16(i16) is the bits of
 * bfloat16(i16), as numba-cuda's test_bfloat16 relies on). */
const Type *infer_bf16_call(Infer *I, Expr *e, const Type **t) {
  const Builtin *b = e->builtin;
  for (int i = 1; i <= b->min_args; i++) {
    const Type *p = bf16_param_type(b->proto[i - 1]);
    if (!type_is_number(t[i]) && t[i] != &type_bfloat16) {
      TERR(I, e->kids[i]->loc, "E-arg", "%s() takes %s as argument %d (or a number, converted), not %s",
           builtin_display_name(b), p->name, i, t[i]->name);
      return NULL;
    }
    infer_coerce(I, &e->kids[i], p);
  }
  return b->result;
}

/* The enum class a letter of an fp8 cvt_* row's proto names (S, I, R), or NULL for a number. */
static const char *fp8_cvt_enum(char letter) {
  switch (letter) {
  case 'S': return "saturation_t";
  case 'I': return "fp8_interpretation_t";
  case 'R': return "cudaRoundMode";
  default: return NULL;
  }
}

/* One argument of an fp8 cvt_* call: a member of the enum its letter names (numba-cuda's
 * overloads take IntEnumMember(cls, int64) only), the bfloat16_raw ('r') a cvt_ gave, or a number
 * converted to float32 ('f'), float64 ('d') or an e8m0 storage byte ('u', uint8). */
static bool fp8_cvt_arg(Infer *I, Expr *e, int i, const Type *t) {
  char letter = e->builtin->proto[i - 1];
  const char *cls = fp8_cvt_enum(letter);
  const Type *want = letter == 'f' ? &type_float32 : letter == 'd' ? &type_float64 : letter == 'u' ? &type_uint8 :
                     letter == 'r' ? &type_bf16_raw : &type_int32;
  bool ok = cls ? t->kind == TY_INT && t->enum_class && strcmp(t->enum_class, cls) == 0
                : letter == 'r' ? t == want : type_is_number(t);
  if (!ok) {
    TERR(I, e->kids[i]->loc, "E-arg", "%s() takes %s%s as argument %d, not %s", builtin_display_name(e->builtin),
         cls ? "a member of " : "", cls ? cls : want->name, i, t->name);
    return false;
  }
  infer_coerce(I, &e->kids[i], want);
  return true;
}

/* cvt_float_to_fp8(x, saturation_t.NOSAT, fp8_interpretation_t.E4M3), cvt_e8m0_to_bf16raw(b) ...
 * (numba.cuda._internal.cuda_fp8): the row's result, a storage byte or a bfloat16_raw. */
const Type *infer_fp8_cvt_call(Infer *I, Expr *e, const Type **t) {
  for (int i = 1; i <= e->builtin->min_args; i++)
    if (!fp8_cvt_arg(I, e, i, t[i])) return NULL;
  return e->builtin->result;
}
