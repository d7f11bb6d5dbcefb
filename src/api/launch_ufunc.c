/* p2c_ufunc_launch: calling a @vectorize(target='cuda') ufunc, as Numba's CUDA ufunc dispatcher
 * does. The inputs choose the signature (the first, in the decorator's order, that takes every
 * input without an unsafe cast; exact matches first), inputs of another dtype are converted on
 * the host, NumPy broadcasting gives the output's shape, the output is allocated here, and the
 * kernel runs over broadcast views (docs/generated-code.md) with a grid chosen from the size. */
#include <string.h>

#include "api/api.h"

enum { UFUNC_NDIM = P2C_MAX_NDIM, UFUNC_BLOCK = 256, UFUNC_MAX_GRID = 4096 };

/* ---- choosing the signature ---- */

static int kind_rank(P2cScalarType t) {
  if (t == P2C_BOOL) return 0;
  if (t <= P2C_INT64) return 1;
  if (t <= P2C_UINT64) return 2;
  return 3;
}

/* NumPy's can_cast(from, to, 'safe') on the scalar types: the library's casting rules. */
static bool safe_cast(P2cScalarType from, P2cScalarType to) {
  const Type *f = type_of_scalar(from), *t = type_of_scalar(to);
  return f && t && type_can_cast(f, t, CAST_SAFE);
}

/* A Python scalar argument fits a signature of the same or a higher kind (NumPy's value-based
 * casting of scalars: 2.0 with a float32 array stays float32). */
static bool scalar_fits(P2cScalarType from, P2cScalarType to) {
  int kf = kind_rank(from) == 2 ? 1 : kind_rank(from), kt = kind_rank(to) == 2 ? 1 : kind_rank(to);
  return kf <= kt;
}

static bool sig_takes(const P2cKernelInfo *k, const P2cValue *args, size_t nargs, bool exact) {
  for (size_t i = 0; i < nargs; i++) {
    P2cScalarType want = k->params[i].type, have = args[i].type;
    if (exact ? have != want : args[i].is_array ? !safe_cast(have, want) : !scalar_fits(have, want))
      return false;
  }
  return true;
}

/* The kernel index of the first specialization of `ufunc` that takes the arguments, or -1. */
static long choose_signature(const P2cModule *m, const char *ufunc, const P2cValue *args, size_t nargs) {
  size_t n = p2c_module_kernel_count(m);
  for (int exact = 1; exact >= 0; exact--)
    for (size_t i = 0; i < n; i++) {
      P2cKernelInfo k = p2c_module_kernel(m, i);
      bool complex_sig = false;
      for (size_t p = 0; p < k.param_count; p++) complex_sig |= k.params[p].type >= P2C_COMPLEX64;
      if (!complex_sig && k.is_ufunc && strcmp(k.python_name, ufunc) == 0 && k.param_count == nargs + 1 &&
          sig_takes(&k, args, nargs, exact))
        return (long)i;
    }
  return -1;
}

/* ---- broadcasting ---- */

/* NumPy's rule: shapes right-aligned; each extent equal, or 1. */
static P2cStatus broadcast_shape(P2cCompiler *c, const P2cValue *args, size_t nargs, int *ndim,
                                 int64_t *shape) {
  *ndim = 0;
  for (size_t i = 0; i < nargs; i++)
    if (args[i].is_array && args[i].array.ndim > *ndim) *ndim = args[i].array.ndim;
  for (int k = 0; k < *ndim; k++) shape[k] = 1;
  for (size_t i = 0; i < nargs; i++) {
    if (!args[i].is_array) continue;
    const P2cHostArray *a = &args[i].array;
    for (int k = 0; k < a->ndim; k++) {
      int64_t *s = &shape[*ndim - a->ndim + k], e = a->shape[k];
      if (*s == 1) *s = e;
      else if (e != 1 && e != *s)
        return api_fail(c, P2C_ERR_USAGE, "operands could not be broadcast together: argument %zu "
                        "has extent %lld in dimension %d, others %lld", i + 1, (long long)e, k,
                        (long long)*s);
    }
  }
  return P2C_OK;
}

/* ---- converting inputs ---- */

typedef struct Scalar {
  int kind;           /* kind_rank */
  int64_t i;
  uint64_t u;
  double f;
} Scalar;

