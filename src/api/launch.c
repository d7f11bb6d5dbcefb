/* p2c_launch: Numba's dispatcher, in C. The argument values decide the kernel's types (an
 * array's layout comes from its strides), the kernel is translated for exactly that signature,
 * compiled (the simulator and NVRTC both cache what they compile), and launched with the
 * arguments packed as docs/generated-code.md says: on the simulator, or on the GPU, where host
 * arrays are copied to device memory before the launch and back after it (docs/runtime.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "api/gpu_api.h"
#include "runtime/bounds.h"
#include "runtime/sim/sanitize.h"
#include "runtime/cuda/cudrv.h"
#include "runtime/sim/sim.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- the signature of the arguments ---- */

/* The array an argument describes, wherever it lives: a device array is described by the same
 * fields, with its device address as the data pointer. */
static P2cHostArray array_of(const P2cValue *v) {
  if (!v->device_array) return v->array;
  const P2cDeviceArray *d = v->device_array;
  P2cHostArray a = {.dtype = d->dtype, .ndim = d->ndim, .data = (void *)(uintptr_t)d->data, .record = d->record};
  memcpy(a.shape, d->shape, sizeof a.shape);
  memcpy(a.strides, d->strides, sizeof a.strides);
  return a;
}

/* Whether the strides are those of a contiguous array in C (or Fortran) order. Extents of 1
 * may have any stride, as NumPy's flags allow. */
static bool contiguous(const P2cHostArray *a, bool c_order) {
  int64_t expect = (int64_t)p2c_dtype_size(a->dtype, a->record);
  for (int j = 0; j < a->ndim; j++) {
    int k = c_order ? a->ndim - 1 - j : j;
    if (a->shape[k] != 1 && a->strides[k] != expect) return false;
    expect *= a->shape[k];
  }
  return true;
}

/* 'C' or 'F' when the array is contiguous in that order, else 'A'. */
static char layout_of(const P2cHostArray *a) {
  return contiguous(a, true) ? 'C' : contiguous(a, false) ? 'F' : 'A';
}

/* Numba's name of a dtype: "float32", or a record's "Record(...)" (truncated to cap). */
static size_t put_dtype(char *buf, size_t cap, P2cScalarType t, const P2cRecord *r) {
  if (t == P2C_RECORD) {
    size_t n = p2c_record_name(r, buf, cap);
    return n < cap ? n : cap ? cap - 1 : 0;
  }
  return (size_t)snprintf(buf, cap, "%s", p2c_scalar_name(t));
}

