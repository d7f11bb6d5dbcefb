/* samples/aot/ufunc.c: a C program that runs the @vectorize ufuncs of samples/aot/ufuncs.py
 * through an ahead-of-time bundle (docs/aot.md): one launcher per signature, over n elements.
 *
 *   pyk2cuda build samples/aot/ufuncs.py -o out/uf [--with-sim]
 *   cc -Iout samples/aot/ufunc.c out/uf.c -ldl -lpthread -lm -o aot_ufunc
 *
 * It checks each result against the same function written in C here (Python's semantics: the
 * int32 difference in int64, floor division and modulo), over more elements than one grid of
 * the launcher covers, in place too (out = x), and the gufunc row_dot as the kernel it is; then that n < 0 and NULL pointers come back as a
 * status and a message. `aot_ufunc DIR` also writes each input and output to DIR/NAME.bin, which
 * tests/aot/run_aot.py compares with Numba's own ufuncs of the same Python. Exit 0 when
 * everything matched; 1 with a line on stderr for the first mismatch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uf.h"

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "ufunc.c:%d: ", __LINE__);                                                   \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* More elements than the launcher's largest grid (4096 blocks of 256 threads) covers at once. */
enum { N = 4096 * 256 + 4099 };

static const char *dump_dir;

/* DIR/name.bin: the bytes, for the comparison with Numba (only when a DIR was given). */
static void dump(const char *name, const void *p, size_t bytes) {
  if (!dump_dir) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.bin", dump_dir, name);
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(p, 1, bytes, f) == bytes && fclose(f) == 0, "cannot write %s", path);
}

/* A device copy of n bytes of host memory. */
static void *to_device(const void *host, size_t bytes) {
  void *d;
  CHECK(uf_malloc(&d, bytes) == uf_OK && uf_upload(d, host, bytes) == uf_OK, "upload: %s", uf_last_error());
  return d;
}

static void from_device(void *host, void *dev, size_t bytes) {
  CHECK(uf_synchronize(NULL) == uf_OK && uf_download(host, dev, bytes) == uf_OK, "download: %s", uf_last_error());
}

/* clipped_diff in C: |x - y| capped at 100, in the signature's type (int32: in int64). */
static float clipped_f32(float x, float y) {
  float d = x - y;
  d = d < 0 ? -d : d;
  return d < 100 ? d : 100;
}
static double clipped_f64(double x, double y) {
  double d = x - y;
  d = d < 0 ? -d : d;
  return d < 100 ? d : 100;
}
static int32_t clipped_i32(int32_t x, int32_t y) {
  int64_t d = (int64_t)x - y;
  d = d < 0 ? -d : d;
  return (int32_t)(d < 100 ? d : 100);
}

/* collatz_step in C: Python's n % 2 is 0 where C's is (then n // 2 is exact), and 3 * n + 1
 * wraps as int64 does in Numba (computed in uint64, where C defines the wrap). */
static int64_t collatz(int64_t n) {
  if (n % 2 == 0) return n / 2;
  return (int64_t)(3 * (uint64_t)n + 1);
}

static void run_f32(void) {
  float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *out = malloc(N * sizeof *out);
  for (int i = 0; i < N; i++) x[i] = (float)(i % 2001 - 1000) * 0.37f, y[i] = (float)(i % 7) * 3.5f - 10;
  void *dx = to_device(x, N * sizeof *x), *dy = to_device(y, N * sizeof *y);
  CHECK(uf_clipped_diff__f32_f32(NULL, N, dx, dy, dy) == uf_OK, "clipped_diff f32: %s", uf_last_error());
  from_device(out, dy, N * sizeof *out);   /* in place: out is y */
  for (int i = 0; i < N; i++) CHECK(out[i] == clipped_f32(x[i], y[i]), "clipped_diff f32 [%d] = %g", i, out[i]);
  dump("x_f32", x, N * sizeof *x), dump("y_f32", y, N * sizeof *y), dump("out_f32", out, N * sizeof *out);
  uf_free(dx), uf_free(dy), free(x), free(y), free(out);
}

static void run_f64(void) {
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *out = malloc(N * sizeof *out);
  for (int i = 0; i < N; i++) x[i] = (i % 3001 - 1500) / 7.0, y[i] = (i % 11) * 1.25 - 6;
  void *dx = to_device(x, N * sizeof *x), *dy = to_device(y, N * sizeof *y), *dout;
  CHECK(uf_malloc(&dout, N * sizeof *out) == uf_OK, "malloc: %s", uf_last_error());
  CHECK(uf_clipped_diff__f64_f64(NULL, N, dx, dy, dout) == uf_OK, "clipped_diff f64: %s", uf_last_error());
  from_device(out, dout, N * sizeof *out);
  for (int i = 0; i < N; i++) CHECK(out[i] == clipped_f64(x[i], y[i]), "clipped_diff f64 [%d] = %g", i, out[i]);
  dump("x_f64", x, N * sizeof *x), dump("y_f64", y, N * sizeof *y), dump("out_f64", out, N * sizeof *out);
  uf_free(dx), uf_free(dy), uf_free(dout), free(x), free(y), free(out);
}

