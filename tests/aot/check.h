/* What tests/aot's bundle checkers (kinds.c, types.c) share: a check that stops the program with
 * the failing line, and the dump of inputs and results that their *_numba.py scripts compare
 * with Numba's CUDA simulator. Include once, from the checker's own file. */
#ifndef AOT_CHECK_H
#define AOT_CHECK_H

#include <stdio.h>
#include <stdlib.h>

/* Exits 1 with "FILE:LINE: message" on stderr when cond is false. */
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                              \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* The elements each checker's kernels work on, in blocks of BLOCK threads. */
enum { N = 1000, BLOCK = 128, GRID = (N + BLOCK - 1) / BLOCK };

/* The folder given on the command line, where dump writes; NULL: no dumps. */
static const char *dump_dir;

/* DIR/name.bin (only when a DIR was given). */
static void dump(const char *name, const void *p, size_t bytes) {
  if (!dump_dir) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.bin", dump_dir, name);
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(p, 1, bytes, f) == bytes && fclose(f) == 0, "cannot write %s", path);
}

#endif
