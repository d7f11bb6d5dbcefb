/* The simulator's checker (sanitize.h): shadow memory per element and the rules of
 * docs/simulator.md, "Sanitizer".
 *
 * Shadow memory is kept in pages, each for 1 KiB of the program's memory, found through an
 * open-addressing table keyed by the address's page: cells of 4 bytes for elements of 4 bytes or
 * more, cells of 1 byte (pages of their own) for smaller ones, so that neighbouring bytes written
 * by different threads are different cells. A cell holds the last write and up to two reads
 * since, each with the thread, its block's *epoch* at the access, the warp's generation (how many
 * __syncwarp calls the thread's warp had completed) and the Python position.
 *
 * Epochs are numbered across the checker's life: a new one starts with each block and at each
 * barrier. Blocks run one after another, so an access of the running block is one whose epoch is
 * at least the block's first; one of an earlier launch is one whose epoch is older than the
 * launch's first, which is as good as no access: the shadow is never emptied between launches,
 * its pages only change hands. Which block an epoch belonged to is kept as runs of blocks that
 * passed the same number of barriers (for the messages).
 *
 * Blocks are ordered with one another only by a fence and atomics (CUDA's memory model): a
 * thread that fences and then updates an element atomically *releases* what it did before the
 * fence, and what its block did before the barrier preceding it; a thread that later updates
 * the same element atomically *acquires* those releases, for its own later accesses and, after
 * its block's next barrier, for its block's. Releases are kept for the launch in the order they
 * were made (so by block); acquisitions for the running block. */
#include "runtime/sim/sanitize.h"

#include <stdio.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"

enum { PAGE_BYTES = P2C_SAN_PAGE_BYTES, WARP_HISTORY = 64, MAX_WARPS = P2C_SAN_WARPS,
       MAX_PENDING = 256, WGEN_MASK = P2C_SAN_WGEN_MASK, MAX_THREADS = 1024,
       MAX_RELEASE_ADDRS = 16, MAX_ACQUIRES = 256 };

typedef P2cSanRec Rec;
typedef P2cSanCell Cell;

static int rec_kind(const Rec *r) { return r->wk & 3; }
static uint32_t rec_wgen(const Rec *r) { return (uint32_t)r->wk >> 2; }
static unsigned rec_line(const Rec *r) { return r->pos >> 12; }
static unsigned rec_column(const Rec *r) { return r->pos & 4095; }

typedef struct Page {
  uintptr_t key;          /* (address / PAGE_BYTES) * 2 + (cells of 1 byte) */
  struct Page *next;      /* in a free list, between launches */
  Cell cells[];
} Page;

/* A read of shared memory that no thread of the block had written, held until the block's next
 * barrier: when a thread writes the element before that in a way that races with the read,
 * the race is the finding (the read comes first only in the order the simulator picked). */
typedef struct Pending {
  Cell *cell;
  Rec read;
  P2cSanAccess a;          /* a.index points at `index` */
  long long index[8];
} Pending;

/* Thread `tid` of the block that began at epoch block_epoch fenced at epoch fence_epoch and then
 * updated the element at `addr` atomically. */
typedef struct Release {
  uintptr_t addr;
  uint32_t block_epoch, fence_epoch;
  uint16_t tid;
} Release;

/* Thread `tid` of the running block updated the element at `addr` atomically at `epoch`, after
 * the first `seen` releases of the launch. */
typedef struct Acquire {
  uintptr_t addr;
  size_t seen;
  uint32_t epoch;
  uint16_t tid;
} Acquire;

/* Blocks first .. first + count - 1 began at epochs first_epoch, first_epoch + stride, ... */
typedef struct BlockRun {
  uint64_t first, count;
  uint32_t first_epoch, stride;
} BlockRun;

struct SimSanitizer {
  const P2cAllocator *alloc;
  SimSanReport *report;
  uint3 grid_dim, block_dim;
  /* epochs, the running block, warp generations, recent pages: what the module's fast path
   * reads too (the module's P2cSimThread.san_shadow points here) */
  P2cSanShadow sh;
  uint32_t wmask[MAX_WARPS][WARP_HISTORY];   /* lanes of each completed operation, by generation */
  /* shadow pages, and those of earlier launches kept for reuse (of 4-byte, 1-byte cells) */
  Page **table;
  size_t cap, used;
  Page *free_pages[2];
  Pending pending[MAX_PENDING];
  size_t npending;
  /* which block each epoch of this launch belonged to */
  BlockRun *runs;
  size_t nruns, runs_cap;
  /* fences and atomics: the epoch of each thread's last fence in the running block (0: none),
   * the launch's releases and the elements they were made on, the running block's acquisitions */
  uint32_t fenced[MAX_THREADS];
  bool any_fenced;
  Release *releases;
  size_t nreleases, releases_cap;
  uintptr_t release_addrs[MAX_RELEASE_ADDRS];
  size_t nrelease_addrs;
  Acquire acquires[MAX_ACQUIRES];
  size_t nacquires;
};

