/* Lines of the PTX and of the CUDA C: which C line each PTX line came from (the PTX `.loc`
 * entries NVRTC writes with -lineinfo), and the line range of one function in either text. */
#include <stdlib.h>
#include <string.h>

#include "explore/explore.h"

/* Calls fn(line, start, end) for each line of text; stops when it returns false. */
typedef bool (*LineFn)(void *ctx, uint32_t line, const char *s, const char *end);
static void each_line(const char *text, size_t len, LineFn fn, void *ctx) {
  const char *s = text, *stop = text + len;
  for (uint32_t line = 1; s < stop; line++) {
    const char *end = memchr(s, '\n', (size_t)(stop - s));
    if (!end) end = stop;
    if (!fn(ctx, line, s, end)) return;
    s = end + 1;
  }
}

/* Past spaces and tabs. */
static const char *skip_blanks(const char *s, const char *end) {
  while (s < end && (*s == ' ' || *s == '\t')) s++;
  return s;
}

/* Whether [s, end) starts with `word`. */
static bool starts(const char *s, const char *end, const char *word) {
  size_t n = strlen(word);
  return (size_t)(end - s) >= n && memcmp(s, word, n) == 0;
}

/* ---- the file table ---- */

typedef struct FileFind {
  const char *program;
  long index;   /* the `.file` index naming program, -1 while unknown */
} FileFind;

/* Whether the quoted name [q, e) is the program: the same text, or, for a relative program
 * name, a path ending in "/" and it (NVRTC writes the path the working folder makes of it). */
static bool is_program(const char *q, const char *e, const char *program) {
  size_t n = (size_t)(e - q), plen = strlen(program);
  if (n == plen) return memcmp(q, program, n) == 0;
  return program[0] != '/' && n > plen && q[n - plen - 1] == '/' && memcmp(e - plen, program, plen) == 0;
}

/* `.file N "NAME"`: remembers N when NAME is the program. */
static bool find_file(void *ctx, uint32_t line, const char *s, const char *end) {
  (void)line;
  FileFind *f = ctx;
  s = skip_blanks(s, end);
  if (!starts(s, end, ".file")) return true;
  char *after;
  long n = strtol(skip_blanks(s + 5, end), &after, 10);
  const char *q = memchr(after, '"', (size_t)(end - after));
  const char *e = q ? memchr(q + 1, '"', (size_t)(end - q - 1)) : NULL;
  if (e && is_program(q + 1, e, f->program)) f->index = n;
  return true;
}

/* ---- .loc ---- */

typedef struct LocScan {
  long file;
  const uint32_t *python_line;   /* per C line, to prefer a line that came from Python */
  size_t ncuda;
  uint32_t *map, current;
} LocScan;

/* Whether C line `line` came from a Python statement. */
static bool from_python(const LocScan *l, long line) {
  return line >= 1 && (size_t)line <= l->ncuda && l->python_line && l->python_line[line - 1];
}

/* `.loc F L C[, function_name X, inlined_at F2 L2 C2]`: the C line in force from here. At an
 * inlined call the instruction's own line is kept when it came from Python (a device function's
 * statement), else the call's line (a prelude helper called from a statement). */
static uint32_t loc_line(const LocScan *l, const char *s, const char *end) {
  char *p;
  long f = strtol(s + 4, &p, 10);
  long line = strtol(p, &p, 10);
  uint32_t own = f == l->file && line > 0 ? (uint32_t)line : 0;
  const char *in = NULL;
  for (const char *q = p; q + 10 <= end && !in; q++)
    if (memcmp(q, "inlined_at", 10) == 0) in = q + 10;
  if (!in || (own && from_python(l, line))) return own;
  long f2 = strtol(in, &p, 10);
  long line2 = strtol(p, NULL, 10);
  return f2 == l->file && line2 > 0 ? (uint32_t)line2 : own;
}

