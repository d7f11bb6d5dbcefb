/* Emission of statements. Every statement is preceded by its Python source as a comment, so
 * the output can be read side by side with the kernel it came from (and, on request, a #line
 * directive). Assignments write the conversion to the target's type out; tuple targets are
 * stored element by element; range() loops become C for loops (their facts come from the
 * analysis, src/analysis/ranges.c); print() becomes one printf. */
#include <string.h>

#include "codegen/cg.h"

/* ---- source comments ---- */

/* A Python line as a C++ comment: a trailing backslash would splice the next line into the
 * comment, and "??" could start a trigraph in old dialects; both are defused. */
static void put_comment_line(StrBuf *sb, const char *s, size_t len) {
  while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
  while (len && (*s == ' ' || *s == '\t')) s++, len--;
  sb_puts(sb, "// ");
  for (size_t i = 0; i < len; i++) {
    sb_putc(sb, s[i]);
    if (s[i] == '?' && i + 1 < len && s[i + 1] == '?') sb_putc(sb, ' ');
  }
  if (len && s[len - 1] == '\\') sb_puts(sb, " (continued)");
  sb_putc(sb, '\n');
}

static void put_c_string(StrBuf *sb, const char *s, size_t len, bool printf_format);
static void put_c_string_body(StrBuf *sb, const char *s, size_t len, bool printf_format);

static void emit_source_comment(Gen *G, const Stmt *s, bool header_only) {
  LineMark mark = {G->body->len, s->loc.line};
  vec_push(G->a, &G->marks, mark);
  uint32_t last = header_only || s->end_line < s->loc.line ? s->loc.line : s->end_line;
  if (last > s->loc.line + 20) last = s->loc.line + 20;
  for (uint32_t l = s->loc.line; l <= last; l++) {
    size_t len;
    const char *text = source_line(G->c, l, &len);
    sb_indent(G->body, G->indent);
    put_comment_line(G->body, text, len);
  }
  /* After the comment, so that the statement's code is on the line the directive names. */
  if (G->line_directives) {
    sb_indent(G->body, 0);
    sb_printf(G->body, "#line %u ", s->loc.line);
    put_c_string(G->body, G->c->file, strlen(G->c->file), false);
    sb_putc(G->body, '\n');
  }
}

void emit_c_string_literal(StrBuf *sb, const char *s, size_t len) { put_c_string(sb, s, len, false); }

void emit_stmt_comment(Gen *G, const Stmt *s) {
  emit_source_comment(G, s, true);
}

/* ---- strings ---- */

/* The inside of a C string literal holding exactly the bytes s[0..len). Non-printable and
 * non-ASCII bytes become octal escapes (never \x, which would swallow following hex digits);
 * "??" is split so that no trigraph forms. */
static void put_c_string_body(StrBuf *sb, const char *s, size_t len, bool printf_format) {
  for (size_t i = 0; i < len; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"' || ch == '\\') sb_printf(sb, "\\%c", ch);
    else if (ch == '\n') sb_puts(sb, "\\n");
    else if (ch == '\t') sb_puts(sb, "\\t");
    else if (ch == '%' && printf_format) sb_puts(sb, "%%");
    else if (ch == '?' && i + 1 < len && s[i + 1] == '?') sb_puts(sb, "?\\");
    else if (ch < 0x20 || ch >= 0x7F) sb_printf(sb, "\\%03o", ch);
    else sb_putc(sb, (char)ch);
  }
}

static void put_c_string(StrBuf *sb, const char *s, size_t len, bool printf_format) {
  sb_putc(sb, '"');
  put_c_string_body(sb, s, len, printf_format);
  sb_putc(sb, '"');
}

/* ---- statements ---- */


void emit_line(Gen *G, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_indent(G->body, G->indent);
  sb_vprintf(G->body, fmt, ap);
  va_end(ap);
}

/* a[lo:hi] = v, m[i] = v: the scalar, converted to the element type, fills the view
 * (p2c_fill(view, v)), whose writes --sanitize then reports. */
