/* The dispatcher's GPU path: p2c_module_launch on P2C_DEVICE_GPU (and AUTO with a device).
 *
 *   module  the specialization's CUDA C, compiled to CUBIN for the device (through the compile
 *           cache) and loaded, or taken from the device's table when it was loaded before;
 *   copy in every host array is copied to device memory. Arrays whose host memory overlaps
 *           (the same array passed twice, two views of one buffer) share one device buffer that
 *           mirrors the union of their bytes, so that writes through one are seen through the
 *           other and the copy back cannot undo them. An array is copied as the span of bytes
 *           its strides reach, and keeps its strides: any layout arrives exactly as on the host;
 *   launch  the arguments are packed as the simulator packs them, with device addresses, and
 *           the kernel is launched `repeat` times, each between two CUDA events;
 *   wait    after each phase the host waits for its end event, between the options' wait
 *           callbacks (the Python package releases the GIL there);
 *   copy out every host array's buffer that the kernel may have written (launch_may_write: the
 *           P2cParam.written of any array in it, or a record passed by reference) is copied
 *           back, over the host memory it came from; a buffer of arrays the kernel only reads
 *           is not (their host memory may be read-only).
 * Device arrays (P2cValue.device_array) are passed as they are. Copies, kernels and the events
 * that time them are on the options' stream (NULL: the legacy default stream).
 *
 * With --check-bounds (runtime/bounds.h) the module's failure record p2c_bounds_report is
 * zeroed before each launch and read after it: a claimed record ends the run with
 * P2C_ERR_BOUNDS and the diagnostic bounds_format writes, and nothing is copied back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/gpu_api.h"
#include "runtime/bounds.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Host bytes [lo, hi) that one device buffer mirrors. */
typedef struct Region {
  uintptr_t lo, hi;
  P2cBuffer *buffer;
  bool written;   /* an array in it is a parameter the kernel may store to */
} Region;

typedef struct GpuRun {
  P2cCompiler *c;
  P2cDevice *dev;
  bool own_dev;
  const P2cKernelInfo *k;
  LaunchLeaves leaves;   /* the arguments' scalars, arrays and records (tuples' elements) */
  Region *regions;
  size_t region_count;
  P2cDeviceArray *views; /* per leaf: the device copy of a host array */
  P2cValue *values;      /* per leaf: the value as the kernel gets it */
  P2cEvent *start, *stop;
  P2cStream *stream;    /* the launch's (NULL: the legacy default stream) */
  const P2cLaunchOptions *o;
  const char *file;     /* the Python file, for diagnostics */
  uint64_t bounds;      /* device address of p2c_bounds_report; 0: not checked */
} GpuRun;

/* Copies the device's last error into the compiler's, with what was being done. */
static P2cStatus fail_from_device(GpuRun *g, P2cStatus s, const char *doing) {
  return api_fail(g->c, s, "%s%s%s", doing, doing[0] ? ": " : "", p2c_device_last_error(g->dev));
}

/* ---- regions of host memory ---- */

/* Whether argument v is host memory to copy in and out: a host array, or a record passed by
 * reference (its memory is P2cValue.array, of ndim 0). */
static bool in_host_memory(const P2cValue *v) {
  return (v->is_array || v->type == P2C_RECORD) && !v->device_array;
}

static bool host_span(const P2cValue *v, uintptr_t *lo, uintptr_t *hi, size_t *offset) {
  size_t bytes;
  const P2cHostArray *a = &v->array;
  if (!gpu_array_span((int64_t)p2c_dtype_size(a->dtype, a->record), a->ndim, a->shape, a->strides, &bytes, offset))
    return false;
  *lo = (uintptr_t)a->data - *offset;
  *hi = *lo + bytes;
  return true;
}

static int cmp_region(const void *a, const void *b) {
  uintptr_t x = ((const Region *)a)->lo, y = ((const Region *)b)->lo;
  return x < y ? -1 : x > y;
}

