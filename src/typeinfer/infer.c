/* Type inference for functions and statements (expressions are in infer_expr.c).
 *
 * Each specialization is typed by passes over its body until no variable's type widens (the
 * lattice of unified types is finite, so this ends), then one final pass that reports errors
 * and inserts casts. A variable has one type for the whole function: the unification of every
 * value assigned to it (Numba's rule for numbers: int64 and float64 give float64). */
#include <string.h>

#include "typeinfer/infer.h"

enum { MAX_PASSES = 64, MAX_SPEC_DEPTH = TYPEINFER_MAX_CALL_DEPTH };

/* ---- variables ---- */

/* Widens variable v to hold a value of type t (from an assignment at loc). */
static void assign_var(Infer *I, int v, const Type *t, Loc loc) {
  Var *var = &I->fn->vars[v];
  if (!t) {
    if (I->final) var->poisoned = true;   /* the error was reported where the value is */
    return;
  }
  if (t->kind == TY_STR || t->kind == TY_BYTES || t->kind == TY_DTYPE || t->kind == TY_VOID) {
    TERR(I, loc, "E-bad-value", "cannot assign a value of type %s to a variable", t->name);
    return;
  }
  if (!var->ty) {
    var->ty = t;
    var->ty_loc = loc;
    I->changed = true;
    return;
  }
  /* A parameter widens like any variable (codegen copies it into a local of the wider type). */
  const Type *u = type_unify(I->tt, var->ty, t);
  if (!u) {
    TERR(I, loc, "E-unify", "cannot unify %s and %s for '%s' (first assigned at line %u)",
         var->ty->name, t->name, var->name, var->ty_loc.line);
    return;
  }
  if (u != var->ty) {
    var->ty = u;
    I->changed = true;
  }
}

/* ---- assignment targets ---- */

static void assign_target(Infer *I, Expr **slot, const Type *t, Loc loc);

static void assign_tuple(Infer *I, Expr *target, const Type *t, Loc loc) {
  if (t && t->kind != TY_TUPLE) {
    TERR(I, loc, "E-unpack", "cannot unpack a value of type %s", t->name);
    t = NULL;   /* the targets are poisoned below: no second error where they are read */
  } else if (t && t->nelems != target->nkids) {
    TERR(I, loc, "E-unpack", "cannot unpack %d values into %d targets", t->nelems, target->nkids);
    t = NULL;
  }
  for (int i = 0; i < target->nkids; i++)
    assign_target(I, &target->kids[i], t ? t->elems[i] : NULL, loc);
}

/* a[i] = r, a[i].b = v, r.b = v: a whole record is copied from a record of its type; fields
 * take what array elements take. Returns true when it settled the store (an error, or a whole
 * record), false when the element checks still apply. */
static bool record_store_settled(Infer *I, Expr *target, const Type *elem, const Type *t, Loc loc) {
  const Type *base = target->kids[0]->ty;
  if (target->kind == EX_ATTR && base && base->kind != TY_RECORD) {
    TERR(I, target->loc, "E-bad-target", "cannot assign to attribute '%s' of %s", target->str, base->name);
    return true;
  }
  if (elem && t && elem->kind == TY_ARRAY && expr_is_field(target)) {   /* r.v = array: copied */
    bool ok = t->kind == TY_ARRAY && t->ndim == elem->ndim && type_is_numeric(t->dtype) &&
              (elem->dtype->kind == TY_COMPLEX || t->dtype->kind != TY_COMPLEX) &&
              (elem->dtype == t->dtype || (elem->dtype->kind != TY_HALF && t->dtype->kind != TY_HALF));
    if (!ok)
      TERR(I, loc, "E-store", "the nested array field '%s' takes an array of %d dimension%s of numbers, not %s",
           target->str, elem->ndim, elem->ndim == 1 ? "" : "s", t->name);
    return true;
  }
  if (!elem || !t || (elem->kind != TY_RECORD && t->kind != TY_RECORD)) return false;
  if (elem != t) TERR(I, loc, "E-store", "cannot store a value of type %s into %s", t->name, elem->name);
  return true;
}

/* a[lo:hi] = b, m[i] = row: an array of the view's dimensions (extents equal or 1, checked at
 * run time) is copied in, its elements converted as a store converts them; a float16 or complex
 * array only into an array of its own dtype. */
static void view_copy_checks(Infer *I, const Type *view, const Type *src, Loc loc) {
  const Type *to = view->dtype, *from = src->dtype;
  if (src->ndim != view->ndim) {
    TERR(I, loc, "E-store", "an array stored into a view needs its %d dimension%s, not %d (%s into %s)",
         view->ndim, view->ndim == 1 ? "" : "s", src->ndim, src->name, view->name);
    return;
  }
  bool real = (to->kind == TY_INT || to->kind == TY_FLOAT || to->kind == TY_BOOL) &&
              (from->kind == TY_INT || from->kind == TY_FLOAT || from->kind == TY_BOOL);
  if (to != from && !real)
    TERR(I, loc, "E-store", "cannot store an array of %s into an array of %s", from->name, to->name);
}

/* a[i] = "XYZ", r.name = b"XYZ", a[i] = b[j]: what Numba's CUDA target stores into a character
 * sequence: a str literal into a UnicodeCharSeq, a bytes literal into a CharSeq (each copied,
 * the rest zero-filled, a longer literal cut to the length), or a character sequence of the
 * same type. Numba refuses a str into bytes, bytes into str, and sequences of other lengths. */
