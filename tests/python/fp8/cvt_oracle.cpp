// The oracle of tests/python/test_fp8_cvt.py: cuda_fp8.h's own __nv_cvt_* functions, built for
// the host by the host compiler (their software paths). Reads n float32, n float64 and n uint16
// (bfloat16 bits) from argv[1]; writes, per input, the 4 fp8 bytes of each source (sat x interp)
// and the 4 e8m0 bytes of each (sat x {cudaRoundZero, cudaRoundPosInf}), then the bfloat16 bits
// of every e8m0 byte, to argv[2].
#include <cuda_fp8.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  size_t n = (size_t)atol(argv[3]);
  std::vector<float> f(n);
  std::vector<double> d(n);
  std::vector<unsigned short> b(n);
  FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "wb");
  if (!in || !out || fread(f.data(), 4, n, in) != n || fread(d.data(), 8, n, in) != n || fread(b.data(), 2, n, in) != n) return 2;
  const __nv_saturation_t sats[2] = {__NV_NOSAT, __NV_SATFINITE};
  const __nv_fp8_interpretation_t kinds[2] = {__NV_E4M3, __NV_E5M2};
  const cudaRoundMode modes[2] = {cudaRoundZero, cudaRoundPosInf};
  for (size_t i = 0; i < n; i++) {
    __nv_bfloat16_raw raw;
    raw.x = b[i];
    unsigned char row[24];
    for (int s = 0; s < 2; s++)
      for (int k = 0; k < 2; k++) {
        row[2 * s + k] = __nv_cvt_float_to_fp8(f[i], sats[s], kinds[k]);
        row[4 + 2 * s + k] = __nv_cvt_double_to_fp8(d[i], sats[s], kinds[k]);
        row[8 + 2 * s + k] = __nv_cvt_bfloat16raw_to_fp8(raw, sats[s], kinds[k]);
        row[12 + 2 * s + k] = __nv_cvt_float_to_e8m0(f[i], sats[s], modes[k]);
        row[16 + 2 * s + k] = __nv_cvt_double_to_e8m0(d[i], sats[s], modes[k]);
        row[20 + 2 * s + k] = __nv_cvt_bfloat16raw_to_e8m0(raw, sats[s], modes[k]);
      }
    fwrite(row, 1, sizeof row, out);
  }
  for (int e = 0; e < 256; e++) {
    unsigned short bits = __nv_cvt_e8m0_to_bf16raw((unsigned char)e).x;
    fwrite(&bits, 2, 1, out);
  }
  return fclose(out) != 0;
}
