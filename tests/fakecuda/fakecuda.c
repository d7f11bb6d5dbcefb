/* libfakecuda: a stand-in for libcuda.so.1, for testing the GPU runtime on machines without a
 * GPU. Load it with PYK2CUDA_LIBCUDA=path/to/libfakecuda.so (the command line) or
 * cudrv_open(&drv, path, ...) (unit tests).
 *
 * It exports the driver entry points pyk2cuda binds, with the driver's versioned names and
 * signatures, and behaves like a driver where the runtime's correctness depends on it:
 *  - device memory is host memory (a device address is the host address), tracked per
 *    allocation: copies and memsets outside a live allocation fail with CUDA_ERROR_INVALID_VALUE,
 *    new allocations are filled with 0xAB (cuMemAlloc does not zero);
 *  - every call but cuInit and the device queries needs the primary context to have been
 *    retained and made current on the calling thread (CUDA_ERROR_INVALID_CONTEXT otherwise);
 *  - cuModuleLoadDataEx takes CUBIN (ELF) or PTX text and writes the JIT logs; a PTX containing
 *    FAKE_JIT_ERROR is refused with CUDA_ERROR_INVALID_PTX and a log;
 *  - cuModuleGetFunction finds a name only when it occurs in the image, and runs the kernels
 *    of the table below (written in C, over all threads of the grid) when launched; kernels
 *    not in the table run nothing;
 *  - events tell time on a fake clock: records, copies (1 tick per MiB, at least 1) and
 *    kernel launches (4 ticks) advance it; a tick is 0.25 ms;
 *  - with FAKECUDA_STREAM_USES=1, memory that queued work uses stays in use until that work is
 *    known done: each asynchronous copy, memset and launch (of a kernel of the table, whose
 *    parameters it reads) notes the device and pinned allocations it touches on its stream, a
 *    synchronize of the stream (of the default stream or the context: all streams) or a
 *    synchronous copy to the host ends the uses, and freeing memory still in use leaves a fault
 *    (CUDA_ERROR_ILLEGAL_ADDRESS) for the next synchronizing call, as the work would have read
 *    or written freed memory on a GPU. (A real cuMemFree may wait for the device instead; the
 *    fake asks callers not to rely on it.)
 * Failures are injected with FAKECUDA_FAIL=NAME:N:CODE (the N-th call of NAME returns CODE) and
 * FAKECUDA_DEVICES=N (N devices, default 1), read at cuInit; C tests use fakecuda_control and
 * fakecuda_stats. Not thread-safe: the tests call it from one thread. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef void *Handle;

enum {
  OK = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  NOT_INITIALIZED = 3,
  NO_DEVICE = 100,
  INVALID_DEVICE = 101,
  INVALID_IMAGE = 200,
  INVALID_CONTEXT = 201,
  INVALID_PTX = 218,
  INVALID_HANDLE = 400,
  NOT_FOUND = 500,
  NOT_READY = 600,
  ILLEGAL_ADDRESS = 700,
  HOST_MEMORY_ALREADY_REGISTERED = 712,
  HOST_MEMORY_NOT_REGISTERED = 713,
  LAUNCH_FAILED = 719,
  COOPERATIVE_LAUNCH_TOO_LARGE = 720,
};

/* ---- State ---------------------------------------------------------------------------------- */

typedef struct Alloc {
  unsigned char *ptr;
  size_t size;
  bool pinned;
} Alloc;

typedef struct Kernel Kernel;
typedef struct Module Module;
typedef struct Function {
  Module *module;
  const Kernel *kernel; /* NULL: runs nothing */
  char name[128];
  int max_dynamic_shared;
} Function;

struct Module {
  unsigned char *image;
  size_t size;
  Alloc *globals[8];
  char global_names[8][64];
  int global_count;
  Function *functions[32];
  int function_count;
};

typedef struct Event {
  long long time;
  bool recorded;
} Event;

/* What the test harness reads back. */
typedef struct FakeStats {
  int device_allocs, pinned_allocs, modules, streams, events, functions, retained_contexts;
  int launches;
  unsigned grid[3], block[3], shared_bytes;
  void *stream;
  int param_count;
  unsigned char params[16][128]; /* the bytes of each parameter of the last launch */
  size_t param_sizes[16];
  int set_attribute_calls, last_dynamic_shared;
  char last_function[128];
  int registered_ranges; /* host ranges page-locked by cuMemHostRegister */
  int cooperative_launches; /* of `launches`, those made by cuLaunchCooperativeKernel */
} FakeStats;

static struct {
  bool configured, initialized;
  int devices;
  int func_max_threads;
  int func_static_shared;
  char fail_name[64];
  int fail_nth, fail_code, fail_seen;
  CUresult pending; /* a fault reported by the next synchronizing call */
  Alloc *allocs[4096];
  int alloc_count;
  struct { const unsigned char *ptr; size_t size; } registered[64]; /* cuMemHostRegister's */
  int retained;
  long long clock;
  bool track_uses;  /* FAKECUDA_STREAM_USES=1 */
  struct { Handle stream; const unsigned char *ptr; } uses[1024]; /* allocations in use */
  int use_count;
  FakeStats stats;
} F;

static _Thread_local bool current; /* this thread has made the primary context current */

/* ---- Failure injection ---------------------------------------------------------------------- */