static void charseq_store_checks(Infer *I, const Type *elem, const Type *t, Loc loc) {
  if (t == elem) return;
  if ((t->kind == TY_STR && elem->unicode) || (t->kind == TY_BYTES && !elem->unicode)) return;
  if (t->kind == TY_STR || t->kind == TY_BYTES)
    TERR(I, loc, "E-store", "cannot store a %s literal into %s: Numba stores %s literals into %s "
         "(NumPy's %s arrays)", t->kind == TY_STR ? "str" : "bytes", elem->name,
         elem->unicode ? "str" : "bytes", elem->unicode ? "UnicodeCharSeq" : "CharSeq", elem->unicode ? "U<n>" : "S<n>");
  else if (t->kind == TY_CHARSEQ)
    TERR(I, loc, "E-store", "cannot store %s into %s: Numba's CUDA target copies a character sequence "
         "only into one of its own kind and length", t->name, elem->name);
  else
    TERR(I, loc, "E-store", "cannot store a value of type %s into %s (a character sequence takes a "
         "%s literal or a character sequence of its type)", t->name, elem->name, elem->unicode ? "str" : "bytes");
}

/* a[i, j] = value: the value converts to the element type. */
static void assign_index(Infer *I, Expr *target, const Type *t, Loc loc) {
  const Type *elem = infer_expr(I, target);
  const Type *base = target->kids[0]->ty;
  if (record_store_settled(I, target, elem, t, loc)) return;
  if (base && base->kind == TY_TUPLE) {
    TERR(I, target->loc, "E-immutable", "tuples cannot be modified");
    return;
  }
  if (base && base->kind == TY_ARRAY && base->space == MEM_CONST) {
    TERR(I, target->loc, "E-immutable", "a constant array (a module-level NumPy array) cannot be modified");
    return;
  }
  if (elem && elem->kind == TY_ARRAY && elem->dtype->kind == TY_CHARSEQ) {
    TERR(I, target->loc, "E-unsupported", "storing into a view of an array of %s (a slice, or a row "
         "of a 2-d array) is not supported: store into one element at a time", elem->dtype->name);
    return;
  }
  if (elem && elem->kind == TY_ARRAY) {   /* a[lo:hi] = v, m[i] = v: a scalar fills the view */
    if (t && t->kind == TY_ARRAY) {         /* a[lo:hi] = b: b is copied in */
      view_copy_checks(I, elem, t, loc);
      return;
    }
    elem = elem->dtype;
  }
  if (!elem || !t) return;
  if (elem->kind == TY_CHARSEQ) {
    charseq_store_checks(I, elem, t, loc);
    return;
  }
  bool converts = elem == t || (type_is_numeric(elem) && type_is_numeric(t) &&
                  (elem->kind == TY_COMPLEX || t->kind != TY_COMPLEX));   /* no complex into reals */
  if (!converts)
    TERR(I, loc, "E-store", "cannot store a value of type %s into an array of %s", t->name,
         elem->name);
}

static void assign_target(Infer *I, Expr **slot, const Type *t, Loc loc) {
  Expr *target = *slot;
  if (target->kind == EX_VAR) {
    assign_var(I, target->var, t, loc);
    target->ty = I->fn->vars[target->var].ty;
  } else if (target->kind == EX_TUPLE) {
    assign_tuple(I, target, t, loc);
    target->ty = t;
  } else {
    assign_index(I, target, t, loc);
  }
}

/* ---- statements ---- */

static void infer_block(Infer *I, Block *b);

/* cuda.shared.array(...), cuda.local.array(...), a.copy(): the variable it is assigned to is the
 * new array's storage, not a view. */
static bool is_array_allocation(const Expr *e) {
  if (e->kind != EX_CALL || e->kids[0]->kind != EX_BUILTIN) return false;
  const Builtin *b = e->kids[0]->builtin;
  return builtin_has(b, BF_ARRAY_ALLOC) || builtin_has(b, BF_NEW_ARRAY);
}

/* A function given as a value to an assignment or a return: functions are values only as
 * arguments of a device function (static_args.c), so this is reported and yields no type. */
static bool function_as_value(Infer *I, const Expr *value, const char *where) {
  const char *name = infer_function_name(value);
  if (!name) return false;
  TERR(I, value->loc, "E-func-value", "%s a function ('%s') is not supported: call it, or pass it to "
       "a device function as an argument", where, name);
  return true;
}

static void infer_assign(Infer *I, Stmt *s) {
  if (function_as_value(I, s->value, "storing")) {
    for (int i = 0; i < s->ntargets; i++) assign_target(I, &s->targets[i], NULL, s->loc);
    return;
  }
  I->statement_value = s->value;
  const Type *t = infer_expr(I, s->value);
  /* `sm = cuda.shared.array(...)` declares the storage; `x = sm` makes x a view of it. */
  if (t && !is_array_allocation(s->value)) t = type_as_value(I->tt, t);
  /* A str or bytes value has no C variable: a conditional one ("a" if c else "b") is stored
   * into one target only (a literal is at hand for each). */
  if (t && (t->kind == TY_STR || t->kind == TY_BYTES) && s->value->kind != EX_STR && s->ntargets > 1)
    TERR(I, s->loc, "E-unsupported", "a conditional %s value stored into %d targets at once is not "
         "supported: store it into one, then copy", t->kind == TY_STR ? "str" : "bytes", s->ntargets);
  /* Conversions happen where the value is stored: codegen converts for each target. */
  for (int i = 0; i < s->ntargets; i++) {
    assign_target(I, &s->targets[i], t, s->loc);
    if (t && is_array_allocation(s->value) && s->targets[i]->kind == EX_VAR)
      I->fn->vars[s->targets[i]->var].align = s->value->ival;
  }
}

