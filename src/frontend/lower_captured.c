/* Device arrays captured from Python globals: `NAME = cuda._captured_array(ADDRESS, SHAPE,
 * STRIDES, TYPESTR)` at module level.
 *
 * numba-cuda lets a kernel read and write a global that is a device array (any object with
 * __cuda_array_interface__): it embeds the array's pointer, shape and strides in the code as
 * constants, so the kernel sees later writes to that memory but not a later rebinding of the
 * name. The Python package (source.py) freezes such a global into this line when it builds a
 * kernel's module; codegen declares the array with its address (emit_cuda.c). The address is
 * only meaningful in the process that wrote the line, which is why the package refuses to cache
 * such kernels, as Numba does. */
#include <string.h>

#include "frontend/lower.h"

/* A non-negative int literal (an address may be above INT64_MAX), or false. */
static bool unsigned_arg(const Expr *e, uint64_t *out) {
  if (!e || e->kind != EX_INT) return false;
  if (e->is_unsigned_literal) *out = e->uval;
  else if (e->ival >= 0) *out = (uint64_t)e->ival;
  else return false;
  return true;
}

/* A tuple of ndim int literals (SHAPE or STRIDES) into out; `ndim` < 0 takes the tuple's size. */
static bool int_tuple_arg(const Expr *e, int *ndim, int64_t *out) {
  if (!e || e->kind != EX_TUPLE || e->nkids > P2C_MAX_NDIM || (*ndim >= 0 && e->nkids != *ndim)) return false;
  for (int k = 0; k < e->nkids; k++) {
    if (e->kids[k]->kind != EX_INT || e->kids[k]->is_unsigned_literal) return false;
    out[k] = e->kids[k]->ival;
  }
  *ndim = e->nkids;
  return true;
}

/* TYPESTR ("<f4") as a number type, read by the library's one reader of typestrs. */
static const Type *typestr_arg(Lowerer *L, TSNode n) {
  const char *text;
  size_t len;
  P2cScalarType t;
  bool swapped;
  if (!node_is(L, n, K_string) || !lower_string_value(L, n, &text, &len)) return NULL;
  if (!p2c_dtype_parse(text, len, &t, &swapped) || swapped) return NULL;
  const Type *dtype = type_of_scalar(t);
  return dtype && (type_is_number(dtype) || type_is_complex(dtype)) ? dtype : NULL;
}

/* The four arguments of cuda._captured_array(...) into *c; false after a diagnostic. */
static bool captured_args(Lowerer *L, TSNode call, CapturedArray *c) {
  TSNode args[5];
  int n = node_kids(L, lower_field(L, call, F_arguments), args, 5);
  Expr *v[3] = {0};
  for (int i = 0; i < 3 && i < n; i++) v[i] = fold_const_expr(L, args[i], &(const Type *){0});
  int ndim = -1;
  bool ok = n == 4 && unsigned_arg(v[0], &c->address) && int_tuple_arg(v[1], &ndim, c->shape) &&
            int_tuple_arg(v[2], &ndim, c->strides) && (c->dtype = typestr_arg(L, args[3])) != NULL;
  if (!ok) {
    diag_error(L->c, node_loc(L, call), "E-captured",
               "cuda._captured_array() takes (address, shape, strides, typestr) as int literals, "
               "tuples of them and a number dtype's typestr (the Python package writes it)");
    return false;
  }
  c->ndim = ndim;
  c->layout = p2c_array_layout(c->dtype->bits / 8, ndim, c->shape, c->strides);
  return true;
}

CapturedArray *lower_captured_array(Lowerer *L, TSNode right, bool *is_one) {
  Resolved r;
  *is_one = node_is(L, right, K_call) && resolve_dotted(L, lower_field(L, right, F_function), &r) &&
            r.builtin && r.builtin->id == BI_CAPTURED_ARRAY;
  if (!*is_one) return NULL;
  CapturedArray *c = arena_alloc(L->a, sizeof *c);
  memset(c, 0, sizeof *c);
  return captured_args(L, right, c) ? c : NULL;
}
