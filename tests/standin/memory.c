/* The stand-in's memory: device allocations in an arena the host cannot touch, copies and
 * memsets (synchronous and queued), pinned and registered host memory.
 *
 * The arena is one reserved range of address space (PROT_NONE), bump-allocated and never
 * reused: an allocation gets whole pages of its own after a guard page, and ends at the end of
 * its pages (SI_ALIGN-aligned), so an access past its end faults, and a freed one's pages stay
 * inaccessible for ever. Pages are opened (read-write) only while the stand-in copies to or
 * from them or runs a kernel of their context (si_open_device), so a host dereference of a
 * device pointer faults (SIGSEGV) as on a GPU system. New allocations are filled with 0xAB:
 * cuMemAlloc does not zero. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "standin.h"


static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }
static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

CUresult si_arena_init(SiState *s) {
  size_t sizes[] = {(size_t)1 << 40, (size_t)1 << 37, (size_t)1 << 34};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    void *p = mmap(NULL, sizes[i], PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) continue;
    s->arena = p;
    s->arena_size = sizes[i];
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_OUT_OF_MEMORY;
}

bool si_arena_holds(const void *p) {
  SiState *s = si_state();
  const unsigned char *c = p;
  return s->arena && c >= s->arena && c < s->arena + s->arena_size;
}

/* ---- The table of allocations --------------------------------------------------------------- */

static CUresult table_add(const SiAlloc *a) {
  SiState *s = si_state();
  if (s->alloc_count == s->alloc_cap) {
    size_t cap = s->alloc_cap ? 2 * s->alloc_cap : 64;
    SiAlloc *grown = realloc(s->allocs, cap * sizeof *grown);
    if (!grown) return CUDA_ERROR_OUT_OF_MEMORY;
    s->allocs = grown;
    s->alloc_cap = cap;
  }
  s->allocs[s->alloc_count++] = *a;
  return CUDA_SUCCESS;
}

static void table_remove(SiAlloc *a) {
  SiState *s = si_state();
  *a = s->allocs[--s->alloc_count];
}

SiAlloc *si_find(const void *p, size_t bytes) {
  SiState *s = si_state();
  const unsigned char *c = p;
  for (size_t i = 0; i < s->alloc_count; i++) {
    SiAlloc *a = &s->allocs[i];
    if (c >= a->ptr && c <= a->ptr + a->size && bytes <= (size_t)(a->ptr + a->size - c)) return a;
  }
  return NULL;
}

bool si_is_pinned(const void *p, size_t bytes) {
  SiAlloc *a = si_find(p, bytes);
  if (a) return a->pinned || a->registered;
  /* registrations are page-granular: look at their pages too */
  SiState *s = si_state();
  const unsigned char *c = p;
  for (size_t i = 0; i < s->alloc_count; i++) {
    SiAlloc *r = &s->allocs[i];
    if (r->registered && c >= r->pages && c + bytes <= r->pages + r->pages_len) return true;
  }
  return false;
}

void si_open_range(SiAlloc *a, bool open) {
  if (a && !a->pinned && !a->registered && !a->global)
    mprotect(a->pages, a->pages_len, open ? PROT_READ | PROT_WRITE : PROT_NONE);
}

void si_open_device(SiCtx *ctx, bool open) {
  SiState *s = si_state();
  for (size_t i = 0; i < s->alloc_count; i++)
    if (s->allocs[i].ctx == ctx) si_open_range(&s->allocs[i], open);
}

/* ---- Device allocations --------------------------------------------------------------------- */

static void release_device(SiAlloc *a);