static size_t page_cells(bool small) { return small ? PAGE_BYTES : PAGE_BYTES / 4; }
static size_t page_size(bool small) { return sizeof(Page) + page_cells(small) * sizeof(Cell); }

static bool rec_used(const SimSanitizer *s, const Rec *r) { return p2c_san_used(&s->sh, r); }
static bool rec_in_block(const SimSanitizer *s, const Rec *r) { return p2c_san_in_block(&s->sh, r); }

SimSanitizer *sim_san_new(const P2cAllocator *alloc) {
  SimSanitizer *s = mem_alloc(alloc, sizeof *s);
  if (!s) return NULL;
  memset(s, 0, sizeof *s);
  s->alloc = alloc;
  s->cap = 1024;
  s->table = mem_alloc(alloc, s->cap * sizeof *s->table);
  if (!s->table) {
    mem_free(alloc, s, sizeof *s);
    return NULL;
  }
  memset(s->table, 0, s->cap * sizeof *s->table);
  return s;
}

/* Every page's cells to no access (epoch 0), and the epochs from 1 again: when the count would
 * run out, which takes about 2^31 blocks and barriers. */
static void epochs_restart(SimSanitizer *s) {
  for (size_t i = 0; i < s->cap; i++)
    if (s->table[i]) memset(s->table[i]->cells, 0, page_cells(s->table[i]->key & 1) * sizeof(Cell));
  for (int small = 0; small < 2; small++)
    for (Page *p = s->free_pages[small]; p; p = p->next) memset(p->cells, 0, page_cells(small) * sizeof(Cell));
  s->sh.epoch = 0;
}

void sim_san_begin(SimSanitizer *s, uint3 grid_dim, uint3 block_dim, bool inputs_apart,
                   SimSanReport *report) {
  for (size_t i = 0; i < s->cap; i++) {
    Page *p = s->table[i];
    if (!p) continue;
    p->next = s->free_pages[p->key & 1];
    s->free_pages[p->key & 1] = p;
    s->table[i] = NULL;
  }
  s->used = 0;
  for (int i = 0; i < P2C_SAN_RECENT; i++) s->sh.recent_key[i] = UINTPTR_MAX;
  if (s->sh.epoch > UINT32_MAX / 2) epochs_restart(s);
  s->sh.launch_epoch = s->sh.block_epoch = s->sh.epoch + 1;
  s->sh.inputs_apart = inputs_apart;
  memset(report, 0, sizeof *report);
  s->report = report;
  s->grid_dim = grid_dim;
  s->block_dim = block_dim;
  s->sh.in_block = false;
  s->sh.nshared = 0;
  s->npending = 0;
  s->nruns = 0;
  s->nreleases = s->nrelease_addrs = s->nacquires = 0;
  if (s->any_fenced) memset(s->fenced, 0, sizeof s->fenced);
  s->any_fenced = false;
}

P2cSanShadow *sim_san_shadow(SimSanitizer *s) { return &s->sh; }

void sim_san_delete(SimSanitizer *s) {
  if (!s) return;
  for (size_t i = 0; i < s->cap; i++)
    if (s->table[i]) mem_free(s->alloc, s->table[i], page_size(s->table[i]->key & 1));
  for (int small = 0; small < 2; small++)
    for (Page *p = s->free_pages[small], *next; p; p = next) {
      next = p->next;
      mem_free(s->alloc, p, page_size(small));
    }
  mem_free(s->alloc, s->table, s->cap * sizeof *s->table);
  mem_free(s->alloc, s->runs, s->runs_cap * sizeof *s->runs);
  mem_free(s->alloc, s->releases, s->releases_cap * sizeof *s->releases);
  mem_free(s->alloc, s, sizeof *s);
}

/* ---- shadow pages ---- */