static void configure_from_env(void) {
  F.configured = true;
  const char *d = getenv("FAKECUDA_DEVICES");
  F.devices = d ? atoi(d) : 1;
  const char *u = getenv("FAKECUDA_STREAM_USES");
  F.track_uses = u && atoi(u) != 0;
  F.func_max_threads = 1024;
  const char *f = getenv("FAKECUDA_FAIL");
  if (f && *f) {
    char name[64] = "";
    int nth = 1, code = 1;
    if (sscanf(f, "%63[^:]:%d:%d", name, &nth, &code) >= 1) {
      snprintf(F.fail_name, sizeof F.fail_name, "%s", name);
      F.fail_nth = nth;
      F.fail_code = code;
    }
  }
}

/* The injected result for this call of `name`, or OK. */
static CUresult injected(const char *name) {
  if (!F.fail_name[0] || strcmp(F.fail_name, name) != 0) return OK;
  return ++F.fail_seen == F.fail_nth ? F.fail_code : OK;
}

#define ENTER(name)                           \
  do {                                        \
    CUresult injected_rc_ = injected(name);   \
    if (injected_rc_ != OK) return injected_rc_; \
  } while (0)

#define NEED_CONTEXT()                              \
  do {                                              \
    if (!F.initialized) return NOT_INITIALIZED;     \
    if (!current || F.retained <= 0) return INVALID_CONTEXT; \
  } while (0)

/* A fault left by a kernel is reported by the next synchronizing call, as the driver does. */
static CUresult take_pending(void) {
  CUresult rc = F.pending;
  return rc;
}

/* ---- Control, for the C tests --------------------------------------------------------------- */

EXPORT void fakecuda_control(const char *cmd, int a, int b) {
  if (!strcmp(cmd, "reset")) {
    for (int i = 0; i < F.alloc_count; i++) {
      free(F.allocs[i]->ptr);
      free(F.allocs[i]);
    }
    memset(&F, 0, sizeof F);
    current = false;
    configure_from_env();
  } else if (!strcmp(cmd, "devices")) {
    F.devices = a;
  } else if (!strcmp(cmd, "func-max-threads")) {
    F.func_max_threads = a;
  } else if (!strcmp(cmd, "func-static-shared")) {
    F.func_static_shared = a;
  } else if (!strcmp(cmd, "clear-fault")) {
    F.pending = OK;
  }
  (void)b;
}

/* Fails the a-th call (counting from now) of `name` with code b. */
EXPORT void fakecuda_fail(const char *name, int nth, int code) {
  snprintf(F.fail_name, sizeof F.fail_name, "%s", name ? name : "");
  F.fail_nth = nth;
  F.fail_code = code;
  F.fail_seen = 0;
}

EXPORT const FakeStats *fakecuda_stats(void) { return &F.stats; }

/* ---- Memory --------------------------------------------------------------------------------- */

static Alloc *new_alloc(size_t size, bool pinned) {
  if (F.alloc_count == (int)(sizeof F.allocs / sizeof F.allocs[0])) return NULL;
  Alloc *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->ptr = malloc(size ? size : 1);
  if (!a->ptr) {
    free(a);
    return NULL;
  }
  memset(a->ptr, 0xab, size);
  a->size = size;
  a->pinned = pinned;
  F.allocs[F.alloc_count++] = a;
  return a;
}

static bool free_alloc(const void *ptr, bool pinned) {
  for (int i = 0; i < F.alloc_count; i++)
    if (F.allocs[i]->ptr == ptr && F.allocs[i]->pinned == pinned) {
      free(F.allocs[i]->ptr);
      free(F.allocs[i]);
      F.allocs[i] = F.allocs[--F.alloc_count];
      return true;
    }
  return false;
}

/* True when [p, p + n) lies inside one live device allocation. */
static bool in_device_memory(CUdeviceptr p, size_t n) {
  uintptr_t a = (uintptr_t)p;
  for (int i = 0; i < F.alloc_count; i++) {
    const Alloc *al = F.allocs[i];
    uintptr_t lo = (uintptr_t)al->ptr;
    if (!al->pinned && a >= lo && a <= lo + al->size && n <= lo + al->size - a) return true;
  }
  return false;
}

static void tick_copy(size_t bytes) { F.clock += 1 + (long long)(bytes >> 20); }

/* ---- Uses of memory by queued work (FAKECUDA_STREAM_USES) ---------------------------------- */

/* The device or pinned allocation holding address p, or NULL. */
static const Alloc *alloc_at(const void *p) {
  const unsigned char *a = p;
  for (int i = 0; i < F.alloc_count; i++)
    if (a >= F.allocs[i]->ptr && a < F.allocs[i]->ptr + F.allocs[i]->size) return F.allocs[i];
  return NULL;
}

/* Work queued on `stream` uses the allocation holding p (if any). */
static void note_use(Handle stream, const void *p) {
  const Alloc *a = F.track_uses ? alloc_at(p) : NULL;
  if (!a) return;
  for (int i = 0; i < F.use_count; i++)
    if (F.uses[i].stream == stream && F.uses[i].ptr == a->ptr) return;
  if (F.use_count < (int)(sizeof F.uses / sizeof F.uses[0])) {
    F.uses[F.use_count].stream = stream;
    F.uses[F.use_count++].ptr = a->ptr;
  }
}

/* The work queued on `stream` (every stream when `all`) is done. */
static void uses_done(Handle stream, bool all) {
  int n = 0;
  for (int i = 0; i < F.use_count; i++)
    if (!all && F.uses[i].stream != stream) F.uses[n++] = F.uses[i];
  F.use_count = n;
}

