/* samples/aot/main.c: a C program that runs the kernels of samples/vecadd.py and samples/smooth.py
 * through ahead-of-time bundles (docs/aot.md), with no pyk2cuda, Python or NVRTC at run time:
 *
 *   pyk2cuda build samples/vecadd.py --sig 'vecadd(int32[::1], int32[::1], float64[::1])' -o out/vec
 *   pyk2cuda build samples/smooth.py --sig 'smooth_gpu(int32[:, ::1], int32[:, ::1])' -o out/img
 *   cc -Iout samples/aot/main.c out/vec.c out/img.c -ldl -lpthread -o aot_demo
 *
 * It checks each result against the same computation written in C here, then that wrong
 * arrays and launches over the device's limits come back as a status and a message. Exit 0 when
 * everything matched; 1 with a line on stderr for the first mismatch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "img.h"
#include "vec.h"

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "main.c:%d: ", __LINE__);                                                    \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* vecadd over n elements: c = a + b, int32 inputs into float64 (samples/vecadd.py). */
static void run_vecadd(int n) {
  int32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  double *c = malloc(n * sizeof *c);
  for (int i = 0; i < n; i++) a[i] = i * 7 - 3000, b[i] = 2147483000 - i;   /* sums beyond int32 */
  void *da, *db, *dc;
  CHECK(vec_malloc(&da, n * 4) == vec_OK && vec_malloc(&db, n * 4) == vec_OK && vec_malloc(&dc, n * 8) == vec_OK,
        "malloc: %s", vec_last_error());
  CHECK(vec_upload(da, a, n * 4) == vec_OK && vec_upload(db, b, n * 4) == vec_OK, "upload: %s", vec_last_error());
  int64_t shape[1] = {n};
  unsigned block = 128, grid = (unsigned)((n + block - 1) / block);
  vec_status s = vec_vecadd__i32c1_i32c1_f64c1(NULL, vec_dim3_of(grid, 1, 1), vec_dim3_of(block, 1, 1), 0,
                                               vec_array_c(da, vec_INT32, 1, shape),
                                               vec_array_c(db, vec_INT32, 1, shape),
                                               vec_array_c(dc, vec_FLOAT64, 1, shape));
  CHECK(s == vec_OK, "vecadd: %s", vec_last_error());
  CHECK(vec_synchronize(NULL) == vec_OK && vec_download(c, dc, n * 8) == vec_OK, "download: %s", vec_last_error());
  for (int i = 0; i < n; i++) CHECK(c[i] == (double)a[i] + (double)b[i], "vecadd: c[%d] = %g", i, c[i]);
  vec_free(da), vec_free(db), vec_free(dc);
  free(a), free(b), free(c);
}

/* Python's floor division by 9 (rounds toward minus infinity). */
static int64_t floordiv9(int64_t v) { return v >= 0 ? v / 9 : -((-v + 8) / 9); }

/* smooth_gpu on an n x m image: each inner pixel the floor of its 3x3 mean, borders untouched. */
static void run_smooth(int n, int m) {
  int32_t *x = malloc(sizeof *x * n * m), *out = malloc(sizeof *out * n * m);
  for (int i = 0; i < n * m; i++) x[i] = (int32_t)((i * 2654435761u) % 2001) - 1000;
  void *dx, *dout;
  CHECK(img_malloc(&dx, sizeof *x * n * m) == img_OK && img_malloc(&dout, sizeof *x * n * m) == img_OK,
        "malloc: %s", img_last_error());
  memset(out, 0, sizeof *out * n * m);
  CHECK(img_upload(dx, x, sizeof *x * n * m) == img_OK && img_upload(dout, out, sizeof *x * n * m) == img_OK,
        "upload: %s", img_last_error());
  int64_t shape[2] = {n, m};
  img_status s = img_smooth_gpu__i32c2_i32c2(NULL, img_dim3_of((n + 15) / 16, (m + 15) / 16, 1),
                                             img_dim3_of(16, 16, 1), 0, img_array_c(dx, img_INT32, 2, shape),
                                             img_array_c(dout, img_INT32, 2, shape));
  CHECK(s == img_OK, "smooth: %s", img_last_error());
  CHECK(img_download(out, dout, sizeof *x * n * m) == img_OK, "download: %s", img_last_error());
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      int64_t want = 0;
      if (i >= 1 && i < n - 1 && j >= 1 && j < m - 1) {
        for (int di = -1; di <= 1; di++)
          for (int dj = -1; dj <= 1; dj++) want += x[(i + di) * m + j + dj];
        want = floordiv9(want);
      }
      CHECK(out[i * m + j] == want, "smooth: out[%d, %d] = %d, expected %lld", i, j, out[i * m + j], (long long)want);
    }
  img_free(dx), img_free(dout);
  free(x), free(out);
}