static void infer_cond(Infer *I, Expr *cond) {
  const Type *t = infer_expr(I, cond);
  if (t) check_truthy(I, cond, t);
}

/* The type range() iterates with, as Numba's range overloads choose it; parts are start, stop
 * and step, NULL where not given. In the final pass the parts are cast to that type. */
const Type *infer_range(Infer *I, Expr **parts) {
  bool all32 = true, any_u64 = false, known = true;
  for (int i = 0; i < 3; i++) {
    if (!parts[i]) continue;
    const Type *t = infer_expr(I, parts[i]);
    if (!t) {
      known = false;
      continue;
    }
    if (t->kind != TY_INT && t->kind != TY_BOOL) {
      TERR(I, parts[i]->loc, "E-range", "range() arguments must be integers, not %s", t->name);
      return NULL;
    }
    if (t->bits == 64 || (!t->is_signed && t->bits == 32)) all32 = false;
    if (t == &type_uint64) any_u64 = true;
  }
  Expr *step = parts[2];
  if (I->final && step && step->kind == EX_INT && step->ival == 0)
    diag_error(I->c, step->loc, "E-range-step", "range() step must not be zero");
  if (!known) return NULL;
  const Type *t = any_u64 ? &type_uint64 : all32 ? &type_int32 : &type_int64;
  for (int i = 0; i < 3; i++)
    if (parts[i]) infer_coerce(I, &parts[i], t);
  return t;
}

static void infer_for_range(Infer *I, Stmt *s) {
  Expr *parts[3] = {s->start, s->stop, s->step};
  const Type *t = infer_range(I, parts);
  s->start = parts[0], s->stop = parts[1], s->step = parts[2];
  assign_var(I, s->var, t, s->loc);
  infer_block(I, &s->body);
}

/* for targets in iterable: the targets take the type of the values the iterable yields. */
static void infer_for_iter(Infer *I, Stmt *s) {
  const Type *t = s->unroll ? infer_unrolled(I, s) : infer_iterable(I, s->value);
  assign_target(I, &s->targets[0], t, s->loc);
  infer_block(I, &s->body);
}

/* Whether tuple literal e holds (at any depth) a call of the function being typed. */
static bool holds_own_result(const Infer *I, const Expr *e) {
  if (e->kind == EX_CALL) return e->kids[0]->kind == EX_FUNC && e->kids[0]->func == I->fn->generic;
  if (e->kind != EX_TUPLE) return false;
  for (int i = 0; i < e->nkids; i++)
    if (holds_own_result(I, e->kids[i])) return true;
  return false;
}

static void infer_return(Infer *I, Stmt *s) {
  if (I->fn->kind == FN_KERNEL) {
    if (s->value) TERR(I, s->loc, "E-kernel-return", "a kernel cannot return a value");
    return;
  }
  if (s->value && function_as_value(I, s->value, "returning")) return;
  if (s->value && s->value->kind == EX_TUPLE && holds_own_result(I, s->value)) {   /* T = (..., T) */
    TERR(I, s->value->loc, "E-recursion", "Return type of recursive function does not converge: '%s' "
         "returns a tuple that holds its own result, whose type would have to hold itself",
         I->fn->generic->name);
    return;
  }
  const Type *t = s->value ? infer_expr(I, s->value) : &type_void;
  if (!t) return;
  if (t->kind == TY_ARRAY && t->space == MEM_LOCAL) {
    TERR(I, s->loc, "E-return-local", "a local array cannot be returned (its storage ends with the call)");
    return;
  }
  t = type_as_value(I->tt, t);   /* a shared array is returned as a view */
  if (!I->ret) {
    I->ret = t;
    I->ret_loc = s->loc;
    return;
  }
  const Type *u = type_unify(I->tt, I->ret, t);
  if (!u) TERR(I, s->loc, "E-unify", "cannot unify return types %s and %s (first return at line %u)",
               I->ret->name, t->name, I->ret_loc.line);
  else I->ret = u;
}

enum { UNDECIDED = -1 };

/* Whether condition c holds, where that is known from types alone: `x is None` (`is not`,
 * None on either side) of a variable or of None itself (a parameter left to its default None is
 * replaced by None: static_args.c), and `not`, `and`, `or` of such tests, decided from the left
 * as Python evaluates them (an operand left undecided leaves the whole undecided). 1, 0 or
 * UNDECIDED. */
static int decided(Infer *I, const Expr *c) {
  if (c->kind == EX_NOT) {
    int d = decided(I, c->kids[0]);
    return d == UNDECIDED ? d : !d;
  }
  if (c->kind == EX_BOOLOP) {
    for (int i = 0; i < c->nkids; i++) {
      int d = decided(I, c->kids[i]);
      if (d == UNDECIDED) return d;
      if (d == (c->op == OP_OR)) return d;   /* `or` of a true one, `and` of a false one */
    }
    return c->op == OP_AND;
  }
  if (c->kind != EX_COMPARE || c->nkids != 2 || (c->cmps[0] != OP_IS && c->cmps[0] != OP_IS_NOT)) return UNDECIDED;
  Expr *x = c->kids[0]->kind == EX_NONE ? c->kids[1] : c->kids[1]->kind == EX_NONE ? c->kids[0] : NULL;
  if (!x || (x->kind != EX_VAR && x->kind != EX_NONE)) return UNDECIDED;
  const Type *t = infer_expr(I, x);
  if (!t) return UNDECIDED;
  return (t->kind == TY_VOID) == (c->cmps[0] == OP_IS);
}