static CUresult device_alloc(CUdeviceptr *out, size_t bytes, bool stream_ordered) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  if (!out || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  SiState *s = si_state();
  size_t page = page_size(), used = round_up(bytes, SI_ALIGN), span = round_up(used, page);
  if (span < used || s->arena_used + page + span > s->arena_size ||
      s->device_used[ctx->device] + used > si_device_memory())
    return CUDA_ERROR_OUT_OF_MEMORY;
  SiAlloc a = {.ctx = ctx, .size = bytes, .pages = s->arena + s->arena_used + page, .pages_len = span,
               .stream_ordered = stream_ordered};
  a.ptr = a.pages + span - used;
  if (table_add(&a) != CUDA_SUCCESS) return CUDA_ERROR_OUT_OF_MEMORY;
  s->arena_used += page + span;
  s->device_used[ctx->device] += used;
  si_open_range(&a, true);
  memset(a.ptr, 0xAB, bytes);
  si_open_range(&a, false);
  *out = (CUdeviceptr)(uintptr_t)a.ptr;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *out, size_t bytes) { SI_ENTRY(device_alloc(out, bytes, false)); }

/* The stream-ordered allocator, simplified: the memory is allocated at the call (a driver makes
 * it valid in the stream's order, so using it earlier elsewhere is the program's race, which
 * this does not catch), and a free is queued on the stream: it releases the memory when the
 * stream reaches it, without the host or other streams waiting. */
static CUresult alloc_async(CUdeviceptr *out, size_t bytes, void *stream) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  if (!si_stream_of(ctx, stream, &rc)) return rc;
  if (si_no_pools(ctx->device)) return CUDA_ERROR_NOT_SUPPORTED; /* a device without pools */
  return device_alloc(out, bytes, true);
}

EXPORT CUresult cuMemAllocAsync(CUdeviceptr *out, size_t bytes, void *stream) {
  SI_ENTRY(alloc_async(out, bytes, stream));
}

static CUresult free_async(CUdeviceptr ptr, void *stream) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiStream *s = si_stream_of(ctx, stream, &rc);
  if (!s) return rc;
  SiAlloc *a = si_find((void *)(uintptr_t)ptr, 0);
  if (!a || a->ptr != (unsigned char *)(uintptr_t)ptr || a->pinned || a->registered || a->global)
    return CUDA_ERROR_INVALID_VALUE;
  SiWork *w = calloc(1, sizeof *w);
  if (!w) return CUDA_ERROR_OUT_OF_MEMORY;
  w->kind = WORK_FREE;
  w->dst = a->ptr;
  return si_enqueue(ctx, s, w);
}

EXPORT CUresult cuMemFreeAsync(CUdeviceptr ptr, void *stream) { SI_ENTRY(free_async(ptr, stream)); }

void si_run_free(SiWork *w) {
  SiAlloc *a = si_find(w->dst, 0);
  if (a && a->ptr == w->dst) release_device(a);
}

/* Gives the pages back to the system; they stay reserved and inaccessible. */
static void release_device(SiAlloc *a) {
  SiState *s = si_state();
  madvise(a->pages, a->pages_len, MADV_DONTNEED);
  mprotect(a->pages, a->pages_len, PROT_NONE);
  s->device_used[a->ctx->device] -= round_up(a->size, SI_ALIGN);
  table_remove(a);
}

/* cuMemFree waits for the device, everything queued in the context running first (what "may
 * perform implicit synchronization" allows, taken at its worst), except for memory of the
 * stream-ordered allocator, which a driver frees without waiting (the program must have made
 * sure no work still uses it). */
static CUresult device_free(CUdeviceptr ptr) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  if (ptr == 0) return CUDA_SUCCESS;
  SiAlloc *a = si_find((void *)(uintptr_t)ptr, 0);
  if (!a || a->ptr != (unsigned char *)(uintptr_t)ptr || a->pinned || a->registered || a->global)
    return CUDA_ERROR_INVALID_VALUE;
  if (!a->stream_ordered) rc = si_drain_ctx(ctx);
  if (rc != CUDA_SUCCESS) return rc;
  release_device(si_find((void *)(uintptr_t)ptr, 0));
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr) { SI_ENTRY(device_free(ptr)); }

