/* pyk2cuda's bundle runtime (docs/aot.md). `pyk2cuda build` copies this file, unchanged, into
 * every bundle's NAME.c, between the generated preamble (which includes NAME.h and names its
 * array and dim3 types P2cbArray and P2cbDim3) and the generated tables and launchers. Everything
 * here is static, so two bundles linked into one program share no symbol.
 *
 * What it does: at the first call that needs a device it chooses where kernels run (the GPU,
 * or the bundle's simulator part when there is no GPU or PYK2CUDA_DEVICE=sim says so), loads
 * libcuda with dlopen (a program without a GPU still starts, and is told why nothing runs),
 * loads the module from the CUBIN built for the device's compute capability or else the PTX,
 * and keeps it in the primary context for the life of the process. Each launcher's arrays
 * and launch configuration are checked before the launch. Failures are a status and a message
 * for the calling thread (p2cb_fail); it never prints and never exits.
 *
 * It needs only libc, libdl and pthreads: not libpyk2cuda, Python or NVRTC. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The statuses, as NAME.h spells them (the generated part asserts that the two agree). */
enum {
  P2CB_OK = 0,
  P2CB_ERR_ARGUMENT = 1,
  P2CB_ERR_LAUNCH = 2,
  P2CB_ERR_NO_DEVICE = 3,
  P2CB_ERR_LOAD = 4,
  P2CB_ERR_CUDA = 5,
  P2CB_ERR_MEMORY = 6
};

enum { P2CB_BACKEND_NONE = 0, P2CB_BACKEND_GPU = 1, P2CB_BACKEND_SIM = 2 };

/* One parameter of a specialization, as the generator describes it. */
typedef struct P2cbParam {
  const char *name;        /* the Python name */
  int is_array;
  int dtype;               /* NAME_dtype (the library's P2cScalarType) */
  int ndim;
  char layout;             /* 'C', 'F' or 'A' */
  unsigned itemsize;
} P2cbParam;

typedef struct P2cbKernel {
  const char *symbol;      /* the extern "C" name in the module */
  const char *signature;   /* "smooth(int32[:, ::1], int32[:, ::1])" */
  const P2cbParam *params;
  unsigned nparams;
  int cooperative;         /* launched with cuLaunchCooperativeKernel */
} P2cbKernel;

/* A CUBIN for sm_XY (sm = XY), or the PTX (sm = 0; ptx_sm: the compute_XY it targets). */
typedef struct P2cbImage {
  unsigned sm, ptx_sm;
  const unsigned char *data;
  size_t size;
} P2cbImage;

/* The simulator part's launch (NAME_sim.cc, --with-sim): runs kernel `index` of the bundle over
 * the grid with cuLaunchKernel's kernelParams; nonzero with a message on failure. */
typedef int (*P2cbSimLaunch)(unsigned index, const unsigned grid[3], const unsigned block[3],
                             unsigned shared_bytes, void **args, char *err, size_t errlen);

typedef struct P2cbBundle {
  const char *name;
  const P2cbImage *images;
  unsigned nimages;
  const char *source;      /* the CUDA C: for the driver stand-in's test hook only */
  size_t source_len;
  const P2cbKernel *kernels;
  unsigned nkernels;
  P2cbSimLaunch sim_launch; /* NULL: the bundle has no simulator part */
} P2cbBundle;

