/* The GPU runtime in the public API: devices, device memory, pinned host memory, streams, events
 * and device arrays (include/pyk2cuda.h, "The GPU runtime"). Each function checks its arguments,
 * makes the device's context current for its work (ENTER, gpu_enter) and gives the caller's back
 * on every path (LEAVE), and calls the driver through CU_CHECK with the device's last-error
 * buffer, so that a failure names the call, the CUDA error and what was being done.
 * Modules and kernels are in gpu_module.c. */
#include <stdio.h>
#include <string.h>

#include "api/gpu_api.h"

P2cStatus gpu_fail(P2cDevice *d, P2cStatus s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->last_error, sizeof d->last_error, fmt, ap);
  va_end(ap);
  return s;
}

/* The device's driver table and its error buffer, as CU_CHECK takes them. */
#define DRV(d) ((d)->gpu.drv)
#define ERR(d) (d)->last_error, sizeof (d)->last_error
/* CU_CHECK on the device's driver, into its last error (cudrv.h). */
#define DEV_CHECK(d, call) CU_CHECK((d)->gpu.drv, call, (d)->last_error, sizeof (d)->last_error)

/* The device's context current for a call's work, the caller's remembered in `scope`
 * (gpu_enter; a failure goes to the device's last error). */
#define ENTER(d, scope) gpu_enter(&(d)->gpu, (scope), ERR(d))
#define LEAVE(scope) gpu_leave(scope)

/* Destructors make the context current before releasing, and release even when that fails (it
 * may still work); they leave the last error alone, and LEAVE after. */
static void enter_quietly(P2cDevice *d, GpuScope *scope) {
  char scratch[256];
  gpu_enter(&d->gpu, scope, scratch, sizeof scratch);
}

/* ---- Devices -------------------------------------------------------------------------------- */

P2cStatus gpu_device_open_with(const CuDriver *drv, const P2cAllocator *alloc, int ordinal,
                               P2cDevice **out, char *err, size_t errlen) {
  *out = NULL;
  P2cDevice *d = mem_alloc(alloc, sizeof *d);
  if (!d) {
    snprintf(err, errlen, "out of memory opening CUDA device %d", ordinal);
    return P2C_ERR_NOMEM;
  }
  memset(d, 0, sizeof *d);
  d->alloc = *alloc;
  P2cStatus s = gpu_open(drv, ordinal, &d->gpu, err, errlen);
  if (s != P2C_OK) {
    mem_free(alloc, d, sizeof *d);
    return s;
  }
  gpu_arch(&d->gpu, d->arch, sizeof d->arch);
  *out = d;
  return P2C_OK;
}