static Scalar load_elem(P2cScalarType t, const unsigned char *p) {
  Scalar s = {.kind = kind_rank(t)};
  switch (t) {
  case P2C_BOOL: s.i = *(const bool *)p; break;
  case P2C_INT8: s.i = *(const int8_t *)p; break;
  case P2C_INT16: s.i = *(const int16_t *)p; break;
  case P2C_INT32: s.i = *(const int32_t *)p; break;
  case P2C_INT64: s.i = *(const int64_t *)p; break;
  case P2C_UINT8: s.u = *(const uint8_t *)p; break;
  case P2C_UINT16: s.u = *(const uint16_t *)p; break;
  case P2C_UINT32: s.u = *(const uint32_t *)p; break;
  case P2C_UINT64: s.u = *(const uint64_t *)p; break;
  case P2C_FLOAT32: s.f = *(const float *)p; break;
  default: s.f = *(const double *)p; break;
  }
  return s;
}

static double as_double(Scalar s) { return s.kind == 3 ? s.f : s.kind == 2 ? (double)s.u : (double)s.i; }
static int64_t as_int(Scalar s) { return s.kind == 3 ? (int64_t)s.f : s.kind == 2 ? (int64_t)s.u : s.i; }

static void store_elem(P2cScalarType t, unsigned char *p, Scalar s) {
  switch (t) {
  case P2C_BOOL: *(bool *)p = s.kind == 3 ? s.f != 0 : (s.i | (int64_t)s.u) != 0; break;
  case P2C_INT8: *(int8_t *)p = (int8_t)as_int(s); break;
  case P2C_INT16: *(int16_t *)p = (int16_t)as_int(s); break;
  case P2C_INT32: *(int32_t *)p = (int32_t)as_int(s); break;
  case P2C_INT64: *(int64_t *)p = as_int(s); break;
  case P2C_UINT8: *(uint8_t *)p = (uint8_t)as_int(s); break;
  case P2C_UINT16: *(uint16_t *)p = (uint16_t)as_int(s); break;
  case P2C_UINT32: *(uint32_t *)p = (uint32_t)as_int(s); break;
  case P2C_UINT64: *(uint64_t *)p = s.kind == 2 ? s.u : (uint64_t)as_int(s); break;
  case P2C_FLOAT32: *(float *)p = (float)as_double(s); break;
  default: *(double *)p = as_double(s); break;
  }
}

static Scalar scalar_value(const P2cValue *v) {
  Scalar s = {.kind = kind_rank(v->type)};
  if (v->type == P2C_BOOL) s.i = v->scalar.b;
  else if (s.kind == 1) s.i = v->scalar.i;
  else if (s.kind == 2) s.u = v->scalar.u;
  else s.f = v->scalar.f;
  return s;
}

/* A C-ordered copy of argument v in dtype t (a scalar becomes a 1-element array). */
static P2cStatus converted_copy(P2cCompiler *c, const P2cValue *v, P2cScalarType t, P2cHostArray *out) {
  int64_t one = 1;
  const P2cHostArray *a = &v->array;
  P2cStatus s = v->is_array ? p2c_host_array_new(c, t, a->ndim, a->shape, out)
                            : p2c_host_array_new(c, t, 1, &one, out);
  if (s != P2C_OK) return s;
  if (!v->is_array) {
    store_elem(t, out->data, scalar_value(v));
    return P2C_OK;
  }
  int64_t n = 1, idx[P2C_MAX_NDIM] = {0};
  for (int k = 0; k < a->ndim; k++) n *= a->shape[k];
  size_t size = p2c_scalar_size(t);
  for (int64_t e = 0; e < n; e++) {
    int64_t off = 0;
    for (int k = 0; k < a->ndim; k++) off += idx[k] * a->strides[k];
    store_elem(t, (unsigned char *)out->data + (size_t)e * size,
               load_elem(a->dtype, (const unsigned char *)a->data + off));
    for (int k = a->ndim; k-- > 0;) {   /* next index, C order */
      if (++idx[k] < a->shape[k]) break;
      idx[k] = 0;
    }
  }
  return P2C_OK;
}

/* ---- views ---- */

/* Argument a seen with the output's `ndim` extents, right-aligned in UFUNC_NDIM dimensions:
 * stride 0 where a is broadcast (its extent is 1, or it lacks the dimension). */
