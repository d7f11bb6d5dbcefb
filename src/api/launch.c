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
#include "util/buf.h"
#include "runtime/sim/sim.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- the signature of the arguments ---- */

/* "name(float32[::1], int64)": the signature that takes the arguments exactly, for the
 * translation (NUL-terminated; *cap receives the allocation's size). */
static char *signature_for(P2cCompiler *c, const char *kernel, const P2cValue *args, size_t n, size_t *cap) {
  char *s = NULL;
  for (int pass = 0; pass < 2; pass++) {
    size_t at = 0;
    counted_appendf(s, *cap, &at, "%s(", kernel);
    for (size_t i = 0; i < n; i++) {
      if (i) counted_appendf(s, *cap, &at, ", ");
      dispatch_put_value_type(s, *cap, &at, &args[i]);
    }
    counted_appendf(s, *cap, &at, ")");
    if (pass == 0 && !(s = mem_alloc(&c->alloc, *cap = at + 1))) return NULL;
  }
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

/* The limits of tuple types (src/typeinfer: MAX_TUPLE, MAX_TUPLE_NEST) and of names in a
 * signature (src/types/sig.c). */
enum { MAX_TUPLE_ELEMS = 256, MAX_TUPLE_DEPTH = 16, MAX_SIG_NAME = 63 };

/* A name the signature grammar reads back: an ASCII identifier of at most 63 bytes. */
static bool sig_name_ok(const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (n == 0 || n > MAX_SIG_NAME || (s[0] >= '0' && s[0] <= '9')) return false;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
      return false;
  return true;
}

static P2cStatus check_value(P2cCompiler *c, const P2cValue *v, size_t i, int depth);

/* Whether tuple v holds numbers only, in nested tuples too (no arrays, records or members). */
static bool value_is_numbers(const P2cValue *v) {
  for (size_t j = 0; j < v->elem_count; j++) {
    const P2cValue *e = &v->elems[j];
    if (e->is_array || e->type == P2C_RECORD || e->enum_class || (e->type == P2C_TUPLE && !value_is_numbers(e)))
      return false;
  }
  return true;
}

/* A tuple argument: its elements (no records: tuples hold values, records are references),
 * its size and depth, a namedtuple's names. */
static P2cStatus check_tuple(P2cCompiler *c, const P2cValue *v, size_t i, int depth) {
  if (v->is_array || (v->elem_count && !v->elems))
    return api_fail(c, P2C_ERR_USAGE, "argument %zu: malformed tuple description", i + 1);
  if (depth >= MAX_TUPLE_DEPTH || v->elem_count > MAX_TUPLE_ELEMS)
    return api_fail(c, P2C_ERR_USAGE, "argument %zu: tuples of more than %d elements or nested more than "
                    "%d deep are not supported", i + 1, MAX_TUPLE_ELEMS, MAX_TUPLE_DEPTH);
  if (v->tuple_class && (!sig_name_ok(v->tuple_class) || (v->elem_count && !v->field_names)))
    return api_fail(c, P2C_ERR_USAGE, "argument %zu: a namedtuple needs a class name and field names that "
                    "are ASCII identifiers of at most %d characters", i + 1, MAX_SIG_NAME);
  for (size_t j = 0; j < v->elem_count; j++) {
    const P2cValue *e = &v->elems[j];
    if (v->tuple_class && !sig_name_ok(v->field_names[j]))
      return api_fail(c, P2C_ERR_USAGE, "argument %zu: namedtuple field %zu is not an ASCII identifier of "
                      "at most %d characters", i + 1, j, MAX_SIG_NAME);
    if (e->type == P2C_RECORD && !e->is_array)
      return api_fail(c, P2C_ERR_USAGE, "argument %zu: a record cannot be a tuple element (records are passed "
                      "by reference; pass it as an argument of its own)", i + 1);
    P2cStatus s = check_value(c, e, i, depth + 1);
    if (s != P2C_OK) return s;
  }
  return P2C_OK;
}

/* An Enum member: its class's name, and a value of a number type (an IntEnum's an int64) or a
 * tuple of numbers. */
static P2cStatus check_enum_member(P2cCompiler *c, const P2cValue *v, size_t i) {
  if (!sig_name_ok(v->enum_class))
    return api_fail(c, P2C_ERR_USAGE, "argument %zu: an Enum member's class name must be an ASCII identifier of "
                    "at most %d characters", i + 1, MAX_SIG_NAME);
  bool numbers = v->type == P2C_TUPLE ? value_is_numbers(v) : !v->is_array && v->type != P2C_RECORD;
  if (v->enum_is_int ? v->is_array || v->type != P2C_INT64 : !numbers)
    return api_fail(c, P2C_ERR_USAGE, "argument %zu: %s", i + 1, v->enum_is_int ? "an IntEnum member's value must be an "
                    "int64" : "an Enum member's value must be a number or a tuple of numbers");
  return P2C_OK;
}

/* Argument i (or an element of its tuple, `depth` tuples down), apart from being an Enum member. */
static P2cStatus check_plain_value(P2cCompiler *c, const P2cValue *v, size_t i, int depth) {
  if (v->type == P2C_TUPLE) return check_tuple(c, v, i, depth);
  bool charseq = p2c_dtype_charseq(v->type, NULL, NULL);
  if (!p2c_scalar_name(v->type) && v->type != P2C_RECORD && !charseq)
    return api_fail(c, P2C_ERR_USAGE, "argument %zu has an invalid type", i + 1);
  if (charseq && !v->is_array)
    return api_fail(c, P2C_ERR_USAGE, "argument %zu: a character sequence is passed inside an array "
                    "(NumPy's S<n> or U<n>), not alone", i + 1);
  P2cHostArray a = dispatch_array_of(v);
  if (!v->is_array && v->type == P2C_RECORD && !record_arg_ok(&a))
    return api_fail(c, P2C_ERR_USAGE, "argument %zu: a record argument needs its record description and "
                    "memory (P2cValue.array: ndim 0, data, record)", i + 1);
  if (!v->is_array) return P2C_OK;
  if (a.dtype != v->type || a.ndim < 0 || a.ndim > P2C_MAX_NDIM)
    return api_fail(c, P2C_ERR_USAGE, "argument %zu: malformed array description", i + 1);
  if (a.dtype == P2C_RECORD && (!a.record || !a.record->fields || a.record->itemsize <= 0))
    return api_fail(c, P2C_ERR_USAGE, "argument %zu: a record array without a valid record description", i + 1);
  if (!array_extents_ok(&a))
    return api_fail(c, P2C_ERR_USAGE, "argument %zu: an array with a negative extent, or with elements and no data", i + 1);
  return P2C_OK;
}

static P2cStatus check_value(P2cCompiler *c, const P2cValue *v, size_t i, int depth) {
  P2cStatus s = check_plain_value(c, v, i, depth);
  return s == P2C_OK && v->enum_class ? check_enum_member(c, v, i) : s;
}

static P2cStatus check_args(P2cCompiler *c, const P2cValue *args, size_t n) {
  for (size_t i = 0; i < n; i++) {
    P2cStatus s = check_value(c, &args[i], i, 0);
    if (s != P2C_OK) return s;
  }
  return P2C_OK;
}

/* ---- argument packing (the launch ABI) ---- */

static P2cStatus add_leaves(P2cCompiler *c, const P2cParam *p, const P2cValue *v, size_t arg, size_t offset,
                            LaunchLeaves *out) {
  for (size_t i = 0; p->type == P2C_TUPLE && i < p->elem_count; i++) {
    P2cStatus s = add_leaves(c, &p->elems[i], &v->elems[i], arg, offset + p->elems[i].offset, out);
    if (s != P2C_OK) return s;
  }
  if (p->type == P2C_TUPLE) return P2C_OK;
  if (out->count == out->cap) {
    size_t cap = out->cap ? 2 * out->cap : 16;
    LaunchLeaf *items = mem_realloc(&c->alloc, out->items, out->cap * sizeof *items, cap * sizeof *items);
    if (!items) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
    out->items = items;
    out->cap = cap;
  }
  out->items[out->count++] = (LaunchLeaf){p, v, arg, offset};
  return P2C_OK;
}

P2cStatus launch_leaves(P2cCompiler *c, const P2cKernelInfo *k, const P2cValue *args, LaunchLeaves *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < k->param_count; i++) {
    P2cStatus s = add_leaves(c, &k->params[i], &args[i], i, 0, out);
    if (s != P2C_OK) return s;
  }
  return P2C_OK;
}