/* The host arrays' spans, sorted and merged where they overlap. */
static P2cStatus find_regions(GpuRun *g) {
  g->region_count = 0;
  for (size_t i = 0; i < g->leaves.count; i++) {
    const LaunchLeaf *l = &g->leaves.items[i];
    uintptr_t lo, hi;
    size_t offset;
    if (!in_host_memory(l->value)) continue;
    if (!host_span(l->value, &lo, &hi, &offset))
      return api_fail(g->c, P2C_ERR_USAGE, "argument '%s': the array's size overflows",
                      g->k->params[l->arg].name);
    if (hi > lo)
      g->regions[g->region_count++] = (Region){lo, hi, NULL, launch_may_write(l->param, l->value)};
  }
  qsort(g->regions, g->region_count, sizeof *g->regions, cmp_region);
  size_t n = 0;
  for (size_t i = 0; i < g->region_count; i++) {
    if (n > 0 && g->regions[i].lo < g->regions[n - 1].hi) {
      if (g->regions[i].hi > g->regions[n - 1].hi) g->regions[n - 1].hi = g->regions[i].hi;
      g->regions[n - 1].written |= g->regions[i].written;
    } else {
      g->regions[n++] = g->regions[i];
    }
  }
  g->region_count = n;
  return P2C_OK;
}

static const Region *region_of(const GpuRun *g, uintptr_t lo) {
  for (size_t i = 0; i < g->region_count; i++)
    if (lo >= g->regions[i].lo && lo < g->regions[i].hi) return &g->regions[i];
  return NULL;
}

/* The device view of host array leaf i: same shape and strides, data in its region. */
static void make_view(GpuRun *g, size_t i) {
  const P2cValue *v = g->leaves.items[i].value;
  const P2cHostArray *a = &v->array;
  P2cDeviceArray *d = &g->views[i];
  uintptr_t lo = 0, hi = 0;
  size_t offset = 0;
  memset(d, 0, sizeof *d);
  d->dtype = a->dtype;
  d->record = a->record;
  d->ndim = a->ndim;
  memcpy(d->shape, a->shape, sizeof d->shape);
  memcpy(d->strides, a->strides, sizeof d->strides);
  host_span(v, &lo, &hi, &offset);
  const Region *r = hi > lo ? region_of(g, lo) : NULL;
  d->data = r ? p2c_buffer_address(r->buffer) + (lo - r->lo) + offset : 0;
}

/* ---- phases ----
 * A copy to the host's pageable memory on a stream returns when it is done, so copy_out starts
 * after the kernel's end was waited for (launch_repeatedly), and waits only for the copies. */

static P2cStatus begin_timing(GpuRun *g) {
  P2cStatus s = p2c_event_record(g->start, g->stream);
  return s == P2C_OK ? s : fail_from_device(g, s, "timing");
}

/* The host's wait for the event, between the options' wait callbacks (P2cLaunchOptions.wait):
 * where the launch waits for its kernels and copies (a copy back to pageable host memory
 * still returns only when it is done, which is the copy's own time). */
static P2cStatus wait_for(GpuRun *g, P2cEvent *e) {
  if (g->o->wait) g->o->wait(g->o->wait_userdata, true);
  P2cStatus s = p2c_event_synchronize(e);
  if (g->o->wait) g->o->wait(g->o->wait_userdata, false);
  return s;
}

static P2cStatus end_timing(GpuRun *g, double *ms, const char *doing) {
  float t = 0;
  P2cStatus s = p2c_event_record(g->stop, g->stream);
  if (s == P2C_OK) s = wait_for(g, g->stop);
  if (s == P2C_OK) s = p2c_event_elapsed_ms(g->start, g->stop, &t);
  if (s != P2C_OK) return fail_from_device(g, s, doing);
  *ms = t;
  return P2C_OK;
}

static P2cStatus copy_in(GpuRun *g, P2cLaunchReport *r) {
  P2cStatus s = P2C_OK;
  for (size_t i = 0; s == P2C_OK && i < g->region_count; i++)
    s = p2c_buffer_new(g->dev, g->regions[i].hi - g->regions[i].lo, &g->regions[i].buffer);
  if (s != P2C_OK) return fail_from_device(g, s, "device memory for the arguments");
  s = begin_timing(g);
  for (size_t i = 0; s == P2C_OK && i < g->region_count; i++) {
    Region *rg = &g->regions[i];
    s = p2c_buffer_write(rg->buffer, 0, (const void *)rg->lo, rg->hi - rg->lo, g->stream);
    if (s != P2C_OK) return fail_from_device(g, s, "copying the arguments to the device");
  }
  return s == P2C_OK ? end_timing(g, &r->h2d_ms, "copying the arguments to the device") : s;
}

