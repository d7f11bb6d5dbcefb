/* Emission of datetime64 and timedelta64 operations: each is a call of the prelude's TH_TIME
 * functions, whose unit arguments are constants worked out here from the operand types with
 * types.c's unit rules (time_unit_factor), so the generated code holds no unit logic of its own.
 * An operand is passed with (cal, f): how the prelude brings it to the unit the operation
 * computes in (p2c_time_to). Operands are written in Python's order, left before right. */
#include "codegen/cg.h"

/* How datetime or timedelta type t is brought to unit `to` (Numba's convert_datetime_for_arith
 * for a datetime; a timedelta is only multiplied). f 0: no integer factor exists. */
typedef struct TimeScale {
  int cal;        /* 0; years 1 or months 2 to days; years 3 or months 4 to weeks */
  int64_t f;
} TimeScale;

static TimeScale time_scale(const Type *t, P2cTimeUnit to) {
  P2cTimeUnit from = t->unit;
  bool calendar = from <= P2C_UNIT_M && to >= P2C_UNIT_W && to != P2C_UNIT_GENERIC;
  if (t->kind == TY_TIMEDELTA || !calendar) return (TimeScale){0, time_unit_factor(from, to)};
  P2cTimeUnit via = to == P2C_UNIT_W ? P2C_UNIT_W : P2C_UNIT_D;
  int cal = (from == P2C_UNIT_Y ? 1 : 2) + (via == P2C_UNIT_W ? 2 : 0);
  return (TimeScale){cal, time_unit_factor(via, to)};
}

static void use_time_helpers(Gen *G) {
  helper_use(&G->helpers, H_INF_NAN);
  type_helper_use(&G->helpers, TH_TIME);
  type_helper_use(&G->helpers, TH_TIME_SCALE);
}

/* "x, cal, f" for one operand (`temp`: its value is already in that temporary). */
static void emit_scaled_operand(Gen *G, const Expr *x, const char *temp, TimeScale s, StrBuf *sb) {
  if (temp) sb_puts(sb, temp);
  else emit_expr(G, x, sb, P_ASSIGN);
  sb_printf(sb, ", %d, %lldLL", s.cal, (long long)s.f);
}

/* The scales two timedeltas compare or divide with: the one that converts is multiplied
 * (Numba's normalize_timedeltas); two that do not convert get f 0 (== false, != true). */
static void timedelta_pair_scales(const Type *a, const Type *b, TimeScale *sa, TimeScale *sb) {
  *sa = *sb = (TimeScale){0, 1};
  int64_t f = time_unit_factor(a->unit, b->unit);
  if (f) sa->f = f;
  else sb->f = time_unit_factor(b->unit, a->unit);
}

static void emit_pair(Gen *G, const char *fn, const Expr *a, const char *ta, TimeScale sa, const Expr *b,
                      const char *tb, TimeScale sb_, StrBuf *sb) {
  use_time_helpers(G);
  sb_printf(sb, "%s(", fn);
  emit_scaled_operand(G, a, ta, sa, sb);
  sb_puts(sb, ", ");
  emit_scaled_operand(G, b, tb, sb_, sb);
  sb_putc(sb, ')');
}

/* + and -: both operands are brought to the result's unit. */
static void emit_additive(Gen *G, const Expr *e, StrBuf *sb) {
  const Expr *a = e->kids[0], *b = e->kids[1];
  P2cTimeUnit r = e->ty->unit;
  emit_pair(G, e->op == OP_ADD ? "p2c_time_add" : "p2c_time_sub", a, NULL, time_scale(a->ty, r), b, NULL,
            time_scale(b->ty, r), sb);
}

/* timedelta / timedelta: a float64. */
static void emit_ratio(Gen *G, const Expr *e, StrBuf *sb) {
  TimeScale sa, sb_;
  timedelta_pair_scales(e->kids[0]->ty, e->kids[1]->ty, &sa, &sb_);
  use_time_helpers(G);
  sb_puts(sb, "p2c_time_ratio(");
  emit_expr(G, e->kids[0], sb, P_ASSIGN);
  sb_printf(sb, ", %lldLL, ", (long long)sa.f);
  emit_expr(G, e->kids[1], sb, P_ASSIGN);
  sb_printf(sb, ", %lldLL)", (long long)sb_.f);
}

