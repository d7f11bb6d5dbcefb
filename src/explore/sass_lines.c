/* Lines of the SASS: which CUDA C line each line of nvdisasm's listing came from, and where each
 * function's code is. nvdisasm -c -gi writes the CUBIN's line table (ptxas keeps the PTX's `.loc`
 * entries when NVRTC compiles with -lineinfo) as comments above the instructions they cover:
 *
 *     //## File "/work/x.py.cu", line 41 inlined at "/work/x.py.cu", line 77
 *     //## File "/work/x.py.cu", line 77
 *             (0090)                     LDG.E R0, desc[UR4][R2.64] ;   (the address in a comment)
 *
 * one comment per level of inlining, the innermost first. The rule for an inlined instruction is
 * the PTX's (ptx_lines.c): the innermost line that came from Python (a device function's
 * statement), else the outermost line of the program (the statement that called a prelude
 * helper). Each function's code is a section of its own, opened by a banner line
 * `//--------------------- .text.SYMBOL ----...`. */
#include <string.h>

#include "explore/explore.h"

static const char BANNER[] = "//---------------------";
static const char LINE_INFO[] = "//##";

/* Whether [s, end) starts with `word`. */
static bool starts(const char *s, const char *end, const char *word) {
  size_t n = strlen(word);
  return (size_t)(end - s) >= n && memcmp(s, word, n) == 0;
}

/* Past spaces and tabs. */
static const char *skip_blanks(const char *s, const char *end) {
  while (s < end && (*s == ' ' || *s == '\t')) s++;
  return s;
}

/* Whether the quoted file name [q, e) is the program: the same text, or, for a relative program
 * name, a path ending in "/" and it (ptxas keeps the path NVRTC wrote into the PTX). */
static bool is_program(const char *q, const char *e, const char *program) {
  size_t n = (size_t)(e - q), plen = strlen(program);
  if (n == plen) return memcmp(q, program, n) == 0;
  return program[0] != '/' && n > plen && q[n - plen - 1] == '/' && memcmp(e - plen, program, plen) == 0;
}

/* One `"FILE", line N` at s: the line when FILE is the program, else 0; *next is past it (NULL
 * when s holds none). */
static uint32_t file_line(const char *s, const char *end, const char *program, const char **next) {
  *next = NULL;
  const char *q = memchr(s, '"', (size_t)(end - s));
  const char *e = q ? memchr(q + 1, '"', (size_t)(end - q - 1)) : NULL;
  if (!e || !starts(e + 1, end, ", line ")) return 0;
  uint64_t line = 0;
  const char *p = e + 8;
  for (; p < end && *p >= '0' && *p <= '9' && line < UINT32_MAX; p++) line = line * 10 + (uint64_t)(*p - '0');
  *next = p;
  return is_program(q + 1, e, program) && line <= UINT32_MAX ? (uint32_t)line : 0;
}

typedef struct SassScan {
  const char *program;
  const uint32_t *python_line;   /* per C line, to prefer a line that came from Python */
  size_t ncuda;
  uint32_t current;              /* the C line in force */
  bool in_group, from_py;        /* in a run of line comments; its line came from Python */
} SassScan;

/* Whether C line `line` came from a Python statement. */
static bool from_python(const SassScan *l, uint32_t line) {
  return line >= 1 && line <= l->ncuda && l->python_line && l->python_line[line - 1];
}

/* One candidate line of a run of line comments, innermost first: the first from Python wins,
 * else the last of the program's. */
static void candidate(SassScan *l, uint32_t line) {
  if (!line || l->from_py) return;
  l->current = line;
  l->from_py = from_python(l, line);
}

/* A `//## File ...` comment: its own line, then the line it was inlined at. */
static void line_comment(SassScan *l, const char *s, const char *end) {
  if (!l->in_group) {
    l->current = 0;
    l->from_py = false;
    l->in_group = true;
  }
  const char *next;
  uint32_t own = file_line(s, end, l->program, &next);
  candidate(l, own);
  const char *at = next;
  for (; at && at + 10 <= end && memcmp(at, "inlined at", 10) != 0; at++) {}
  if (at && at + 10 <= end) candidate(l, file_line(at + 10, end, l->program, &next));
}

/* Counts lines (the last line number seen). */
static size_t count_lines(const char *text, size_t len) {
  size_t n = 0;
  for (const char *s = text, *stop = text + len; s < stop; n++) {
    const char *nl = memchr(s, '\n', (size_t)(stop - s));
    s = nl ? nl + 1 : stop;
  }
  return n;
}

uint32_t *explore_sass_cuda_lines(Arena *a, const char *sass, size_t len, const char *program,
                                  const uint32_t *python_line, size_t ncuda, size_t *nlines) {
  size_t n = count_lines(sass, len);
  *nlines = n;
  uint32_t *map = arena_alloc(a, (n ? n : 1) * sizeof *map);
  SassScan l = {.program = program, .python_line = python_line, .ncuda = ncuda};
  const char *s = sass, *stop = sass + len;
  for (size_t i = 0; i < n; i++) {
    const char *end = memchr(s, '\n', (size_t)(stop - s));
    if (!end) end = stop;
    const char *t = skip_blanks(s, end);
    if (starts(t, end, LINE_INFO)) {
      line_comment(&l, t, end);
    } else {
      l.in_group = false;
      if (starts(t, end, BANNER)) l.current = 0;   /* a new section: no line yet */
    }
    map[i] = l.current;
    s = end + 1;
  }
  return map;
}

/* A banner's section name (`.text.SYMBOL`), or NULL. */
static const char *banner_symbol(const char *s, const char *end, size_t *n) {
  if (!starts(s, end, BANNER)) return NULL;
  s = skip_blanks(s + sizeof BANNER - 1, end);
  if (!starts(s, end, ".text.")) return NULL;
  s += 6;
  const char *e = s;
  while (e < end && *e != ' ' && *e != '\t' && *e != '-' && *e != '\r') e++;
  *n = (size_t)(e - s);
  return e > s ? s : NULL;
}

TextDef *explore_sass_definitions(Arena *a, const char *sass, size_t len, size_t *n) {
  VEC(TextDef) defs = {0};
  bool open = false;   /* the last definition's section is the one being read */
  const char *s = sass, *stop = sass + len;
  for (uint32_t line = 1; sass && s < stop; line++) {
    const char *end = memchr(s, '\n', (size_t)(stop - s));
    if (!end) end = stop;
    size_t k;
    const char *name = banner_symbol(s, end, &k);
    if (starts(s, end, BANNER)) open = false;   /* a section ends where the next begins */
    if (name) {
      vec_push(a, &defs, ((TextDef){arena_strndup(a, name, k), line, line}));
      open = true;
    } else if (open && skip_blanks(s, end) < end) {
      defs.items[defs.len - 1].last = line;   /* trailing blank lines are not the function's */
    }
    s = end + 1;
  }
  *n = defs.len;
  return defs.items;
}
