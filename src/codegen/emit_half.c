/* Emission of float16. The prelude's p2c_half (TH_HALF...) has the C++ operators + - * / and the
 * comparisons, so arithmetic reads as it does in Python; conversions are spelled with the
 * prelude's functions, since a C cast cannot say how float16 rounds: p2c_half_of(x) (nearest,
 * ties to even), p2c_float_of(h) and p2c_double_of(h) (exact), p2c_half_to_int<T>(h) (Numba's
 * cvt.rni: to nearest, saturating). On the GPU each is the one PTX cvt Numba's code has
 * (cvt.f64.f16, cvt.rni.s8.f16, cvt.rn.f16.u32, ...), so inspect_asm shows the same spelling. */
#include "codegen/cg.h"

/* A cast (EX_CAST) from or to float16 or bfloat16. The functions are named after the 16-bit
 * type's C name (p2c_half_of, p2c_bf16_of); between the two, through float32, which holds both
 * exactly (one rounding). bfloat16 converts to an integer toward zero, as cuda_bf16.h's
 * conversion operators do (p2c_bf16_to_rz), an fp8 type likewise (p2c_fp8_to_int). */
void emit_half_cast(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const Type *from = e->kids[0]->ty, *to = e->ty;
  const Expr *x = e->kids[0];
  (void)prec;   /* every spelling is a call */
  if (to->kind == TY_HALF) {
    const char *kind = from->kind == TY_FLOAT || from->kind == TY_HALF ? "" : to == &type_bfloat16 ? "_rn" : "_int";
    sb_printf(sb, "%s_of%s(%s", to->cname, kind, from->kind == TY_HALF ? "p2c_float_of(" : "");
    emit_expr(G, x, sb, P_ASSIGN);
    sb_puts(sb, from->kind == TY_HALF ? "))" : ")");
    return;
  }
  if (to == &type_float32 || to == &type_float64) {   /* exact either way */
    sb_puts(sb, to == &type_float64 ? "p2c_double_of(" : "p2c_float_of(");
    emit_expr(G, x, sb, P_ASSIGN);
    sb_putc(sb, ')');
    return;
  }
  if (to->kind == TY_BOOL) sb_printf(sb, "%s_truth(", from->cname);
  else if (from == &type_bfloat16) sb_printf(sb, "p2c_bf16_to_rz<%s>(", to->cname);
  else if (type_is_fp8(from)) sb_printf(sb, "p2c_fp8_to_int<%s>(", to->cname);
  else sb_printf(sb, "p2c_half_to_int<%s>(", to->cname);
  emit_expr(G, x, sb, P_ASSIGN);
  sb_putc(sb, ')');
}

/* fn(h, ...): abs(h), and the cuda.fp16 intrinsics. */
void emit_half_call(Gen *G, const char *fn, const Expr *e, StrBuf *sb) {
  sb_printf(sb, "%s(", fn);
  for (int i = 1; i < e->nkids; i++) {
    if (i > 1) sb_puts(sb, ", ");
    emit_expr(G, e->kids[i], sb, P_ASSIGN);
  }
  sb_putc(sb, ')');
}

/* cuda.fp16.hadd(a, b) and the other intrinsics: the row's prelude function. */
void emit_half_builtin_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  emit_half_call(G, e->builtin->c64, e, sb);
}