static size_t slot_of(uintptr_t key, size_t cap) {
  return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

/* Doubles the table (its load stays under a half). */
static bool table_grow(SimSanitizer *s) {
  size_t cap = s->cap * 2;
  Page **t = mem_alloc(s->alloc, cap * sizeof *t);
  if (!t) return false;
  memset(t, 0, cap * sizeof *t);
  for (size_t i = 0; i < s->cap; i++) {
    Page *p = s->table[i];
    if (!p) continue;
    size_t j = slot_of(p->key, cap);
    while (t[j]) j = (j + 1) & (cap - 1);
    t[j] = p;
  }
  mem_free(s->alloc, s->table, s->cap * sizeof *s->table);
  s->table = t;
  s->cap = cap;
  return true;
}

static Page *page_find(const SimSanitizer *s, uintptr_t key) {
  size_t j = slot_of(key, s->cap);
  while (s->table[j] && s->table[j]->key != key) j = (j + 1) & (s->cap - 1);
  return s->table[j];
}

/* A page for `key`, entered in the table: one of an earlier launch (its accesses are all older
 * than this launch: nothing to empty), else a new one. NULL when out of memory. */
static Page *page_add(SimSanitizer *s, uintptr_t key) {
  if (2 * (s->used + 1) > s->cap && !table_grow(s)) return NULL;
  bool small = key & 1;
  Page *page = s->free_pages[small];
  if (page) {
    s->free_pages[small] = page->next;
  } else {
    page = mem_alloc(s->alloc, page_size(small));
    if (!page) return NULL;
    memset(page->cells, 0, page_cells(small) * sizeof(Cell));
  }
  page->key = key;
  size_t j = slot_of(key, s->cap);
  while (s->table[j]) j = (j + 1) & (s->cap - 1);
  s->table[j] = page;
  s->used++;
  return page;
}

/* The cell of the element at p (of `bytes` bytes); NULL when out of memory. */
static Cell *cell_of(SimSanitizer *s, const void *p, unsigned bytes) {
  uintptr_t a = (uintptr_t)p;
  bool small = bytes < 4;
  uintptr_t key = (a / PAGE_BYTES) * 2 + small;
  unsigned slot = p2c_san_recent(key);
  Cell *cells = s->sh.recent_cells[slot];
  if (s->sh.recent_key[slot] != key) {
    Page *page = page_find(s, key);
    if (!page && !(page = page_add(s, key))) return NULL;
    cells = s->sh.recent_cells[slot] = page->cells;
    s->sh.recent_key[slot] = key;
  }
  size_t off = a % PAGE_BYTES;
  return &cells[small ? off : off / 4];
}

/* ---- threads and blocks ---- */

static uint3 unlinear(uint64_t i, uint3 d) {
  return (uint3){(unsigned)(i % d.x), (unsigned)(i / d.x % d.y), (unsigned)(i / d.x / d.y)};
}

static uint64_t linear(uint3 v, uint3 d) {
  return v.x + (uint64_t)d.x * (v.y + (uint64_t)d.y * v.z);
}

static void flush_pending(SimSanitizer *s);

/* A new epoch; false when the count has run out within one launch (the rest goes unchecked). */
static bool epoch_next(SimSanitizer *s) {
  if (s->sh.epoch == UINT32_MAX) {
    s->report->out_of_memory = true;
    return false;
  }
  s->sh.epoch++;
  return true;
}

/* Room for one more of the `n` items of `size` bytes in *items, whose capacity *cap doubles when
 * full (from `first`); false when out of memory (the items are then unchanged). */
static bool room_for_one(SimSanitizer *s, void **items, size_t *cap, size_t n, size_t size, size_t first) {
  if (n < *cap) return true;
  size_t more = *cap ? 2 * *cap : first;
  void *p = mem_realloc(s->alloc, *items, *cap * size, more * size);
  if (!p) return false;
  *items = p;
  *cap = more;
  return true;
}

/* Notes that block `b` began at epoch `e` (blocks begin in increasing order). */
static void run_log(SimSanitizer *s, uint64_t b, uint32_t e) {
  BlockRun *r = s->nruns ? &s->runs[s->nruns - 1] : NULL;
  if (r && b == r->first + r->count) {
    if (r->count == 1) {
      r->stride = e - r->first_epoch;
      r->count = 2;
      return;
    }
    if ((uint64_t)e == r->first_epoch + r->count * r->stride) {
      r->count++;
      return;
    }
  }
  if (!room_for_one(s, (void **)&s->runs, &s->runs_cap, s->nruns, sizeof *s->runs, 16)) {
    s->report->out_of_memory = true;   /* the messages may then name a wrong block; the checks are the same */
    return;
  }
  s->runs[s->nruns++] = (BlockRun){b, 1, e, 0};
}

/* The linear block that epoch e (of this launch) belonged to. */
static uint64_t block_of(const SimSanitizer *s, uint32_t e) {
  size_t lo = 0, hi = s->nruns;
  while (hi - lo > 1) {   /* the last run that began at or before e */
    size_t mid = (lo + hi) / 2;
    if (s->runs[mid].first_epoch <= e) lo = mid;
    else hi = mid;
  }
  if (!s->nruns) return 0;
  const BlockRun *r = &s->runs[lo];
  uint64_t k = r->stride ? (e - r->first_epoch) / r->stride : 0;
  return r->first + (k < r->count ? k : r->count - 1);
}

void sim_san_block(SimSanitizer *s, uint64_t linear_block) {
  flush_pending(s);
  s->sh.block = unlinear(linear_block, s->grid_dim);
  s->sh.in_block = true;
  if (epoch_next(s)) run_log(s, linear_block, s->sh.epoch);
  s->sh.block_epoch = s->sh.epoch;
  memset(s->sh.wgen, 0, sizeof s->sh.wgen);
  if (s->any_fenced) memset(s->fenced, 0, sizeof s->fenced);
  s->any_fenced = false;
  s->nacquires = 0;
}

void sim_san_barrier(SimSanitizer *s) {
  flush_pending(s);
  epoch_next(s);
}

void sim_san_warp(SimSanitizer *s, unsigned warp, unsigned group) {
  if (warp >= MAX_WARPS) return;
  uint32_t g = ++s->sh.wgen[warp];
  s->wmask[warp][g % WARP_HISTORY] = group;
}

/* Whether a __syncwarp completed after p, with both p's and c's lanes (same warp). */
static bool warp_ordered(const SimSanitizer *s, const Rec *p, const Rec *c) {
  unsigned warp = c->tid / 32;
  if (warp >= MAX_WARPS) return false;
  uint32_t both = 1u << (p->tid % 32) | 1u << (c->tid % 32);
  uint32_t from = rec_wgen(p), gap = (rec_wgen(c) - from) & WGEN_MASK;
  if (gap > WARP_HISTORY) return true;   /* too far back to tell: assume ordered */
  for (uint32_t k = 1; k <= gap; k++)    /* WARP_HISTORY divides WGEN_MASK + 1 */
    if ((s->wmask[warp][(from + k) % WARP_HISTORY] & both) == both) return true;
  return false;
}

/* ---- fences and atomics between blocks ---- */

void sim_san_fence(SimSanitizer *s, unsigned tid) {
  if (tid >= MAX_THREADS) return;
  s->fenced[tid] = s->sh.epoch;
  s->any_fenced = true;
}

static bool release_addr_known(const SimSanitizer *s, uintptr_t addr) {
  for (size_t i = 0; i < s->nrelease_addrs; i++)
    if (s->release_addrs[i] == addr) return true;
  return false;
}

/* A fenced thread's atomic update of `addr` releases what came before its fence. */
static void release(SimSanitizer *s, uintptr_t addr, unsigned tid) {
  if (!room_for_one(s, (void **)&s->releases, &s->releases_cap, s->nreleases, sizeof *s->releases, 64)) {
    s->report->out_of_memory = true;   /* unrecorded: the blocks' later accesses may then be reported as races */
    return;
  }
  s->releases[s->nreleases++] = (Release){addr, s->sh.block_epoch, s->fenced[tid], (uint16_t)tid};
  if (release_addr_known(s, addr)) return;
  if (s->nrelease_addrs < MAX_RELEASE_ADDRS) s->release_addrs[s->nrelease_addrs++] = addr;
  else s->report->out_of_memory = true;   /* never acquired: later accesses may be reported */
}

/* Any thread's atomic update of `addr` acquires the releases made on it so far. Only elements
 * that were released on are recorded (a histogram's atomics are not); an acquisition of the
 * same thread, element and epoch replaces the earlier one. */
static void acquire(SimSanitizer *s, uintptr_t addr, unsigned tid) {
  if (!release_addr_known(s, addr)) return;
  Acquire now = {addr, s->nreleases, s->sh.epoch, (uint16_t)tid};
  for (size_t i = 0; i < s->nacquires; i++) {
    Acquire *a = &s->acquires[i];
    if (a->addr == addr && a->tid == tid && a->epoch == now.epoch) {
      *a = now;
      return;
    }
  }
  if (s->nacquires < MAX_ACQUIRES) s->acquires[s->nacquires++] = now;
  else s->report->out_of_memory = true;   /* later accesses may be reported as races */
}

/* An atomic update of global memory by thread `tid`: a release when the thread fenced, and an
 * acquisition. */
static void atomic_orders(SimSanitizer *s, uintptr_t addr, unsigned tid) {
  if (tid < MAX_THREADS && s->fenced[tid]) release(s, addr, tid);
  acquire(s, addr, tid);
}

/* Whether release r (index i) covers access p of r's block: p is the releasing thread's, not
 * after its fence's epoch, or any thread's before a barrier that preceded the fence. */
static bool release_covers(const Release *r, const Rec *p) {
  if (p->epoch < r->block_epoch || p->epoch > r->fence_epoch) return false;
  return p->tid == r->tid || p->epoch < r->fence_epoch;
}

/* Whether access c of the running block comes after an acquisition of release i: c is the
 * acquiring thread's (its accesses after the atomic), or of a later epoch of the block. */
static bool release_acquired(const SimSanitizer *s, size_t i, const Rec *c) {
  const Release *r = &s->releases[i];
  for (size_t k = 0; k < s->nacquires; k++) {
    const Acquire *a = &s->acquires[k];
    if (a->addr == r->addr && a->seen > i && (a->tid == c->tid || a->epoch < c->epoch)) return true;
  }
  return false;
}

/* Whether access p of an earlier block is ordered before access c of the running block by a
 * release and an acquisition. Releases are in block order: those of p's block are the last ones
 * that began at or before p's epoch. */
static bool ordered_by_atomics(const SimSanitizer *s, const Rec *p, const Rec *c) {
  if (!s->nacquires) return false;
  size_t lo = 0, hi = s->nreleases;   /* the first release of a block that began after p */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (s->releases[mid].block_epoch <= p->epoch) lo = mid + 1;
    else hi = mid;
  }
  for (size_t i = lo; i-- > 0;) {
    const Release *r = &s->releases[i];
    if (r->block_epoch != s->releases[lo - 1].block_epoch) break;
    if (release_covers(r, p) && release_acquired(s, i, c)) return true;
  }
  return false;
}

