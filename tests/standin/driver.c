/* The CUDA driver stand-in's core: initialization, the modelled devices, error names, contexts
 * (one primary context per device, created ones, each thread's stack) and the leak report
 * written when a context is destroyed. See standin.h for the shared state and docs/runtime.md
 * for what the stand-in models.
 *
 * Every exported function takes the state's lock for its whole body (ENTER/LEAVE), so the
 * stand-in is thread-safe; a process forked after cuInit gets CUDA_ERROR_NOT_INITIALIZED from
 * every call, as a Linux driver's child does. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "standin.h"

/* The one state of the library (see standin.h: a driver is process-wide by nature). */
static SiState state = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Each thread's context stack (cuCtxPushCurrent, cuCtxSetCurrent replaces its top): per thread
 * by the CUDA API's definition. */
enum { STACK_DEPTH = 16 };
static _Thread_local SiCtx *ctx_stack[STACK_DEPTH];
static _Thread_local int ctx_depth;

SiState *si_state(void) { return &state; }
void si_lock(void) { pthread_mutex_lock(&state.lock); }
void si_unlock(void) { pthread_mutex_unlock(&state.lock); }

void si_note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("pyk2cuda stand-in: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

double si_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- Errors --------------------------------------------------------------------------------- */

static const struct {
  CUresult code;
  const char *name, *text;
} errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
     "too many blocks in cooperative launch"},
    {CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

/* The row of `code`, NULL when the stand-in does not know it (the driver then fails too). */
static int error_row(CUresult code) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].code == code) return (int)i;
  return -1;
}