static P2cStatus copy_out(GpuRun *g, P2cLaunchReport *r) {
  P2cStatus s = begin_timing(g);
  for (size_t i = 0; s == P2C_OK && i < g->region_count; i++) {
    Region *rg = &g->regions[i];
    if (!rg->written) continue;
    s = p2c_buffer_read(rg->buffer, 0, (void *)rg->lo, rg->hi - rg->lo, g->stream);
    if (s != P2C_OK) return fail_from_device(g, s, "copying the arrays back from the device");
  }
  return s == P2C_OK ? end_timing(g, &r->d2h_ms, "copying the arrays back from the device") : s;
}

/* The leaves as the kernel takes them: host arrays replaced by their device views. */
static P2cStatus device_values(GpuRun *g) {
  for (size_t i = 0; i < g->leaves.count; i++) {
    LaunchLeaf *l = &g->leaves.items[i];
    if (!in_host_memory(l->value)) continue;
    make_view(g, i);
    g->values[i] = *l->value;
    g->values[i].device_array = &g->views[i];
    l->value = &g->values[i];
  }
  return P2C_OK;
}

/* ---- bounds checking ---- */

/* The failure record of a module compiled with bounds checks. */
static P2cStatus find_bounds_record(GpuRun *g, P2cGpuModule *gm) {
  size_t size = 0;
  P2cStatus s = p2c_gpu_module_global(gm, P2C_BOUNDS_SYMBOL, &g->bounds, &size);
  if (s != P2C_OK) return fail_from_device(g, P2C_ERR_INTERNAL, "a module compiled with --check-bounds");
  if (size < sizeof(P2cBoundsRecord))
    return api_fail(g->c, P2C_ERR_INTERNAL, "%s is %zu bytes, not %zu", P2C_BOUNDS_SYMBOL, size,
                    sizeof(P2cBoundsRecord));
  return P2C_OK;
}

static P2cStatus clear_bounds(GpuRun *g) {
  if (!g->bounds) return P2C_OK;
  P2cStatus s = gpu_address_zero(g->dev, g->bounds, sizeof(P2cBoundsRecord));
  return s == P2C_OK ? s : fail_from_device(g, s, "clearing the bounds-check record");
}

/* After a launch: P2C_ERR_BOUNDS with the diagnostic when a thread claimed the record. */
static P2cStatus check_bounds(GpuRun *g) {
  P2cBoundsRecord rec;
  if (!g->bounds) return P2C_OK;
  P2cStatus s = gpu_address_read(g->dev, g->bounds, &rec, sizeof rec);
  if (s != P2C_OK) return fail_from_device(g, s, "reading the bounds-check record");
  if (rec.claimed == 0) return P2C_OK;
  return api_fail_bounds(g->c, &rec, g->file, g->k->python_name, g->k->host);
}

/* Compiles or finds the module and its kernel; the time counts as compilation. */
static P2cStatus load_kernel(GpuRun *g, P2cModule *m, const P2cLaunchOptions *o,
                             P2cLaunchReport *r, P2cGpuKernel **kernel) {
  size_t len;
  const char *text = p2c_module_cuda(m, &len);
  const char *arch = o->arch ? o->arch : g->dev->arch;
  size_t before = g->dev->loaded_count;
  P2cGpuModule *gm = NULL;
  double t0 = now_ms();
  P2cStatus s = gpu_loaded_module(g->dev, text, len, m->comp.file, arch, m->nvrtc_options,
                                  m->nvrtc_option_count, o->no_cache, &gm);
  double t1 = now_ms();
  if (s == P2C_OK) s = p2c_gpu_module_kernel(gm, g->k->symbol, kernel);
  if (s != P2C_OK) return fail_from_device(g, s, "");
  /* Found in the device's table (loaded by an earlier launch) counts as a cache hit too, and
   * costs neither compilation nor loading; the table look-up counts as compilation. */
  bool loaded_now = g->dev->loaded_count != before;
  r->cache_hit = gm->cache_hit || !loaded_now;
  r->compile_ms += loaded_now ? gm->compile_ms : t1 - t0;
  r->load_ms = (loaded_now ? gm->load_ms : 0) + (now_ms() - t1);
  return m->check_bounds ? find_bounds_record(g, gm) : P2C_OK;
}