/* CUpointer_attribute values the stand-in answers. */
enum { POINTER_CONTEXT = 1, POINTER_MEMORY_TYPE = 2, POINTER_DEVICE_ORDINAL = 9 };
enum { MEMORYTYPE_HOST = 1, MEMORYTYPE_DEVICE = 2 };

/* What a driver with unified addressing tells of an address of a live allocation (any context:
 * the address says which); CUDA_ERROR_INVALID_VALUE for memory it did not allocate. */
static CUresult pointer_attribute(void *data, int attribute, CUdeviceptr ptr) {
  SiAlloc *a = si_find((void *)(uintptr_t)ptr, 0);
  if (!data || !a) return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
  case POINTER_CONTEXT:
    *(void **)data = a->ctx;
    return CUDA_SUCCESS;
  case POINTER_MEMORY_TYPE:
    *(unsigned *)data = a->pinned || a->registered ? MEMORYTYPE_HOST : MEMORYTYPE_DEVICE;
    return CUDA_SUCCESS;
  case POINTER_DEVICE_ORDINAL:
    *(int *)data = a->ctx->device;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

EXPORT CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr) {
  SI_ENTRY(pointer_attribute(data, attribute, ptr));
}

static CUresult mem_info(size_t *free_bytes, size_t *total) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  if (!free_bytes || !total) return CUDA_ERROR_INVALID_VALUE;
  *total = si_device_memory();
  *free_bytes = *total - si_state()->device_used[ctx->device];
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) { SI_ENTRY(mem_info(free_bytes, total)); }

/* ---- Copies and memsets --------------------------------------------------------------------- */

/* What a copy or memset touches on the device must lie in one live allocation. */
static CUresult check_device_range(CUdeviceptr p, size_t bytes) {
  SiAlloc *a = si_find((void *)(uintptr_t)p, bytes);
  return a && !a->pinned && !a->registered ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Runs a queued copy or memset: the device pages it touches are open only meanwhile. */
CUresult si_run_copy(SiWork *w) {
  SiAlloc *d = si_find(w->dst, w->bytes);
  SiAlloc *s = w->kind == WORK_COPY ? si_find(w->src, w->bytes) : NULL;
  si_open_range(d, true);
  if (s != d) si_open_range(s, true);
  if (w->kind == WORK_SET)
    memset(w->dst, w->value, w->bytes);
  else
    memmove(w->dst, w->staging ? w->staging : w->src, w->bytes);
  si_open_range(d, false);
  if (s != d) si_open_range(s, false);
  return CUDA_SUCCESS;
}

/* Queues a copy or memset on `stream_handle` and, when `wait`, runs its stream up to it (the
 * legacy default stream's work before it included). */
static CUresult queue_transfer(SiWork *proto, void *stream_handle, bool wait) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiStream *s = si_stream_of(ctx, stream_handle, &rc);
  if (!s) return rc;
  if (proto->bytes == 0) return CUDA_SUCCESS;
  SiWork *w = calloc(1, sizeof *w);
  if (!w) return CUDA_ERROR_OUT_OF_MEMORY;
  *w = *proto;
  /* A pageable source is copied at the call (the driver's staging buffer). */
  if (w->kind == WORK_COPY && !si_arena_holds(w->src) && !si_is_pinned(w->src, w->bytes)) {
    w->staging = malloc(w->bytes);
    if (!w->staging) return free(w), CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(w->staging, w->src, w->bytes);
  }
  rc = si_enqueue(ctx, s, w);
  if (rc != CUDA_SUCCESS || !wait) return rc;
  return si_drain_stream(s, s->tail);
}

typedef enum { TO_DEVICE, TO_HOST, DEVICE_TO_DEVICE } Direction;

/* One copy, checked: the device side(s) in live allocations; a copy to pageable host memory
 * waits for its stream even when asynchronous, as the driver's does. */
