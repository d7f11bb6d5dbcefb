/* The resources of each kernel as ptxas reports them: its verbose log (NVRTC's -Xptxas -v), read
 * line by line, and the constant banks from the CUBIN's section headers (ptxas no longer prints
 * cmem[N] since CUDA 12). The log's lines this reads, as ptxas 13.0 writes them:
 *   ptxas info    : Compiling entry function 'matmul' for 'sm_90'
 *   ptxas info    : Function properties for matmul
 *   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem[, 384 bytes cmem[0]]
 * Anything else (gmem, compile time, device functions' properties) is skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore/explore.h"

/* An entry with nothing reported yet. */
static EntryResources blank_entry(const char *symbol) {
  EntryResources r = {.symbol = symbol, .registers = -1, .barriers = -1, .stack_bytes = -1,
                      .spill_store_bytes = -1, .spill_load_bytes = -1, .local_bytes = -1, .shared_bytes = -1};
  for (int i = 0; i < 8; i++) r.constant_bytes[i] = -1;
  return r;
}

/* The text between the first pair of single quotes of [s, end), copied into the arena. */
static const char *quoted(Arena *a, const char *s, const char *end) {
  const char *q = memchr(s, '\'', (size_t)(end - s));
  const char *e = q ? memchr(q + 1, '\'', (size_t)(end - q - 1)) : NULL;
  return e ? arena_strndup(a, q + 1, (size_t)(e - q - 1)) : NULL;
}

/* The number before `unit` in [s, end) ("32 registers", "2048 bytes smem"), or -1. */
static int64_t number_before(const char *s, const char *end, const char *unit) {
  size_t n = strlen(unit), len = (size_t)(end - s);
  for (size_t i = 0; i + n <= len; i++) {
    if (memcmp(s + i, unit, n) != 0 || i < 2 || s[i - 1] != ' ') continue;
    size_t d = i - 1;
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9') d--;
    if (d < i - 1) return strtoll(s + d, NULL, 10);
  }
  return -1;
}

/* "Used ..." line: registers, barriers, smem, lmem, cmem[N]. */
static void read_used(const char *s, const char *end, EntryResources *r) {
  r->registers = (int)number_before(s, end, "registers");
  r->barriers = (int)number_before(s, end, "barriers");
  r->shared_bytes = number_before(s, end, "bytes smem");
  r->local_bytes = number_before(s, end, "bytes lmem");
  for (int b = 0; b < 8; b++) {
    char unit[24];
    snprintf(unit, sizeof unit, "bytes cmem[%d]", b);
    int64_t v = number_before(s, end, unit);
    if (v >= 0) r->constant_bytes[b] = v;
  }
  if (r->barriers < 0 && r->registers >= 0) r->barriers = 0;
  if (r->shared_bytes < 0 && r->registers >= 0) r->shared_bytes = 0;
}

/* Whether [s, end) contains `what`. */
static bool contains(const char *s, const char *end, const char *what) {
  size_t n = strlen(what);
  for (const char *p = s; p + n <= end; p++)
    if (memcmp(p, what, n) == 0) return true;
  return false;
}

size_t explore_parse_ptxas_log(Arena *a, const char *log, EntryResources *out, size_t cap) {
  size_t n = 0;
  EntryResources *cur = NULL;
  const char *props = NULL;   /* the function named by the last "Function properties for" */
  for (const char *s = log; s && *s;) {
    const char *end = strchr(s, '\n');
    if (!end) end = s + strlen(s);
    if (contains(s, end, "Compiling entry function")) {
      const char *sym = quoted(a, s, end);
      cur = n < cap ? &out[n] : NULL;
      if (cur) *cur = blank_entry(sym);
      n++;
    } else if (contains(s, end, "Function properties for ")) {
      const char *p = strstr(s, "Function properties for ") + strlen("Function properties for ");
      props = arena_strndup(a, p, (size_t)(end - p));
    } else if (contains(s, end, "bytes stack frame") && cur && props && !strcmp(props, cur->symbol)) {
      cur->stack_bytes = number_before(s, end, "bytes stack frame");
      cur->spill_store_bytes = number_before(s, end, "bytes spill stores");
      cur->spill_load_bytes = number_before(s, end, "bytes spill loads");
    } else if (contains(s, end, ": Used ") && cur) {
      read_used(s, end, cur);
    }
    s = *end ? end + 1 : end;
  }
  return n;
}

/* ---- the CUBIN's section headers (ELF64, little-endian) ---- */

/* A little-endian number of `bytes` bytes. */
static uint64_t rd(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes; i-- > 0;) v = v << 8 | p[i];
  return v;
}

/* The bank number of ".nv.constantN" or ".nv.constantN.SYMBOL" naming `symbol` (or the module's,
 * when `module` and the name has no symbol), else -1. */
static int constant_bank(const char *name, size_t max, const char *symbol, bool *module) {
  static const char prefix[] = ".nv.constant";
  size_t n = strnlen(name, max);
  if (n < sizeof prefix || memcmp(name, prefix, sizeof prefix - 1) != 0) return -1;
  const char *p = name + sizeof prefix - 1;
  if (*p < '0' || *p > '7') return -1;
  int bank = *p - '0';
  p++;
  *module = *p == '\0';
  if (*module) return bank;
  return *p == '.' && strcmp(p + 1, symbol) == 0 ? bank : -1;
}

void explore_cubin_constants(const void *cubin, size_t size, EntryResources *r) {
  const unsigned char *d = cubin;
  if (!d || size < 64 || memcmp(d, "\x7f" "ELF", 4) != 0 || d[4] != 2 || d[5] != 1) return;
  uint64_t shoff = rd(d + 0x28, 8), entsize = rd(d + 0x3a, 2), shnum = rd(d + 0x3c, 2), shstr = rd(d + 0x3e, 2);
  if (entsize < 64 || shnum == 0 || shstr >= shnum || shoff > size || shnum > (size - shoff) / entsize) return;
  const unsigned char *names = d + shoff + shstr * entsize;
  uint64_t stroff = rd(names + 0x18, 8), strsize = rd(names + 0x20, 8);
  if (stroff > size || strsize > size - stroff) return;
  int64_t found[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  for (uint64_t i = 0; i < shnum; i++) {
    const unsigned char *sh = d + shoff + i * entsize;
    uint64_t name = rd(sh, 4);
    if (name >= strsize) continue;
    bool module = false;
    int bank = constant_bank((const char *)d + stroff + name, (size_t)(strsize - name), r->symbol, &module);
    if (bank < 0 || (module && bank == 0)) continue;
    found[bank] = (found[bank] < 0 ? 0 : found[bank]) + (int64_t)rd(sh + 0x20, 8);
  }
  for (int b = 0; b < 8; b++)   /* a bank the log reported keeps the log's figure */
    if (r->constant_bytes[b] < 0) r->constant_bytes[b] = found[b];
}