/* The driver's functions the bundle calls, declared by hand (no CUDA header needed). */
typedef struct P2cbDriver {
  int (*cuInit)(unsigned);
  int (*cuDeviceGetCount)(int *);
  int (*cuDeviceGet)(int *, int);
  int (*cuDeviceGetAttribute)(int *, int, int);
  int (*cuDevicePrimaryCtxRetain)(void **, int);
  int (*cuCtxPushCurrent)(void *);
  int (*cuCtxPopCurrent)(void **);
  int (*cuModuleLoadDataEx)(void **, const void *, unsigned, int *, void **);
  int (*cuModuleGetFunction)(void **, void *, const char *);
  int (*cuFuncGetAttribute)(int *, int, void *);
  int (*cuFuncSetAttribute)(void *, int, int);
  int (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        void *, void **, void **);
  int (*cuLaunchCooperativeKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   unsigned, void *, void **);
  int (*cuMemAlloc)(unsigned long long *, size_t);
  int (*cuMemFree)(unsigned long long);
  int (*cuMemcpyHtoD)(unsigned long long, const void *, size_t);
  int (*cuMemcpyDtoH)(void *, unsigned long long, size_t);
  int (*cuStreamSynchronize)(void *);
  int (*cuCtxSynchronize)(void);
  int (*cuGetErrorName)(int, const char **);
  int (*p2cStandinAttachSource)(void *, const char *, size_t); /* the stand-in's test hook */
} P2cbDriver;

enum {
  P2CB_ATTR_MAX_BLOCK_DIM_X = 2, P2CB_ATTR_MAX_GRID_DIM_X = 5, P2CB_ATTR_CC_MAJOR = 75,
  P2CB_ATTR_CC_MINOR = 76, P2CB_ATTR_MAX_SHARED_OPTIN = 97,
  P2CB_FUNC_MAX_THREADS = 0, P2CB_FUNC_STATIC_SHARED = 1, P2CB_FUNC_MAX_DYNAMIC_SHARED = 8,
  P2CB_CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  P2CB_JIT_ERROR_LOG = 5, P2CB_JIT_ERROR_LOG_SIZE = 6
};

/* What the first use decided and loaded, kept for the life of the process. */
typedef struct P2cbState {
  int status;              /* of the load: P2CB_OK, or why nothing can run */
  char error[768];
  int backend;
  void *lib;
  P2cbDriver d;
  void *ctx, *module;
  void *functions[256];
  int max_threads[256], static_shared[256];
  int max_block[3], max_grid[3], max_shared;
} P2cbState;

static const P2cbBundle p2cb_bundle;   /* defined by the generated part, after this file */
static P2cbState p2cb_state;
static pthread_once_t p2cb_once = PTHREAD_ONCE_INIT;
static _Thread_local char p2cb_message[1024];

/* Records the calling thread's message and returns `status`. */
__attribute__((format(printf, 2, 3))) static int p2cb_fail(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = snprintf(p2cb_message, sizeof p2cb_message, "%s: ", p2cb_bundle.name);
  vsnprintf(p2cb_message + n, sizeof p2cb_message - (size_t)n, fmt, ap);
  va_end(ap);
  return status;
}

/* The load's failure, recorded once in the state (every later call reports it). */
__attribute__((format(printf, 2, 3))) static int p2cb_load_fail(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p2cb_state.error, sizeof p2cb_state.error, fmt, ap);
  va_end(ap);
  return p2cb_state.status = status;
}

/* The driver's name for error `rc` ("CUDA_ERROR_INVALID_VALUE"), or its number. */
static const char *p2cb_cu_name(int rc) {
  static _Thread_local char num[32];
  const char *name = NULL;
  if (p2cb_state.d.cuGetErrorName && p2cb_state.d.cuGetErrorName(rc, &name) == 0 && name) return name;
  snprintf(num, sizeof num, "CUDA error %d", rc);
  return num;
}

/* dlsym for a function pointer (ISO C has no cast between object and function pointers). */
static int p2cb_bind(void *lib, const char *name, void *slot, int required) {
  void *p = dlsym(lib, name);
  memcpy(slot, &p, sizeof p);
  return p || !required;
}

/* Opens libcuda: $PYK2CUDA_LIBCUDA when set (and nothing else, as pyk2cuda does), else
 * libcuda.so.1; binds the driver's functions. */
static int p2cb_open_driver(void) {
  const char *path = getenv("PYK2CUDA_LIBCUDA");
  if (!path || !*path) path = "libcuda.so.1";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) return p2cb_load_fail(P2CB_ERR_NO_DEVICE, "no CUDA driver: %s", dlerror());
  P2cbDriver *d = &p2cb_state.d;
  int ok = 1;
