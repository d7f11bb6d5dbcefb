/* The stand-in's streams and events: work is queued, and runs only when the host waits for it.
 *
 * Each stream is a FIFO of work numbered in the order it was queued in its context. A piece of
 * work lists what must be done before it (SiDep: a stream's work up to a number): the legacy
 * default stream's implicit synchronization (work on it waits for every blocking stream's
 * earlier work, work on a blocking stream waits for the default stream's earlier work;
 * CU_STREAM_NON_BLOCKING streams are exempt) and cuStreamWaitEvent. Waiting for a stream up to
 * a number runs, first, what each piece depends on, then the piece: a legal schedule of the
 * GPU's, run by the thread that waits.
 *
 * The host waits in cuStreamSynchronize, cuEventSynchronize, cuCtxSynchronize, blocking copies
 * and memsets, cuMemFree, and step by step in cuStreamQuery and cuEventQuery (each query that
 * finds work pending runs one piece and answers CUDA_ERROR_NOT_READY, so a polling loop ends).
 * A fault while running poisons the context (SiCtx.sticky): the rest of its work is dropped and
 * every later call fails with the fault until the context is reset. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>

#include "standin.h"

enum { STREAM_NON_BLOCKING = 1, EVENT_DISABLE_TIMING = 2 };
#define STREAM_LEGACY ((void *)0x1)
#define STREAM_PER_THREAD ((void *)0x2)

void si_work_free(SiWork *w) {
  if (!w) return;
  free(w->deps);
  free(w->staging);
  free(w->params);
  free(w->args);
  free(w);
}

/* The calling thread's per-thread default stream in ctx (CU_STREAM_PER_THREAD), made at its first
 * use: a blocking stream (the legacy default stream's implicit synchronization includes it), one
 * per thread, kept until the context goes. A thread id the system reuses finds the stream of the
 * thread that had it. */
static SiStream *per_thread_stream(SiCtx *ctx, CUresult *rc) {
  for (SiStream *s = ctx->streams; s; s = s->next)
    if (s->per_thread && pthread_equal(s->owner, pthread_self())) return s;
  SiStream *s = calloc(1, sizeof *s);
  if (!s) return *rc = CUDA_ERROR_OUT_OF_MEMORY, NULL;
  s->ctx = ctx;
  s->per_thread = true;
  s->owner = pthread_self();
  s->next = ctx->streams;
  ctx->streams = s;
  return s;
}

SiStream *si_stream_of(SiCtx *ctx, void *handle, CUresult *rc) {
  *rc = CUDA_SUCCESS;
  if (!handle || handle == STREAM_LEGACY) return &ctx->null_stream;
  if (handle == STREAM_PER_THREAD) return per_thread_stream(ctx, rc);
  for (SiStream *s = ctx->streams; s; s = s->next)
    if (s == handle && !s->destroyed && !s->per_thread) return s;
  *rc = CUDA_ERROR_INVALID_HANDLE;
  return NULL;
}

static bool add_dep(SiWork *w, SiStream *s, uint64_t seq) {
  if (seq == 0 || !s->head || s->head->seq > seq) return true; /* already done */
  SiDep *grown = realloc(w->deps, (w->dep_count + 1) * sizeof *grown);
  if (!grown) return false;
  w->deps = grown;
  w->deps[w->dep_count++] = (SiDep){s, seq};
  return true;
}

/* The legacy default stream's implicit synchronization, as dependencies of w on stream s. */
static bool legacy_deps(SiCtx *ctx, SiStream *s, SiWork *w) {
  if (s->flags & STREAM_NON_BLOCKING) return true;
  if (s != &ctx->null_stream) return add_dep(w, &ctx->null_stream, ctx->null_stream.tail);
  for (SiStream *t = ctx->streams; t; t = t->next)
    if (!(t->flags & STREAM_NON_BLOCKING) && !add_dep(w, t, t->tail)) return false;
  return true;
}

