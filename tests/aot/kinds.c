/* tests/aot/kinds.py's kernels through a bundle (docs/aot.md): one of each way the simulator runs
 * a kernel (plain blocks, lockstep, regions with static and dynamic shared memory,
 * grid regions of a cooperative kernel) and two fibers kernels (warp shuffles and a counting
 * barrier; a barrier in a device function), on the simulator part and on the GPU path (the
 * stand-in). Each result is checked against C here; `kinds DIR` also writes the inputs and
 * results to DIR/NAME.bin, which tests/aot/kinds_numba.py compares with Numba's CUDA simulator.
 * Exit 0 when everything matched; 1 with a line on stderr for the first mismatch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinds.h"
#include "check.h"

static void *to_device(const void *host, size_t bytes) {
  void *d;
  CHECK(kinds_malloc(&d, bytes) == kinds_OK && kinds_upload(d, host, bytes) == kinds_OK, "upload: %s", kinds_last_error());
  return d;
}

static void from_device(void *host, void *dev, size_t bytes) {
  CHECK(kinds_synchronize(NULL) == kinds_OK && kinds_download(host, dev, bytes) == kinds_OK, "download: %s",
        kinds_last_error());
}

static kinds_array vec(void *data, kinds_dtype t, int64_t n) { return kinds_array_c(data, t, 1, &n); }

/* scale: plain blocks. */
static void run_scale(void) {
  float x[N], out[N];
  for (int i = 0; i < N; i++) x[i] = (float)i * 0.5f - 100;
  void *dx = to_device(x, sizeof x), *dout = to_device(x, sizeof x);
  CHECK(kinds_scale__f32c1_f32c1_f32(NULL, kinds_dim3_of(GRID, 1, 1), kinds_dim3_of(BLOCK, 1, 1), 0,
                                     vec(dx, kinds_FLOAT32, N), vec(dout, kinds_FLOAT32, N), 1.5f) == kinds_OK,
        "scale: %s", kinds_last_error());
  from_device(out, dout, sizeof out);
  for (int i = 0; i < N; i++) CHECK(out[i] == x[i] * 1.5f + 1, "scale [%d] = %g", i, out[i]);
  dump("scale_x", x, sizeof x), dump("scale_out", out, sizeof out);
  kinds_free(dx), kinds_free(dout);
}

/* stride_scale: a grid-stride loop (lockstep), over a grid smaller than the data. */
static void run_stride(void) {
  int32_t x[N], out[N];
  for (int i = 0; i < N; i++) x[i] = i * 7919 % 1000 - 500;
  void *dx = to_device(x, sizeof x), *dout = to_device(x, sizeof x);
  CHECK(kinds_stride_scale__i32c1_i32c1(NULL, kinds_dim3_of(3, 1, 1), kinds_dim3_of(64, 1, 1), 0,
                                        vec(dx, kinds_INT32, N), vec(dout, kinds_INT32, N)) == kinds_OK,
        "stride_scale: %s", kinds_last_error());
  from_device(out, dout, sizeof out);
  for (int i = 0; i < N; i++) CHECK(out[i] == x[i] * 3 - i, "stride_scale [%d] = %d", i, out[i]);
  dump("stride_x", x, sizeof x), dump("stride_out", out, sizeof out);
  kinds_free(dx), kinds_free(dout);
}

/* block_sum: barriers as regions, a static shared tile and dynamic shared memory. */
static void run_block_sum(void) {
  int64_t x[N], sums[GRID];
  for (int i = 0; i < N; i++) x[i] = (int64_t)i * i - 3 * i;
  void *dx = to_device(x, sizeof x), *dsums;
  CHECK(kinds_malloc(&dsums, sizeof sums) == kinds_OK, "malloc: %s", kinds_last_error());
  CHECK(kinds_block_sum__i64c1_i64c1(NULL, kinds_dim3_of(GRID, 1, 1), kinds_dim3_of(BLOCK, 1, 1), BLOCK * 8,
                                     vec(dx, kinds_INT64, N), vec(dsums, kinds_INT64, GRID)) == kinds_OK,
        "block_sum: %s", kinds_last_error());
  from_device(sums, dsums, sizeof sums);
  for (int b = 0; b < GRID; b++) {
    int64_t want = BLOCK - 1;   /* the dynamic array's last element: the last thread's index */
    for (int i = b * BLOCK; i < (b + 1) * BLOCK && i < N; i++) want += x[i];
    CHECK(sums[b] == want, "block_sum [%d] = %lld, expected %lld", b, (long long)sums[b], (long long)want);
  }
  dump("block_x", x, sizeof x), dump("block_sums", sums, sizeof sums);
  kinds_free(dx), kinds_free(dsums);
}

/* grid_rotate: a cooperative kernel whose grid syncs order writes across blocks, over `grid`
 * blocks of `block` threads; its results dumped as PREFIX_*.bin. */