void launch_free_leaves(P2cCompiler *c, LaunchLeaves *l) {
  mem_free(&c->alloc, l->items, l->cap * sizeof *l->items);
  memset(l, 0, sizeof *l);
}

P2cStatus launch_check_fit(P2cCompiler *c, const P2cKernelInfo *k, const P2cValue *args) {
  for (size_t i = 0; i < k->param_count; i++)
    if (!dispatch_takes_as_converted(&k->params[i], &args[i]))
      return api_fail(c, P2C_ERR_USAGE, "argument %zu ('%s') does not match the kernel's specialization %s",
                      i + 1, k->params[i].name, k->signature);
  return P2C_OK;
}

/* A scalar, an array (data pointer, extents, strides) or a record (its address) at dst. */
static void pack_leaf(const P2cValue *v, unsigned char *dst) {
  if (v->type == P2C_RECORD && !v->is_array) {   /* by reference: the record's address */
    P2cHostArray a = dispatch_array_of(v);
    memcpy(dst, &a.data, sizeof(void *));
  } else if (v->is_array) {
    P2cHostArray a = dispatch_array_of(v);
    int n = a.ndim;
    memcpy(dst, &a.data, sizeof(void *));
    memcpy(dst + 8, a.shape, 8 * (size_t)n);
    memcpy(dst + 8 + 8 * (size_t)n, a.strides, 8 * (size_t)n);
  } else {
    p2c_scalar_pack(v, dst);
  }
}