/* Whether earlier access p and access c of the running block by another thread race: neither a
 * barrier of their block nor a __syncwarp of both lanes lies between them (blocks are never
 * ordered with each other), and they are not both atomics. A plain read of an element that the
 * other thread changes by an atomic is no race either: it reads some value the element had,
 * which is what the compare-and-swap loop (read, then cas with what was read) relies on. (The
 * caller knows that one of them writes.) */
static bool races(const SimSanitizer *s, const Rec *p, const Rec *c) {
  if (!rec_used(s, p)) return false;
  bool same_block = rec_in_block(s, p);
  if (same_block && p->tid == c->tid) return false;
  int pk = rec_kind(p), ck = rec_kind(c);
  bool pa = pk == P2C_SAN_ATOMIC, ca = ck == P2C_SAN_ATOMIC;
  if ((pa && (ca || ck == P2C_SAN_READ)) || (ca && pk == P2C_SAN_READ)) return false;
  if (!same_block) return !ordered_by_atomics(s, p, c);
  if (p->epoch != c->epoch) return false;
  if (p->tid / 32 == c->tid / 32 && warp_ordered(s, p, c)) return false;
  return true;
}

/* ---- findings ---- */

static void name_copy(char *dst, size_t size, const char *name) {
  snprintf(dst, size, "%s", name ? name : "array");
}

