/* A module's line table: the ELF section that holds it, and a decoder of DWARF 2-4 line
 * programs that answers one question, which line of one file holds an address (lines.h).
 *
 * Why not a library: libdw (elfutils) is on Debian machines without its headers, and GCC's
 * libbacktrace is a static archive private to GCC; either would be a dependency of the library
 * for one lookup after a crash. The line program is a small, stable format (DWARF 4, section
 * 6.2), and the modules are ours, built with -gdwarf-4, so this file reads only that: a table
 * it does not know (DWARF 5, compressed, damaged) gives no line, never a wrong one or a crash. */
#include "runtime/sim/lines.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "util/arena.h"

/* ---- Reading the section ------------------------------------------------------------------- */

static bool read_at(int fd, void *buf, size_t size, uint64_t offset) {
  unsigned char *p = buf;
  while (size > 0) {
    ssize_t n = pread(fd, p, size, (off_t)offset);
    if (n <= 0) return false;
    p += n, size -= (size_t)n, offset += (uint64_t)n;
  }
  return true;
}

/* The header of the section named `want` (in a 64-bit ELF file), into *out. */
static bool find_section(const P2cAllocator *alloc, int fd, const char *want, Elf64_Shdr *out) {
  Elf64_Ehdr eh;
  if (!read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
      eh.e_shstrndx >= eh.e_shnum)
    return false;
  size_t bytes = (size_t)eh.e_shnum * sizeof(Elf64_Shdr);
  Elf64_Shdr *sh = mem_alloc(alloc, bytes);
  char *names = NULL;
  size_t names_size = 0;
  bool found = false;
  if (sh && read_at(fd, sh, bytes, eh.e_shoff)) {
    names_size = sh[eh.e_shstrndx].sh_size;
    names = names_size > 0 && names_size < (1u << 20) ? mem_alloc(alloc, names_size + 1) : NULL;
    if (names && read_at(fd, names, names_size, sh[eh.e_shstrndx].sh_offset)) {
      names[names_size] = '\0';
      for (size_t i = 0; i < eh.e_shnum && !found; i++)
        if (sh[i].sh_name < names_size && strcmp(names + sh[i].sh_name, want) == 0) *out = sh[i], found = true;
    }
  }
  if (names) mem_free(alloc, names, names_size + 1);
  if (sh) mem_free(alloc, sh, bytes);
  return found;
}

bool sim_lines_read(const P2cAllocator *alloc, const char *path, SimLines *out) {
  out->bytes = NULL, out->size = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Elf64_Shdr sec;
  bool ok = find_section(alloc, fd, ".debug_line", &sec) && sec.sh_type == SHT_PROGBITS &&
            !(sec.sh_flags & SHF_COMPRESSED) && sec.sh_size > 0 && sec.sh_size <= SIM_LINES_MAX_BYTES;
  if (ok) {
    out->bytes = mem_alloc(alloc, sec.sh_size);
    out->size = out->bytes ? sec.sh_size : 0;
    ok = out->bytes && read_at(fd, out->bytes, sec.sh_size, sec.sh_offset);
    if (!ok) sim_lines_free(alloc, out);
  }
  close(fd);
  return ok;
}

void sim_lines_free(const P2cAllocator *alloc, SimLines *lines) {
  if (lines->bytes) mem_free(alloc, lines->bytes, lines->size);
  lines->bytes = NULL, lines->size = 0;
}

/* ---- Decoding ------------------------------------------------------------------------------ */

/* Bytes being read; `bad` once a read went past `end` (every later read gives 0). */
typedef struct Cursor {
  const unsigned char *p, *end;
  bool bad;
} Cursor;

/* An n-byte little-endian integer (the module was built for this host). */
static uint64_t get_le(Cursor *c, int n) {
  if (c->bad || c->end - c->p < n) return c->bad = true, 0;
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)c->p[i] << (8 * i);
  c->p += n;
  return v;
}

