/* Arena and host allocator: see arena.h. Blocks grow geometrically; a large request gets a block
 * of its own, so that one huge array does not waste the rest of a block. */
#include "util/arena.h"

#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ARENA_MIN_BLOCK = 16 * 1024, ARENA_ALIGN = 16 };

struct ArenaBlock {
  ArenaBlock *next;
  size_t size, used;
  _Alignas(16) unsigned char data[];
};

static void *default_realloc(void *ud, void *ptr, size_t old_size, size_t new_size) {
  (void)ud;
  (void)old_size;
  if (new_size == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, new_size);
}

static const P2cAllocator default_allocator = {default_realloc, NULL};

const P2cAllocator *mem_default(void) { return &default_allocator; }

void *mem_realloc(const P2cAllocator *a, void *ptr, size_t old_size, size_t new_size) {
  if (!a) a = &default_allocator;
  return a->realloc(a->userdata, ptr, old_size, new_size);
}

void *mem_alloc(const P2cAllocator *a, size_t size) { return mem_realloc(a, NULL, 0, size ? size : 1); }

void mem_free(const P2cAllocator *a, void *ptr, size_t size) {
  if (ptr) mem_realloc(a, ptr, size, 0);
}

char *mem_strndup(const P2cAllocator *a, const char *s, size_t n) {
  char *p = mem_alloc(a, n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

void arena_init(Arena *a, const P2cAllocator *alloc) {
  memset(a, 0, sizeof *a);
  a->alloc = alloc ? alloc : &default_allocator;
}

void arena_free(Arena *a) {
  ArenaBlock *b = a->head;
  while (b) {
    ArenaBlock *next = b->next;
    mem_free(a->alloc, b, sizeof *b + b->size);
    b = next;
  }
  a->head = NULL;
}

void arena_adopt(Arena *dst, Arena *src) {
  assert(dst->alloc == src->alloc);
  if (!src->head) return;
  ArenaBlock *tail = src->head;
  while (tail->next) tail = tail->next;
  if (dst->head) {   /* behind dst's head, which keeps its free space for the next allocation */
    tail->next = dst->head->next;
    dst->head->next = src->head;
  } else {
    dst->head = src->head;
  }
  src->head = NULL;
}

_Noreturn void arena_oom(Arena *a) {
  assert(a->oom && "out of memory outside a recovery point");
  longjmp(*a->oom, 1);
}

static ArenaBlock *new_block(Arena *a, size_t need) {
  size_t size = a->head ? a->head->size * 2 : ARENA_MIN_BLOCK;
  if (size > 4u << 20) size = 4u << 20;
  if (size < need) size = need;
  if (size > SIZE_MAX - sizeof(ArenaBlock)) arena_oom(a);
  if (a->lock) pthread_mutex_lock(a->lock);
  ArenaBlock *b = mem_alloc(a->alloc, sizeof *b + size);
  if (a->lock) pthread_mutex_unlock(a->lock);
  if (!b) arena_oom(a);
  b->size = size;
  b->used = 0;
  return b;
}

void *arena_alloc(Arena *a, size_t size) {
  if (size > SIZE_MAX - ARENA_ALIGN) arena_oom(a);
  size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (!a->head || a->head->size - a->head->used < size) {
    ArenaBlock *b = new_block(a, size);
    if (a->head && size > a->head->size / 2) {
      /* A big request gets its own block behind the head, keeping the head's free space. */
      b->next = a->head->next;
      a->head->next = b;
      b->used = size;
      return memset(b->data, 0, size);
    }
    b->next = a->head;
    a->head = b;
  }
  void *p = a->head->data + a->head->used;
  a->head->used += size;
  return memset(p, 0, size);
}

void *arena_dup(Arena *a, const void *p, size_t size) {
  void *q = arena_alloc(a, size);
  if (size) memcpy(q, p, size);
  return q;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  assert(n >= 0);
  char *p = arena_alloc(a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}