/* The allocation at ptr is freed: queued work that uses it would fault. */
static void freeing(const void *ptr) {
  int n = 0;
  for (int i = 0; i < F.use_count; i++) {
    if (F.uses[i].ptr == ptr) F.pending = ILLEGAL_ADDRESS;
    else F.uses[n++] = F.uses[i];
  }
  F.use_count = n;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  ENTER("cuMemAlloc_v2");
  NEED_CONTEXT();
  if (bytes == 0) return INVALID_VALUE;
  if (bytes > ((size_t)1 << 34)) return OUT_OF_MEMORY;
  Alloc *a = new_alloc(bytes, false);
  if (!a) return OUT_OF_MEMORY;
  *p = (CUdeviceptr)(uintptr_t)a->ptr;
  F.stats.device_allocs++;
  return OK;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr p) {
  ENTER("cuMemFree_v2");
  NEED_CONTEXT();
  freeing((const void *)(uintptr_t)p);
  if (!free_alloc((void *)(uintptr_t)p, false)) return INVALID_VALUE;
  F.stats.device_allocs--;
  return OK;
}

EXPORT CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned flags) {
  ENTER("cuMemHostAlloc");
  NEED_CONTEXT();
  (void)flags;
  Alloc *a = bytes ? new_alloc(bytes, true) : NULL;
  if (!a) return bytes ? OUT_OF_MEMORY : INVALID_VALUE;
  *p = a->ptr;
  F.stats.pinned_allocs++;
  return OK;
}

EXPORT CUresult cuMemFreeHost(void *p) {
  ENTER("cuMemFreeHost");
  NEED_CONTEXT();
  freeing(p);
  if (!free_alloc(p, true)) return INVALID_VALUE;
  F.stats.pinned_allocs--;
  return OK;
}

/* Whether [p, p + n) overlaps a registration or a pinned allocation. */
static bool overlaps_page_locked(const unsigned char *p, size_t n) {
  for (int i = 0; i < F.stats.registered_ranges; i++)
    if (p < F.registered[i].ptr + F.registered[i].size && F.registered[i].ptr < p + n) return true;
  for (int i = 0; i < F.alloc_count; i++)
    if (F.allocs[i]->pinned && p < F.allocs[i]->ptr + F.allocs[i]->size && F.allocs[i]->ptr < p + n)
      return true;
  return false;
}

EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned flags) {
  ENTER("cuMemHostRegister_v2");
  NEED_CONTEXT();
  (void)flags;
  if (!p || bytes == 0) return INVALID_VALUE;
  if (overlaps_page_locked(p, bytes)) return HOST_MEMORY_ALREADY_REGISTERED;
  int n = F.stats.registered_ranges;
  if (n == (int)(sizeof F.registered / sizeof F.registered[0])) return OUT_OF_MEMORY;
  F.registered[n].ptr = p;
  F.registered[n].size = bytes;
  F.stats.registered_ranges++;
  return OK;
}

EXPORT CUresult cuMemHostUnregister(void *p) {
  ENTER("cuMemHostUnregister");
  NEED_CONTEXT();
  for (int i = 0; i < F.stats.registered_ranges; i++)
    if (F.registered[i].ptr == p) {
      F.registered[i] = F.registered[--F.stats.registered_ranges];
      return OK;
    }
  return HOST_MEMORY_NOT_REGISTERED;
}

/* For tests that cannot read FakeStats' layout (Python): the bytes registered at p, or 0. */
EXPORT size_t fakecuda_registered_bytes(const void *p) {
  for (int i = 0; i < F.stats.registered_ranges; i++)
    if (F.registered[i].ptr == p) return F.registered[i].size;
  return 0;
}

static CUresult copy_htod(CUdeviceptr dst, const void *src, size_t n) {
  NEED_CONTEXT();
  if (F.pending) return take_pending();
  if (!in_device_memory(dst, n)) return INVALID_VALUE;
  memcpy((void *)(uintptr_t)dst, src, n);
  tick_copy(n);
  return OK;
}

static CUresult copy_dtoh(void *dst, CUdeviceptr src, size_t n) {
  NEED_CONTEXT();
  if (F.pending) return take_pending();
  if (!in_device_memory(src, n)) return INVALID_VALUE;
  memcpy(dst, (const void *)(uintptr_t)src, n);
  tick_copy(n);
  return OK;
}

static CUresult copy_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  NEED_CONTEXT();
  if (F.pending) return take_pending();
  if (!in_device_memory(dst, n) || !in_device_memory(src, n)) return INVALID_VALUE;
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  tick_copy(n);
  return OK;
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  ENTER("cuMemcpyHtoD_v2");
  return copy_htod(dst, src, n);
}
EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
  ENTER("cuMemcpyDtoH_v2");
  CUresult rc = copy_dtoh(dst, src, n);
  if (rc == OK) uses_done(NULL, true);   /* synchronous: all earlier work is done */
  return rc;
}
EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  ENTER("cuMemcpyDtoD_v2");
  return copy_dtod(dst, src, n);
}
EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, Handle s) {
  ENTER("cuMemcpyHtoDAsync_v2");
  note_use(s, (const void *)(uintptr_t)dst);
  note_use(s, src);
  return copy_htod(dst, src, n);
}
EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, Handle s) {
  ENTER("cuMemcpyDtoHAsync_v2");
  note_use(s, (const void *)(uintptr_t)src);
  note_use(s, dst);
  return copy_dtoh(dst, src, n);
}
EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, Handle s) {
  ENTER("cuMemcpyDtoDAsync_v2");
  note_use(s, (const void *)(uintptr_t)src);
  note_use(s, (const void *)(uintptr_t)dst);
  return copy_dtod(dst, src, n);
}