/* For an `if` whose condition is decided by None tests (decided), the branch taken, as Numba's
 * dead-branch pruning keeps it; else NULL. The other branch is dropped untyped: it may use the
 * parameter that is None as a number. */
static const Block *none_test_branch(Infer *I, const Stmt *s) {
  int d = decided(I, s->cond);
  return d == UNDECIDED ? NULL : d ? &s->body : &s->orelse;
}

/* Block b with its statement i replaced by the statements of `with`. */
static void splice(Infer *I, Block *b, int i, const Block *with) {
  int n = b->len - 1 + with->len;
  Stmt **items = arena_alloc(&I->c->arena, sizeof *items * (size_t)(n ? n : 1));
  memcpy(items, b->items, sizeof *items * (size_t)i);
  memcpy(items + i, with->items, sizeof *items * (size_t)with->len);
  memcpy(items + i + with->len, b->items + i + 1, sizeof *items * (size_t)(b->len - i - 1));
  b->items = items;
  b->len = n;
}

static void infer_stmt(Infer *I, Stmt *s) {
  switch (s->kind) {
  case ST_EXPR:
    I->statement_value = s->value;
    infer_expr(I, s->value);
    break;
  case ST_ASSIGN:
  case ST_AUGASSIGN: infer_assign(I, s); break;
  case ST_IF:
    infer_cond(I, s->cond);
    infer_block(I, &s->body);
    infer_block(I, &s->orelse);
    break;
  case ST_WHILE:
    infer_cond(I, s->cond);
    infer_block(I, &s->body);
    break;
  case ST_FOR_RANGE: infer_for_range(I, s); break;
  case ST_FOR_ITER: infer_for_iter(I, s); break;
  case ST_RETURN: infer_return(I, s); break;
  case ST_RAISE:
    if (s->cond) infer_cond(I, s->cond);
    break;
  case ST_BREAK:
  case ST_CONTINUE:
  case ST_PASS: break;
  }
}

/* Whether block b never falls through to what follows it: it ends in a return, or in an if
 * whose branches (the live one, once pruned) all end so. */
static bool block_exits(const Block *b) {
  if (b->len == 0) return false;
  const Stmt *s = b->items[b->len - 1];
  if (s->kind == ST_RETURN) return true;
  return s->kind == ST_IF && block_exits(&s->body) && block_exits(&s->orelse);
}

/* A pruned `if x is None:` is replaced by the branch taken; the statements after one that
 * returns on every path are unreachable and, as Numba compiles only what its control flow
 * reaches, dropped untyped (after `if x is None: return a` they may use x as a number). */
static void infer_block(Infer *I, Block *b) {
  for (int i = 0; i < b->len; i++) {
    const Block *taken = b->items[i]->kind == ST_IF ? none_test_branch(I, b->items[i]) : NULL;
    if (taken) {
      splice(I, b, i--, taken);
      continue;
    }
    if (infer_unroll_split(I, b, i)) {
      i--;
      continue;
    }
    infer_stmt(I, b->items[i]);
    Block one = {&b->items[i], 1};
    if (i + 1 < b->len && block_exits(&one)) b->len = i + 1;
  }
}

/* ---- return values ---- */

/* Casts every returned value to the function's return type, once it is known. A switch
 * without default: the compiler names a new statement kind here. */
/* A returned value of an IntEnum's type where the function returns that int (its signature's,
 * a @vectorize's): infer_coerce leaves it as it is (an IntEnum is its int wherever a number is
 * expected), but a returned value has the function's own type (ast_verify), so it is cast. */
static void cast_returned_enum(Infer *I, Expr **slot) {
  Expr *e = *slot;
  if (!I->final || !e->ty || e->ty == I->ret || type_plain(e->ty) != I->ret) return;
  Expr *c = ast_new_expr(&I->c->arena, EX_CAST, e->loc);
  c->ty = I->ret;
  c->kids = arena_alloc(&I->c->arena, sizeof(Expr *));
  c->kids[0] = e;
  c->nkids = 1;
  *slot = c;
}

static void coerce_returns(Infer *I, Block *b) {
  for (int i = 0; i < b->len; i++) {
    Stmt *s = b->items[i];
    switch (s->kind) {
    case ST_RETURN:
      if (s->value && I->ret && I->ret->kind != TY_VOID) infer_coerce(I, &s->value, I->ret);
      if (s->value && I->ret && I->ret->kind != TY_VOID) cast_returned_enum(I, &s->value);
      break;
    case ST_EXPR:
    case ST_ASSIGN:
    case ST_AUGASSIGN:
    case ST_IF:
    case ST_WHILE:
    case ST_FOR_RANGE:
    case ST_FOR_ITER:
    case ST_BREAK:
    case ST_CONTINUE:
    case ST_PASS:
    case ST_RAISE: break;
    }
    coerce_returns(I, &s->body);
    coerce_returns(I, &s->orelse);
  }
}

/* ---- specializations ---- */

static void report_untyped_vars(Infer *I) {
  for (int i = 0; i < I->fn->nvars; i++) {
    Var *v = &I->fn->vars[i];
    if (!v->ty && !v->is_param && !v->poisoned)
      diag_error(I->c, v->loc, "E-untyped", "cannot infer a type for '%s'", v->name);
  }
}