EXPORT CUresult cuGetErrorName(CUresult code, const char **name) {
  int row = error_row(code);
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  *name = row < 0 ? NULL : errors[row].name;
  return row < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorString(CUresult code, const char **text) {
  int row = error_row(code);
  if (!text) return CUDA_ERROR_INVALID_VALUE;
  *text = row < 0 ? NULL : errors[row].text;
  return row < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

/* ---- Initialization ------------------------------------------------------------------------- */

/* Locks around fork so that the child's copy of the lock is free; the child is marked. */
static void before_fork(void) { si_lock(); }
static void after_fork_parent(void) { si_unlock(); }
static void after_fork_child(void) {
  state.forked = state.initialized;
  si_unlock();
}

/* "12.4" -> 12040; a bad value keeps the default (13.0). */
static int parse_version(const char *text) {
  int major = 0, minor = 0;
  if (!text || sscanf(text, "%d.%d", &major, &minor) < 1 || major < 1 || minor < 0 || minor > 9)
    return 13000;
  return major * 1000 + minor * 10;
}

/* A set of device ordinals as bits: "all", or ordinals separated by commas ("1", "0,1"). */
static unsigned device_list(const char *text) {
  if (!text || !*text) return 0;
  if (!strcmp(text, "all")) return (1u << SI_MAX_DEVICES) - 1;
  unsigned bits = 0;
  for (const char *p = text; *p;) {
    char *end;
    long d = strtol(p, &end, 10);
    if (end == p) break;
    if (d >= 0 && d < SI_MAX_DEVICES) bits |= 1u << d;
    p = *end == ',' ? end + 1 : end;
    if (*end != ',') break;
  }
  return bits;
}

/* Reads the stand-in's settings (docs/runtime.md): PYK2CUDA_STANDIN_DEVICES (1..8, default 2),
 * PYK2CUDA_STANDIN_DRIVER_VERSION (default 13.0). */
static CUresult init_once(void) {
  if (state.initialized) return CUDA_SUCCESS;
  const char *d = getenv("PYK2CUDA_STANDIN_DEVICES");
  state.devices = d && *d ? atoi(d) : 2;
  if (state.devices < 0) state.devices = 0;
  if (state.devices > SI_MAX_DEVICES) state.devices = SI_MAX_DEVICES;
  state.version = parse_version(getenv("PYK2CUDA_STANDIN_DRIVER_VERSION"));
  const char *seed = getenv("PYK2CUDA_STANDIN_SEED");
  state.seed = seed && *seed ? strtoull(seed, NULL, 10) : 0;
  const char *kernel_ms = getenv("PYK2CUDA_STANDIN_KERNEL_MS");
  state.kernel_ms = kernel_ms && *kernel_ms ? (unsigned)strtoul(kernel_ms, NULL, 10) : 0;
  state.no_pools = device_list(getenv("PYK2CUDA_STANDIN_NO_MEMORY_POOLS"));
  CUresult rc = si_arena_init(&state);
  if (rc != CUDA_SUCCESS) return rc;
  for (int i = 0; i < SI_MAX_DEVICES; i++) {
    state.primary[i].device = i;
    state.primary[i].primary = true;
  }
  pthread_atfork(before_fork, after_fork_parent, after_fork_child);
  state.initialized = true;
  return CUDA_SUCCESS;
}

CUresult si_ready(void) {
  if (state.forked) return CUDA_ERROR_NOT_INITIALIZED;
  return state.initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

EXPORT CUresult cuInit(unsigned flags) {
  si_lock();
  CUresult rc = flags ? CUDA_ERROR_INVALID_VALUE : state.forked ? CUDA_ERROR_NOT_INITIALIZED : init_once();
  si_unlock();
  return rc;
}

EXPORT CUresult cuDriverGetVersion(int *version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  si_lock();
  *version = state.initialized ? state.version : parse_version(getenv("PYK2CUDA_STANDIN_DRIVER_VERSION"));
  si_unlock();
  return CUDA_SUCCESS;
}

/* ---- Devices -------------------------------------------------------------------------------- */

static CUresult check_device(CUdevice dev) {
  return dev >= 0 && dev < state.devices ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static CUresult device_count(int *count) {
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = state.devices;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int *count) { SI_ENTRY(device_count(count)); }

static CUresult device_get(CUdevice *dev, int ordinal) {
  if (!dev) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc = check_device(ordinal);
  if (rc == CUDA_SUCCESS) *dev = ordinal;
  return rc;
}

EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal) { SI_ENTRY(device_get(dev, ordinal)); }

/* The name says what it is, so that no figure from it is taken for a GPU's. */
static CUresult device_name(char *name, int len, CUdevice dev) {
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc = check_device(dev);
  if (rc == CUDA_SUCCESS) snprintf(name, (size_t)len, "pyk2cuda CUDA stand-in (H200 model, simulator)");
  return rc;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev) { SI_ENTRY(device_name(name, len, dev)); }

/* 141 GiB, as an H200 reports. */
static const size_t device_memory = (size_t)150754820096ull;

static CUresult total_mem(size_t *bytes, CUdevice dev) {
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc = check_device(dev);
  if (rc == CUDA_SUCCESS) *bytes = device_memory;
  return rc;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) { SI_ENTRY(total_mem(bytes, dev)); }

size_t si_device_memory(void) { return device_memory; }

bool si_no_pools(int device) { return device >= 0 && device < SI_MAX_DEVICES && (state.no_pools >> device & 1u); }

/* CUdevice_attribute values and an H200's answers. */
static const struct {
  int attribute, value;
} attributes[] = {
    {1, SI_MAX_THREADS},     /* MAX_THREADS_PER_BLOCK */
    {2, 1024}, {3, 1024}, {4, 64},             /* MAX_BLOCK_DIM_X/Y/Z */
    {5, 2147483647}, {6, 65535}, {7, 65535},   /* MAX_GRID_DIM_X/Y/Z */
    {8, SI_SHARED_DEFAULT},  /* MAX_SHARED_MEMORY_PER_BLOCK */
    {9, 65536},              /* TOTAL_CONSTANT_MEMORY */
    {10, 32},                /* WARP_SIZE */
    {12, 65536},             /* MAX_REGISTERS_PER_BLOCK */
    {13, 1980000},           /* CLOCK_RATE (kHz) */
    {16, SI_SM_COUNT},       /* MULTIPROCESSOR_COUNT */
    {19, 1},                 /* CAN_MAP_HOST_MEMORY */
    {31, 1},                 /* CONCURRENT_KERNELS */
    {39, SI_THREADS_PER_SM}, /* MAX_THREADS_PER_MULTIPROCESSOR */
    {41, 1},                 /* UNIFIED_ADDRESSING */
    {75, 9}, {76, 0},        /* COMPUTE_CAPABILITY_MAJOR/MINOR */
    {81, SI_SHARED_PER_SM},  /* MAX_SHARED_MEMORY_PER_MULTIPROCESSOR */
    {82, 65536},             /* MAX_REGISTERS_PER_MULTIPROCESSOR */
    {95, 1},                 /* COOPERATIVE_LAUNCH */
    {97, SI_SHARED_OPTIN},   /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
    {106, SI_BLOCKS_PER_SM}, /* MAX_BLOCKS_PER_MULTIPROCESSOR */
};
/* MEMORY_POOLS_SUPPORTED: 1, or 0 on the devices PYK2CUDA_STANDIN_NO_MEMORY_POOLS names. */
enum { ATTRIBUTE_MEMORY_POOLS = 115 };

static CUresult device_attribute(int *value, int attribute, CUdevice dev) {
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc = check_device(dev);
  if (rc != CUDA_SUCCESS) return rc;
  if (attribute == ATTRIBUTE_MEMORY_POOLS) return *value = !si_no_pools(dev), CUDA_SUCCESS;
  for (size_t i = 0; i < sizeof attributes / sizeof attributes[0]; i++)
    if (attributes[i].attribute == attribute) return *value = attributes[i].value, CUDA_SUCCESS;
  return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice dev) {
  SI_ENTRY(device_attribute(value, attribute, dev));
}

/* ---- Contexts ------------------------------------------------------------------------------- */

SiCtx *si_current(void) { return ctx_depth > 0 ? ctx_stack[ctx_depth - 1] : NULL; }

CUresult si_need_ctx(SiCtx **out, bool sticky) {
  SiCtx *c = si_current();
  *out = c;
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  if (!c->active) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  return sticky ? c->sticky : CUDA_SUCCESS;
}

/* Makes a context live: its legacy default stream, nothing queued, no fault. */
static void ctx_activate(SiCtx *c) {
  c->active = true;
  c->sticky = CUDA_SUCCESS;
  memset(&c->null_stream, 0, sizeof c->null_stream);
  c->null_stream.ctx = c;
}

/* Where the leak report goes: $PYK2CUDA_STANDIN_LEAKS (appended to), else stderr. */
static FILE *open_leaks(bool *close_it) {
  const char *path = getenv("PYK2CUDA_STANDIN_LEAKS");
  FILE *f = path && *path ? fopen(path, "a") : NULL;
  *close_it = f != NULL;
  return f ? f : stderr;
}

/* Frees everything the context holds; with `report`, what was still held is written to the leak
 * report, one line each (a destroyed context, not a reset one, reports). */
static void ctx_teardown(SiCtx *c, bool report) {
  bool close_it = false;
  FILE *leaks = report ? open_leaks(&close_it) : NULL;
  si_free_ctx_queues(c, leaks);
  si_free_ctx_modules(c, leaks);
  si_free_ctx_memory(c, report, leaks);
  if (close_it) fclose(leaks);
  c->active = false;
  c->sticky = CUDA_SUCCESS;
}

/* A context handle the stand-in made: a primary one or a created one. */
static bool known_ctx(const SiCtx *c) {
  for (int i = 0; i < state.devices; i++)
    if (c == &state.primary[i]) return true;
  for (SiCtx *k = state.created; k; k = k->next)
    if (k == c) return true;
  return false;
}

static CUresult primary_retain(void **ctx, CUdevice dev) {
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc = check_device(dev);
  if (rc != CUDA_SUCCESS) return rc;
  SiCtx *c = &state.primary[dev];
  if (c->refs++ == 0 && !c->active) ctx_activate(c);
  *ctx = c;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice dev) { SI_ENTRY(primary_retain(ctx, dev)); }

static CUresult primary_release(CUdevice dev) {
  CUresult rc = check_device(dev);
  if (rc != CUDA_SUCCESS) return rc;
  SiCtx *c = &state.primary[dev];
  if (c->refs <= 0) return CUDA_ERROR_INVALID_CONTEXT;
  if (--c->refs == 0 && c->active) ctx_teardown(c, true);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) { SI_ENTRY(primary_release(dev)); }

/* cuda.close() and friends: everything freed, the fault forgotten; retained again on the next
 * retain, or at once when someone still holds it (the handle stays valid, as on a driver). */
static CUresult primary_reset(CUdevice dev) {
  CUresult rc = check_device(dev);
  if (rc != CUDA_SUCCESS) return rc;
  SiCtx *c = &state.primary[dev];
  if (c->active) ctx_teardown(c, false);
  if (c->refs > 0) ctx_activate(c);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) { SI_ENTRY(primary_reset(dev)); }

static CUresult primary_state(CUdevice dev, unsigned *flags, int *active) {
  CUresult rc = check_device(dev);
  if (rc != CUDA_SUCCESS) return rc;
  if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
  *flags = state.primary[dev].flags;
  *active = state.primary[dev].active;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned *flags, int *active) {
  SI_ENTRY(primary_state(dev, flags, active));
}

static CUresult primary_set_flags(CUdevice dev, unsigned flags) {
  CUresult rc = check_device(dev);
  if (rc == CUDA_SUCCESS) state.primary[dev].flags = flags;
  return rc;
}

EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned flags) {
  SI_ENTRY(primary_set_flags(dev, flags));
}

static CUresult set_current(SiCtx *c) {
  if (c && !known_ctx(c)) return CUDA_ERROR_INVALID_CONTEXT;
  if (!c) {
    if (ctx_depth > 0) ctx_depth--;
    return CUDA_SUCCESS;
  }
  if (ctx_depth == 0) ctx_depth = 1;
  ctx_stack[ctx_depth - 1] = c;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(void *ctx) { SI_ENTRY(set_current(ctx)); }

static CUresult get_current(void **ctx) {
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  *ctx = si_current();
  return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetCurrent(void **ctx) { SI_ENTRY(get_current(ctx)); }

static CUresult push_current(SiCtx *c) {
  if (!c || !known_ctx(c)) return CUDA_ERROR_INVALID_CONTEXT;
  if (ctx_depth == STACK_DEPTH) return CUDA_ERROR_OUT_OF_MEMORY;
  ctx_stack[ctx_depth++] = c;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxPushCurrent_v2(void *ctx) { SI_ENTRY(push_current(ctx)); }

static CUresult pop_current(void **ctx) {
  if (ctx_depth == 0) return CUDA_ERROR_INVALID_CONTEXT;
  SiCtx *c = ctx_stack[--ctx_depth];
  if (ctx) *ctx = c;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxPopCurrent_v2(void **ctx) { SI_ENTRY(pop_current(ctx)); }

static CUresult ctx_device(CUdevice *dev) {
  SiCtx *c;
  CUresult rc = si_need_ctx(&c, false);
  if (rc == CUDA_SUCCESS && !dev) rc = CUDA_ERROR_INVALID_VALUE;
  if (rc == CUDA_SUCCESS) *dev = c->device;
  return rc;
}

EXPORT CUresult cuCtxGetDevice(CUdevice *dev) { SI_ENTRY(ctx_device(dev)); }

static CUresult ctx_create(void **out, unsigned flags, CUdevice dev) {
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  CUresult rc = check_device(dev);
  if (rc != CUDA_SUCCESS) return rc;
  SiCtx *c = calloc(1, sizeof *c);
  if (!c) return CUDA_ERROR_OUT_OF_MEMORY;
  c->device = dev;
  c->flags = flags;
  ctx_activate(c);
  c->next = state.created;
  state.created = c;
  rc = push_current(c);
  *out = c;
  return rc;
}

EXPORT CUresult cuCtxCreate_v2(void **ctx, unsigned flags, CUdevice dev) { SI_ENTRY(ctx_create(ctx, flags, dev)); }

/* Unlinks a created context and drops it from this thread's stack (other threads' stacks keep a
 * dangling handle, as they would on a driver: using it is their error). */
static CUresult ctx_destroy(SiCtx *c) {
  SiCtx **link = &state.created;
  while (*link && *link != c) link = &(*link)->next;
  if (!c || !*link) return CUDA_ERROR_INVALID_CONTEXT;
  *link = c->next;
  ctx_teardown(c, true);
  for (int i = 0; i < ctx_depth; i++)
    if (ctx_stack[i] == c) {
      memmove(&ctx_stack[i], &ctx_stack[i + 1], (size_t)(ctx_depth - i - 1) * sizeof *ctx_stack);
      ctx_depth--;
      i--;
    }
  free(c);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxDestroy_v2(void *ctx) { SI_ENTRY(ctx_destroy(ctx)); }

static CUresult ctx_synchronize(void) {
  SiCtx *c;
  CUresult rc = si_need_ctx(&c, true);
  return rc == CUDA_SUCCESS ? si_drain_ctx(c) : rc;
}

EXPORT CUresult cuCtxSynchronize(void) { SI_ENTRY(ctx_synchronize()); }

/* NVIDIA's private tables: NVRTC opens libcuda.so.1 (which, in a process that loaded the
 * stand-in, is the stand-in, by its soname) and asks for them; it must be told there are none. */
EXPORT CUresult cuGetExportTable(const void **table, const void *id) {
  (void)id;
  if (table) *table = NULL;
  return CUDA_ERROR_NOT_SUPPORTED;
}

/* With PYK2CUDA_STANDIN_COUNT=FILE, a process that ran kernels appends "kernels N" to FILE as
 * it ends, so that a test can prove its kernels ran on the stand-in (tests/standin/on_standin.py). */
__attribute__((destructor)) static void report_count(void) {
  const char *path = getenv("PYK2CUDA_STANDIN_COUNT");
  if (!path || !*path || !state.kernels_run) return;
  FILE *f = fopen(path, "a");
  if (!f) return;
  fprintf(f, "kernels %llu\n", state.kernels_run);
  fclose(f);
}
