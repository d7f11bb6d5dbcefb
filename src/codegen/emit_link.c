/* The CUDA C a module links (Module.links) and the calls of its external device functions
 * (cuda.declare_device: Function.extern_symbol). docs/generated-code.md, "Linked CUDA C".
 *
 * The linked files are compiled as part of the module: their text comes after the prelude and
 * before the generated functions, framed by #line directives, so that NVRTC and the simulator's
 * host compiler report an error in a file at that file's own line, and the generated code after
 * it keeps its own line numbers (NVRTC's log is mapped to Python lines by them; the simulator's
 * line table by the source file's name, P2C_SIM_SOURCE_FILE). Every identifier of the linked
 * text is taken in the global namer, so no generated name can capture one of the file's or be
 * captured by its macros. An external function's specialization is a small device function of
 * the declared signature whose body calls the symbol: through Numba's ABI (a status returned, the
 * result stored through the first argument) or the C ABI (the result returned). */
#include <string.h>

#include "codegen/cg.h"

/* Whether c may start or continue a C identifier. */
static bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

/* The end of the comment, string or character literal starting at p (p otherwise). */
static const char *skip_non_code(const char *p, const char *end) {
  if (p + 1 < end && p[0] == '/' && p[1] == '/') {
    while (p < end && *p != '\n') p++;
    return p;
  }
  if (p + 1 < end && p[0] == '/' && p[1] == '*') {
    for (p += 2; p + 1 < end && !(p[0] == '*' && p[1] == '/'); p++) {}
    return p + 1 < end ? p + 2 : end;
  }
  if (*p == '"' || *p == '\'') {
    char quote = *p++;
    while (p < end && *p != quote && *p != '\n') p += *p == '\\' && p + 1 < end ? 2 : 1;
    return p < end ? p + 1 : end;
  }
  return p;
}

/* The reader of a linked text for its file-scope names: the depth of braces and parentheses
 * (names inside them are parameters, locals and members, which capture nothing of ours), where
 * a brace after `extern "C"` or `namespace [NAME]` opens no scope for this purpose. */
typedef struct NameScan {
  int depth;
  uint64_t open;           /* per brace level (below 64): it counts in depth */
  int level;
  bool after_string, after_namespace, namespace_named;
} NameScan;

/* A punctuation character: braces and parentheses move the depth. */
static void scan_punct(NameScan *ns, char c) {
  if (c == '{') {
    bool counts = !ns->after_string && !ns->after_namespace;
    if (ns->level < 64 && counts) ns->open |= 1ull << ns->level;
    if (ns->level < 64 && !counts) ns->open &= ~(1ull << ns->level);
    ns->level++;
    ns->depth += counts;
  } else if (c == '}' && ns->level > 0) {
    ns->level--;
    ns->depth -= ns->level < 64 ? (int)(ns->open >> ns->level & 1) : 1;
  } else if (c == '(') {
    ns->depth++;
  } else if (c == ')' && ns->depth > 0) {
    ns->depth--;
  }
  if (c != ' ' && c != '\t' && c != '\n' && c != '\r') ns->after_string = ns->after_namespace = false;
}

/* One identifier: taken at file scope (and a #define's name wherever it is). */
static void scan_name(Gen *G, NameScan *ns, const char *name, size_t len, bool defined) {
  bool is_namespace = len == 9 && memcmp(name, "namespace", 9) == 0;
  if (ns->depth == 0 || defined) {
    const char *taken = arena_strndup(G->a, name, len);
    namer_take(&G->global, taken);
    strmap_put(&G->link_names, taken, NULL);
  }
  ns->after_namespace = is_namespace || (ns->after_namespace && !ns->namespace_named);
  ns->namespace_named = !is_namespace && ns->after_namespace;
  ns->after_string = false;
}