/* Room for finding `f` unless it is already there (same kind and positions, either order). */
static SimSanFinding *finding_slot(SimSanitizer *s, SimSanKind kind, unsigned l1, unsigned c1,
                                   unsigned l2, unsigned c2) {
  SimSanReport *r = s->report;
  for (size_t i = 0; i < r->count; i++) {
    const SimSanFinding *f = &r->findings[i];
    if (f->kind != kind) continue;
    if (f->line == l1 && f->column == c1 && f->other_line == l2 && f->other_column == c2) return NULL;
    if (f->line == l2 && f->column == c2 && f->other_line == l1 && f->other_column == c1) return NULL;
  }
  if (r->count == SIM_SAN_MAX_FINDINGS) {
    r->totals[kind]++;   /* counted, not kept (and not told apart from the ones already counted) */
    return NULL;
  }
  r->totals[kind]++;
  SimSanFinding *f = &r->findings[r->count++];
  memset(f, 0, sizeof *f);
  f->kind = kind;
  f->line = l1, f->column = c1, f->other_line = l2, f->other_column = c2;
  return f;
}

static void report_access(SimSanitizer *s, SimSanKind kind, const P2cSanAccess *a, int space,
                          const Rec *other) {
  SimSanFinding *f = finding_slot(s, kind, a->line, a->column, other ? rec_line(other) : 0,
                                  other ? rec_column(other) : 0);
  if (!f) return;
  f->access = a->kind;
  f->space = space;
  name_copy(f->name, sizeof f->name, a->name);
  f->ndim = a->ndim < 8 ? a->ndim : 8;
  for (int k = 0; k < f->ndim; k++) f->index[k] = a->index[k];
  f->thread = a->thread;
  f->block = a->block;
  if (other) {
    f->other_access = rec_kind(other);
    f->other_thread = unlinear(other->tid, s->block_dim);
    f->other_block = unlinear(block_of(s, other->epoch), s->grid_dim);
  }
}

