/* tests/aot/types.py's kernels through a bundle (docs/aot.md): complex64/complex128 as
 * types_complex64/128 (a struct of two), float16 as its binary16 bits (uint16_t), datetime64[s]
 * and timedelta64[s] as int64_t, tuples as the header's structs, on the simulator part and on the GPU path (the stand-in). Each
 * result is checked against C here; `types DIR` also writes the inputs and results to
 * DIR/NAME.bin, which tests/aot/types_numba.py compares with Numba's CUDA simulator bit for bit.
 * Exit 0 when everything matched; 1 with a line on stderr for the first mismatch. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types.h"
#include "check.h"

static void *to_device(const void *host, size_t bytes) {
  void *d;
  CHECK(types_malloc(&d, bytes) == types_OK && types_upload(d, host, bytes) == types_OK, "upload: %s",
        types_last_error());
  return d;
}

static void from_device(void *host, void *dev, size_t bytes) {
  CHECK(types_synchronize(NULL) == types_OK && types_download(host, dev, bytes) == types_OK, "download: %s",
        types_last_error());
}

static types_array vec(void *data, types_dtype t, int64_t n) { return types_array_c(data, t, 1, &n); }

/* cmul: complex128 out = complex64 z * complex128 w + conj(z), against C's double arithmetic
 * (NumPy's formula for the product). */
static void run_cmul(void) {
  static types_complex64 z[N];
  static types_complex128 out[N];
  for (int i = 0; i < N; i++) z[i].re = (float)i * 0.25f - 50, z[i].im = 3 - (float)i * 0.125f;
  types_complex128 w = {1.5, -0.75};
  void *dz = to_device(z, sizeof z), *dout = to_device(out, sizeof out);
  CHECK(types_cmul__c128c1_c64c1_c128(NULL, types_dim3_of(GRID, 1, 1), types_dim3_of(BLOCK, 1, 1), 0,
                                      vec(dout, types_COMPLEX128, N), vec(dz, types_COMPLEX64, N), w) == types_OK,
        "cmul: %s", types_last_error());
  from_device(out, dout, sizeof out);
  for (int i = 0; i < N; i++) {
    double a = z[i].re, b = z[i].im;
    double re = (a * w.re - b * w.im) + a, im = (a * w.im + b * w.re) - b;
    CHECK(out[i].re == re && out[i].im == im, "cmul [%d] = %.17g%+.17gj, expected %.17g%+.17gj", i, out[i].re,
          out[i].im, re, im);
  }
  dump("cmul_z", z, sizeof z), dump("cmul_out", out, sizeof out);
}

/* The binary16 bits of a float that binary16 holds exactly (the inputs below). */
static uint16_t half_bits(float f) {
  if (f == 0) return signbit(f) ? 0x8000 : 0;
  int e;
  float m = frexpf(fabsf(f), &e);   /* f = m * 2^e, m in [0.5, 1) */
  uint16_t sign = f < 0 ? 0x8000 : 0;
  return (uint16_t)(sign | (uint16_t)((e + 14) << 10) | (uint16_t)((int)ldexpf(m, 11) - 1024));
}

/* hscale: float16 out = h * a + h, with h and a exact in binary16 and every result too. */
static void run_hscale(void) {
  static uint16_t h[N], out[N];
  for (int i = 0; i < N; i++) h[i] = half_bits((float)(i % 200) - 100);
  uint16_t a = half_bits(0.5f);
  void *dh = to_device(h, sizeof h), *dout = to_device(out, sizeof out);
  CHECK(types_hscale__f16c1_f16_f16c1(NULL, types_dim3_of(GRID, 1, 1), types_dim3_of(BLOCK, 1, 1), 0,
                                      vec(dh, types_FLOAT16, N), a, vec(dout, types_FLOAT16, N)) == types_OK,
        "hscale: %s", types_last_error());
  from_device(out, dout, sizeof out);
  for (int i = 0; i < N; i++) {
    float v = (float)(i % 200) - 100;
    CHECK(out[i] == half_bits(v * 0.5f + v), "hscale [%d] = 0x%04x, expected 0x%04x", i, out[i],
          half_bits(v * 0.5f + v));
  }
  dump("hscale_h", h, sizeof h), dump("hscale_out", out, sizeof out);
}

