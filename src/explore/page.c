/* The explore page: the data of one module as a JSON object, written into the page template
 * (page.html, embedded at build time as explore_page_text) in place of its markers. This file
 * decides what each kernel's view holds (its Python, C and PTX line ranges, the types of its
 * names, its resources and occupancy); the template's script only draws it. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "explore/explore.h"
#include "explore/occupancy.h"
#include "frontend/ast_walk.h"

extern const char explore_page_text[];
extern const size_t explore_page_size;

enum { MAX_ENTRIES = 1 << 16 };

/* ---- JSON ---- */

/* A JSON string of n bytes of UTF-8 text; '<', '>' and '&' escaped so that nothing in it can
 * close the script element that holds the data. */
static void json_strn(StrBuf *sb, const char *s, size_t n) {
  sb_putc(sb, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      sb_putc(sb, '\\');
      sb_putc(sb, (char)c);
    } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7f) {
      sb_printf(sb, "\\u%04x", c);
    } else {
      sb_putc(sb, (char)c);
    }
  }
  sb_putc(sb, '"');
}

/* A NUL-terminated string as JSON, or null. */
static void json_str(StrBuf *sb, const char *s) {
  if (s) json_strn(sb, s, strlen(s));
  else sb_puts(sb, "null");
}

/* The lines of text as a JSON array of strings (a final newline ends the last line). */
static void json_lines(StrBuf *sb, const char *text, size_t len) {
  sb_putc(sb, '[');
  for (size_t at = 0, first = 1; text && at < len; first = 0) {
    const char *nl = memchr(text + at, '\n', len - at);
    size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
    if (!first) sb_putc(sb, ',');
    json_strn(sb, text + at, n);
    at += n + 1;
  }
  sb_putc(sb, ']');
}

/* A line map as a JSON array of numbers. */
static void json_u32s(StrBuf *sb, const uint32_t *v, size_t n) {
  sb_putc(sb, '[');
  for (size_t i = 0; i < n; i++) sb_printf(sb, i ? ",%u" : "%u", v[i]);
  sb_putc(sb, ']');
}

/* ---- what one kernel's view holds ---- */

typedef VEC(const Function *) FuncVec;

typedef struct KernelScan {
  AstWalker w;
  Arena *a;
  const Function *fn;        /* the function being walked */
  uint32_t last_line;        /* its last source line so far */
  FuncVec *funcs;            /* the kernel, then each device function it reaches */
  StrBuf *names;             /* JSON rows [line, col, name, type] */
  bool any_name;
} KernelScan;

/* Adds a function to the kernel's view once (a device function may be called many times). */
static void add_func(KernelScan *k, const Function *f) {
  for (size_t i = 0; i < k->funcs->len; i++)
    if (k->funcs->items[i] == f) return;
  vec_push(k->a, k->funcs, f);
}

/* One annotated name: where it stands in the Python, and its type. */
static void name_row(KernelScan *k, Loc loc, const char *name, const Type *ty) {
  if (!ty || !loc.line) return;
  sb_printf(k->names, "%s[%u,%u,", k->any_name ? "," : "", loc.line, loc.col);
  json_str(k->names, name);
  sb_putc(k->names, ',');
  json_str(k->names, ty->name);
  sb_putc(k->names, ']');
  k->any_name = true;
}

/* Statements: how far the function's lines go. */
static bool scan_stmt(AstWalker *w, const Stmt *s) {
  KernelScan *k = w->ctx;
  uint32_t last = s->end_line > s->loc.line ? s->end_line : s->loc.line;
  if (last > k->last_line) k->last_line = last;
  return true;
}

/* Expressions: each name's type; each device function called. */
static bool scan_expr(AstWalker *w, const Expr *e) {
  KernelScan *k = w->ctx;
  if (e->loc.line > k->last_line) k->last_line = e->loc.line;
  if (e->kind == EX_VAR && e->var >= 0 && e->var < k->fn->nvars)
    name_row(k, e->loc, k->fn->vars[e->var].name, e->ty);
  if (e->kind == EX_CALL && e->func && e->func->kind == FN_DEVICE) add_func(k, e->func);
  return true;
}

/* The first line of f's definition, its decorators included (lines above it that start with
 * '@' after blanks). */
static uint32_t first_line(const ExploreInput *in, const Function *f) {
  uint32_t line = f->loc.line;
  while (line > 1 && line - 1 <= in->nline_starts) {
    const char *s = in->python + in->line_starts[line - 2];
    while (*s == ' ' || *s == '\t') s++;
    if (*s != '@') break;
    line--;
  }
  return line;
}

/* Walks f (parameters, body) into k. */
static void scan_function(KernelScan *k, const Function *f) {
  k->fn = f;
  k->last_line = f->loc.line;
  for (int i = 0; i < f->nparams; i++) name_row(k, f->vars[i].loc, f->vars[i].name, f->vars[i].ty);
  ast_walk_block(&k->w, &f->body);
}

