/* Which array parameters a function may store to (Function.param_written): what a launch needs
 * to know to accept a read-only host array for a parameter, and to skip copying an array back
 * from the GPU when the kernel cannot have changed it (P2cParam.written).
 *
 * The answer is conservative: a parameter is read-only only when every use of it is a read the
 * analysis understands: an element read through subscripts and views of it (a[i], a[i][j],
 * a[1:][0], a.T[i, j], a.view(dtype)[i], a.real[i]), an attribute that is not an array (a.shape, a.size), len(a), iteration
 * over it that yields no arrays (for x in a, enumerate(a), zip(a, b) of 1-d arrays), or an
 * argument of a device function whose own parameter is read-only (decided the same way, each
 * specialization once; a call back into a function being decided counts as a store), or an
 * element given to a builtin other than one that stores to it. Any other use counts as a store: a
 * subscript assigned to, the element an atomic or a cache-hinted store (cuda.stcg ...) is given,
 * a view or the array itself bound to a name, put in a tuple, returned or passed to a builtin.
 * A record element (a[i] of a record array) is a reference into the array, as in Numba: its
 * fields read (a[i].b) are reads, its fields or nested arrays assigned (a[i].b = x,
 * a[i].v[k] = x) are stores, and the record itself taken as a value (r = a[i], passed to a
 * device function, iterated over) counts as a store. */
#include "analysis/walk.h"

#include <string.h>

typedef struct Writes {
  const Function *f;
  bool *written;         /* per parameter */
  Arena *a;
} Writes;

static bool is_array(const Type *t) { return t && t->kind == TY_ARRAY; }

/* An array, or a record: both refer to the memory of the array they come from. */
static bool is_reference(const Type *t) { return t && (t->kind == TY_ARRAY || t->kind == TY_RECORD); }

static bool has_array(const Type *t) {
  if (!t) return true;
  if (is_reference(t)) return true;
  for (int i = 0; t->kind == TY_TUPLE && i < t->nelems; i++)
    if (has_array(t->elems[i])) return true;
  return false;
}

static void scan_value(Writes *w, const Expr *e);
static void scan_target(Writes *w, const Expr *t);

/* The array parameter at the bottom of a chain of views (a, a[i] of a 2-d a, a[1:], a.T), or
 * -1; the indices along the chain are scanned as values. */
static int chain_param(Writes *w, const Expr *e) {
  for (;;) {
    if ((e->kind == EX_INDEX || e->kind == EX_ATTR) && is_reference(e->ty) && e->nkids > 0) {
      for (int i = 1; i < e->nkids; i++) scan_value(w, e->kids[i]);
      e = e->kids[0];
    } else if (e->kind == EX_CALL && e->builtin && builtin_has(e->builtin, BF_VIEW) && e->nkids > 1) {
      e = e->kids[1];   /* a.view(dtype): the dtype is no value */
    } else {
      break;
    }
  }
  if (e->kind == EX_VAR && e->var < w->f->nparams && is_array(e->ty)) return e->var;
  if (e->kind != EX_VAR) scan_value(w, e);
  return -1;
}

static void mark(Writes *w, int param) {
  if (param >= 0) w->written[param] = true;
}

/* A device function call: an array passed whole (or as a view) is stored to when the callee's
 * parameter is. */
static void scan_device_call(Writes *w, const Expr *e) {
  const bool *callee = an_param_writes(e->func, w->a);
  for (int i = 1; i < e->nkids; i++) {
    const Expr *arg = e->kids[i];
    if (!is_array(arg->ty)) {
      scan_value(w, arg);
      continue;
    }
    int p = chain_param(w, arg);
    if (p >= 0 && (i - 1 >= e->func->nparams || callee[i - 1])) mark(w, p);
  }
  for (int i = 0; i < e->nkeywords; i++) scan_value(w, e->keywords[i].value);
}

