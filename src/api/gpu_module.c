/* Modules and kernels on the GPU in the public API: loading PTX or CUBIN, compiling CUDA C (hand
 * written, or translated from Python) with NVRTC through the compile cache, looking up kernels
 * and globals, launching; and the device's table of modules that p2c_launch reuses.
 *
 * Everything is compiled to CUBIN for the device's own architecture: a CUBIN loads without the
 * driver's PTX JIT (milliseconds per module), and a CUBIN from a CUDA 13 NVRTC loads on any CUDA
 * 13 driver, where PTX from a newer NVRTC than the driver would be refused. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api/gpu_api.h"
#include "runtime/cuda/nvrtc.h"
#include "runtime/cuda/rtc_cache.h"

#define ERR(d) (d)->last_error, sizeof (d)->last_error

/* ---- Modules -------------------------------------------------------------------------------- */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Joins NVRTC's log and the JIT's info log into the module's log. */
static bool set_log(P2cGpuModule *m, const char *nvrtc_log, const char *jit_log) {
  size_t a = strlen(nvrtc_log), b = strlen(jit_log);
  m->log_size = a + b + 2;
  m->log = mem_alloc(&m->device->alloc, m->log_size);
  if (!m->log) return false;
  snprintf(m->log, m->log_size, "%s%s%s", nvrtc_log, a && b ? "\n" : "", jit_log);
  return true;
}

/* Loads an image into a new module object. */
static P2cStatus load_image(P2cDevice *d, const void *image, size_t size, const char *what,
                            const char *nvrtc_log, P2cGpuModule **out) {
  char info[GPU_JIT_LOG_BYTES];
  *out = NULL;
  P2cGpuModule *m = mem_alloc(&d->alloc, sizeof *m);
  if (!m) return gpu_fail(d, P2C_ERR_NOMEM, "out of memory");
  memset(m, 0, sizeof *m);
  m->device = d;
  snprintf(m->what, sizeof m->what, "%s", what);
  P2cStatus s = gpu_module_load(&d->gpu, image, size, what, &m->module, info, sizeof info, ERR(d));
  if (s == P2C_OK && !set_log(m, nvrtc_log, info)) s = gpu_fail(d, P2C_ERR_NOMEM, "out of memory");
  if (s != P2C_OK) {
    p2c_gpu_module_delete(m);
    return s;
  }
  *out = m;
  return P2C_OK;
}

P2cStatus p2c_gpu_module_load(P2cDevice *d, const void *image, size_t size, P2cGpuModule **out) {
  if (out) *out = NULL;
  if (!d || !out || !image || size == 0)
    return d ? gpu_fail(d, P2C_ERR_USAGE, "missing argument or empty image") : P2C_ERR_USAGE;
  return load_image(d, image, size, "the image", "", out);
}

typedef struct CompileJob {
  const char *source, *name, *arch;
  const char *const *options;
  size_t option_count;
  bool no_cache;
} CompileJob;

/* Hands the module's CUDA C to the driver stand-in, the one driver with the hook (cudrv.h). */
static P2cStatus attach_source(P2cDevice *d, P2cGpuModule *m, const char *source) {
  P2cStatus status = P2C_OK;
  const CuDriver *drv = d->gpu.drv;
  if (!drv->p2cStandinAttachSource) return P2C_OK;
  GpuScope scope; /* the module is found in the current context, as every module call does */
  status = gpu_enter(&d->gpu, &scope, ERR(d));
  if (status != P2C_OK) return status;
  CU_CHECK(drv, p2cStandinAttachSource(m->module, source, strlen(source)), d->last_error,
           sizeof d->last_error);
cleanup:
  gpu_leave(&scope);
  return status;
}

/* After the driver refused a module NVRTC built: a driver of an older CUDA major version than
 * NVRTC's loads none of its CUBINs (nor its PTX), which the driver's own error does not say;
 * nor that no NVRTC of the driver's version was found to fall back on (nvrtc_for_driver). */
