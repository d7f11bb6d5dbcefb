/* The CUDA Driver API, loaded with dlopen at first use (internal API).
 *
 * CuDriver is a plain struct of function pointers, one per driver function we use, named after
 * the function without its version suffix: drv->cuMemAlloc is bound to cuMemAlloc_v2, with the
 * 64-bit signature that name has in cuda.h. Nothing is exported under NVIDIA's names, and no
 * NVIDIA header is included: the types, constants and prototypes below are declared by hand
 * (CUresult and CUdevice are ints, handles are opaque pointers, device pointers 64-bit), so the
 * project builds where no CUDA toolkit is installed.
 *
 * Where libcuda is looked for: $PYK2CUDA_LIBCUDA (a path) when it is set, and then nothing else
 * (if it does not load: P2C_ERR_NO_CUDA, so tests and users can simulate a missing driver);
 * otherwise libcuda.so.1, the name the NVIDIA driver installs.
 *
 * Calling the driver: every call goes through CU_CHECK (below), which records the call's text,
 * file, line and the driver's error name, and jumps to the function's `cleanup` label, where
 * every handle acquired so far is released:
 *
 *   P2cStatus status = P2C_OK;
 *   CuDevicePtr buf = 0;
 *   CU_CHECK(drv, cuMemAlloc(&buf, bytes), err, errlen);
 *   CU_CHECK(drv, cuMemcpyHtoD(buf, host, bytes), err, errlen);
 *   ...
 * cleanup:
 *   if (buf) drv->cuMemFree(buf);
 *   return status;
 *
 * Thread safety: the shared table is loaded once under a mutex and immutable afterwards; the
 * driver's own rules apply to the calls (a context is current per thread). */
#ifndef P2C_RUNTIME_CUDA_CUDRV_H
#define P2C_RUNTIME_CUDA_CUDRV_H

#include <stddef.h>

#include "pyk2cuda.h"
#include "runtime/cuda/dynlib.h"

/* ---- The driver's ABI, declared by hand ----------------------------------------------------- */

typedef int CuResult;                        /* CUresult; 0 is CUDA_SUCCESS */
typedef int CuDevice;                        /* CUdevice: an ordinal */
typedef unsigned long long CuDevicePtr;      /* CUdeviceptr (64-bit, the _v2 API) */
typedef struct CuContextOpaque *CuContext;   /* CUcontext */
typedef struct CuModuleOpaque *CuModule;     /* CUmodule */
typedef struct CuFunctionOpaque *CuFunction; /* CUfunction */
typedef struct CuStreamOpaque *CuStream;     /* CUstream; NULL is the legacy default stream */
typedef struct CuEventOpaque *CuEvent;       /* CUevent */

/* CUresult values we act on (the rest are reported by name through cuGetErrorName). */
enum {
  CUDRV_SUCCESS = 0,
  CUDRV_ERROR_INVALID_VALUE = 1,
  CUDRV_ERROR_OUT_OF_MEMORY = 2,
  CUDRV_ERROR_NOT_INITIALIZED = 3,
  CUDRV_ERROR_STUB_LIBRARY = 34, /* libcuda.so.1 is the toolkit's stub, not a driver */
  CUDRV_ERROR_INSUFFICIENT_DRIVER = 35,
  CUDRV_ERROR_NO_DEVICE = 100,
  CUDRV_ERROR_INVALID_DEVICE = 101,
  CUDRV_ERROR_INVALID_IMAGE = 200,
  CUDRV_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDRV_ERROR_INVALID_PTX = 218,
  CUDRV_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDRV_ERROR_INVALID_HANDLE = 400,
  CUDRV_ERROR_NOT_FOUND = 500,
  CUDRV_ERROR_ILLEGAL_ADDRESS = 700,
  CUDRV_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDRV_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
  CUDRV_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
  CUDRV_ERROR_LAUNCH_FAILED = 719,
  CUDRV_ERROR_NOT_SUPPORTED = 801,
};

/* CUdevice_attribute values (cuDeviceGetAttribute). */
enum {
  CUDRV_ATTR_MAX_THREADS_PER_BLOCK = 1,
  CUDRV_ATTR_MAX_BLOCK_DIM_X = 2, /* _Y = 3, _Z = 4 */
  CUDRV_ATTR_MAX_GRID_DIM_X = 5,  /* _Y = 6, _Z = 7 */
  CUDRV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CUDRV_ATTR_WARP_SIZE = 10,
  CUDRV_ATTR_MULTIPROCESSOR_COUNT = 16,
  CUDRV_ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
  CUDRV_ATTR_COMPUTE_CAPABILITY_MINOR = 76,
  CUDRV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  CUDRV_ATTR_MEMORY_POOLS_SUPPORTED = 115, /* cuMemAllocAsync works on the device (CUDA 11.2+) */
};