CUresult si_enqueue(SiCtx *ctx, SiStream *s, SiWork *w) {
  if (!legacy_deps(ctx, s, w)) return si_work_free(w), CUDA_ERROR_OUT_OF_MEMORY;
  w->seq = ++ctx->seq;
  w->next = NULL;
  if (s->last)
    s->last->next = w;
  else
    s->head = w;
  s->last = w;
  s->tail = w->seq;
  return CUDA_SUCCESS;
}

/* Drops the work queued on one stream; a queued free still frees (its memory is no one's). */
static void drop_stream(SiStream *s) {
  for (SiWork *w = s->head, *n; w; w = n) {
    n = w->next;
    if (w->kind == WORK_FREE) si_run_free(w);
    si_work_free(w);
  }
  s->head = s->last = NULL;
}

/* Drops every piece of work queued in ctx (after a fault). */
static void drop_all(SiCtx *ctx) {
  drop_stream(&ctx->null_stream);
  for (SiStream *s = ctx->streams; s; s = s->next) drop_stream(s);
}

/* Runs one piece of work (its dependencies are done). */
static CUresult run_work(SiWork *w) {
  switch (w->kind) {
  case WORK_COPY:
  case WORK_SET:
    return si_run_copy(w);
  case WORK_KERNEL:
    return si_run_kernel(w);
  case WORK_RECORD:
    w->event->done = true;
    w->event->ms = si_now_ms();
    return CUDA_SUCCESS;
  case WORK_WAIT:
    return CUDA_SUCCESS;
  case WORK_FREE:
    si_run_free(w);
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_UNKNOWN;
}

/* Runs the head of s after what it depends on. */
static CUresult run_head(SiStream *s) {
  SiWork *w = s->head;
  SiCtx *ctx = s->ctx;
  for (size_t i = 0; i < w->dep_count; i++) {
    CUresult rc = si_drain_stream(w->deps[i].stream, w->deps[i].seq);
    if (rc != CUDA_SUCCESS) return rc;
  }
  if (ctx->sticky != CUDA_SUCCESS) return ctx->sticky;
  CUresult rc = run_work(w);
  s->head = w->next;
  if (!s->head) s->last = NULL;
  si_work_free(w);
  if (rc != CUDA_SUCCESS) {
    ctx->sticky = rc;
    drop_all(ctx);
  }
  return rc;
}

CUresult si_drain_stream(SiStream *s, uint64_t upto) {
  while (s->ctx->sticky == CUDA_SUCCESS && s->head && s->head->seq <= upto) {
    CUresult rc = run_head(s);
    if (rc != CUDA_SUCCESS) return rc;
  }
  return s->ctx->sticky;
}

/* With a seed (PYK2CUDA_STANDIN_SEED), the next number of a xorshift sequence. */
static uint64_t next_random(SiState *s) {
  s->seed ^= s->seed << 13;
  s->seed ^= s->seed >> 7;
  s->seed ^= s->seed << 17;
  return s->seed;
}

/* Runs everything queued in ctx: the piece queued first, again and again, or with a seed
 * (PYK2CUDA_STANDIN_SEED) the head of a stream picked at random among those with work (run_head
 * runs what a piece depends on first, so either order is one a GPU could take). */
CUresult si_drain_ctx(SiCtx *ctx) {
  SiStream *pending[64];
  SiState *state = si_state();
  for (;;) {
    size_t n = 0, first = 0;
    if (ctx->null_stream.head) pending[n++] = &ctx->null_stream;
    for (SiStream *s = ctx->streams; s && n < 64; s = s->next)
      if (s->head) pending[n++] = s;
    if (n == 0 || ctx->sticky != CUDA_SUCCESS) return ctx->sticky;
    for (size_t i = 1; i < n; i++)
      if (pending[i]->head->seq < pending[first]->head->seq) first = i;
    CUresult rc = run_head(pending[state->seed ? next_random(state) % n : first]);
    if (rc != CUDA_SUCCESS) return rc;
  }
}

/* ---- Streams -------------------------------------------------------------------------------- */

static CUresult stream_create(void **out, unsigned flags) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  if (!out || (flags & ~1u)) return CUDA_ERROR_INVALID_VALUE;
  SiStream *s = calloc(1, sizeof *s);
  if (!s) return CUDA_ERROR_OUT_OF_MEMORY;
  s->ctx = ctx;
  s->flags = flags;
  s->next = ctx->streams;
  ctx->streams = s;
  *out = s;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamCreate(void **out, unsigned flags) { SI_ENTRY(stream_create(out, flags)); }
EXPORT CUresult cuStreamCreateWithPriority(void **out, unsigned flags, int priority) {
  (void)priority;
  SI_ENTRY(stream_create(out, flags));
}

/* The work still queued runs first (a driver would finish it later); the handle is dead after,
 * its memory kept until the context goes (work of other streams may still name it). */
static CUresult stream_destroy(void *handle) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, false);
  if (rc != CUDA_SUCCESS) return rc;
  if (!handle || handle == STREAM_LEGACY || handle == STREAM_PER_THREAD) return CUDA_ERROR_INVALID_HANDLE;
  SiStream *s = si_stream_of(ctx, handle, &rc);
  if (!s) return rc;
  if (ctx->sticky == CUDA_SUCCESS) si_drain_stream(s, s->tail);
  s->destroyed = true;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamDestroy_v2(void *stream) { SI_ENTRY(stream_destroy(stream)); }

