/* libFuzzer harness: the .npy reader (npy_read_buffer, what p2c_npy_load runs on a file's
 * bytes) on arbitrary bytes. A file it accepts must describe its data exactly: nbytes equals
 * the product of the shape times the element size. */
#include <stddef.h>
#include <stdint.h>

#include "runtime/npy/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  NpyArray a;
  char err[256];
  if (npy_read_buffer(data, size, NULL, &a, err, sizeof err) != P2C_OK) return 0;
  size_t n = p2c_dtype_size(a.dtype, a.record);   /* a scalar's, a record's, a string's (S<n>, U<n>) */
  for (int k = 0; k < a.ndim; k++) n *= (size_t)a.shape[k];
  if (a.ndim < 0 || a.ndim > P2C_MAX_NDIM || n != a.nbytes || (n && !a.data)) __builtin_trap();
  volatile unsigned char sink = 0;
  for (size_t i = 0; i < a.nbytes; i++) sink ^= ((const unsigned char *)a.data)[i];   /* readable */
  npy_free(&a, NULL);
  return 0;
}
