/* Bounds checking: the record's layout and its message (bounds.h). */
#include "runtime/bounds.h"

#include <stdio.h>
#include <string.h>

#include "util/buf.h"

/* The device side writes these offsets (codegen/prelude.c, struct p2c_bounds_record). */
_Static_assert(offsetof(P2cBoundsRecord, claimed) == 0, "record layout");
_Static_assert(offsetof(P2cBoundsRecord, line) == 4, "record layout");
_Static_assert(offsetof(P2cBoundsRecord, column) == 8, "record layout");
_Static_assert(offsetof(P2cBoundsRecord, ndim) == 12, "record layout");
_Static_assert(offsetof(P2cBoundsRecord, axis) == 16, "record layout");
_Static_assert(offsetof(P2cBoundsRecord, block) == 20, "record layout");
_Static_assert(offsetof(P2cBoundsRecord, thread) == 32, "record layout");
_Static_assert(offsetof(P2cBoundsRecord, view) == 44, "record layout");
_Static_assert(offsetof(P2cBoundsRecord, index) == 48, "record layout");
_Static_assert(offsetof(P2cBoundsRecord, shape) == 112, "record layout");
_Static_assert(sizeof(P2cBoundsRecord) == 176, "record layout");


/* "(5,)" or "(3, 64)": Python's spelling of a tuple. */
static void append_tuple(char *out, size_t size, size_t *len, const int64_t *v, uint32_t n) {
  fixed_appendf(out, size, len, "(");
  for (uint32_t k = 0; k < n; k++) fixed_appendf(out, size, len, "%s%lld", k ? ", " : "", (long long)v[k]);
  fixed_appendf(out, size, len, n == 1 ? ",)" : ")");
}

/* Where it failed: " in kernel 'k', thread (2,0,0) of block (1,0,0)", or for a @jit function's
 * host entry (one thread on the CPU) " in function 'f'". */
static void append_where(const P2cBoundsRecord *r, const char *kernel, bool host, char *out, size_t size,
                         size_t *len) {
  if (host) {
    if (kernel) fixed_appendf(out, size, len, " in function '%s'", kernel);
    return;
  }
  if (kernel) fixed_appendf(out, size, len, " in kernel '%s',", kernel);
  fixed_appendf(out, size, len, " thread (%u,%u,%u) of block (%u,%u,%u)", r->thread[0], r->thread[1],
                r->thread[2], r->block[0], r->block[1], r->block[2]);
}

/* A raise record (ndim 0): the exception's text is in the bytes of index and shape. */
static void format_raise(const P2cBoundsRecord *r, const char *file, const char *kernel, bool host,
                         char *out, size_t size) {
  char text[sizeof r->index + sizeof r->shape];
  memcpy(text, r->index, sizeof text);
  text[sizeof text - 1] = '\0';   /* not trusted: always terminated */
  size_t len = 0;
  fixed_appendf(out, size, &len, "%s:%u:%u: error: %s", file ? file : "<source>", r->line, r->column, text);
  append_where(r, kernel, host, out, size, &len);
}

void bounds_format(const P2cBoundsRecord *r, const char *file, const char *kernel, bool host, char *out,
                   size_t size) {
  if (!size) return;
  out[0] = '\0';
  if (r->ndim == 0) {
    format_raise(r, file, kernel, host, out, size);
    return;
  }
  uint32_t n = r->ndim < 1 ? 1 : r->ndim > P2C_BOUNDS_MAX_NDIM ? P2C_BOUNDS_MAX_NDIM : r->ndim;
  uint32_t axis = r->axis < n ? r->axis : 0;
  size_t len = 0;
  fixed_appendf(out, size, &len, "%s:%u:%u: error: index ", file ? file : "<source>", r->line, r->column);
  if (n == 1 || r->view) fixed_appendf(out, size, &len, "%lld", (long long)r->index[r->view ? axis : 0]);
  else append_tuple(out, size, &len, r->index, n);
  fixed_appendf(out, size, &len, " is out of bounds for axis %u with size %lld", axis,
         (long long)r->shape[axis]);
  if (!r->view) {
    fixed_appendf(out, size, &len, " (array of shape ");
    append_tuple(out, size, &len, r->shape, n);
    fixed_appendf(out, size, &len, ")");
  }
  append_where(r, kernel, host, out, size, &len);
}
