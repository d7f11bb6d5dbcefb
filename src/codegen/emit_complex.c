/* Emission of complex numbers. The prelude's p2c_complex64/p2c_complex128 (TH_COMPLEX) have
 * the C++ operators + - * / == !=, so arithmetic reads as it does in Python; what is left here
 * is the spelling of literals and conversions (`p2c_complex128(x)`), ** (p2c_cpow), the parts
 * (`z.re`, `z.im`), conjugate(), abs() and the cmath functions. The cmath functions are written
 * for complex128: a complex64 argument is widened and the result rounded back. */
#include <math.h>
#include <string.h>

#include "codegen/cg.h"

/* 2.5j, or a folded complex constant (1+2j)**2 with its real part */
void emit_imag_literal(Gen *G, const Expr *e, StrBuf *sb) {
  Expr re = {.kind = EX_FLOAT, .fval = e->real, .ty = &type_float64};
  Expr im = {.kind = EX_FLOAT, .fval = e->fval, .ty = &type_float64};
  sb_puts(sb, "p2c_complex128(");
  if (e->real == 0 && !signbit(e->real)) sb_puts(sb, "0.0");
  else emit_expr(G, &re, sb, P_ASSIGN);
  sb_puts(sb, ", ");
  emit_expr(G, &im, sb, P_ASSIGN);
  sb_putc(sb, ')');
}

/* T(x): a real number or the other complex type converted to complex type T. */
void emit_complex_cast(Gen *G, const Expr *e, StrBuf *sb) {
  bool half = e->kids[0]->ty->kind == TY_HALF;   /* float16 goes through float32 (exact) */
  sb_printf(sb, "%s(%s", e->ty->cname, half ? "p2c_float_of(" : "");
  emit_expr(G, e->kids[0], sb, P_ASSIGN);
  sb_puts(sb, half ? "))" : ")");
}

void emit_complex_pow(Gen *G, const Expr *e, StrBuf *sb) {
  type_helper_use(&G->helpers, TH_CPOW);
  sb_puts(sb, "p2c_cpow(");
  emit_expr(G, e->kids[0], sb, P_ASSIGN);
  sb_puts(sb, ", ");
  emit_expr(G, e->kids[1], sb, P_ASSIGN);
  sb_putc(sb, ')');
}

/* x.real, x.imag: the members of a complex number; a real number is its own real part and has
 * an imaginary part of 0 (its expression still runs when it has side effects). */
void emit_part(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const Expr *x = e->kids[0];
  bool real = strcmp(e->str, "real") == 0;
  if (x->ty->kind == TY_COMPLEX) {
    emit_expr(G, x, sb, P_POSTFIX);
    sb_puts(sb, real ? ".re" : ".im");
  } else if (real) {
    emit_expr(G, x, sb, prec);
  } else if (an_expr_is_pure(x)) {
    sb_printf(sb, "(%s)0", e->ty->cname);
  } else {
    sb_puts(sb, "((void)");
    emit_expr(G, x, sb, P_UNARY);
    sb_printf(sb, ", (%s)0)", e->ty->cname);
  }
}

/* x.conjugate() */
void emit_method_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const Expr *x = e->kids[0]->kids[0];
  if (x->ty->kind != TY_COMPLEX) {
    emit_expr(G, x, sb, prec);
    return;
  }
  sb_puts(sb, "p2c_conj(");
  emit_expr(G, x, sb, P_ASSIGN);
  sb_putc(sb, ')');
}

/* abs(z) */
void emit_complex_abs(Gen *G, const Expr *e, StrBuf *sb) {
  sb_puts(sb, "p2c_cabs(");
  emit_expr(G, e->kids[1], sb, P_ASSIGN);
  sb_putc(sb, ')');
}

/* An argument of a complex128 cmath function: a complex64 value is widened. */
static void emit_wide_arg(Gen *G, const Expr *a, StrBuf *sb) {
  bool narrow = a->ty == &type_complex64;
  if (narrow) sb_puts(sb, "p2c_complex128(");
  emit_expr(G, a, sb, P_ASSIGN);
  if (narrow) sb_putc(sb, ')');
}

/* cmath.f(z[, w]) computed in complex128, its result converted to the call's type (the row
 * names the prelude group holding f). */
void emit_cmath_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const char *fn = e->builtin->c64;
  (void)prec;
  bool narrow = e->ty != &type_complex128 && e->ty != &type_float64 && e->ty != &type_bool;
  if (narrow) sb_printf(sb, "%s(", e->ty->kind == TY_COMPLEX ? e->ty->cname : "(float)");
  sb_printf(sb, "%s(", fn);
  for (int i = 1; i < e->nkids; i++) {
    if (i > 1) sb_puts(sb, ", ");
    emit_wide_arg(G, e->kids[i], sb);   /* rect's float arguments stay as they are */
  }
  sb_putc(sb, ')');
  if (narrow) sb_putc(sb, ')');
}

/* cmath.polar(z): (abs(z), phase(z)), with z evaluated once. */
void emit_polar_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  const Expr *z = e->kids[1];
  const char *name;
  StrBuf pre;
  sb_init(&pre, G->a);
  if (z->kind == EX_VAR || z->kind == EX_TEMP) {
    StrBuf n;
    sb_init(&n, G->a);
    emit_expr(G, z, &n, P_POSTFIX);
    name = sb_str(&n);
  } else {
    name = new_temp(G, z->ty);
    sb_printf(&pre, "%s = ", name);
    emit_expr(G, z, &pre, P_ASSIGN);
    sb_puts(&pre, ", ");
  }
  const Type *f = e->ty->elems[0];
  const char *wide = z->ty == &type_complex64 ? arena_printf(G->a, "p2c_complex128(%s)", name) : name;
  if (pre.len) sb_printf(sb, "(%s", sb_str(&pre));
  sb_printf(sb, "%s{{p2c_cabs(%s), %sp2c_cphase(%s)}}", tuple_ctype(G, e->ty), name,
            f == &type_float32 ? "(float)" : "", wide);
  if (pre.len) sb_putc(sb, ')');
}

/* complex(re, im) */
void emit_complex_ctor_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  sb_puts(sb, "p2c_complex128(");
  for (int i = 1; i < e->nkids; i++) {
    if (i > 1) sb_puts(sb, ", ");
    emit_expr(G, e->kids[i], sb, P_ASSIGN);
  }
  sb_putc(sb, ')');
}
