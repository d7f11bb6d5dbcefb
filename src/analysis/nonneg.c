/* Which values are known to be >= 0 (and > 0), so that codegen can index without Python's
 * wraparound and divide with C's / and % where Python's // and % give the same.
 *
 * A variable is non-negative when every value assigned to it is: an_nonneg starts from "all
 * local integers" and removes the ones an assignment disproves, until nothing changes, and
 * records the result on the function (nonneg, positive). The expression questions read it. */
#include "analysis/walk.h"

/* ---- expressions ---- */

bool an_expr_is_pure(const Expr *e) {
  if (e->kind == EX_CALL && e->kids[0]->kind != EX_ATTR) {   /* x.conjugate() is pure */
    if (e->kids[0]->kind == EX_FUNC || (e->kids[0]->builtin->facts & BF_EFFECTS)) return false;
    if (e->ty && e->ty->kind == TY_ARRAY && builtin_has(e->kids[0]->builtin, BF_UFUNC)) return false;   /* out */
  }
  for (int i = 0; i < e->nkids; i++)
    if (!an_expr_is_pure(e->kids[i])) return false;
  return true;
}

/* An operand's fact: recorded once an_record_facts has reached it (operands first), else
 * computed (the fixpoint over variables runs before anything is recorded). */
static bool kid_nonneg(const Function *f, const Expr *e) {
  return e->facts & EF_KNOWN ? (e->facts & EF_NONNEG) != 0 : an_expr_nonneg(f, e);
}

static bool kid_positive(const Function *f, const Expr *e) {
  return e->facts & EF_KNOWN ? (e->facts & EF_POSITIVE) != 0 : an_expr_positive(f, e);
}

/* Whether an integer or bool value >= 0 of type `from` stays >= 0 converted to the integer type
 * `to`: a wider type holds it, and so does one of the same width unless an unsigned value becomes
 * signed (uint64 2**64 - 2 cast to int64 is -2: fuzz.py --kind ops, seed 54). */
static bool cast_keeps_sign(const Type *to, const Type *from) {
  if (to->kind != TY_INT || (from->kind != TY_INT && from->kind != TY_BOOL)) return false;
  if (to->bits > from->bits) return true;
  return to->bits == from->bits && (from->kind == TY_BOOL || from->is_signed || !to->is_signed);
}

static bool call_nonneg(const Function *f, const Expr *e) {
  const Builtin *b = e->kids[0]->kind == EX_BUILTIN ? e->kids[0]->builtin : NULL;
  if (!b) return false;
  if (b->facts & BF_NONNEG) return true;
  if (!(b->facts & (BF_NONNEG_IF_ALL | BF_NONNEG_IF_ANY))) return false;
  int n = 0;
  for (int i = 1; i < e->nkids; i++) n += kid_nonneg(f, e->kids[i]);
  return b->facts & BF_NONNEG_IF_ALL ? n == e->nkids - 1 : n > 0;
}

bool an_expr_positive(const Function *f, const Expr *e) {
  switch (e->kind) {
  case EX_INT: return e->is_unsigned_literal ? e->uval > 0 : e->ival > 0;
  case EX_CONST: return e->konst->value->kind == EX_INT && e->konst->value->ival > 0;
  case EX_VAR: return f && f->positive && f->positive[e->var];
  case EX_BUILTIN: return builtin_has(e->builtin, BF_POSITIVE);
  case EX_CAST:
    return cast_keeps_sign(e->ty, e->kids[0]->ty) && kid_positive(f, e->kids[0]);
  case EX_CALL:
    return e->kids[0]->kind == EX_BUILTIN && builtin_has(e->kids[0]->builtin, BF_POSITIVE);
  case EX_BINARY:
    if (e->op == OP_MUL) return kid_positive(f, e->kids[0]) && kid_positive(f, e->kids[1]);
    if (e->op == OP_ADD)
      return (kid_positive(f, e->kids[0]) && kid_nonneg(f, e->kids[1])) ||
             (kid_nonneg(f, e->kids[0]) && kid_positive(f, e->kids[1]));
    return false;
  default: return false;   /* not known to be > 0 */
  }
}

