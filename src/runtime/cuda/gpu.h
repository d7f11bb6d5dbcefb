/* The GPU runtime's core on top of the driver table (internal API): opening a device with its
 * primary context and limits, loading a module from PTX or CUBIN with the JIT's log, looking up
 * kernels with their attributes, and launching after the configuration has been checked against
 * the device's and the kernel's limits.
 *
 * Errors: every function returns a P2cStatus and writes one message to err: the driver call
 * that failed, the CUDA error name and text, where in pyk2cuda, and what it was doing (which
 * kernel, which module). P2C_ERR_NO_CUDA: no driver or no device; P2C_ERR_CUDA: a driver call
 * failed; P2C_ERR_USAGE: a launch configuration the device cannot run; P2C_ERR_NOMEM.
 *
 * Threads: the driver's rules. Each entry point makes the device's primary context current on
 * the calling thread for its work (gpu_enter) and gives the thread its own current context back
 * before it returns (gpu_leave), so a device may be used from any thread, and a host with a
 * context of its own (a C program, CuPy, PyTorch) finds it current after every call. */
#ifndef P2C_RUNTIME_CUDA_GPU_H
#define P2C_RUNTIME_CUDA_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/cuda/cudrv.h"

/* What the device allows, read once at open with cuDeviceGetAttribute. */
typedef struct GpuLimits {
  char name[256];
  int cc_major, cc_minor;
  size_t total_mem;
  int sm_count, warp_size;
  int max_threads_per_block;
  int max_block[3];
  int max_grid[3];
  int max_shared_per_block;   /* without opting in */
  int max_shared_optin;       /* the most a kernel can be allowed (cuFuncSetAttribute) */
  bool memory_pools;          /* MEMORY_POOLS_SUPPORTED: the stream-ordered allocator works */
} GpuLimits;

typedef struct GpuContext {
  const CuDriver *drv;
  int ordinal;
  CuDevice device;
  CuContext ctx; /* the primary context, retained by gpu_open, released by gpu_close */
  GpuLimits limits;
} GpuContext;

/* Initializes the driver, checks that device `ordinal` exists, reads its limits and retains its
 * primary context. On failure nothing is held. */
P2cStatus gpu_open(const CuDriver *drv, int ordinal, GpuContext *g, char *err, size_t errlen);
/* Releases the primary context. Accepts a context that failed to open (zeroed). */
void gpu_close(GpuContext *g);
/* The calling thread's current context, kept while a call works in the device's. */
typedef struct GpuScope {
  const GpuContext *g;
  CuContext saved;  /* the caller's (NULL: none) */
  bool switched;    /* the device's was made current, and `saved` is to be given back */
} GpuScope;

/* Makes the device's context current on this thread for a call's work, remembering the
 * caller's in *scope (no driver call changes anything when it already is current). On failure
 * nothing changed and gpu_leave is harmless. */
P2cStatus gpu_enter(const GpuContext *g, GpuScope *scope, char *err, size_t errlen);
/* Gives the thread the context that was current at gpu_enter. Accepts a scope that failed. */
void gpu_leave(GpuScope *scope);

/* The architecture NVRTC should compile for: "sm_90" for compute capability 9.0. */
void gpu_arch(const GpuContext *g, char *out, size_t outlen);

enum { GPU_JIT_LOG_BYTES = 8192 };

/* Loads a PTX (text; a NUL is added when missing) or CUBIN/fatbin image. `what` names it in
 * messages ("samples/vecadd.py"). On failure err holds the call, the error name and the JIT's
 * error log. The info log, when the JIT wrote one, goes to info_log (may be NULL). */
P2cStatus gpu_module_load(const GpuContext *g, const void *image, size_t size, const char *what,
                          CuModule *out, char *info_log, size_t info_len, char *err,
                          size_t errlen);
void gpu_module_unload(const GpuContext *g, CuModule m);

/* A kernel and what limits its launches. */
typedef struct GpuFunction {
  CuFunction fn;
  char name[256];
  int max_threads;        /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: registers may lower it */
  int static_shared;      /* bytes of __shared__ the kernel declares */
  int max_dynamic_shared; /* what it may use now; raised on demand up to the opt-in limit */
} GpuFunction;

/* Looks up extern "C" kernel `name`; CUDA_ERROR_NOT_FOUND reads "no kernel 'name' in ...". */
P2cStatus gpu_function_get(const GpuContext *g, CuModule m, const char *name, const char *what,
                           GpuFunction *out, char *err, size_t errlen);

typedef struct GpuLaunchConfig {
  uint32_t grid[3], block[3]; /* 0 is an error, not 1: the caller decides defaults */
  uint32_t shared_bytes;      /* dynamic shared memory per block */
  CuStream stream;            /* NULL: the legacy default stream */
  bool cooperative;           /* cuLaunchCooperativeKernel: every block resident at once */
} GpuLaunchConfig;

/* How many blocks of `block_threads` threads with `shared_bytes` of dynamic shared memory a
 * cooperative launch of f may have: the blocks one multiprocessor holds at once times the
 * multiprocessors (Numba's max_cooperative_grid_blocks). */
P2cStatus gpu_max_cooperative_blocks(const GpuContext *g, GpuFunction *f, uint32_t block_threads,
                                     uint32_t shared_bytes, uint32_t *blocks, char *err,
                                     size_t errlen);

/* Checks a configuration against the device's limits and the kernel's, with the reason in msg
 * when it fails ("block (2048,1,1) has 2048 threads; kernel 'k' on NVIDIA H100 allows at most
 * 1024"): P2C_ERR_USAGE past the device's limits; P2C_ERR_CUDA past the kernel's own thread
 * limit (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: its launch bounds or registers), which the
 * driver refuses with CUDA_ERROR_INVALID_VALUE, named in msg as the driver's refusal would be. */
P2cStatus gpu_check_launch(const GpuLimits *lim, const GpuFunction *f, const GpuLaunchConfig *c,
                      char *msg, size_t msglen);

/* Checks, raises the kernel's dynamic shared memory limit when the launch needs more than the
 * default, and calls cuLaunchKernel. `args` as cuLaunchKernel's kernelParams; `what` names the
 * module in messages. Asynchronous: faults inside the kernel surface at the next synchronizing
 * call. */
P2cStatus gpu_launch(const GpuContext *g, GpuFunction *f, const GpuLaunchConfig *c, void **args,
                     const char *what, char *err, size_t errlen);

/* Prepends "CONTEXT: " to the message already in err (truncating its end if need be). */
void gpu_error_context(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
