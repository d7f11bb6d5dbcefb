/* Emission of the module, functions and statements. Each function's body is written into its
 * own buffer first, because the declarations it needs (locals, temporaries) are only known at
 * the end; the prelude comes last for the same reason (only the helpers used are written).
 * Every statement is preceded by its Python source as a comment, so the output can be read
 * side by side with the kernel it came from. */
#include <string.h>

#include "codegen/cg.h"
#include "util/side.h"

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
  if (G->line_directives) {
    sb_indent(G->body, 0);
    sb_printf(G->body, "#line %u ", s->loc.line);
    put_c_string(G->body, G->c->file, strlen(G->c->file), false);
    sb_putc(G->body, '\n');
  }
  for (uint32_t l = s->loc.line; l <= last; l++) {
    size_t len;
    const char *text = source_line(G->c, l, &len);
    sb_indent(G->body, G->indent);
    put_comment_line(G->body, text, len);
  }
}

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


static void line(Gen *G, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(Gen *G, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_indent(G->body, G->indent);
  sb_vprintf(G->body, fmt, ap);
  va_end(ap);
}

void emit_line(Gen *G, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_indent(G->body, G->indent);
  sb_vprintf(G->body, fmt, ap);
  va_end(ap);
}

/* target = value, with the conversion to the target's type written out. */
static void emit_store(Gen *G, const Expr *target, const Expr *value) {
  const Type *tt = target->kind == EX_VAR ? G->fn->vars[target->var].ty : target->ty;
  sb_indent(G->body, G->indent);
  emit_expr(G, target, G->body, P_ASSIGN);
  sb_puts(G->body, " = ");
  bool cast = value->ty != tt && (type_is_numeric(tt) || tt->kind == TY_TUPLE);
  if (cast) {
    Expr *kids[1] = {(Expr *)value};
    Expr conv = {.kind = EX_CAST, .ty = tt, .kids = kids, .nkids = 1, .loc = value->loc};
    emit_expr(G, &conv, G->body, P_ASSIGN);
  } else if (tt->kind == TY_ARRAY && tt->space != MEM_CONST) {   /* a constant array is its name */
    emit_array_value(G, value, G->body);
  } else {
    emit_expr(G, value, G->body, P_ASSIGN);
  }
  sb_puts(G->body, ";\n");
}

static bool reads_any_target(const Expr *value, const Expr *target) {
  if (target->kind == EX_VAR) return an_reads_var(value, target->var);
  for (int i = 0; i < target->nkids; i++)
    if (reads_any_target(value, target->kids[i])) return true;
  return target->kind == EX_INDEX;
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

/* Whether the elements of tuple value e can be read one at a time without evaluating anything
 * twice or changing what the elements are. */
static bool elements_at_hand(const Expr *e) {
  if (e->kind == EX_INDEX) return e->ival >= 0 && elements_at_hand(e->kids[0]);
  if (e->kind == EX_ATTR) return an_expr_is_pure(e);
  bool grid = e->kind == EX_CALL && e->kids[0]->kind == EX_BUILTIN &&
              builtin_has(e->kids[0]->builtin, BF_PER_ELEMENT);
  return e->kind == EX_VAR || e->kind == EX_TEMP || e->kind == EX_CONST || grid;
}

/* a, b = value: each element is stored in turn, left to right, as Python stores them. A tuple
 * literal that reads a target (a, b = b, a) is evaluated into temporaries first, as Python
 * evaluates the right side first; any other value that is not at hand (a device call) goes
 * into one temporary. */
static void emit_unpack(Gen *G, const Expr *target, Expr *value) {
  Expr *elems[256];
  if (value->kind == EX_TUPLE) {
    bool via_temps = reads_any_target(value, target);
    for (int k = 0; k < target->nkids; k++)
      elems[k] = via_temps ? store_in_temp(G, value->kids[k]) : value->kids[k];
  } else {
    if (!elements_at_hand(value)) value = store_in_temp(G, value);
    for (int k = 0; k < target->nkids; k++) elems[k] = tuple_elem_expr(G, value, k);
  }
  for (int k = 0; k < target->nkids; k++) emit_assign_one(G, target->kids[k], elems[k]);
}

void emit_assign_one(Gen *G, const Expr *target, Expr *value) {
  if (target->kind == EX_TUPLE) emit_unpack(G, target, value);
  else if (target->kind == EX_VAR && G->fn->vars[target->var].ty->fixed_shape &&
           G->fn->vars[target->var].ty->space != MEM_CONST)
    ;   /* shared/local array: the declaration is the allocation */
  else emit_store(G, target, value);
}

static void emit_assign(Gen *G, const Stmt *s) {
  if (s->ntargets == 1) {
    emit_assign_one(G, s->targets[0], s->value);
    return;
  }
  /* a = b = value: evaluate once. */
  Expr *t = store_in_temp(G, s->value);
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
  emit_expr(G, t, G->body, P_ASSIGN);
  sb_printf(G->body, " %s= %s;\n", op_python_spelling(bin->op), sb_str(&rhs));
}

static void emit_cond_block(Gen *G, const char *kw, const Expr *cond, const Block *body) {
  sb_indent(G->body, G->indent);
  sb_printf(G->body, "%s (", kw);
  emit_expr(G, cond, G->body, P_LOWEST);
  sb_puts(G->body, ") {\n");
  G->indent += 2;
  emit_block(G, body);
  G->indent -= 2;
}

static void emit_if(Gen *G, const Stmt *s) {
  emit_cond_block(G, "if", s->cond, &s->body);
  const Block *orelse = &s->orelse;
  /* elif chains read as else if */
  while (orelse->len == 1 && orelse->items[0]->kind == ST_IF) {
    const Stmt *e = orelse->items[0];
    line(G, "} else if (");
    emit_expr(G, e->cond, G->body, P_LOWEST);
    sb_puts(G->body, ") {\n");
    G->indent += 2;
    emit_source_comment(G, e, true);
    emit_block(G, &e->body);
    G->indent -= 2;
    orelse = &e->orelse;
  }
  if (orelse->len) {
    line(G, "} else {\n");
    G->indent += 2;
    emit_block(G, orelse);
    G->indent -= 2;
  }
  line(G, "}\n");
}

/* A range bound is evaluated once, before the loop: anything that could change while the loop
 * runs goes into a temporary (`for k in range(0, k)` reads the k of before the loop). */
static const char *range_bound(Gen *G, const Expr *e, bool stable) {
  StrBuf sb;
  sb_init(&sb, G->a);
  emit_expr(G, e, &sb, P_REL + 1);
  if (stable) return sb_str(&sb);
  const char *t = new_temp(G, e->ty);
  line(G, "%s = %s;\n", t, sb_str(&sb));
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

static void emit_for_range(Gen *G, const Stmt *s) {
  const Type *t = G->fn->vars[s->var].ty;
  const char *v = G->vnames[s->var];
  RangeLoop r = range_loop(G, s);
  bool direct = s->range.direct;
  const char *ctr = direct ? v : new_temp(G, t);
  line(G, "for (%s = %s; %s; %s) {\n", ctr, r.start, range_loop_test(G, &r, ctr), range_loop_advance(G, &r, ctr));
  G->indent += 2;
  if (!direct) line(G, "%s = %s;\n", v, ctr);
  emit_block(G, &s->body);
  G->indent -= 2;
  line(G, "}\n");
}

/* print(a, b): one printf, items separated by spaces, as Numba's CUDA print does. The user's
 * strings are escaped piece by piece (with % doubled); conversions are written between them, so
 * nothing in a string can become a conversion. */
static void emit_print(Gen *G, const Expr *call) {
  enum { MAX_PRINT_ARGS = 32 };
  if (call->nkids - 1 > MAX_PRINT_ARGS) {
    diag_error(G->c, call->loc, "E-print", "print() of more than %d values (printf's limit on the GPU)",
               MAX_PRINT_ARGS);
    return;
  }
  StrBuf fmt, args;
  sb_init(&fmt, G->a);
  sb_init(&args, G->a);
  sb_putc(&fmt, '"');
  for (int i = 1; i < call->nkids; i++) {
    const Expr *a = call->kids[i];
    if (i > 1) sb_putc(&fmt, ' ');
    if (a->kind == EX_STR) {
      put_c_string_body(&fmt, a->str, a->str_len, true);
      continue;
    }
    sb_puts(&args, ", ");
    if (a->ty->kind == TY_BOOL) {
      sb_puts(&fmt, "%s");
      emit_expr(G, a, &args, P_OR);
      sb_puts(&args, " ? \"True\" : \"False\"");
    } else if (a->ty->kind == TY_FLOAT || a->ty->kind == TY_HALF) {
      sb_puts(&fmt, "%f");
      sb_puts(&args, "(double)");
      if (a->ty->kind == TY_HALF) sb_puts(&args, "p2c_float_of(");
      emit_expr(G, a, &args, a->ty->kind == TY_HALF ? P_ASSIGN : P_UNARY);
      if (a->ty->kind == TY_HALF) sb_putc(&args, ')');
    } else {
      sb_puts(&fmt, a->ty->is_signed ? "%lld" : "%llu");
      sb_puts(&args, a->ty->is_signed ? "(long long)" : "(unsigned long long)");
      emit_expr(G, a, &args, P_UNARY);
    }
  }
  sb_puts(&fmt, "\\n\"");
  line(G, "printf(%s%s);\n", sb_str(&fmt), sb_str(&args));
}

static void emit_expr_stmt(Gen *G, const Stmt *s) {
  const Expr *e = s->value;
  if (e->kind == EX_CALL && e->kids[0]->kind == EX_BUILTIN && e->kids[0]->builtin->id == BI_PRINT) {
    emit_print(G, e);
    return;
  }
  sb_indent(G->body, G->indent);
  if (e->ty && e->ty->kind != TY_VOID) sb_puts(G->body, "(void)");
  emit_expr(G, e, G->body, e->ty && e->ty->kind != TY_VOID ? P_UNARY : P_LOWEST);
  sb_puts(G->body, ";\n");
}

static void emit_return(Gen *G, const Stmt *s) {
  if (!s->value || G->fn->ret_type->kind == TY_VOID) {
    line(G, "return;\n");
    return;
  }
  sb_indent(G->body, G->indent);
  sb_puts(G->body, "return ");
  if (s->value->ty->kind == TY_ARRAY) emit_array_value(G, s->value, G->body);
  else emit_expr(G, s->value, G->body, P_LOWEST);
  sb_puts(G->body, ";\n");
}

static void emit_stmt(Gen *G, const Stmt *s) {
  bool compound = s->kind == ST_IF || s->kind == ST_WHILE || s->kind == ST_FOR_RANGE || s->kind == ST_FOR_ITER;
  emit_source_comment(G, s, compound);
  switch (s->kind) {
  case ST_EXPR: emit_expr_stmt(G, s); break;
  case ST_ASSIGN: emit_assign(G, s); break;
  case ST_AUGASSIGN: emit_augassign(G, s); break;
  case ST_IF: emit_if(G, s); break;
  case ST_WHILE:
    emit_cond_block(G, "while", s->cond, &s->body);
    line(G, "}\n");
    break;
  case ST_FOR_RANGE: emit_for_range(G, s); break;
  case ST_FOR_ITER: emit_for_iter(G, s); break;
  case ST_BREAK: line(G, "break;\n"); break;
  case ST_CONTINUE: line(G, "continue;\n"); break;
  case ST_PASS: line(G, ";\n"); break;
  case ST_RETURN: emit_return(G, s); break;
  }
}

void emit_block(Gen *G, const Block *b) {
  for (int i = 0; i < b->len; i++) emit_stmt(G, b->items[i]);
}

/* ---- functions ---- */

static void name_vars(Gen *G) {
  const Function *f = G->fn;
  G->vnames = arena_alloc(G->a, sizeof(char *) * (size_t)(f->nvars ? f->nvars : 1));
  for (int i = 0; i < f->nvars; i++) {
    G->vnames[i] = namer_claim(&G->local, f->vars[i].name);
  }
}

/* A parameter whose variable was widened (n = n / 2) arrives under another name and is copied
 * into a local of the variable's type. */
static const char *param_cname(Gen *G, int i) {
  const Function *f = G->fn;
  if (f->arg_types[i] == f->vars[i].ty) return G->vnames[i];
  return namer_claim(&G->local, arena_printf(G->a, "%s_arg", f->vars[i].name));
}

void emit_params(Gen *G, StrBuf *out, const char **pnames) {
  const Function *f = G->fn;
  for (int i = 0; i < f->nparams; i++)
    sb_printf(out, "%s%s %s", i ? ", " : "", ctype_of(G, f->arg_types[i]), pnames[i]);
}

static void emit_signature(Gen *G, StrBuf *out, const char **pnames) {
  const Function *f = G->fn;
  if (f->kind == FN_KERNEL) sb_printf(out, "extern \"C\" __global__ void %s(", f->cname);
  else sb_printf(out, "static __device__ %s %s(", ctype_of(G, f->ret_type), f->cname);
  emit_params(G, out, pnames);
  sb_puts(out, ")");
}

/* A device function's declaration, so that definitions can come in any order. */
static void emit_prototype(Gen *G, const Function *f, StrBuf *out) {
  sb_printf(out, "static __device__ %s %s(", ctype_of(G, f->ret_type), f->cname);
  for (int i = 0; i < f->nparams; i++) sb_printf(out, "%s%s", i ? ", " : "", ctype_of(G, f->arg_types[i]));
  sb_puts(out, ");\n");
}

static void emit_decl(Gen *G, StrBuf *out, const Type *t, const char *name, const char *init) {
  if (t->fixed_shape && t->space == MEM_CONST) {
    emit_const_array_decl(G, out, t, name);
    return;
  }
  if (t->fixed_shape) {
    sb_printf(out, "  %s%s %s", t->space == MEM_SHARED ? "__shared__ " : "", t->dtype->cname, name);
    for (int k = 0; k < t->ndim; k++) sb_printf(out, "[%lld]", (long long)t->fixed_shape[k]);
    sb_puts(out, ";\n");
    return;
  }
  if (init) sb_printf(out, "  %s %s = %s;\n", ctype_of(G, t), name, init);
  else if (t->kind == TY_ARRAY || t->kind == TY_TUPLE || t->kind == TY_HALF)
    sb_printf(out, "  %s %s = {};\n", ctype_of(G, t), name);
  else sb_printf(out, "  %s %s = 0;\n", ctype_of(G, t), name);
}

void function_begin(Gen *G, const Function *f, FunctionScope *fs) {
  G->fn = f;
  namer_init(&G->local, G->a, &G->global);
  memset(&G->temps, 0, sizeof G->temps);
  name_vars(G);
  fs->pnames = arena_alloc(G->a, sizeof(char *) * (size_t)(f->nparams ? f->nparams : 1));
  for (int i = 0; i < f->nparams; i++) fs->pnames[i] = param_cname(G, i);
  sb_init(&fs->body, G->a);
  G->body = &fs->body;
  G->indent = 2;
  fs->first_mark = G->marks.len;
}

void function_end(Gen *G, FunctionScope *fs, const char *header, StrBuf *out) {
  const Function *f = G->fn;
  sb_puts(out, header);
  sb_puts(out, " {\n");
  for (int i = 0; i < f->nvars; i++) {
    const Var *v = &f->vars[i];
    if (!v->ty) continue;
    if (i < f->nparams && fs->pnames[i] == G->vnames[i]) continue;
    emit_decl(G, out, v->ty, G->vnames[i], i < f->nparams ? fs->pnames[i] : NULL);
  }
  for (size_t i = 0; i < G->temps.len; i++)
    sb_printf(out, "  %s %s;\n", G->temps.items[i].ctype, G->temps.items[i].name);
  if (f->nvars > f->nparams || G->temps.len) sb_putc(out, '\n');
  for (size_t i = fs->first_mark; i < G->marks.len; i++) G->marks.items[i].offset += out->len;
  sb_puts(out, sb_str(&fs->body));
  sb_puts(out, "}\n");
  LineMark end = {out->len, 0};
  vec_push(G->a, &G->marks, end);
}

static void emit_function(Gen *G, const Function *f, StrBuf *out) {
  FunctionScope fs;
  function_begin(G, f, &fs);
  emit_block(G, &f->body);
  StrBuf header;
  sb_init(&header, G->a);
  emit_signature(G, &header, fs.pnames);
  function_end(G, &fs, sb_str(&header), out);
}

/* The Python line of every line of text, from the marks (offsets in text, in order). */
static void map_python_lines(Gen *G, const StrBuf *text, CodegenResult *out) {
  const char *t = text->data, *end = text->data + text->len;
  size_t nlines = 0;
  for (const char *p = t; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++) nlines++;
  uint32_t *map = arena_alloc(G->a, sizeof *map * (nlines ? nlines : 1));
  size_t next = 0;
  uint32_t current = 0;
  const char *s = t;
  for (size_t line = 0; line < nlines; line++) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t first = (size_t)(s - t), last = (size_t)(nl - t);
    while (next < G->marks.len && G->marks.items[next].offset <= first)
      current = G->marks.items[next++].python_line;
    uint32_t python_line = current;   /* a line takes the first statement's that touches it */
    while (next < G->marks.len && G->marks.items[next].offset <= last) {
      size_t at = G->marks.items[next].offset;   /* of marks at one offset, the last counts */
      while (next < G->marks.len && G->marks.items[next].offset == at) current = G->marks.items[next++].python_line;
      if (!python_line) python_line = current;
    }
    map[line] = python_line;
    s = nl + 1;
  }
  out->python_line = map;
  out->nlines = nlines;
}

/* ---- the module ---- */

static void name_function(Gen *G, Function *f, bool many) {
  const char *want = f->generic->name;
  if (many && f->kind == FN_DEVICE) {
    StrBuf sb;
    sb_init(&sb, G->a);
    sb_puts(&sb, want);
    for (int i = 0; i < f->nparams; i++) sb_printf(&sb, "_%s", type_suffix(G, f->arg_types[i]));
    want = sb_str(&sb);
  }
  f->cname = namer_claim(&G->global, want);
}

/* A tuple constant indexed at run time becomes a device table. */
static void emit_const_table(Gen *G, Const *k, StrBuf *out) {
  const Expr *v = k->value;
  const Type *t = v->kids[0]->kind == EX_FLOAT ? &type_float64 : v->kids[0]->kind == EX_BOOL ? &type_bool : &type_int64;
  k->cname = namer_claim(&G->global, k->name);
  sb_printf(out, "static __device__ const %s %s[%d] = {", t->cname, k->cname, v->nkids);
  for (int i = 0; i < v->nkids; i++) {
    if (i) sb_puts(out, ", ");
    emit_expr(G, v->kids[i], out, P_ASSIGN);
  }
  sb_puts(out, "};\n");
}

static void emit_constants(Gen *G, StrBuf *out) {
  bool any = false;
  emit_const_arrays(G, out);
  for (size_t i = 0; i < G->m->consts.len; i++) {
    Const *k = G->m->consts.items[i];
    if (k->used && k->indexed) {
      sb_puts(out, any ? "" : "\n");
      emit_const_table(G, k, out);
      any = true;
    }
    if (!k->used || k->value->kind == EX_TUPLE || k->array) continue;
    k->cname = namer_claim(&G->global, k->name);
    const Type *t = k->value->kind == EX_FLOAT ? &type_float64 : k->value->kind == EX_BOOL ? &type_bool
                    : k->value->is_unsigned_literal ? &type_uint64 : &type_int64;
    sb_printf(out, "%sconstexpr %s %s = ", any ? "" : "\n", t->cname, k->cname);
    emit_expr(G, k->value, out, P_ASSIGN);
    sb_puts(out, ";\n");
    any = true;
  }
}

static void describe_param(Gen *G, const Function *f, int i, P2cParam *p) {
  const Type *t = f->arg_types[i];
  p->name = f->vars[i].name;
  p->is_array = t->kind == TY_ARRAY;
  p->type = p->is_array ? t->dtype->scalar : t->scalar;
  p->ndim = p->is_array ? t->ndim : 0;
  p->layout = p->is_array ? t->layout : 0;
}

static uint32_t static_shared_bytes(const Function *f) {
  uint64_t n = 0;
  for (int i = 0; i < f->nvars; i++) {
    const Type *t = f->vars[i].ty;
    if (!t || t->kind != TY_ARRAY || t->space != MEM_SHARED || !t->fixed_shape) continue;   /* dynamic: sized at launch */
    uint64_t b = (uint64_t)t->dtype->bits / 8;
    for (int k = 0; k < t->ndim; k++) b *= (uint64_t)t->fixed_shape[k];
    n += b;
  }
  return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* The simulator's entry for a kernel, defined by the host prelude (docs/simulator.md): fibers
 * for a kernel with barriers or warp operations, its step function in lockstep for a kernel
 * that ends in a grid-stride loop (emit_lockstep.c), plain loops over blocks otherwise. Only the
 * one the runtime will look up, so that the kernel's body is compiled once. */
static void emit_sim_entry(const KernelDesc *k, const char *step, StrBuf *out) {
  if (step) sb_printf(out, "P2C_SIM_LOCKSTEP(%s, %s)\n", k->symbol, step);
  else sb_printf(out, "%s(%s)\n", k->spec->uses_barrier ? "P2C_SIM_FIBERS" : "P2C_SIM_BLOCKS", k->symbol);
}

/* The step functions of the kernels that the simulator runs in lockstep, into out, with their
 * line marks relative to out in *marks; steps[i] names kernel i's (NULL: none). */
static void emit_lockstep_steps(Gen *G, const CodegenResult *r, const char **steps, StrBuf *out,
                                LineMarks *marks) {
  LineMarks kept = G->marks;
  memset(&G->marks, 0, sizeof G->marks);
  for (int i = 0; i < r->nkernels; i++) {
    const KernelDesc *k = &r->kernels[i];
    const Stmt *loop = k->is_ufunc ? NULL : k->spec->lockstep_loop;
    steps[i] = NULL;
    if (!loop) continue;
    if (out->len == 0)
      sb_puts(out, "/* Kernels that end in a grid-stride loop, one iteration per call: the simulator runs\n"
                   " * a block's threads through the loop together (docs/simulator.md, \"Lockstep\"). */\n");
    sb_putc(out, '\n');
    steps[i] = emit_lockstep_step(G, k->spec, loop, out);
  }
  *marks = G->marks;
  G->marks = kept;
}

/* The definitions of funcs[first, end), each after a blank line. */
static void emit_functions(Gen *G, const Function *const *funcs, size_t first, size_t end, StrBuf *out) {
  for (size_t i = first; i < end; i++) {
    sb_putc(out, '\n');
    emit_function(G, funcs[i], out);
  }
}

/* ---- emitting on two threads ----
 * A large module's function definitions are written in two halves at once: this thread the
 * first, a second thread the second into a text of its own, appended after the join. Functions
 * are emitted independently: what they share was settled before (the C names of functions and
 * constants, the global namer, which the second thread reads through a copy) or is merged after
 * (helpers used, line marks, diagnostics). The tuple structs are the exception: their names are
 * claimed in order of first use, so the second thread makes none; if its functions need one,
 * its text is dropped and they are emitted again here. Either way the text is the one a single
 * thread writes. */
typedef struct EmitRange {
  Gen *G;
  const Function *const *funcs;
  size_t first, end;
  StrBuf *out;
} EmitRange;

static void emit_range(void *arg) {
  EmitRange *r = arg;
  emit_functions(r->G, r->funcs, r->first, r->end, r->out);
}

/* The side's Gen: G's settled state, nothing of what emitting adds to it. */
static void prepare_side_gen(Gen *side_gen, const Gen *G, Side *side) {
  *side_gen = *G;
  side_gen->c = &side->c;
  side_gen->a = &side->c.arena;
  side_gen->helpers = (HelperSet){0};
  side_gen->marks.items = NULL;
  side_gen->marks.len = side_gen->marks.cap = 0;
  side_gen->tuple_ctypes.items = NULL;
  side_gen->tuple_ctypes.len = side_gen->tuple_ctypes.cap = 0;
  side_gen->on_second_thread = true;
  side_gen->needs_tuples = false;
  strmap_copy(&side_gen->global.taken, &G->global.taken, G->a);   /* this thread may add to G's */
}

/* Appends the side's text, line marks and helpers after this thread's. */
static void merge_side_text(Gen *G, const Gen *side_gen, const StrBuf *side_out, StrBuf *out) {
  for (size_t i = 0; i < side_gen->marks.len; i++) {
    LineMark mark = side_gen->marks.items[i];
    mark.offset += out->len;
    vec_push(G->a, &G->marks, mark);
  }
  sb_putn(out, sb_str(side_out), side_out->len);
  G->helpers.bits |= side_gen->helpers.bits;
  G->helpers.type_bits |= side_gen->helpers.type_bits;
  G->helpers.cuda_bits |= side_gen->helpers.cuda_bits;
}

static void emit_on_two_threads(Gen *G, const Function *const *funcs, size_t n, StrBuf *out) {
  size_t half = n / 2;
  Side side;
  Gen side_gen;
  StrBuf side_out;
  EmitRange here = {G, funcs, 0, half, out}, there = {&side_gen, funcs, half, n, &side_out};
  side_prepare(&side, G->c, emit_range, &there);
  prepare_side_gen(&side_gen, G, &side);
  sb_init(&side_out, &side.c.arena);
  side_run(&side, G->c, emit_range, &here);
  /* A tuple struct was needed there: the side's text is dropped, its functions emitted here. */
  bool redo = side_gen.needs_tuples;
  side_finish(&side, G->c, !redo);
  if (redo) emit_functions(G, funcs, half, n, out);
  else merge_side_text(G, &side_gen, &side_out, out);
}

bool codegen_run(Compilation *c, Module *m, const Analysis *an, const CodegenOptions *o, CodegenResult *out) {
  Gen G = {.c = c, .a = &c->arena, .m = m, .line_directives = o->line_directives,
           .check_bounds = o->check_bounds};
  namer_init(&G.global, G.a, NULL);
  FunctionList kernels = an->kernels, ufuncs = an->ufuncs, devs = {0};
  for (size_t i = 0; i < an->devices.len; i++) vec_push(G.a, &devs, an->devices.items[i]);
  StrBuf defs;
  sb_init(&defs, G.a);
  emit_constants(&G, &defs);
  for (size_t i = 0; i < kernels.len; i++) name_function(&G, kernels.items[i], false);
  for (size_t i = 0; i < devs.len; i++)
    name_function(&G, devs.items[i], devs.items[i]->generic->specs.len > 1);
  /* A ufunc's element functions are device functions like the others. */
  const char **ufunc_symbols = arena_alloc(G.a, sizeof(char *) * (ufuncs.len ? ufuncs.len : 1));
  for (size_t i = 0; i < ufuncs.len; i++) {
    ufunc_symbols[i] = ufunc_name_spec(&G, ufuncs.items[i], ufuncs.items[i]->generic->specs.len > 1);
    vec_push(G.a, &devs, ufuncs.items[i]);
  }
  /* Device functions: prototypes first, so that any call order compiles. */
  if (devs.len) sb_putc(&defs, '\n');
  for (size_t i = devs.len; i-- > 0;) {
    G.fn = devs.items[i];
    emit_prototype(&G, devs.items[i], &defs);
  }
  /* Then the definitions: device functions (the last collected first), then kernels. */
  size_t nfuncs = devs.len + kernels.len;
  const Function **order = arena_alloc(G.a, sizeof *order * (nfuncs ? nfuncs : 1));
  for (size_t i = 0; i < devs.len; i++) order[i] = devs.items[devs.len - 1 - i];
  for (size_t i = 0; i < kernels.len; i++) order[devs.len + i] = kernels.items[i];
  size_t split_min = o->split_min ? o->split_min : P2C_EMIT_SPLIT_MIN;
  if (nfuncs >= split_min && nfuncs >= 2) emit_on_two_threads(&G, order, nfuncs, &defs);
  else emit_functions(&G, order, 0, nfuncs, &defs);
  size_t nkernels = kernels.len + ufuncs.len;
  out->kernels = arena_alloc(G.a, sizeof(KernelDesc) * (nkernels ? nkernels : 1));
  out->nkernels = (int)nkernels;
  for (size_t i = 0; i < kernels.len; i++) {
    Function *f = kernels.items[i];
    KernelDesc *k = &out->kernels[i];
    k->spec = f;
    k->symbol = f->cname;
    k->nparams = f->nparams;
    k->params = arena_alloc(G.a, sizeof(P2cParam) * (size_t)(f->nparams ? f->nparams : 1));
    for (int j = 0; j < f->nparams; j++) describe_param(&G, f, j, &k->params[j]);
    Signature sig = {&type_void, f->arg_types, f->nparams};
    k->signature = sig_format(G.a, &sig);
    k->static_shared_bytes = static_shared_bytes(f);
  }
  for (size_t i = 0; i < ufuncs.len; i++) {
    sb_putc(&defs, '\n');
    emit_ufunc_kernel(&G, ufuncs.items[i], ufunc_symbols[i], &defs);
    describe_ufunc(&G, ufuncs.items[i], ufunc_symbols[i], &out->kernels[kernels.len + i]);
  }
  const char **steps = arena_alloc(G.a, sizeof(char *) * (nkernels ? nkernels : 1));
  StrBuf sim;
  sb_init(&sim, G.a);
  LineMarks sim_marks;
  emit_lockstep_steps(&G, out, steps, &sim, &sim_marks);
  StrBuf text;
  sb_init(&text, G.a);
  sb_printf(&text, "/* Generated by pyk2cuda %s from %s. */\n\n", PYK2CUDA_VERSION_STRING, c->file);
  StrBuf structs;
  sb_init(&structs, G.a);
  emit_tuple_structs(&G, &structs);
  /* The complex types are used wherever their names are (types of values, arrays, members). */
  if (an->uses_complex) type_helper_use(&G.helpers, TH_COMPLEX);
  if (an->uses_half) {
    type_helper_use(&G.helpers, TH_HALF);
    type_helper_use(&G.helpers, TH_HALF_SIM);
    type_helper_use(&G.helpers, TH_HALF_OPS);
  }
  prelude_emit(&text, G.helpers);
  sb_puts(&text, sb_str(&structs));
  for (size_t i = 0; i < G.marks.len; i++) G.marks.items[i].offset += text.len;
  sb_puts(&text, sb_str(&defs));
  if (nkernels) sb_puts(&text, "\n#ifdef PYK2CUDA_SIM\n");
  for (size_t i = 0; i < sim_marks.len; i++) {
    LineMark m = sim_marks.items[i];
    m.offset += text.len;
    vec_push(G.a, &G.marks, m);
  }
  if (sim.len) {
    sb_puts(&text, sb_str(&sim));
    sb_putc(&text, '\n');
  }
  for (int i = 0; i < out->nkernels; i++) emit_sim_entry(&out->kernels[i], steps[i], &text);
  if (nkernels) sb_puts(&text, "#endif\n");
  out->text = sb_str(&text);
  out->len = text.len;
  map_python_lines(&G, &text, out);
  return !diag_has_errors(c);
}