#define P2CB_BIND(field, symbol, required) ok &= p2cb_bind(lib, symbol, &d->field, required)
  P2CB_BIND(cuInit, "cuInit", 1);
  P2CB_BIND(cuDeviceGetCount, "cuDeviceGetCount", 1);
  P2CB_BIND(cuDeviceGet, "cuDeviceGet", 1);
  P2CB_BIND(cuDeviceGetAttribute, "cuDeviceGetAttribute", 1);
  P2CB_BIND(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 1);
  P2CB_BIND(cuCtxPushCurrent, "cuCtxPushCurrent_v2", 1);
  P2CB_BIND(cuCtxPopCurrent, "cuCtxPopCurrent_v2", 1);
  P2CB_BIND(cuModuleLoadDataEx, "cuModuleLoadDataEx", 1);
  P2CB_BIND(cuModuleGetFunction, "cuModuleGetFunction", 1);
  P2CB_BIND(cuFuncGetAttribute, "cuFuncGetAttribute", 1);
  P2CB_BIND(cuFuncSetAttribute, "cuFuncSetAttribute", 0);
  P2CB_BIND(cuLaunchKernel, "cuLaunchKernel", 1);
  P2CB_BIND(cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel", 0);
  P2CB_BIND(cuMemAlloc, "cuMemAlloc_v2", 1);
  P2CB_BIND(cuMemFree, "cuMemFree_v2", 1);
  P2CB_BIND(cuMemcpyHtoD, "cuMemcpyHtoD_v2", 1);
  P2CB_BIND(cuMemcpyDtoH, "cuMemcpyDtoH_v2", 1);
  P2CB_BIND(cuStreamSynchronize, "cuStreamSynchronize", 1);
  P2CB_BIND(cuCtxSynchronize, "cuCtxSynchronize", 1);
  P2CB_BIND(cuGetErrorName, "cuGetErrorName", 0);
  P2CB_BIND(p2cStandinAttachSource, "p2cStandinAttachSource", 0);
#undef P2CB_BIND
  p2cb_state.lib = lib;
  if (!ok) return p2cb_load_fail(P2CB_ERR_NO_DEVICE, "%s lacks functions the bundle needs", path);
  return P2CB_OK;
}

/* The image for compute capability `cc` (major * 10 + minor): the CUBIN built for it, else the
 * newest CUBIN of the same major version not newer than it (binary compatible), else the PTX
 * when its compute_XY is not newer (the driver compiles it). NULL when none fits. */
static const P2cbImage *p2cb_choose_image(int cc, int skip_cubins) {
  const P2cbImage *best = NULL, *ptx = NULL;
  for (unsigned i = 0; i < p2cb_bundle.nimages; i++) {
    const P2cbImage *im = &p2cb_bundle.images[i];
    if (!im->sm) {
      if ((int)im->ptx_sm <= cc) ptx = im;
    } else if (!skip_cubins && (int)im->sm / 10 == cc / 10 && (int)im->sm <= cc &&
               (!best || im->sm > best->sm)) {
      best = im;
    }
  }
  return best ? best : ptx;
}

/* Loads the module into the (current) primary context: the chosen CUBIN, or the PTX when the
 * driver refuses that CUBIN for this GPU. */
static int p2cb_load_module(int cc) {
  P2cbDriver *d = &p2cb_state.d;
  char log[512] = "";
  int rc = -1;
  for (int skip = 0; skip < 2 && rc != 0; skip++) {
    const P2cbImage *im = p2cb_choose_image(cc, skip);
    if (!im || (skip && im->sm)) break;
    int opts[] = {P2CB_JIT_ERROR_LOG, P2CB_JIT_ERROR_LOG_SIZE};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log};
    rc = d->cuModuleLoadDataEx(&p2cb_state.module, im->data, 2, opts, vals);
    if (rc != 0 && rc != P2CB_CUDA_ERROR_NO_BINARY_FOR_GPU) break;
  }
  if (rc == -1)
    return p2cb_load_fail(P2CB_ERR_LOAD, "no CUBIN or PTX for compute capability %d.%d in this bundle",
                          cc / 10, cc % 10);
  if (rc != 0) return p2cb_load_fail(P2CB_ERR_LOAD, "the driver did not load the module: %s %s",
                                     p2cb_cu_name(rc), log);
  if (d->p2cStandinAttachSource)
    d->p2cStandinAttachSource(p2cb_state.module, p2cb_bundle.source, p2cb_bundle.source_len);
  return P2CB_OK;
}