static void emit_fill(Gen *G, const Expr *target, const Expr *value) {
  const Type *view = target->ty;
  type_helper_use(&G->helpers, TH_VIEW_WALK);
  type_helper_use(&G->helpers, TH_VIEW_FILL);
  sb_indent(G->body, G->indent);
  san_view_written_open(G, view, G->body);
  sb_puts(G->body, "p2c_fill(");
  emit_expr(G, target, G->body, P_ASSIGN);
  sb_puts(G->body, ", ");
  Expr *kids[1] = {(Expr *)value};
  Expr conv = {.kind = EX_CAST, .ty = view->dtype, .kids = kids, .nkids = 1, .loc = value->loc};
  emit_expr(G, value->ty == view->dtype ? value : &conv, G->body, P_ASSIGN);
  sb_putc(G->body, ')');
  san_view_written_close(G, target, G->body);
  sb_puts(G->body, ";\n");
}

/* a[lo:hi] = b: NumPy's broadcasting copy, as the identity ufunc into the view:
 * p2c_ufunc(VIEW, LINE, COLUMN, [](T x0) { return x0; }, b), which checks the extents and an
 * overlap of b with the view at run time. */
static void emit_view_copy(Gen *G, const Expr *target, const Expr *value) {
  use_ufunc_helpers(G);
  sb_indent(G->body, G->indent);
  sb_puts(G->body, "(void)");
  san_view_written_open(G, target->ty, G->body);
  sb_puts(G->body, "p2c_ufunc(");
  emit_array_value(G, target, G->body);
  sb_printf(G->body, ", %u, %u, [](%s x0) { return x0; }, ", target->loc.line, target->loc.col,
            value->ty->dtype->cname);
  emit_array_value(G, value, G->body);
  sb_putc(G->body, ')');
  san_view_written_close(G, target, G->body);
  sb_puts(G->body, ";\n");
}

/* target = value, with the conversion to the target's type written out. */
static void emit_store(Gen *G, const Expr *target, const Expr *value) {
  const Type *tt = target->kind == EX_VAR ? G->fn->vars[target->var].ty : target->ty;
  if (tt->kind == TY_ARRAY && expr_is_field(target)) {   /* r.v = arr */
    emit_nested_copy(G, target, value);
    return;
  }
  if (tt->kind == TY_ARRAY && target->kind != EX_VAR) {   /* a[lo:hi] = v, m[i] = v, a[lo:hi] = b */
    if (value->ty->kind == TY_ARRAY) emit_view_copy(G, target, value);
    else emit_fill(G, target, value);
    return;
  }
  sb_indent(G->body, G->indent);
  if (tt->kind == TY_RECORD && target->kind == EX_VAR) {   /* r = a[i]: r refers to a[i] */
    emit_record_ref(G, target, G->body, P_ASSIGN);
    sb_puts(G->body, " = ");
    emit_record_ref(G, value, G->body, P_ASSIGN);
    sb_puts(G->body, ";\n");
    return;
  }
  G->san_kind = SAN_WRITE;   /* taken by the target's element, if it is one */
  emit_expr(G, target, G->body, P_ASSIGN);
  G->san_kind = SAN_READ;
  sb_puts(G->body, " = ");
  bool cast = type_plain(value->ty) != type_plain(tt) && (type_is_numeric(tt) || tt->kind == TY_TUPLE);
  if (cast) {
    Expr *kids[1] = {(Expr *)value};
    Expr conv = {.kind = EX_CAST, .ty = tt, .kids = kids, .nkids = 1, .loc = value->loc};
    emit_expr(G, &conv, G->body, P_ASSIGN);
  } else if (tt->kind == TY_ARRAY && tt->space != MEM_CONST) {   /* a constant array is its name */
    emit_array_value(G, value, G->body);
  } else if (tt->kind == TY_CHARSEQ) {   /* a[i] = "XYZ", a[i] = b[j] */
    emit_charseq_value(G, tt, value, G->body);
  } else {
    emit_expr(G, value, G->body, P_ASSIGN);
  }
  sb_puts(G->body, ";\n");
}

/* Writes `value` into a new temporary and returns the temporary. */
static Expr *store_in_temp(Gen *G, Expr *value) {
  Expr *t = temp_expr(G, value->ty);
  sb_indent(G->body, G->indent);
  sb_printf(G->body, "%s = ", t->str);
  emit_expr(G, value, G->body, P_ASSIGN);
  sb_puts(G->body, ";\n");
  return t;
}

/* a, b = value: each element is stored in turn, left to right, as Python stores them. A tuple
 * literal that reads a target (a, b = b, a) is evaluated into temporaries first, as Python
 * evaluates the right side first; any other value that is not at hand (a device call) goes
 * into one temporary. The analysis recorded which (facts.c: EF_READS_TARGET, EF_STORES,
 * EF_AT_HAND); codegen's own tuples and temporaries carry theirs from where they are made. */