static void defer_uninit(SimSanitizer *s, Cell *c, const Rec *read, const P2cSanAccess *a) {
  if (s->npending == MAX_PENDING) {
    report_access(s, SIM_SAN_UNINIT, a, P2C_SAN_SHARED, NULL);
    return;
  }
  Pending *p = &s->pending[s->npending++];
  p->cell = c;
  p->read = *read;
  p->a = *a;
  p->a.ndim = a->ndim < 8 ? a->ndim : 8;
  for (int k = 0; k < p->a.ndim; k++) p->index[k] = a->index[k];
  p->a.index = p->index;
}

/* The held reads whose element no racing write followed are findings (they are all of the
 * running block, as is the write that races with them). */
static void flush_pending(SimSanitizer *s) {
  for (size_t i = 0; i < s->npending; i++) {
    Pending *p = &s->pending[i];
    Rec w = p->cell->w;
    bool raced = rec_in_block(s, &w) && races(s, &p->read, &w);
    if (!raced) report_access(s, SIM_SAN_UNINIT, &p->a, P2C_SAN_SHARED, NULL);
  }
  s->npending = 0;
}

void sim_san_finish(SimSanitizer *s) { flush_pending(s); }

void sim_san_misuse(SimSanitizer *s, SimSanKind kind, unsigned line, unsigned column, uint3 thread,
                    uint3 block, const char *detail) {
  SimSanFinding *f = finding_slot(s, kind, line, column, 0, 0);
  if (!f) return;
  f->thread = thread;
  f->block = block;
  snprintf(f->detail, sizeof f->detail, "%s", detail);
}

/* ---- accesses ---- */

/* A read joins the cell's readers (p2c_san_read_slot), as in p2c_san_fast. */
static void add_reader(const SimSanitizer *s, Cell *c, const Rec *r) {
  int i = p2c_san_read_slot(&s->sh, c, r->tid);
  if (i >= 0) c->r[i] = *r;
}

static void check_race(SimSanitizer *s, Cell *c, const Rec *cur, const P2cSanAccess *a, int space) {
  SimSanKind kind = space == P2C_SAN_SHARED ? SIM_SAN_SHARED_RACE : SIM_SAN_GLOBAL_RACE;
  if (races(s, &c->w, cur)) {
    report_access(s, kind, a, space, &c->w);
    return;
  }
  if (rec_kind(cur) == P2C_SAN_READ) return;
  for (int i = 0; i < 2; i++)
    if (races(s, &c->r[i], cur)) {
      report_access(s, kind, a, space, &c->r[i]);
      return;
    }
}

/* The access of the running thread, as the shadow keeps it. */
static Rec rec_of(const SimSanitizer *s, const P2cSanAccess *a) {
  uint32_t wgen = a->tid / 32 < MAX_WARPS ? s->sh.wgen[a->tid / 32] & WGEN_MASK : 0;
  return (Rec){s->sh.epoch, a->pos, (uint16_t)a->tid, (uint16_t)(wgen << 2 | (unsigned)(a->kind & 3))};
}

/* Shared and local memory: as global memory, and reads of elements never written (shared
 * memory starts undefined in each block, a local array each time its function starts). */
