/* The GPU runtime's core: devices and their limits, modules with the JIT log, kernels with their
 * attributes, and launches checked before they reach the driver (see gpu.h).
 *
 * The order of calls is the one NVIDIA's samples use (cuInit, cuDeviceGet, a context, module
 * load, cuModuleGetFunction, cuLaunchKernel); the habits are not: every call goes through
 * CU_CHECK, every handle acquired is released on the error paths, and nothing prints or exits. */
#include "runtime/cuda/gpu.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/arena.h"

void gpu_error_context(char *err, size_t errlen, const char *fmt, ...) {
  char head[512], tail[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(head, sizeof head, fmt, ap);
  va_end(ap);
  snprintf(tail, sizeof tail, "%s", err);
  snprintf(err, errlen, "%s: %s", head, tail);
}

/* ---- Devices -------------------------------------------------------------------------------- */

/* Reads every limit a launch is checked against, and what `info` shows. */
static P2cStatus read_limits(const CuDriver *drv, CuDevice dev, GpuLimits *l, char *err,
                             size_t errlen) {
  P2cStatus status = P2C_OK;
  const struct {
    int attribute;
    int *value;
  } table[] = {
      {CUDRV_ATTR_COMPUTE_CAPABILITY_MAJOR, &l->cc_major},
      {CUDRV_ATTR_COMPUTE_CAPABILITY_MINOR, &l->cc_minor},
      {CUDRV_ATTR_MULTIPROCESSOR_COUNT, &l->sm_count},
      {CUDRV_ATTR_WARP_SIZE, &l->warp_size},
      {CUDRV_ATTR_MAX_THREADS_PER_BLOCK, &l->max_threads_per_block},
      {CUDRV_ATTR_MAX_BLOCK_DIM_X, &l->max_block[0]},
      {CUDRV_ATTR_MAX_BLOCK_DIM_X + 1, &l->max_block[1]},
      {CUDRV_ATTR_MAX_BLOCK_DIM_X + 2, &l->max_block[2]},
      {CUDRV_ATTR_MAX_GRID_DIM_X, &l->max_grid[0]},
      {CUDRV_ATTR_MAX_GRID_DIM_X + 1, &l->max_grid[1]},
      {CUDRV_ATTR_MAX_GRID_DIM_X + 2, &l->max_grid[2]},
      {CUDRV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK, &l->max_shared_per_block},
      {CUDRV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &l->max_shared_optin},
  };
  CU_CHECK(drv, cuDeviceGetName(l->name, (int)sizeof l->name, dev), err, errlen);
  l->name[sizeof l->name - 1] = '\0';
  CU_CHECK(drv, cuDeviceTotalMem(&l->total_mem, dev), err, errlen);
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    CU_CHECK(drv, cuDeviceGetAttribute(table[i].value, table[i].attribute, dev), err, errlen);
  /* A driver older than CUDA 11.2 does not know the attribute: no pools either. */
  int pools = 0;
  l->memory_pools = drv->cuDeviceGetAttribute(&pools, CUDRV_ATTR_MEMORY_POOLS_SUPPORTED, dev) ==
                        CUDRV_SUCCESS && pools != 0;
  /* Devices before opt-in (none we support, but a driver may answer 0) keep the plain limit. */
  if (l->max_shared_optin < l->max_shared_per_block) l->max_shared_optin = l->max_shared_per_block;
cleanup:
  return status;
}

P2cStatus gpu_open(const CuDriver *drv, int ordinal, GpuContext *g, char *err, size_t errlen) {
  int count = 0;
  CuContext ctx = NULL;
  memset(g, 0, sizeof *g);
  P2cStatus status = cudrv_init(drv, &count, err, errlen);
  if (status != P2C_OK) return status;
  if (ordinal < 0 || ordinal >= count) {
    snprintf(err, errlen, "no CUDA device %d: this machine has %d (devices 0 to %d)", ordinal,
             count, count - 1);
    return P2C_ERR_USAGE;
  }
  g->drv = drv;
  g->ordinal = ordinal;
  CU_CHECK(drv, cuDeviceGet(&g->device, ordinal), err, errlen);
  status = read_limits(drv, g->device, &g->limits, err, errlen);
  if (status != P2C_OK) goto cleanup;
  CU_CHECK(drv, cuDevicePrimaryCtxRetain(&ctx, g->device), err, errlen);
  g->ctx = ctx;
  return P2C_OK;
cleanup:
  if (ctx) drv->cuDevicePrimaryCtxRelease(g->device);
  gpu_error_context(err, errlen, "opening CUDA device %d", ordinal);
  memset(g, 0, sizeof *g);
  return status;
}

void gpu_close(GpuContext *g) {
  if (g->drv && g->ctx) g->drv->cuDevicePrimaryCtxRelease(g->device);
  memset(g, 0, sizeof *g);
}

P2cStatus gpu_enter(const GpuContext *g, GpuScope *scope, char *err, size_t errlen) {
  P2cStatus status = P2C_OK;
  *scope = (GpuScope){.g = g};
  CuContext saved = NULL;
  CU_CHECK(g->drv, cuCtxGetCurrent(&saved), err, errlen);
  if (saved == g->ctx) return P2C_OK;
  CU_CHECK(g->drv, cuCtxSetCurrent(g->ctx), err, errlen);
  scope->saved = saved;
  scope->switched = true;
cleanup:
  return status;
}

void gpu_leave(GpuScope *scope) {
  /* cuCtxSetCurrent replaces the top of the thread's context stack, so setting the saved one
   * back (NULL: popping ours) leaves the stack as the caller had it. */
  if (scope->switched) scope->g->drv->cuCtxSetCurrent(scope->saved);
  scope->switched = false;
}

void gpu_arch(const GpuContext *g, char *out, size_t outlen) {
  snprintf(out, outlen, "sm_%d%d", g->limits.cc_major, g->limits.cc_minor);
}

/* ---- Modules -------------------------------------------------------------------------------- */

/* CUBIN is ELF; a fatbin starts with 0xBA55ED50. Anything else is taken as PTX text. */
static bool is_binary_image(const unsigned char *p, size_t size) {
  if (size >= 4 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') return true;
  return size >= 4 && p[0] == 0x50 && p[1] == 0xed && p[2] == 0x55 && p[3] == 0xba;
}

/* Appends the JIT's error log to err, on lines of its own. */
static void append_jit_log(char *err, size_t errlen, const char *log) {
  size_t n = strlen(err);
  if (log[0] && n + 1 < errlen) snprintf(err + n, errlen - n, "\nJIT log:\n%s", log);
}

/* cuModuleLoadDataEx with both JIT logs. */
static P2cStatus load_with_logs(const GpuContext *g, const void *image, const char *what,
                                CuModule *out, char *info_log, size_t info_len, char *err,
                                size_t errlen) {
  P2cStatus status = P2C_OK;
  char error_log[GPU_JIT_LOG_BYTES] = "", info[GPU_JIT_LOG_BYTES] = "";
  int options[] = {CUDRV_JIT_ERROR_LOG_BUFFER, CUDRV_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                   CUDRV_JIT_INFO_LOG_BUFFER, CUDRV_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {error_log, (void *)(uintptr_t)sizeof error_log, info,
                    (void *)(uintptr_t)sizeof info};
  CU_CHECK(g->drv, cuModuleLoadDataEx(out, image, 4, options, values), err, errlen);
cleanup:
  error_log[sizeof error_log - 1] = info[sizeof info - 1] = '\0';
  if (info_log && info_len) snprintf(info_log, info_len, "%s", info);
  if (status != P2C_OK) {
    *out = NULL;
    gpu_error_context(err, errlen, "loading the module of %s", what);
    append_jit_log(err, errlen, error_log);
  }
  return status;
}

/* load_with_logs in the device's context, the caller's given back. */
static P2cStatus load_in_context(const GpuContext *g, const void *image, const char *what,
                                 CuModule *out, char *info_log, size_t info_len, char *err,
                                 size_t errlen) {
  GpuScope scope;
  P2cStatus status = gpu_enter(g, &scope, err, errlen);
  if (status == P2C_OK) status = load_with_logs(g, image, what, out, info_log, info_len, err, errlen);
  gpu_leave(&scope);
  return status;
}

P2cStatus gpu_module_load(const GpuContext *g, const void *image, size_t size, const char *what,
                          CuModule *out, char *info_log, size_t info_len, char *err,
                          size_t errlen) {
  *out = NULL;
  if (info_log && info_len) info_log[0] = '\0';
  const unsigned char *p = image;
  if (is_binary_image(p, size) || (size > 0 && p[size - 1] == '\0'))
    return load_in_context(g, image, what, out, info_log, info_len, err, errlen);
  /* PTX is read up to its NUL: a text without one gets a copy that has it. */
  char *text = mem_alloc(mem_default(), size + 1);
  if (!text) {
    snprintf(err, errlen, "out of memory copying the PTX of %s", what);
    return P2C_ERR_NOMEM;
  }
  memcpy(text, image, size);
  text[size] = '\0';
  P2cStatus status = load_in_context(g, text, what, out, info_log, info_len, err, errlen);
  mem_free(mem_default(), text, size + 1);
  return status;
}

void gpu_module_unload(const GpuContext *g, CuModule m) {
  if (!m) return;
  char err[64];
  GpuScope scope;
  gpu_enter(g, &scope, err, sizeof err); /* unloaded even if this fails: it may still work */
  g->drv->cuModuleUnload(m);
  gpu_leave(&scope);
}

/* gpu_function_get's driver calls, in the device's context. */
static P2cStatus function_get(const GpuContext *g, CuModule m, const char *name, const char *what,
                              GpuFunction *out, char *err, size_t errlen) {
  P2cStatus status = P2C_OK;
  CuResult rc = g->drv->cuModuleGetFunction(&out->fn, m, name);
  if (rc == CUDRV_ERROR_NOT_FOUND) {
    snprintf(err, errlen, "no kernel '%s' in %s (cuModuleGetFunction: CUDA_ERROR_NOT_FOUND)", name,
             what);
    return P2C_ERR_USAGE;
  }
  if (rc != CUDRV_SUCCESS) {
    status = cudrv_fail(g->drv, rc, "cuModuleGetFunction(&out->fn, m, name)", __FILE__, __LINE__,
                        err, errlen);
    goto cleanup;
  }
  CU_CHECK(g->drv, cuFuncGetAttribute(&out->max_threads, CUDRV_FUNC_MAX_THREADS_PER_BLOCK, out->fn),
           err, errlen);
  CU_CHECK(g->drv, cuFuncGetAttribute(&out->static_shared, CUDRV_FUNC_SHARED_SIZE_BYTES, out->fn),
           err, errlen);
  CU_CHECK(g->drv,
           cuFuncGetAttribute(&out->max_dynamic_shared, CUDRV_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              out->fn),
           err, errlen);
  return P2C_OK;
cleanup:
  gpu_error_context(err, errlen, "looking up kernel '%s' in %s", name, what);
  out->fn = NULL;
  return status;
}

P2cStatus gpu_function_get(const GpuContext *g, CuModule m, const char *name, const char *what,
                           GpuFunction *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", name);
  GpuScope scope;
  P2cStatus status = gpu_enter(g, &scope, err, errlen);
  if (status == P2C_OK) status = function_get(g, m, name, what, out, err, errlen);
  gpu_leave(&scope);
  return status;
}

/* ---- Launches ------------------------------------------------------------------------------- */

P2cStatus gpu_check_launch(const GpuLimits *lim, const GpuFunction *f, const GpuLaunchConfig *c,
                      char *msg, size_t msglen) {
  const uint32_t *g = c->grid, *b = c->block;
  uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
  uint64_t shared = (uint64_t)f->static_shared + c->shared_bytes;
  for (int k = 0; k < 3; k++)
    if (g[k] == 0 || b[k] == 0) {
      snprintf(msg, msglen, "grid (%u,%u,%u) and block (%u,%u,%u) need every dimension >= 1",
               g[0], g[1], g[2], b[0], b[1], b[2]);
      return P2C_ERR_USAGE;
    }
  for (int k = 0; k < 3; k++)
    if (b[k] > (uint32_t)lim->max_block[k]) {
      snprintf(msg, msglen, "block (%u,%u,%u) exceeds the limits of %s: (%d,%d,%d)", b[0], b[1],
               b[2], lim->name, lim->max_block[0], lim->max_block[1], lim->max_block[2]);
      return P2C_ERR_USAGE;
    }
  for (int k = 0; k < 3; k++)
    if (g[k] > (uint32_t)lim->max_grid[k]) {
      snprintf(msg, msglen, "grid (%u,%u,%u) exceeds the limits of %s: (%d,%d,%d)", g[0], g[1],
               g[2], lim->name, lim->max_grid[0], lim->max_grid[1], lim->max_grid[2]);
      return P2C_ERR_USAGE;
    }
  if (threads > (uint64_t)lim->max_threads_per_block) {
    snprintf(msg, msglen, "block (%u,%u,%u) has %llu threads; %s allows at most %d per block", b[0],
             b[1], b[2], (unsigned long long)threads, lim->name, lim->max_threads_per_block);
    return P2C_ERR_USAGE;
  }
  if (threads > (uint64_t)f->max_threads) {   /* refused by the driver: said as it says it */
    snprintf(msg, msglen,
             "block (%u,%u,%u) has %llu threads; kernel '%s' can run at most %d per block on %s "
             "(its launch bounds or register use limit it): CUDA_ERROR_INVALID_VALUE",
             b[0], b[1], b[2], (unsigned long long)threads, f->name, f->max_threads, lim->name);
    return P2C_ERR_CUDA;
  }
  if (shared > (uint64_t)lim->max_shared_optin) {
    snprintf(msg, msglen,
             "kernel '%s' needs %d bytes of static and %u of dynamic shared memory per block; %s "
             "allows at most %d",
             f->name, f->static_shared, c->shared_bytes, lim->name, lim->max_shared_optin);
    return P2C_ERR_USAGE;
  }
  return P2C_OK;
}

/* Kernels may use at most 48 KiB of dynamic shared memory unless they are allowed more. */
static P2cStatus allow_dynamic_shared(const GpuContext *g, GpuFunction *f, uint32_t bytes,
                                      char *err, size_t errlen) {
  P2cStatus status = P2C_OK;
  if ((int64_t)bytes <= f->max_dynamic_shared) return P2C_OK;
  CU_CHECK(g->drv, cuFuncSetAttribute(f->fn, CUDRV_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes),
           err, errlen);
  f->max_dynamic_shared = (int)bytes;
cleanup:
  return status;
}

P2cStatus gpu_max_cooperative_blocks(const GpuContext *g, GpuFunction *f, uint32_t block_threads,
                                     uint32_t shared_bytes, uint32_t *blocks, char *err,
                                     size_t errlen) {
  int per_sm = 0;
  if (!g->drv->cuOccupancyMaxActiveBlocksPerMultiprocessor || !g->drv->cuLaunchCooperativeKernel) {
    snprintf(err, errlen, "the CUDA driver (%s) has no cooperative launches "
             "(cuLaunchCooperativeKernel, cuOccupancyMaxActiveBlocksPerMultiprocessor)", g->drv->dl.path);
    return P2C_ERR_CUDA;
  }
  GpuScope scope;
  P2cStatus status = gpu_enter(g, &scope, err, errlen);
  if (status != P2C_OK) return status;
  CU_CHECK(g->drv,
           cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f->fn, (int)block_threads, shared_bytes),
           err, errlen);
  *blocks = (uint32_t)per_sm * (uint32_t)g->limits.sm_count;
cleanup:
  gpu_leave(&scope);
  return status;
}

/* A cooperative launch's grid must fit on the device at once (cuLaunchCooperativeKernel would
 * fail with CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE; this says why in the launch's terms). */
static P2cStatus check_cooperative(const GpuContext *g, GpuFunction *f, const GpuLaunchConfig *c,
                                   char *err, size_t errlen) {
  uint32_t most = 0, threads = c->block[0] * c->block[1] * c->block[2];
  P2cStatus status = gpu_max_cooperative_blocks(g, f, threads, c->shared_bytes, &most, err, errlen);
  if (status != P2C_OK) return status;
  uint64_t blocks = (uint64_t)c->grid[0] * c->grid[1] * c->grid[2];
  if (blocks <= most) return P2C_OK;
  snprintf(err, errlen, "kernel '%s' uses cuda.cg.this_grid(), so it is launched cooperatively, "
           "with every block resident at once: %s holds at most %u blocks of %u threads, the grid "
           "has %llu", f->name, g->limits.name, most, threads, (unsigned long long)blocks);
  return P2C_ERR_USAGE;
}

P2cStatus gpu_launch(const GpuContext *g, GpuFunction *f, const GpuLaunchConfig *c, void **args,
                     const char *what, char *err, size_t errlen) {
  P2cStatus refused = gpu_check_launch(&g->limits, f, c, err, errlen);
  if (refused != P2C_OK) {
    gpu_error_context(err, errlen, "cannot launch kernel '%s'", f->name);
    return refused;
  }
  GpuScope scope;
  P2cStatus status = gpu_enter(g, &scope, err, errlen);
  if (status == P2C_OK) status = allow_dynamic_shared(g, f, c->shared_bytes, err, errlen);
  if (status == P2C_OK && c->cooperative) status = check_cooperative(g, f, c, err, errlen);
  if (status != P2C_OK) goto cleanup;
  if (c->cooperative)
    CU_CHECK(g->drv,
             cuLaunchCooperativeKernel(f->fn, c->grid[0], c->grid[1], c->grid[2], c->block[0],
                                       c->block[1], c->block[2], c->shared_bytes, c->stream, args),
             err, errlen);
  else
    CU_CHECK(g->drv,
             cuLaunchKernel(f->fn, c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1],
                            c->block[2], c->shared_bytes, c->stream, args, NULL),
             err, errlen);
  gpu_leave(&scope);
  return P2C_OK;
cleanup:
  gpu_leave(&scope);
  gpu_error_context(err, errlen, "launching kernel '%s' of %s with grid (%u,%u,%u), block (%u,%u,%u)",
                    f->name, what, c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1],
                    c->block[2]);
  return status;
}