/* The returns of a device function whose signature gives the return type convert to it, as
 * Numba converts them; values that cannot convert are an error. */
static void check_declared_return(Infer *I, Function *f) {
  const Type *want = f->declared_ret, *got = I->ret ? I->ret : &type_void;
  f->ret_type = want;
  bool numbers = type_is_numeric(got) && type_is_numeric(want) &&
                 (want->kind == TY_COMPLEX || got->kind != TY_COMPLEX);
  if (got == want || numbers || (I->ret && type_unify(I->tt, got, want) == want)) return;
  diag_error(I->c, I->ret ? I->ret_loc : f->loc, "E-signature", "'%s' returns %s, but its signature says %s",
             f->generic ? f->generic->name : f->name, got->name, want->name);
}

/* Types the body of specialization f (arg types already set on its parameters). */
static bool type_function(Infer *parent, Function *f) {
  if (f->extern_symbol) {   /* cuda.declare_device: no body; its types are its signature's */
    f->ret_type = f->declared_ret;
    f->typed = true;
    f->uses_barrier = true;   /* its CUDA C may hold barriers: callers run on the simulator's fibers */
    return true;
  }
  Infer I = {.c = parent->c, .tt = parent->tt, .m = parent->m, .fn = f,
             .depth = parent->depth + 1};
  size_t errors = I.c->error_count;
  f->typing = true;
  /* A recursive call returns the declared type, else the returns seen so far (Numba types a
   * self-recursive call from the function's other return paths): a change of that type is a
   * change like a variable's, and typing goes round again. */
  f->ret_type = f->declared_ret;
  for (int pass = 0; pass < MAX_PASSES; pass++) {
    I.changed = false;
    I.ret = NULL;
    infer_block(&I, &f->body);
    if (!f->declared_ret && I.ret != f->ret_type) {
      f->ret_type = I.ret;
      I.changed = true;
    }
    if (!I.changed) break;
  }
  I.final = true;
  I.ret = NULL;
  infer_block(&I, &f->body);
  if (f->declared_ret && I.c->error_count == errors) check_declared_return(&I, f);
  else if (f->declared_ret) f->ret_type = f->declared_ret;   /* the body's error said it: no second one */
  else f->ret_type = f->kind == FN_KERNEL ? &type_void : I.ret ? I.ret : &type_void;
  I.ret = f->ret_type;
  coerce_returns(&I, &f->body);
  if (I.c->error_count == errors) report_untyped_vars(&I);
  f->typing = false;
  f->typed = true;
  return I.c->error_count == errors;
}

static bool same_types(const Type **a, const Type **b, int n) {
  return memcmp(a, b, sizeof *a * (size_t)n) == 0;
}

static Function *new_spec(Infer *I, Function *g, const Type **args) {
  Function *s = ast_clone_function(&I->c->arena, g);
  s->generic = g;
  s->arg_types = arena_dup(&I->c->arena, args, sizeof *args * (size_t)(g->nparams ? g->nparams : 1));
  for (int i = 0; i < g->nparams; i++) {
    s->vars[i].ty = args[i];
    s->vars[i].ty_loc = g->vars[i].loc;
  }
  vec_push(&I->c->arena, &g->specs, s);
  return s;
}

/* A call of specialization s while s is being typed. Self-recursion takes the return type
 * known so far; mutual recursion needs declared return types (an earlier function's type could
 * still change after the later one is done). */
static Function *recursive_call(Infer *I, Function *s, Loc call_loc) {
  const char *name = s->generic->name;
  if (s != I->fn && !s->declared_ret) {
    TERR(I, call_loc, "E-recursion", "mutual recursion through '%s' needs a signature with a return "
         "type on '%s' (@cuda.jit(\"int64(int64)\", device=True))", I->fn->generic->name, name);
    return NULL;
  }
  if (!s->ret_type) {
    TERR(I, call_loc, "E-recursion", "cannot type infer runaway recursion: recursive '%s' has no return "
         "type; give it a return that does not call itself, or a signature with a return type", name);
    return I->final ? NULL : s;   /* a later pass may know more */
  }
  return s;
}

/* A specialization that failed while a caller was still guessing is kept, marked failed, so
 * that the guess is not typed again and again (a chain of failing calls would take time
 * exponential in its depth); the final pass types it once more, to report its errors. */
static Function *type_new_spec(Infer *I, Function *g, const Type **args) {
  Function *s = new_spec(I, g, args);
  size_t ndiags = I->c->diags.len, nerr = I->c->error_count;
  bool ok = type_function(I, s);
  if (ok) return s;
  s->failed = true;
  if (!I->final) {   /* errors are reported only if the final pass calls it too */
    I->c->diags.len = ndiags;
    I->c->error_count = nerr;
  }
  return NULL;
}

Function *specialize(Infer *I, Function *g, const Type **args, Loc call_loc) {
  for (size_t i = 0; i < g->specs.len; i++) {
    Function *s = g->specs.items[i];
    if (!same_types(s->arg_types, args, g->nparams)) continue;
    if (s->typing) return recursive_call(I, s, call_loc);
    if (!s->failed) return s;
    if (!I->final) return NULL;
    g->specs.items[i] = g->specs.items[--g->specs.len];   /* replaced by a fresh one */
    return type_new_spec(I, g, args);
  }
  if (I->depth >= MAX_SPEC_DEPTH) {
    TERR(I, call_loc, "E-too-deep", "device functions nested more than %d calls deep", MAX_SPEC_DEPTH);
    return NULL;
  }
  return type_new_spec(I, g, args);
}