static void run_i32(void) {
  int32_t *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *out = malloc(N * sizeof *out);
  for (int i = 0; i < N; i++)   /* differences beyond int32 too */
    x[i] = (int32_t)((uint32_t)i * 2654435761u), y[i] = i % 5 ? i % 300 - 150 : -x[i] / 2;
  void *dx = to_device(x, N * sizeof *x), *dy = to_device(y, N * sizeof *y), *dout;
  CHECK(uf_malloc(&dout, N * sizeof *out) == uf_OK, "malloc: %s", uf_last_error());
  CHECK(uf_clipped_diff__i32_i32(NULL, N, dx, dy, dout) == uf_OK, "clipped_diff i32: %s", uf_last_error());
  from_device(out, dout, N * sizeof *out);
  for (int i = 0; i < N; i++) CHECK(out[i] == clipped_i32(x[i], y[i]), "clipped_diff i32 [%d] = %d", i, out[i]);
  dump("x_i32", x, N * sizeof *x), dump("y_i32", y, N * sizeof *y), dump("out_i32", out, N * sizeof *out);
  uf_free(dx), uf_free(dy), uf_free(dout), free(x), free(y), free(out);
}

static void run_collatz(void) {
  int64_t *n = malloc(N * sizeof *n), *out = malloc(N * sizeof *out);
  for (int i = 0; i < N; i++) n[i] = i % 3 ? (int64_t)i - N / 2 : (int64_t)((uint64_t)i * 0x9e3779b97f4a7c15u);
  void *dn = to_device(n, N * sizeof *n);
  CHECK(uf_collatz_step__i64(NULL, N, dn, dn) == uf_OK, "collatz_step: %s", uf_last_error());
  from_device(out, dn, N * sizeof *out);
  for (int i = 0; i < N; i++) CHECK(out[i] == collatz(n[i]), "collatz_step [%d] = %lld", i, (long long)out[i]);
  dump("n_i64", n, N * sizeof *n), dump("out_i64", out, N * sizeof *out);
  uf_free(dn), free(n), free(out);
}

/* row_dot, a gufunc: an ordinary kernel over rows x 7 arrays, one thread per row. */
static void run_row_dot(void) {
  enum { ROWS = 1000, COLS = 7 };
  float *a = malloc(ROWS * COLS * sizeof *a), *b = malloc(ROWS * COLS * sizeof *b), *out = malloc(ROWS * sizeof *out);
  for (int i = 0; i < ROWS * COLS; i++) a[i] = (float)(i % 97) * 0.25f - 12, b[i] = (float)(i % 13) - 6.5f;
  void *da = to_device(a, ROWS * COLS * sizeof *a), *db = to_device(b, ROWS * COLS * sizeof *b), *dout;
  CHECK(uf_malloc(&dout, ROWS * sizeof *out) == uf_OK, "malloc: %s", uf_last_error());
  int64_t shape[2] = {ROWS, COLS}, rows[1] = {ROWS};
  CHECK(uf_row_dot__f32a2_f32a2_f32a1(NULL, uf_dim3_of((ROWS + 127) / 128, 1, 1), uf_dim3_of(128, 1, 1), 0,
                                      uf_array_c(da, uf_FLOAT32, 2, shape), uf_array_c(db, uf_FLOAT32, 2, shape),
                                      uf_array_c(dout, uf_FLOAT32, 1, rows)) == uf_OK,
        "row_dot: %s", uf_last_error());
  from_device(out, dout, ROWS * sizeof *out);
  for (int r = 0; r < ROWS; r++) {
    double s = 0;   /* Numba: float32 products summed in float64, stored as float32 */
    for (int j = 0; j < COLS; j++) s += (double)(a[r * COLS + j] * b[r * COLS + j]);
    CHECK(out[r] == (float)s, "row_dot [%d] = %g, expected %g", r, out[r], s);
  }
  dump("a_dot", a, ROWS * COLS * sizeof *a), dump("b_dot", b, ROWS * COLS * sizeof *b);
  dump("out_dot", out, ROWS * sizeof *out);
  uf_free(da), uf_free(db), uf_free(dout), free(a), free(b), free(out);
}

/* n = 0 launches nothing; n < 0 and NULL pointers are refused with a message. */
static void run_refusals(void) {
  float x = 1;
  CHECK(uf_clipped_diff__f32_f32(NULL, 0, NULL, NULL, NULL) == uf_OK, "n = 0: %s", uf_last_error());
  CHECK(uf_clipped_diff__f32_f32(NULL, -1, &x, &x, &x) == uf_ERR_ARGUMENT &&
        strstr(uf_last_error(), "n is -1"), "n < 0: %s", uf_last_error());
  CHECK(uf_collatz_step__i64(NULL, 5, NULL, NULL) == uf_ERR_ARGUMENT &&
        strstr(uf_last_error(), "collatz_step int64(int64): 'n' is NULL"), "NULL: %s", uf_last_error());
}

int main(int argc, char **argv) {
  dump_dir = argc > 1 ? argv[1] : NULL;
  run_f32();
  run_f64();
  run_i32();
  run_collatz();
  run_row_dot();
  run_refusals();
  printf("aot ufunc sample: ok on %s\n", uf_backend());
  return 0;
}