static bool binary_nonneg(const Function *f, const Expr *e) {
  if (e->ty->kind != TY_INT) return false;
  switch (e->op) {
  case OP_ADD:
  case OP_MUL:
  case OP_FLOORDIV:
  case OP_BITOR:
  case OP_RSHIFT: return kid_nonneg(f, e->kids[0]) && kid_nonneg(f, e->kids[1]);
  case OP_MOD: return kid_nonneg(f, e->kids[1]);
  case OP_BITAND: return kid_nonneg(f, e->kids[0]) || kid_nonneg(f, e->kids[1]);
  default: return false;   /* the other operators */
  }
}

bool an_expr_nonneg(const Function *f, const Expr *e) {
  if (e->ty && type_never_negative(e->ty)) return true;
  switch (e->kind) {
  case EX_INT: return e->is_unsigned_literal || e->ival >= 0;
  case EX_BOOL: return true;
  case EX_TEMP: return e->ival == 1;
  case EX_VAR: return f && f->nonneg && f->nonneg[e->var];
  case EX_CONST: return e->konst->value->kind == EX_INT && e->konst->value->ival >= 0;
  case EX_BUILTIN: return builtin_has(e->builtin, BF_NONNEG);
  case EX_ATTR: return expr_is_array_attr(e);   /* size, ndim; a field, .real or .x is unknown */
  case EX_CAST:
    return cast_keeps_sign(e->ty, e->kids[0]->ty) && kid_nonneg(f, e->kids[0]);
  case EX_IFEXP: return kid_nonneg(f, e->kids[1]) && kid_nonneg(f, e->kids[2]);
  case EX_CALL: return call_nonneg(f, e);
  case EX_BINARY: return binary_nonneg(f, e);
  default: return false;   /* not known to be >= 0 */
  }
}

/* ---- variables ---- */

typedef struct Scan {
  Function *f;
  bool changed;
  StmtList *loops;         /* the first pass lists the range() loops here */
  Arena *a;
} Scan;

static void disprove(Scan *sc, int v, bool nonneg, bool positive) {
  if (sc->f->nonneg[v] && !nonneg) sc->f->nonneg[v] = false, sc->changed = true;
  if (sc->f->positive[v] && !positive) sc->f->positive[v] = false, sc->changed = true;
}

/* Element k (k < 0: the whole) of `value` assigned to target. */
static void assigned_nonneg(Scan *sc, const Expr *target, const Expr *value, int k) {
  if (target->kind != EX_VAR) return;
  const Function *f = sc->f;
  bool nn, pos;
  if (k < 0) nn = an_expr_nonneg(f, value), pos = an_expr_positive(f, value);
  else if (value->kind == EX_TUPLE) nn = an_expr_nonneg(f, value->kids[k]), pos = an_expr_positive(f, value->kids[k]);
  else {   /* grid(), gridsize() and .shape are >= 0; any other tuple is unknown */
    const Builtin *b = value->kind == EX_CALL && value->kids[0]->kind == EX_BUILTIN ? value->kids[0]->builtin : NULL;
    nn = value->kind == EX_ATTR || (b && builtin_has(b, BF_NONNEG));
    pos = b && builtin_has(b, BF_POSITIVE);
  }
  disprove(sc, target->var, nn, pos);
}

static void clear_target(Scan *sc, const Expr *t) {
  if (t->kind == EX_VAR) disprove(sc, t->var, false, false);
  else
    for (int i = 0; i < t->nkids; i++) clear_target(sc, t->kids[i]);
}

static BuiltinId iter_call(const Expr *it) {
  if (it->kind != EX_CALL || it->kids[0]->kind != EX_BUILTIN) return BI_NONE;
  return builtin_has(it->kids[0]->builtin, BF_ITERABLE) ? it->kids[0]->builtin->id : BI_NONE;
}