/* CUjit_option values (cuModuleLoadDataEx). Option values are passed as void *: a buffer is its
 * pointer, a size is (void *)(uintptr_t)bytes (the driver writes back the bytes it used), a flag
 * is (void *)1. */
enum {
  CUDRV_JIT_INFO_LOG_BUFFER = 3,
  CUDRV_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CUDRV_JIT_ERROR_LOG_BUFFER = 5,
  CUDRV_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CUDRV_JIT_LOG_VERBOSE = 12,
};

/* CUfunction_attribute values (cuFuncGetAttribute). */
enum {
  CUDRV_FUNC_MAX_THREADS_PER_BLOCK = 0,
  CUDRV_FUNC_SHARED_SIZE_BYTES = 1,
  CUDRV_FUNC_CONST_SIZE_BYTES = 2,
  CUDRV_FUNC_LOCAL_SIZE_BYTES = 3,
  CUDRV_FUNC_NUM_REGS = 4,
  CUDRV_FUNC_PTX_VERSION = 5,
  CUDRV_FUNC_BINARY_VERSION = 6,
  CUDRV_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

/* CUpointer_attribute values (cuPointerGetAttribute). */
enum { CUDRV_POINTER_DEVICE_ORDINAL = 9 };

/* Stream handles with a meaning of their own (__cuda_array_interface__ v3 uses the same). */
#define CUDRV_STREAM_LEGACY ((CuStream)0x1)
#define CUDRV_STREAM_PER_THREAD ((CuStream)0x2)

/* Flags. */
enum {
  CUDRV_STREAM_DEFAULT = 0,
  CUDRV_STREAM_NON_BLOCKING = 1,
  CUDRV_EVENT_DEFAULT = 0,
  CUDRV_EVENT_BLOCKING_SYNC = 1,
  CUDRV_EVENT_DISABLE_TIMING = 2,
  CUDRV_MEMHOSTALLOC_PORTABLE = 1,
  CUDRV_MEMHOSTREGISTER_PORTABLE = 1,
  CUDRV_MEMHOSTREGISTER_READ_ONLY = 8, /* the device only reads it (read-only pages need it) */
};

/* The table. Each field is named after the driver function it calls; the comment gives the
 * symbol bound when it differs. "Required" fields are non-NULL in every loaded table (a driver
 * without one is refused); "optional" ones may be NULL: test before calling. */
typedef struct CuDriver {
  DynLib dl;      /* the library: its handle, the name or path that loaded */

  /* -- required: initialization, devices, errors */
  CuResult (*cuInit)(unsigned int flags);
  CuResult (*cuDriverGetVersion)(int *version); /* 13000 = 13.0 */
  CuResult (*cuDeviceGetCount)(int *count);
  CuResult (*cuDeviceGet)(CuDevice *device, int ordinal);
  CuResult (*cuDeviceGetName)(char *name, int len, CuDevice device);
  CuResult (*cuDeviceGetAttribute)(int *value, int attribute, CuDevice device);
  CuResult (*cuDeviceTotalMem)(size_t *bytes, CuDevice device); /* cuDeviceTotalMem_v2 */
  CuResult (*cuGetErrorName)(CuResult error, const char **name);
  CuResult (*cuGetErrorString)(CuResult error, const char **text);

  /* -- required: contexts (the runtime uses the device's primary context, current only while a
   * call works in it: gpu_enter, gpu_leave) */
  CuResult (*cuDevicePrimaryCtxRetain)(CuContext *ctx, CuDevice device);
  CuResult (*cuDevicePrimaryCtxRelease)(CuDevice device); /* cuDevicePrimaryCtxRelease_v2 */
  CuResult (*cuCtxSetCurrent)(CuContext ctx);
  CuResult (*cuCtxGetCurrent)(CuContext *ctx);
  CuResult (*cuCtxSynchronize)(void);

  /* -- required: modules, kernels */
  CuResult (*cuModuleLoadDataEx)(CuModule *module, const void *image, unsigned int num_options,
                                 int *options, void **option_values);
  CuResult (*cuModuleGetFunction)(CuFunction *function, CuModule module, const char *name);
  CuResult (*cuModuleUnload)(CuModule module);
  CuResult (*cuLaunchKernel)(CuFunction function, unsigned int grid_x, unsigned int grid_y,
                             unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                             unsigned int block_z, unsigned int shared_bytes, CuStream stream,
                             void **params, void **extra);

  /* -- required: memory */
  CuResult (*cuMemAlloc)(CuDevicePtr *ptr, size_t bytes);                   /* cuMemAlloc_v2 */
  CuResult (*cuMemFree)(CuDevicePtr ptr);                                   /* cuMemFree_v2 */
  CuResult (*cuMemcpyHtoD)(CuDevicePtr dst, const void *src, size_t bytes); /* cuMemcpyHtoD_v2 */
  CuResult (*cuMemcpyDtoH)(void *dst, CuDevicePtr src, size_t bytes);       /* cuMemcpyDtoH_v2 */
  CuResult (*cuMemcpyDtoD)(CuDevicePtr dst, CuDevicePtr src, size_t bytes); /* cuMemcpyDtoD_v2 */
  CuResult (*cuMemcpyHtoDAsync)(CuDevicePtr dst, const void *src, size_t bytes,
                                CuStream stream); /* cuMemcpyHtoDAsync_v2 */
  CuResult (*cuMemcpyDtoHAsync)(void *dst, CuDevicePtr src, size_t bytes,
                                CuStream stream); /* cuMemcpyDtoHAsync_v2 */
  CuResult (*cuMemcpyDtoDAsync)(CuDevicePtr dst, CuDevicePtr src, size_t bytes,
                                CuStream stream); /* cuMemcpyDtoDAsync_v2 */
  CuResult (*cuMemsetD8)(CuDevicePtr dst, unsigned char value, size_t count); /* cuMemsetD8_v2 */
  CuResult (*cuMemsetD8Async)(CuDevicePtr dst, unsigned char value, size_t count,
                              CuStream stream);
  CuResult (*cuMemHostAlloc)(void **ptr, size_t bytes, unsigned int flags);
  CuResult (*cuMemFreeHost)(void *ptr);
  CuResult (*cuMemHostRegister)(void *ptr, size_t bytes, unsigned int flags); /* _v2 */
  CuResult (*cuMemHostUnregister)(void *ptr);

  /* -- required: what a launch checks and what it reads back */
  CuResult (*cuFuncGetAttribute)(int *value, int attribute, CuFunction function);
  CuResult (*cuFuncSetAttribute)(CuFunction function, int attribute, int value);
  CuResult (*cuModuleGetGlobal)(CuDevicePtr *ptr, size_t *bytes, CuModule module,
                                const char *name); /* cuModuleGetGlobal_v2 */

  /* -- required: streams and events (timing) */
  CuResult (*cuStreamCreate)(CuStream *stream, unsigned int flags);
  CuResult (*cuStreamDestroy)(CuStream stream); /* cuStreamDestroy_v2 */
  CuResult (*cuStreamSynchronize)(CuStream stream);
  CuResult (*cuEventCreate)(CuEvent *event, unsigned int flags);
  CuResult (*cuEventRecord)(CuEvent event, CuStream stream);
  CuResult (*cuEventSynchronize)(CuEvent event);
  /* cuEventElapsedTime_v2 where the driver has it, else cuEventElapsedTime */
  CuResult (*cuEventElapsedTime)(float *ms, CuEvent start, CuEvent end);
  CuResult (*cuEventDestroy)(CuEvent event); /* cuEventDestroy_v2 */

  /* -- optional */
  CuResult (*cuCtxCreate)(CuContext *ctx, unsigned int flags, CuDevice device); /* cuCtxCreate_v2 */
  CuResult (*cuCtxDestroy)(CuContext ctx); /* cuCtxDestroy_v2 */
  /* cooperative launches (kernels with a grid sync, P2cKernelInfo.cooperative) */
  CuResult (*cuLaunchCooperativeKernel)(CuFunction function, unsigned int grid_x,
                                        unsigned int grid_y, unsigned int grid_z,
                                        unsigned int block_x, unsigned int block_y,
                                        unsigned int block_z, unsigned int shared_bytes,
                                        CuStream stream, void **params);
  CuResult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CuFunction function,
                                                          int block_threads, size_t shared_bytes);
  /* the stream-ordered allocator (CUDA 11.2+): frees that wait for no one (p2c_buffer_delete) */
  CuResult (*cuMemAllocAsync)(CuDevicePtr *ptr, size_t bytes, CuStream stream);
  CuResult (*cuMemFreeAsync)(CuDevicePtr ptr, CuStream stream);
  /* which device another library's memory is on, and ordering after its stream, on the device
   * (__cuda_array_interface__ imports) */
  CuResult (*cuPointerGetAttribute)(void *data, int attribute, CuDevicePtr ptr);
  CuResult (*cuStreamWaitEvent)(CuStream stream, CuEvent event, unsigned int flags);
  /* The test hook only the CUDA driver stand-in (tests/standin) exports: the CUDA C a module was
   * compiled from, so that the stand-in can run its kernels through the simulator
   * (docs/runtime.md). A real driver has no such symbol, and the field stays NULL. */
  CuResult (*p2cStandinAttachSource)(CuModule module, const char *cuda_source, size_t length);
} CuDriver;

