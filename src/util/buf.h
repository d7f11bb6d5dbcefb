/* The project's one growable array and string builder, both backed by an Arena.
 *
 * VEC(T) is a counted array {T *items; size_t len, cap;}; vec_push grows it geometrically in the
 * arena (the old storage stays in the arena until the compilation ends: at most a factor two).
 * StrBuf is a NUL-terminated growable string; codegen writes into one. */
#ifndef P2C_UTIL_BUF_H
#define P2C_UTIL_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"

#define VEC(T)     \
  struct {         \
    T *items;      \
    size_t len;    \
    size_t cap;    \
  }

void vec_grow_(Arena *a, void **items, size_t *cap, size_t elem_size, size_t need);

#define vec_push(arena, v, x)                                                              \
  do {                                                                                     \
    if ((v)->len == (v)->cap)                                                              \
      vec_grow_((arena), (void **)&(v)->items, &(v)->cap, sizeof *(v)->items, (v)->len + 1); \
    (v)->items[(v)->len++] = (x);                                                          \
  } while (0)

typedef struct StrBuf {
  Arena *arena;
  char *data;
  size_t len, cap;
} StrBuf;

void sb_init(StrBuf *sb, Arena *a);
void sb_putn(StrBuf *sb, const char *s, size_t n);
void sb_puts(StrBuf *sb, const char *s);
void sb_putc(StrBuf *sb, char c);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
/* Writes `n` spaces. */
void sb_indent(StrBuf *sb, int n);
/* The text so far (never NULL; valid until the next write). */
const char *sb_str(const StrBuf *sb);

/* printf into a fixed buffer `out` of `size` bytes at *len, advancing *len; never writes past
 * `size` (the text is cut there, still terminated), and does nothing once the buffer is full.
 * For messages built in place, without an arena (the bounds and sanitizer reports). */
void fixed_appendf(char *out, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* printf into buf[*at..cap) as snprintf does, advancing *at by the whole text even where it does
 * not fit, so that a first pass with cap 0 measures what a second pass writes. */
void counted_appendf(char *buf, size_t cap, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