/* Each kernel's function and the limits its launches are checked against. */
static int p2cb_load_functions(void) {
  P2cbDriver *d = &p2cb_state.d;
  for (unsigned i = 0; i < p2cb_bundle.nkernels; i++) {
    const char *sym = p2cb_bundle.kernels[i].symbol;
    int rc = d->cuModuleGetFunction(&p2cb_state.functions[i], p2cb_state.module, sym);
    if (rc == 0) rc = d->cuFuncGetAttribute(&p2cb_state.max_threads[i], P2CB_FUNC_MAX_THREADS, p2cb_state.functions[i]);
    if (rc == 0) rc = d->cuFuncGetAttribute(&p2cb_state.static_shared[i], P2CB_FUNC_STATIC_SHARED, p2cb_state.functions[i]);
    if (rc != 0) return p2cb_load_fail(P2CB_ERR_LOAD, "kernel %s: %s", sym, p2cb_cu_name(rc));
  }
  return P2CB_OK;
}

/* The device's limits and compute capability (device 0). */
static int p2cb_device_limits(int dev, int *cc) {
  P2cbDriver *d = &p2cb_state.d;
  int major = 0, minor = 0, rc = d->cuDeviceGetAttribute(&major, P2CB_ATTR_CC_MAJOR, dev);
  if (rc == 0) rc = d->cuDeviceGetAttribute(&minor, P2CB_ATTR_CC_MINOR, dev);
  for (int i = 0; i < 3 && rc == 0; i++) {
    rc = d->cuDeviceGetAttribute(&p2cb_state.max_block[i], P2CB_ATTR_MAX_BLOCK_DIM_X + i, dev);
    if (rc == 0) rc = d->cuDeviceGetAttribute(&p2cb_state.max_grid[i], P2CB_ATTR_MAX_GRID_DIM_X + i, dev);
  }
  if (rc == 0) rc = d->cuDeviceGetAttribute(&p2cb_state.max_shared, P2CB_ATTR_MAX_SHARED_OPTIN, dev);
  if (rc != 0) return p2cb_load_fail(P2CB_ERR_CUDA, "cuDeviceGetAttribute: %s", p2cb_cu_name(rc));
  *cc = major * 10 + minor;
  return P2CB_OK;
}

/* The GPU path: driver, device 0, its primary context, the module. */
static int p2cb_load_gpu(void) {
  if (p2cb_open_driver() != P2CB_OK) return p2cb_state.status;
  P2cbDriver *d = &p2cb_state.d;
  int count = 0, dev = 0, cc = 0, rc = d->cuInit(0);
  if (rc == 0) rc = d->cuDeviceGetCount(&count);
  if (rc != 0 || count == 0)
    return p2cb_load_fail(P2CB_ERR_NO_DEVICE, "no CUDA device (%s)", rc ? p2cb_cu_name(rc) : "none found");
  rc = d->cuDeviceGet(&dev, 0);
  if (rc == 0) rc = d->cuDevicePrimaryCtxRetain(&p2cb_state.ctx, dev);
  if (rc != 0) return p2cb_load_fail(P2CB_ERR_CUDA, "the device's context: %s", p2cb_cu_name(rc));
  if (p2cb_device_limits(dev, &cc) != P2CB_OK) return p2cb_state.status;
  if ((rc = d->cuCtxPushCurrent(p2cb_state.ctx)) != 0)
    return p2cb_load_fail(P2CB_ERR_CUDA, "cuCtxPushCurrent: %s", p2cb_cu_name(rc));
  int s = p2cb_load_module(cc);
  if (s == P2CB_OK) s = p2cb_load_functions();
  void *popped;
  d->cuCtxPopCurrent(&popped);
  if (s == P2CB_OK) p2cb_state.backend = P2CB_BACKEND_GPU;
  return s;
}