static void put_array_type(char *buf, size_t cap, const P2cHostArray *a) {
  char layout = layout_of(a);
  size_t n = put_dtype(buf, cap, a->dtype, a->record);
  if (n < cap) n += (size_t)snprintf(buf + n, cap - n, "[");
  for (int k = 0; k < a->ndim && n < cap; k++) {
    bool contig = (layout == 'C' && k == a->ndim - 1) || (layout == 'F' && k == 0);
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", k ? ", " : "", contig ? "::1" : ":");
  }
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

/* Whether parameter p takes argument v: the same kind and type; an array of p's ndim, laid out
 * as p's layout requires ('A' takes any). */
static bool param_takes(const P2cParam *p, const P2cValue *v) {
  if (p->is_array != v->is_array || p->type != v->type) return false;
  P2cHostArray a = array_of(v);
  if (p->type == P2C_RECORD && !p2c_record_equal(p->record, a.record)) return false;
  if (!v->is_array) return true;
  return a.ndim == p->ndim && (p->layout == 'A' || contiguous(&a, p->layout == 'C'));
}

static void put_param_type(char *buf, size_t cap, const P2cParam *p) {
  size_t n = put_dtype(buf, cap, p->type, p->record);
  for (int k = 0; p->is_array && k < p->ndim && n < cap; k++) {
    bool contig = (p->layout == 'C' && k == p->ndim - 1) || (p->layout == 'F' && k == 0);
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", k ? ", " : "[", contig ? "::1" : ":");
  }
  if (p->is_array && n < cap) snprintf(buf + n, cap - n, "]");
}

/* "name(float32[::1], int64)" for the --sig-like option of the translation. */
static size_t arg_type_cap(const P2cValue *v) {
  P2cHostArray a = array_of(v);
  return 64 + (v->type == P2C_RECORD ? p2c_record_name(a.record, NULL, 0) : 0);
}

static size_t signature_cap(const char *kernel, const P2cValue *args, size_t n) {
  size_t cap = strlen(kernel) + 64;
  for (size_t i = 0; i < n; i++) cap += arg_type_cap(&args[i]);
  return cap;
}

static char *signature_for(P2cCompiler *c, const char *kernel, const P2cValue *args, size_t n) {
  size_t cap = signature_cap(kernel, args, n);
  char *s = mem_alloc(&c->alloc, cap);
  if (!s) return NULL;
  size_t len = (size_t)snprintf(s, cap, "%s(", kernel);
  for (size_t i = 0; i < n; i++) {
    if (i) len += (size_t)snprintf(s + len, cap - len, ", ");
    P2cHostArray a = array_of(&args[i]);
    if (args[i].is_array) put_array_type(s + len, cap - len, &a);
    else put_dtype(s + len, cap - len, args[i].type, a.record);
    len += strlen(s + len);
  }
  snprintf(s + len, cap - len, ")");
  return s;
}

/* Extents are never negative, and an array with elements has memory behind it. */
static bool array_extents_ok(const P2cHostArray *a) {
  bool empty = false;
  for (int k = 0; k < a->ndim; k++) {
    if (a->shape[k] < 0) return false;
    empty |= a->shape[k] == 0;
  }
  return empty || a->data != NULL;
}

/* A record passed as a scalar (Numba passes it by reference): its memory and description. */
static bool record_arg_ok(const P2cHostArray *a) {
  return a->dtype == P2C_RECORD && a->ndim == 0 && a->data && a->record && a->record->fields &&
         a->record->itemsize > 0;
}

static P2cStatus check_args(P2cCompiler *c, const P2cValue *args, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const P2cValue *v = &args[i];
    if (!p2c_scalar_name(v->type) && v->type != P2C_RECORD)
      return api_fail(c, P2C_ERR_USAGE, "argument %zu has an invalid type", i + 1);
    if (!v->is_array && (v->type == P2C_COMPLEX64 || v->type == P2C_COMPLEX128))
      return api_fail(c, P2C_ERR_USAGE, "argument %zu: %s scalar arguments are not supported (pass an array)",
                      i + 1, p2c_scalar_name(v->type));
    P2cHostArray a = array_of(v);
    if (!v->is_array && v->type == P2C_RECORD && !record_arg_ok(&a))
      return api_fail(c, P2C_ERR_USAGE, "argument %zu: a record argument needs its record description and "
                      "memory (P2cValue.array: ndim 0, data, record)", i + 1);
    if (!v->is_array) continue;
    if (a.dtype != v->type || a.ndim < 0 || a.ndim > P2C_MAX_NDIM)
      return api_fail(c, P2C_ERR_USAGE, "argument %zu: malformed array description", i + 1);
    if (a.dtype == P2C_RECORD && (!a.record || !a.record->fields || a.record->itemsize <= 0))
      return api_fail(c, P2C_ERR_USAGE, "argument %zu: a record array without a valid record description", i + 1);
    if (a.ndim == 0)
      return api_fail(c, P2C_ERR_USAGE, "argument %zu: 0-d arrays are not supported as kernel arguments", i + 1);
    if (!array_extents_ok(&a))
      return api_fail(c, P2C_ERR_USAGE, "argument %zu: an array with a negative extent, or with elements and no data", i + 1);
  }
  return P2C_OK;
}

/* ---- argument packing (the launch ABI) ---- */

/* Each argument gets a 16-byte aligned slot: a scalar of its parameter's type, or an array's
 * data pointer, extents and strides. */
P2cStatus launch_pack_args(P2cCompiler *c, const P2cKernelInfo *k, const P2cValue *args, Packed *p) {
  for (size_t i = 0; i < k->param_count; i++)
    if (!param_takes(&k->params[i], &args[i]))
      return api_fail(c, P2C_ERR_USAGE, "argument %zu ('%s') does not match the kernel's specialization %s",
                      i + 1, k->params[i].name, k->signature);
  size_t slot = 16 + 16 * P2C_MAX_NDIM;
  p->ptrs = mem_alloc(&c->alloc, sizeof(void *) * (k->param_count + 1));
  p->storage = mem_alloc(&c->alloc, slot * (k->param_count + 1));
  if (!p->ptrs || !p->storage) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < k->param_count; i++) {
    unsigned char *s = p->storage + i * slot;
    const P2cValue *v = &args[i];
    p->ptrs[i] = s;
    if (v->type == P2C_RECORD && !v->is_array) {   /* by reference: the record's address */
      P2cHostArray a = array_of(v);
      memcpy(s, &a.data, sizeof(void *));
    } else if (v->is_array) {
      P2cHostArray a = array_of(v);
      int n = a.ndim;
      memcpy(s, &a.data, sizeof(void *));
      memcpy(s + 8, a.shape, 8 * (size_t)n);
      memcpy(s + 8 + 8 * (size_t)n, a.strides, 8 * (size_t)n);
    } else if (v->type == P2C_FLOAT32) {
      float f = (float)v->scalar.f;
      memcpy(s, &f, sizeof f);
    } else if (v->type == P2C_FLOAT64) {
      memcpy(s, &v->scalar.f, sizeof(double));
    } else if (v->type == P2C_FLOAT16) {
      uint16_t h = p2c_float16_bits(v->scalar.f);
      memcpy(s, &h, sizeof h);
    } else if (v->type == P2C_BOOL) {
      memcpy(s, &v->scalar.b, sizeof(bool));
    } else {
      /* Integers are stored little-endian in their width: the low bytes of the 64-bit value. */
      uint64_t u = v->scalar.u;
      memcpy(s, &u, p2c_scalar_size(v->type));
    }
  }
  return P2C_OK;
}