static void access_on_chip(SimSanitizer *s, Cell *c, const Rec *cur, const P2cSanAccess *a, int space) {
  /* what earlier blocks left in shared memory is no access */
  if (space == P2C_SAN_SHARED) {
    if (!rec_in_block(s, &c->w)) c->w.epoch = 0;
    for (int i = 0; i < 2; i++)
      if (!rec_in_block(s, &c->r[i])) c->r[i].epoch = 0;
  }
  bool reads = a->kind != P2C_SAN_WRITE;
  if (reads && space == P2C_SAN_LOCAL && !rec_used(s, &c->w)) report_access(s, SIM_SAN_UNINIT, a, space, NULL);
  if (reads && space == P2C_SAN_SHARED && !rec_used(s, &c->w)) defer_uninit(s, c, cur, a);
  if (space != P2C_SAN_LOCAL) check_race(s, c, cur, a, space);
  if (a->kind == P2C_SAN_READ) {
    if (space != P2C_SAN_LOCAL) add_reader(s, c, cur);
    return;
  }
  c->w = *cur;
  memset(c->r, 0, sizeof c->r);
}

void sim_san_access(SimSanitizer *s, const P2cSanAccess *a) {
  int space = a->space;
  if (space == P2C_SAN_CONST) return;
  space = p2c_san_space(&s->sh, a->addr, space);
  uint3 b = a->block;
  if (!s->sh.in_block || b.x != s->sh.block.x || b.y != s->sh.block.y || b.z != s->sh.block.z)
    sim_san_block(s, linear(b, s->grid_dim));
  Cell *c = cell_of(s, a->addr, a->bytes);
  if (!c) {
    s->report->out_of_memory = true;
    return;
  }
  Rec cur = rec_of(s, a);
  if (space != P2C_SAN_GLOBAL) {
    access_on_chip(s, c, &cur, a, space);
    return;
  }
  check_race(s, c, &cur, a, space);
  if (a->kind == P2C_SAN_ATOMIC) atomic_orders(s, (uintptr_t)a->addr, a->tid);
  if (a->kind == P2C_SAN_READ) {
    add_reader(s, c, &cur);
    return;
  }
  c->w = cur;
  memset(c->r, 0, sizeof c->r);
}

/* A shared array's storage is remembered (for accesses through views); a local array's cells
 * start unwritten each time its function starts. */
void sim_san_region(SimSanitizer *s, const void *p, size_t bytes, int space) {
  uintptr_t a = (uintptr_t)p;
  if (space == P2C_SAN_SHARED) {
    for (size_t i = 0; i < s->sh.nshared; i++)
      if (s->sh.shared_start[i] == a) return;
    if (s->sh.nshared < P2C_SAN_REGIONS) {
      s->sh.shared_start[s->sh.nshared] = a;
      s->sh.shared_end[s->sh.nshared++] = a + bytes;
    }
    return;
  }
  /* local: forget every write to its cells, of both cell sizes, page by page */
  for (uintptr_t q = a; q < a + bytes;) {
    uintptr_t page_end = (q / PAGE_BYTES + 1) * PAGE_BYTES, end = page_end < a + bytes ? page_end : a + bytes;
    for (int small = 0; small < 2; small++) {
      Page *page = page_find(s, (q / PAGE_BYTES) * 2 + (uintptr_t)small);
      if (!page) continue;
      size_t first = q % PAGE_BYTES, last = (end - 1) % PAGE_BYTES;
      if (!small) first /= 4, last /= 4;
      for (size_t k = first; k <= last; k++) memset(&page->cells[k].w, 0, sizeof(Rec));
    }
    q = end;
  }
}

/* ---- messages ---- */

static const char *access_word(int kind) {
  switch (kind) {
  case P2C_SAN_READ: return "read";
  case P2C_SAN_WRITE: return "write";
  case P2C_SAN_UPDATE: return "read-modify-write";
  default: return "atomic";
  }
}

static const char *space_word(int space) {
  return space == P2C_SAN_SHARED ? "shared" : space == P2C_SAN_LOCAL ? "local" : "global";
}

static void append_index(char *out, size_t size, size_t *len, const SimSanFinding *f) {
  if (f->ndim == 1) {
    fixed_appendf(out, size, len, "%lld", f->index[0]);
    return;
  }
  fixed_appendf(out, size, len, "(");
  for (int k = 0; k < f->ndim; k++) fixed_appendf(out, size, len, "%s%lld", k ? ", " : "", f->index[k]);
  fixed_appendf(out, size, len, ")");
}

static void append_who(char *out, size_t size, size_t *len, uint3 t, uint3 b) {
  fixed_appendf(out, size, len, "thread (%u,%u,%u) of block (%u,%u,%u)", t.x, t.y, t.z, b.x, b.y, b.z);
}