/* The simulator part's limits: CUDA's, as the simulator checks them. */
static void p2cb_load_sim(void) {
  p2cb_state.status = P2CB_OK;
  p2cb_state.backend = P2CB_BACKEND_SIM;
  p2cb_state.max_block[0] = p2cb_state.max_block[1] = 1024, p2cb_state.max_block[2] = 64;
  p2cb_state.max_grid[0] = 0x7fffffff, p2cb_state.max_grid[1] = p2cb_state.max_grid[2] = 65535;
  p2cb_state.max_shared = 227 * 1024;
  for (unsigned i = 0; i < p2cb_bundle.nkernels; i++) p2cb_state.max_threads[i] = 1024;
}

/* The first use: PYK2CUDA_DEVICE=sim or gpu forces one; otherwise (auto) the GPU when a driver
 * and a device are there, else the simulator part, when the bundle has one. */
static void p2cb_load(void) {
  const char *want = getenv("PYK2CUDA_DEVICE");
  int sim_only = want && !strcmp(want, "sim"), gpu_only = want && !strcmp(want, "gpu");
  if (sim_only && !p2cb_bundle.sim_launch) {
    p2cb_load_fail(P2CB_ERR_NO_DEVICE, "PYK2CUDA_DEVICE=sim, but this bundle has no simulator part "
                                       "(pyk2cuda build --with-sim)");
    return;
  }
  if (sim_only || (p2cb_load_gpu() != P2CB_OK && !gpu_only && p2cb_bundle.sim_launch &&
                   p2cb_state.status == P2CB_ERR_NO_DEVICE))
    p2cb_load_sim();
}

/* Makes sure the first use happened; the load's status (its message for this thread). */
static int p2cb_ready(void) {
  pthread_once(&p2cb_once, p2cb_load);
  if (p2cb_state.status != P2CB_OK) return p2cb_fail(p2cb_state.status, "%s", p2cb_state.error);
  return P2CB_OK;
}

/* ---- Arrays ------------------------------------------------------------------------------- */

/* Whether the strides are `order`'s contiguous ones ('C' or 'F'), as NumPy's flags say it:
 * extents of 1 may have any stride, and an empty array is contiguous either way. The same rule
 * as the library's p2c_array_layout (src/api/arrays.c), which the bundle cannot link. */
static int p2cb_contiguous(const P2cbArray *a, unsigned itemsize, char order) {
  for (int i = 0; i < a->ndim; i++)
    if (a->shape[i] == 0) return 1;
  int64_t expect = itemsize;
  for (int k = 0; k < a->ndim; k++) {
    int i = order == 'C' ? a->ndim - 1 - k : k;
    if (a->shape[i] != 1 && a->strides[i] != expect) return 0;
    expect *= a->shape[i];
  }
  return 1;
}

static int64_t p2cb_elements(const P2cbArray *a) {
  int64_t n = 1;
  for (int i = 0; i < a->ndim; i++) n *= a->shape[i];
  return n;
}

/* Checks array argument `a` against parameter p of kernel k and writes its kernel-parameter
 * form (data, extents, strides: 8 + 16 * ndim bytes) to out. */