static P2cValue broadcast_view(const P2cHostArray *a, int ndim, const int64_t *shape) {
  P2cValue v = {.is_array = true, .type = a->dtype};
  v.array.dtype = a->dtype;
  v.array.ndim = UFUNC_NDIM;
  v.array.data = a->data;
  int lead = UFUNC_NDIM - ndim;
  for (int k = 0; k < UFUNC_NDIM; k++) {
    v.array.shape[k] = k < lead ? 1 : shape[k - lead];
    int ak = k - (UFUNC_NDIM - a->ndim);   /* a's own dimension, when it has this one */
    v.array.strides[k] = ak >= 0 && a->shape[ak] != 1 ? a->strides[ak] : 0;
  }
  return v;
}

typedef struct UfuncCall {
  P2cCompiler *c;
  P2cValue *views;          /* inputs, then out */
  P2cHostArray *copies;     /* converted inputs (data NULL where the input is used as it is) */
  size_t nargs;
} UfuncCall;

static void *zeroed(P2cCompiler *c, size_t bytes) {
  void *p = mem_alloc(&c->alloc, bytes);
  if (p) memset(p, 0, bytes);
  return p;
}

static void free_call(UfuncCall *u) {
  for (size_t i = 0; u->copies && i < u->nargs; i++) p2c_host_array_free(u->c, &u->copies[i]);
  if (u->copies) mem_free(&u->c->alloc, u->copies, sizeof(P2cHostArray) * (u->nargs + 1));
  if (u->views) mem_free(&u->c->alloc, u->views, sizeof(P2cValue) * (u->nargs + 1));
}

static P2cStatus make_views(UfuncCall *u, const P2cKernelInfo *k, const P2cValue *args, int ndim,
                            const int64_t *shape, const P2cHostArray *out) {
  for (size_t i = 0; i < u->nargs; i++) {
    const P2cHostArray *a = &args[i].array;
    if (!args[i].is_array || args[i].type != k->params[i].type) {
      P2cStatus s = converted_copy(u->c, &args[i], k->params[i].type, &u->copies[i]);
      if (s != P2C_OK) return s;
      a = &u->copies[i];
    }
    u->views[i] = broadcast_view(a, ndim, shape);
  }
  u->views[u->nargs] = broadcast_view(out, ndim, shape);
  return P2C_OK;
}

/* Enough blocks of UFUNC_BLOCK threads for one element each, capped (the loop strides). */
static P2cLaunchOptions ufunc_launch_options(const P2cLaunchOptions *o, int ndim, const int64_t *shape) {
  P2cLaunchOptions lo = *o;
  int64_t n = 1;
  for (int k = 0; k < ndim; k++) n *= shape[k];
  int64_t blocks = (n + UFUNC_BLOCK - 1) / UFUNC_BLOCK;
  lo.grid[0] = (uint32_t)(blocks < 1 ? 1 : blocks > UFUNC_MAX_GRID ? UFUNC_MAX_GRID : blocks);
  lo.grid[1] = lo.grid[2] = 1;
  lo.block[0] = UFUNC_BLOCK;
  lo.block[1] = lo.block[2] = 1;
  lo.shared_bytes = 0;
  return lo;
}

static P2cStatus check_ufunc_args(P2cCompiler *c, const P2cValue *args, size_t nargs) {
  for (size_t i = 0; i < nargs; i++) {
    if (!p2c_scalar_name(args[i].type)) return api_fail(c, P2C_ERR_USAGE, "argument %zu has an invalid type", i + 1);
    if (args[i].type >= P2C_COMPLEX64)
      return api_fail(c, P2C_ERR_USAGE, "argument %zu: complex ufunc arguments are not supported yet", i + 1);
    if (!args[i].is_array) continue;
    const P2cHostArray *a = &args[i].array;
    if (args[i].device_array)
      return api_fail(c, P2C_ERR_USAGE, "argument %zu: ufuncs take host arrays", i + 1);
    if (a->dtype != args[i].type || a->ndim < 0 || a->ndim > P2C_MAX_NDIM)
      return api_fail(c, P2C_ERR_USAGE, "argument %zu: malformed array description", i + 1);
    for (int k = 0; k < a->ndim; k++)
      if (a->shape[k] < 0) return api_fail(c, P2C_ERR_USAGE, "argument %zu: a negative extent", i + 1);
  }
  return P2C_OK;
}