size_t p2c_scalar_pack(const P2cValue *v, void *out) {
  unsigned char *dst = out;
  if (!v || !out || v->is_array || !p2c_scalar_name(v->type)) return 0;
  if (v->type == P2C_FLOAT32) {
    float f = (float)v->scalar.f;
    memcpy(dst, &f, sizeof f);
  } else if (v->type == P2C_FLOAT64) {
    memcpy(dst, &v->scalar.f, sizeof(double));
  } else if (v->type == P2C_FLOAT16) {
    uint16_t h = p2c_float16_bits(v->scalar.f);
    memcpy(dst, &h, sizeof h);
  } else if (v->type == P2C_COMPLEX64) {
    float parts[2] = {(float)v->scalar.c[0], (float)v->scalar.c[1]};
    memcpy(dst, parts, sizeof parts);
  } else if (v->type == P2C_COMPLEX128) {
    memcpy(dst, v->scalar.c, 2 * sizeof(double));
  } else if (v->type == P2C_BOOL) {
    memcpy(dst, &v->scalar.b, sizeof(bool));
  } else {
    /* Integers are stored little-endian in their width: the low bytes of the 64-bit value. */
    uint64_t u = v->scalar.u;
    memcpy(dst, &u, p2c_scalar_size(v->type));
  }
  return p2c_scalar_size(v->type);
}

size_t p2c_scalar_unpack(P2cScalarType t, const void *in, P2cValue *out) {
  if (!in || !out || !p2c_scalar_name(t) || t == P2C_RECORD || t == P2C_TUPLE) return 0;
  P2cValue v = {.type = t};
  size_t n = p2c_scalar_size(t);
  if (t == P2C_FLOAT32) {
    float f;
    memcpy(&f, in, sizeof f);
    v.scalar.f = f;
  } else if (t == P2C_FLOAT64) {
    memcpy(&v.scalar.f, in, sizeof(double));
  } else if (t == P2C_FLOAT16) {
    uint16_t h;
    memcpy(&h, in, sizeof h);
    v.scalar.f = p2c_float16_value(h);
  } else if (t == P2C_COMPLEX64) {
    float parts[2];
    memcpy(parts, in, sizeof parts);
    v.scalar.c[0] = parts[0], v.scalar.c[1] = parts[1];
  } else if (t == P2C_COMPLEX128) {
    memcpy(v.scalar.c, in, 2 * sizeof(double));
  } else if (t == P2C_BOOL) {
    v.scalar.b = *(const unsigned char *)in != 0;
  } else {   /* integers: little-endian in their width, sign-extended for the signed ones */
    uint64_t u = 0;
    memcpy(&u, in, n);
    bool is_signed = t == P2C_INT8 || t == P2C_INT16 || t == P2C_INT32 || t == P2C_INT64;
    if (is_signed && n < 8 && (u >> (8 * n - 1) & 1)) u |= ~(uint64_t)0 << (8 * n);
    v.scalar.u = u;
  }
  *out = v;
  return n;
}