__attribute__((unused)) static int p2cb_pack_array(const P2cbKernel *k, const P2cbParam *p, const P2cbArray *a, void *out) {
  if (a->dtype != p->dtype)
    return p2cb_fail(P2CB_ERR_ARGUMENT, "%s: array '%s' has dtype %s, the kernel takes %s",
                     k->signature, p->name, p2cb_dtype_name(a->dtype), p2cb_dtype_name(p->dtype));
  if (a->ndim != p->ndim)
    return p2cb_fail(P2CB_ERR_ARGUMENT, "%s: array '%s' has %d dimensions, the kernel takes %d",
                     k->signature, p->name, a->ndim, p->ndim);
  for (int i = 0; i < a->ndim; i++)
    if (a->shape[i] < 0)
      return p2cb_fail(P2CB_ERR_ARGUMENT, "%s: array '%s' has a negative extent", k->signature, p->name);
  if (!a->data && p2cb_elements(a) > 0)
    return p2cb_fail(P2CB_ERR_ARGUMENT, "%s: array '%s' has no data (NULL)", k->signature, p->name);
  if (p->layout != 'A' && !p2cb_contiguous(a, p->itemsize, p->layout))
    return p2cb_fail(P2CB_ERR_ARGUMENT, "%s: array '%s' is not %c-contiguous, as the kernel takes it",
                     k->signature, p->name, p->layout);
  unsigned char *o = out;
  memcpy(o, &a->data, 8);
  memcpy(o + 8, a->shape, 8 * (size_t)a->ndim);
  memcpy(o + 8 + 8 * (size_t)a->ndim, a->strides, 8 * (size_t)a->ndim);
  return P2CB_OK;
}

/* ---- Launching ---------------------------------------------------------------------------- */

/* Checks a launch configuration of kernel `index` against the device's (or CUDA's) limits. */
static int p2cb_check_config(unsigned index, const P2cbDim3 *grid, const P2cbDim3 *block, unsigned shared) {
  const P2cbKernel *k = &p2cb_bundle.kernels[index];
  unsigned g[3] = {grid->x, grid->y, grid->z}, b[3] = {block->x, block->y, block->z};
  uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
  if (threads > (uint64_t)p2cb_state.max_threads[index])
    return p2cb_fail(P2CB_ERR_LAUNCH, "%s: %llu threads per block, the kernel allows at most %d",
                     k->signature, (unsigned long long)threads, p2cb_state.max_threads[index]);
  for (int i = 0; i < 3; i++) {
    if (!g[i] || !b[i]) return p2cb_fail(P2CB_ERR_LAUNCH, "%s: a grid or block extent of 0", k->signature);
    if ((uint64_t)g[i] > (uint64_t)p2cb_state.max_grid[i] || (uint64_t)b[i] > (uint64_t)p2cb_state.max_block[i])
      return p2cb_fail(P2CB_ERR_LAUNCH, "%s: grid (%u, %u, %u) of blocks (%u, %u, %u) is over the "
                       "device's limits (grid %d, %d, %d; block %d, %d, %d)", k->signature, g[0], g[1], g[2],
                       b[0], b[1], b[2], p2cb_state.max_grid[0], p2cb_state.max_grid[1], p2cb_state.max_grid[2],
                       p2cb_state.max_block[0], p2cb_state.max_block[1], p2cb_state.max_block[2]);
  }
  if ((uint64_t)shared + (uint64_t)p2cb_state.static_shared[index] > (uint64_t)p2cb_state.max_shared)
    return p2cb_fail(P2CB_ERR_LAUNCH, "%s: %u bytes of dynamic shared memory (and %d static) are over "
                     "the device's %d per block", k->signature, shared, p2cb_state.static_shared[index],
                     p2cb_state.max_shared);
  return P2CB_OK;
}

/* Launches on the GPU, in the primary context. */
static int p2cb_launch_gpu(unsigned index, const P2cbDim3 *g, const P2cbDim3 *b, unsigned shared,
                           void *stream, void **args) {
  P2cbDriver *d = &p2cb_state.d;
  const P2cbKernel *k = &p2cb_bundle.kernels[index];
  void *f = p2cb_state.functions[index], *popped;
  int rc = d->cuCtxPushCurrent(p2cb_state.ctx);
  if (rc != 0) return p2cb_fail(P2CB_ERR_CUDA, "cuCtxPushCurrent: %s", p2cb_cu_name(rc));
  if (shared > 48 * 1024 && d->cuFuncSetAttribute)
    rc = d->cuFuncSetAttribute(f, P2CB_FUNC_MAX_DYNAMIC_SHARED, (int)shared);
  if (rc == 0 && k->cooperative && d->cuLaunchCooperativeKernel)
    rc = d->cuLaunchCooperativeKernel(f, g->x, g->y, g->z, b->x, b->y, b->z, shared, stream, args);
  else if (rc == 0)
    rc = d->cuLaunchKernel(f, g->x, g->y, g->z, b->x, b->y, b->z, shared, stream, args, NULL);
  d->cuCtxPopCurrent(&popped);
  if (rc != 0) return p2cb_fail(P2CB_ERR_CUDA, "%s: launch failed: %s", k->signature, p2cb_cu_name(rc));
  return P2CB_OK;
}