static CUresult copy(Direction dir, void *dst, const void *src, size_t bytes, void *stream,
                     bool async) {
  if (!dst || !src) return bytes ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
  CUresult rc = CUDA_SUCCESS;
  if (dir != TO_HOST) rc = check_device_range((uintptr_t)dst, bytes);
  if (rc == CUDA_SUCCESS && dir != TO_DEVICE) rc = check_device_range((uintptr_t)src, bytes);
  if (rc == CUDA_SUCCESS && dir != DEVICE_TO_DEVICE && si_arena_holds(dir == TO_HOST ? dst : src))
    rc = CUDA_ERROR_INVALID_VALUE;
  if (rc != CUDA_SUCCESS) return rc;
  bool wait = !async || (dir == TO_HOST && !si_is_pinned(dst, bytes));
  SiWork w = {.kind = WORK_COPY, .dst = dst, .src = src, .bytes = bytes};
  return queue_transfer(&w, stream, wait);
}


#define DEV(p) ((void *)(uintptr_t)(p))

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  SI_ENTRY(copy(TO_DEVICE, DEV(dst), src, bytes, NULL, false));
}
EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  SI_ENTRY(copy(TO_HOST, dst, DEV(src), bytes, NULL, false));
}
EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  SI_ENTRY(copy(DEVICE_TO_DEVICE, DEV(dst), DEV(src), bytes, NULL, false));
}
EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, void *stream) {
  SI_ENTRY(copy(TO_DEVICE, DEV(dst), src, bytes, stream, true));
}
EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, void *stream) {
  SI_ENTRY(copy(TO_HOST, dst, DEV(src), bytes, stream, true));
}
EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, void *stream) {
  SI_ENTRY(copy(DEVICE_TO_DEVICE, DEV(dst), DEV(src), bytes, stream, true));
}

static CUresult memset8(CUdeviceptr dst, unsigned char value, size_t count, void *stream, bool async) {
  CUresult rc = check_device_range(dst, count);
  if (rc != CUDA_SUCCESS) return count ? rc : CUDA_SUCCESS;
  SiWork w = {.kind = WORK_SET, .dst = DEV(dst), .bytes = count, .value = value};
  return queue_transfer(&w, stream, !async);
}

EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t count) {
  SI_ENTRY(memset8(dst, value, count, NULL, false));
}
EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, void *stream) {
  SI_ENTRY(memset8(dst, value, count, stream, true));
}

/* ---- Pinned and registered host memory ------------------------------------------------------ */

static CUresult host_alloc(void **out, size_t bytes, unsigned flags) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  if (!out || bytes == 0 || (flags & ~7u)) return CUDA_ERROR_INVALID_VALUE;
  size_t span = round_up(bytes, page_size());
  void *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  SiAlloc a = {.ctx = ctx, .ptr = p, .size = bytes, .pages = p, .pages_len = span, .pinned = true,
               .flags = flags};
  if (table_add(&a) != CUDA_SUCCESS) return munmap(p, span), CUDA_ERROR_OUT_OF_MEMORY;
  *out = p;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemHostAlloc(void **out, size_t bytes, unsigned flags) {
  SI_ENTRY(host_alloc(out, bytes, flags));
}
EXPORT CUresult cuMemAllocHost_v2(void **out, size_t bytes) { SI_ENTRY(host_alloc(out, bytes, 0)); }

/* Freeing pinned memory waits for the device, as cuMemFreeHost does. */
static CUresult host_free(void *p) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiAlloc *a = si_find(p, 0);
  if (!a || !a->pinned || a->ptr != p) return CUDA_ERROR_INVALID_VALUE;
  rc = si_drain_ctx(ctx);
  if (rc != CUDA_SUCCESS) return rc;
  a = si_find(p, 0);
  munmap(a->pages, a->pages_len);
  table_remove(a);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemFreeHost(void *p) { SI_ENTRY(host_free(p)); }