static CUresult stream_synchronize(void *handle) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiStream *s = si_stream_of(ctx, handle, &rc);
  return s ? si_drain_stream(s, s->tail) : rc;
}

EXPORT CUresult cuStreamSynchronize(void *stream) { SI_ENTRY(stream_synchronize(stream)); }

static CUresult stream_query(void *handle) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiStream *s = si_stream_of(ctx, handle, &rc);
  if (!s) return rc;
  if (!s->head) return CUDA_SUCCESS;
  rc = run_head(s);
  return rc == CUDA_SUCCESS ? CUDA_ERROR_NOT_READY : rc;
}

EXPORT CUresult cuStreamQuery(void *stream) { SI_ENTRY(stream_query(stream)); }

/* How many pieces of work wait on a stream of the current context, none of them run: a test
 * hook (tests/standin/test_runtime.c) that sees whether a call made other streams' work run. */
static CUresult stream_queued(void *handle, unsigned long long *count) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, false);
  if (rc != CUDA_SUCCESS) return rc;
  SiStream *s = si_stream_of(ctx, handle, &rc);
  if (!s) return rc;
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = 0;
  for (SiWork *w = s->head; w; w = w->next) ++*count;
  return CUDA_SUCCESS;
}

EXPORT CUresult p2cStandinQueued(void *stream, unsigned long long *count) {
  SI_ENTRY(stream_queued(stream, count));
}

static CUresult stream_flags(void *handle, unsigned *flags) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, false);
  if (rc != CUDA_SUCCESS) return rc;
  SiStream *s = si_stream_of(ctx, handle, &rc);
  if (s && !flags) rc = CUDA_ERROR_INVALID_VALUE;
  if (s && flags) *flags = s->flags;
  return rc;
}

EXPORT CUresult cuStreamGetFlags(void *stream, unsigned *flags) { SI_ENTRY(stream_flags(stream, flags)); }

/* ---- Events --------------------------------------------------------------------------------- */

static SiEvent *event_of(SiCtx *ctx, void *handle) {
  for (SiEvent *e = ctx->events; e; e = e->next)
    if (e == handle && !e->destroyed) return e;
  return NULL;
}

static CUresult event_create(void **out, unsigned flags) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  if (!out || (flags & ~15u)) return CUDA_ERROR_INVALID_VALUE;
  SiEvent *e = calloc(1, sizeof *e);
  if (!e) return CUDA_ERROR_OUT_OF_MEMORY;
  e->ctx = ctx;
  e->flags = flags;
  e->next = ctx->events;
  ctx->events = e;
  *out = e;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuEventCreate(void **out, unsigned flags) { SI_ENTRY(event_create(out, flags)); }

static CUresult event_destroy(void *handle) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, false);
  if (rc != CUDA_SUCCESS) return rc;
  SiEvent *e = event_of(ctx, handle);
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  e->destroyed = true; /* kept until the context goes: a queued record may still reach it */
  return CUDA_SUCCESS;
}