static CUresult memset8(CUdeviceptr dst, unsigned char v, size_t n) {
  NEED_CONTEXT();
  if (!in_device_memory(dst, n)) return INVALID_VALUE;
  memset((void *)(uintptr_t)dst, v, n);
  return OK;
}
EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n) {
  ENTER("cuMemsetD8_v2");
  return memset8(dst, v, n);
}
EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, Handle s) {
  ENTER("cuMemsetD8Async");
  note_use(s, (const void *)(uintptr_t)dst);
  return memset8(dst, v, n);
}

/* ---- Initialization, devices, contexts, errors ---------------------------------------------- */

EXPORT CUresult cuInit(unsigned flags) {
  ENTER("cuInit");
  if (flags != 0) return INVALID_VALUE;
  if (!F.configured) configure_from_env();
  F.initialized = true;
  return F.devices > 0 ? OK : NO_DEVICE;
}

EXPORT CUresult cuDriverGetVersion(int *v) {
  ENTER("cuDriverGetVersion");
  *v = 13000;
  return OK;
}

EXPORT CUresult cuDeviceGetCount(int *n) {
  ENTER("cuDeviceGetCount");
  if (!F.initialized) return NOT_INITIALIZED;
  *n = F.devices;
  return OK;
}

EXPORT CUresult cuDeviceGet(int *d, int ordinal) {
  ENTER("cuDeviceGet");
  if (ordinal < 0 || ordinal >= F.devices) return INVALID_DEVICE;
  *d = ordinal;
  return OK;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, int d) {
  ENTER("cuDeviceGetName");
  snprintf(name, (size_t)len, "Fake GPU %d", d);
  return OK;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, int d) {
  ENTER("cuDeviceTotalMem_v2");
  (void)d;
  *bytes = (size_t)80 << 30;
  return OK;
}

EXPORT CUresult cuDeviceGetAttribute(int *v, int attribute, int d) {
  ENTER("cuDeviceGetAttribute");
  (void)d;
  switch (attribute) {
    case 1: *v = 1024; break;                       /* max threads per block */
    case 2: case 3: *v = 1024; break;               /* max block x, y */
    case 4: *v = 64; break;                         /* max block z */
    case 5: *v = 2147483647; break;                 /* max grid x */
    case 6: case 7: *v = 65535; break;              /* max grid y, z */
    case 8: *v = 49152; break;                      /* shared per block */
    case 10: *v = 32; break;                        /* warp size */
    case 16: *v = 132; break;                       /* SMs */
    case 75: *v = 9; break;                         /* compute capability */
    case 76: *v = 0; break;
    case 97: *v = 232448; break;                    /* shared opt-in */
    default: return INVALID_VALUE;
  }
  return OK;
}

static const struct {
  CUresult rc;
  const char *name, *text;
} errors[] = {
    {OK, "CUDA_SUCCESS", "no error"},
    {INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
     "too many blocks in cooperative launch"},
};

EXPORT CUresult cuGetErrorName(CUresult rc, const char **name) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].rc == rc) return *name = errors[i].name, OK;
  *name = NULL;
  return INVALID_VALUE;
}

EXPORT CUresult cuGetErrorString(CUresult rc, const char **text) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].rc == rc) return *text = errors[i].text, OK;
  *text = NULL;
  return INVALID_VALUE;
}

static int primary_context; /* its address is the context handle */

EXPORT CUresult cuDevicePrimaryCtxRetain(Handle *ctx, int d) {
  ENTER("cuDevicePrimaryCtxRetain");
  if (!F.initialized) return NOT_INITIALIZED;
  if (d < 0 || d >= F.devices) return INVALID_DEVICE;
  F.retained++;
  F.stats.retained_contexts = F.retained;
  *ctx = &primary_context;
  return OK;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int d) {
  ENTER("cuDevicePrimaryCtxRelease_v2");
  (void)d;
  if (F.retained <= 0) return INVALID_CONTEXT;
  F.retained--;
  F.stats.retained_contexts = F.retained;
  return OK;
}

EXPORT CUresult cuCtxSetCurrent(Handle ctx) {
  ENTER("cuCtxSetCurrent");
  if (ctx && (ctx != &primary_context || F.retained <= 0)) return INVALID_CONTEXT;
  current = ctx != NULL;
  return OK;
}

EXPORT CUresult cuCtxSynchronize(void) {
  ENTER("cuCtxSynchronize");
  NEED_CONTEXT();
  uses_done(NULL, true);
  return take_pending();
}

/* Optional entry points the loader also looks for. */
EXPORT CUresult cuCtxGetCurrent(Handle *ctx) {
  *ctx = current ? &primary_context : NULL;
  return OK;
}

/* ---- Streams and events --------------------------------------------------------------------- */

EXPORT CUresult cuStreamCreate(Handle *s, unsigned flags) {
  ENTER("cuStreamCreate");
  NEED_CONTEXT();
  (void)flags;
  *s = malloc(1);
  if (!*s) return OUT_OF_MEMORY;
  F.stats.streams++;
  return OK;
}