/* Takes the file-scope identifiers of text (outside comments and literals) in the global namer. */
static void take_identifiers(Gen *G, const char *text, size_t len) {
  const char *p = text, *end = text + len;
  NameScan ns = {0};
  bool define_next = false;
  while (p < end) {
    const char *next = skip_non_code(p, end);
    if (next != p) {
      ns.after_string = *p == '"';
      p = next;
    } else if (ident_start(*p)) {
      const char *start = p;
      while (p < end && ident_char(*p)) p++;
      scan_name(G, &ns, start, (size_t)(p - start), define_next);
      define_next = (size_t)(p - start) == 6 && memcmp(start, "define", 6) == 0;
    } else if (*p >= '0' && *p <= '9') {
      while (p < end && (ident_char(*p) || *p == '.')) p++;   /* a number and its suffix (1.0f) */
    } else {
      scan_punct(&ns, *p++);
    }
  }
}

void emit_take_link_names(Gen *G) {
  strmap_init(&G->link_names, G->a);
  for (size_t i = 0; i < G->m->links.len; i++) take_identifiers(G, G->m->links.items[i].text, G->m->links.items[i].len);
}

/* Lines of text so far, plus one: the number of the line about to be written. */
static size_t next_line(const StrBuf *text) {
  size_t n = 1;
  for (const char *p = text->data, *end = text->data + text->len; (p = memchr(p, '\n', (size_t)(end - p))); p++) n++;
  return n;
}

/* `#line N "name"` where N is the next line's own number: the generated text's numbering again
 * after a linked file, under the name each compiler gave the module (the simulator's work file,
 * NVRTC's program named by the .py file). */
static void restore_line_numbers(Gen *G, StrBuf *text) {
  sb_puts(text, "#ifdef PYK2CUDA_SIM\n");
  sb_printf(text, "#line %zu \"" P2C_SIM_SOURCE_FILE "\"\n#else\n", next_line(text) + 1);
  sb_printf(text, "#line %zu ", next_line(text) + 1);
  emit_c_string_literal(text, G->c->file, strlen(G->c->file));
  sb_puts(text, "\n#endif\n");
}

void emit_links(Gen *G, StrBuf *text) {
  for (size_t i = 0; i < G->m->links.len; i++) {
    const LinkFile *lf = &G->m->links.items[i];
    sb_puts(text, "\n/* CUDA C linked by the module (link=): its own lines follow. */\n#line 1 ");
    emit_c_string_literal(text, lf->path, strlen(lf->path));
    sb_putc(text, '\n');
    sb_putn(text, lf->text, lf->len);
    if (lf->len && lf->text[lf->len - 1] != '\n') sb_putc(text, '\n');
    restore_line_numbers(G, text);
  }
}

/* The body of an external function's specialization: the call of its symbol with the
 * parameters, in the declared ABI. */
void emit_extern_body(Gen *G, const Function *f, const char *const *pnames) {
  StrBuf args;
  sb_init(&args, G->a);
  for (int i = 0; i < f->nparams; i++) sb_printf(&args, "%s%s", i ? ", " : "", pnames[i]);
  bool returns = f->ret_type->kind != TY_VOID;
  const char *sym = f->extern_symbol;
  if (!strmap_has(&G->link_names, sym))   /* else a call of nothing, or of the wrapper itself */
    diag_error(G->c, f->generic->loc, "E-link", "external device function '%s' calls '%s', which no CUDA "
               "C linked into the module defines at file scope: give its .cu file with link= (on the "
               "kernel or on cuda.declare_device)", f->generic->name, sym);
  if (f->extern_c_abi) {
    sb_printf(G->body, "  %s%s(%s);\n", returns ? "return " : "", sym, sb_str(&args));
    return;
  }
  const char *sep = f->nparams ? ", " : "";
  if (!returns) {   /* Numba's ABI: no result to store; the status is always 0 (docs/semantics.md) */
    sb_printf(G->body, "  (void)%s(nullptr%s%s);\n", sym, sep, sb_str(&args));
    return;
  }
  const char *ret = namer_claim_temp(&G->local, "ret");
  sb_printf(G->body, "  %s %s = {};\n  (void)%s(&%s%s%s);\n  return %s;\n", ctype_of(G, f->ret_type), ret, sym,
            ret, sep, sb_str(&args), ret);
}