/* Launches kernel `index` with packed arguments, wherever the first use chose. */
static int p2cb_launch(unsigned index, P2cbDim3 grid, P2cbDim3 block, unsigned shared, void *stream,
                       void **args) {
  int s = p2cb_ready();
  if (s == P2CB_OK) s = p2cb_check_config(index, &grid, &block, shared);
  if (s != P2CB_OK) return s;
  if (p2cb_state.backend == P2CB_BACKEND_GPU) return p2cb_launch_gpu(index, &grid, &block, shared, stream, args);
  unsigned g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  char err[512] = "";
  if (p2cb_bundle.sim_launch(index, g, b, shared, args, err, sizeof err) != 0)
    return p2cb_fail(P2CB_ERR_LAUNCH, "%s: %s", p2cb_bundle.kernels[index].signature, err);
  return P2CB_OK;
}

/* A ufunc's grid: blocks of 256 threads (fewer if the kernel allows fewer), at most 4096 of them;
 * its kernel is a grid-stride loop, so any grid covers the n elements (launch_ufunc.c's choice). */
enum { P2CB_UFUNC_BLOCK = 256, P2CB_UFUNC_MAX_GRID = 4096 };

/* Launches ufunc kernel `index` over n elements: data[j] is operand j's pointer (the inputs,
 * then out), each n elements of its dtype. Each operand becomes the view its kernel takes
 * (docs/generated-code.md): extents 1 but the last, n, of stride the itemsize; `views` has room
 * for 1 + 2 * ndim words per operand, args for one pointer each. */
__attribute__((unused)) static int p2cb_launch_ufunc(unsigned index, void *stream, int64_t n, const void *const *data,
                                                     uint64_t *views, void **args) {
  const P2cbKernel *k = &p2cb_bundle.kernels[index];
  if (n < 0) return p2cb_fail(P2CB_ERR_ARGUMENT, "%s: n is %lld, a count of elements", k->signature, (long long)n);
  for (unsigned j = 0; j < k->nparams; j++) {
    const P2cbParam *p = &k->params[j];
    if (!data[j] && n > 0)
      return p2cb_fail(P2CB_ERR_ARGUMENT, "%s: '%s' is NULL", k->signature, p->name);
    views[0] = (uint64_t)(uintptr_t)data[j];
    for (int d = 0; d < p->ndim; d++) {
      views[1 + d] = d == p->ndim - 1 ? (uint64_t)n : 1;
      views[1 + p->ndim + d] = d == p->ndim - 1 ? p->itemsize : 0;
    }
    args[j] = views;
    views += 1 + 2 * p->ndim;
  }
  int s = p2cb_ready();
  if (s != P2CB_OK || n == 0) return s;
  int64_t block = p2cb_state.max_threads[index] < P2CB_UFUNC_BLOCK ? p2cb_state.max_threads[index] : P2CB_UFUNC_BLOCK;
  int64_t grid = (n + block - 1) / block;
  P2cbDim3 g = {(unsigned)(grid < P2CB_UFUNC_MAX_GRID ? grid : P2CB_UFUNC_MAX_GRID), 1, 1}, b = {(unsigned)block, 1, 1};
  return p2cb_launch(index, g, b, 0, stream, args);
}

/* ---- Memory ------------------------------------------------------------------------------- */

