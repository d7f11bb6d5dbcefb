/* Host arrays and .npy files in the public API: thin wrappers over runtime/npy that translate
 * between NumPy's description (shape + Fortran flag) and the launch ABI's (shape + strides). */
#include <string.h>

#include "api/api.h"
#include "runtime/npy/npy.h"

/* Bytes of an array of this shape, of elements of `n` bytes; false on overflow. */
static bool array_bytes(size_t n, int ndim, const int64_t *shape, size_t *out) {
  for (int k = 0; k < ndim; k++) {
    if (shape[k] < 0) return false;
    if (shape[k] && n > SIZE_MAX / (size_t)shape[k]) return false;
    n *= (size_t)shape[k];
  }
  *out = n;
  return true;
}

static void set_strides(P2cHostArray *a, bool fortran) {
  int64_t s = (int64_t)p2c_dtype_size(a->dtype, a->record);
  for (int i = 0; i < a->ndim; i++) {
    int k = fortran ? i : a->ndim - 1 - i;
    a->strides[k] = s;
    s *= a->shape[k];
  }
}

P2cStatus p2c_host_array_new(P2cCompiler *c, P2cScalarType t, int ndim, const int64_t *shape,
                             P2cHostArray *out) {
  memset(out, 0, sizeof *out);
  size_t bytes;
  bool known = p2c_scalar_name(t) || p2c_dtype_charseq(t, NULL, NULL);   /* scalars, S<n>, U<n> */
  if (!known || ndim < 0 || ndim > P2C_MAX_NDIM || !array_bytes(p2c_dtype_size(t, NULL), ndim, shape, &bytes))
    return api_fail(c, P2C_ERR_USAGE, "invalid array type or shape");
  out->data = mem_alloc(&c->alloc, bytes ? bytes : 1);
  if (!out->data) return api_fail(c, P2C_ERR_NOMEM, "out of memory allocating %zu bytes", bytes);
  memset(out->data, 0, bytes);
  out->dtype = t;
  out->ndim = ndim;
  memcpy(out->shape, shape, sizeof *shape * (size_t)ndim);
  set_strides(out, false);
  return P2C_OK;
}

void p2c_host_array_free(P2cCompiler *c, P2cHostArray *a) {
  size_t bytes;
  if (!c || !a || !a->data) return;
  if (!array_bytes(p2c_dtype_size(a->dtype, a->record), a->ndim, a->shape, &bytes)) bytes = 0;
  mem_free(&c->alloc, a->data, bytes ? bytes : 1);
  if (a->dtype == P2C_RECORD) npy_free_record(a->record, &c->alloc);   /* only p2c_npy_load makes them */
  memset(a, 0, sizeof *a);
}

P2cStatus p2c_npy_load(P2cCompiler *c, const char *path, P2cHostArray *out) {
  memset(out, 0, sizeof *out);
  NpyArray n;
  char err[512];
  P2cStatus s = npy_read_file(path, &c->alloc, &n, err, sizeof err);
  if (s != P2C_OK) return api_fail(c, s, "%s", err);
  /* The host-array contract: data is never NULL and has the size of its shape (at least 1). */
  if (!n.data) {
    n.data = mem_alloc(&c->alloc, 1);
    if (!n.data) {
      npy_free_record(n.record, &c->alloc);
      return api_fail(c, P2C_ERR_NOMEM, "out of memory");
    }
  }
  out->dtype = n.dtype;
  out->record = n.record;
  out->ndim = n.ndim;
  memcpy(out->shape, n.shape, sizeof n.shape);
  out->data = n.data;
  set_strides(out, n.fortran_order);
  return P2C_OK;
}

/* Whether strides are exactly those of a C (or Fortran) ordered array of this shape. */
static bool has_order(const P2cHostArray *a, bool fortran) {
  P2cHostArray t = *a;
  set_strides(&t, fortran);
  for (int k = 0; k < a->ndim; k++)
    if (a->shape[k] > 1 && t.strides[k] != a->strides[k]) return false;
  return true;
}

P2cStatus p2c_npy_save(P2cCompiler *c, const char *path, const P2cHostArray *a) {
  size_t bytes;
  if (!array_bytes(p2c_dtype_size(a->dtype, a->record), a->ndim, a->shape, &bytes))
    return api_fail(c, P2C_ERR_USAGE, "invalid array shape");
  bool c_order = has_order(a, false), f_order = !c_order && has_order(a, true);
  if (!c_order && !f_order)
    return api_fail(c, P2C_ERR_USAGE, "%s: only contiguous arrays can be saved", path);
  NpyArray n = {.dtype = a->dtype, .ndim = a->ndim, .fortran_order = f_order, .data = a->data,
                .nbytes = bytes, .record = a->record};
  memcpy(n.shape, a->shape, sizeof n.shape);
  char err[512];
  P2cStatus s = npy_write_file(path, &n, err, sizeof err);
  return s == P2C_OK ? s : api_fail(c, s, "%s", err);
}