static void run_grid_rotate(unsigned grid, unsigned block, const char *prefix) {
  float x[N], x2[N], out[N], partial[1];
  for (int i = 0; i < N; i++) x[i] = (float)(i % 37) - 18.25f;
  void *dx = to_device(x, sizeof x), *dout, *dpartial;
  CHECK(kinds_malloc(&dout, sizeof out) == kinds_OK && kinds_malloc(&dpartial, sizeof partial) == kinds_OK,
        "malloc: %s", kinds_last_error());
  CHECK(kinds_grid_rotate__f32c1_f32c1_f32c1(NULL, kinds_dim3_of(grid, 1, 1), kinds_dim3_of(block, 1, 1), 0,
                                             vec(dx, kinds_FLOAT32, N), vec(dout, kinds_FLOAT32, N),
                                             vec(dpartial, kinds_FLOAT32, 1)) == kinds_OK,
        "grid_rotate: %s", kinds_last_error());
  from_device(out, dout, sizeof out), from_device(x2, dx, sizeof x2), from_device(partial, dpartial, sizeof partial);
  float total = 0;
  for (int i = 0; i < N; i++) {
    CHECK(x2[i] == x[i] * 2, "grid_rotate x[%d] = %g", i, x2[i]);
    CHECK(out[i] == x[(i + 1) % N] * 2, "grid_rotate out[%d] = %g", i, out[i]);
    total += out[i];
  }
  CHECK(partial[0] == total, "grid_rotate total %g, expected %g", partial[0], total);
  char name[64];
  snprintf(name, sizeof name, "%s_x", prefix), dump(name, x, sizeof x);
  snprintf(name, sizeof name, "%s_out", prefix), dump(name, out, sizeof out);
  snprintf(name, sizeof name, "%s_total", prefix), dump(name, partial, sizeof partial);
  kinds_free(dx), kinds_free(dout), kinds_free(dpartial);
}

/* warp_reduce: fibers (warp shuffles, __syncthreads_count). */
static void run_warp_reduce(void) {
  int32_t x[N];
  int64_t out[GRID], counts[GRID];
  for (int i = 0; i < N; i++) x[i] = (i * 37) % 101 - 50;
  void *dx = to_device(x, sizeof x), *dout, *dcounts;
  CHECK(kinds_malloc(&dout, sizeof out) == kinds_OK && kinds_malloc(&dcounts, sizeof counts) == kinds_OK,
        "malloc: %s", kinds_last_error());
  CHECK(kinds_warp_reduce__i32c1_i64c1_i64c1(NULL, kinds_dim3_of(GRID, 1, 1), kinds_dim3_of(BLOCK, 1, 1), 0,
                                             vec(dx, kinds_INT32, N), vec(dout, kinds_INT64, GRID),
                                             vec(dcounts, kinds_INT64, GRID)) == kinds_OK,
        "warp_reduce: %s", kinds_last_error());
  from_device(out, dout, sizeof out), from_device(counts, dcounts, sizeof counts);
  for (int b = 0; b < GRID; b++) {
    int64_t sum = 0, positive = 0;
    for (int w = 0; w < BLOCK / 32; w++) {
      int64_t warp = 0;   /* every lane ends with its warp's sum */
      for (int i = b * BLOCK + w * 32; i < b * BLOCK + w * 32 + 32; i++) warp += i < N ? x[i] : 0;
      sum += warp, positive += warp > 0 ? 32 : 0;
    }
    CHECK(out[b] == sum && counts[b] == positive, "warp_reduce [%d] = %lld, %lld; expected %lld, %lld", b,
          (long long)out[b], (long long)counts[b], (long long)sum, (long long)positive);
  }
  dump("warp_x", x, sizeof x), dump("warp_out", out, sizeof out), dump("warp_counts", counts, sizeof counts);
  kinds_free(dx), kinds_free(dout), kinds_free(dcounts);
}

/* ring: fibers (a barrier in a device function, __syncthreads_count). */
static void run_ring(void) {
  int32_t x[N];
  int64_t out[N];
  for (int i = 0; i < N; i++) x[i] = (i * 53) % 97 - 40;
  void *dx = to_device(x, sizeof x), *dout;
  CHECK(kinds_malloc(&dout, sizeof out) == kinds_OK, "malloc: %s", kinds_last_error());
  CHECK(kinds_ring__i32c1_i64c1(NULL, kinds_dim3_of(GRID, 1, 1), kinds_dim3_of(BLOCK, 1, 1), 0, vec(dx, kinds_INT32, N),
                                vec(dout, kinds_INT64, N)) == kinds_OK, "ring: %s", kinds_last_error());
  from_device(out, dout, sizeof out);
  for (int b = 0; b < GRID; b++) {
    int64_t positive = 0, w[BLOCK];
    for (int t = 0; t < BLOCK; t++) {
      int i = b * BLOCK + (t + 1) % BLOCK;
      w[t] = i < N ? x[i] : 0;
      positive += w[t] > 0;
    }
    for (int t = 0; t < BLOCK && b * BLOCK + t < N; t++)
      CHECK(out[b * BLOCK + t] == w[t] * 1000 + positive, "ring [%d] = %lld", b * BLOCK + t,
            (long long)out[b * BLOCK + t]);
  }
  dump("ring_x", x, sizeof x), dump("ring_out", out, sizeof out);
  kinds_free(dx), kinds_free(dout);
}

int main(int argc, char **argv) {
  dump_dir = argc > 1 ? argv[1] : NULL;
  run_scale();
  run_stride();
  run_block_sum();
  run_grid_rotate(GRID, BLOCK, "grid");
  run_grid_rotate(1, N, "grid1");   /* one block: what Numba's simulator can compare (kinds_numba.py) */
  run_warp_reduce();
  run_ring();
  printf("kinds: ok on %s\n", kinds_backend());
  return 0;
}