/* True when every page of [p, p+len) is mapped writable (/proc/self/maps). */
static bool pages_writable(const unsigned char *p, size_t len) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return true;
  uintptr_t want = (uintptr_t)p, end = want + len;
  char line[512];
  while (want < end && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3) continue;
    if (want >= lo && want < hi) {
      if (perms[1] != 'w') break;
      want = hi;
    }
  }
  fclose(f);
  return want >= end;
}

enum { REGISTER_PORTABLE = 1, REGISTER_DEVICEMAP = 2, REGISTER_IOMEMORY = 4, REGISTER_READ_ONLY = 8 };

/* Page-granular: the pages holding [p, p+bytes) are registered, and may not overlap another
 * registration. Read-only pages need CU_MEMHOSTREGISTER_READ_ONLY (the driver would pin them
 * for writing). */
static CUresult host_register(void *p, size_t bytes, unsigned flags) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  if (!p || bytes == 0 || (flags & ~15u) || si_arena_holds(p)) return CUDA_ERROR_INVALID_VALUE;
  size_t page = page_size();
  unsigned char *lo = (unsigned char *)((uintptr_t)p / page * page);
  unsigned char *hi = (unsigned char *)round_up((uintptr_t)p + bytes, page);
  SiState *s = si_state();
  for (size_t i = 0; i < s->alloc_count; i++) {
    SiAlloc *r = &s->allocs[i];
    if ((r->registered || r->pinned) && lo < r->pages + r->pages_len && r->pages < hi)
      return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  }
  if (!(flags & REGISTER_READ_ONLY) && !pages_writable(lo, (size_t)(hi - lo))) {
    si_note("cuMemHostRegister of read-only memory at %p without CU_MEMHOSTREGISTER_READ_ONLY", p);
    return CUDA_ERROR_INVALID_VALUE;
  }
  SiAlloc a = {.ctx = ctx, .ptr = p, .size = bytes, .pages = lo, .pages_len = (size_t)(hi - lo),
               .registered = true, .flags = flags};
  return table_add(&a);
}

EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned flags) {
  SI_ENTRY(host_register(p, bytes, flags));
}

static CUresult host_unregister(void *p) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiState *s = si_state();
  for (size_t i = 0; i < s->alloc_count; i++)
    if (s->allocs[i].registered && s->allocs[i].ptr == p) {
      rc = si_drain_ctx(ctx); /* the device may still be reading it */
      table_remove(&s->allocs[i]);
      return rc;
    }
  return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}

EXPORT CUresult cuMemHostUnregister(void *p) { SI_ENTRY(host_unregister(p)); }

/* ---- Module globals and teardown ------------------------------------------------------------ */

CUresult si_add_global(SiModule *m, void *p, size_t bytes) {
  if (si_find(p, bytes)) return CUDA_SUCCESS;
  SiAlloc a = {.ctx = m->ctx, .module = m, .ptr = p, .size = bytes, .pages = p, .pages_len = bytes,
               .global = true};
  return table_add(&a);
}

void si_remove_globals(const SiModule *m) {
  SiState *s = si_state();
  for (size_t i = 0; i < s->alloc_count; i++)
    if (s->allocs[i].global && s->allocs[i].module == m) table_remove(&s->allocs[i]), i--;
}

void si_free_ctx_memory(SiCtx *ctx, bool report, FILE *leaks) {
  SiState *s = si_state();
  for (size_t i = 0; i < s->alloc_count; i++) {
    SiAlloc *a = &s->allocs[i];
    if (a->ctx != ctx) continue;
    if (report && !a->global)
      fprintf(leaks, "pyk2cuda stand-in: leak: device %d: %s of %zu bytes at %p\n", ctx->device,
              a->pinned ? "cuMemHostAlloc" : a->registered ? "cuMemHostRegister" : "cuMemAlloc",
              a->size, (void *)a->ptr);
    if (a->pinned) munmap(a->pages, a->pages_len);
    if (a->pinned || a->registered || a->global)
      table_remove(a);
    else
      release_device(a);
    i--;
  }
}