void sim_san_message(const SimSanFinding *f, const char *file, char *out, size_t size) {
  if (!size) return;
  out[0] = '\0';
  size_t len = 0;
  const char *src = file ? file : "<kernel>";
  switch (f->kind) {
  case SIM_SAN_SHARED_RACE:
  case SIM_SAN_GLOBAL_RACE:
    fixed_appendf(out, size, &len, "%s-memory race on '%s' at index ", space_word(f->space), f->name);
    append_index(out, size, &len, f);
    fixed_appendf(out, size, &len, ": %s by ", access_word(f->access));
    append_who(out, size, &len, f->thread, f->block);
    fixed_appendf(out, size, &len, " and %s at %s:%u:%u by ", access_word(f->other_access), src,
           f->other_line, f->other_column);
    append_who(out, size, &len, f->other_thread, f->other_block);
    fixed_appendf(out, size, &len, "%s",
           f->block.x == f->other_block.x && f->block.y == f->other_block.y &&
                   f->block.z == f->other_block.z
               ? ", with no barrier between them"
               : ", in different blocks (only atomics may share an element between blocks)");
    break;
  case SIM_SAN_UNINIT:
    fixed_appendf(out, size, &len, "read of %s array '%s' at index ", space_word(f->space), f->name);
    append_index(out, size, &len, f);
    fixed_appendf(out, size, &len, " before %s wrote it, by ",
           f->space == P2C_SAN_LOCAL ? "the thread" : "any thread of its block");
    append_who(out, size, &len, f->thread, f->block);
    break;
  case SIM_SAN_BARRIER:
  case SIM_SAN_WARP:
  case SIM_SAN_KINDS:
    fixed_appendf(out, size, &len, "%s", f->detail);
    break;
  }
}

void sim_san_format(const SimSanFinding *f, const char *file, const char *kernel, char *out,
                    size_t size) {
  if (!size) return;
  out[0] = '\0';
  size_t len = 0;
  char words[SIM_SAN_MESSAGE_SIZE];
  sim_san_message(f, file, words, sizeof words);
  fixed_appendf(out, size, &len, "%s:%u:%u: error: %s", file ? file : "<kernel>", f->line, f->column, words);
  if (kernel) fixed_appendf(out, size, &len, " (kernel '%s')", kernel);
}

const char *sim_san_space_word(int space) { return space_word(space); }

const char *sim_san_access_word(int access) { return access_word(access); }

uint64_t sim_san_total(const SimSanReport *r) {
  uint64_t n = 0;
  for (int k = 0; k < SIM_SAN_KINDS; k++) n += r->totals[k];
  return n;
}

/* Each kind's stable name (P2cFinding's, Python's 'kind') and its words in the summary line. */
static const struct {
  const char *name, *one, *many;
} KIND_WORDS[SIM_SAN_KINDS] = {
    [SIM_SAN_SHARED_RACE] = {"shared-race", "shared-memory race", "shared-memory races"},
    [SIM_SAN_GLOBAL_RACE] = {"global-race", "global-memory race", "global-memory races"},
    [SIM_SAN_UNINIT] = {"uninitialized-read", "uninitialized read", "uninitialized reads"},
    [SIM_SAN_BARRIER] = {"divergent-barrier", "divergent barrier", "divergent barriers"},
    [SIM_SAN_WARP] = {"warp-missing-lanes", "warp operation with missing lanes", "warp operations with missing lanes"},
};

const char *sim_san_kind_name(SimSanKind kind) {
  return (unsigned)kind < SIM_SAN_KINDS ? KIND_WORDS[kind].name : NULL;
}

void sim_san_summary(const SimSanReport *r, const char *kernel, char *out, size_t size) {
  if (!size) return;
  out[0] = '\0';
  size_t len = 0;
  uint64_t n = sim_san_total(r);
  fixed_appendf(out, size, &len, "sanitize: %llu error%s in kernel '%s': ", (unsigned long long)n,
         n == 1 ? "" : "s", kernel ? kernel : "?");
  for (int k = 0; k < SIM_SAN_KINDS; k++)
    fixed_appendf(out, size, &len, "%s%llu %s", k ? ", " : "", (unsigned long long)r->totals[k],
           r->totals[k] != 1 ? KIND_WORDS[k].many : KIND_WORDS[k].one);
  if (r->count == SIM_SAN_MAX_FINDINGS) fixed_appendf(out, size, &len, " (the first %d shown)", SIM_SAN_MAX_FINDINGS);
  if (r->out_of_memory) fixed_appendf(out, size, &len, "; out of memory for shadow memory: some accesses were not checked");
}
