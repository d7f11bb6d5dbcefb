/* The CUDA Driver API: loading libcuda with dlopen into a CuDriver table, reporting failed calls,
 * and describing the driver and its devices for `pyk2cuda info`.
 *
 * The loader binds each field of CuDriver to its versioned symbol (cuMemAlloc -> cuMemAlloc_v2)
 * and refuses a library that lacks a required one. Nothing here creates a context or allocates
 * device memory: the rest of the runtime builds on the table with CU_CHECK (cudrv.h). */
#include "runtime/cuda/cudrv.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "runtime/cuda/dynlib.h"
#include "util/arena.h"
#include "util/buf.h"

/* dlsym returns an object pointer; we store it into function-pointer fields by copying bytes,
 * which POSIX guarantees to work and ISO C does not forbid. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function and object pointers differ");

/* ---- Loading -------------------------------------------------------------------------------- */


/* clang-format off */
#define REQ(field, name) {offsetof(CuDriver, field), true, {name, NULL}}
#define OPT(field, name) {offsetof(CuDriver, field), false, {name, NULL}}
/* clang-format on */
static const DynSymbol symbols[] = {
    REQ(cuInit, "cuInit"),
    REQ(cuDriverGetVersion, "cuDriverGetVersion"),
    REQ(cuDeviceGetCount, "cuDeviceGetCount"),
    REQ(cuDeviceGet, "cuDeviceGet"),
    REQ(cuDeviceGetName, "cuDeviceGetName"),
    REQ(cuDeviceGetAttribute, "cuDeviceGetAttribute"),
    REQ(cuDeviceTotalMem, "cuDeviceTotalMem_v2"),
    REQ(cuGetErrorName, "cuGetErrorName"),
    REQ(cuGetErrorString, "cuGetErrorString"),
    REQ(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    REQ(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
    REQ(cuCtxSetCurrent, "cuCtxSetCurrent"),
    REQ(cuCtxGetCurrent, "cuCtxGetCurrent"),
    REQ(cuCtxSynchronize, "cuCtxSynchronize"),
    REQ(cuModuleLoadDataEx, "cuModuleLoadDataEx"),
    REQ(cuModuleGetFunction, "cuModuleGetFunction"),
    REQ(cuModuleUnload, "cuModuleUnload"),
    REQ(cuLaunchKernel, "cuLaunchKernel"),
    REQ(cuMemAlloc, "cuMemAlloc_v2"),
    REQ(cuMemFree, "cuMemFree_v2"),
    REQ(cuMemcpyHtoD, "cuMemcpyHtoD_v2"),
    REQ(cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
    REQ(cuMemcpyDtoD, "cuMemcpyDtoD_v2"),
    REQ(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
    REQ(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
    REQ(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
    REQ(cuMemsetD8, "cuMemsetD8_v2"),
    REQ(cuMemsetD8Async, "cuMemsetD8Async"),
    REQ(cuMemHostAlloc, "cuMemHostAlloc"),
    REQ(cuMemFreeHost, "cuMemFreeHost"),
    REQ(cuMemHostRegister, "cuMemHostRegister_v2"),
    REQ(cuMemHostUnregister, "cuMemHostUnregister"),
    REQ(cuFuncGetAttribute, "cuFuncGetAttribute"),
    REQ(cuFuncSetAttribute, "cuFuncSetAttribute"),
    REQ(cuModuleGetGlobal, "cuModuleGetGlobal_v2"),
    REQ(cuStreamCreate, "cuStreamCreate"),
    REQ(cuStreamDestroy, "cuStreamDestroy_v2"),
    REQ(cuStreamSynchronize, "cuStreamSynchronize"),
    REQ(cuEventCreate, "cuEventCreate"),
    REQ(cuEventRecord, "cuEventRecord"),
    REQ(cuEventSynchronize, "cuEventSynchronize"),
    /* cuda.h 13 names cuEventElapsedTime_v2 (same signature); older drivers lack it. */
    {offsetof(CuDriver, cuEventElapsedTime), true, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}},
    REQ(cuEventDestroy, "cuEventDestroy_v2"),
    OPT(cuCtxCreate, "cuCtxCreate_v2"),
    OPT(cuCtxDestroy, "cuCtxDestroy_v2"),
    OPT(cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel"),
    OPT(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
    OPT(cuPointerGetAttribute, "cuPointerGetAttribute"),
    OPT(cuStreamWaitEvent, "cuStreamWaitEvent"),
    OPT(cuMemAllocAsync, "cuMemAllocAsync"),
    OPT(cuMemFreeAsync, "cuMemFreeAsync"),
    OPT(p2cStandinAttachSource, "p2cStandinAttachSource"),
};
#undef REQ
#undef OPT

/* Binds every symbol of an open library; a missing required one is an error. */
static P2cStatus bind_symbols(CuDriver *drv, char *err, size_t errlen) {
  const char *missing = dynlib_bind(drv->dl.handle, drv, symbols, sizeof symbols / sizeof symbols[0]);
  if (!missing) return P2C_OK;
  snprintf(err, errlen, "the CUDA driver at %.300s lacks %s: update the NVIDIA driver", drv->dl.path, missing);
  return P2C_ERR_NO_CUDA;
}

P2cStatus cudrv_open(CuDriver *drv, const char *override, char *err, size_t errlen) {
  bool from_env = override && *override;
  const char *path = from_env ? override : "libcuda.so.1";
  memset(drv, 0, sizeof *drv);
  char why[512];
  if (!dynlib_open(&drv->dl, path, why, sizeof why)) {
    if (from_env)
      snprintf(err, errlen,
               "no CUDA driver found: PYK2CUDA_LIBCUDA=%s could not be loaded (%s): fix or unset "
               "PYK2CUDA_LIBCUDA",
               path, why);
    else
      snprintf(err, errlen, "no CUDA driver found (libcuda.so.1 could not be loaded)");
    return P2C_ERR_NO_CUDA;
  }
  P2cStatus status = bind_symbols(drv, err, errlen);
  if (status != P2C_OK) cudrv_close(drv);
  return status;
}

void cudrv_close(CuDriver *drv) { dynlib_close(&drv->dl, drv, sizeof *drv); }

/* The one mutable global of this file: the process-wide driver table. A loaded driver is
 * process-wide by nature (dlopen hands every caller the same handle, and the driver keeps its
 * own global state), so one table serves every runtime object; dynlib_load_once fills it on the
 * first successful load and never changes it afterwards. */
static DynOnce shared_once = DYN_ONCE_INIT;
static CuDriver shared_driver;

static P2cStatus open_driver(void *table, const char *override, char *err, size_t errlen) {
  return cudrv_open(table, override, err, errlen);
}

P2cStatus cudrv_load(const CuDriver **out, char *err, size_t errlen) {
  const void *table;
  P2cStatus status = dynlib_load_once(&shared_once, &shared_driver, open_driver, "PYK2CUDA_LIBCUDA", &table, err, errlen);
  *out = table;
  return status;
}

/* ---- Checking calls ------------------------------------------------------------------------- */

/* The errors after which, as CUDA's documentation says of each, the context is unusable and
 * every later call in the process fails with the same error (a kernel's fault). */
/* The process that initialized the driver (its first successful cuInit), 0 before. A driver call
 * that fails in another process is in a child forked after that, which no CUDA driver serves
 * (Linux drivers answer CUDA_ERROR_NOT_INITIALIZED to every call), so the message says so. The
 * one mutable global of this file: process-wide by nature, written once, inherited by a fork. */
static _Atomic pid_t initialized_by;

/* Whether this process is a child forked after its parent initialized CUDA. */
static bool forked_after_init(pid_t *parent) {
  *parent = atomic_load(&initialized_by);
  return *parent != 0 && *parent != getpid();
}

static bool context_lost(CuResult rc) {
  switch (rc) {
  case 700: /* CUDA_ERROR_ILLEGAL_ADDRESS */
  case 702: /* CUDA_ERROR_LAUNCH_TIMEOUT */
  case 710: /* CUDA_ERROR_ASSERT */
  case 714: /* CUDA_ERROR_HARDWARE_STACK_ERROR */
  case 715: /* CUDA_ERROR_ILLEGAL_INSTRUCTION */
  case 716: /* CUDA_ERROR_MISALIGNED_ADDRESS */
  case 717: /* CUDA_ERROR_INVALID_ADDRESS_SPACE */
  case 718: /* CUDA_ERROR_INVALID_PC */
  case CUDRV_ERROR_LAUNCH_FAILED:
    return true;
  default:
    return false;
  }
}

P2cStatus cudrv_fail(const CuDriver *drv, CuResult rc, const char *call, const char *file, int line,
                     char *err, size_t errlen) {
  const char *name = NULL, *text = NULL;
  if (drv && drv->cuGetErrorName && drv->cuGetErrorName(rc, &name) != CUDRV_SUCCESS) name = NULL;
  if (drv && drv->cuGetErrorString && drv->cuGetErrorString(rc, &text) != CUDRV_SUCCESS)
    text = NULL;
  char code[32];
  if (!name) {
    snprintf(code, sizeof code, "CUresult %d", rc);
    name = code;
  }
  pid_t parent;
  char forked[320] = "";
  if (forked_after_init(&parent))
    snprintf(forked, sizeof forked, "; this process (pid %d) was forked from one that had "
             "initialized CUDA (pid %d), and CUDA cannot be used in a child forked after that: "
             "start such processes with multiprocessing's 'spawn' or 'forkserver' method",
             (int)getpid(), (int)parent);
  snprintf(err, errlen, "%s failed: %s%s%s (%s:%d)%s", call, name, text ? ": " : "", text ? text : "",
           file, line,
           forked[0] ? forked
           : context_lost(rc) ? "; the device's CUDA context is lost (a kernel faulted): every later "
                                "CUDA call in this process fails with this error; restart the process"
                              : "");
  if (rc == CUDRV_ERROR_NO_DEVICE || rc == CUDRV_ERROR_STUB_LIBRARY) return P2C_ERR_NO_CUDA;
  return P2C_ERR_CUDA;
}

/* ---- Devices -------------------------------------------------------------------------------- */

P2cStatus cudrv_init(const CuDriver *drv, int *device_count, char *err, size_t errlen) {
  P2cStatus status = P2C_OK;
  int count = 0;
  if (device_count) *device_count = 0;
  CuResult rc = drv->cuInit(0);
  if (rc == CUDRV_ERROR_STUB_LIBRARY) {
    snprintf(err, errlen,
             "no CUDA driver found (%.300s is the CUDA toolkit's stub library, not a driver): "
             "install the NVIDIA driver",
             drv->dl.path);
    return P2C_ERR_NO_CUDA;
  }
  if (rc == CUDRV_ERROR_NO_DEVICE) {
    snprintf(err, errlen, "no CUDA device found");
    return P2C_ERR_NO_CUDA;
  }
  if (rc != CUDRV_SUCCESS) return cudrv_fail(drv, rc, "cuInit(0)", __FILE__, __LINE__, err, errlen);
  pid_t none = 0;
  atomic_compare_exchange_strong(&initialized_by, &none, getpid());
  CU_CHECK(drv, cuDeviceGetCount(&count), err, errlen);
  if (count <= 0) {
    snprintf(err, errlen, "no CUDA device found");
    status = P2C_ERR_NO_CUDA;
  }
cleanup:
  if (device_count) *device_count = status == P2C_OK ? count : 0;
  return status;
}

typedef struct DeviceFacts {
  char name[256];
  int cc_major, cc_minor, sm_count, max_threads, max_shared, max_shared_optin;
  size_t total_mem;
} DeviceFacts;

/* Queries what `info` shows about one device. */
static P2cStatus query_device(const CuDriver *drv, int ordinal, DeviceFacts *f, char *err,
                              size_t errlen) {
  P2cStatus status = P2C_OK;
  CuDevice dev = 0;
  memset(f, 0, sizeof *f);
  CU_CHECK(drv, cuDeviceGet(&dev, ordinal), err, errlen);
  CU_CHECK(drv, cuDeviceGetName(f->name, (int)sizeof f->name, dev), err, errlen);
  f->name[sizeof f->name - 1] = '\0';
  CU_CHECK(drv, cuDeviceGetAttribute(&f->cc_major, CUDRV_ATTR_COMPUTE_CAPABILITY_MAJOR, dev), err,
           errlen);
  CU_CHECK(drv, cuDeviceGetAttribute(&f->cc_minor, CUDRV_ATTR_COMPUTE_CAPABILITY_MINOR, dev), err,
           errlen);
  CU_CHECK(drv, cuDeviceTotalMem(&f->total_mem, dev), err, errlen);
  CU_CHECK(drv, cuDeviceGetAttribute(&f->sm_count, CUDRV_ATTR_MULTIPROCESSOR_COUNT, dev), err,
           errlen);
  CU_CHECK(drv, cuDeviceGetAttribute(&f->max_threads, CUDRV_ATTR_MAX_THREADS_PER_BLOCK, dev), err,
           errlen);
  CU_CHECK(drv, cuDeviceGetAttribute(&f->max_shared, CUDRV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK, dev),
           err, errlen);
  CU_CHECK(
      drv,
      cuDeviceGetAttribute(&f->max_shared_optin, CUDRV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev),
      err, errlen);
cleanup:
  return status;
}

static void print_device(StrBuf *sb, int ordinal, const DeviceFacts *f) {
  sb_printf(sb, "device %d: %s\n", ordinal, f->name);
  sb_printf(sb, "  compute capability: %d.%d (sm_%d%d)\n", f->cc_major, f->cc_minor, f->cc_major,
            f->cc_minor);
  sb_printf(sb, "  total memory: %.1f GiB (%zu bytes)\n",
            (double)f->total_mem / (1024.0 * 1024 * 1024), f->total_mem);
  sb_printf(sb, "  multiprocessors: %d\n", f->sm_count);
  sb_printf(sb, "  max threads per block: %d\n", f->max_threads);
  sb_printf(sb, "  max shared memory per block: %d bytes (%d bytes opt-in)\n", f->max_shared,
            f->max_shared_optin);
}

/* Writes the whole description into sb. Allocation failure longjmps out (see format_guarded). */
static P2cStatus format_info(const CuDriver *drv, StrBuf *sb, char *err, size_t errlen) {
  P2cStatus status = P2C_OK;
  int version = 0, count = 0;
  status = cudrv_init(drv, &count, err, errlen);
  if (status != P2C_OK) goto cleanup;
  CU_CHECK(drv, cuDriverGetVersion(&version), err, errlen);
  sb_printf(sb, "CUDA driver: %d.%d (%s)\n", version / 1000, version % 1000 / 10, drv->dl.path);
  sb_printf(sb, "devices: %d\n", count);
  for (int i = 0; i < count; i++) {
    DeviceFacts facts;
    status = query_device(drv, i, &facts, err, errlen);
    if (status != P2C_OK) goto cleanup;
    print_device(sb, i, &facts);
  }
cleanup:
  return status;
}

/* Runs format_info with the arena's out-of-memory handler pointing here. The arena and buffer
 * belong to the caller, so nothing this function changes after setjmp is read after longjmp. */
static P2cStatus format_guarded(const CuDriver *drv, Arena *arena, StrBuf *sb, char *err,
                                size_t errlen) {
  jmp_buf oom;
  arena->oom = &oom;
  if (setjmp(oom)) {
    snprintf(err, errlen, "out of memory while describing the CUDA devices");
    return P2C_ERR_NOMEM;
  }
  return format_info(drv, sb, err, errlen);
}

P2cStatus cudrv_info(const CuDriver *drv, const P2cAllocator *alloc, char **text_out, char *err,
                     size_t errlen) {
  *text_out = NULL;
  P2cStatus status = P2C_OK;
  if (!drv) status = cudrv_load(&drv, err, errlen);
  if (status != P2C_OK) return status;
  Arena arena;
  StrBuf sb;
  arena_init(&arena, alloc);
  sb_init(&sb, &arena);
  status = format_guarded(drv, &arena, &sb, err, errlen);
  arena.oom = NULL;
  if (status == P2C_OK) {
    *text_out = mem_strndup(alloc, sb_str(&sb), sb.len);
    if (!*text_out) {
      snprintf(err, errlen, "out of memory while describing the CUDA devices");
      status = P2C_ERR_NOMEM;
    }
  }
  arena_free(&arena);
  return status;
}

void cudrv_text_free(const P2cAllocator *alloc, char *text) {
  if (text) mem_free(alloc, text, strlen(text) + 1);
}
