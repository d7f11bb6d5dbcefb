/* tests/aot/warp_sum.py's warp shuffle through a bundle built --with-sim: the sums are right on
 * the GPU path (the stand-in) and on the simulator part, which runs it with fibers. */
#include <stdio.h>

#include "warp.h"

int main(void) {
  enum { N = 128 };
  int32_t x[N], out[N / 32];
  for (int i = 0; i < N; i++) x[i] = i * i - 50;
  int64_t n = N, nout = N / 32;
  void *dx, *dout;
  if (warp_malloc(&dx, sizeof x) || warp_malloc(&dout, sizeof out) || warp_upload(dx, x, sizeof x)) {
    fprintf(stderr, "warp: memory: %s\n", warp_last_error());
    return 1;
  }
  warp_status s = warp_warp_sum__i32c1_i32c1(NULL, warp_dim3_of(2, 1, 1), warp_dim3_of(64, 1, 1), 0,
                                             warp_array_c(dx, warp_INT32, 1, &n),
                                             warp_array_c(dout, warp_INT32, 1, &nout));
  if (s != warp_OK || warp_download(out, dout, sizeof out)) {
    fprintf(stderr, "warp: %s\n", warp_last_error());
    return 1;
  }
  for (int w = 0; w < N / 32; w++) {
    int32_t sum = 0;
    for (int i = 0; i < 32; i++) sum += x[w * 32 + i];
    if (out[w] != sum) return fprintf(stderr, "warp: out[%d] = %d, expected %d\n", w, out[w], sum), 1;
  }
  printf("warp: ok on %s\n", warp_backend());
  return 0;
}
