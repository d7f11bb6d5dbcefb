/* Growable arrays and string builders in an arena: see buf.h. */
#include "util/buf.h"

#include <stdbool.h>
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

void sb_putc(StrBuf *sb, char c) {
  if (sb->len + 2 > sb->cap) sb_reserve(sb, 1);
  sb->data[sb->len++] = c;
  sb->data[sb->len] = '\0';
}

/* ---- formatting ----
 * Code generation formats a few hundred thousand short pieces for a large module, nearly all
 * with %s, %d and the like; glibc's vsnprintf spends most of its time setting up a FILE for
 * each call. The conversions below are written here; any other format goes to vsnprintf. */

typedef enum Conv {
  CONV_NONE, CONV_S, CONV_PREC_S, CONV_C, CONV_D, CONV_U, CONV_LD, CONV_LU, CONV_LLD, CONV_LLU,
  CONV_ZU, CONV_PERCENT
} Conv;

/* The conversion at fmt (just past a '%') and the length of its text, or CONV_NONE for one that
 * vsnprintf must do (flags, widths, precisions other than ".*s", floats, hexadecimal...). */
static Conv conversion(const char *f, size_t *len) {
  *len = 1;
  switch (f[0]) {
  case 's': return CONV_S;
  case 'c': return CONV_C;
  case 'd': return CONV_D;
  case 'u': return CONV_U;
  case '%': return CONV_PERCENT;
  case 'z':
    *len = 2;
    return f[1] == 'u' ? CONV_ZU : CONV_NONE;
  case '.':
    *len = 3;
    return f[1] == '*' && f[2] == 's' ? CONV_PREC_S : CONV_NONE;
  case 'l':
    *len = 2;
    if (f[1] == 'd') return CONV_LD;
    if (f[1] == 'u') return CONV_LU;
    *len = 3;
    if (f[1] == 'l' && f[2] == 'd') return CONV_LLD;
    if (f[1] == 'l' && f[2] == 'u') return CONV_LLU;
    return CONV_NONE;
  default: return CONV_NONE;
  }
}

static bool only_simple_conversions(const char *fmt) {
  for (const char *p = strchr(fmt, '%'); p; p = strchr(p, '%')) {
    size_t len;
    if (conversion(p + 1, &len) == CONV_NONE) return false;
    p += 1 + len;
  }
  return true;
}

static void put_unsigned(StrBuf *sb, unsigned long long v, bool negative) {
  char digits[24];
  size_t n = 0;
  do digits[sizeof digits - ++n] = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  if (negative) digits[sizeof digits - ++n] = '-';
  sb_putn(sb, digits + sizeof digits - n, n);
}

static void put_signed(StrBuf *sb, long long v) {
  /* LLONG_MIN's magnitude does not fit a long long: negate in unsigned arithmetic. */
  put_unsigned(sb, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, v < 0);
}

static void put_string(StrBuf *sb, const char *s, int precision) {
  if (!s) s = "(null)";   /* as glibc prints it */
  sb_putn(sb, s, precision < 0 ? strlen(s) : strnlen(s, (size_t)precision));
}

/* fmt holds only conversions that `conversion` knows. */
static void format_simple(StrBuf *sb, const char *fmt, va_list ap) {
  for (;;) {
    const char *pct = strchr(fmt, '%');
    sb_putn(sb, fmt, pct ? (size_t)(pct - fmt) : strlen(fmt));
    if (!pct) return;
    size_t len = 0;
    switch (conversion(pct + 1, &len)) {
    case CONV_S: put_string(sb, va_arg(ap, const char *), -1); break;
    case CONV_PREC_S: {
      int precision = va_arg(ap, int);
      put_string(sb, va_arg(ap, const char *), precision);
      break;
    }
    case CONV_C: sb_putc(sb, (char)va_arg(ap, int)); break;
    case CONV_D: put_signed(sb, va_arg(ap, int)); break;
    case CONV_U: put_unsigned(sb, va_arg(ap, unsigned), false); break;
    case CONV_LD: put_signed(sb, va_arg(ap, long)); break;
    case CONV_LU: put_unsigned(sb, va_arg(ap, unsigned long), false); break;
    case CONV_LLD: put_signed(sb, va_arg(ap, long long)); break;
    case CONV_LLU: put_unsigned(sb, va_arg(ap, unsigned long long), false); break;
    case CONV_ZU: put_unsigned(sb, va_arg(ap, size_t), false); break;
    case CONV_PERCENT: sb_putc(sb, '%'); break;
    case CONV_NONE: return;   /* excluded by only_simple_conversions */
    }
    fmt = pct + 1 + len;
  }
}

void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap) {
  if (only_simple_conversions(fmt)) {
    sb_reserve(sb, 0);   /* an empty result still leaves a terminated string */
    format_simple(sb, fmt, ap);
    return;
  }
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
  if (n <= 0) return;
  sb_reserve(sb, (size_t)n);
  memset(sb->data + sb->len, ' ', (size_t)n);
  sb->len += (size_t)n;
  sb->data[sb->len] = '\0';
}

const char *sb_str(const StrBuf *sb) { return sb->data ? sb->data : ""; }

void counted_appendf(char *buf, size_t cap, size_t *at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(*at < cap ? buf + *at : NULL, *at < cap ? cap - *at : 0, fmt, ap);
  va_end(ap);
  if (n > 0) *at += (size_t)n;
}

void fixed_appendf(char *out, size_t size, size_t *len, const char *fmt, ...) {
  if (*len >= size) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out + *len, size - *len, fmt, ap);
  va_end(ap);
  if (n > 0) *len += (size_t)n;
}