/* ---- Loading -------------------------------------------------------------------------------- */

/* Opens libcuda into the caller's *drv, with `override` standing in for $PYK2CUDA_LIBCUDA (NULL
 * or "": not set). Does not touch the process's shared table and does not call cuInit. On
 * failure returns P2C_ERR_NO_CUDA, writes the reason to err and leaves *drv zeroed. For tests and
 * tools; close with cudrv_close. */
P2cStatus cudrv_open(CuDriver *drv, const char *override, char *err, size_t errlen);
/* Closes a table opened with cudrv_open; accepts a zeroed table. */
void cudrv_close(CuDriver *drv);

/* The process's shared table, loaded at the first call (reading $PYK2CUDA_LIBCUDA then), then
 * immutable and valid until the process ends. Does not call cuInit (cudrv_init does). On
 * failure: P2C_ERR_NO_CUDA, "no CUDA driver found (libcuda.so.1 could not be loaded)" or the
 * reason the override failed; a failed load is retried at the next call. */
P2cStatus cudrv_load(const CuDriver **out, char *err, size_t errlen);

/* ---- Checking calls ------------------------------------------------------------------------- */

/* Formats a failed call into err: "CALL failed: NAME: TEXT (FILE:LINE)", using the driver's
 * cuGetErrorName and cuGetErrorString when it has them; after an error that leaves the context
 * unusable (a kernel's fault: CUDA_ERROR_ILLEGAL_ADDRESS, _LAUNCH_FAILED, ...) it adds that the
 * context is lost, so the first failure and every later one say so. Returns the status for it:
 * P2C_ERR_NO_CUDA for CUDA_ERROR_NO_DEVICE and CUDA_ERROR_STUB_LIBRARY, else P2C_ERR_CUDA. */