EXPORT CUresult cuStreamDestroy_v2(Handle s) {
  ENTER("cuStreamDestroy_v2");
  NEED_CONTEXT();
  if (!s) return INVALID_HANDLE;
  free(s);
  F.stats.streams--;
  return OK;
}

EXPORT CUresult cuStreamSynchronize(Handle s) {
  ENTER("cuStreamSynchronize");
  NEED_CONTEXT();
  uses_done(s, s == NULL);   /* the default stream waits for every blocking stream */
  return take_pending();
}

EXPORT CUresult cuEventCreate(Handle *e, unsigned flags) {
  ENTER("cuEventCreate");
  NEED_CONTEXT();
  (void)flags;
  *e = calloc(1, sizeof(Event));
  if (!*e) return OUT_OF_MEMORY;
  F.stats.events++;
  return OK;
}

EXPORT CUresult cuEventDestroy_v2(Handle e) {
  ENTER("cuEventDestroy_v2");
  NEED_CONTEXT();
  if (!e) return INVALID_HANDLE;
  free(e);
  F.stats.events--;
  return OK;
}

EXPORT CUresult cuEventRecord(Handle e, Handle s) {
  ENTER("cuEventRecord");
  NEED_CONTEXT();
  (void)s;
  Event *ev = e;
  ev->time = ++F.clock;
  ev->recorded = true;
  return OK;
}

EXPORT CUresult cuEventSynchronize(Handle e) {
  ENTER("cuEventSynchronize");
  NEED_CONTEXT();
  (void)e;
  return take_pending();
}

EXPORT CUresult cuEventElapsedTime_v2(float *ms, Handle start, Handle end) {
  ENTER("cuEventElapsedTime_v2");
  NEED_CONTEXT();
  const Event *a = start, *b = end;
  if (!a->recorded || !b->recorded) return INVALID_HANDLE;
  *ms = (float)(b->time - a->time) * 0.25f;
  return OK;
}

/* ---- Modules -------------------------------------------------------------------------------- */

/* Writes `text` into the log buffer named by the JIT options `buf_opt` and `size_opt`. */
static void write_log(unsigned n, const int *opts, void **vals, int buf_opt, int size_opt,
                      const char *text) {
  char *buf = NULL;
  size_t size = 0;
  for (unsigned i = 0; i < n; i++) {
    if (opts[i] == buf_opt) buf = vals[i];
    if (opts[i] == size_opt) size = (size_t)(uintptr_t)vals[i];
  }
  if (buf && size) snprintf(buf, size, "%s", text);
}

EXPORT CUresult cuModuleLoadDataEx(Handle *mod, const void *image, unsigned n, int *opts,
                                   void **vals) {
  ENTER("cuModuleLoadDataEx");
  NEED_CONTEXT();
  const unsigned char *p = image;
  bool elf = p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F';
  size_t size = 0;
  if (elf) {
    /* An ELF image's size: the section headers end it (e_shoff + e_shnum * e_shentsize). */
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, p + 0x28, 8);
    memcpy(&shentsize, p + 0x3a, 2);
    memcpy(&shnum, p + 0x3c, 2);
    size = (size_t)shoff + (size_t)shnum * shentsize;
  } else {
    size = strlen((const char *)p) + 1;
    bool ptx = strstr((const char *)p, ".version") != NULL;
    if (!ptx) {
      write_log(n, opts, vals, 5, 6, "fake JIT: the image is neither PTX nor CUBIN");
      return INVALID_IMAGE;
    }
    if (strstr((const char *)p, "FAKE_JIT_ERROR")) {
      write_log(n, opts, vals, 5, 6,
                "ptxas application ptx input, line 7; error   : Unknown symbol 'FAKE_JIT_ERROR'\n"
                "ptxas fatal   : Ptx assembly aborted due to errors");
      return INVALID_PTX;
    }
  }
  Module *m = calloc(1, sizeof *m);
  if (!m || !(m->image = malloc(size))) {
    free(m);
    return OUT_OF_MEMORY;
  }
  memcpy(m->image, p, size);
  m->size = size;
  write_log(n, opts, vals, 3, 4, "fake JIT: loaded");
  write_log(n, opts, vals, 5, 6, "");
  *mod = m;
  F.stats.modules++;
  return OK;
}

EXPORT CUresult cuModuleUnload(Handle mod) {
  ENTER("cuModuleUnload");
  NEED_CONTEXT();
  Module *m = mod;
  if (!m) return INVALID_HANDLE;
  for (int i = 0; i < m->global_count; i++) free_alloc(m->globals[i]->ptr, false);
  for (int i = 0; i < m->function_count; i++) free(m->functions[i]);
  F.stats.functions -= m->function_count;
  free(m->image);
  free(m);
  F.stats.modules--;
  return OK;
}