static uint64_t get_uleb(Cursor *c) {
  uint64_t v = 0;
  for (int shift = 0; !c->bad; shift += 7) {
    uint64_t b = get_le(c, 1);
    if (shift < 64) v |= (b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  return v;
}

static int64_t get_sleb(Cursor *c) {
  uint64_t v = 0, b = 0;
  int shift = 0;
  do {
    b = get_le(c, 1);
    if (shift < 64) v |= (b & 0x7f) << shift;
    shift += 7;
  } while ((b & 0x80) && !c->bad);
  if (shift < 64 && (b & 0x40)) v |= ~(uint64_t)0 << shift;
  return (int64_t)v;
}

/* A NUL-terminated string in place, or "" past the end. */
static const char *get_string(Cursor *c) {
  const unsigned char *nul = c->bad ? NULL : memchr(c->p, 0, (size_t)(c->end - c->p));
  if (!nul) return c->bad = true, "";
  const char *s = (const char *)c->p;
  c->p = nul + 1;
  return s;
}

/* Whether a file table entry names `file` (its last path component). */
static bool names_file(const char *name, const char *file) {
  size_t n = strlen(name), f = strlen(file);
  return n >= f && strcmp(name + n - f, file) == 0 && (n == f || name[n - f - 1] == '/');
}

/* What the line program needs from a unit's header. */
typedef struct Header {
  unsigned min_inst, line_range, opcode_base;
  int line_base;
  const unsigned char *std_lengths;   /* operands of standard opcodes 1 .. opcode_base - 1 */
  uint64_t want;                      /* the file's index in this unit; 0: not in it */
} Header;

/* Reads a DWARF 2-4 unit header up to its program; false for another version or a damaged one. */
static bool read_header(Cursor *c, const char *file, Header *h) {
  unsigned version = (unsigned)get_le(c, 2);
  if (version < 2 || version > 4) return false;
  uint64_t header_length = get_le(c, 4);   /* 32-bit DWARF only (sim_lines_find) */
  if (c->bad || header_length > (uint64_t)(c->end - c->p)) return false;
  const unsigned char *program = c->p + header_length;
  h->min_inst = (unsigned)get_le(c, 1);
  if (version >= 4) (void)get_le(c, 1);   /* maximum_operations_per_instruction: 1 on our hosts */
  (void)get_le(c, 1);   /* default_is_stmt */
  h->line_base = (int8_t)get_le(c, 1);
  h->line_range = (unsigned)get_le(c, 1);
  h->opcode_base = (unsigned)get_le(c, 1);
  if (c->bad || h->line_range == 0 || h->opcode_base == 0 || (size_t)(c->end - c->p) < h->opcode_base - 1)
    return false;
  h->std_lengths = c->p;
  c->p += h->opcode_base - 1;
  while (!c->bad && c->p < c->end && *c->p) (void)get_string(c);   /* include_directories */
  (void)get_le(c, 1);
  h->want = 0;
  for (uint64_t index = 1; !c->bad && c->p < c->end && *c->p; index++) {
    const char *name = get_string(c);
    (void)get_uleb(c), (void)get_uleb(c), (void)get_uleb(c);   /* directory, mtime, length */
    if (!h->want && names_file(name, file)) h->want = index;
  }
  if (c->bad) return false;
  c->p = program;
  return true;
}

/* The line program's registers that a lookup needs, and the group of rows at one address before
 * the current row: the wanted file's lines among them (the last `cap`). */
typedef struct Rows {
  uint64_t addr, file;
  uint64_t line;   /* wraps on a damaged table (never undefined), which the range check drops */
  bool have_group;
  uint64_t group_addr;
  uint32_t *lines;
  size_t count, cap;
  uint64_t target;
  bool found;
} Rows;

static void rows_reset(Rows *r) {
  r->addr = 0, r->file = 1, r->line = 1, r->have_group = false, r->count = 0;
}

/* Whether the group of rows before the current one covers the target, [its address, this
 * row's): then the group is the answer. */
static bool group_covers(const Rows *r) {
  return r->have_group && r->group_addr <= r->target && r->target < r->addr;
}

/* A row is appended (or the sequence ends at r->addr). */
static void rows_emit(Rows *r, const Header *h, bool end_sequence) {
  if (group_covers(r)) {
    r->found = true;
    return;
  }
  if (end_sequence) {
    rows_reset(r);
    return;
  }
  if (!r->have_group || r->addr != r->group_addr) r->have_group = true, r->group_addr = r->addr, r->count = 0;
  if (r->file != h->want || r->line == 0 || r->line > UINT32_MAX || r->cap == 0) return;
  if (r->count == r->cap) memmove(r->lines, r->lines + 1, sizeof *r->lines * --r->count);
  r->lines[r->count++] = (uint32_t)r->line;
}

/* An extended opcode (after its 0 byte). */
static void run_extended(Cursor *c, const Header *h, Rows *r) {
  uint64_t len = get_uleb(c);
  if (c->bad || len == 0 || len > (uint64_t)(c->end - c->p)) {
    c->bad = true;
    return;
  }
  const unsigned char *next = c->p + len;
  unsigned op = (unsigned)get_le(c, 1);
  if (op == 1) rows_emit(r, h, true);                            /* DW_LNE_end_sequence */
  else if (op == 2 && len == 9) r->addr = get_le(c, 8);          /* DW_LNE_set_address */
  c->p = next;   /* define_file, set_discriminator, vendor opcodes: skipped */
}

/* A standard opcode (1 .. opcode_base - 1). */
static void run_standard(Cursor *c, const Header *h, Rows *r, unsigned op) {
  switch (op) {
  case 1: rows_emit(r, h, false); break;                                 /* DW_LNS_copy */
  case 2: r->addr += get_uleb(c) * h->min_inst; break;                   /* advance_pc */
  case 3: r->line += (uint64_t)get_sleb(c); break;                       /* advance_line */
  case 4: r->file = get_uleb(c); break;                                  /* set_file */
  case 8: r->addr += (255 - h->opcode_base) / h->line_range * h->min_inst; break;   /* const_add_pc */
  case 9: r->addr += get_le(c, 2); break;                                /* fixed_advance_pc */
  default:   /* set_column, negate_stmt, ... and opcodes of later versions: skip their operands */
    for (unsigned i = 0; i < h->std_lengths[op - 1]; i++) (void)get_uleb(c);
  }
}

/* Runs one unit's program (c at its header, ending at c->end) looking for r->target. */
static void decode_unit(Cursor *c, const char *file, Rows *r) {
  Header h;
  if (!read_header(c, file, &h) || !h.want) return;
  rows_reset(r);
  while (!c->bad && c->p < c->end && !r->found) {
    unsigned op = (unsigned)get_le(c, 1);
    if (op >= h.opcode_base) {
      unsigned adj = op - h.opcode_base;
      r->addr += adj / h.line_range * h.min_inst;
      r->line += (uint64_t)(int64_t)(h.line_base + (int)(adj % h.line_range));
      rows_emit(r, &h, false);
    } else if (op == 0) {
      run_extended(c, &h, r);
    } else {
      run_standard(c, &h, r, op);
    }
  }
}

size_t sim_lines_find(const SimLines *lines, const char *file, uint64_t addr, uint32_t *out, size_t cap) {
  Cursor all = {lines->bytes, lines->bytes + lines->size, !lines->bytes};
  Rows r = {.target = addr, .lines = out, .cap = cap};
  while (!all.bad && all.p < all.end && !r.found) {
    uint64_t len = get_le(&all, 4);
    if (len >= 0xfffffff0u || len > (uint64_t)(all.end - all.p)) break;   /* 64-bit DWARF: not ours */
    Cursor unit = {all.p, all.p + len, false};
    decode_unit(&unit, file, &r);
    all.p += len;
  }
  return r.found ? r.count : 0;
}
