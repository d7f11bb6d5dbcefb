/* p2c_ufunc_launch: calling a @vectorize(target='cuda') ufunc, as Numba's CUDA ufunc dispatcher
 * does. The library's one dispatcher chooses the signature (P2C_MATCH_UFUNC: arrays of exactly
 * its types, scalars converted to them), NumPy broadcasting gives the output's shape, the output
 * is allocated here, and the kernel runs over broadcast views (docs/generated-code.md) with a
 * grid chosen from the size. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"

enum { UFUNC_NDIM = P2C_MAX_NDIM, UFUNC_BLOCK = 256, UFUNC_MAX_GRID = 4096, UFUNC_MAX_SIGS = 256 };

/* ---- choosing the signature ---- */

/* A ufunc's specializations in the module, in decorator order: their infos and kernel indices. */
typedef struct UfuncSigs {
  P2cKernelInfo infos[UFUNC_MAX_SIGS];
  const P2cKernelInfo *specs[UFUNC_MAX_SIGS];
  size_t index[UFUNC_MAX_SIGS];
  size_t count;
} UfuncSigs;

static void ufunc_sigs(const P2cModule *m, const char *ufunc, UfuncSigs *u) {
  u->count = 0;
  for (size_t i = 0, n = p2c_module_kernel_count(m); i < n && u->count < UFUNC_MAX_SIGS; i++) {
    P2cKernelInfo *k = &u->infos[u->count];
    *k = p2c_module_kernel(m, i);
    if (!k->is_ufunc || strcmp(k->python_name, ufunc) != 0) continue;
    u->specs[u->count] = k;
    u->index[u->count++] = i;
  }
}

/* The dispatcher's choice among the ufunc's signatures: a kernel index, or -1 with why. */
static long choose_among(const UfuncSigs *u, const P2cValue *args, size_t nargs, char *why, size_t why_cap) {
  int j = p2c_match_specialization(u->specs, u->count, args, nargs, P2C_MATCH_UFUNC, why, why_cap);
  return j < 0 ? -1 : (long)u->index[j];
}

long p2c_module_ufunc_choose(const P2cModule *m, const char *ufunc, const P2cValue *args, size_t nargs,
                             char *why, size_t why_cap) {
  if (why && why_cap) why[0] = '\0';
  if (!m || !ufunc || (nargs && !args)) return -1;
  UfuncSigs u;
  ufunc_sigs(m, ufunc, &u);
  return choose_among(&u, args, nargs, why, why_cap);
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

/* ---- converting scalar inputs ---- */

/* A scalar input as a 1-element array of the chosen signature's type t, as Numba passes it
 * (np.array([x], dtype=t)): numbers convert by value, integers wrap to the width, and a float
 * for an integer type is truncated as NumPy casts it, when it is finite and in the int64 range
 * (outside it NumPy's result is the machine's; refused here, with the value). */
static P2cStatus scalar_input(P2cCompiler *c, const P2cValue *v, P2cScalarType t, size_t arg,
                              P2cHostArray *out) {
  P2cValue x = *v;
  bool to_int = t >= P2C_INT8 && t <= P2C_UINT64;
  if (to_int && (x.type == P2C_FLOAT16 || x.type == P2C_FLOAT32 || x.type == P2C_FLOAT64)) {
    double d = trunc(x.scalar.f);
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
      return api_fail(c, P2C_ERR_USAGE, "argument %zu: %g cannot be converted to %s", arg, x.scalar.f,
                      p2c_scalar_name(t));
    x.type = P2C_INT64;
    x.scalar.i = (int64_t)d;
  }
  char name[24], why[256];
  snprintf(name, sizeof name, "%zu", arg);
  if (!p2c_value_convert(&x, t, name, why, sizeof why)) return api_fail(c, P2C_ERR_USAGE, "%s", why);
  int64_t one = 1;
  P2cStatus s = p2c_host_array_new(c, t, 1, &one, out);
  if (s == P2C_OK) p2c_scalar_pack(&x, out->data);
  return s;
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
  P2cHostArray *copies;     /* scalar inputs as arrays (data NULL for the array inputs) */
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
    if (!args[i].is_array) {
      P2cStatus s = scalar_input(u->c, &args[i], k->params[i].type, i + 1, &u->copies[i]);
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
  UfuncSigs u;
  ufunc_sigs(m, ufunc, &u);
  if (u.count == 0) return api_fail(c, P2C_ERR_USAGE, "'%s' is not a @vectorize ufunc", ufunc);
  if (u.specs[0]->param_count != nargs + 1)   /* the first signature's arity is the ufunc's */
    return api_fail(c, P2C_ERR_USAGE, "ufunc '%s' takes %zu arguments, %zu given", ufunc,
                    u.specs[0]->param_count - 1, nargs);
  char why[1024];
  long ki = choose_among(&u, args, nargs, why, sizeof why);
  if (ki < 0) return api_fail(c, P2C_ERR_USAGE, "%s", why);
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
