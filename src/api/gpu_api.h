/* Internal to the public API's implementation: the GPU runtime's handles, shared by gpu.c
 * (devices, memory, streams, events, device arrays), gpu_module.c (modules, kernels, NVRTC and
 * its cache) and launch.c (the dispatcher's GPU path). */
#ifndef P2C_API_GPU_API_H
#define P2C_API_GPU_API_H

#include <stdarg.h>

#include "api/api.h"
#include "runtime/cuda/gpu.h"

enum { GPU_ERROR_BYTES = 16384 }; /* room for a JIT or NVRTC log after the message */

/* A module p2c_launch loaded, kept for the next launch of the same CUDA C. */
typedef struct LoadedModule {
  char *text; /* the CUDA C, compared in full */
  size_t len;
  char arch[16];
  P2cGpuModule *module;
} LoadedModule;

struct P2cDevice {
  P2cAllocator alloc;
  GpuContext gpu;
  char arch[16];
  LoadedModule *loaded;
  size_t loaded_count, loaded_cap;
  CuStream own_stream; /* non-blocking, made at its first need (new arrays' zeros); or NULL */
  char last_error[GPU_ERROR_BYTES];
};

struct P2cBuffer {
  P2cDevice *device;
  CuDevicePtr ptr;
  size_t size;
  bool stream_ordered; /* from cuMemAllocAsync: freed with cuMemFreeAsync (p2c_buffer_delete) */
};

struct P2cStream {
  P2cDevice *device;
  CuStream stream;
};

struct P2cEvent {
  P2cDevice *device;
  CuEvent event;
};

struct P2cGpuKernel {
  P2cGpuModule *module;
  GpuFunction fn;
};

struct P2cGpuModule {
  P2cDevice *device;
  CuModule module;
  bool cache_hit;
  char what[256];         /* the program's name, for messages */
  char *log;              /* NVRTC's log and the JIT's info log */
  size_t log_size;
  P2cGpuKernel **kernels; /* looked up so far */
  size_t kernel_count;
  double compile_ms, load_ms; /* NVRTC or the cache; the driver's load */
};

/* Sets the device's last error and returns `s`. */
P2cStatus gpu_fail(P2cDevice *d, P2cStatus s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Opens a device on a given driver table (tests pass a fake one; p2c_device_open passes the
 * process's). On failure *out is NULL and err says why. */
P2cStatus gpu_device_open_with(const CuDriver *drv, const P2cAllocator *alloc, int ordinal,
                               P2cDevice **out, char *err, size_t errlen);

/* The module for CUDA C `text` compiled for `arch`, from the device's table or compiled (through
 * the compile cache, with the translated module's NVRTC `options`, which its text decides) and
 * loaded now; owned by the device. */
P2cStatus gpu_loaded_module(P2cDevice *d, const char *text, size_t len, const char *name,
                            const char *arch, const char *const *options, size_t option_count,
                            bool no_cache, P2cGpuModule **out);

/* Bytes of device memory an array with these strides spans, and the offset of element 0 from
 * the lowest byte (negative strides put it above). False when the sizes overflow. */
bool gpu_array_span(int64_t item, int ndim, const int64_t *shape, const int64_t *strides,
                    size_t *bytes, size_t *offset);

/* Zeroes `bytes` of device memory at `address` (the default stream, synchronous), or copies them
 * to `dst`: for memory the runtime does not own as a buffer, such as a module's globals. */
P2cStatus gpu_address_zero(P2cDevice *d, uint64_t address, size_t bytes);
P2cStatus gpu_address_read(P2cDevice *d, uint64_t address, void *dst, size_t bytes);

/* ---- the dispatcher (launch.c, launch_gpu.c) ---- */

/* One leaf of a launch's arguments: a scalar, an array or a record, written `offset` bytes
 * into the packed value of argument `arg`. An argument that is not a tuple is one leaf at
 * offset 0; a tuple's elements are leaves at their offsets in its struct (P2cParam.offset,
 * summed down nested tuples). */
typedef struct LaunchLeaf {
  const P2cParam *param;
  const P2cValue *value;
  size_t arg;
  size_t offset;
} LaunchLeaf;

/* Whether the kernel may store to the memory of leaf value `v` of parameter `p`: an array of a
 * parameter it may store to (P2cParam.written), or a record passed by reference, whose fields
 * it may assign (as Numba's CUDA target copies such a record back after the launch). The one
 * rule for both devices: the GPU path copies these back, the simulator's sanitizer keeps reads
 * of other arguments checked against them. */
static inline bool launch_may_write(const P2cParam *p, const P2cValue *v) {
  return v->is_array ? p->written : v->type == P2C_RECORD;
}

typedef struct LaunchLeaves {
  LaunchLeaf *items;
  size_t count, cap;
} LaunchLeaves;

/* The leaves of `args` for kernel `k`, in order (the arguments must fit the parameters:
 * launch_pack_args checks). Free with launch_free_leaves. */
P2cStatus launch_leaves(P2cCompiler *c, const P2cKernelInfo *k, const P2cValue *args, LaunchLeaves *out);
void launch_free_leaves(P2cCompiler *c, LaunchLeaves *l);

/* Kernel arguments packed as cuLaunchKernel's kernelParams (docs/generated-code.md). */
typedef struct Packed {
  void **ptrs;
  unsigned char *storage;
  size_t bytes;           /* of storage */
} Packed;

/* Packs the leaves of kernel `k`'s arguments (launch_leaves; a leaf's value may have been
 * replaced, as the GPU path replaces host arrays by their device copies): each argument gets
 * a 16-byte aligned slot of its parameter's size, each leaf is written at its offset in it;
 * arrays with the data pointer array_of gives (a device array's address). */
P2cStatus launch_pack_args(P2cCompiler *c, const P2cKernelInfo *k, const LaunchLeaves *leaves, Packed *p);
void launch_free_packed(P2cCompiler *c, const P2cKernelInfo *k, Packed *p);
/* A usage error unless every argument fits its parameter (kinds, types, layouts, tuples). */
P2cStatus launch_check_fit(P2cCompiler *c, const P2cKernelInfo *k, const P2cValue *args);

/* Runs kernel `k` of `m` on the GPU (launch_gpu.c): options' device or device 0, host arrays
 * copied in and out, `repeat` launches whose times in ms go to `times`; H2D, D2H and compile
 * times to the report. Failures are in the compiler's last error. */
P2cStatus launch_on_gpu(P2cCompiler *c, P2cModule *m, const P2cKernelInfo *k,
                        const P2cValue *args, const P2cLaunchOptions *o, P2cLaunchReport *r,
                        double *times, int repeat);

#endif
