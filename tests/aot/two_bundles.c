/* Two bundles of the same kernel (samples/vecadd.py's vecadd) linked into one program: `vec`
 * (int32 inputs, sm_90 CUBIN) and `vec64` (int64 inputs, built for sm_80 only, so a compute 9.0
 * device runs its PTX). Nothing may clash: both launch, each its own module, with the right
 * results (tests/aot/run_aot.py builds and runs it). */
#include <stdio.h>
#include <stdlib.h>

#include "vec.h"
#include "vec64.h"

int main(void) {
  enum { N = 300 };
  int32_t a32[N];
  int64_t a64[N];
  double out[N];
  for (int i = 0; i < N; i++) a32[i] = i - 100, a64[i] = (int64_t)i << 33;
  int64_t shape[1] = {N};
  void *d32, *d64, *dout;
  if (vec_malloc(&d32, sizeof a32) || vec_malloc(&dout, sizeof out) || vec64_malloc(&d64, sizeof a64) ||
      vec_upload(d32, a32, sizeof a32) || vec64_upload(d64, a64, sizeof a64)) {
    fprintf(stderr, "two_bundles: memory: %s%s\n", vec_last_error(), vec64_last_error());
    return 1;
  }
  vec_array x = vec_array_c(d32, vec_INT32, 1, shape), o = vec_array_c(dout, vec_FLOAT64, 1, shape);
  if (vec_vecadd__i32c1_i32c1_f64c1(NULL, vec_dim3_of(3, 1, 1), vec_dim3_of(128, 1, 1), 0, x, x, o) ||
      vec_download(out, dout, sizeof out)) {
    fprintf(stderr, "two_bundles: vec: %s\n", vec_last_error());
    return 1;
  }
  for (int i = 0; i < N; i++)
    if (out[i] != 2.0 * a32[i]) return fprintf(stderr, "two_bundles: vec: out[%d] = %g\n", i, out[i]), 1;
  vec64_array y = vec64_array_c(d64, vec64_INT64, 1, shape), o64 = vec64_array_c(dout, vec64_FLOAT64, 1, shape);
  if (vec64_vecadd__i64c1_i64c1_f64c1(NULL, vec64_dim3_of(3, 1, 1), vec64_dim3_of(128, 1, 1), 0, y, y, o64) ||
      vec64_download(out, dout, sizeof out)) {
    fprintf(stderr, "two_bundles: vec64: %s\n", vec64_last_error());
    return 1;
  }
  for (int i = 0; i < N; i++)
    if (out[i] != 2.0 * (double)a64[i]) return fprintf(stderr, "two_bundles: vec64: out[%d] = %g\n", i, out[i]), 1;
  printf("two bundles: ok on %s and %s\n", vec_backend(), vec64_backend());
  return 0;
}