/* e evaluated as a value: an array parameter (or a view of it) that is the value escapes. */
static void scan_value(Writes *w, const Expr *e) {
  switch (e->kind) {
  case EX_VAR:
    if (e->var < w->f->nparams && is_array(e->ty)) mark(w, e->var);
    return;
  case EX_INDEX:
  case EX_ATTR:
    if (!is_reference(e->ty) && e->nkids > 0) {   /* an element or a scalar attribute: a read */
      chain_param(w, e->kids[0]);
      for (int i = 1; i < e->nkids; i++) scan_value(w, e->kids[i]);
      return;
    }
    break;
  case EX_CALL:
    if (e->func && e->nkids > 0 && e->kids[0]->kind == EX_FUNC) {
      scan_device_call(w, e);
      return;
    }
    if (e->builtin && e->builtin->id == BI_LEN && e->nkids == 2 && is_array(e->kids[1]->ty)) {
      chain_param(w, e->kids[1]);
      return;
    }
    if (e->builtin && builtin_has(e->builtin, BF_STORES_ELEMENT) && e->nkids > 1) {
      /* atomic.add(a, i, v), cuda.stcg(a, i, v): typed as a call on the element a[i] */
      scan_target(w, e->kids[1]);
      for (int i = 2; i < e->nkids; i++) scan_value(w, e->kids[i]);
      for (int i = 0; i < e->nkeywords; i++) scan_value(w, e->keywords[i].value);
      return;
    }
    break;
  default:
    break;
  }
  for (int i = 0; i < e->nkids; i++) scan_value(w, e->kids[i]);
  for (int i = 0; i < e->nkeywords; i++) scan_value(w, e->keywords[i].value);
}

/* An assignment target: a subscript stores into the array it views. */
static void scan_target(Writes *w, const Expr *t) {
  if (t->kind == EX_TUPLE) {
    for (int i = 0; i < t->nkids; i++) scan_target(w, t->kids[i]);
  } else if (t->kind == EX_INDEX && t->nkids > 0) {
    for (int i = 1; i < t->nkids; i++) scan_value(w, t->kids[i]);
    mark(w, chain_param(w, t->kids[0]));
  } else if (t->kind == EX_ATTR && t->nkids > 0) {   /* a record's field: stores into its array */
    mark(w, chain_param(w, t->kids[0]));
  } else if (t->kind == EX_VAR) {
    if (t->var < w->f->nparams && is_array(t->ty)) mark(w, t->var);   /* rebinding: not followed */
  } else {
    scan_value(w, t);
  }
}

/* A for loop's iterable that yields no arrays reads the arrays it walks. */
static void scan_iterable(Writes *w, const Expr *e, const Type *yields) {
  if (has_array(yields)) {
    scan_value(w, e);
  } else if (is_array(e->ty)) {
    chain_param(w, e);
  } else if (e->kind == EX_CALL && e->builtin &&
             (e->builtin->id == BI_ENUMERATE || e->builtin->id == BI_ZIP)) {
    for (int i = 1; i < e->nkids; i++) {
      if (is_array(e->kids[i]->ty)) chain_param(w, e->kids[i]);
      else scan_value(w, e->kids[i]);
    }
    for (int i = 0; i < e->nkeywords; i++) scan_value(w, e->keywords[i].value);
  } else {
    scan_value(w, e);
  }
}

static bool scan_stmt(AstWalker *wk, const Stmt *s) {
  Writes *w = wk->ctx;
  switch (s->kind) {
  case ST_ASSIGN:
  case ST_AUGASSIGN:
    scan_value(w, s->value);
    for (int k = 0; k < s->ntargets; k++) scan_target(w, s->targets[k]);
    break;
  case ST_FOR_ITER:
    scan_iterable(w, s->value, s->value->yield_ty);
    for (int k = 0; k < s->ntargets; k++) scan_target(w, s->targets[k]);
    break;
  case ST_FOR_RANGE:
    if (s->start) scan_value(w, s->start);
    if (s->stop) scan_value(w, s->stop);
    if (s->step) scan_value(w, s->step);
    break;
  case ST_EXPR:
  case ST_RETURN:
    if (s->value) scan_value(w, s->value);
    break;
  case ST_IF:
  case ST_WHILE:
  case ST_RAISE:
    if (s->cond) scan_value(w, s->cond);
    break;
  case ST_BREAK:
  case ST_CONTINUE:
  case ST_PASS:
    break;
  }
  return true;   /* the walker goes on into the bodies; its .expr is NULL: no expressions */
}

const bool *an_param_writes(Function *f, Arena *a) {
  if (f->param_written) return f->param_written;
  size_t n = (size_t)(f->nparams > 0 ? f->nparams : 1);
  bool *result = arena_alloc(a, n * sizeof *result);
  /* While f is decided, a call back into it sees every parameter stored to. */
  for (size_t i = 0; i < n; i++) result[i] = true;
  f->param_written = result;
  bool *written = arena_alloc(a, n * sizeof *written);
  memset(written, 0, n * sizeof *written);
  Writes w = {f, written, a};
  AstWalker wk = {.stmt = scan_stmt, .ctx = &w};
  ast_walk_block(&wk, &f->body);
  memcpy(result, written, n * sizeof *result);
  return result;
}