/* Bytes of argument i's slot: its parameter's size, rounded up to 16 (every slot 16-aligned). */
static size_t slot_bytes(const P2cParam *p) { return (p->size + 15) / 16 * 16; }

P2cStatus launch_pack_args(P2cCompiler *c, const P2cKernelInfo *k, const LaunchLeaves *leaves, Packed *p) {
  p->bytes = 16;
  for (size_t i = 0; i < k->param_count; i++) p->bytes += slot_bytes(&k->params[i]);
  p->ptrs = mem_alloc(&c->alloc, sizeof(void *) * (k->param_count + 1));
  p->storage = mem_alloc(&c->alloc, p->bytes);
  if (!p->ptrs || !p->storage) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  memset(p->storage, 0, p->bytes);
  size_t at = 0;
  for (size_t i = 0; i < k->param_count; i++) {
    p->ptrs[i] = p->storage + at;
    at += slot_bytes(&k->params[i]);
  }
  for (size_t j = 0; j < leaves->count; j++) {
    const LaunchLeaf *l = &leaves->items[j];
    pack_leaf(l->value, (unsigned char *)p->ptrs[l->arg] + l->offset);
  }
  return P2C_OK;
}

void launch_free_packed(P2cCompiler *c, const P2cKernelInfo *k, Packed *p) {
  mem_free(&c->alloc, p->ptrs, sizeof(void *) * (k->param_count + 1));
  mem_free(&c->alloc, p->storage, p->bytes);
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
                        .interrupt = c->interrupt, .interrupt_userdata = c->interrupt_userdata,
                        .python_lines = m->cg.python_line, .python_line_count = m->cg.nlines,
                        .python_file = m->comp.file};
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
  if (!launch_may_write(param, v)) return false;
  if (v->is_array) return array_span(&v->array, lo, hi);
  *lo = (uintptr_t)v->array.data;
  *hi = *lo + p2c_dtype_size(P2C_RECORD, v->array.record);
  return true;
}

/* --sanitize: whether every array argument of a parameter the kernel only reads lies apart from
 * all memory the kernel may store to through its arguments, so that no thread writes what the
 * former hold and the module need not check reads of them (P2C_SAN_READ_INPUT). The arguments'
 * leaves: an array in a tuple is one the kernel may store to (P2cParam.elems). */
static bool inputs_apart(const LaunchLeaves *leaves) {
  for (size_t i = 0; i < leaves->count; i++) {
    const LaunchLeaf *in = &leaves->items[i];
    uintptr_t lo, hi;
    if (!in->value->is_array || in->param->written || !array_span(&in->value->array, &lo, &hi)) continue;
    for (size_t j = 0; j < leaves->count; j++) {
      uintptr_t wlo, whi;
      const LaunchLeaf *out = &leaves->items[j];
      if (written_span(out->param, out->value, &wlo, &whi) && lo < whi && wlo < hi) return false;
    }
  }
  return true;
}

uint32_t p2c_sim_max_cooperative_blocks(uint32_t block_threads) {
  return sim_max_cooperative_blocks(block_threads);
}

uint32_t p2c_sim_max_block_threads(void) { return sim_max_block_threads(); }

/* How the simulator runs kernel k (P2cLaunchReport.sim_path): a kernel with barriers as regions
 * where the code generator made them (docs/simulator.md), else as fibers; the rest as loops over
 * threads. */
