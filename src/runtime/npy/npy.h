/* Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0).
 *
 * The runtime loads kernel inputs from .npy files and saves outputs to them. Only the dtypes a
 * kernel can take are accepted (bool, int8..int64, uint8..uint64, float16/32/64, complex64/128,
 * datetime64 and timedelta64 of one unit ('<M8[D]', '<m8[ns]', '<M8'), and records of those in
 * NumPy's list form, [('a', '<i4'), ('', '|V4'), ('b', '<f8')], with nested array fields);
 * object arrays (pickles), strings and multiples of a time unit ('<M8[10D]') are refused with a
 * message naming the dtype. The header (a Python dict literal) is parsed by a small strict
 * parser; nothing is ever evaluated. Malformed, hostile or truncated input gives
 * P2C_ERR_FORMAT and a one-line message, never a crash.
 *
 * Messages go to a caller-supplied buffer `err` of `errlen` bytes (may be NULL/0), NUL-terminated
 * and truncated to fit, and start with the file name ("x.npy: ...") for the _file functions.
 * These functions keep no state; they are safe to call from several threads at once. */
#ifndef P2C_RUNTIME_NPY_H
#define P2C_RUNTIME_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pyk2cuda.h"

/* An array in memory. After loading, `data` holds the elements in the host's byte order, in C
 * order or, when `fortran_order` is set, in Fortran order (column-major) exactly as stored: the
 * caller derives strides from the flag. A 0-d array has ndim 0 and one element. `data` is NULL
 * when nbytes is 0 (an empty array). */
typedef struct NpyArray {
  P2cScalarType dtype;
  int ndim;                       /* 0..P2C_MAX_NDIM */
  int64_t shape[P2C_MAX_NDIM];    /* shape[0..ndim-1], each >= 0 */
  bool fortran_order;
  void *data;
  size_t nbytes;                  /* product(shape) * the dtype's size */
  /* dtype P2C_RECORD: the record's fields. Loading allocates it (one block, with its fields and
   * names) with the array's allocator, and npy_free frees it; for writing it is the caller's. */
  const P2cRecord *record;
} NpyArray;

/* Loads the .npy file at `path` into *out. The data block comes from `alloc` (NULL: malloc) and
 * belongs to the caller, who releases it with npy_free and the same allocator.
 * Returns P2C_OK; P2C_ERR_IO when the file cannot be opened or read; P2C_ERR_FORMAT when its
 * content is not a supported .npy array; P2C_ERR_NOMEM when the allocator fails. On failure *out
 * is zeroed and nothing stays allocated. */
P2cStatus npy_read_file(const char *path, const P2cAllocator *alloc, NpyArray *out, char *err,
                        size_t errlen);

/* As npy_read_file, for the `len` bytes of a .npy file already in memory at `buf` (which is only
 * read; the data is copied). Never returns P2C_ERR_IO; messages carry no file name. */
P2cStatus npy_read_buffer(const void *buf, size_t len, const P2cAllocator *alloc, NpyArray *out,
                          char *err, size_t errlen);

/* Writes `a` to `path` as a version 1.0 .npy file in the host's byte order ('<' on little-endian
 * hosts), header padded so that the data starts at a multiple of 64 bytes. The write is atomic:
 * the bytes go to a temporary file next to `path` that is renamed over it, so readers see the
 * old file or the complete new one. Allocates nothing.
 * Returns P2C_OK; P2C_ERR_USAGE when `a` is inconsistent (bad dtype or ndim, negative dimension,
 * nbytes not matching the shape, NULL data with nbytes > 0); P2C_ERR_IO when the file cannot be
 * written (the temporary file is then removed). */
P2cStatus npy_write_file(const char *path, const NpyArray *a, char *err, size_t errlen);

/* Releases a record description that npy_read_* made (NULL accepted). */
void npy_free_record(const P2cRecord *record, const P2cAllocator *alloc);

/* Releases the data of an array loaded with `alloc` and zeroes *a. Accepts NULL and an array
 * already freed or zeroed. */
void npy_free(NpyArray *a, const P2cAllocator *alloc);

#endif