/* The number of a scaling, spelled with its C type: p2c_time_mul is overloaded on int64_t,
 * float and double, and a literal 2 (a C int) would match none better than the others. */
static void emit_scale_number(Gen *G, const Expr *n, StrBuf *sb) {
  if (n->kind == EX_CAST) {   /* already spelled with its type */
    emit_expr(G, n, sb, P_ASSIGN);
    return;
  }
  sb_printf(sb, "(%s)", n->ty->cname);
  emit_expr(G, n, sb, P_UNARY);
}

/* timedelta * n, n * timedelta, timedelta / n, timedelta // n. */
static void emit_scaled(Gen *G, const Expr *e, StrBuf *sb) {
  bool td_left = e->kids[0]->ty->kind == TY_TIMEDELTA;
  use_time_helpers(G);
  sb_puts(sb, e->op != OP_MUL ? "p2c_time_div(" : td_left ? "p2c_time_mul(" : "p2c_time_rmul(");
  if (td_left) emit_expr(G, e->kids[0], sb, P_ASSIGN);
  else emit_scale_number(G, e->kids[0], sb);
  sb_puts(sb, ", ");
  if (td_left) emit_scale_number(G, e->kids[1], sb);
  else emit_expr(G, e->kids[1], sb, P_ASSIGN);
  sb_putc(sb, ')');
}

void emit_time_binary(Gen *G, const Expr *e, StrBuf *sb) {
  const Type *a = e->kids[0]->ty, *b = e->kids[1]->ty;
  if (e->op == OP_ADD || e->op == OP_SUB) emit_additive(G, e, sb);
  else if (type_is_time(a) && type_is_time(b)) emit_ratio(G, e, sb);
  else emit_scaled(G, e, sb);
}

void emit_time_unary(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  if (e->op == OP_POS) {
    emit_expr(G, e->kids[0], sb, prec);
    return;
  }
  use_time_helpers(G);
  sb_puts(sb, "p2c_time_neg(");
  emit_expr(G, e->kids[0], sb, P_ASSIGN);
  sb_putc(sb, ')');
}

void emit_time_abs(Gen *G, const Expr *e, StrBuf *sb) {
  use_time_helpers(G);
  sb_puts(sb, "p2c_time_abs(");
  emit_expr(G, e->kids[1], sb, P_ASSIGN);
  sb_putc(sb, ')');
}

/* One comparison of a chain (`ta`, `tb`: the operands' temporaries, or NULL). Datetimes compare
 * in the finer unit; timedeltas as they divide. */
void emit_time_compare(Gen *G, Op op, const Expr *a, const char *ta, const Expr *b, const char *tb, StrBuf *sb) {
  static const char *const fns[] = {[OP_LT] = "p2c_time_lt", [OP_LE] = "p2c_time_le", [OP_GT] = "p2c_time_gt",
                                    [OP_GE] = "p2c_time_ge", [OP_EQ] = "p2c_time_eq", [OP_NE] = "p2c_time_ne"};
  TimeScale sa, sb_;
  if (a->ty->kind == TY_DATETIME) {
    P2cTimeUnit r = time_unit_best(a->ty->unit, b->ty->unit);
    sa = time_scale(a->ty, r);
    sb_ = time_scale(b->ty, r);
  } else {
    timedelta_pair_scales(a->ty, b->ty, &sa, &sb_);
  }
  emit_pair(G, fns[op], a, ta, sa, b, tb, sb_, sb);
}

/* np.isnat(x) */
void emit_isnat_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  use_time_helpers(G);
  sb_puts(sb, "p2c_time_isnat(");
  emit_expr(G, e->kids[1], sb, P_ASSIGN);
  sb_putc(sb, ')');
}

/* min(a, b, ...) and max(a, b, ...) fold with p2c_time_min/max, which keep the first value
 * unless the next compares below (above) it: NaT compares neither way, so a NaT first stays, a
 * NaT later is passed over, as Numba's reduction of comparisons gives. */
const char *emit_time_minmax_function(Gen *G, const Expr *e) {
  use_time_helpers(G);
  return e->builtin->id == BI_MIN ? "p2c_time_min" : "p2c_time_max";
}