static void explain_old_driver(P2cDevice *d) {
  int version = 0, major = 0, minor = 0;
  const RtcLib *lib;
  char err[RTC_ERROR_MAX], why[400];
  if (d->gpu.drv->cuDriverGetVersion(&version) != CUDRV_SUCCESS) return;
  if (rtc_version(&major, &minor, err, sizeof err) != P2C_OK) return;
  if (rtc_driver_fits(version, major, minor, ", which compiled the module, and cannot load it",
                      why, sizeof why))
    return;
  if (rtc_load_for_driver(version, &lib, err, sizeof err) == P2C_OK) return; /* not that, then */
  gpu_error_context(ERR(d), "%s; %s", why, err);
}

/* The NVRTC whose CUBINs the device's driver loads: NULL for the process's, or, where the
 * driver is of an older CUDA major version than that one, an NVRTC of the driver's version
 * found where users have it (rtc_load_for_driver). When there is none, NULL too: the load then
 * fails and explain_old_driver says why. The process's NVRTC version comes from the cache's
 * stamp, so a launch that hits the cache still loads no NVRTC. */
static const RtcLib *nvrtc_for_driver(P2cDevice *d) {
  int version = 0, major = 0, minor = 0;
  const RtcLib *lib = NULL;
  char err[RTC_ERROR_MAX];
  if (d->gpu.drv->cuDriverGetVersion(&version) != CUDRV_SUCCESS ||
      rtc_version_stamped(NULL, &major, &minor, err, sizeof err) != P2C_OK ||
      version / 1000 >= major)
    return NULL;
  return rtc_load_for_driver(version, &lib, err, sizeof err) == P2C_OK ? lib : NULL;
}

/* NVRTC (or the cache), then the driver. A cached image the driver refuses is dropped from the
 * cache and compiled again, once: a damaged entry must not fail every later run. */
static P2cStatus compile_and_load(P2cDevice *d, const CompileJob *job, P2cGpuModule **out) {
  RtcRequest req = {.source = job->source, .program_name = job->name, .arch = job->arch,
                    .target = P2C_TARGET_CUBIN, .options = job->options,
                    .option_count = job->option_count, .alloc = &d->alloc,
                    .lib = nvrtc_for_driver(d)};
  RtcCacheOptions cache = {NULL, job->no_cache};
  RtcResult res;
  bool hit = false;
  double t0 = now_ms();
  P2cStatus s = rtc_compile_cached(&req, &cache, &res, &hit);
  double t1 = now_ms();
  if (s == P2C_OK) s = load_image(d, res.image, res.image_size, job->name, res.log, out);
  if (s == P2C_ERR_CUDA && hit) {
    rtc_result_free(&res);
    rtc_cache_forget(&req, &cache);
    t0 = now_ms();
    s = rtc_compile_cached(&req, &cache, &res, &hit);
    t1 = now_ms();
    if (s == P2C_OK) s = load_image(d, res.image, res.image_size, job->name, res.log, out);
  }
  if (s == P2C_ERR_CUDA && !*out) explain_old_driver(d);
  if (s == P2C_OK) s = attach_source(d, *out, job->source);
  if (s != P2C_OK && *out) {
    p2c_gpu_module_delete(*out);
    *out = NULL;
  }
  if (s == P2C_OK) {
    (*out)->cache_hit = hit;
    (*out)->compile_ms = t1 - t0;
    (*out)->load_ms = now_ms() - t1;
  }
  else if (res.error[0])
    gpu_fail(d, s, "%s%s%s", res.error, res.log && res.log[0] ? "\nNVRTC log:\n" : "",
             res.log ? res.log : "");
  rtc_result_free(&res);
  return s;
}

