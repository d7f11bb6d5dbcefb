/* Diagnostics and source positions: see diag.h. */
#include "util/diag.h"

#include <stdio.h>
#include <string.h>

/* Room for one more diagnostic of this severity. Warnings have their own small budget on top of
 * the errors' (P2C_MAX_WARNINGS of them at most), so that a file full of warnings never crowds
 * out the errors that stop its compilation. */
bool diag_has_room(const Compilation *c, P2cSeverity sev) {
  size_t warnings = 0;
  for (size_t i = 0; i < c->diags.len; i++) warnings += c->diags.items[i].severity == P2C_SEVERITY_WARNING;
  return sev == P2C_SEVERITY_WARNING ? warnings < P2C_MAX_WARNINGS : c->diags.len - warnings < P2C_MAX_ERRORS;
}

static void add_diag(Compilation *c, P2cSeverity sev, Loc loc, const char *code, const char *fmt,
                     va_list ap) {
  if (!diag_has_room(c, sev)) {
    c->too_many_errors = c->too_many_errors || sev != P2C_SEVERITY_WARNING;
    return;
  }
  StrBuf sb;
  sb_init(&sb, &c->arena);
  sb_vprintf(&sb, fmt, ap);
  P2cDiagnostic d = {sev, c->file, loc.line, loc.col, code, sb_str(&sb)};
  vec_push(&c->arena, &c->diags, d);
}

void diag_error(Compilation *c, Loc loc, const char *code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_diag(c, P2C_SEVERITY_ERROR, loc, code, fmt, ap);
  va_end(ap);
  c->error_count++;
}

void diag_warning(Compilation *c, Loc loc, const char *code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_diag(c, P2C_SEVERITY_WARNING, loc, code, fmt, ap);
  va_end(ap);
}

void diag_note(Compilation *c, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  add_diag(c, P2C_SEVERITY_NOTE, loc, "note", fmt, ap);
  va_end(ap);
}

bool diag_has_errors(const Compilation *c) { return c->error_count > 0; }

/* Counts UTF-8 characters (lead bytes) in [s, s+n): continuation bytes do not start one. */
static uint32_t count_chars(const char *s, size_t n) {
  uint32_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80) k++;
  return k;
}

Loc source_loc(const Compilation *c, size_t offset) {
  if (offset > c->len) offset = c->len;
  size_t lo = 0, hi = c->line_starts.len;
  while (hi - lo > 1) {   /* last line start <= offset */
    size_t mid = (lo + hi) / 2;
    if (c->line_starts.items[mid] <= offset) lo = mid;
    else hi = mid;
  }
  uint32_t start = c->line_starts.len ? c->line_starts.items[lo] : 0;
  return (Loc){(uint32_t)lo + 1, count_chars(c->text + start, offset - start) + 1};
}

Loc source_loc_on_row(const Compilation *c, uint32_t row, size_t offset) {
  const uint32_t *starts = c->line_starts.items;
  size_t lines = c->line_starts.len;
  if (row >= lines || starts[row] > offset || offset > c->len || (row + 1 < lines && starts[row + 1] <= offset))
    return source_loc(c, offset);
  uint32_t start = starts[row];
  return (Loc){row + 1, count_chars(c->text + start, offset - start) + 1};
}

const char *source_line(const Compilation *c, uint32_t line, size_t *len) {
  if (line == 0 || line > c->line_starts.len) {
    *len = 0;
    return "";
  }
  const char *s = c->text + c->line_starts.items[line - 1];
  const char *nl = memchr(s, '\n', (size_t)(c->text + c->len - s));
  *len = nl ? (size_t)(nl - s) : (size_t)(c->text + c->len - s);
  return s;
}