/* shift: datetime64[s] t += timedelta64[s] d; since = t - t[0]; a NaT stays NaT. */
static void run_shift(void) {
  static int64_t t[N], since[N], before[N];
  for (int i = 0; i < N; i++) t[i] = 1700000000 + (int64_t)i * 3600;
  t[7] = INT64_MIN;   /* NaT */
  memcpy(before, t, sizeof t);
  int64_t d = -86400;
  void *dt = to_device(t, sizeof t), *dsince = to_device(since, sizeof since);
  CHECK(types_shift__M8sc1_m8s_m8sc1(NULL, types_dim3_of(GRID, 1, 1), types_dim3_of(BLOCK, 1, 1), 0,
                                     vec(dt, types_DATETIME64_s, N), d, vec(dsince, types_TIMEDELTA64_s, N)) ==
            types_OK,
        "shift: %s", types_last_error());
  from_device(t, dt, sizeof t);
  from_device(since, dsince, sizeof since);
  for (int i = 0; i < N; i++) {
    int64_t want = i == 7 ? INT64_MIN : before[i] + d;
    CHECK(t[i] == want, "shift t[%d] = %lld, expected %lld", i, (long long)t[i], (long long)want);
    CHECK(since[i] == (i == 7 ? INT64_MIN : (int64_t)i * 3600), "shift since[%d] = %lld", i, (long long)since[i]);
  }
  dump("shift_t0", before, sizeof before), dump("shift_t", t, sizeof t), dump("shift_since", since, sizeof since);
}

/* affine: a (int32, float64) tuple and a (float32, float32) one, passed as the header's structs. */
static void run_affine(void) {
  static double out[N];
  types_tuple_i32_f64 p = {3, 0.25};
  types_tuple_f32_f32 q = {1.5f, -2.0f};
  void *dout = to_device(out, sizeof out);
  CHECK(types_affine__f64c1_t2i32f64_t2f32f32(NULL, types_dim3_of(GRID, 1, 1), types_dim3_of(BLOCK, 1, 1), 0,
                                               vec(dout, types_FLOAT64, N), p, q) == types_OK,
        "affine: %s", types_last_error());
  from_device(out, dout, sizeof out);
  for (int i = 0; i < N; i++)
    CHECK(out[i] == 3.0 * i + 0.25 + (double)(1.5f * -2.0f), "affine [%d] = %.17g", i, out[i]);
  dump("affine_out", out, sizeof out);
}

/* A wrong dtype is an argument error, not a crash: complex64 data where complex128 is taken. */
static void run_wrong_dtype(void) {
  void *d;
  CHECK(types_malloc(&d, 16 * N) == types_OK, "malloc: %s", types_last_error());
  types_complex128 w = {0, 0};
  types_status s = types_cmul__c128c1_c64c1_c128(NULL, types_dim3_of(1, 1, 1), types_dim3_of(1, 1, 1), 0,
                                                 vec(d, types_COMPLEX64, N), vec(d, types_COMPLEX64, N), w);
  CHECK(s == types_ERR_ARGUMENT && strstr(types_last_error(), "complex64") && strstr(types_last_error(), "complex128"),
        "a complex64 array for a complex128 parameter: status %d, '%s'", (int)s, types_last_error());
}

int main(int argc, char **argv) {
  dump_dir = argc > 1 ? argv[1] : NULL;
  run_cmul();
  run_hscale();
  run_shift();
  run_affine();
  run_wrong_dtype();
  printf("types: ok on %s\n", types_backend());
  return 0;
}