static const char *sim_path(const SimModule *sm, const P2cKernelInfo *k) {
  if (!k->uses_barrier) return "loops";
  return sim_kernel_has_regions(sm, k->symbol) ? "regions" : "fibers";
}

static P2cStatus run_sim(P2cCompiler *c, P2cModule *m, const P2cKernelInfo *k, const LaunchLeaves *leaves,
                         Packed *p, const P2cLaunchOptions *o, P2cLaunchReport *r) {
  SimModule *sm = NULL;
  P2cStatus s = sim_loaded(c, m, o, r, &sm);
  if (s != P2C_OK) return s;
  int repeat = o->repeat > 1 ? o->repeat : 1;
  double *times = mem_alloc(&c->alloc, sizeof(double) * (size_t)repeat);
  char err[512] = "";
  P2cBoundsRecord bounds = {0};
  SimFaultReport fault = {0, 0};
  SimSanReport *san = m->sanitize ? mem_alloc(&c->alloc, sizeof *san) : NULL;
  if (m->sanitize && !san) s = P2C_ERR_NOMEM;
  const char *path = sim_path(sm, k);
  if (r) r->sim_path = path;
  SimLaunch l = {.bounds = &bounds, .fault = &fault, .sanitize = san, .sanitize_inputs_apart = san && inputs_apart(leaves),
                 .symbol = k->symbol,
                 .grid = {o->grid[0] ? o->grid[0] : 1, o->grid[1] ? o->grid[1] : 1, o->grid[2] ? o->grid[2] : 1},
                 .block = {o->block[0] ? o->block[0] : 1, o->block[1] ? o->block[1] : 1, o->block[2] ? o->block[2] : 1},
                 .dynamic_shared_bytes = o->shared_bytes, .args = p->ptrs,
                 .uses_barrier = k->uses_barrier, .cooperative = k->cooperative,
                 .errbuf = err, .errbuf_size = sizeof err,
                 .interrupt = c->interrupt, .interrupt_userdata = c->interrupt_userdata};
  for (int i = 0; s == P2C_OK && times && i < repeat; i++) {
    double t1 = now_ms();
    s = sim_launch(sm, &l);
    times[i] = now_ms() - t1;
  }
  if (!times || s == P2C_ERR_NOMEM) s = api_fail(c, P2C_ERR_NOMEM, "out of memory");
  else if (s == P2C_ERR_SANITIZE) api_fail_sanitize(c, san, m->comp.file, k->python_name);
  else if (s == P2C_ERR_BOUNDS) api_fail_bounds(c, &bounds, m->comp.file, k->python_name, k->host);
  else if (s == P2C_ERR_ILLEGAL_ADDRESS) api_fail_fault(c, err, m->comp.file, k->python_name, fault.python_line);
  else if (s != P2C_OK) api_fail(c, s, "simulator: %s", err);
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
                               const char *kernel, const char *sig, const P2cTranslateOptions *given,
                               P2cModule **m) {
  const char *kernels[1] = {kernel};
  const char *sigs[1] = {sig};
  P2cTranslateOptions o = {kernels, 1, sigs, 1, given && given->line_directives, true,
                           given ? given->checks : (P2cChecks){0}};
  return p2c_translate(c, file, src, len, &o, m);
}

/* The module's kernel that takes `args`, moved to index 0, chosen by the one dispatcher
 * (dispatch.c): exactly, for a kernel specialized from these arguments, or with Numba's
 * conversions among its decorator's signatures (Numba compiles no new specialization of such a
 * kernel); a usage error with the dispatcher's message when none takes them. */