static void emit_unpack(Gen *G, const Expr *target, Expr *value) {
  Expr *elems[256];
  if (value->kind == EX_TUPLE) {
    bool via_temps = (value->facts & EF_READS_TARGET) || (target->facts & EF_STORES);
    for (int k = 0; k < target->nkids; k++)
      elems[k] = via_temps ? store_in_temp(G, value->kids[k]) : value->kids[k];
  } else {
    if (!(value->facts & EF_AT_HAND)) value = store_in_temp(G, value);
    for (int k = 0; k < target->nkids; k++) elems[k] = tuple_elem_expr(G, value, k);
  }
  for (int k = 0; k < target->nkids; k++) emit_assign_one(G, target->kids[k], elems[k]);
}

static bool is_new_array(const Expr *e) {
  return e->kind == EX_CALL && e->kids[0]->kind == EX_BUILTIN && builtin_has(e->kids[0]->builtin, BF_NEW_ARRAY);
}

void emit_assign_one(Gen *G, const Expr *target, Expr *value) {
  if (target->kind == EX_TUPLE) {
    emit_unpack(G, target, value);
  } else if (target->kind == EX_VAR && G->fn->vars[target->var].ty->fixed_shape &&
             G->fn->vars[target->var].ty->space != MEM_CONST) {
    /* shared/local array: the declaration is the allocation; q = a.copy() then fills it */
    if (is_new_array(value)) emit_view_copy(G, target, value->kids[1]);
  } else {
    emit_store(G, target, value);
  }
}

static void emit_assign(Gen *G, const Stmt *s) {
  if (s->ntargets == 1) {
    emit_assign_one(G, s->targets[0], s->value);
    return;
  }
  /* a = b = value: evaluate once (a literal is at hand: a str literal has no temporary). */
  Expr *t = s->value->kind == EX_STR ? s->value : store_in_temp(G, s->value);
  for (int i = 0; i < s->ntargets; i++) emit_assign_one(G, s->targets[i], t);
}

/* x op= v: written as `x op= v` when C computes the same thing, else as x = x op v. */
static void emit_augassign(Gen *G, const Stmt *s) {
  const Expr *t = s->targets[0], *bin = s->value;
  const Type *tt = t->kind == EX_VAR ? G->fn->vars[t->var].ty : t->ty;
  bool c_op = bin->kind == EX_BINARY && bin->kids[0]->kind != EX_CAST && bin->ty == tt && type_is_number(tt) &&
              bin->op != OP_FLOORDIV && bin->op != OP_MOD && bin->op != OP_POW;
  if (!c_op) {
    emit_store(G, t, bin);
    return;
  }
  StrBuf rhs;
  sb_init(&rhs, G->a);
  emit_expr(G, bin->kids[1], &rhs, P_ASSIGN);
  sb_indent(G->body, G->indent);
  G->san_kind = SAN_UPDATE;
  emit_expr(G, t, G->body, P_ASSIGN);
  G->san_kind = SAN_READ;
  sb_printf(G->body, " %s= %s;\n", op_python_spelling(bin->op), sb_str(&rhs));
}

/* `kw (cond) {`, then the body, unless `loop` a loop's body (emit_loop_body). */
static void emit_cond_block(Gen *G, const char *kw, const Expr *cond, const Block *body, bool loop) {
  sb_indent(G->body, G->indent);
  sb_printf(G->body, "%s (", kw);
  emit_expr(G, cond, G->body, P_LOWEST);
  sb_puts(G->body, ") {\n");
  G->indent += 2;
  if (loop) emit_loop_body(G, body, true);
  else emit_block(G, body);
  G->indent -= 2;
}

/* A loop's body: first P2C_SIM_POLL(), where the simulator counts the iterations of the kernel's
 * loops and, every few thousand, lets its launch be stopped (Ctrl-C, a timeout) even in a loop
 * that never ends (docs/simulator.md, "Stopping a launch"); nothing on a GPU. Not in a short
 * innermost loop of a constant count (the analysis's RangeFacts.short_and_inner). */
void emit_loop_body(Gen *G, const Block *body, bool poll) {
  if (poll) emit_line(G, "P2C_SIM_POLL();\n");
  emit_block(G, body);
}

