/* A signature to suggest for a kernel that has none, guessed from how its body uses each
 * parameter: one subscripted with k indices is a k-D array, one with an attribute (a.shape,
 * a.size) an array, one read inside a subscript or a range() bound an int64, anything else a
 * float64. Element types cannot be guessed (float32 stands for them): the messages that show
 * the hint say so. Only a hint: nothing is typed from it. */
#include "frontend/ast_walk.h"
#include "typeinfer/typeinfer.h"
#include "util/buf.h"

typedef struct ParamUse {
  int ndim;          /* most indices seen on the parameter; 0: never subscripted */
  bool array;        /* subscripted or an attribute read: an array */
  bool integer;      /* read inside a subscript or a range() bound: an integer */
} ParamUse;

typedef struct HintWalk {
  ParamUse *uses;
  int nparams;
  int index_depth;   /* > 0 while inside a subscript's indices or a range() bound */
} HintWalk;

static ParamUse *use_of(HintWalk *h, const Expr *e) {
  return e && e->kind == EX_VAR && e->var < h->nparams ? &h->uses[e->var] : NULL;
}

static void note_integers(HintWalk *h, const Expr *e);

/* An expression: records what it says of the parameters it names. Indices are walked here, so
 * that the depth says whether a name stands inside one; the walker is told to skip them. */
static bool note_expr(AstWalker *w, const Expr *e) {
  HintWalk *h = w->ctx;
  ParamUse *u = use_of(h, e);
  if (u && h->index_depth > 0) u->integer = true;
  if (e->kind == EX_ATTR && (u = use_of(h, e->kids[0]))) u->array = true;
  if (e->kind != EX_INDEX) return true;
  if ((u = use_of(h, e->kids[0]))) {
    u->array = true;
    if (e->nkids - 1 > u->ndim) u->ndim = e->nkids - 1;
  }
  ast_walk_expr(w, e->kids[0]);
  for (int i = 1; i < e->nkids; i++) note_integers(h, e->kids[i]);
  return false;
}

static void note_integers(HintWalk *h, const Expr *e) {
  if (!e) return;
  AstWalker w = {.expr = note_expr, .ctx = h};
  h->index_depth++;
  ast_walk_expr(&w, e);
  h->index_depth--;
}

/* A range() loop's bounds are integers. */
static bool note_stmt(AstWalker *w, const Stmt *s) {
  if (s->kind == ST_FOR_RANGE) {
    note_integers(w->ctx, s->start);
    note_integers(w->ctx, s->stop);
    note_integers(w->ctx, s->step);
  }
  return true;
}

static void put_param_type(StrBuf *sb, const ParamUse *u) {
  if (!u->array) {
    sb_puts(sb, u->integer ? "int64" : "float64");
    return;
  }
  sb_puts(sb, "float32[");
  for (int d = 0; d < (u->ndim ? u->ndim : 1); d++) sb_puts(sb, d ? ", :" : ":");
  sb_putc(sb, ']');
}

const char *typeinfer_sig_hint(Arena *a, const Function *f) {
  Function inputs;
  if (f->stencil_body) {   /* a stencil's kernel: its inputs, as the stencil function uses them */
    inputs = *f->stencil_body;
    inputs.name = f->name;
    inputs.nparams -= f->stencil_ndim;
    f = &inputs;
  }
  HintWalk h = {arena_alloc(a, sizeof *h.uses * (size_t)(f->nparams ? f->nparams : 1)), f->nparams, 0};
  for (int i = 0; i < f->nparams; i++) h.uses[i] = (ParamUse){0};
  AstWalker w = {.stmt = note_stmt, .expr = note_expr, .ctx = &h};
  ast_walk_block(&w, &f->body);
  StrBuf sb;
  sb_init(&sb, a);
  sb_printf(&sb, "%s(", f->name);
  for (int i = 0; i < f->nparams; i++) {
    if (i) sb_puts(&sb, ", ");
    put_param_type(&sb, &h.uses[i]);
  }
  sb_putc(&sb, ')');
  return sb_str(&sb);
}