P2cStatus cudrv_fail(const CuDriver *drv, CuResult rc, const char *call, const char *file, int line,
                     char *err, size_t errlen);

/* Calls drv->CALL (write the call as in C: cuMemAlloc(&ptr, n)). On failure it records the call
 * text, file, line and error name in err (errlen bytes), sets the caller's `P2cStatus status`
 * and jumps to the caller's `cleanup` label. */
#define CU_CHECK(drv, call, err, errlen)                                                \
  do {                                                                                  \
    CuResult cu_check_rc_ = (drv)->call;                                                \
    if (cu_check_rc_ != CUDRV_SUCCESS) {                                                \
      status = cudrv_fail((drv), cu_check_rc_, #call, __FILE__, __LINE__, err, errlen); \
      goto cleanup;                                                                     \
    }                                                                                   \
  } while (0)

/* ---- Devices -------------------------------------------------------------------------------- */

/* Calls cuInit(0) and counts devices. With no device (or the toolkit's stub library in place of
 * a driver) returns P2C_ERR_NO_CUDA: "no CUDA device found" or "no CUDA driver found (...)";
 * other failures are P2C_ERR_CUDA. *device_count may be NULL. */
P2cStatus cudrv_init(const CuDriver *drv, int *device_count, char *err, size_t errlen);

/* What `pyk2cuda info` prints about the driver and devices: the driver version, then for each
 * device its name, compute capability, total memory, SM count, max threads per block and max
 * shared memory per block, one fact per line. `drv` NULL: the shared table (cudrv_load).
 * `alloc` NULL: malloc. On P2C_OK, *text_out is a NUL-terminated string owned by the caller, to be
 * freed with cudrv_text_free(alloc, text). On failure *text_out is NULL and err says why:
 * P2C_ERR_NO_CUDA ("no CUDA driver found (...)", "no CUDA device found"), P2C_ERR_CUDA (a call
 * failed, see CU_CHECK) or P2C_ERR_NOMEM. */
P2cStatus cudrv_info(const CuDriver *drv, const P2cAllocator *alloc, char **text_out, char *err,
                     size_t errlen);
/* Frees a text from cudrv_info; accepts NULL. */
void cudrv_text_free(const P2cAllocator *alloc, char *text);

#endif