static void emit_if(Gen *G, const Stmt *s) {
  emit_cond_block(G, "if", s->cond, &s->body, false);
  const Block *orelse = &s->orelse;
  /* elif chains read as else if */
  while (orelse->len == 1 && orelse->items[0]->kind == ST_IF) {
    const Stmt *e = orelse->items[0];
    emit_line(G, "} else if (");
    emit_expr(G, e->cond, G->body, P_LOWEST);
    sb_puts(G->body, ") {\n");
    G->indent += 2;
    emit_source_comment(G, e, true);
    emit_block(G, &e->body);
    G->indent -= 2;
    orelse = &e->orelse;
  }
  if (orelse->len) {
    emit_line(G, "} else {\n");
    G->indent += 2;
    emit_block(G, orelse);
    G->indent -= 2;
  }
  emit_line(G, "}\n");
}

/* A range bound is evaluated once, before the loop: anything that could change while the loop
 * runs goes into a temporary (`for k in range(0, k)` reads the k of before the loop). */
static const char *range_bound(Gen *G, const Expr *e, bool stable) {
  StrBuf sb;
  sb_init(&sb, G->a);
  emit_expr(G, e, &sb, P_REL + 1);
  if (stable) return sb_str(&sb);
  const char *t = new_temp(G, e->ty);
  emit_line(G, "%s = %s;\n", t, sb_str(&sb));
  return t;
}

/* for i in range(start, stop, step): the loop variable is the C loop counter when the body does
 * not assign it and nothing reads it after the loop (Python leaves it at the last value, C one
 * step further); otherwise a hidden counter drives the loop. */
RangeLoop range_loop(Gen *G, const Stmt *s) {
  RangeLoop r;
  r.stop = range_bound(G, s->stop, s->range.stop_stable);
  r.step = s->step ? range_bound(G, s->step, s->range.step_stable) : "1";
  StrBuf start;
  sb_init(&start, G->a);
  if (s->start) emit_expr(G, s->start, &start, P_ASSIGN);
  else sb_puts(&start, "0");
  r.start = sb_str(&start);
  r.sign = s->range.sign;
  r.unit_step = !s->step;
  r.ctype = ctype_of(G, G->fn->vars[s->var].ty);
  r.exact_advance = s->range.exact_advance;
  if (!r.exact_advance) type_helper_use(&G->helpers, TH_RANGE_NEXT);
  return r;
}

const char *range_loop_test(Gen *G, const RangeLoop *r, const char *ctr) {
  if (r->sign == 2)   /* a step that is zero at run time runs no iteration (Python would raise) */
    return arena_printf(G->a, "%s > 0 ? %s < %s : (%s < 0 && %s > %s)", r->step, ctr, r->stop, r->step, ctr,
                        r->stop);
  return arena_printf(G->a, "%s %s %s", ctr, r->sign > 0 ? "<" : ">", r->stop);
}

const char *range_loop_advance(Gen *G, const RangeLoop *r, const char *ctr) {
  if (!r->exact_advance)
    return arena_printf(G->a, "%s = p2c_range_next<%s>(%s, %s, %s)", ctr, r->ctype, ctr, r->step, r->stop);
  return r->unit_step ? arena_printf(G->a, "++%s", ctr) : arena_printf(G->a, "%s += %s", ctr, r->step);
}

/* The names a parallel loop's C block uses (each claimed, so that none captures a variable). */
typedef struct ParNames {
  const char *start, *step, *n, *w, *c, *lo, *hi, *k;
  const char **parts;      /* per reduction: its chunks' values */
  const char **before;     /* per reduction: its value before the loop (min and max start there) */
} ParNames;

static ParNames par_names(Gen *G, const ParallelLoop *p) {
  ParNames m = {namer_claim_temp(&G->local, "start"), namer_claim_temp(&G->local, "step"),
                namer_claim_temp(&G->local, "n"), namer_claim_temp(&G->local, "w"),
                namer_claim_temp(&G->local, "c"), namer_claim_temp(&G->local, "lo"),
                namer_claim_temp(&G->local, "hi"), namer_claim_temp(&G->local, "k"), NULL, NULL};
  size_t n = (size_t)(p->nreductions ? p->nreductions : 1);
  m.parts = arena_alloc(G->a, sizeof(char *) * n);
  m.before = arena_alloc(G->a, sizeof(char *) * n);
  for (int j = 0; j < p->nreductions; j++) {
    m.parts[j] = namer_claim_temp(&G->local, "part");
    m.before[j] = namer_claim_temp(&G->local, "before");
  }
  return m;
}