/* Device memory on the GPU path; host memory on the simulator, where kernels read it directly. */
static int p2cb_malloc(void **ptr, size_t bytes) {
  int s = p2cb_ready();
  if (s != P2CB_OK) return s;
  *ptr = NULL;
  if (p2cb_state.backend == P2CB_BACKEND_SIM) {
    *ptr = calloc(1, bytes ? bytes : 1);
    return *ptr ? P2CB_OK : p2cb_fail(P2CB_ERR_MEMORY, "out of host memory (%zu bytes)", bytes);
  }
  unsigned long long dptr = 0;
  void *popped;
  int rc = p2cb_state.d.cuCtxPushCurrent(p2cb_state.ctx);
  if (rc == 0) rc = p2cb_state.d.cuMemAlloc(&dptr, bytes ? bytes : 1);
  if (rc == 0) p2cb_state.d.cuCtxPopCurrent(&popped);
  if (rc != 0) return p2cb_fail(P2CB_ERR_MEMORY, "cuMemAlloc(%zu): %s", bytes, p2cb_cu_name(rc));
  *ptr = (void *)(uintptr_t)dptr;
  return P2CB_OK;
}

static int p2cb_free(void *ptr) {
  if (!ptr) return P2CB_OK;
  int s = p2cb_ready();
  if (s != P2CB_OK) return s;
  if (p2cb_state.backend == P2CB_BACKEND_SIM) return free(ptr), P2CB_OK;
  void *popped;
  int rc = p2cb_state.d.cuCtxPushCurrent(p2cb_state.ctx);
  if (rc == 0) rc = p2cb_state.d.cuMemFree((unsigned long long)(uintptr_t)ptr);
  if (rc == 0) p2cb_state.d.cuCtxPopCurrent(&popped);
  return rc ? p2cb_fail(P2CB_ERR_CUDA, "cuMemFree: %s", p2cb_cu_name(rc)) : P2CB_OK;
}

/* Copies between host and device memory (to_device: host src to device dst), after the work
 * queued on the legacy default stream, as cuMemcpy does. */
static int p2cb_copy(void *dst, const void *src, size_t bytes, int to_device) {
  int s = p2cb_ready();
  if (s != P2CB_OK) return s;
  if (p2cb_state.backend == P2CB_BACKEND_SIM) return memmove(dst, src, bytes), P2CB_OK;
  void *popped;
  int rc = p2cb_state.d.cuCtxPushCurrent(p2cb_state.ctx);
  if (rc == 0)
    rc = to_device ? p2cb_state.d.cuMemcpyHtoD((unsigned long long)(uintptr_t)dst, src, bytes)
                   : p2cb_state.d.cuMemcpyDtoH(dst, (unsigned long long)(uintptr_t)src, bytes);
  if (rc == 0) p2cb_state.d.cuCtxPopCurrent(&popped);
  return rc ? p2cb_fail(P2CB_ERR_CUDA, "cuMemcpy: %s", p2cb_cu_name(rc)) : P2CB_OK;
}

/* Waits for `stream` (NULL: the whole context). Kernel faults surface here on a GPU. */
static int p2cb_synchronize(void *stream) {
  int s = p2cb_ready();
  if (s != P2CB_OK || p2cb_state.backend == P2CB_BACKEND_SIM) return s;
  void *popped;
  int rc = p2cb_state.d.cuCtxPushCurrent(p2cb_state.ctx);
  if (rc == 0) rc = stream ? p2cb_state.d.cuStreamSynchronize(stream) : p2cb_state.d.cuCtxSynchronize();
  p2cb_state.d.cuCtxPopCurrent(&popped);
  return rc ? p2cb_fail(P2CB_ERR_CUDA, "synchronize: %s", p2cb_cu_name(rc)) : P2CB_OK;
}

/* "gpu", "sim", or "none" (nothing can run: the status and message of p2cb_ready say why). */
static const char *p2cb_backend(void) {
  p2cb_ready();
  return p2cb_state.backend == P2CB_BACKEND_GPU ? "gpu" : p2cb_state.backend == P2CB_BACKEND_SIM ? "sim" : "none";
}