static P2cStatus pick_specialization(P2cCompiler *c, P2cModule *m, const P2cValue *args, size_t n) {
  size_t count = p2c_module_kernel_count(m);
  if (count == 0) return api_fail(c, P2C_ERR_INTERNAL, "no specialization was made");
  const P2cKernelInfo **specs = mem_alloc(&c->alloc, sizeof *specs * count);
  if (!specs) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  for (size_t j = 0; j < count; j++) specs[j] = &m->kernels[j];
  char why[1024];
  P2cMatchPolicy policy = m->kernels[0].declared ? P2C_MATCH_CONVERT : P2C_MATCH_EXACT;
  int j = p2c_match_specialization(specs, count, args, n, policy, why, sizeof why);
  mem_free(&c->alloc, specs, sizeof *specs * count);
  if (j < 0) return api_fail(c, P2C_ERR_USAGE, "%s", why);
  P2cKernelInfo first = m->kernels[0];
  m->kernels[0] = m->kernels[j];
  m->kernels[j] = first;
  return P2C_OK;
}

P2cStatus p2c_specialize(P2cCompiler *c, const char *filename, const char *source, size_t length,
                         const char *kernel, const P2cValue *args, size_t nargs, P2cModule **out) {
  return p2c_specialize_with(c, filename, source, length, kernel, args, nargs, NULL, out);
}

