/* What the C benchmarks share: a monotonic clock, medians, and reading a whole file. Each
 * benchmark is one translation unit, so these are static and defined here. */
#ifndef P2C_BENCH_UTIL_H
#define P2C_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* CLOCK_MONOTONIC in milliseconds. */
static inline double bench_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of v[0..n), n >= 1; sorts v. */
static inline double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return v[n / 2];
}

/* The whole file, NUL-terminated, in malloc'd memory (the caller frees it); *len (may be NULL)
 * receives its size. NULL when it cannot be read. */
static inline char *bench_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
    buf[n] = '\0';
    if (len) *len = (size_t)n;
  }
  fclose(f);
  return buf;
}

#endif