static P2cStatus launch_repeatedly(GpuRun *g, P2cGpuKernel *kernel, void **params,
                                   const P2cLaunchOptions *o, double *times, int repeat) {
  P2cGpuLaunch cfg = {.shared_bytes = o->shared_bytes, .stream = g->stream,
                      .cooperative = g->k->cooperative};
  memcpy(cfg.grid, o->grid, sizeof cfg.grid);
  memcpy(cfg.block, o->block, sizeof cfg.block);
  char doing[300];
  snprintf(doing, sizeof doing, "kernel '%s' failed on the device", g->k->python_name);
  for (int i = 0; i < repeat; i++) {
    P2cStatus s = clear_bounds(g);
    if (s == P2C_OK) s = begin_timing(g);
    if (s != P2C_OK) return s;
    s = p2c_gpu_kernel_launch(kernel, &cfg, params);
    if (s != P2C_OK) return fail_from_device(g, s, "");
    s = end_timing(g, &times[i], doing);
    if (s == P2C_OK) s = check_bounds(g);
    if (s != P2C_OK) return s;
  }
  return P2C_OK;
}

/* ---- the whole launch ---- */

static P2cStatus run_alloc(GpuRun *g) {
  size_t n = g->leaves.count ? g->leaves.count : 1;
  g->regions = mem_alloc(&g->c->alloc, n * sizeof *g->regions);
  g->views = mem_alloc(&g->c->alloc, n * sizeof *g->views);
  g->values = mem_alloc(&g->c->alloc, n * sizeof *g->values);
  if (!g->regions || !g->views || !g->values) return api_fail(g->c, P2C_ERR_NOMEM, "out of memory");
  memset(g->regions, 0, n * sizeof *g->regions);
  P2cStatus s = p2c_event_new(g->dev, &g->start);
  if (s == P2C_OK) s = p2c_event_new(g->dev, &g->stop);
  return s == P2C_OK ? s : fail_from_device(g, s, "");
}

static void run_free(GpuRun *g) {
  size_t n = g->leaves.count ? g->leaves.count : 1;
  for (size_t i = 0; g->regions && i < g->region_count; i++) p2c_buffer_delete(g->regions[i].buffer);
  mem_free(&g->c->alloc, g->regions, n * sizeof *g->regions);
  mem_free(&g->c->alloc, g->views, n * sizeof *g->views);
  mem_free(&g->c->alloc, g->values, n * sizeof *g->values);
  p2c_event_delete(g->start);
  p2c_event_delete(g->stop);
  if (g->own_dev) p2c_device_delete(g->dev);
}

static P2cStatus check_device_arrays(GpuRun *g) {
  if (g->stream && g->stream->device != g->dev)
    return api_fail(g->c, P2C_ERR_USAGE, "the launch's stream belongs to another device");
  for (size_t i = 0; i < g->leaves.count; i++) {
    const P2cValue *v = g->leaves.items[i].value;
    const P2cDeviceArray *d = v->device_array;
    if (v->is_array && d && d->buffer && d->buffer->device != g->dev)
      return api_fail(g->c, P2C_ERR_USAGE, "argument '%s' is a device array of another device",
                      g->k->params[g->leaves.items[i].arg].name);
  }
  return P2C_OK;
}

P2cStatus launch_on_gpu(P2cCompiler *c, P2cModule *m, const P2cKernelInfo *k,
                        const P2cValue *args, const P2cLaunchOptions *o, P2cLaunchReport *r,
                        double *times, int repeat) {
  GpuRun g = {.c = c, .dev = o->gpu, .k = k, .stream = o->stream, .o = o, .file = m->comp.file};
  P2cStatus s = launch_check_fit(c, k, args);
  if (s == P2C_OK) s = launch_leaves(c, k, args, &g.leaves);
  if (s == P2C_OK && !g.dev) {
    s = p2c_device_open(c, 0, &g.dev);
    g.own_dev = s == P2C_OK;
  }
  P2cGpuKernel *kernel = NULL;
  Packed p = {0};
  if (s == P2C_OK) s = check_device_arrays(&g);
  if (s == P2C_OK) s = load_kernel(&g, m, o, r, &kernel);
  if (s == P2C_OK) s = run_alloc(&g);
  if (s == P2C_OK) s = find_regions(&g);
  if (s == P2C_OK) s = copy_in(&g, r);
  if (s == P2C_OK) s = device_values(&g);
  if (s == P2C_OK) s = launch_pack_args(c, k, &g.leaves, &p);
  if (s == P2C_OK) s = launch_repeatedly(&g, kernel, p.ptrs, o, times, repeat);
  if (s == P2C_OK) s = copy_out(&g, r);
  if (p.ptrs) launch_free_packed(c, k, &p);
  if (g.dev) run_free(&g);
  launch_free_leaves(c, &g.leaves);
  return s;
}
