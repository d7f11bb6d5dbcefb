/* Source text preparation: the checks Python's tokenizer makes on bytes, the newline
 * normalization that keeps line numbers equal to Python's, and the line table that turns byte
 * offsets into (line, column-in-characters) positions. */
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

bool source_prepare(Compilation *c, const char *raw, size_t raw_len) {
  if (raw_len > P2C_MAX_SOURCE) {
    diag_error(c, (Loc){1, 1}, "E-too-large", "source is %zu bytes; the limit is %d bytes", raw_len,
               P2C_MAX_SOURCE);
    return false;
  }
  if (raw_len >= 3 && memcmp(raw, "\xEF\xBB\xBF", 3) == 0) raw += 3, raw_len -= 3;
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
