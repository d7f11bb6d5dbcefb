/* Source text preparation: the checks Python's tokenizer makes on bytes, the newline
 * normalization that keeps line numbers equal to Python's, and the line table that turns byte
 * offsets into (line, column-in-characters) positions. */
#include <ctype.h>
#include <string.h>

#include "frontend/frontend.h"

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 if invalid. Rejects overlong
 * forms, surrogates and code points past U+10FFFF, as Python's decoder does. */
static size_t utf8_seq_len(const unsigned char *s, size_t n) {
  unsigned char b = s[0];
  if (b < 0x80) return 1;
  size_t len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 ? 2 : 0;
  if (len == 0 || b > 0xF4 || len > n) return 0;
  for (size_t i = 1; i < len; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  if (b == 0xE0 && s[1] < 0xA0) return 0;          /* overlong */
  if (b == 0xED && s[1] >= 0xA0) return 0;         /* surrogates */
  if (b == 0xF0 && s[1] < 0x90) return 0;          /* overlong */
  if (b == 0xF4 && s[1] >= 0x90) return 0;         /* past U+10FFFF */
  return len;
}

/* A byte that stands for itself: ASCII, and not NUL or a line break. */
static bool is_plain_ascii(unsigned char b) { return b < 0x80 && b != '\0' && b != '\r' && b != '\n'; }

static void push_line(Compilation *c, size_t offset) {
  vec_push(&c->arena, &c->line_starts, (uint32_t)offset);
}

/* Error position in the raw text, computed on the text normalized so far. */
static Loc raw_loc(Compilation *c, const char *out, size_t out_len) {
  c->text = out;
  c->len = out_len;
  return source_loc(c, out_len);
}

/* ---- PEP 263 coding declarations ---- */

typedef enum { ENC_UTF8, ENC_LATIN1, ENC_ASCII, ENC_OTHER } Encoding;

/* The end of the line starting at s (its newline, or the end). */
static size_t line_end(const char *s, size_t n, size_t from) {
  while (from < n && s[from] != '\n' && s[from] != '\r') from++;
  return from;
}

/* A line that is a comment (or blank): only such lines may declare the encoding, and the
 * second line is read only when the first is one (CPython's tokenizer). Copies the name of a
 * "coding[:=] NAME" in it to name (lower case, '_' as '-'). */
static bool comment_line(const char *s, size_t n, char *name, size_t cap) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f')) i++;
  if (i == n) return true;
  if (s[i] != '#') return false;
  for (; i + 7 < n; i++) {
    if (memcmp(s + i, "coding", 6) != 0 || (s[i + 6] != ':' && s[i + 6] != '=')) continue;
    size_t j = i + 7, k = 0;
    while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
    for (; j < n && k + 1 < cap && (isalnum((unsigned char)s[j]) || strchr("-_.", s[j])); j++)
      name[k++] = s[j] == '_' ? '-' : (char)tolower((unsigned char)s[j]);
    name[k] = '\0';
    return true;
  }
  return true;
}

/* NAME or NAME-anything, as CPython's get_normal_name matches. */
static bool names(const char *name, const char *want) {
  size_t n = strlen(want);
  return strncmp(name, want, n) == 0 && (name[n] == '\0' || name[n] == '-');
}

static Encoding encoding_named(const char *name) {
  if (names(name, "utf-8") || names(name, "utf8")) return ENC_UTF8;
  if (names(name, "latin-1") || names(name, "iso-8859-1") || names(name, "iso-latin-1") ||
      names(name, "latin1") || names(name, "l1") || names(name, "cp819") || names(name, "iso8859-1"))
    return ENC_LATIN1;
  if (!strcmp(name, "ascii") || !strcmp(name, "us-ascii") || !strcmp(name, "646")) return ENC_ASCII;
  return ENC_OTHER;
}

/* The declared encoding of the first two lines (UTF-8 when none); false with a diagnostic for
 * one pyk2cuda does not read. */