/* The C operator that combines a reduction's chunks (min and max compare instead), and the
 * value a chunk starts from: the operator's identity, or the variable's value before the loop. */
static const char *reduction_combine(ReductionKind k) {
  static const char *const ops[] = {[RED_ADD] = "+", [RED_MUL] = "*", [RED_OR] = "|", [RED_AND] = "&",
                                    [RED_XOR] = "^", [RED_MIN] = "<", [RED_MAX] = ">"};
  return ops[k];
}
static const char *reduction_start(ReductionKind k, const char *before) {
  return k == RED_MUL ? "1" : k == RED_AND ? "~0" : k == RED_MIN || k == RED_MAX ? before : "0";
}

/* The lambda's declarations: its own copy of every variable the body binds, each reduction at
 * its start, and the temporaries the body's text uses (made while it was written). */
static void emit_par_decls(Gen *G, const ParallelLoop *p, const ParNames *m, size_t first_temp, StrBuf *out) {
  for (int v = 0; v < G->fn->nvars; v++)
    if (p->private_vars[v] && G->fn->vars[v].ty) {
      sb_indent(out, G->indent - 2);   /* emit_var_decl indents for a function's top level */
      emit_var_decl(G, out, v);
    }
  for (int j = 0; j < p->nreductions; j++) {
    int v = p->reductions[j];
    const char *ct = ctype_of(G, G->fn->vars[v].ty);
    sb_indent(out, G->indent);
    sb_printf(out, "%s %s = (%s)%s;\n", ct, G->vnames[v], ct, reduction_start(p->reduction_kinds[j], m->before[j]));
  }
  for (size_t i = first_temp; i < G->temps.len; i++) {
    sb_indent(out, G->indent);
    sb_printf(out, "%s %s;\n", G->temps.items[i].ctype, G->temps.items[i].name);
  }
}

/* After the loop: each reduction gathers its chunks' values, in chunk order. */
static void emit_par_combine(Gen *G, const ParallelLoop *p, const ParNames *m) {
  for (int j = 0; j < p->nreductions; j++) {
    const char *v = G->vnames[p->reductions[j]], *op = reduction_combine(p->reduction_kinds[j]);
    bool minmax = p->reduction_kinds[j] == RED_MIN || p->reduction_kinds[j] == RED_MAX;
    if (minmax && G->fn->vars[p->reductions[j]].ty->kind == TY_FLOAT)   /* as the body's min and max */
      emit_line(G, "for (int %s = 0; %s < %s; ++%s) %s = %s(%s, %s[%s]);\n", m->c, m->c, m->w, m->c, v,
                p->reduction_kinds[j] == RED_MIN ? "fmin" : "fmax", v, m->parts[j], m->c);
    else if (minmax)
      emit_line(G, "for (int %s = 0; %s < %s; ++%s) if (%s[%s] %s %s) %s = %s[%s];\n", m->c, m->c, m->w, m->c,
                m->parts[j], m->c, op, v, v, m->parts[j], m->c);
    else
      emit_line(G, "for (int %s = 0; %s < %s; ++%s) %s %s= %s[%s];\n", m->c, m->c, m->w, m->c, v, op, m->parts[j], m->c);
  }
}

/* The chunk's loop over its iterations [lo, hi), written into G->body. */
static void emit_par_chunk(Gen *G, const Stmt *s, const ParNames *m) {
  const ParallelLoop *p = s->par;
  emit_line(G, "for (int64_t %s = %s; %s < %s; ++%s) {\n", m->k, m->lo, m->k, m->hi, m->k);
  G->indent += 2;
  emit_line(G, "%s = (%s)(%s + %s * %s);\n", G->vnames[s->var], ctype_of(G, G->fn->vars[s->var].ty), m->start,
            m->k, m->step);
  emit_loop_body(G, &s->body, true);
  G->indent -= 2;
  emit_line(G, "}\n");
  for (int j = 0; j < p->nreductions; j++) emit_line(G, "%s[%s] = %s;\n", m->parts[j], m->c, G->vnames[p->reductions[j]]);
}

/* for i in prange(...) over the host's cores (Stmt.par): the iteration count and the workers,
 * then p2c_prange with a lambda that runs one chunk, whose own declarations shadow the
 * function's variables the body binds (in the C form, a loop over the chunks with the same
 * block); after it each reduction gathers its chunks' values, in chunk order. */