EXPORT CUresult cuEventDestroy_v2(void *event) { SI_ENTRY(event_destroy(event)); }

static CUresult event_record(void *handle, void *stream) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiEvent *e = event_of(ctx, handle);
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  SiStream *s = si_stream_of(ctx, stream, &rc);
  if (!s) return rc;
  SiWork *w = calloc(1, sizeof *w);
  if (!w) return CUDA_ERROR_OUT_OF_MEMORY;
  w->kind = WORK_RECORD;
  w->event = e;
  rc = si_enqueue(ctx, s, w);
  if (rc != CUDA_SUCCESS) return rc;
  e->recorded = true;
  e->done = false;
  e->stream = s;
  e->seq = w->seq;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuEventRecord(void *event, void *stream) { SI_ENTRY(event_record(event, stream)); }

static CUresult event_synchronize(void *handle) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiEvent *e = event_of(ctx, handle);
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  return e->recorded ? si_drain_stream(e->stream, e->seq) : CUDA_SUCCESS;
}

EXPORT CUresult cuEventSynchronize(void *event) { SI_ENTRY(event_synchronize(event)); }

/* NOT_READY until the record is reached; each query runs one piece of work toward it. */
static CUresult event_query(void *handle) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiEvent *e = event_of(ctx, handle);
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  if (!e->recorded || e->done) return CUDA_SUCCESS;
  rc = run_head(e->stream);
  return rc == CUDA_SUCCESS ? (e->done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY) : rc;
}

EXPORT CUresult cuEventQuery(void *event) { SI_ENTRY(event_query(event)); }

static CUresult elapsed(float *ms, void *start, void *end) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiEvent *a = event_of(ctx, start), *b = event_of(ctx, end);
  if (!ms || !a || !b) return CUDA_ERROR_INVALID_HANDLE;
  if ((a->flags | b->flags) & EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
  if (!a->recorded || !b->recorded) return CUDA_ERROR_INVALID_HANDLE;
  if (!a->done || !b->done) return CUDA_ERROR_NOT_READY;
  *ms = (float)(b->ms - a->ms);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) { SI_ENTRY(elapsed(ms, start, end)); }
EXPORT CUresult cuEventElapsedTime(float *ms, void *start, void *end) { SI_ENTRY(elapsed(ms, start, end)); }

/* Work queued on `stream` after this waits for the event's record (as of now). */
static CUresult wait_event(void *stream, void *event, unsigned flags) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiStream *s = si_stream_of(ctx, stream, &rc);
  if (!s) return rc;
  SiEvent *e = event_of(ctx, event);
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  if (flags) return CUDA_ERROR_INVALID_VALUE;
  if (!e->recorded) return CUDA_SUCCESS;
  SiWork *w = calloc(1, sizeof *w);
  if (!w) return CUDA_ERROR_OUT_OF_MEMORY;
  w->kind = WORK_WAIT;
  if (!add_dep(w, e->stream, e->seq)) return si_work_free(w), CUDA_ERROR_OUT_OF_MEMORY;
  return si_enqueue(ctx, s, w);
}

EXPORT CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
  SI_ENTRY(wait_event(stream, event, flags));
}

/* ---- Teardown ------------------------------------------------------------------------------- */

void si_free_ctx_queues(SiCtx *ctx, FILE *leaks) {
  drop_all(ctx);
  int streams = 0, events = 0;
  for (SiStream *s = ctx->streams, *n; s; s = n) {
    n = s->next;
    streams += !s->destroyed && !s->per_thread;
    free(s);
  }
  for (SiEvent *e = ctx->events, *n; e; e = n) {
    n = e->next;
    events += !e->destroyed;
    free(e);
  }
  ctx->streams = NULL;
  ctx->events = NULL;
  if (leaks && streams) fprintf(leaks, "pyk2cuda stand-in: leak: device %d: %d streams\n", ctx->device, streams);
  if (leaks && events) fprintf(leaks, "pyk2cuda stand-in: leak: device %d: %d events\n", ctx->device, events);
}