/* Wrong arrays and launches: a status and a message naming the problem, never a crash. */
static void run_refusals(void) {
  int64_t shape[1] = {10}, shape2[2] = {4, 4};
  void *d;
  CHECK(vec_malloc(&d, 1024) == vec_OK, "malloc: %s", vec_last_error());
  vec_array i32 = vec_array_c(d, vec_INT32, 1, shape), f64 = vec_array_c(d, vec_FLOAT64, 1, shape);
  vec_dim3 one = vec_dim3_of(1, 1, 1);
  struct {
    vec_status s;
    const char *want;
  } cases[] = {
      {vec_vecadd__i32c1_i32c1_f64c1(NULL, one, one, 0, f64, i32, f64), "dtype float64"},
      {vec_vecadd__i32c1_i32c1_f64c1(NULL, one, one, 0, vec_array_c(d, vec_INT32, 2, shape2), i32, f64), "2 dimensions"},
      {vec_vecadd__i32c1_i32c1_f64c1(NULL, one, one, 0, vec_array_c(NULL, vec_INT32, 1, shape), i32, f64), "NULL"},
      {vec_vecadd__i32c1_i32c1_f64c1(NULL, one, one, 0, vec_array_strided(d, vec_INT32, 1, shape, (int64_t[]){8}), i32, f64),
       "C-contiguous"},
      {vec_vecadd__i32c1_i32c1_f64c1(NULL, one, one, 0, vec_array_c(d, vec_INT32, 9, shape), i32, f64), "-1 dimensions"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    CHECK(cases[i].s == vec_ERR_ARGUMENT, "refusal %zu: status %d (%s)", i, cases[i].s, vec_last_error());
  }
  /* each message as the call left it: call again to read it */
  CHECK(vec_vecadd__i32c1_i32c1_f64c1(NULL, one, one, 0, f64, i32, f64) == vec_ERR_ARGUMENT &&
            strstr(vec_last_error(), "array 'a' has dtype float64, the kernel takes int32"),
        "dtype message: %s", vec_last_error());
  CHECK(vec_vecadd__i32c1_i32c1_f64c1(NULL, one, vec_dim3_of(2048, 1, 1), 0, i32, i32, f64) == vec_ERR_LAUNCH &&
            strstr(vec_last_error(), "threads per block"),
        "block of 2048: %s", vec_last_error());
  CHECK(vec_vecadd__i32c1_i32c1_f64c1(NULL, vec_dim3_of(1, 70000, 1), one, 0, i32, i32, f64) == vec_ERR_LAUNCH &&
            strstr(vec_last_error(), "device's limits"),
        "grid y of 70000: %s", vec_last_error());
  CHECK(vec_vecadd__i32c1_i32c1_f64c1(NULL, vec_dim3_of(0, 1, 1), one, 0, i32, i32, f64) == vec_ERR_LAUNCH,
        "grid of 0: %s", vec_last_error());
  CHECK(vec_vecadd__i32c1_i32c1_f64c1(NULL, one, one, 1u << 30, i32, i32, f64) == vec_ERR_LAUNCH &&
            strstr(vec_last_error(), "shared memory"),
        "1 GiB of shared memory: %s", vec_last_error());
  CHECK(vec_vecadd__i32c1_i32c1_f64c1(NULL, one, one, 0, i32, i32, f64) == vec_OK && vec_last_error()[0] == 0,
        "a good launch after refusals: %s", vec_last_error());
  vec_synchronize(NULL);
  vec_free(d);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  run_vecadd(n);
  run_smooth(40, 30);
  run_refusals();
  printf("aot C sample: ok on %s (%s)\n", vec_backend(), img_backend());
  return 0;
}