void launch_free_packed(P2cCompiler *c, const P2cKernelInfo *k, Packed *p) {
  size_t slot = 16 + 16 * P2C_MAX_NDIM;
  mem_free(&c->alloc, p->ptrs, sizeof(void *) * (k->param_count + 1));
  mem_free(&c->alloc, p->storage, slot * (k->param_count + 1));
}

/* ---- devices ---- */

/* AUTO: the GPU when a driver and a device are there (or the caller gave a device), else the
 * simulator; the report's message says which was chosen and why. */
static P2cDeviceKind choose_device(const P2cLaunchOptions *o, P2cLaunchReport *r) {
  if (o->device != P2C_DEVICE_AUTO) return o->device;
  if (o->gpu) return P2C_DEVICE_GPU;
  const CuDriver *drv;
  char err[400];
  int count = 0;
  P2cStatus s = cudrv_load(&drv, err, sizeof err);
  if (s == P2C_OK) s = cudrv_init(drv, &count, err, sizeof err);
  if (s == P2C_OK && count > 0) {
    snprintf(r->message, sizeof r->message, "running on the GPU (CUDA device 0)");
    return P2C_DEVICE_GPU;
  }
  snprintf(r->message, sizeof r->message, "%.200s; running on the simulator", err);
  return P2C_DEVICE_SIM;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Min and median of the kernel times. */
static void summarize_times(double *times, int n, P2cLaunchReport *r) {
  qsort(times, (size_t)n, sizeof *times, cmp_double);
  r->kernel_ms_min = times[0];
  r->kernel_ms_median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

/* The module's simulator code, compiled (or read from the cache) and loaded at its first
 * launch and kept on the module for the next ones. */
static P2cStatus sim_loaded(P2cCompiler *c, P2cModule *m, const P2cLaunchOptions *o,
                            P2cLaunchReport *r, SimModule **out) {
  if (m->sim) {
    *out = m->sim;
    r->cache_hit = true;
    return P2C_OK;
  }
  size_t len;
  const char *text = p2c_module_cuda(m, &len);
  SimLoadRequest req = {.source = text, .source_len = len, .no_cache = o->no_cache, .allocator = &m->alloc,
                        .interrupt = c->interrupt, .interrupt_userdata = c->interrupt_userdata};
  SimModule *sm = NULL;
  double t0 = now_ms();
  P2cStatus s = sim_module_load(&req, &sm);
  r->compile_ms += now_ms() - t0;
  if (s != P2C_OK) {
    api_fail(c, s, "simulator: %s%s%s", sm ? sim_module_error(sm) : "cannot load the module",
             sm && sim_module_log(sm)[0] ? "\n" : "", sm ? sim_module_log(sm) : "");
    sim_module_delete(sm);
    return s;
  }
  r->cache_hit = sim_module_cache_hit(sm);
  *out = m->sim = sm;
  return P2C_OK;
}

/* --sanitize: the last error is one line per finding (as many as fit), then the summary. */
static P2cStatus sanitize_fail(P2cCompiler *c, const P2cModule *m, const P2cKernelInfo *k,
                               const SimSanReport *rep) {
  char line[600], summary[600];
  size_t len = 0, size = sizeof c->last_error;
  sim_san_summary(rep, k->python_name, summary, sizeof summary);
  c->last_error[0] = '\0';
  for (size_t i = 0; i < rep->count; i++) {
    sim_san_format(&rep->findings[i], m->comp.file, k->python_name, line, sizeof line);
    size_t n = strlen(line);
    if (len + n + 1 + strlen(summary) + 1 >= size) break;
    memcpy(c->last_error + len, line, n);
    len += n;
    c->last_error[len++] = '\n';
  }
  snprintf(c->last_error + len, size - len, "%s", summary);
  return P2C_ERR_SANITIZE;
}

/* The bytes an array's elements span, [*lo, *hi); false for an array without elements. */
static bool array_span(const P2cHostArray *a, uintptr_t *lo, uintptr_t *hi) {
  intptr_t first = 0, last = 0;
  for (int d = 0; d < a->ndim; d++) {
    if (a->shape[d] == 0) return false;
    intptr_t reach = (intptr_t)((a->shape[d] - 1) * a->strides[d]);
    if (reach < 0) first += reach;
    else last += reach;
  }
  *lo = (uintptr_t)a->data + (uintptr_t)first;
  *hi = (uintptr_t)a->data + (uintptr_t)last + p2c_dtype_size(a->dtype, a->record);
  return true;
}

/* The memory argument `v` lets the kernel store to, [*lo, *hi): an array of a parameter it may
 * store to (P2cParam.written), or a record passed by reference (whose fields it may assign);
 * false for anything else. */
static bool written_span(const P2cParam *param, const P2cValue *v, uintptr_t *lo, uintptr_t *hi) {
  if (v->is_array) return param->written && array_span(&v->array, lo, hi);
  if (v->type != P2C_RECORD) return false;
  *lo = (uintptr_t)v->array.data;
  *hi = *lo + p2c_dtype_size(P2C_RECORD, v->array.record);
  return true;
}

/* --sanitize: whether every array argument of a parameter the kernel only reads lies apart from
 * all memory the kernel may store to through its arguments, so that no thread writes what the
 * former hold and the module need not check reads of them (P2C_SAN_READ_INPUT). */
static bool inputs_apart(const P2cKernelInfo *k, const P2cValue *args) {
  for (size_t i = 0; i < k->param_count; i++) {
    uintptr_t lo, hi;
    if (!args[i].is_array || k->params[i].written || !array_span(&args[i].array, &lo, &hi)) continue;
    for (size_t j = 0; j < k->param_count; j++) {
      uintptr_t wlo, whi;
      if (written_span(&k->params[j], &args[j], &wlo, &whi) && lo < whi && wlo < hi) return false;
    }
  }
  return true;
}

static P2cStatus run_sim(P2cCompiler *c, P2cModule *m, const P2cKernelInfo *k, const P2cValue *args,
                         Packed *p, const P2cLaunchOptions *o, P2cLaunchReport *r) {
  SimModule *sm = NULL;
  P2cStatus s = sim_loaded(c, m, o, r, &sm);
  if (s != P2C_OK) return s;
  int repeat = o->repeat > 1 ? o->repeat : 1;
  double *times = mem_alloc(&c->alloc, sizeof(double) * (size_t)repeat);
  char err[512] = "";
  P2cBoundsRecord bounds = {0};
  SimSanReport *san = m->sanitize ? mem_alloc(&c->alloc, sizeof *san) : NULL;
  if (m->sanitize && !san) s = P2C_ERR_NOMEM;
  SimLaunch l = {.bounds = &bounds, .sanitize = san, .sanitize_inputs_apart = san && inputs_apart(k, args),
                 .symbol = k->symbol,
                 .grid = {o->grid[0] ? o->grid[0] : 1, o->grid[1] ? o->grid[1] : 1, o->grid[2] ? o->grid[2] : 1},
                 .block = {o->block[0] ? o->block[0] : 1, o->block[1] ? o->block[1] : 1, o->block[2] ? o->block[2] : 1},
                 .dynamic_shared_bytes = o->shared_bytes, .args = p->ptrs,
                 .uses_barrier = k->uses_barrier, .errbuf = err, .errbuf_size = sizeof err,
                 .interrupt = c->interrupt, .interrupt_userdata = c->interrupt_userdata};
  for (int i = 0; s == P2C_OK && times && i < repeat; i++) {
    double t1 = now_ms();
    s = sim_launch(sm, &l);
    times[i] = now_ms() - t1;
  }
  if (!times || s == P2C_ERR_NOMEM) s = api_fail(c, P2C_ERR_NOMEM, "out of memory");
  else if (s == P2C_ERR_SANITIZE) sanitize_fail(c, m, k, san);
  else if (s == P2C_ERR_BOUNDS) {
    bounds_format(&bounds, m->comp.file, k->python_name, err, sizeof err);
    api_fail(c, s, "%s", err);
  } else if (s != P2C_OK) api_fail(c, s, "simulator: %s", err);
  else summarize_times(times, repeat, r);
  mem_free(&c->alloc, times, sizeof(double) * (size_t)repeat);
  if (san) mem_free(&c->alloc, san, sizeof *san);
  return s;
}

/* The GPU path (launch_gpu.c) with the kernel times summarized as on the simulator. */
static P2cStatus run_gpu(P2cCompiler *c, P2cModule *m, const P2cKernelInfo *k, const P2cValue *args,
                         const P2cLaunchOptions *o, P2cLaunchReport *r) {
  int repeat = o->repeat > 1 ? o->repeat : 1;
  double *times = mem_alloc(&c->alloc, sizeof(double) * (size_t)repeat);
  if (!times) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  P2cStatus s = launch_on_gpu(c, m, k, args, o, r, times, repeat);
  if (s == P2C_OK) summarize_times(times, repeat, r);
  mem_free(&c->alloc, times, sizeof(double) * (size_t)repeat);
  return s;
}

/* ---- the dispatcher ---- */

static P2cStatus translate_for(P2cCompiler *c, const char *file, const char *src, size_t len,
                               const char *kernel, const char *sig, P2cModule **m) {
  const char *kernels[1] = {kernel};
  const char *sigs[1] = {sig};
  P2cTranslateOptions o = {kernels, 1, sigs, 1, false, true};
  return p2c_translate(c, file, src, len, &o, m);
}

/* The module's kernel that takes `args`, moved to index 0; a usage error naming the first
 * argument that its first signature does not take when there is none (Numba compiles no new
 * specialization of a kernel whose decorator gives signatures). */
static P2cStatus pick_specialization(P2cCompiler *c, P2cModule *m, const P2cValue *args, size_t n) {
  size_t count = p2c_module_kernel_count(m);
  for (size_t j = 0; j < count; j++) {
    const P2cKernelInfo *k = &m->kernels[j];
    size_t i = 0;
    while (i < n && i < k->param_count && param_takes(&k->params[i], &args[i])) i++;
    if (i < n || k->param_count != n) continue;
    P2cKernelInfo first = m->kernels[0];
    m->kernels[0] = *k;
    m->kernels[j] = first;
    return P2C_OK;
  }
  if (count == 0) return api_fail(c, P2C_ERR_INTERNAL, "no specialization was made");
  const P2cKernelInfo *k = &m->kernels[0];
  size_t i = 0;
  while (i + 1 < n && param_takes(&k->params[i], &args[i])) i++;
  char want[64], given[64];
  P2cHostArray a = array_of(&args[i]);
  put_param_type(want, sizeof want, &k->params[i]);
  if (args[i].is_array) put_array_type(given, sizeof given, &a);
  else snprintf(given, sizeof given, "%s", p2c_scalar_name(args[i].type));
  return api_fail(c, P2C_ERR_USAGE, "argument %zu ('%s') of '%s' is %s, but the kernel is specialized "
                  "for %s (signature %s%s)", i + 1, k->params[i].name, k->python_name, given, want,
                  k->signature, count > 1 ? ", and no other signature takes these arguments" : "");
}

P2cStatus p2c_specialize(P2cCompiler *c, const char *filename, const char *source, size_t length,
                         const char *kernel, const P2cValue *args, size_t nargs, P2cModule **out) {
  if (!out) return P2C_ERR_USAGE;
  *out = NULL;
  if (!c || !kernel || (nargs && !args)) return c ? api_fail(c, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  P2cStatus s = check_args(c, args, nargs);
  if (s != P2C_OK) return s;
  char *sig = signature_for(c, kernel, args, nargs);
  if (!sig) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  c->specializing = true;
  c->specialize_nargs = nargs;
  s = translate_for(c, filename, source, length, kernel, sig, out);
  c->specializing = false;
  mem_free(&c->alloc, sig, signature_cap(kernel, args, nargs));
  if (s == P2C_OK) s = pick_specialization(c, *out, args, nargs);
  if (s != P2C_OK && s != P2C_ERR_SOURCE) {
    p2c_module_delete(*out);
    *out = NULL;
  }
  return s;
}

P2cStatus p2c_module_launch(P2cCompiler *c, P2cModule *m, size_t kernel_index, const P2cValue *args,
                            size_t nargs, const P2cLaunchOptions *o, P2cLaunchReport *report) {
  P2cLaunchReport local;
  P2cLaunchReport *r = report ? report : &local;
  double compile_ms = r->compile_ms;
  memset(r, 0, sizeof *r);
  r->compile_ms = compile_ms;
  if (!c || !m || !o || (nargs && !args)) return c ? api_fail(c, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  if (kernel_index >= p2c_module_kernel_count(m)) return api_fail(c, P2C_ERR_USAGE, "no kernel %zu in the module", kernel_index);
  P2cKernelInfo k = p2c_module_kernel(m, kernel_index);
  if (k.param_count != nargs)
    return api_fail(c, P2C_ERR_USAGE, "kernel '%s' takes %zu arguments, %zu given", k.python_name,
                    k.param_count, nargs);
  P2cStatus s = check_args(c, args, nargs);
  if (s != P2C_OK) return s;
  if (m->sanitize && (o->device == P2C_DEVICE_GPU || o->gpu))
    return api_fail(c, P2C_ERR_USAGE, "--sanitize runs on the simulator only (--device sim)");
  r->device = m->sanitize ? P2C_DEVICE_SIM : choose_device(o, r);
  if (r->device == P2C_DEVICE_GPU) return run_gpu(c, m, &k, args, o, r);
  for (size_t i = 0; i < nargs; i++)
    if (args[i].is_array && args[i].device_array)
      return api_fail(c, P2C_ERR_USAGE, "argument '%s' is a device array: it needs the GPU",
                      k.params[i].name);
  Packed p = {0};
  s = launch_pack_args(c, &k, args, &p);
  if (s == P2C_OK) s = run_sim(c, m, &k, args, &p, o, r);
  launch_free_packed(c, &k, &p);
  return s;
}

P2cStatus p2c_launch(P2cCompiler *c, const char *filename, const char *source, size_t length,
                     const char *kernel, const P2cValue *args, size_t nargs,
                     const P2cLaunchOptions *options, P2cLaunchReport *report, P2cModule **diags) {
  if (diags) *diags = NULL;
  P2cModule *m = NULL;
  double t0 = now_ms();
  P2cStatus s = p2c_specialize(c, filename, source, length, kernel, args, nargs, &m);
  if (report) report->compile_ms = now_ms() - t0;
  if (s == P2C_OK) s = p2c_module_launch(c, m, 0, args, nargs, options, report);
  if (s == P2C_ERR_SOURCE && diags) *diags = m;
  else p2c_module_delete(m);
  return s;
}