/* ---- kernels and signatures ---- */

static bool parse_sig(Infer *I, const SigText *st, Signature *sig) {
  const char *err;
  size_t off;
  if (sig_parse(I->tt, st->text, st->len, sig, &err, &off)) return true;
  Loc loc = st->loc;
  if (!st->on_command_line) loc.col += (uint32_t)off;
  diag_error(I->c, loc, "E-signature", "bad signature '%.*s': %s", (int)st->len, st->text, err);
  return false;
}

/* How a call's argument of type `from` converts to a declared parameter of type `to`, by
 * Numba's rules: scalars by its conversion table, an array to one of the same dtype and
 * dimensions (exactly in its own layout, safely into 'A'), anything else only to itself. */
static TypeConversion arg_conversion(const Type *from, const Type *to) {
  from = type_plain(from);
  if (from == to) return CONV_EXACT;
  if (type_is_numeric(from) && type_is_numeric(to)) return type_conversion(from->scalar, to->scalar);
  if (from->kind == TY_ARRAY && to->kind == TY_ARRAY && from->dtype == to->dtype && from->ndim == to->ndim)
    return to->layout == 'A' ? CONV_SAFE : from->layout == to->layout ? CONV_EXACT : CONV_NONE;
  return CONV_NONE;
}

/* Whether rating a (counts of each kind of conversion) is better than b, as Numba ranks
 * overloads: fewer unsafe conversions, then fewer safe ones, then fewer promotions. */
static bool better_rating(const int *a, const int *b) {
  for (int kind = CONV_UNSAFE; kind > CONV_EXACT; kind--)
    if (a[kind] != b[kind]) return a[kind] < b[kind];
  return false;
}

/* The specialization of device function g for signature `sig` (its declared return type set
 * before it is typed, as type_kernel_sig does). */
static Function *declared_spec(Infer *I, Function *g, const Signature *sig) {
  for (size_t i = 0; i < g->specs.len; i++)
    if (same_types(g->specs.items[i]->arg_types, sig->args, g->nparams)) return g->specs.items[i];
  Function *s = new_spec(I, g, sig->args);
  s->declared_ret = sig->ret;
  type_function(I, s);
  return s;
}

Function *specialize_declared(Infer *I, Function *g, const Type **args, Loc call_loc) {
  Signature best = {0};
  bool found = false;
  int best_rating[CONV_NONE + 1] = {0};
  for (int j = 0; j < g->nsigs; j++) {
    Signature sig;
    const char *err;
    size_t off;
    if (!sig_parse(I->tt, g->sigs[j].text, g->sigs[j].len, &sig, &err, &off) || sig.nargs != g->nparams)
      continue;   /* reported where the signatures are typed (type_kernel_sig) */
    int rating[CONV_NONE + 1] = {0};
    for (int i = 0; i < sig.nargs; i++) rating[arg_conversion(args[i], sig.args[i])]++;
    if (rating[CONV_NONE]) continue;
    if (!found || better_rating(rating, best_rating)) {
      found = true;
      best = sig;
      memcpy(best_rating, rating, sizeof rating);
    }
  }
  if (!found) {
    StrBuf sb;
    sb_init(&sb, &I->c->arena);
    for (int i = 0; i < g->nparams; i++) sb_printf(&sb, "%s%s", i ? ", " : "", type_plain(args[i])->name);
    sb_puts(&sb, "): no signature of it takes them (its decorator gives ");
    for (int j = 0; j < g->nsigs; j++) sb_printf(&sb, "%s%.*s", j ? ", " : "", (int)g->sigs[j].len, g->sigs[j].text);
    /* Numba's words ("Invalid use of type(CUDADispatcher(...)) with parameters (...)") first */
    TERR(I, call_loc, "E-signature", "Invalid use of type(device function '%s') with parameters (%s)", g->name,
         sb_str(&sb));
    return NULL;
  }
  Function *s = declared_spec(I, g, &best);
  return s->typing ? recursive_call(I, s, call_loc) : s;
}

static bool check_sig(Infer *I, Function *k, const SigText *st, const Signature *sig) {
  if (sig->nargs != k->nparams) {
    diag_error(I->c, st->loc, "E-signature",
               "signature '%.*s' has %d argument types but '%s' takes %d parameters", (int)st->len,
               st->text, sig->nargs, k->name, k->nparams);
    return false;
  }
  for (int i = 0; i < sig->nargs && k->kind != FN_DEVICE; i++)
    if (sig->args[i]->kind == TY_CHARSEQ) {   /* a launch passes arrays of them (device functions take them) */
      diag_error(I->c, st->loc, "E-signature", "signature '%.*s': a character sequence (%s) is passed to a "
                 "kernel inside an array (NumPy's S<n> or U<n>), not alone", (int)st->len, st->text,
                 sig->args[i]->name);
      return false;
    }
  if (sig->ret && sig->ret->kind != TY_VOID && k->kind == FN_KERNEL) {
    diag_error(I->c, st->loc, "E-signature", "a kernel's signature must return void, not %s",
               sig->ret->name);
    return false;
  }
  return true;
}

/* Whether a ufunc may return values of type t (one element of its output array). */
static bool ufunc_result(const Type *t) {
  return t && t->kind != TY_VOID && t->kind != TY_ARRAY && t->kind != TY_TUPLE && t->kind != TY_CHARSEQ;
}

