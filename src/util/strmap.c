/* String-keyed hash map in an arena: see strmap.h. */
#include "util/strmap.h"

#include <stdint.h>
#include <string.h>

static size_t hash_string(const char *s) {
  uint64_t h = 0xcbf29ce484222325u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3u;
  return (size_t)h;
}

void strmap_init(StrMap *m, Arena *a) { *m = (StrMap){.arena = a}; }

void strmap_copy(StrMap *dst, const StrMap *src, Arena *a) {
  *dst = (StrMap){.arena = a, .len = src->len, .cap = src->cap};
  if (src->cap) dst->slots = arena_dup(a, src->slots, src->cap * sizeof *src->slots);
}

/* The slot holding key, or the empty slot where it would go. cap must be non-zero. */
static StrMapSlot *find_slot(StrMapSlot *slots, size_t cap, const char *key, size_t hash) {
  for (size_t i = hash & (cap - 1);; i = (i + 1) & (cap - 1)) {
    StrMapSlot *s = &slots[i];
    if (!s->key || (s->hash == hash && strcmp(s->key, key) == 0)) return s;
  }
}

static void grow(StrMap *m) {
  size_t cap = m->cap ? m->cap * 2 : 16;
  if (cap > SIZE_MAX / sizeof(StrMapSlot)) arena_oom(m->arena);
  StrMapSlot *slots = arena_alloc(m->arena, cap * sizeof *slots);   /* zeroed: all empty */
  for (size_t i = 0; i < m->cap; i++)
    if (m->slots[i].key) *find_slot(slots, cap, m->slots[i].key, m->slots[i].hash) = m->slots[i];
  m->slots = slots;
  m->cap = cap;
}

static StrMapSlot *lookup(const StrMap *m, const char *key) {
  if (!m->cap) return NULL;
  StrMapSlot *s = find_slot(m->slots, m->cap, key, hash_string(key));
  return s->key ? s : NULL;
}

void *strmap_get(const StrMap *m, const char *key) {
  StrMapSlot *s = lookup(m, key);
  return s ? s->value : NULL;
}

bool strmap_has(const StrMap *m, const char *key) { return lookup(m, key) != NULL; }

/* The slot for key, claimed for it when the key was absent (then *fresh is set, value NULL). */
static StrMapSlot *insert_slot(StrMap *m, const char *key, bool *fresh) {
  if ((m->len + 1) * 4 > m->cap * 3) grow(m);
  size_t hash = hash_string(key);
  StrMapSlot *s = find_slot(m->slots, m->cap, key, hash);
  *fresh = s->key == NULL;
  if (*fresh) {
    *s = (StrMapSlot){.key = key, .hash = hash};
    m->len++;
  }
  return s;
}

void strmap_put(StrMap *m, const char *key, void *value) {
  bool fresh;
  insert_slot(m, key, &fresh)->value = value;
}

bool strmap_add(StrMap *m, const char *key, void *value) {
  bool fresh;
  StrMapSlot *s = insert_slot(m, key, &fresh);
  if (fresh) s->value = value;
  return fresh;
}
