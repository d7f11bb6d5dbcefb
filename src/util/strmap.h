/* A map from NUL-terminated strings to pointers, in an Arena: open addressing with linear
 * probing, FNV-1a hashing, grown at 3/4 load. Keys are not copied (they must live as long as the
 * map, which in practice means in the same arena). Used wherever a phase looks names up, so that
 * no lookup costs more with the size of the module. */
#ifndef P2C_UTIL_STRMAP_H
#define P2C_UTIL_STRMAP_H
#include <stdbool.h>
#include <stddef.h>
#include "util/arena.h"

typedef struct StrMapSlot {
  const char *key;   /* NULL: empty */
  void *value;
  size_t hash;
} StrMapSlot;

typedef struct StrMap {
  Arena *arena;
  StrMapSlot *slots;
  size_t len, cap;   /* cap is 0 or a power of two */
} StrMap;

void strmap_init(StrMap *m, Arena *a);
/* dst becomes a map of its own in arena a with src's keys and values (the keys are shared). */
void strmap_copy(StrMap *dst, const StrMap *src, Arena *a);
/* The value stored under key, or NULL when there is none. */
void *strmap_get(const StrMap *m, const char *key);
bool strmap_has(const StrMap *m, const char *key);
/* Stores value under key, replacing what was there. */
void strmap_put(StrMap *m, const char *key, void *value);
/* Stores value under key unless the key is present; returns whether it stored. */
bool strmap_add(StrMap *m, const char *key, void *value);
#endif
