/* Unit tests for src/util: the string builder's formatting (its own conversions must write what
 * vsnprintf writes), arena_adopt (memory moved between arenas stays valid and is freed once), and
 * source_loc_on_row (positions from a parser's row agree with the line-table search, and a wrong
 * row falls back to the search). */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "frontend/frontend.h"
#include "util/buf.h"
#include "util/diag.h"

/* sb_printf's result next to snprintf's for the same format and arguments. */
static void check_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void check_format(const char *fmt, ...) {
  Arena a;
  arena_init(&a, NULL);
  StrBuf sb;
  sb_init(&sb, &a);
  sb_puts(&sb, "<");   /* appends after existing text */
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  sb_vprintf(&sb, fmt, ap);
  char want[512] = "<";
  vsnprintf(want + 1, sizeof want - 1, fmt, ap2);
  va_end(ap2);
  va_end(ap);
  assert_string_equal(sb_str(&sb), want);
  assert_int_equal(sb.len, strlen(want));
  arena_free(&a);
}

static void formats_integers_like_printf(void **state) {
  (void)state;
  check_format("%d %d %d %d", 0, -1, INT_MAX, INT_MIN);
  check_format("%u %u", 0u, UINT_MAX);
  check_format("%ld|%lu", LONG_MIN, ULONG_MAX);
  check_format("%lld %lld %llu", LLONG_MIN, LLONG_MAX, ULLONG_MAX);
  check_format("%zu %zu", (size_t)0, SIZE_MAX);
  check_format("x%dy%dz", 7, -70);
}

static void formats_strings_and_characters_like_printf(void **state) {
  (void)state;
  check_format("%s", "");
  check_format("a%sb%sc", "one", "two");
  check_format("%.*s|", 3, "abcdef");
  check_format("%.*s|", 10, "abc");
  check_format("%.*s|", 0, "abc");
  check_format("%c%c%%%c", 'a', 'b', 'c');
  check_format("100%% %s", "sure");
  check_format("no conversions at all");
  check_format("%s", "a long string that is longer than the sixty-four bytes the builder reserves");
}

static void hands_other_formats_to_vsnprintf(void **state) {
  (void)state;
  check_format("%5d|%-4s|%03d", 42, "ab", 7);
  check_format("%x %08x %o", 255u, 0xbeefu, 8u);
  check_format("%.17g %s %d", 0.1, "mixed", 3);
  check_format("%.1f%%", 99.5);
}

static void empty_result_leaves_a_terminated_string(void **state) {
  (void)state;
  Arena a;
  arena_init(&a, NULL);
  StrBuf sb;
  sb_init(&sb, &a);
  sb_printf(&sb, "%s", "");
  assert_non_null(sb.data);
  assert_string_equal(sb_str(&sb), "");
  sb_indent(&sb, 3);
  sb_putc(&sb, 'x');
  assert_string_equal(sb_str(&sb), "   x");
  arena_free(&a);
}

/* Counts the host allocator's live blocks, to see that adopted memory is freed exactly once. */
static int live_blocks;

static void *counting_realloc(void *ud, void *ptr, size_t old_size, size_t new_size) {
  (void)ud;
  (void)old_size;
  if (new_size == 0) {
    if (ptr) live_blocks--;
    free(ptr);
    return NULL;
  }
  if (!ptr) live_blocks++;
  return realloc(ptr, new_size);
}

static void adopted_memory_stays_valid_and_is_freed_once(void **state) {
  (void)state;
  P2cAllocator alloc = {counting_realloc, NULL};
  Arena dst, src;
  arena_init(&dst, &alloc);
  arena_init(&src, &alloc);
  char *mine = arena_strdup(&dst, "kept by dst");
  char *theirs[64];
  for (int i = 0; i < 64; i++) theirs[i] = arena_printf(&src, "block %d %0*d", i, 1000, 0);
  char *big = arena_alloc(&src, 1 << 20);   /* a block of its own */
  big[(1 << 20) - 1] = 'z';
  arena_adopt(&dst, &src);
  assert_null(src.head);
  char *after = arena_strdup(&dst, "allocated after");
  assert_string_equal(mine, "kept by dst");
  assert_string_equal(after, "allocated after");
  for (int i = 0; i < 64; i++) assert_int_equal(strncmp(theirs[i], "block ", 6), 0);
  assert_int_equal(big[(1 << 20) - 1], 'z');
  arena_free(&src);   /* empty: frees nothing */
  assert_true(live_blocks > 0);
  arena_free(&dst);
  assert_int_equal(live_blocks, 0);
}

static void adopt_into_an_empty_arena(void **state) {
  (void)state;
  Arena dst, src;
  arena_init(&dst, NULL);
  arena_init(&src, NULL);
  char *s = arena_strdup(&src, "moved");
  arena_adopt(&dst, &src);
  assert_string_equal(s, "moved");
  assert_non_null(dst.head);
  arena_free(&dst);
}

static void loc_on_row_agrees_with_the_line_table(void **state) {
  (void)state;
  Compilation c = {0};
  arena_init(&c.arena, NULL);
  c.file = "t.py";
  const char *src = "ab\n\xc3\xa9t\xc3\xa9 = 1\n\nlast";
  assert_true(source_prepare(&c, src, strlen(src)));
  for (size_t off = 0; off <= c.len; off++) {
    Loc want = source_loc(&c, off);
    Loc got = source_loc_on_row(&c, want.line - 1, off);
    assert_int_equal(got.line, want.line);
    assert_int_equal(got.col, want.col);
    /* A row that does not hold the offset is not trusted. */
    for (uint32_t row = 0; row < 6; row++) {
      Loc fallback = source_loc_on_row(&c, row, off);
      assert_int_equal(fallback.line, want.line);
      assert_int_equal(fallback.col, want.col);
    }
  }
  assert_int_equal(source_loc_on_row(&c, 1, 9).col, 5);   /* the "=" of "été =": characters, not bytes */
  arena_free(&c.arena);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(formats_integers_like_printf),
      cmocka_unit_test(formats_strings_and_characters_like_printf),
      cmocka_unit_test(hands_other_formats_to_vsnprintf),
      cmocka_unit_test(empty_result_leaves_a_terminated_string),
      cmocka_unit_test(adopted_memory_stays_valid_and_is_freed_once),
      cmocka_unit_test(adopt_into_an_empty_arena),
      cmocka_unit_test(loc_on_row_agrees_with_the_line_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