P2cStatus p2c_device_count(P2cCompiler *c, int *count) {
  if (!c || !count) return c ? api_fail(c, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  const CuDriver *drv;
  char err[1024];
  *count = 0;
  P2cStatus s = cudrv_load(&drv, err, sizeof err);
  if (s == P2C_OK) s = cudrv_init(drv, count, err, sizeof err);
  return s == P2C_OK ? s : api_fail(c, s, "%s", err);
}

P2cStatus p2c_device_open(P2cCompiler *c, int ordinal, P2cDevice **out) {
  if (out) *out = NULL;
  if (!c || !out) return c ? api_fail(c, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  const CuDriver *drv;
  char err[GPU_ERROR_BYTES];
  P2cStatus s = cudrv_load(&drv, err, sizeof err);
  if (s == P2C_OK) s = gpu_device_open_with(drv, &c->alloc, ordinal, out, err, sizeof err);
  return s == P2C_OK ? s : api_fail(c, s, "%s", err);
}

void p2c_device_delete(P2cDevice *d) {
  if (!d) return;
  for (size_t i = 0; i < d->loaded_count; i++) {
    p2c_gpu_module_delete(d->loaded[i].module);
    mem_free(&d->alloc, d->loaded[i].text, d->loaded[i].len + 1);
  }
  mem_free(&d->alloc, d->loaded, d->loaded_cap * sizeof *d->loaded);
  if (d->own_stream) {
    GpuScope scope;
    enter_quietly(d, &scope);
    DRV(d)->cuStreamDestroy(d->own_stream);
    LEAVE(&scope);
  }
  gpu_close(&d->gpu);
  P2cAllocator a = d->alloc;
  mem_free(&a, d, sizeof *d);
}

const char *p2c_device_last_error(const P2cDevice *d) { return d ? d->last_error : ""; }

P2cStatus p2c_device_synchronize(P2cDevice *d) {
  if (!d) return P2C_ERR_USAGE;
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  DEV_CHECK(d, cuCtxSynchronize());
cleanup:
  LEAVE(&scope);
  return status;
}

P2cDeviceInfo p2c_device_info(const P2cDevice *d) {
  P2cDeviceInfo info;
  memset(&info, 0, sizeof info);
  if (!d) return info;
  const GpuLimits *l = &d->gpu.limits;
  info.ordinal = d->gpu.ordinal;
  snprintf(info.name, sizeof info.name, "%s", l->name);
  snprintf(info.arch, sizeof info.arch, "%s", d->arch);
  info.compute_major = l->cc_major;
  info.compute_minor = l->cc_minor;
  info.total_memory = l->total_mem;
  info.multiprocessors = l->sm_count;
  info.warp_size = l->warp_size;
  info.max_threads_per_block = l->max_threads_per_block;
  memcpy(info.max_block, l->max_block, sizeof info.max_block);
  memcpy(info.max_grid, l->max_grid, sizeof info.max_grid);
  info.max_shared_per_block = l->max_shared_per_block;
  info.max_shared_optin = l->max_shared_optin;
  return info;
}

/* The device's own non-blocking stream, made at its first need and destroyed with the device:
 * work on it is ordered with nothing else, so waiting for it waits for that work alone. Called
 * in the device's context. */
static P2cStatus own_stream(P2cDevice *d, CuStream *out) {
  P2cStatus status = P2C_OK;
  if (!d->own_stream) DEV_CHECK(d, cuStreamCreate(&d->own_stream, CUDRV_STREAM_NON_BLOCKING));
cleanup:
  *out = d->own_stream;
  return status;
}

/* ---- Device memory -------------------------------------------------------------------------- */

/* Device memory for b, in d's context: from the stream-ordered allocator where the device has
 * it (allocated on the device's own stream, waited for, so any stream may use it at once), so
 * that p2c_buffer_delete can free it without waiting. Else cuMemAlloc: a driver before CUDA
 * 11.2, a device that reports no memory pools (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED 0:
 * some virtual GPUs and MIG slices), or cuMemAllocAsync answering CUDA_ERROR_NOT_SUPPORTED.
 * A new array's zeros are written in stream order either way (zero_new). */
static P2cStatus device_alloc(P2cDevice *d, P2cBuffer *b, size_t bytes) {
  P2cStatus status = P2C_OK;
  CuStream own = NULL;
  bool pools = DRV(d)->cuMemAllocAsync && DRV(d)->cuMemFreeAsync && d->gpu.limits.memory_pools;
  if (pools) status = own_stream(d, &own);
  if (status != P2C_OK) return status;
  CuResult rc = pools ? DRV(d)->cuMemAllocAsync(&b->ptr, bytes, own) : CUDRV_ERROR_NOT_SUPPORTED;
  if (rc == CUDRV_ERROR_NOT_SUPPORTED) {
    DEV_CHECK(d, cuMemAlloc(&b->ptr, bytes));
    return P2C_OK;
  }
  if (rc != CUDRV_SUCCESS) return cudrv_fail(DRV(d), rc, "cuMemAllocAsync(&b->ptr, bytes, own)",
                                             __FILE__, __LINE__, ERR(d));
  b->stream_ordered = true;
  DEV_CHECK(d, cuStreamSynchronize(own));
cleanup:
  if (status != P2C_OK && b->stream_ordered) DRV(d)->cuMemFreeAsync(b->ptr, own);
  return status;
}

P2cStatus p2c_buffer_new(P2cDevice *d, size_t bytes, P2cBuffer **out) {
  if (out) *out = NULL;
  if (!d || !out) return d ? gpu_fail(d, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  if (bytes == 0) return gpu_fail(d, P2C_ERR_USAGE, "a device buffer needs at least one byte");
  P2cBuffer *b = mem_alloc(&d->alloc, sizeof *b);
  if (!b) return gpu_fail(d, P2C_ERR_NOMEM, "out of memory");
  memset(b, 0, sizeof *b);
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) goto cleanup;
  status = device_alloc(d, b, bytes);
  if (status != P2C_OK) goto cleanup;
  LEAVE(&scope);
  b->device = d;
  b->size = bytes;
  *out = b;
  return P2C_OK;
cleanup:
  LEAVE(&scope);
  mem_free(&d->alloc, b, sizeof *b);
  gpu_error_context(ERR(d), "allocating %zu bytes on CUDA device %d", bytes, d->gpu.ordinal);
  return status;
}

void p2c_buffer_delete(P2cBuffer *b) {
  if (!b) return;
  P2cDevice *d = b->device;
  GpuScope scope;
  enter_quietly(d, &scope);
  /* Stream-ordered memory is freed after the work queued so far on the legacy default stream,
   * which comes after every blocking stream's (all that p2c_stream_new makes): nothing waits.
   * cuMemFree may wait for the whole context (and on the stand-in does). */
  if (b->stream_ordered) DRV(d)->cuMemFreeAsync(b->ptr, CUDRV_STREAM_LEGACY);
  else DRV(d)->cuMemFree(b->ptr);
  LEAVE(&scope);
  mem_free(&d->alloc, b, sizeof *b);
}

uint64_t p2c_buffer_address(const P2cBuffer *b) { return b ? b->ptr : 0; }

size_t p2c_buffer_size(const P2cBuffer *b) { return b ? b->size : 0; }

/* A range [offset, offset + bytes) inside the buffer, and a stream of the same device. */
static P2cStatus check_range(const P2cBuffer *b, size_t offset, size_t bytes, const P2cStream *s,
                             const char *what) {
  P2cDevice *d = b->device;
  if (offset > b->size || bytes > b->size - offset)
    return gpu_fail(d, P2C_ERR_USAGE, "%s: bytes [%zu, %zu) are outside the %zu-byte buffer", what,
                    offset, offset + bytes, b->size);
  if (s && s->device != d)
    return gpu_fail(d, P2C_ERR_USAGE, "%s: the stream belongs to another device", what);
  return P2C_OK;
}

P2cStatus p2c_buffer_write(P2cBuffer *b, size_t offset, const void *src, size_t bytes,
                           P2cStream *s) {
  if (!b || (!src && bytes)) return b ? gpu_fail(b->device, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  P2cDevice *d = b->device;
  P2cStatus status = check_range(b, offset, bytes, s, "copy to the device");
  if (status != P2C_OK || bytes == 0) return status;
  GpuScope scope;
  status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  if (s)
    DEV_CHECK(d, cuMemcpyHtoDAsync(b->ptr + offset, src, bytes, s->stream));
  else
    DEV_CHECK(d, cuMemcpyHtoD(b->ptr + offset, src, bytes));
cleanup:
  LEAVE(&scope);
  return status;
}

P2cStatus p2c_buffer_read(const P2cBuffer *b, size_t offset, void *dst, size_t bytes,
                          P2cStream *s) {
  if (!b || (!dst && bytes)) return b ? gpu_fail(b->device, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  P2cDevice *d = b->device;
  P2cStatus status = check_range(b, offset, bytes, s, "copy from the device");
  if (status != P2C_OK || bytes == 0) return status;
  GpuScope scope;
  status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  if (s)
    DEV_CHECK(d, cuMemcpyDtoHAsync(dst, b->ptr + offset, bytes, s->stream));
  else
    DEV_CHECK(d, cuMemcpyDtoH(dst, b->ptr + offset, bytes));
cleanup:
  LEAVE(&scope);
  return status;
}

P2cStatus p2c_buffer_copy(P2cBuffer *dst, size_t dst_offset, const P2cBuffer *src,
                          size_t src_offset, size_t bytes, P2cStream *s) {
  if (!dst || !src) return dst ? gpu_fail(dst->device, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  P2cDevice *d = dst->device;
  if (src->device != d)
    return gpu_fail(d, P2C_ERR_USAGE, "copy between devices: the buffers belong to two devices");
  P2cStatus status = check_range(src, src_offset, bytes, s, "copy on the device (source)");
  if (status == P2C_OK) status = check_range(dst, dst_offset, bytes, s, "copy on the device");
  if (status != P2C_OK || bytes == 0) return status;
  GpuScope scope;
  status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  if (s)
    DEV_CHECK(d, cuMemcpyDtoDAsync(dst->ptr + dst_offset, src->ptr + src_offset, bytes, s->stream));
  else
    DEV_CHECK(d, cuMemcpyDtoD(dst->ptr + dst_offset, src->ptr + src_offset, bytes));
cleanup:
  LEAVE(&scope);
  return status;
}

P2cStatus p2c_buffer_zero(P2cBuffer *b, P2cStream *s) {
  if (!b) return P2C_ERR_USAGE;
  P2cDevice *d = b->device;
  P2cStatus status = check_range(b, 0, b->size, s, "zeroing device memory");
  if (status != P2C_OK) return status;
  GpuScope scope;
  status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  if (s)
    DEV_CHECK(d, cuMemsetD8Async(b->ptr, 0, b->size, s->stream));
  else
    DEV_CHECK(d, cuMemsetD8(b->ptr, 0, b->size));
cleanup:
  LEAVE(&scope);
  return status;
}

P2cStatus gpu_address_zero(P2cDevice *d, uint64_t address, size_t bytes) {
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  DEV_CHECK(d, cuMemsetD8(address, 0, bytes));
cleanup:
  LEAVE(&scope);
  return status;
}

P2cStatus gpu_address_read(P2cDevice *d, uint64_t address, void *dst, size_t bytes) {
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  DEV_CHECK(d, cuMemcpyDtoH(dst, address, bytes));
cleanup:
  LEAVE(&scope);
  return status;
}

/* ---- Pinned host memory --------------------------------------------------------------------- */

P2cStatus p2c_pinned_new(P2cDevice *d, size_t bytes, void **out) {
  if (out) *out = NULL;
  if (!d || !out) return d ? gpu_fail(d, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  if (bytes == 0) return gpu_fail(d, P2C_ERR_USAGE, "pinned memory needs at least one byte");
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  DEV_CHECK(d, cuMemHostAlloc(out, bytes, CUDRV_MEMHOSTALLOC_PORTABLE));
  LEAVE(&scope);
  return P2C_OK;
cleanup:
  LEAVE(&scope);
  *out = NULL;
  gpu_error_context(ERR(d), "allocating %zu bytes of pinned host memory", bytes);
  return status;
}

void p2c_pinned_delete(P2cDevice *d, void *ptr) {
  if (!d || !ptr) return;
  GpuScope scope;
  enter_quietly(d, &scope);
  DRV(d)->cuMemFreeHost(ptr);
  LEAVE(&scope);
}

P2cStatus p2c_pinned_register(P2cDevice *d, void *ptr, size_t bytes, bool read_only,
                              bool *registered) {
  if (registered) *registered = false;
  if (!d || !ptr) return d ? gpu_fail(d, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  if (bytes == 0) return gpu_fail(d, P2C_ERR_USAGE, "page-locking needs at least one byte");
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  unsigned flags = CUDRV_MEMHOSTREGISTER_PORTABLE | (read_only ? CUDRV_MEMHOSTREGISTER_READ_ONLY : 0);
  CuResult rc = DRV(d)->cuMemHostRegister(ptr, bytes, flags);
  LEAVE(&scope);
  /* Already page-locked memory copies asynchronously as it is; the caller owns no registration. */
  if (rc == CUDRV_ERROR_HOST_MEMORY_ALREADY_REGISTERED) return P2C_OK;
  if (rc != CUDRV_SUCCESS) {
    status = cudrv_fail(DRV(d), rc, "cuMemHostRegister", __FILE__, __LINE__, ERR(d));
    gpu_error_context(ERR(d), "page-locking %zu bytes of host memory", bytes);
    return status;
  }
  if (registered) *registered = true;
  return P2C_OK;
}

P2cStatus p2c_pinned_unregister(P2cDevice *d, void *ptr) {
  if (!d || !ptr) return d ? gpu_fail(d, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  DEV_CHECK(d, cuMemHostUnregister(ptr));
cleanup:
  LEAVE(&scope);
  return status;
}

/* ---- Streams and events --------------------------------------------------------------------- */

/* A stream's or event's driver object, made and released the same way for both. */
typedef enum HandleKind { HK_STREAM, HK_EVENT } HandleKind;

/* Makes handle h's driver object (d's context current). */
static P2cStatus create_object(P2cDevice *d, HandleKind kind, void *h) {
  P2cStatus status = P2C_OK;
  if (kind == HK_STREAM) {
    P2cStream *s = h;
    DEV_CHECK(d, cuStreamCreate(&s->stream, CUDRV_STREAM_DEFAULT));
    s->device = d;
  } else {
    P2cEvent *e = h;
    DEV_CHECK(d, cuEventCreate(&e->event, CUDRV_EVENT_DEFAULT));
    e->device = d;
  }
cleanup:
  return status;
}

/* A new stream or event handle of `size` bytes in *out: allocated, the context made current,
 * its driver object made; nothing is left behind on failure. */
static P2cStatus handle_new(P2cDevice *d, HandleKind kind, size_t size, void **out) {
  if (out) *out = NULL;
  if (!d || !out) return d ? gpu_fail(d, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  void *h = mem_alloc(&d->alloc, size);
  if (!h) return gpu_fail(d, P2C_ERR_NOMEM, "out of memory");
  memset(h, 0, size);
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status == P2C_OK) status = create_object(d, kind, h);
  LEAVE(&scope);
  if (status != P2C_OK) {
    mem_free(&d->alloc, h, size);
    return status;
  }
  *out = h;
  return P2C_OK;
}

/* Releases a stream's or event's driver object (in d's context) and frees h. */
static void handle_delete(P2cDevice *d, HandleKind kind, void *h, size_t size) {
  GpuScope scope;
  enter_quietly(d, &scope);
  if (kind == HK_STREAM) DRV(d)->cuStreamDestroy(((P2cStream *)h)->stream);
  else DRV(d)->cuEventDestroy(((P2cEvent *)h)->event);
  LEAVE(&scope);
  mem_free(&d->alloc, h, size);
}

P2cStatus p2c_stream_new(P2cDevice *d, P2cStream **out) {
  void *h = NULL;
  P2cStatus status = handle_new(d, HK_STREAM, sizeof(P2cStream), out ? &h : NULL);
  if (out) *out = h;
  return status;
}

void p2c_stream_delete(P2cStream *s) {
  if (s) handle_delete(s->device, HK_STREAM, s, sizeof *s);
}

P2cStatus p2c_stream_synchronize(P2cStream *s) {
  if (!s) return P2C_ERR_USAGE;
  P2cDevice *d = s->device;
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  DEV_CHECK(d, cuStreamSynchronize(s->stream));
cleanup:
  LEAVE(&scope);
  return status;
}

P2cStatus p2c_event_new(P2cDevice *d, P2cEvent **out) {
  void *h = NULL;
  P2cStatus status = handle_new(d, HK_EVENT, sizeof(P2cEvent), out ? &h : NULL);
  if (out) *out = h;
  return status;
}

void p2c_event_delete(P2cEvent *e) {
  if (e) handle_delete(e->device, HK_EVENT, e, sizeof *e);
}

/* The checks and the entry of a call on an event and a stream (NULL: the default stream):
 * both of one device, whose context is made current in *scope. */
static P2cStatus enter_event_and_stream(P2cEvent *e, const P2cStream *s, GpuScope *scope) {
  if (!e) return P2C_ERR_USAGE;
  P2cDevice *d = e->device;
  if (s && s->device != d)
    return gpu_fail(d, P2C_ERR_USAGE, "the event and the stream belong to two devices");
  return ENTER(d, scope);
}

P2cStatus p2c_event_record(P2cEvent *e, P2cStream *s) {
  GpuScope scope;
  P2cStatus status = enter_event_and_stream(e, s, &scope);
  if (status != P2C_OK) return status;
  P2cDevice *d = e->device;
  DEV_CHECK(d, cuEventRecord(e->event, s ? s->stream : NULL));
cleanup:
  LEAVE(&scope);
  return status;
}

P2cStatus p2c_stream_wait_event(P2cStream *s, P2cEvent *e) {
  GpuScope scope;
  P2cStatus status = enter_event_and_stream(e, s, &scope);
  if (status != P2C_OK) return status;
  P2cDevice *d = e->device;
  if (DRV(d)->cuStreamWaitEvent) DEV_CHECK(d, cuStreamWaitEvent(s ? s->stream : NULL, e->event, 0));
  else DEV_CHECK(d, cuEventSynchronize(e->event));
cleanup:
  LEAVE(&scope);
  return status;
}

P2cStatus p2c_event_synchronize(P2cEvent *e) {
  if (!e) return P2C_ERR_USAGE;
  P2cDevice *d = e->device;
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  DEV_CHECK(d, cuEventSynchronize(e->event));
cleanup:
  LEAVE(&scope);
  return status;
}

P2cStatus p2c_event_elapsed_ms(const P2cEvent *start, const P2cEvent *end, float *ms) {
  if (!start || !end || !ms) return start ? gpu_fail(start->device, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  P2cDevice *d = start->device;
  *ms = 0;
  if (end->device != d) return gpu_fail(d, P2C_ERR_USAGE, "the events belong to two devices");
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  DEV_CHECK(d, cuEventSynchronize(end->event));
  /* The driver answers INVALID_HANDLE for an event never recorded (both handles here are live):
   * said in the simulator's words, so that both back ends report it alike. */
  CuResult rc = DRV(d)->cuEventElapsedTime(ms, start->event, end->event);
  if (rc == CUDRV_ERROR_INVALID_HANDLE)
    status = gpu_fail(d, P2C_ERR_CUDA, "an event was never recorded (cuEventElapsedTime: "
                      "CUDA_ERROR_INVALID_HANDLE)");
  else if (rc != CUDRV_SUCCESS)
    status = cudrv_fail(DRV(d), rc, "cuEventElapsedTime(ms, start->event, end->event)", __FILE__, __LINE__,
                        d->last_error, sizeof d->last_error);
cleanup:
  LEAVE(&scope);
  return status;
}

/* ---- Other libraries' memory and streams ---------------------------------------------------- */

P2cStatus p2c_device_pointer_ordinal(P2cDevice *d, uint64_t address, int *ordinal) {
  if (!d || !ordinal) return d ? gpu_fail(d, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  *ordinal = -1;
  if (!DRV(d)->cuPointerGetAttribute || address == 0) return P2C_OK;
  int found = -1;
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  /* Memory the driver did not allocate is no error: it cannot tell, and says so. */
  if (DRV(d)->cuPointerGetAttribute(&found, CUDRV_POINTER_DEVICE_ORDINAL, address) == CUDRV_SUCCESS)
    *ordinal = found;
  LEAVE(&scope);
  return P2C_OK;
}

P2cStatus p2c_device_wait_stream(P2cDevice *d, uint64_t handle) {
  if (!d) return P2C_ERR_USAGE;
  if (handle == 0)
    return gpu_fail(d, P2C_ERR_USAGE, "stream 0 is not a stream (__cuda_array_interface__ v3 "
                    "disallows it: 1 is the legacy default stream, 2 the per-thread one)");
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  DEV_CHECK(d, cuStreamSynchronize((CuStream)(uintptr_t)handle));
cleanup:
  LEAVE(&scope);
  if (status != P2C_OK) gpu_error_context(ERR(d), "waiting for stream 0x%llx", (unsigned long long)handle);
  return status;
}

/* Whether `consumer` (NULL: the legacy default stream) is ordered after the producer stream
 * `handle` already: work on the legacy default stream waits for every blocking stream's earlier
 * work (the per-thread default streams are blocking ones), and work on a blocking stream, as every
 * stream of p2c_stream_new is, for the legacy default stream's. */
static bool ordered_already(uint64_t handle, const P2cStream *consumer) {
  if (handle == (uint64_t)(uintptr_t)CUDRV_STREAM_LEGACY) return true;
  return handle == (uint64_t)(uintptr_t)CUDRV_STREAM_PER_THREAD && !consumer;
}

/* Records a new event on `producer` and makes `consumer` wait for it (cuStreamWaitEvent), in d's
 * context. The event is destroyed at once: the driver keeps it until the wait is over, and an
 * event per call keeps two threads' imports apart. */
static P2cStatus wait_on_device(P2cDevice *d, CuStream producer, CuStream consumer) {
  P2cStatus status = P2C_OK;
  CuEvent e = NULL;
  DEV_CHECK(d, cuEventCreate(&e, CUDRV_EVENT_DISABLE_TIMING));
  DEV_CHECK(d, cuEventRecord(e, producer));
  DEV_CHECK(d, cuStreamWaitEvent(consumer, e, 0));
cleanup:
  if (e) DRV(d)->cuEventDestroy(e);
  return status;
}

P2cStatus p2c_stream_wait_producer(P2cDevice *d, uint64_t handle, P2cStream *consumer) {
  if (!d) return P2C_ERR_USAGE;
  if (consumer && consumer->device != d)
    return gpu_fail(d, P2C_ERR_USAGE, "the stream belongs to another device");
  if (handle == 0) return p2c_device_wait_stream(d, handle); /* refused there, with its words */
  if (ordered_already(handle, consumer)) return P2C_OK;
  if (!DRV(d)->cuStreamWaitEvent) return p2c_device_wait_stream(d, handle);
  GpuScope scope;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  status = wait_on_device(d, (CuStream)(uintptr_t)handle, consumer ? consumer->stream : NULL);
  LEAVE(&scope);
  if (status != P2C_OK)
    gpu_error_context(ERR(d), "ordering a launch after stream 0x%llx", (unsigned long long)handle);
  return status;
}

uint64_t p2c_stream_handle(const P2cStream *s) {
  return s ? (uint64_t)(uintptr_t)s->stream : (uint64_t)(uintptr_t)CUDRV_STREAM_LEGACY;
}

/* ---- Device arrays -------------------------------------------------------------------------- */

bool gpu_array_span(int64_t item, int ndim, const int64_t *shape, const int64_t *strides,
                    size_t *bytes, size_t *offset) {
  int64_t lo = 0, hi = 0;
  *bytes = *offset = 0;
  for (int k = 0; k < ndim; k++)
    if (shape[k] <= 0) return shape[k] == 0; /* an empty array spans nothing */
  for (int k = 0; k < ndim; k++) {
    int64_t reach;
    if (__builtin_mul_overflow(shape[k] - 1, strides[k], &reach)) return false;
    if (reach < 0 && __builtin_add_overflow(lo, reach, &lo)) return false;
    if (reach > 0 && __builtin_add_overflow(hi, reach, &hi)) return false;
  }
  int64_t total;
  if (__builtin_sub_overflow(hi, lo, &total) || __builtin_add_overflow(total, item, &total))
    return false;
  *bytes = (size_t)total;
  *offset = (size_t)-lo;
  return true;
}

/* Zeroes a new array's buffer: on `s`, after the work queued there, or without one on the
 * device's own stream, waited for. Never on the legacy default stream (cuMemsetD8), which
 * would first wait for every blocking stream's work and make their later work wait for it:
 * memory that nothing has used yet needs no order with any earlier work. */
static P2cStatus zero_new(P2cDevice *d, P2cBuffer *b, P2cStream *s) {
  if (s) return p2c_buffer_zero(b, s);
  GpuScope scope;
  CuStream own = NULL;
  P2cStatus status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  status = own_stream(d, &own);
  if (status != P2C_OK) goto cleanup;
  DEV_CHECK(d, cuMemsetD8Async(b->ptr, 0, b->size, own));
  DEV_CHECK(d, cuStreamSynchronize(own));
cleanup:
  LEAVE(&scope);
  return status;
}

/* Gives `out` a zeroed buffer for its span (zero_new), and its data address. */
static P2cStatus array_alloc(P2cDevice *d, P2cDeviceArray *out, P2cStream *stream) {
  size_t bytes, offset;
  int64_t item = (int64_t)p2c_dtype_size(out->dtype, out->record);
  if (!gpu_array_span(item, out->ndim, out->shape, out->strides, &bytes, &offset))
    return gpu_fail(d, P2C_ERR_USAGE, "the array's size overflows");
  if (bytes == 0) return P2C_OK; /* nothing to allocate: data stays 0 */
  if (stream && stream->device != d) return gpu_fail(d, P2C_ERR_USAGE, "the stream belongs to another device");
  P2cStatus s = p2c_buffer_new(d, bytes, &out->buffer);
  if (s == P2C_OK) s = zero_new(d, out->buffer, stream);
  if (s != P2C_OK) {
    p2c_buffer_delete(out->buffer);
    out->buffer = NULL;
    return s;
  }
  out->data = out->buffer->ptr + offset;
  return P2C_OK;
}

static bool valid_shape(P2cScalarType dtype, const P2cRecord *record, int ndim, const int64_t *shape) {
  if (!p2c_dtype_size(dtype, record) || ndim < 0 || ndim > P2C_MAX_NDIM || (ndim && !shape)) return false;
  for (int k = 0; k < ndim; k++)
    if (shape[k] < 0) return false;
  return true;
}

P2cStatus p2c_device_array_new(P2cDevice *d, P2cScalarType dtype, int ndim, const int64_t *shape,
                               P2cDeviceArray *out) {
  return p2c_device_array_new_on(d, dtype, ndim, shape, NULL, out);
}

P2cStatus p2c_device_array_new_on(P2cDevice *d, P2cScalarType dtype, int ndim, const int64_t *shape,
                                  P2cStream *stream, P2cDeviceArray *out) {
  if (!out) return P2C_ERR_USAGE;
  memset(out, 0, sizeof *out);
  if (!d) return P2C_ERR_USAGE;
  if (!valid_shape(dtype, NULL, ndim, shape)) return gpu_fail(d, P2C_ERR_USAGE, "invalid array type or shape");
  out->dtype = dtype;
  out->ndim = ndim;
  int64_t stride = (int64_t)p2c_dtype_size(dtype, NULL);   /* scalars, S<n>, U<n> */
  for (int k = ndim; k-- > 0;) {
    out->shape[k] = shape[k];
    out->strides[k] = stride;
    if (shape[k] && __builtin_mul_overflow(stride, shape[k], &stride))
      return gpu_fail(d, P2C_ERR_USAGE, "the array's size overflows");
  }
  P2cStatus s = array_alloc(d, out, stream);
  if (s != P2C_OK) memset(out, 0, sizeof *out);
  return s;
}

P2cStatus p2c_device_array_like(P2cDevice *d, const P2cHostArray *host, P2cDeviceArray *out) {
  return p2c_device_array_like_on(d, host, NULL, out);
}

P2cStatus p2c_device_array_like_on(P2cDevice *d, const P2cHostArray *host, P2cStream *stream,
                                   P2cDeviceArray *out) {
  if (!out) return P2C_ERR_USAGE;
  memset(out, 0, sizeof *out);
  if (!d || !host) return d ? gpu_fail(d, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  if (!valid_shape(host->dtype, host->record, host->ndim, host->shape))
    return gpu_fail(d, P2C_ERR_USAGE, "invalid array type or shape");
  out->dtype = host->dtype;
  out->record = host->record;
  out->ndim = host->ndim;
  memcpy(out->shape, host->shape, sizeof out->shape);
  memcpy(out->strides, host->strides, sizeof out->strides);
  P2cStatus s = array_alloc(d, out, stream);
  if (s != P2C_OK) memset(out, 0, sizeof *out);
  return s;
}

/* The two arrays describe the same bytes: dtype, shape and strides. */
static bool same_layout(const P2cDeviceArray *a, const P2cHostArray *h) {
  if (a->dtype != h->dtype || a->ndim != h->ndim) return false;
  for (int k = 0; k < a->ndim; k++)
    if (a->shape[k] != h->shape[k] || (a->shape[k] > 1 && a->strides[k] != h->strides[k]))
      return false;
  return true;
}

/* Checks a transfer and finds the span both arrays cover. */
static P2cStatus transfer_span(P2cDevice *d, const P2cDeviceArray *a, const P2cHostArray *h,
                               P2cStream *s, size_t *bytes, size_t *offset) {
  if (!same_layout(a, h))
    return gpu_fail(d, P2C_ERR_USAGE,
                    "host and device arrays differ in dtype, shape or strides: copy needs the same "
                    "layout (make the device array with p2c_device_array_like)");
  if (!gpu_array_span((int64_t)p2c_dtype_size(a->dtype, a->record), a->ndim, a->shape, a->strides, bytes, offset))
    return gpu_fail(d, P2C_ERR_USAGE, "the array's size overflows");
  if (a->buffer && (a->data - *offset < a->buffer->ptr ||
                    a->data - *offset + *bytes > a->buffer->ptr + a->buffer->size))
    return gpu_fail(d, P2C_ERR_USAGE, "the device array reaches outside its buffer");
  if (s && s->device != d) return gpu_fail(d, P2C_ERR_USAGE, "the stream belongs to another device");
  return P2C_OK;
}

P2cStatus p2c_device_array_upload(P2cDevice *d, P2cDeviceArray *dst, const P2cHostArray *src,
                                  P2cStream *s) {
  if (!d || !dst || !src) return d ? gpu_fail(d, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  size_t bytes, offset;
  P2cStatus status = transfer_span(d, dst, src, s, &bytes, &offset);
  if (status != P2C_OK || bytes == 0) return status;
  const char *host = (const char *)src->data - offset;
  GpuScope scope;
  status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  if (s)
    DEV_CHECK(d, cuMemcpyHtoDAsync(dst->data - offset, host, bytes, s->stream));
  else
    DEV_CHECK(d, cuMemcpyHtoD(dst->data - offset, host, bytes));
cleanup:
  LEAVE(&scope);
  return status;
}

P2cStatus p2c_device_array_download(P2cDevice *d, const P2cDeviceArray *src, P2cHostArray *dst,
                                    P2cStream *s) {
  if (!d || !dst || !src) return d ? gpu_fail(d, P2C_ERR_USAGE, "missing argument") : P2C_ERR_USAGE;
  size_t bytes, offset;
  P2cStatus status = transfer_span(d, src, dst, s, &bytes, &offset);
  if (status != P2C_OK || bytes == 0) return status;
  char *host = (char *)dst->data - offset;
  GpuScope scope;
  status = ENTER(d, &scope);
  if (status != P2C_OK) return status;
  if (s)
    DEV_CHECK(d, cuMemcpyDtoHAsync(host, src->data - offset, bytes, s->stream));
  else
    DEV_CHECK(d, cuMemcpyDtoH(host, src->data - offset, bytes));
cleanup:
  LEAVE(&scope);
  return status;
}

void p2c_device_array_free(P2cDeviceArray *a) {
  if (!a) return;
  p2c_buffer_delete(a->buffer);
  memset(a, 0, sizeof *a);
}

size_t p2c_device_array_pack(const P2cDeviceArray *a, void *out) {
  if (!a || !out || a->ndim < 0 || a->ndim > P2C_MAX_NDIM) return 0;
  unsigned char *p = out;
  size_t n = (size_t)a->ndim;
  memcpy(p, &a->data, 8);
  memcpy(p + 8, a->shape, 8 * n);
  memcpy(p + 8 + 8 * n, a->strides, 8 * n);
  return 8 + 16 * n;
}
