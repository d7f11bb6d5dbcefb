/* Arena allocation for one compilation, and the host-supplied allocator behind it.
 *
 * Everything a compilation builds (AST, types, symbol tables) lives in one arena and is freed
 * at once by arena_free. Allocation failure never returns NULL to the caller: it jumps to the
 * recovery point that the pipeline driver set with arena_set_oom_handler, so that phases need no
 * error checks on allocation and out-of-memory still reaches the host as a status. */
#ifndef P2C_UTIL_ARENA_H
#define P2C_UTIL_ARENA_H

#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>

#include "pyk2cuda.h"

/* Calls the host allocator: realloc semantics, size 0 frees. Returns NULL on failure. */
void *mem_realloc(const P2cAllocator *a, void *ptr, size_t old_size, size_t new_size);
void *mem_alloc(const P2cAllocator *a, size_t size);
void mem_free(const P2cAllocator *a, void *ptr, size_t size);
char *mem_strndup(const P2cAllocator *a, const char *s, size_t n);
/* The default allocator (malloc/realloc/free). */
const P2cAllocator *mem_default(void);

typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
  const P2cAllocator *alloc;
  ArenaBlock *head;
  jmp_buf *oom;     /* where to jump when the host allocator fails; NULL: abort via assert */
  /* Held around each call of the host allocator while arenas of one compilation grow on two
   * threads at once (the host's allocator need not be thread-safe); NULL otherwise. */
  pthread_mutex_t *lock;
} Arena;

void arena_init(Arena *a, const P2cAllocator *alloc);
void arena_free(Arena *a);
/* Zeroed, aligned for any type. Never returns NULL (see above). */
void *arena_alloc(Arena *a, size_t size);
void *arena_dup(Arena *a, const void *p, size_t size);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Moves every block of src into dst, which then owns (and frees) what was allocated from src;
 * src is left empty. Both must use the same allocator. */
void arena_adopt(Arena *dst, Arena *src);
/* Jumps to the OOM handler; called by the facilities built on the arena. */
_Noreturn void arena_oom(Arena *a);

#endif