P2cStatus p2c_specialize_with(P2cCompiler *c, const char *filename, const char *source, size_t length,
                              const char *kernel, const P2cValue *args, size_t nargs,
                              const P2cTranslateOptions *options, P2cModule **out) {
  if (!out) return P2C_ERR_USAGE;
  *out = NULL;
  if (!c || !kernel || (nargs && !args)) return c ? api_fail(c, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  P2cStatus s = check_args(c, args, nargs);
  if (s != P2C_OK) return s;
  size_t sig_cap = 0;
  char *sig = signature_for(c, kernel, args, nargs, &sig_cap);
  if (!sig) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  c->specializing = true;
  c->specialize_nargs = nargs;
  s = translate_for(c, filename, source, length, kernel, sig, options, out);
  c->specializing = false;
  mem_free(&c->alloc, sig, sig_cap);
  if (s == P2C_OK) s = pick_specialization(c, *out, args, nargs);
  if (s != P2C_OK && s != P2C_ERR_SOURCE) {
    p2c_module_delete(*out);
    *out = NULL;
  }
  return s;
}

/* The values a list of n values holds, counting each tuple's elements (and theirs). */
static size_t values_in(const P2cValue *v, size_t n) {
  size_t count = n;
  for (size_t i = 0; i < n; i++)
    if (v[i].type == P2C_TUPLE) count += values_in(v[i].elems, v[i].elem_count);
  return count;
}

/* Converts value *v (a copy, in `block`) to parameter p as the dispatcher converts for a kernel
 * whose decorator gives signatures (p2c_value_convert; an IntEnum member given to an integer
 * parameter is its int), a tuple element by element into copies taken from block[*used...];
 * arrays, records and Enum members of p's class as they are (what does not fit p is left for
 * launch_check_fit to refuse). False with the message naming parameter `name` in why. */
static bool convert_value(P2cValue *v, const P2cParam *p, const char *name, P2cValue *block, size_t *used,
                          char *why, size_t why_cap) {
  if (v->type == P2C_TUPLE) {
    if (p->type != P2C_TUPLE || p->elem_count != v->elem_count) return true;   /* refused by the fit check */
    P2cValue *elems = block + *used;
    *used += v->elem_count;
    memcpy(elems, v->elems, sizeof *elems * v->elem_count);
    v->elems = elems;
    for (size_t i = 0; i < v->elem_count; i++)
      if (!convert_value(&elems[i], &p->elems[i], name, block, used, why, why_cap)) return false;
    return true;
  }
  if (v->is_array || p->is_array || v->type == P2C_RECORD || p->enum_class) return true;
  v->enum_class = NULL;
  v->enum_is_int = false;
  return p2c_value_convert(v, p->type, name, why, why_cap);
}

/* A copy of the arguments converted to kernel k's parameters (convert_value), tuples' elements
 * too, as Numba's dispatcher converts them (numba-cuda's _prepare_args, element by element).
 * *out is one block from the compiler's allocator, of *count values; a usage error when a value
 * is refused. */
static P2cStatus converted_args(P2cCompiler *c, const P2cKernelInfo *k, const P2cValue *args, size_t nargs,
                                P2cValue **out, size_t *count) {
  *count = values_in(args, nargs) + 1;
  *out = mem_alloc(&c->alloc, sizeof **out * *count);
  if (!*out) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  memcpy(*out, args, sizeof **out * nargs);
  size_t used = nargs;
  char why[256];
  for (size_t i = 0; i < nargs; i++)
    if (!convert_value(&(*out)[i], &k->params[i], k->params[i].name, *out, &used, why, sizeof why)) {
      mem_free(&c->alloc, *out, sizeof **out * *count);
      *out = NULL;
      return api_fail(c, P2C_ERR_USAGE, "%s", why);
    }
  return P2C_OK;
}

/* A block over the kernel's launch bounds, refused on the simulator as a GPU's driver refuses
 * it (gpu_check_launch: the same words, CUDA_ERROR_INVALID_VALUE), so both devices fail alike. */
static P2cStatus check_launch_bound(P2cCompiler *c, const P2cKernelInfo *k, const P2cLaunchOptions *o) {
  uint64_t threads = 1;
  for (int i = 0; i < 3; i++) threads *= o->block[i] ? o->block[i] : 1;
  if (!k->launch_bound_threads || threads <= k->launch_bound_threads) return P2C_OK;
  return api_fail(c, P2C_ERR_CUDA, "cannot launch kernel '%s': block (%u,%u,%u) has %llu threads; "
                  "kernel '%s' can run at most %u per block (its launch bounds limit it): "
                  "CUDA_ERROR_INVALID_VALUE", k->python_name, o->block[0] ? o->block[0] : 1,
                  o->block[1] ? o->block[1] : 1, o->block[2] ? o->block[2] : 1,
                  (unsigned long long)threads, k->python_name, k->launch_bound_threads);
}

/* The launch of kernel k with arguments of its parameters' types. */
static P2cStatus launch_converted(P2cCompiler *c, P2cModule *m, const P2cKernelInfo *kp, const P2cValue *args,
                                  const P2cLaunchOptions *o, P2cLaunchReport *r) {
  P2cKernelInfo k = *kp;
  P2cStatus s;
  r->device = m->sanitize ? P2C_DEVICE_SIM : choose_device(o, r);
  if (r->device == P2C_DEVICE_GPU) return run_gpu(c, m, &k, args, o, r);
  LaunchLeaves leaves = {0};
  Packed p = {0};
  s = launch_check_fit(c, &k, args);
  if (s == P2C_OK) s = check_launch_bound(c, &k, o);
  if (s == P2C_OK) s = launch_leaves(c, &k, args, &leaves);
  for (size_t j = 0; s == P2C_OK && j < leaves.count; j++)
    if (leaves.items[j].value->is_array && leaves.items[j].value->device_array)
      s = api_fail(c, P2C_ERR_USAGE, "argument '%s' %s a device array: it needs the GPU",
                   k.params[leaves.items[j].arg].name,
                   leaves.items[j].param == &k.params[leaves.items[j].arg] ? "is" : "holds");
  if (s == P2C_OK) s = launch_pack_args(c, &k, &leaves, &p);
  if (s == P2C_OK) s = run_sim(c, m, &k, &leaves, &p, o, r);
  launch_free_packed(c, &k, &p);
  launch_free_leaves(c, &leaves);
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
  if (k.exported)
    return api_fail(c, P2C_ERR_USAGE, "'%s' is a device function, not a kernel: kernels call it; it "
                    "cannot be launched", k.python_name);
  if (k.param_count != nargs)
    return api_fail(c, P2C_ERR_USAGE, "kernel '%s' takes %zu arguments, %zu given", k.python_name,
                    k.param_count, nargs);
  P2cStatus s = check_args(c, args, nargs);
  if (s != P2C_OK) return s;
  if (m->sanitize && (o->device == P2C_DEVICE_GPU || o->gpu))
    return api_fail(c, P2C_ERR_USAGE, "--sanitize runs on the simulator only (--device sim)");
  if (!k.declared) return launch_converted(c, m, &k, args, o, r);
  P2cValue *converted;
  size_t count;
  s = converted_args(c, &k, args, nargs, &converted, &count);
  if (s != P2C_OK) return s;
  s = launch_converted(c, m, &k, converted, o, r);
  mem_free(&c->alloc, converted, sizeof *converted * count);
  return s;
}


P2cStatus p2c_launch(P2cCompiler *c, const char *filename, const char *source, size_t length,
                     const char *kernel, const P2cValue *args, size_t nargs,
                     const P2cLaunchOptions *options, P2cLaunchReport *report, P2cModule **diags) {
  if (diags) *diags = NULL;
  P2cModule *m = NULL;
  double t0 = now_ms();
  P2cTranslateOptions to = {.checks = options ? options->checks : (P2cChecks){0}};
  P2cStatus s = p2c_specialize_with(c, filename, source, length, kernel, args, nargs, &to, &m);
  if (report) report->compile_ms = now_ms() - t0;
  if (s == P2C_OK) s = p2c_module_launch(c, m, 0, args, nargs, options, report);
  if (s == P2C_ERR_SOURCE && diags) *diags = m;
  else p2c_module_delete(m);
  return s;
}

/* ---- @jit functions called from the host ---- */

void p2c_host_block_free(void *block) { free(block); }

/* A host entry's kernel run once, on one simulated thread (the simulator's host build of the
 * module), with `args` of its parameters' types and, after them, the bytes its result goes to. */
static P2cStatus call_converted(P2cCompiler *c, P2cModule *m, P2cKernelInfo k, const P2cValue *args, size_t nargs,
                                const P2cLaunchOptions *given, void *result) {
  P2cValue *all = mem_alloc(&c->alloc, sizeof *all * (nargs + 1));
  if (!all) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  if (nargs) memcpy(all, args, sizeof *all * nargs);
  if (k.result) {
    P2cHostArray a = {.dtype = P2C_UINT8, .ndim = 1, .shape = {(int64_t)k.result_size}, .strides = {1},
                      .data = result};
    all[nargs] = (P2cValue){.is_array = true, .type = P2C_UINT8, .array = a};
    k.param_count = nargs + 1;
  }
  P2cLaunchOptions o = {.device = P2C_DEVICE_SIM, .grid = {1, 1, 1}, .block = {1, 1, 1},
                        .no_cache = given && given->no_cache};
  P2cLaunchReport r = {0};
  bool ran;
  P2cStatus s = host_tier_call(c, m, &k, all, o.no_cache, &ran);
  if (!ran) s = launch_converted(c, m, &k, all, &o, &r);
  mem_free(&c->alloc, all, sizeof *all * (nargs + 1));
  return s;
}

P2cStatus p2c_module_call(P2cCompiler *c, P2cModule *m, size_t index, const P2cValue *args, size_t nargs,
                          const P2cLaunchOptions *o, void *result, size_t result_size) {
  if (!c || !m || (nargs && !args)) return c ? api_fail(c, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  if (index >= p2c_module_kernel_count(m)) return api_fail(c, P2C_ERR_USAGE, "no function %zu in the module", index);
  P2cKernelInfo k = p2c_module_kernel(m, index);
  if (!k.host)
    return api_fail(c, P2C_ERR_USAGE, "'%s' is a kernel, not a @jit function: launch it with a grid and a block",
                    k.python_name);
  if (k.param_count != nargs)
    return api_fail(c, P2C_ERR_USAGE, "function '%s' takes %zu arguments, %zu given", k.python_name,
                    k.param_count, nargs);
  if (k.result && (!result || result_size < k.result_size))
    return api_fail(c, P2C_ERR_USAGE, "function '%s' returns %zu bytes: the result buffer is too small",
                    k.python_name, k.result_size);
  P2cStatus s = check_args(c, args, nargs);
  if (s != P2C_OK || !k.declared) return s != P2C_OK ? s : call_converted(c, m, k, args, nargs, o, result);
  P2cValue *converted;
  size_t count;
  s = converted_args(c, &k, args, nargs, &converted, &count);
  if (s != P2C_OK) return s;
  s = call_converted(c, m, k, converted, nargs, o, result);
  mem_free(&c->alloc, converted, sizeof *converted * count);
  return s;
}