static P2cStatus run_chosen(P2cCompiler *c, P2cModule *m, size_t ki, const P2cValue *args,
                            size_t nargs, const P2cLaunchOptions *o, P2cLaunchReport *report,
                            P2cHostArray *out) {
  P2cKernelInfo k = p2c_module_kernel(m, ki);
  int ndim;
  int64_t shape[P2C_MAX_NDIM];
  P2cStatus s = broadcast_shape(c, args, nargs, &ndim, shape);
  if (s != P2C_OK) return s;
  /* All scalars: a 1-element result, as a 1-d array (kernels take no 0-d arrays). */
  if (ndim == 0) shape[ndim++] = 1;
  s = p2c_host_array_new(c, k.params[nargs].type, ndim, shape, out);
  if (s != P2C_OK) return s;
  UfuncCall u = {c, zeroed(c, sizeof(P2cValue) * (nargs + 1)), zeroed(c, sizeof(P2cHostArray) * (nargs + 1)), nargs};
  s = u.views && u.copies ? make_views(&u, &k, args, ndim, shape, out) : api_fail(c, P2C_ERR_NOMEM, "out of memory");
  P2cLaunchOptions lo = ufunc_launch_options(o, ndim, shape);
  if (s == P2C_OK) s = p2c_module_launch(c, m, ki, u.views, nargs + 1, &lo, report);
  free_call(&u);
  if (s != P2C_OK) p2c_host_array_free(c, out);
  return s;
}

/* The checks and the run of one call on a module that holds the ufunc. */
static P2cStatus ufunc_call(P2cCompiler *c, P2cModule *m, const char *ufunc, const P2cValue *args,
                            size_t nargs, const P2cLaunchOptions *o, P2cLaunchReport *report,
                            P2cHostArray *out) {
  P2cStatus s = check_ufunc_args(c, args, nargs);
  if (s != P2C_OK) return s;
  long ki = choose_signature(m, ufunc, args, nargs);
  long first = -1;   /* the ufunc's first kernel: its arity */
  for (size_t i = 0, n = p2c_module_kernel_count(m); first < 0 && i < n; i++) {
    P2cKernelInfo k = p2c_module_kernel(m, i);
    if (k.is_ufunc && strcmp(k.python_name, ufunc) == 0) first = (long)i;
  }
  if (first < 0) return api_fail(c, P2C_ERR_USAGE, "'%s' is not a @vectorize ufunc", ufunc);
  P2cKernelInfo k0 = p2c_module_kernel(m, (size_t)first);
  if (k0.param_count != nargs + 1)
    return api_fail(c, P2C_ERR_USAGE, "ufunc '%s' takes %zu arguments, %zu given", ufunc,
                    k0.param_count - 1, nargs);
  if (ki < 0)
    return api_fail(c, P2C_ERR_USAGE, "ufunc '%s' has no signature for these argument types "
                    "(none takes them without an unsafe cast)", ufunc);
  return run_chosen(c, m, (size_t)ki, args, nargs, o, report, out);
}

P2cStatus p2c_module_ufunc_launch(P2cCompiler *c, P2cModule *m, const char *ufunc,
                                  const P2cValue *args, size_t nargs,
                                  const P2cLaunchOptions *options, P2cLaunchReport *report,
                                  P2cHostArray *out) {
  if (out) memset(out, 0, sizeof *out);
  if (!c || !m || !ufunc || !options || !out || (nargs && !args))
    return c ? api_fail(c, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  return ufunc_call(c, m, ufunc, args, nargs, options, report, out);
}

P2cStatus p2c_ufunc_launch(P2cCompiler *c, const char *filename, const char *source, size_t length,
                           const char *ufunc, const P2cValue *args, size_t nargs,
                           const P2cLaunchOptions *options, P2cLaunchReport *report,
                           P2cModule **diags, P2cHostArray *out) {
  if (diags) *diags = NULL;
  if (out) memset(out, 0, sizeof *out);
  if (!c || !ufunc || !options || !out || (nargs && !args))
    return c ? api_fail(c, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  P2cStatus s = check_ufunc_args(c, args, nargs);
  if (s != P2C_OK) return s;
  const char *kernels[1] = {ufunc};
  P2cTranslateOptions to = {kernels, 1, NULL, 0, false, false, options->checks};
  P2cModule *m = NULL;
  s = p2c_translate(c, filename, source, length, &to, &m);
  if (s == P2C_OK) s = ufunc_call(c, m, ufunc, args, nargs, options, report, out);
  if (s == P2C_ERR_SOURCE && diags) *diags = m;
  else p2c_module_delete(m);
  return s;
}
