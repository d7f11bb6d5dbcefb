/* Growable arrays and string builders in an arena: see buf.h. */
#include "util/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void vec_grow_(Arena *a, void **items, size_t *cap, size_t elem_size, size_t need) {
  size_t new_cap = *cap ? *cap * 2 : 8;
  if (new_cap < need) new_cap = need;
  if (new_cap > SIZE_MAX / elem_size) arena_oom(a);
  void *p = arena_alloc(a, new_cap * elem_size);
  if (*cap) memcpy(p, *items, *cap * elem_size);
  *items = p;
  *cap = new_cap;
}

void sb_init(StrBuf *sb, Arena *a) {
  sb->arena = a;
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

static void sb_reserve(StrBuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap) return;
  if (extra > SIZE_MAX / 2 - sb->len) arena_oom(sb->arena);
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < sb->len + extra + 1) cap *= 2;
  char *p = arena_alloc(sb->arena, cap);
  if (sb->len) memcpy(p, sb->data, sb->len);
  sb->data = p;
  sb->cap = cap;
}

void sb_putn(StrBuf *sb, const char *s, size_t n) {
  sb_reserve(sb, n);
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void sb_puts(StrBuf *sb, const char *s) { sb_putn(sb, s, strlen(s)); }

void sb_putc(StrBuf *sb, char c) { sb_putn(sb, &c, 1); }

void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap) {
  /* Formats straight into the free space; only when it does not fit is the text formatted a
   * second time, after growing (most writes are short: one pass). */
  sb_reserve(sb, 64);
  size_t room = sb->cap - sb->len;
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(sb->data + sb->len, room, fmt, ap2);
  va_end(ap2);
  if (n <= 0) {
    sb->data[sb->len] = '\0';
    return;
  }
  if ((size_t)n >= room) {
    sb_reserve(sb, (size_t)n);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
  }
  sb->len += (size_t)n;
}

void sb_printf(StrBuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

void sb_indent(StrBuf *sb, int n) {
  for (int i = 0; i < n; i++) sb_putc(sb, ' ');
}

const char *sb_str(const StrBuf *sb) { return sb->data ? sb->data : ""; }