/* A vectorize signature is scalar: scalar arguments, a scalar result (Numba's ufunc loops). A
 * signature of the arguments alone, `(datetime64[D], datetime64[D])`, takes the result type
 * typing gives, as Numba's does (checked in type_kernel_sig). */
static bool check_ufunc_sig(Infer *I, Function *k, const SigText *st, const Signature *sig) {
  if (sig->ret && !ufunc_result(sig->ret)) {
    diag_error(I->c, st->loc, "E-signature",
               "vectorize signature '%.*s' must give a scalar result type, as in 'float32(float32)'",
               (int)st->len, st->text);
    return false;
  }
  for (int i = 0; i < sig->nargs; i++)
    if (sig->args[i]->kind == TY_ARRAY || sig->args[i]->kind == TY_TUPLE) {
      diag_error(I->c, st->loc, "E-signature",
                 "vectorize signature '%.*s': argument %d of '%s' is %s; ufunc signatures "
                 "take scalars (the arrays are broadcast over them)", (int)st->len, st->text, i + 1,
                 k->name, sig->args[i]->kind == TY_ARRAY ? "an array" : "a tuple");
      return false;
    }
  return true;
}

/* Whether the host can read back a result of type t: a number, a bool, an array of those (its
 * memory the call's heap or an argument's), or a plain tuple of those (nested too). */
static bool host_readable(const Type *t) {
  if (t->enum_class || t->kind == TY_VECTOR) return false;
  if (t->kind == TY_BOOL || t->kind == TY_INT || t->kind == TY_FLOAT || t->kind == TY_COMPLEX) return true;
  if (t->kind == TY_ARRAY)
    return t->space == MEM_GLOBAL && !t->fixed_shape && !t->dtype->enum_class &&
           (type_is_number(t->dtype) || type_is_complex(t->dtype));
  if (t->kind != TY_TUPLE || t->tuple_class) return false;
  for (int i = 0; i < t->nelems; i++)
    if (!host_readable(t->elems[i])) return false;
  return true;
}

/* What a host entry may return (its result is stored in bytes the host reads back): nothing, a
 * number, a bool or a tuple of those. Else an error at the function. */
static void check_host_result(Infer *I, const Function *s) {
  const Type *t = s->ret_type;
  if (!s->typed || !t || t->kind == TY_VOID || host_readable(t)) return;
  diag_error(I->c, s->generic->loc, "E-host-return",
             "@jit function '%s' called from the host returns %s: a host call can return a number, a "
             "bool, an array of numbers, a tuple of those, or nothing (not a local or shared array, "
             "a record or a string)", s->generic->name, t->name);
}

/* A stencil's kernel given its inputs' types alone (`--sig 'blur(float64[:, :])'`): `out` is a
 * C-contiguous array of what the body returns for them with int64 indices, as Numba types a
 * stencil's result. False after a diagnostic. */
static bool complete_stencil_sig(Infer *I, Function *k, const SigText *st, Signature *sig) {
  Function *body = k->stencil_body;
  int n = sig->nargs, ndim = k->stencil_ndim;
  const Type **args = arena_alloc(&I->c->arena, sizeof *args * (size_t)(n + ndim + 1));
  memcpy(args, sig->args, sizeof *args * (size_t)n);
  for (int d = 0; d < ndim; d++) args[n + d] = &type_int64;
  Function *s = specialize(I, body, args, st->loc);
  if (!s) return false;
  const Type *ret = s->ret_type;
  if (!ret || !(type_is_number(ret) || type_is_complex(ret))) {
    diag_error(I->c, body->loc, "E-stencil", "a stencil returns a number, '%s' returns %s for %.*s", k->name,
               ret ? ret->name : "nothing", (int)st->len, st->text);
    return false;
  }
  args[n] = type_array(I->tt, ret, ndim, 'C', MEM_GLOBAL, NULL);
  sig->args = args;
  sig->nargs = n + 1;
  return true;
}

static void type_kernel_sig(Infer *I, Function *k, const SigText *st) {
  Signature sig;
  if (!parse_sig(I, st, &sig)) return;
  if (k->stencil_body && sig.nargs == k->nparams - 1 && !complete_stencil_sig(I, k, st, &sig)) return;
  if (!check_sig(I, k, st, &sig)) return;
  if (k->kind == FN_UFUNC && !check_ufunc_sig(I, k, st, &sig)) return;
  Function *s = NULL;
  for (size_t i = 0; i < k->specs.len && !s; i++)
    if (same_types(k->specs.items[i]->arg_types, sig.args, k->nparams)) s = k->specs.items[i];
  if (!s) {
    s = new_spec(I, k, sig.args);
    if (k->kind != FN_KERNEL) s->declared_ret = sig.ret;
    if (type_function(I, s) && k->kind == FN_UFUNC && !ufunc_result(s->ret_type))
      diag_error(I->c, st->loc, "E-signature", "vectorize signature '%.*s' gives no result type, and '%s' "
                 "returns %s: a ufunc returns a scalar", (int)st->len, st->text, k->name,
                 s->ret_type ? s->ret_type->name : "nothing");
  }
  s->export_entry = s->export_entry || k->exported;
  if (k->host_jit && !s->host_entry) {
    s->host_entry = true;
    check_host_result(I, s);
  }
}