typedef struct Range {
  uint32_t first, last;
} Range;

/* Line ranges as [[first, last], ...]. */
static void json_ranges(StrBuf *sb, const Range *r, size_t n) {
  sb_putc(sb, '[');
  for (size_t i = 0; i < n; i++) sb_printf(sb, "%s[%u,%u]", i ? "," : "", r[i].first, r[i].last);
  sb_putc(sb, ']');
}

/* The definitions of the C and the PTX, found once for all kernels. */
typedef struct Defs {
  TextDef *cuda, *ptx, *sass;
  size_t ncuda, nptx, nsass;
} Defs;

/* The C (or PTX) ranges of the kernel's functions, in text order. */
static size_t text_ranges(const TextDef *defs, size_t ndefs, const FuncVec *fv, const char *symbol, Range *out) {
  size_t n = 0;
  for (size_t i = 0; i < fv->len; i++) {
    const TextDef *d = explore_find_definition(defs, ndefs, i == 0 ? symbol : fv->items[i]->cname);
    if (d) out[n++] = (Range){d->first, d->last};
  }
  for (size_t i = 1; i < n; i++)   /* insertion sort: a handful */
    for (size_t j = i; j > 0 && out[j].first < out[j - 1].first; j--) {
      Range t = out[j];
      out[j] = out[j - 1];
      out[j - 1] = t;
    }
  return n;
}

/* ptxas's figures for one kernel (-1 where ptxas did not report one), or null. */
static void json_resources(StrBuf *sb, const EntryResources *r) {
  if (!r) {
    sb_puts(sb, "null");
    return;
  }
  sb_printf(sb,
            "{\"registers\":%d,\"barriers\":%d,\"stack\":%lld,\"spill_stores\":%lld,\"spill_loads\":%lld,"
            "\"local\":%lld,\"shared\":%lld,\"constant\":[",
            r->registers, r->barriers, (long long)r->stack_bytes, (long long)r->spill_store_bytes,
            (long long)r->spill_load_bytes, (long long)r->local_bytes, (long long)r->shared_bytes);
  for (int b = 0, first = 1; b < 8; b++)
    if (r->constant_bytes[b] >= 0) {
      sb_printf(sb, "%s[%d,%lld]", first ? "" : ",", b, (long long)r->constant_bytes[b]);
      first = 0;
    }
  sb_puts(sb, "]}");
}

/* One resource's limit on blocks per SM; null for none. */
static void json_limit(StrBuf *sb, const char *name, int v, bool first) {
  sb_printf(sb, first ? "\"%s\":" : ",\"%s\":", name);
  if (v == INT_MAX) sb_puts(sb, "null");
  else sb_printf(sb, "%d", v);
}

/* The occupancy of a kernel with resources r at the input's arch and block, or a note why none. */
static void json_occupancy(StrBuf *sb, const ExploreInput *in, const EntryResources *r) {
  const OccArch *arch = occ_arch(in->arch);
  if (!r || r->registers < 0 || !arch) {
    sb_puts(sb, "\"occupancy\":null,\"occupancy_note\":");
    json_str(sb, !arch ? "no occupancy table for this architecture (docs/explore.md lists those it has)"
                       : "no resource figures from ptxas");
    return;
  }
  OccKernel k = {r->registers, (uint32_t)(r->shared_bytes > 0 ? r->shared_bytes : 0), in->dynamic_shared,
                 r->barriers > 0 ? r->barriers : 0, in->block_threads};
  Occupancy o = occ_compute(arch, &k);
  char limited[96];
  occ_limiters_text(o.limiters, limited, sizeof limited);
  sb_printf(sb, "\"occupancy\":{\"blocks_per_sm\":%d,\"warps_per_sm\":%d,\"max_warps_per_sm\":%d,\"fraction\":%.6f,",
            o.blocks_per_sm, o.warps_per_sm, o.max_warps_per_sm, o.fraction);
  sb_puts(sb, "\"limited_by\":");
  json_str(sb, limited);
  sb_puts(sb, ",\"why_none\":");
  json_str(sb, o.why_none);
  sb_puts(sb, ",\"limits\":{");
  json_limit(sb, "warps", o.limit_warps, true);
  json_limit(sb, "registers", o.limit_regs, false);
  json_limit(sb, "shared memory", o.limit_smem, false);
  json_limit(sb, "blocks per SM", o.limit_blocks, false);
  json_limit(sb, "barriers", o.limit_barriers, false);
  sb_puts(sb, "}}");
}

/* ptxas's entry for a kernel's symbol, or NULL. */
static const EntryResources *find_entry(const EntryResources *e, size_t n, const char *symbol) {
  for (size_t i = 0; i < n; i++)
    if (e[i].symbol && strcmp(e[i].symbol, symbol) == 0) return &e[i];
  return NULL;
}

