/* Reading a test's input file whole, for the cmocka unit tests: one helper instead of a copy per
 * test file. Include after <cmocka.h>. */
#ifndef P2C_TEST_FILES_H
#define P2C_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>

/* The bytes of `path`, NUL-terminated, from malloc (the caller frees them); *len their count.
 * A file that cannot be read fails the test, naming it. */
static inline char *test_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = '\0';
  fclose(f);
  *len = (size_t)n;
  return buf;
}

#endif