/* Disproves non-negativity of the variables in `target`, which receives what `it` yields. */
static void iterated_nonneg(Scan *sc, const Expr *target, const Expr *it) {
  BuiltinId id = iter_call(it);
  if (target->kind == EX_TUPLE && (id == BI_ENUMERATE || id == BI_ZIP) &&
      target->nkids == it->nkids - 1 - (id == BI_ENUMERATE && it->nkids == 3)) {
    for (int i = 0; i < target->nkids; i++) {
      if (id == BI_ENUMERATE && i == 0) {
        bool nn = it->nkids == 2 || an_expr_nonneg(sc->f, it->kids[2]);
        if (target->kids[0]->kind == EX_VAR) disprove(sc, target->kids[0]->var, nn, false);
        else clear_target(sc, target->kids[0]);
      } else {
        iterated_nonneg(sc, target->kids[i], it->kids[id == BI_ENUMERATE ? 1 : i + 1]);
      }
    }
    return;
  }
  if (target->kind != EX_VAR) {
    clear_target(sc, target);
    return;
  }
  bool nn = false;
  if (id == BI_RANGE) {
    int n = it->nkids - 1;
    const Expr *start = n >= 2 ? it->kids[1] : NULL, *step = n == 3 ? it->kids[3] : NULL;
    nn = (!start || an_expr_nonneg(sc->f, start)) && (!step || an_expr_positive(sc->f, step));
  } else if (id == BI_NONE && it->ty && it->ty->kind == TY_ARRAY) {
    nn = type_never_negative(it->ty->dtype) && it->ty->ndim == 1;
  }
  disprove(sc, target->var, nn, false);
}

/* A statement's bindings: assignments, a range loop's variable, a for loop's targets. A switch
 * without default: the compiler names a new statement kind here. */
static bool scan_stmt(AstWalker *w, const Stmt *s) {
  Scan *sc = w->ctx;
  switch (s->kind) {
  case ST_ASSIGN:
  case ST_AUGASSIGN:
    for (int i = 0; i < s->ntargets; i++) {
      const Expr *t = s->targets[i];
      if (t->kind == EX_TUPLE)
        for (int k = 0; k < t->nkids; k++) assigned_nonneg(sc, t->kids[k], s->value, k);
      else assigned_nonneg(sc, t, s->value, -1);
    }
    break;
  case ST_FOR_RANGE: {
    if (sc->loops) vec_push(sc->a, sc->loops, (Stmt *)s);
    bool ok = (!s->start || an_expr_nonneg(sc->f, s->start)) && an_step_is_positive(sc->f, s->step);
    disprove(sc, s->var, ok, false);
    break;
  }
  case ST_FOR_ITER: iterated_nonneg(sc, s->targets[0], s->value); break;
  case ST_EXPR:
  case ST_IF:
  case ST_WHILE:
  case ST_BREAK:
  case ST_CONTINUE:
  case ST_PASS:
  case ST_RETURN:
  case ST_RAISE: break;
  }
  return true;
}

void an_nonneg(Function *f, Arena *a, StmtList *loops) {
  size_t n = (size_t)(f->nvars ? f->nvars : 1);
  f->nonneg = arena_alloc(a, sizeof(bool) * n);
  f->positive = arena_alloc(a, sizeof(bool) * n);
  for (int i = 0; i < f->nvars; i++) {
    const Type *t = f->vars[i].ty;
    bool unsigned_int = t && type_never_negative(t);
    bool local_int = !f->vars[i].is_param && t && t->kind == TY_INT;
    f->nonneg[i] = unsigned_int || local_int;
    f->positive[i] = local_int;
  }
  Scan sc = {f, true, loops, a};
  AstWalker w = {.stmt = scan_stmt, .ctx = &sc};
  while (sc.changed) {
    sc.changed = false;
    ast_walk_block(&w, &f->body);
    sc.loops = NULL;
  }
}