static void emit_parallel_for(Gen *G, const Stmt *s) {
  const ParallelLoop *p = s->par;
  helper_use(&G->helpers, H_BOUNDS);   /* P2C_EXIT_THREAD, p2c_raise's record */
  helper_use(&G->helpers, H_RAISE);
  helper_use(&G->helpers, H_NP_ALLOC);
  helper_use(&G->helpers, H_PRANGE);
  RangeLoop r = range_loop(G, s);
  ParNames m = par_names(G, p);
  emit_line(G, "{\n");
  G->indent += 2;
  emit_line(G, "const int64_t %s = (int64_t)(%s), %s = (int64_t)(%s);\n", m.start, r.start, m.step, r.step);
  emit_line(G, "const int64_t %s = p2c_range_count(%s, (int64_t)(%s), %s);\n", m.n, m.start, r.stop, m.step);
  emit_line(G, "const int %s = p2c_prange_workers(%s);\n", m.w, m.n);
  for (int j = 0; j < p->nreductions; j++) {
    int v = p->reductions[j];
    const char *ct = ctype_of(G, G->fn->vars[v].ty);
    emit_line(G, "%s %s[P2C_PRANGE_MAX];\n", ct, m.parts[j]);
    if (p->reduction_kinds[j] == RED_MIN || p->reduction_kinds[j] == RED_MAX)
      emit_line(G, "const %s %s = %s;\n", ct, m.before[j], G->vnames[v]);
  }
  if (G->c_form) {   /* C has no lambda: the first tier runs the same chunks in turn (emit_c.c) */
    emit_line(G, "for (int %s = 0; %s < %s; ++%s) {\n", m.c, m.c, m.w, m.c);
    emit_line(G, "  const int64_t %s = p2c_prange_lo(%s, %s, %s), %s = p2c_prange_lo(%s, %s, %s + 1);\n", m.lo, m.n,
              m.w, m.c, m.hi, m.n, m.w, m.c);
  } else {
    emit_line(G, "p2c_prange(%s, %s, [&](int %s, int64_t %s, int64_t %s) {\n", m.w, m.n, m.c, m.lo, m.hi);
  }
  G->indent += 2;
  size_t first_temp = G->temps.len, first_mark = G->marks.len;
  StrBuf *outer = G->body, chunk;
  sb_init(&chunk, G->a);
  G->body = &chunk;
  emit_par_chunk(G, s, &m);
  G->body = outer;
  emit_par_decls(G, p, &m, first_temp, outer);
  for (size_t i = first_mark; i < G->marks.len; i++) G->marks.items[i].offset += outer->len;
  sb_putn(outer, sb_str(&chunk), chunk.len);
  G->indent -= 2;
  emit_line(G, G->c_form ? "}\n" : "});\n");
  emit_par_combine(G, p, &m);
  G->indent -= 2;
  emit_line(G, "}\n");
}

static void emit_for_range(Gen *G, const Stmt *s) {
  if (s->par && !G->sanitize) {   /* --sanitize's checker follows the simulator's own threads only */
    emit_parallel_for(G, s);
    return;
  }
  const Type *t = G->fn->vars[s->var].ty;
  const char *v = G->vnames[s->var];
  RangeLoop r = range_loop(G, s);
  bool direct = s->range.direct;
  const char *ctr = direct ? v : new_temp(G, t);
  emit_line(G, "for (%s = %s; %s; %s) {\n", ctr, r.start, range_loop_test(G, &r, ctr), range_loop_advance(G, &r, ctr));
  G->indent += 2;
  if (!direct) emit_line(G, "%s = %s;\n", v, ctr);
  emit_loop_body(G, &s->body, !s->range.short_and_inner);
  G->indent -= 2;
  emit_line(G, "}\n");
}

/* The printf conversion Numba's CUDA print writes for an item of type `t` (a string is %s). */
static const char *print_conversion(const Type *t) {
  if (t->kind == TY_FLOAT || t->kind == TY_HALF) return "%f";
  if (t->kind == TY_BOOL) return "%s";
  return t->is_signed ? "%lld" : "%llu";
}

/* print() of more than 32 items: CUDA's printf takes at most 32 arguments, so Numba warns and
 * the kernel prints its raw format string instead, the conversions as written (%lld %f ...).
 * pyk2cuda does the same, so that such a program runs as it does under Numba. */