/* One kernel's object. */
static void json_kernel(StrBuf *sb, Arena *a, const ExploreInput *in, const ExploreKernel *kern, const Defs *defs,
                        const EntryResources *entries, size_t nentries) {
  FuncVec funcs = {0};
  StrBuf names;
  sb_init(&names, a);
  KernelScan k = {.w = {.stmt = scan_stmt, .expr = scan_expr}, .a = a, .funcs = &funcs, .names = &names};
  k.w.ctx = &k;
  vec_push(a, &funcs, kern->spec);
  VEC(Range) py = {0};
  for (size_t i = 0; i < funcs.len; i++) {   /* funcs grows as calls are found */
    scan_function(&k, funcs.items[i]);
    vec_push(a, &py, ((Range){first_line(in, funcs.items[i]), k.last_line}));
  }
  sb_puts(sb, "{\"name\":");
  json_str(sb, kern->python_name);
  sb_puts(sb, ",\"symbol\":");
  json_str(sb, kern->symbol);
  sb_puts(sb, ",\"signature\":");
  json_str(sb, kern->signature);
  sb_puts(sb, ",\"python_ranges\":");
  json_ranges(sb, py.items, py.len);
  Range *tr = arena_alloc(a, funcs.len * sizeof(Range));
  sb_puts(sb, ",\"cuda_ranges\":");
  json_ranges(sb, tr, text_ranges(defs->cuda, defs->ncuda, &funcs, kern->symbol, tr));
  sb_puts(sb, ",\"ptx_ranges\":");
  json_ranges(sb, tr, text_ranges(defs->ptx, defs->nptx, &funcs, kern->symbol, tr));
  sb_puts(sb, ",\"sass_ranges\":");
  json_ranges(sb, tr, text_ranges(defs->sass, defs->nsass, &funcs, kern->symbol, tr));
  sb_printf(sb, ",\"names\":[%s]", sb_str(&names));
  const EntryResources *r = find_entry(entries, nentries, kern->symbol);
  sb_puts(sb, ",\"resources\":");
  json_resources(sb, r);
  sb_putc(sb, ',');
  json_occupancy(sb, in, r);
  sb_putc(sb, '}');
}

/* Every diagnostic of the module, as the CLI prints them. */
static void json_diagnostics(StrBuf *sb, const ExploreInput *in) {
  static const char *const sev[] = {"error", "warning", "note"};
  sb_putc(sb, '[');
  for (size_t i = 0; i < in->ndiags; i++) {
    const P2cDiagnostic *d = &in->diags[i];
    sb_printf(sb, "%s{\"line\":%u,\"column\":%u,\"severity\":\"%s\",\"code\":", i ? "," : "", d->line, d->column,
              sev[d->severity <= P2C_SEVERITY_NOTE ? d->severity : 0]);
    json_str(sb, d->code);
    sb_puts(sb, ",\"message\":");
    json_str(sb, d->message);
    sb_putc(sb, '}');
  }
  sb_putc(sb, ']');
}

/* A thread or block index as [x, y, z]. */
static void json_dim3(StrBuf *sb, const uint32_t v[3]) {
  sb_printf(sb, "[%u,%u,%u]", v[0], v[1], v[2]);
}

/* The checker's findings: kind, kernel, position, message, thread and block, and a race's other
 * position (0 where there is none). */
static void json_findings(StrBuf *sb, const ExploreInput *in) {
  sb_putc(sb, '[');
  for (size_t i = 0; i < in->nfindings; i++) {
    const P2cFinding *f = &in->findings[i];
    sb_puts(sb, i ? ",{\"kind\":" : "{\"kind\":");
    json_str(sb, f->kind);
    sb_puts(sb, ",\"kernel\":");
    json_str(sb, f->kernel);
    sb_printf(sb, ",\"line\":%u,\"column\":%u,\"other_line\":%u,\"other_column\":%u,\"thread\":", f->line,
              f->column, f->other_line, f->other_column);
    json_dim3(sb, f->thread);
    sb_puts(sb, ",\"block\":");
    json_dim3(sb, f->block);
    sb_puts(sb, ",\"message\":");
    json_strn(sb, f->message, strnlen(f->message, sizeof f->message));
    sb_putc(sb, '}');
  }
  sb_putc(sb, ']');
}

/* The resources of every entry ptxas compiled, with the CUBIN's constant banks. */
static EntryResources *all_entries(Arena *a, const ExploreInput *in, size_t *n) {
  *n = 0;
  if (!in->ptxas_log) return NULL;
  size_t count = explore_parse_ptxas_log(a, in->ptxas_log, NULL, 0);
  if (count > MAX_ENTRIES) count = MAX_ENTRIES;
  EntryResources *e = arena_alloc(a, (count ? count : 1) * sizeof *e);
  *n = explore_parse_ptxas_log(a, in->ptxas_log, e, count);
  if (*n > count) *n = count;
  for (size_t i = 0; i < *n; i++) explore_cubin_constants(in->cubin, in->cubin_size, &e[i]);
  return e;
}