static SigText *extra_sigs_for(Infer *I, const Function *k, const ExtraSig *extra, size_t n,
                               int *count) {
  SigText *out = arena_alloc(&I->c->arena, sizeof *out * (n ? n : 1));
  *count = 0;
  for (size_t i = 0; i < n; i++)
    if (strcmp(extra[i].kernel, k->name) == 0)
      out[(*count)++] = (SigText){extra[i].text, extra[i].len, k->loc, true};
  return out;
}

static bool kernel_listed(const char *const *names, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return true;
  return false;
}

/* A stencil's kernel for the inputs of each typed call of it in a @jit function (the calls the
 * compiler sees: NAME_loops' specializations hold their types), as `--sig 'NAME(inputs)'` would
 * type it; types no signature can spell are passed over. */
static void type_stencil_from_calls(Infer *I, Function *k) {
  const Function *loops = k->stencil_loops;
  for (size_t i = 0; i < loops->specs.len; i++) {
    const Function *s = loops->specs.items[i];
    Signature sig = {NULL, s->arg_types, k->nparams - 1}, back;
    const char *err, *text = s->failed ? NULL : sig_format(&I->c->arena, &sig);
    size_t off;
    if (!text || !sig_parse(I->tt, text, strlen(text), &back, &err, &off)) continue;
    SigText st = {text, strlen(text), k->loc, true};
    type_kernel_sig(I, k, &st);
  }
}

/* A stencil's kernel with no signature is no error (its inputs' types come from its calls in
 * Python): say how to see it, with a hint from how the stencil function uses its inputs. */
static void note_unsigned_stencil(Compilation *c, const Function *k) {
  diag_note(c, k->loc, "stencil '%s' has no signature, so no C is emitted for its kernel: give its inputs' "
            "types with --sig, e.g. --sig '%s' (the kernel '%s' takes them and the result array)", k->name,
            typeinfer_sig_hint(&c->arena, k), k->name);
}

/* The signatures the host code's calls of @jit function f give (Module.host_call_sigs), each
 * typed as a --sig, with a note naming the call; false when there is none. */
static bool type_by_host_calls(Infer *I, Function *f) {
  bool any = false;
  for (size_t i = 0; i < I->m->host_call_sigs.len; i++) {
    const HostCallSig *h = &I->m->host_call_sigs.items[i];
    if (h->func != f) continue;
    diag_note(I->c, h->sig.loc, "@jit function '%s' has no signature: typed %s%.*s from this call's arguments "
              "(give --sig for other types)", f->name, f->name, (int)h->sig.len, h->sig.text);
    type_kernel_sig(I, f, &h->sig);
    any = true;
  }
  return any;
}

bool typeinfer_run(Compilation *c, Module *m, TypeTable *tt, const TypeinferOptions *o) {
  const ExtraSig *extra = o->extra;
  size_t nextra = o->nextra;
  bool skip_unsigned = o->skip_unsigned;
  const char *const *only = o->only;
  size_t nonly = o->nonly;
  Infer I = {.c = c, .tt = tt, .m = m, .final = true};
  /* Every constant array codegen writes has its type, also one only kernels left untyped use
   * (an array of records needs its record type, which only typeinfer makes). */
  for (size_t i = 0; i < m->consts.len; i++)
    if (m->consts.items[i]->array && m->consts.items[i]->used) infer_const_array(&I, m->consts.items[i]);
  for (size_t i = 0; i < m->funcs.len; i++) {
    Function *f = m->funcs.items[i];
    int nx;
    SigText *xs = extra_sigs_for(&I, f, extra, nextra, &nx);
    for (int j = 0; j < f->nsigs; j++) type_kernel_sig(&I, f, &f->sigs[j]);
    /* A ufunc's types are its decorator's scalar signatures only: the signatures that launches
     * derive from their arguments describe arrays, which the ufunc's runtime broadcasts. */
    if (f->kind != FN_UFUNC)
      for (int j = 0; j < nx; j++) type_kernel_sig(&I, f, &xs[j]);
    bool wanted = !only || kernel_listed(only, nonly, f->name);
    if (f->stencil_loops && wanted) type_stencil_from_calls(&I, f);
    if (f->stencil_body) {
      if (f->nsigs + nx == 0 && f->specs.len == 0 && !skip_unsigned && wanted) note_unsigned_stencil(c, f);
    } else if (f->kind == FN_KERNEL && f->nsigs + nx == 0 && !skip_unsigned && wanted)
      diag_error(c, f->loc, "E-no-signature",
                 "kernel '%s' has no signature: give one in the decorator or with --sig, e.g. "
                 "--sig '%s' (guessed from how the parameters are used: write your arguments' "
                 "types)", f->name, typeinfer_sig_hint(&c->arena, f));
    /* a @jit function the host calls is typed by its calls in Python; here by --sig, else by the
     * calls in the file's host code when asked (emit: lower_host_calls.c) */
    if (f->host_jit && f->nsigs + nx == 0 && !skip_unsigned && wanted && !f->generic && type_by_host_calls(&I, f))
      continue;
    if (f->host_jit && f->nsigs + nx == 0 && !skip_unsigned && wanted && !f->generic)
      diag_note(c, f->loc, "@jit function '%s' has no signature, so no C is emitted for the host's "
                "calls of it: give its argument types with --sig, e.g. --sig '%s' (guessed from how "
                "the parameters are used), or call it from Python and see f.inspect_cuda()",
                f->name, typeinfer_sig_hint(&c->arena, f));
  }
  return !diag_has_errors(c);
}