static void emit_print_raw_format(Gen *G, const Expr *call, int limit) {
  diag_warning(G->c, call->loc, "W-print-items",
               "CUDA print() cannot print more than %d items. The raw format string will be emitted "
               "by the kernel instead.", limit);
  StrBuf fmt;
  sb_init(&fmt, G->a);
  sb_putc(&fmt, '"');
  for (int i = 1; i < call->nkids; i++) {
    const Expr *a = call->kids[i];
    if (i > 1) sb_putc(&fmt, ' ');
    sb_putc(&fmt, '%');   /* doubled: printf writes the conversion itself */
    sb_puts(&fmt, a->kind == EX_STR ? "%s" : print_conversion(a->ty));
  }
  sb_puts(&fmt, "\\n\"");
  for (int i = 1; i < call->nkids; i++) {   /* items with effects are still evaluated, as in Numba */
    if (an_expr_is_pure(call->kids[i])) continue;
    StrBuf item;
    sb_init(&item, G->a);
    emit_expr(G, call->kids[i], &item, P_ASSIGN);
    emit_line(G, "(void)(%s);\n", sb_str(&item));
  }
  emit_line(G, "printf(%s);\n", sb_str(&fmt));
}

/* One item of print(): a string's bytes, a number's conversion and argument, or a tuple as
 * Python writes it, "(1, (2, 3.000000), (4,))", each element an item of its own (Numba's CUDA
 * print formats a tuple so). */
static void put_print_item(Gen *G, Expr *a, StrBuf *fmt, StrBuf *args) {
  if (a->kind == EX_STR) {
    put_c_string_body(fmt, a->str, a->str_len, true);
    return;
  }
  if (a->ty->kind == TY_TUPLE) {
    sb_putc(fmt, '(');
    for (int k = 0; k < a->ty->nelems; k++) {
      sb_puts(fmt, k ? ", " : "");
      put_print_item(G, tuple_elem_expr(G, a, k), fmt, args);
    }
    sb_puts(fmt, a->ty->nelems == 1 ? ",)" : ")");
    return;
  }
  sb_puts(args, ", ");
  sb_puts(fmt, print_conversion(a->ty));
  if (a->ty->kind == TY_BOOL) {
    emit_expr(G, a, args, P_OR);
    sb_puts(args, " ? \"True\" : \"False\"");
  } else if (a->ty->kind == TY_FLOAT || a->ty->kind == TY_HALF) {
    sb_puts(args, "(double)");
    if (a->ty->kind == TY_HALF) sb_puts(args, "p2c_float_of(");
    emit_expr(G, a, args, a->ty->kind == TY_HALF ? P_ASSIGN : P_UNARY);
    if (a->ty->kind == TY_HALF) sb_putc(args, ')');
  } else {
    sb_puts(args, a->ty->is_signed ? "(long long)" : "(unsigned long long)");
    emit_expr(G, a, args, P_UNARY);
  }
}

/* A tuple item of print() with effects, evaluated once into a temporary whose elements the
 * printf reads; any other item as it is. */
static Expr *print_item_once(Gen *G, Expr *a) {
  if (a->ty->kind != TY_TUPLE || an_expr_is_pure(a)) return a;
  Expr *t = temp_expr(G, a->ty);
  StrBuf value;
  sb_init(&value, G->a);
  emit_expr(G, a, &value, P_ASSIGN);
  emit_line(G, "%s = %s;\n", t->str, sb_str(&value));
  return t;
}

/* print(a, b): one printf, items separated by spaces, as Numba's CUDA print does. The user's
 * strings are escaped piece by piece (with % doubled); conversions are written between them, so
 * nothing in a string can become a conversion. */
static void emit_print(Gen *G, const Expr *call) {
  enum { MAX_PRINT_ARGS = 32 };
  if (call->nkids - 1 > MAX_PRINT_ARGS) {
    emit_print_raw_format(G, call, MAX_PRINT_ARGS);
    return;
  }
  StrBuf fmt, args;
  sb_init(&fmt, G->a);
  sb_init(&args, G->a);
  sb_putc(&fmt, '"');
  for (int i = 1; i < call->nkids; i++) {
    sb_puts(&fmt, i > 1 ? " " : "");
    put_print_item(G, print_item_once(G, call->kids[i]), &fmt, &args);
  }
  sb_puts(&fmt, "\\n\"");
  emit_line(G, "printf(%s%s);\n", sb_str(&fmt), sb_str(&args));
}