/* One PTX line: a .loc changes the C line in force; a function's start or end clears it. */
static bool scan_loc(void *ctx, uint32_t line, const char *s, const char *end) {
  LocScan *l = ctx;
  const char *t = skip_blanks(s, end);
  if (starts(t, end, ".loc") && (t + 4 < end) && (t[4] == ' ' || t[4] == '\t')) l->current = loc_line(l, t, end);
  else if (s < end && *s == '}') l->current = 0;                   /* a function's end */
  else if (starts(t, end, ".entry") || starts(t, end, ".visible") || starts(t, end, ".func")) l->current = 0;
  l->map[line - 1] = l->current;
  return true;
}

/* Counts lines (the last line number seen). */
static bool count_line(void *ctx, uint32_t line, const char *s, const char *end) {
  (void)s, (void)end;
  *(size_t *)ctx = line;
  return true;
}

uint32_t *explore_ptx_cuda_lines(Arena *a, const char *ptx, size_t len, const char *program,
                                 const uint32_t *python_line, size_t ncuda, size_t *nlines) {
  size_t n = 0;
  each_line(ptx, len, count_line, &n);
  *nlines = n;
  FileFind f = {program, -1};
  each_line(ptx, len, find_file, &f);
  LocScan l = {f.index, python_line, ncuda, arena_alloc(a, (n ? n : 1) * sizeof(uint32_t)), 0};
  each_line(ptx, len, scan_loc, &l);
  return l.map;
}

/* ---- where each function is defined ---- */

/* A character of a C or PTX identifier. */
static bool ident_char(char c) {
  return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The name a definition's first line defines, or NULL: in PTX a line at the margin opening with
 * .visible, .weak, .entry or .func, the name before its last '(' (a .func's return parameter
 * comes first); in C a line at the margin with __global__ or __device__ that does not end in ';'
 * (a declaration), the name before its first '('. */
static const char *defined_name(bool ptx, const char *s, const char *end, size_t *n) {
  if (s == end || *s == ' ' || *s == '\t' || *s == '/' || *s == '#') return NULL;
  const char *paren = NULL;
  if (ptx) {
    if (!(starts(s, end, ".visible") || starts(s, end, ".weak") || starts(s, end, ".entry") || starts(s, end, ".func")))
      return NULL;
    for (const char *p = s; p < end; p++)
      if (*p == '(') paren = p;
  } else {
    bool marked = false;
    for (const char *p = s; p + 10 <= end && !marked; p++)
      marked = memcmp(p, "__global__", 10) == 0 || memcmp(p, "__device__", 10) == 0;
    const char *e = end;
    while (e > s && (e[-1] == ' ' || e[-1] == '\r')) e--;
    if (!marked || e == s || e[-1] == ';') return NULL;
    paren = memchr(s, '(', (size_t)(end - s));
  }
  const char *b = paren;
  while (b && b > s && ident_char(b[-1])) b--;
  if (!b || b == paren) return NULL;
  *n = (size_t)(paren - b);
  return b;
}

typedef struct DefScan {
  Arena *a;
  bool ptx;
  VEC(TextDef) defs;
  bool open;   /* the last definition has not ended yet */
} DefScan;

/* One line: a definition opens, or a brace at the margin closes the open one. */
static bool scan_def(void *ctx, uint32_t line, const char *s, const char *end) {
  DefScan *d = ctx;
  size_t n;
  const char *name;
  if (d->open && s < end && *s == '}') {
    d->defs.items[d->defs.len - 1].last = line;
    d->open = false;
  } else if (!d->open && (name = defined_name(d->ptx, s, end, &n))) {
    vec_push(d->a, &d->defs, ((TextDef){arena_strndup(d->a, name, n), line, 0}));
    d->open = true;
  }
  return true;
}

TextDef *explore_definitions(Arena *a, const char *text, size_t len, bool ptx, size_t *n) {
  DefScan d = {.a = a, .ptx = ptx};
  if (text) each_line(text, len, scan_def, &d);
  if (d.open) d.defs.len--;   /* never closed: not a definition */
  *n = d.defs.len;
  return d.defs.items;
}

const TextDef *explore_find_definition(const TextDef *defs, size_t n, const char *name) {
  for (size_t i = 0; name && i < n; i++)
    if (strcmp(defs[i].name, name) == 0) return &defs[i];
  return NULL;
}