static bool declared_encoding(Compilation *c, const char *raw, size_t len, bool bom, Encoding *enc) {
  char name[64] = "";
  size_t e1 = line_end(raw, len, 0);
  if (comment_line(raw, e1, name, sizeof name) && !name[0] && e1 < len) {
    size_t s2 = e1 + (raw[e1] == '\r' && e1 + 1 < len && raw[e1 + 1] == '\n' ? 2 : 1);
    comment_line(raw + s2, line_end(raw, len, s2) - s2, name, sizeof name);
  }
  *enc = name[0] ? encoding_named(name) : ENC_UTF8;
  if (*enc == ENC_OTHER) {
    diag_error(c, (Loc){1, 1}, "E-encoding", "the source declares the encoding '%s' (PEP 263); pyk2cuda "
               "reads UTF-8, Latin-1 and ASCII sources: convert the file to UTF-8", name);
    return false;
  }
  if (bom && *enc != ENC_UTF8) {
    diag_error(c, (Loc){1, 1}, "E-encoding", "encoding problem: %s with BOM", name);
    return false;
  }
  return true;
}

/* The position of byte i of an ASCII prefix of the raw text (lines end at LF, CRLF or CR). */
static Loc ascii_position(const char *raw, size_t i) {
  Loc l = {1, 1};
  for (size_t k = 0; k < i; k++) {
    bool eol = raw[k] == '\n' || (raw[k] == '\r' && raw[k + 1] != '\n');
    l.line += eol;
    l.col = eol ? 1 : l.col + 1;
  }
  return l;
}

/* Latin-1 bytes as UTF-8 (each byte is the code point of its value); ASCII checked. */
static const char *recode(Compilation *c, const char *raw, size_t *len, Encoding enc) {
  if (enc == ENC_UTF8) return raw;
  char *out = arena_alloc(&c->arena, *len * 2 + 1);
  size_t o = 0;
  for (size_t i = 0; i < *len; i++) {
    unsigned char b = (unsigned char)raw[i];
    if (b >= 0x80 && enc == ENC_ASCII) {
      diag_error(c, ascii_position(raw, i), "E-encoding",
                 "byte 0x%02x is not ASCII, the encoding the source declares", b);
      return NULL;
    }
    if (b < 0x80) out[o++] = (char)b;
    else out[o++] = (char)(0xC0 | b >> 6), out[o++] = (char)(0x80 | (b & 0x3F));
  }
  *len = o;
  return out;
}

bool source_prepare(Compilation *c, const char *raw, size_t raw_len) {
  if (raw_len > P2C_MAX_SOURCE) {
    diag_error(c, (Loc){1, 1}, "E-too-large", "source is %zu bytes; the limit is %d bytes", raw_len,
               P2C_MAX_SOURCE);
    return false;
  }
  bool bom = raw_len >= 3 && memcmp(raw, "\xEF\xBB\xBF", 3) == 0;
  if (bom) raw += 3, raw_len -= 3;
  Encoding enc;
  if (!declared_encoding(c, raw, raw_len, bom, &enc)) return false;
  if (!(raw = recode(c, raw, &raw_len, enc))) return false;
  char *out = arena_alloc(&c->arena, raw_len + 2);
  size_t o = 0;
  push_line(c, 0);
  for (size_t i = 0; i < raw_len;) {
    /* Most of a source is runs of printable ASCII: copied a run at a time. */
    size_t run = i;
    while (run < raw_len && is_plain_ascii((unsigned char)raw[run])) run++;
    if (run > i) {
      memcpy(out + o, raw + i, run - i);
      o += run - i;
      i = run;
      continue;
    }
    unsigned char ch = (unsigned char)raw[i];
    if (ch == '\0') {
      diag_error(c, raw_loc(c, out, o), "E-nul-byte", "source code cannot contain null bytes");
      return false;
    }
    if (ch == '\r' || ch == '\n') {
      i += (ch == '\r' && i + 1 < raw_len && raw[i + 1] == '\n') ? 2 : 1;
      out[o++] = '\n';
      push_line(c, o);
      continue;
    }
    size_t n = utf8_seq_len((const unsigned char *)raw + i, raw_len - i);
    if (n == 0) {
      diag_error(c, raw_loc(c, out, o), "E-bad-utf8", "invalid UTF-8 byte 0x%02x in source", ch);
      return false;
    }
    memcpy(out + o, raw + i, n);
    o += n;
    i += n;
  }
  /* A final newline lets the grammar close the last statement; it adds no line. */
  if (o == 0 || out[o - 1] != '\n') out[o++] = '\n';
  else if (c->line_starts.len > 1) c->line_starts.len--;
  out[o] = '\0';
  c->text = out;
  c->len = o;
  return true;
}