static bool ident_char(unsigned char c) {
  return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Whether the image names `name` as a whole word (a CUBIN's string table, a PTX .entry). */
static bool image_has(const Module *m, const char *name) {
  size_t n = strlen(name);
  for (size_t i = 0; i + n <= m->size; i++)
    if (memcmp(m->image + i, name, n) == 0 && (i == 0 || !ident_char(m->image[i - 1])) &&
        (i + n == m->size || !ident_char(m->image[i + n])))
      return true;
  return false;
}

/* A __device__ variable named in the image: 256 bytes of device memory made on first use and
 * left as cuMemAlloc leaves memory (0xAB), so that a runtime that forgets to initialize it
 * is noticed. */
static Alloc *module_global(Module *m, const char *name) {
  for (int i = 0; i < m->global_count; i++)
    if (!strcmp(m->global_names[i], name)) return m->globals[i];
  if (!image_has(m, name) || m->global_count == 8) return NULL;
  Alloc *a = new_alloc(256, false);
  if (!a) return NULL;
  snprintf(m->global_names[m->global_count], 64, "%s", name);
  m->globals[m->global_count++] = a;
  return a;
}

EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *ptr, size_t *bytes, Handle mod,
                                     const char *name) {
  ENTER("cuModuleGetGlobal_v2");
  NEED_CONTEXT();
  Alloc *a = module_global(mod, name);
  if (!a) return NOT_FOUND;
  if (ptr) *ptr = (CUdeviceptr)(uintptr_t)a->ptr;
  if (bytes) *bytes = a->size;
  return OK;
}

/* ---- Kernels -------------------------------------------------------------------------------- */

typedef struct Dim3 {
  unsigned x, y, z;
} Dim3;

typedef struct Thread {
  Dim3 tid, bid, bdim, gdim;
  Module *module;
} Thread;

struct Kernel {
  const char *name;
  int param_count;
  size_t param_sizes[8];
  void (*run)(void **params, const Thread *t);
};

/* p2c_array<T, N> as generated code declares it: data, N extents, N strides in bytes. */
typedef struct Arr {
  unsigned char *data;
  int64_t shape[2];
  int64_t strides[2];
} Arr;

static Arr arr1(void *param) {
  Arr a;
  memcpy(&a.data, param, 8);
  memcpy(&a.shape[0], (char *)param + 8, 8);
  memcpy(&a.strides[0], (char *)param + 16, 8);
  return a;
}

static Arr arr2(void *param) {
  Arr a;
  memcpy(&a.data, param, 8);
  memcpy(a.shape, (char *)param + 8, 16);
  memcpy(a.strides, (char *)param + 24, 16);
  return a;
}

/* The address of element [i] or [i, j]; a fault when it leaves device memory. */
static void *at(const Arr *a, int64_t i, int64_t j, size_t item) {
  unsigned char *p = a->data + i * a->strides[0] + j * a->strides[1];
  if (!in_device_memory((CUdeviceptr)(uintptr_t)p, item)) {
    F.pending = ILLEGAL_ADDRESS;
    static unsigned char sink[16];
    return sink;
  }
  return p;
}

static int64_t global_x(const Thread *t) { return (int64_t)t->bid.x * t->bdim.x + t->tid.x; }
static int64_t global_y(const Thread *t) { return (int64_t)t->bid.y * t->bdim.y + t->tid.y; }

/* samples/vecadd.py: c[i] = a[i] + b[i] for int32 a, b and float64 c. */
static void run_vecadd(void **params, const Thread *t) {
  Arr a = arr1(params[0]), b = arr1(params[1]), c = arr1(params[2]);
  a.strides[1] = b.strides[1] = c.strides[1] = 0;
  int64_t i = global_x(t);
  if (i >= c.shape[0]) return;
  int32_t x, y;
  memcpy(&x, at(&a, i, 0, 4), 4);
  memcpy(&y, at(&b, i, 0, 4), 4);
  double sum = (double)x + (double)y;
  memcpy(at(&c, i, 0, 8), &sum, 8);
}

/* tests/fakecuda/kernels.py scale2d: out[i, j] = x[i, j] * a, float64 2-D, any layout. */
static void run_scale2d(void **params, const Thread *t) {
  Arr out = arr2(params[0]), x = arr2(params[1]);
  double a, v;
  memcpy(&a, params[2], 8);
  int64_t i = global_x(t), j = global_y(t);
  if (i >= out.shape[0] || j >= out.shape[1]) return;
  memcpy(&v, at(&x, i, j, 8), 8);
  v *= a;
  memcpy(at(&out, i, j, 8), &v, 8);
}

/* tests/python/fake_kernels.py tuple_axpy: one parameter, the tuple (a, x, y) of a float64 and
 * two 1-D float64 arrays, passed by value as its struct (a at 0, x at 8, y at 32):
 * y[i] += a * x[i]. */
static void run_tuple_axpy(void **params, const Thread *t) {
  double a, xv, yv;
  memcpy(&a, params[0], 8);
  Arr x = arr1((char *)params[0] + 8), y = arr1((char *)params[0] + 32);
  x.strides[1] = y.strides[1] = 0;
  int64_t i = global_x(t);
  if (i >= y.shape[0]) return;
  memcpy(&xv, at(&x, i, 0, 8), 8);
  memcpy(&yv, at(&y, i, 0, 8), 8);
  yv += a * xv;
  memcpy(at(&y, i, 0, 8), &yv, 8);
}

/* tests/fakecuda/kernels.py accumulate: x[i] += y[i], int64 1-D. */
static void run_accumulate(void **params, const Thread *t) {
  Arr x = arr1(params[0]), y = arr1(params[1]);
  x.strides[1] = y.strides[1] = 0;
  int64_t i = global_x(t), a, b;
  if (i >= x.shape[0]) return;
  memcpy(&a, at(&x, i, 0, 8), 8);
  memcpy(&b, at(&y, i, 0, 8), 8);
  a += b;
  memcpy(at(&x, i, 0, 8), &a, 8);
}

/* tests/fakecuda/kernels.py fault: touches memory far outside its array. */
static void run_fault(void **params, const Thread *t) {
  Arr x = arr1(params[0]);
  x.strides[1] = 0;
  if (global_x(t) == 0) *(volatile unsigned char *)at(&x, x.shape[0] + (1 << 28), 0, 1) = 1;
}

/* Hand-written CUDA C (the runtime tests' SourceModule): y[i] = a * x[i] + y[i]. */
static void run_saxpy(void **params, const Thread *t) {
  CUdeviceptr y, x;
  float a;
  int n;
  memcpy(&y, params[0], 8);
  memcpy(&x, params[1], 8);
  memcpy(&a, params[2], 4);
  memcpy(&n, params[3], 4);
  int64_t i = global_x(t);
  if (i >= n) return;
  if (!in_device_memory(y + 4 * (CUdeviceptr)i, 4) || !in_device_memory(x + 4 * (CUdeviceptr)i, 4)) {
    F.pending = ILLEGAL_ADDRESS;
    return;
  }
  float *py = (float *)(uintptr_t)y, *px = (float *)(uintptr_t)x;
  py[i] = a * px[i] + py[i];
}

static float f32_at(Arr *a, int64_t i) {
  float v;
  memcpy(&v, at(a, i, 0, 4), 4);
  return v;
}

/* samples/normalize.py partial_sums: the block's grid-stride sums, added up by its thread 0
 * (the C version does the block's reduction in one go; the order of the float additions
 * differs from the GPU's tree, the value agrees within rounding). */
static void run_partial_sums(void **params, const Thread *t) {
  Arr x = arr1(params[0]), partials = arr1(params[1]);
  x.strides[1] = partials.strides[1] = 0;
  if (t->tid.x != 0) return;
  int64_t stride = (int64_t)t->gdim.x * t->bdim.x;
  float acc = 0;
  for (unsigned tid = 0; tid < t->bdim.x; tid++)
    for (int64_t k = (int64_t)t->bid.x * t->bdim.x + tid; k < x.shape[0]; k += stride)
      acc += f32_at(&x, k);
  memcpy(at(&partials, t->bid.x, 0, 4), &acc, 4);
}

/* samples/normalize.py total_sum. */
static void run_total_sum(void **params, const Thread *t) {
  Arr partials = arr1(params[0]), total = arr1(params[1]);
  partials.strides[1] = total.strides[1] = 0;
  if (global_x(t) != 0) return;
  float acc = 0;
  for (int64_t k = 0; k < partials.shape[0]; k++) acc += f32_at(&partials, k);
  memcpy(at(&total, 0, 0, 4), &acc, 4);
}

/* samples/normalize.py divide. */
static void run_divide(void **params, const Thread *t) {
  Arr x = arr1(params[0]), total = arr1(params[1]);
  x.strides[1] = total.strides[1] = 0;
  int64_t stride = (int64_t)t->gdim.x * t->bdim.x;
  float d = f32_at(&total, 0);
  for (int64_t k = global_x(t); k < x.shape[0]; k += stride) {
    float v = f32_at(&x, k) / d;
    memcpy(at(&x, k, 0, 4), &v, 4);
  }
}

/* tests/fakecuda/kernels.py oob, compiled with --check-bounds: x[i] = i, where the threads past
 * the end fill the module's failure record p2c_bounds_report as the generated code does (the
 * first one wins; offsets as in src/runtime/bounds.h) and end. */
static void run_oob(void **params, const Thread *t) {
  Arr x = arr1(params[0]);
  x.strides[1] = 0;
  int64_t i = global_x(t);
  if (i < x.shape[0]) {
    int32_t v = (int32_t)i;
    memcpy(at(&x, i, 0, 4), &v, 4);
    return;
  }
  Alloc *rec = module_global(t->module, "p2c_bounds_report");
  uint32_t claimed;
  if (!rec) return;
  memcpy(&claimed, rec->ptr, 4);
  if (claimed != 0) return; /* atomicCAS(&claimed, 0, 1) lost */
  uint32_t head[11] = {1, 38, 5, 1, 0, t->bid.x, t->bid.y, t->bid.z, t->tid.x, t->tid.y, t->tid.z};
  memcpy(rec->ptr, head, sizeof head);
  memcpy(rec->ptr + 48, &i, 8);
  memcpy(rec->ptr + 112, &x.shape[0], 8);
}

static const Kernel kernels[] = {
    {"oob", 1, {24}, run_oob},
    {"partial_sums", 2, {24, 24}, run_partial_sums},
    {"total_sum", 2, {24, 24}, run_total_sum},
    {"divide", 2, {24, 24}, run_divide},
    {"vecadd", 3, {24, 24, 24}, run_vecadd},
    {"scale2d", 3, {40, 40, 8}, run_scale2d},
    {"accumulate", 2, {24, 24}, run_accumulate},
    {"fault", 1, {24}, run_fault},
    {"saxpy", 4, {8, 8, 4, 4}, run_saxpy},
    {"tuple_axpy", 1, {56}, run_tuple_axpy},
    {"empty", 0, {0}, NULL},
};

EXPORT CUresult cuModuleGetFunction(Handle *fn, Handle mod, const char *name) {
  ENTER("cuModuleGetFunction");
  NEED_CONTEXT();
  Module *m = mod;
  if (!m) return INVALID_HANDLE;
  for (int i = 0; i < m->function_count; i++)
    if (!strcmp(m->functions[i]->name, name)) return *fn = m->functions[i], OK;
  if (!image_has(m, name)) return NOT_FOUND;
  if (m->function_count == 32) return OUT_OF_MEMORY;
  Function *f = calloc(1, sizeof *f);
  if (!f) return OUT_OF_MEMORY;
  snprintf(f->name, sizeof f->name, "%s", name);
  f->module = m;
  f->max_dynamic_shared = 49152 - F.func_static_shared;
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
    if (!strcmp(kernels[i].name, name)) f->kernel = &kernels[i];
  m->functions[m->function_count++] = f;
  *fn = f;
  F.stats.functions++;
  return OK;
}

EXPORT CUresult cuFuncGetAttribute(int *v, int attribute, Handle fn) {
  ENTER("cuFuncGetAttribute");
  NEED_CONTEXT();
  Function *f = fn;
  switch (attribute) {
    case 0: *v = F.func_max_threads; break;
    case 1: *v = F.func_static_shared; break;
    case 8: *v = f->max_dynamic_shared; break;
    default: *v = 0; break;
  }
  return OK;
}

EXPORT CUresult cuFuncSetAttribute(Handle fn, int attribute, int value) {
  ENTER("cuFuncSetAttribute");
  NEED_CONTEXT();
  Function *f = fn;
  if (attribute != 8) return INVALID_VALUE;
  if (value + F.func_static_shared > 232448) return INVALID_VALUE;
  f->max_dynamic_shared = value;
  F.stats.set_attribute_calls++;
  F.stats.last_dynamic_shared = value;
  return OK;
}

static CUresult launch(Handle fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned shared, Handle stream, void **params,
                       void **extra);

/* Records the launch, then runs the kernel's C version over every thread of the grid. */
EXPORT CUresult cuLaunchKernel(Handle fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned shared, Handle stream,
                               void **params, void **extra) {
  ENTER("cuLaunchKernel");
  NEED_CONTEXT();
  return launch(fn, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
}

/* The blocks of `threads` threads one SM of the fake H100 holds at once: 2048 threads, at most
 * 32 blocks (shared memory and registers are not modelled). */
static int blocks_per_sm(int threads) {
  int n = threads > 0 ? 2048 / threads : 0;
  return n < 32 ? n : 32;
}

EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, Handle fn, int threads,
                                                            size_t shared) {
  ENTER("cuOccupancyMaxActiveBlocksPerMultiprocessor");
  NEED_CONTEXT();
  (void)shared;
  if (!fn || !blocks || threads <= 0 || threads > 1024) return INVALID_VALUE;
  *blocks = blocks_per_sm(threads);
  return OK;
}

/* A cooperative launch: the grid must fit on the 132 SMs at once (else the driver's
 * CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, 720); then as cuLaunchKernel, counted apart. The C
 * versions of the kernels run thread after thread, so a grid sync cannot be modelled here. */
EXPORT CUresult cuLaunchCooperativeKernel(Handle fn, unsigned gx, unsigned gy, unsigned gz,
                                          unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                          Handle stream, void **params) {
  ENTER("cuLaunchCooperativeKernel");
  NEED_CONTEXT();
  if ((unsigned long long)gx * gy * gz > (unsigned long long)blocks_per_sm((int)(bx * by * bz)) * 132)
    return COOPERATIVE_LAUNCH_TOO_LARGE;
  CUresult rc = launch(fn, gx, gy, gz, bx, by, bz, shared, stream, params, NULL);
  if (rc == OK) F.stats.cooperative_launches++;
  return rc;
}

static CUresult launch(Handle fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned shared, Handle stream, void **params,
                       void **extra) {
  Function *f = fn;
  if (!f || extra) return INVALID_VALUE;
  if ((unsigned long long)bx * by * bz > 1024 || (int)shared > f->max_dynamic_shared)
    return INVALID_VALUE;
  FakeStats *st = &F.stats;
  st->launches++;
  unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};
  memcpy(st->grid, g, sizeof g);
  memcpy(st->block, b, sizeof b);
  st->shared_bytes = shared;
  st->stream = stream;
  snprintf(st->last_function, sizeof st->last_function, "%s", f->name);
  const Kernel *k = f->kernel;
  st->param_count = k ? k->param_count : 0;
  for (int i = 0; k && i < k->param_count; i++) {
    st->param_sizes[i] = k->param_sizes[i];
    memcpy(st->params[i], params[i], k->param_sizes[i]);
    for (size_t w = 0; w + 8 <= k->param_sizes[i]; w += 8) {   /* array data addresses */
      uint64_t word;
      memcpy(&word, (const unsigned char *)params[i] + w, 8);
      note_use(stream, (const void *)(uintptr_t)word);
    }
  }
  F.clock += 4;
  if (!k || !k->run) return OK;
  Thread t = {.bdim = {bx, by, bz}, .gdim = {gx, gy, gz}, .module = f->module};
  for (t.bid.z = 0; t.bid.z < gz; t.bid.z++)
    for (t.bid.y = 0; t.bid.y < gy; t.bid.y++)
      for (t.bid.x = 0; t.bid.x < gx; t.bid.x++)
        for (t.tid.z = 0; t.tid.z < bz; t.tid.z++)
          for (t.tid.y = 0; t.tid.y < by; t.tid.y++)
            for (t.tid.x = 0; t.tid.x < bx; t.tid.x++) k->run(params, &t);
  return OK;
}