/* The SASS's lines, the C line of each, and why there is none (null where there is). */
static void json_sass(StrBuf *sb, Arena *a, const ExploreInput *in) {
  sb_puts(sb, ",\"sass\":");
  json_lines(sb, in->sass, in->sass ? in->sass_len : 0);
  size_t n = 0;
  const uint32_t *map = in->sass ? explore_sass_cuda_lines(a, in->sass, in->sass_len, in->program, in->python_line,
                                                           in->nlines, &n)
                                 : NULL;
  sb_puts(sb, ",\"sass_cuda\":");
  json_u32s(sb, map, n);
  sb_puts(sb, ",\"sass_error\":");
  json_str(sb, in->sass ? NULL : in->sass_error);
}

/* The module's data object. */
static void json_module(StrBuf *sb, Arena *a, const ExploreInput *in) {
  sb_puts(sb, "{\"file\":");
  json_str(sb, in->file);
  sb_puts(sb, ",\"tool\":");
  json_str(sb, in->version);
  sb_puts(sb, ",\"arch\":");
  json_str(sb, in->arch);
  sb_printf(sb, ",\"block\":%d,\"dynamic_shared\":%u,\"python\":", in->block_threads, in->dynamic_shared);
  json_lines(sb, in->python, in->python_len);
  sb_puts(sb, ",\"cuda\":");
  json_lines(sb, in->cuda, in->cuda ? in->cuda_len : 0);
  sb_puts(sb, ",\"cuda_py\":");
  json_u32s(sb, in->python_line, in->cuda ? in->nlines : 0);
  sb_puts(sb, ",\"ptx\":");
  json_lines(sb, in->ptx, in->ptx ? in->ptx_len : 0);
  size_t nptx = 0;
  const uint32_t *ptx_cuda = in->ptx ? explore_ptx_cuda_lines(a, in->ptx, in->ptx_len, in->program, in->python_line,
                                                              in->nlines, &nptx)
                                     : NULL;
  sb_puts(sb, ",\"ptx_cuda\":");
  json_u32s(sb, ptx_cuda, nptx);
  sb_puts(sb, ",\"ptx_error\":");
  json_str(sb, in->compile_error);
  json_sass(sb, a, in);
  sb_puts(sb, ",\"diagnostics\":");
  json_diagnostics(sb, in);
  sb_puts(sb, ",\"findings\":");
  json_findings(sb, in);
  size_t nentries;
  EntryResources *entries = all_entries(a, in, &nentries);
  Defs defs = {0};
  defs.cuda = explore_definitions(a, in->cuda, in->cuda ? in->cuda_len : 0, false, &defs.ncuda);
  defs.ptx = explore_definitions(a, in->ptx, in->ptx ? in->ptx_len : 0, true, &defs.nptx);
  defs.sass = explore_sass_definitions(a, in->sass, in->sass ? in->sass_len : 0, &defs.nsass);
  sb_puts(sb, ",\"kernels\":[");
  for (size_t i = 0; i < in->nkernels; i++) {
    if (i) sb_putc(sb, ',');
    json_kernel(sb, a, in, &in->kernels[i], &defs, entries, nentries);
  }
  sb_puts(sb, "]}");
}

/* Appends the template from *at up to `marker` (or its end) and moves *at past the marker. */
static void template_until(StrBuf *sb, size_t *at, const char *marker) {
  const char *t = explore_page_text + *at;
  const char *m = strstr(t, marker);
  size_t n = m ? (size_t)(m - t) : explore_page_size - *at;
  sb_putn(sb, t, n);
  *at += n + (m ? strlen(marker) : 0);
}

const char *explore_page(Arena *a, const ExploreInput *in, size_t *len) {
  StrBuf sb;
  sb_init(&sb, a);
  size_t at = 0;
  template_until(&sb, &at, "@P2C_TITLE@");
  StrBuf title;
  sb_init(&title, a);
  sb_printf(&title, "pyk2cuda explore: %s", in->file);
  for (const char *p = sb_str(&title); *p; p++) {   /* the title is HTML text */
    if (*p == '<') sb_puts(&sb, "&lt;");
    else if (*p == '&') sb_puts(&sb, "&amp;");
    else if (*p == '>') sb_puts(&sb, "&gt;");
    else sb_putc(&sb, *p);
  }
  template_until(&sb, &at, "@P2C_DATA@");
  json_module(&sb, a, in);
  template_until(&sb, &at, "\x01");   /* the rest */
  *len = sb.len;
  return sb_str(&sb);
}