static void emit_expr_stmt(Gen *G, const Stmt *s) {
  const Expr *e = s->value;
  if (e->kind == EX_CALL && e->kids[0]->kind == EX_BUILTIN && e->kids[0]->builtin->id == BI_PRINT) {
    emit_print(G, e);
    return;
  }
  if ((e->kind == EX_CALL && e->kids[0]->kind == EX_BUILTIN && builtin_has(e->kids[0]->builtin, BF_ARRAY_ALLOC)) ||
      is_new_array(e))
    return;   /* cuda.local.array(...) or a.copy() alone: an array nothing can reach, so no storage */
  sb_indent(G->body, G->indent);
  if (e->ty && e->ty->kind != TY_VOID) sb_puts(G->body, "(void)");
  emit_expr(G, e, G->body, e->ty && e->ty->kind != TY_VOID ? P_UNARY : P_LOWEST);
  sb_puts(G->body, ";\n");
}

/* raise / a failed assert (docs/semantics.md): the thread leaves, as Numba's exception status
 * makes it return from the kernel. With debug=True on the function (or --check-bounds), the
 * exception is recorded first, for the launch to report; otherwise nothing is reported: a
 * kernel returns, a device function ends the thread. */
static void emit_raise(Gen *G, const Stmt *s) {
  sb_indent(G->body, G->indent);
  if (s->cond) {
    sb_puts(G->body, "if (!(");
    emit_expr(G, s->cond, G->body, P_LOWEST);
    sb_puts(G->body, ")) ");
  }
  if (G->fn->reports_raises) {
    helper_use(&G->helpers, H_BOUNDS);
    helper_use(&G->helpers, H_RAISE);
    sb_printf(G->body, "p2c_raise(%u, %u, ", s->loc.line, s->loc.col);
    put_c_string(G->body, s->exc, strlen(s->exc), false);
    sb_puts(G->body, ");\n");
  } else if (G->fn->kind == FN_KERNEL) {
    sb_puts(G->body, "return;\n");
  } else {
    helper_use(&G->helpers, H_BOUNDS);   /* P2C_EXIT_THREAD */
    sb_puts(G->body, "P2C_EXIT_THREAD();\n");
  }
}

static void emit_return(Gen *G, const Stmt *s) {
  if (!s->value || G->fn->ret_type->kind == TY_VOID) {
    emit_line(G, "return;\n");
    return;
  }
  sb_indent(G->body, G->indent);
  sb_puts(G->body, "return ");
  if (s->value->ty->kind == TY_ARRAY || s->value->ty->kind == TY_RECORD) emit_array_value(G, s->value, G->body);
  else emit_expr(G, s->value, G->body, P_LOWEST);
  sb_puts(G->body, ";\n");
}

/* A statement with a block (its source comment is its header line only). */
static bool is_compound(const Stmt *s) {
  switch (s->kind) {
  case ST_IF:
  case ST_WHILE:
  case ST_FOR_RANGE:
  case ST_FOR_ITER: return true;
  case ST_EXPR:
  case ST_ASSIGN:
  case ST_AUGASSIGN:
  case ST_BREAK:
  case ST_CONTINUE:
  case ST_PASS:
  case ST_RETURN:
  case ST_RAISE: return false;
  }
  return false;
}

static void emit_stmt(Gen *G, const Stmt *s) {
  emit_source_comment(G, s, is_compound(s));
  switch (s->kind) {
  case ST_EXPR: emit_expr_stmt(G, s); break;
  case ST_ASSIGN: emit_assign(G, s); break;
  case ST_AUGASSIGN: emit_augassign(G, s); break;
  case ST_IF: emit_if(G, s); break;
  case ST_WHILE:
    emit_cond_block(G, "while", s->cond, &s->body, true);
    emit_line(G, "}\n");
    break;
  case ST_FOR_RANGE: emit_for_range(G, s); break;
  case ST_FOR_ITER: emit_for_iter(G, s); break;
  case ST_BREAK: emit_line(G, "break;\n"); break;
  case ST_CONTINUE: emit_line(G, "continue;\n"); break;
  case ST_PASS: emit_line(G, ";\n"); break;
  case ST_RETURN: emit_return(G, s); break;
  case ST_RAISE: emit_raise(G, s); break;
  }
}

void emit_block(Gen *G, const Block *b) {
  for (int i = 0; i < b->len; i++) emit_stmt(G, b->items[i]);
}