P2cStatus p2c_gpu_module_from_source(P2cDevice *d, const char *source, const P2cSourceOptions *o,
                                     P2cGpuModule **out) {
  if (out) *out = NULL;
  if (!d || !out || !source) return d ? gpu_fail(d, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  CompileJob job = {.source = source, .name = o && o->name ? o->name : "source.cu",
                    .arch = o && o->arch ? o->arch : d->arch,
                    .options = o ? o->nvrtc_options : NULL,
                    .option_count = o && o->nvrtc_options ? o->nvrtc_option_count : 0,
                    .no_cache = o && o->no_cache};
  return compile_and_load(d, &job, out);
}

P2cStatus p2c_gpu_module_from_python(P2cDevice *d, const P2cModule *module, bool no_cache,
                                     P2cGpuModule **out) {
  if (out) *out = NULL;
  if (!d || !out || !module) return d ? gpu_fail(d, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  const char *text = p2c_module_cuda(module, NULL);
  if (!text) return gpu_fail(d, P2C_ERR_USAGE, "the module has errors; nothing to compile");
  CompileJob job = {.source = text, .name = module->comp.file, .arch = d->arch,
                    .options = module->nvrtc_options, .option_count = module->nvrtc_option_count,
                    .no_cache = no_cache};
  return compile_and_load(d, &job, out);
}

void p2c_gpu_module_delete(P2cGpuModule *m) {
  if (!m) return;
  P2cDevice *d = m->device;
  for (size_t i = 0; i < m->kernel_count; i++) mem_free(&d->alloc, m->kernels[i], sizeof **m->kernels);
  mem_free(&d->alloc, m->kernels, m->kernel_count * sizeof *m->kernels);
  gpu_module_unload(&d->gpu, m->module);
  mem_free(&d->alloc, m->log, m->log_size);
  mem_free(&d->alloc, m, sizeof *m);
}

bool p2c_gpu_module_cache_hit(const P2cGpuModule *m) { return m && m->cache_hit; }

const char *p2c_gpu_module_log(const P2cGpuModule *m) { return m && m->log ? m->log : ""; }

/* ---- The device's modules for p2c_launch ---------------------------------------------------- */

P2cStatus gpu_loaded_module(P2cDevice *d, const char *text, size_t len, const char *name,
                            const char *arch, const char *const *options, size_t option_count,
                            bool no_cache, P2cGpuModule **out) {
  for (size_t i = 0; i < d->loaded_count; i++) {
    LoadedModule *l = &d->loaded[i];
    if (l->len == len && strcmp(l->arch, arch) == 0 && memcmp(l->text, text, len) == 0) {
      *out = l->module;
      return P2C_OK;
    }
  }
  if (d->loaded_count == d->loaded_cap) {
    size_t cap = d->loaded_cap ? 2 * d->loaded_cap : 4;
    LoadedModule *grown = mem_realloc(&d->alloc, d->loaded, d->loaded_cap * sizeof *grown,
                                      cap * sizeof *grown);
    if (!grown) return gpu_fail(d, P2C_ERR_NOMEM, "out of memory");
    d->loaded = grown;
    d->loaded_cap = cap;
  }
  LoadedModule *l = &d->loaded[d->loaded_count];
  memset(l, 0, sizeof *l);
  l->text = mem_strndup(&d->alloc, text, len);
  if (!l->text) return gpu_fail(d, P2C_ERR_NOMEM, "out of memory");
  l->len = len;
  snprintf(l->arch, sizeof l->arch, "%s", arch);
  CompileJob job = {.source = l->text, .name = name, .arch = arch, .options = options,
                    .option_count = option_count, .no_cache = no_cache};
  P2cStatus s = compile_and_load(d, &job, &l->module);
  if (s != P2C_OK) {
    mem_free(&d->alloc, l->text, len + 1);
    return s;
  }
  d->loaded_count++;
  *out = l->module;
  return P2C_OK;
}

/* ---- Kernels and globals -------------------------------------------------------------------- */

P2cStatus p2c_gpu_module_kernel(P2cGpuModule *m, const char *symbol, P2cGpuKernel **out) {
  if (out) *out = NULL;
  if (!m || !out || !symbol) return m ? gpu_fail(m->device, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  P2cDevice *d = m->device;
  for (size_t i = 0; i < m->kernel_count; i++)
    if (strcmp(m->kernels[i]->fn.name, symbol) == 0) return *out = m->kernels[i], P2C_OK;
  P2cGpuKernel *k = mem_alloc(&d->alloc, sizeof *k);
  if (!k) return gpu_fail(d, P2C_ERR_NOMEM, "out of memory");
  memset(k, 0, sizeof *k);
  k->module = m;
  P2cGpuKernel **grown = NULL;
  P2cStatus s = gpu_function_get(&d->gpu, m->module, symbol, m->what, &k->fn, ERR(d));
  if (s == P2C_OK) {
    grown = mem_realloc(&d->alloc, m->kernels, m->kernel_count * sizeof *grown,
                        (m->kernel_count + 1) * sizeof *grown);
    if (!grown) s = gpu_fail(d, P2C_ERR_NOMEM, "out of memory");
  }
  if (s != P2C_OK) {
    mem_free(&d->alloc, k, sizeof *k);
    return s;
  }
  m->kernels = grown;
  m->kernels[m->kernel_count++] = k;
  *out = k;
  return P2C_OK;
}

P2cStatus p2c_gpu_module_global(P2cGpuModule *m, const char *name, uint64_t *address,
                                size_t *bytes) {
  if (!m || !name) return m ? gpu_fail(m->device, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  P2cDevice *d = m->device;
  CuDevicePtr ptr = 0;
  size_t size = 0;
  GpuScope scope;
  P2cStatus status = gpu_enter(&d->gpu, &scope, ERR(d));
  if (status != P2C_OK) return status;
  CuResult rc = d->gpu.drv->cuModuleGetGlobal(&ptr, &size, m->module, name);
  gpu_leave(&scope);
  if (rc == CUDRV_ERROR_NOT_FOUND)
    return gpu_fail(d, P2C_ERR_USAGE, "no __device__ variable '%s' in %s", name, m->what);
  if (rc != CUDRV_SUCCESS)
    return cudrv_fail(d->gpu.drv, rc, "cuModuleGetGlobal(&ptr, &size, m->module, name)", __FILE__,
                      __LINE__, ERR(d));
  if (address) *address = ptr;
  if (bytes) *bytes = size;
  return P2C_OK;
}

P2cStatus p2c_gpu_kernel_launch(P2cGpuKernel *k, const P2cGpuLaunch *c, void **args) {
  if (!k || !c) return k ? gpu_fail(k->module->device, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  P2cDevice *d = k->module->device;
  if (c->stream && c->stream->device != d)
    return gpu_fail(d, P2C_ERR_USAGE, "the stream belongs to another device");
  GpuLaunchConfig g = {.shared_bytes = c->shared_bytes, .stream = c->stream ? c->stream->stream : NULL,
                       .cooperative = c->cooperative};
  for (int i = 0; i < 3; i++) {
    g.grid[i] = c->grid[i] ? c->grid[i] : 1;
    g.block[i] = c->block[i] ? c->block[i] : 1;
  }
  return gpu_launch(&d->gpu, &k->fn, &g, args, k->module->what, ERR(d));
}

P2cStatus p2c_gpu_kernel_max_threads(P2cGpuKernel *k, uint32_t *threads) {
  if (!k || !threads) return k ? gpu_fail(k->module->device, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  *threads = (uint32_t)k->fn.max_threads;   /* read by function_get when the kernel was looked up */
  return P2C_OK;
}

P2cStatus p2c_gpu_kernel_max_cooperative_blocks(P2cGpuKernel *k, uint32_t block_threads,
                                                uint32_t shared_bytes, uint32_t *blocks) {
  if (!k || !blocks) return k ? gpu_fail(k->module->device, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  P2cDevice *d = k->module->device;
  return gpu_max_cooperative_blocks(&d->gpu, &k->fn, block_threads, shared_bytes, blocks, ERR(d));
}

