/* The stand-in's modules and launches: PTX and CUBIN images read for their `.entry` kernels and
 * parameter sizes, the driver version's refusal of newer images, functions and their
 * attributes, launches checked against an H200's limits, and kernels run through pyk2cuda's
 * simulator.
 *
 * How a kernel runs (the documented test hook, docs/runtime.md): the runtime calls
 * p2cStandinAttachSource(module, cuda_c, length) after loading a module it compiled from CUDA C;
 * the stand-in builds that same CUDA C with the simulator (sim_module_load, at the first launch
 * that runs) and runs entry p2c_sim_blocks_<name> or p2c_sim_thread_<name> (whichever the
 * simulator's build defines) with cuLaunchKernel's kernelParams, copied at the launch. A module
 * with no source attached loads, but launching its kernels fails (CUDA_ERROR_NOT_SUPPORTED, with
 * a line on stderr saying why).
 *
 * While a kernel runs, its context's device allocations are open (memory.c); an access outside
 * every live allocation (past an allocation's end, into a freed one, a guard page, unmapped
 * memory) faults, the simulator catches the fault in the thread that made it (its fault.c), and
 * the launch ends with CUDA_ERROR_ILLEGAL_ADDRESS, which poisons the context (queue.c). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/sim/sim.h"
#include "standin.h"

/* ---- PTX ------------------------------------------------------------------------------------ */

/* Bytes of a PTX scalar type (.u64, .f32, .b8, .pred ...); 0 when `t` is not one. */
static uint32_t ptx_type_size(const char *t, size_t len) {
  if (len >= 3 && strchr("usbf", t[1]) && isdigit((unsigned char)t[2])) return (uint32_t)atoi(t + 2) / 8;
  if (len == 5 && !strncmp(t, ".pred", 5)) return 1;
  return 0;
}

/* Size of one declaration `.param .align 8 .b8 name[40]` or `.shared .align 4 .b8 s[1024]`
 * (spaces, the state space and .ptr qualifiers skipped); 0 when it has no type. */
static uint32_t ptx_decl_size(const char *p, const char *end, uint32_t *align) {
  uint32_t elem = 0, count = 1;
  *align = 1;
  while (p < end) {
    while (p < end && isspace((unsigned char)*p)) p++;
    const char *tok = p;
    while (p < end && !isspace((unsigned char)*p) && *p != '[' && *p != ',' && *p != ';') p++;
    size_t len = (size_t)(p - tok);
    if (len == 6 && !strncmp(tok, ".align", 6)) {
      *align = (uint32_t)strtoul(p, (char **)&p, 10);
    } else if (len && tok[0] == '.' && ptx_type_size(tok, len)) {
      elem = ptx_type_size(tok, len);
      if (!*align || *align == 1) *align = elem;
    }
    while (p < end && *p == '[') {
      count *= (uint32_t)strtoul(p + 1, (char **)&p, 10);
      while (p < end && *p != ']') p++;
      if (p < end) p++;
    }
    if (p < end && (*p == ',' || *p == ';')) break;
    if (len == 0 && p < end) p++;
  }
  return elem * count;
}

/* `.version A.B` as A*10+B; `.target sm_XY` as XY. */
static int ptx_number(const char *ptx, const char *key, bool version) {
  const char *p = strstr(ptx, key);
  if (!p) return -1;
  p += strlen(key);
  while (*p == ' ' || *p == '\t') p++;
  if (version) {
    int a = 0, b = 0;
    return sscanf(p, "%d.%d", &a, &b) == 2 ? a * 10 + b : -1;
  }
  int sm = 0;
  return sscanf(p, "sm_%d", &sm) == 1 ? sm : -1;
}

/* Sums the `.shared` declarations of an entry's body (the demoted __shared__ arrays). */
static uint32_t ptx_static_shared(const char *body, const char *end) {
  uint32_t total = 0;
  for (const char *p = body; p < end && (p = strstr(p, ".shared")) && p < end; p += 7) {
    const char *line = p;
    while (line > body && line[-1] != '\n') line--;
    if (strstr(line, ".extern") && strstr(line, ".extern") < p) continue;
    const char *stop = strchr(p, ';');
    if (!stop || stop > end) break;
    uint32_t align, size = ptx_decl_size(p + 7, stop + 1, &align);
    if (align > 1) total = (total + align - 1) / align * align;
    total += size;
  }
  return total;
}

static bool push_entry(SiModule *m, const SiEntry *e) {
  SiEntry *grown = realloc(m->entries, (m->entry_count + 1) * sizeof *grown);
  if (!grown) return false;
  m->entries = grown;
  m->entries[m->entry_count++] = *e;
  return true;
}

/* The threads a block of an entry may have: the product of its `.maxntid X[, Y[, Z]]` (its
 * launch bounds), between the parameters' `)` and the body's `{`, else the device's limit. */
static uint32_t ptx_max_threads(const char *from, const char *to) {
  const char *d = strstr(from, ".maxntid");
  if (!d || (to && d > to)) return SI_MAX_THREADS;
  uint64_t product = 1;
  const char *p = d + 8;
  for (int k = 0; k < 3; k++) {
    char *end;
    unsigned long v = strtoul(p, &end, 10);
    if (end == p) break;
    product *= v;
    p = end;
    while (*p == ' ' || *p == '\t') p++;
    if (*p != ',') break;
    p++;
  }
  return product && product < SI_MAX_THREADS ? (uint32_t)product : SI_MAX_THREADS;
}

/* One `.entry NAME(params) { body }`, starting after ".entry". */
static const char *ptx_entry(SiModule *m, const char *p, bool *ok) {
  SiEntry e = {0};
  while (isspace((unsigned char)*p)) p++;
  const char *name = p;
  while (*p && !isspace((unsigned char)*p) && *p != '(') p++;
  e.name = strndup(name, (size_t)(p - name));
  const char *open = strchr(p, '('), *close = open ? strchr(open, ')') : NULL;
  *ok = e.name && open && close;
  for (const char *q = open ? open + 1 : close; *ok && q < close;) {
    const char *decl = strstr(q, ".param");
    if (!decl || decl > close) break;
    const char *stop = decl;
    while (stop < close && *stop != ',') stop++;
    uint32_t align, size = ptx_decl_size(decl + 6, stop, &align);
    uint32_t *grown = realloc(e.param_sizes, (e.param_count + 1) * sizeof *grown);
    if (!grown) *ok = false;
    else (e.param_sizes = grown)[e.param_count++] = size;
    q = stop + 1;
  }
  const char *body = close ? strchr(close, '{') : NULL;
  e.max_threads = close ? ptx_max_threads(close, body) : SI_MAX_THREADS;
  const char *end = body;
  for (int depth = 0; end && *end; end++) {
    depth += *end == '{' ? 1 : *end == '}' ? -1 : 0;
    if (depth == 0) break;
  }
  if (body && end && *end) e.static_shared = ptx_static_shared(body, end);
  if (*ok) *ok = push_entry(m, &e);
  if (!*ok) free(e.name), free(e.param_sizes);
  return end && *end ? end : p;
}

/* The greatest PTX ISA a driver of this CUDA version accepts (CUDA's release notes). */
static int max_ptx_isa(int version) {
  static const int table[][2] = {{13000, 90}, {12090, 88}, {12080, 87}, {12060, 85}, {12050, 85},
                                 {12040, 84}, {12030, 83}, {12020, 82}, {12010, 81}, {12000, 80}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (version >= table[i][0]) return table[i][1];
  return 78;
}

static CUresult load_ptx(SiModule *m, const char *ptx, char *log, size_t loglen) {
  int isa = ptx_number(ptx, ".version", true), sm = ptx_number(ptx, ".target", false);
  int driver = si_state()->version;
  if (isa < 0 || sm < 0) {
    snprintf(log, loglen, "ptxas fatal: PTX without .version or .target");
    return CUDA_ERROR_INVALID_PTX;
  }
  if (isa > max_ptx_isa(driver)) {
    snprintf(log, loglen, "ptxas fatal: Unsupported .version %d.%d; current version is '%d.%d'",
             isa / 10, isa % 10, max_ptx_isa(driver) / 10, max_ptx_isa(driver) % 10);
    return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
  }
  if (sm > 90) {
    snprintf(log, loglen, "ptxas fatal: SM version specified by .target is higher than default SM version assumed");
    return CUDA_ERROR_INVALID_PTX;
  }
  for (const char *p = ptx; (p = strstr(p, ".entry"));) {
    bool ok;
    if (p > ptx && !isspace((unsigned char)p[-1])) {
      p += 6;
      continue;
    }
    p = ptx_entry(m, p + 6, &ok);
    if (!ok) return CUDA_ERROR_OUT_OF_MEMORY;
  }
  return CUDA_SUCCESS;
}

/* ---- CUBIN ---------------------------------------------------------------------------------- */

enum { STO_CUDA_ENTRY = 0x10, EIATTR_MAX_THREADS = 0x05, EIATTR_KPARAM_INFO = 0x17, EIATTR_CUDA_API_VERSION = 0x37 };

typedef struct Elf {
  const unsigned char *data;
  size_t size;
  const Elf64_Shdr *sections;
  size_t section_count;
  const char *names; /* .shstrtab */
} Elf;

static const Elf64_Shdr *elf_section(const Elf *e, const char *name) {
  for (size_t i = 0; i < e->section_count; i++)
    if (!strcmp(e->names + e->sections[i].sh_name, name)) return &e->sections[i];
  return NULL;
}

static bool elf_open(Elf *e, const unsigned char *data, size_t size) {
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)data;
  if (size < sizeof *h || h->e_ident[EI_CLASS] != ELFCLASS64 || h->e_shentsize != sizeof(Elf64_Shdr) ||
      h->e_shoff + (uint64_t)h->e_shnum * sizeof(Elf64_Shdr) > size || h->e_shstrndx >= h->e_shnum)
    return false;
  e->data = data;
  e->size = size;
  e->sections = (const Elf64_Shdr *)(data + h->e_shoff);
  e->section_count = h->e_shnum;
  const Elf64_Shdr *names = &e->sections[h->e_shstrndx];
  if (names->sh_offset + names->sh_size > size) return false;
  e->names = (const char *)data + names->sh_offset;
  for (size_t i = 0; i < e->section_count; i++)
    if (e->sections[i].sh_name >= names->sh_size ||
        (e->sections[i].sh_type != SHT_NOBITS && e->sections[i].sh_offset + e->sections[i].sh_size > size))
      return false;
  return true;
}

/* Reads an entry's parameters (EIATTR_KPARAM_INFO: ordinal, and the size in bits 18-31 of its
 * last word), its launch bounds (EIATTR_MAX_THREADS: .maxntid's three extents) and the CUDA
 * version it was built for from its .nv.info.<name> section. */
static bool cubin_params(const Elf *elf, SiEntry *e, int *api_version) {
  char name[300];
  snprintf(name, sizeof name, ".nv.info.%s", e->name);
  const Elf64_Shdr *s = elf_section(elf, name);
  if (!s) return true;
  const unsigned char *p = elf->data + s->sh_offset, *end = p + s->sh_size;
  while (p + 4 <= end) {
    unsigned fmt = p[0], attr = p[1];
    size_t len = fmt == 4 ? (size_t)(p[2] | p[3] << 8) : 0;
    const unsigned char *v = p + 4;
    if (v + len > end) return false;
    if (attr == EIATTR_KPARAM_INFO && len >= 12) {
      uint32_t ordinal = (uint32_t)(v[4] | v[5] << 8), info;
      memcpy(&info, v + 8, 4);
      if (ordinal >= e->param_count) {
        uint32_t *grown = realloc(e->param_sizes, (ordinal + 1) * sizeof *grown);
        if (!grown) return false;
        memset(grown + e->param_count, 0, (ordinal + 1 - e->param_count) * sizeof *grown);
        e->param_sizes = grown;
        e->param_count = ordinal + 1;
      }
      e->param_sizes[ordinal] = (info >> 18) & 0x3fff;
    } else if (attr == EIATTR_MAX_THREADS && len >= 12) {   /* .maxntid x, y, z */
      uint32_t d[3];
      memcpy(d, v, sizeof d);
      uint64_t product = (uint64_t)d[0] * d[1] * d[2];
      if (product && product < e->max_threads) e->max_threads = (uint32_t)product;
    } else if (attr == EIATTR_CUDA_API_VERSION && len >= 4) {
      *api_version = v[0] | v[1] << 8;
    }
    p = v + len;
  }
  return true;
}

/* The entries of a CUBIN: FUNC symbols marked as entries (st_other 0x10), with parameters from
 * .nv.info.<name> and static shared memory from .nv.shared.<name>. */
static CUresult load_cubin(SiModule *m, const unsigned char *data, size_t size, char *log, size_t loglen) {
  Elf elf;
  if (!elf_open(&elf, data, size)) return snprintf(log, loglen, "malformed CUBIN"), CUDA_ERROR_INVALID_IMAGE;
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)data;
  int sm = (int)((h->e_flags >> 8) & 0xff);
  if (h->e_machine != EM_CUDA || sm / 10 != 9 || sm % 10 != 0) {
    snprintf(log, loglen, "CUBIN for sm_%d cannot run on sm_90", sm);
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  }
  const Elf64_Shdr *symtab = elf_section(&elf, ".symtab"), *strtab = elf_section(&elf, ".strtab");
  if (!symtab || !strtab) return CUDA_ERROR_INVALID_IMAGE;
  const Elf64_Sym *syms = (const Elf64_Sym *)(data + symtab->sh_offset);
  int api = 0;
  for (size_t i = 0; i < symtab->sh_size / sizeof *syms; i++) {
    if (ELF64_ST_TYPE(syms[i].st_info) != STT_FUNC || !(syms[i].st_other & STO_CUDA_ENTRY)) continue;
    if (syms[i].st_name >= strtab->sh_size) return CUDA_ERROR_INVALID_IMAGE;
    SiEntry e = {.name = strdup((const char *)data + strtab->sh_offset + syms[i].st_name),
                 .max_threads = SI_MAX_THREADS};
    char shared[300];
    snprintf(shared, sizeof shared, ".nv.shared.%s", e.name ? e.name : "");
    const Elf64_Shdr *sh = e.name ? elf_section(&elf, shared) : NULL;
    e.static_shared = sh ? (uint32_t)sh->sh_size : 0;
    if (!e.name || !cubin_params(&elf, &e, &api) || !push_entry(m, &e)) {
      free(e.name), free(e.param_sizes);
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
  }
  /* 130 is CUDA 13.0: a CUBIN loads on drivers of its major version or newer. */
  if (api / 10 > si_state()->version / 1000) {
    snprintf(log, loglen, "CUBIN built by CUDA %d.%d; this driver is CUDA %d.%d", api / 10, api % 10,
             si_state()->version / 1000, si_state()->version % 1000 / 10);
    return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
  }
  return CUDA_SUCCESS;
}

/* ---- Modules -------------------------------------------------------------------------------- */

enum { JIT_INFO_LOG = 3, JIT_INFO_LOG_SIZE = 4, JIT_ERROR_LOG = 5, JIT_ERROR_LOG_SIZE = 6 };

/* Writes the error log where cuModuleLoadDataEx's options ask for it (and an empty info log). */
static void write_logs(unsigned n, const int *options, void **values, const char *error) {
  char *error_buf = NULL, *info_buf = NULL;
  size_t error_len = 0, info_len = 0;
  for (unsigned i = 0; options && values && i < n; i++) {
    if (options[i] == JIT_ERROR_LOG) error_buf = values[i];
    if (options[i] == JIT_ERROR_LOG_SIZE) error_len = (size_t)(uintptr_t)values[i];
    if (options[i] == JIT_INFO_LOG) info_buf = values[i];
    if (options[i] == JIT_INFO_LOG_SIZE) info_len = (size_t)(uintptr_t)values[i];
  }
  if (error_buf && error_len) snprintf(error_buf, error_len, "%s", error);
  if (info_buf && info_len) info_buf[0] = '\0';
}

static void module_free(SiModule *m) {
  for (size_t i = 0; i < m->entry_count; i++) free(m->entries[i].name), free(m->entries[i].param_sizes);
  free(m->entries);
  for (SiFunction *f = m->functions, *n; f; f = n) n = f->next, free(f);
  si_remove_globals(m);
  sim_module_delete(m->sim);
  free(m->source);
  free(m);
}

static bool is_cubin(const unsigned char *p) { return p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F'; }
static bool is_fatbin(const unsigned char *p) { return p[0] == 0x50 && p[1] == 0xed && p[2] == 0x55 && p[3] == 0xba; }

static CUresult module_load(SiModule **out, const void *image, unsigned n, int *options, void **values) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  if (!out || !image) return CUDA_ERROR_INVALID_VALUE;
  const unsigned char *p = image;
  char log[512] = "";
  SiModule *m = calloc(1, sizeof *m);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  m->ctx = ctx;
  if (is_fatbin(p)) {
    snprintf(log, sizeof log, "the stand-in reads PTX and CUBIN, not fatbins");
    rc = CUDA_ERROR_NOT_SUPPORTED;
  } else if (is_cubin(p)) {
    /* A CUBIN's size is in its header: the section table ends it, or the program headers do. */
    const Elf64_Ehdr *h = image;
    size_t size = h->e_shoff + (size_t)h->e_shnum * sizeof(Elf64_Shdr);
    size_t ph = h->e_phoff + (size_t)h->e_phnum * sizeof(Elf64_Phdr);
    rc = load_cubin(m, p, size > ph ? size : ph, log, sizeof log);
  } else {
    rc = load_ptx(m, image, log, sizeof log);
  }
  write_logs(n, options, values, log);
  if (rc != CUDA_SUCCESS) return module_free(m), rc;
  m->next = ctx->modules;
  ctx->modules = m;
  *out = m;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleLoadDataEx(void **out, const void *image, unsigned n, int *options, void **values) {
  SI_ENTRY(module_load((SiModule **)out, image, n, options, values));
}
EXPORT CUresult cuModuleLoadData(void **out, const void *image) {
  SI_ENTRY(module_load((SiModule **)out, image, 0, NULL, NULL));
}

/* The module handle, when it is one of the current context's. */
static SiModule *module_of(SiCtx *ctx, void *handle) {
  for (SiModule *m = ctx->modules; m; m = m->next)
    if (m == handle) return m;
  return NULL;
}

/* Work queued with its kernels runs first. */
static CUresult module_unload(void *handle) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, false);
  if (rc != CUDA_SUCCESS) return rc;
  SiModule **link = &ctx->modules;
  while (*link && *link != handle) link = &(*link)->next;
  if (!*link) return CUDA_ERROR_INVALID_HANDLE;
  if (ctx->sticky == CUDA_SUCCESS) si_drain_ctx(ctx);
  SiModule *m = *link;
  *link = m->next;
  module_free(m);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleUnload(void *module) { SI_ENTRY(module_unload(module)); }

/* The test hook: the CUDA C the module was compiled from (docs/runtime.md). */
static CUresult attach_source(void *handle, const char *source, size_t len) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, false);
  if (rc != CUDA_SUCCESS) return rc;
  SiModule *m = module_of(ctx, handle);
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  if (!source) return CUDA_ERROR_INVALID_VALUE;
  char *copy = malloc(len + 1);
  if (!copy) return CUDA_ERROR_OUT_OF_MEMORY;
  memcpy(copy, source, len);
  copy[len] = '\0';
  free(m->source);
  m->source = copy;
  m->source_len = len;
  return CUDA_SUCCESS;
}

EXPORT CUresult p2cStandinAttachSource(void *module, const char *cuda_source, size_t length) {
  SI_ENTRY(attach_source(module, cuda_source, length));
}

static CUresult get_function(SiFunction **out, void *handle, const char *name) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiModule *m = module_of(ctx, handle);
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  if (!out || !name) return CUDA_ERROR_INVALID_VALUE;
  for (SiFunction *f = m->functions; f; f = f->next)
    if (!strcmp(f->entry->name, name)) return *out = f, CUDA_SUCCESS;
  for (size_t i = 0; i < m->entry_count; i++) {
    if (strcmp(m->entries[i].name, name)) continue;
    SiFunction *f = calloc(1, sizeof *f);
    if (!f) return CUDA_ERROR_OUT_OF_MEMORY;
    f->module = m;
    f->entry = &m->entries[i];
    f->max_dynamic_shared = SI_SHARED_DEFAULT - (int)f->entry->static_shared;
    f->next = m->functions;
    m->functions = f;
    *out = f;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_NOT_FOUND;
}

EXPORT CUresult cuModuleGetFunction(void **out, void *module, const char *name) {
  SI_ENTRY(get_function((SiFunction **)out, module, name));
}

/* True when the source defines the simulator's entry of kernel `name` (pyk2cuda's generated
 * code does, with P2C_SIM_BLOCKS, P2C_SIM_FIBERS, P2C_SIM_LOCKSTEP or P2C_SIM_GRID). */
static bool has_sim_entry(const char *source, const char *name) {
  static const char *const macros[] = {"P2C_SIM_BLOCKS(%s)", "P2C_SIM_FIBERS(%s)", "P2C_SIM_LOCKSTEP(%s,",
                                       "P2C_SIM_KERNEL(%s)", "P2C_SIM_GRID(%s,"};
  char pattern[320];
  for (size_t i = 0; i < sizeof macros / sizeof macros[0]; i++) {
    snprintf(pattern, sizeof pattern, macros[i], name);
    if (strstr(source, pattern)) return true;
  }
  return false;
}

/* If `p` starts `extern __shared__ [__align__(N)] TYPE NAME[];` (hand-written CUDA C's dynamic
 * shared memory, which the host compiler cannot define), writes P2C_SIM_EXTERN_SHARED(TYPE,
 * NAME) at out (cap bytes; the simulator's prelude) and returns the length consumed; else 0. */
static size_t rewrite_extern_shared(const char *p, char *out, size_t cap) {
  static const char head[] = "extern __shared__";
  if (strncmp(p, head, sizeof head - 1) != 0) return 0;
  const char *q = p + sizeof head - 1;
  q += strspn(q, " \t");
  if (strncmp(q, "__align__(", 10) == 0) {
    const char *close = strchr(q, ')');
    if (!close) return 0;
    q = close + 1 + strspn(close + 1, " \t");
  }
  const char *bracket = strchr(q, '[');
  const char *semi = strchr(q, ';');
  if (!bracket || !semi || bracket > semi || strncmp(bracket, "[];", 3) != 0) return 0;
  const char *name = bracket;
  while (name > q && (isalnum((unsigned char)name[-1]) || name[-1] == '_')) name--;
  const char *type_end = name;
  while (type_end > q && (type_end[-1] == ' ' || type_end[-1] == '\t')) type_end--;
  if (name == bracket || type_end == q || strncmp(name, "p2c_dynamic_shared", 18) == 0) return 0;
  snprintf(out, cap, "P2C_SIM_EXTERN_SHARED(%.*s, %.*s);", (int)(type_end - q), q,
           (int)(bracket - name), name);
  return (size_t)(bracket + 3 - p);
}

/* Copies the attached CUDA C into text, rewriting its `extern __shared__` arrays (above); a
 * rewrite is never longer than what it replaces plus 32 bytes. Returns the length written. */
static size_t copy_source(const SiModule *m, char *text, size_t len) {
  size_t at = 0;
  for (const char *p = m->source; *p;) {
    size_t used = rewrite_extern_shared(p, text + at, len - at);
    if (used) {
      at += strlen(text + at);
      p += used;
    } else {
      text[at++] = *p++;
    }
  }
  /* A newline only where the text lacks one: the simulator's build of a module pyk2cuda
   * translated is then keyed as the simulator's own of the same text, and the diff suite's cache
   * serves the stand-in (standin-diff). */
  if (at == 0 || text[at - 1] != '\n') text[at++] = '\n';
  text[at] = '\0';
  return at;
}

/* The text the simulator builds: the attached CUDA C, and for each entry it does not give the
 * simulator an entry for (hand-written CUDA C), P2C_SIM_KERNEL(name), both entries. */
static char *sim_text(const SiModule *m) {
  size_t rewrites = 0;
  for (const char *p = strstr(m->source, "extern __shared__"); p; p = strstr(p + 1, "extern __shared__"))
    rewrites++;
  size_t len = m->source_len + 2 + 32 * rewrites;
  for (size_t i = 0; i < m->entry_count; i++) len += strlen(m->entries[i].name) + 20;
  char *text = malloc(len);
  if (!text) return NULL;
  size_t at = copy_source(m, text, len);
  for (size_t i = 0; i < m->entry_count; i++)
    if (!has_sim_entry(m->source, m->entries[i].name))
      at += (size_t)snprintf(text + at, len - at, "P2C_SIM_KERNEL(%s)\n", m->entries[i].name);
  return text;
}

/* The simulator's build of the module's CUDA C, made on first use. */
static CUresult module_sim(SiModule *m, const char *why) {
  if (m->sim) return CUDA_SUCCESS;
  if (!m->source) {
    si_note("%s: the module has no CUDA C attached (p2cStandinAttachSource), so the stand-in "
            "cannot run it", why);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (m->sim_failed) {
    si_note("%s: the simulator could not build the module (see above)", why);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  char *text = sim_text(m);
  if (!text) return CUDA_ERROR_OUT_OF_MEMORY;
  SimLoadRequest req = {.source = text, .source_len = strlen(text)};
  SimModule *sim = NULL;
  P2cStatus s = sim_module_load(&req, &sim);
  free(text);
  if (s != P2C_OK) {
    si_note("%s: the simulator could not build the module: %s\n%s", why,
            sim ? sim_module_error(sim) : "out of memory", sim ? sim_module_log(sim) : "");
    sim_module_delete(sim);
    m->sim_failed = true;
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  m->sim = sim;
  return CUDA_SUCCESS;
}

/* A __device__ variable: its storage in the simulator's build, copied like device memory. */
static CUresult get_global(CUdeviceptr *ptr, size_t *bytes, void *handle, const char *name) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiModule *m = module_of(ctx, handle);
  if (!m) return CUDA_ERROR_INVALID_HANDLE;
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  rc = module_sim(m, "cuModuleGetGlobal");
  if (rc != CUDA_SUCCESS) return CUDA_ERROR_NOT_FOUND;
  void *p = sim_module_symbol(m->sim, name);
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  if (!p || !dladdr1(p, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || ELF64_ST_TYPE(sym->st_info) != STT_OBJECT)
    return CUDA_ERROR_NOT_FOUND;
  rc = si_add_global(m, p, sym->st_size);
  if (rc != CUDA_SUCCESS) return rc;
  if (ptr) *ptr = (uintptr_t)p;
  if (bytes) *bytes = sym->st_size;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *ptr, size_t *bytes, void *module, const char *name) {
  SI_ENTRY(get_global(ptr, bytes, module, name));
}

/* ---- Functions ------------------------------------------------------------------------------ */

static SiFunction *function_of(SiCtx *ctx, void *handle) {
  for (SiModule *m = ctx->modules; m; m = m->next)
    for (SiFunction *f = m->functions; f; f = f->next)
      if (f == handle) return f;
  return NULL;
}

enum {
  FUNC_MAX_THREADS = 0, FUNC_SHARED = 1, FUNC_CONST = 2, FUNC_LOCAL = 3, FUNC_REGS = 4,
  FUNC_PTX_VERSION = 5, FUNC_BINARY_VERSION = 6, FUNC_CACHE_MODE = 7, FUNC_MAX_DYNAMIC_SHARED = 8,
};

static CUresult func_attribute(int *value, int attribute, void *handle) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiFunction *f = function_of(ctx, handle);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
  case FUNC_MAX_THREADS: *value = (int)f->entry->max_threads; return CUDA_SUCCESS;
  case FUNC_SHARED: *value = (int)f->entry->static_shared; return CUDA_SUCCESS;
  case FUNC_CONST: case FUNC_LOCAL: case FUNC_CACHE_MODE: *value = 0; return CUDA_SUCCESS;
  case FUNC_REGS: *value = 32; return CUDA_SUCCESS;
  case FUNC_PTX_VERSION: case FUNC_BINARY_VERSION: *value = 90; return CUDA_SUCCESS;
  case FUNC_MAX_DYNAMIC_SHARED: *value = f->max_dynamic_shared; return CUDA_SUCCESS;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
}

EXPORT CUresult cuFuncGetAttribute(int *value, int attribute, void *fn) { SI_ENTRY(func_attribute(value, attribute, fn)); }

/* Only the dynamic shared memory limit can be raised, up to the opt-in limit. */
static CUresult func_set_attribute(void *handle, int attribute, int value) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiFunction *f = function_of(ctx, handle);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (attribute != FUNC_MAX_DYNAMIC_SHARED) return attribute == 9 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  if (value < 0 || (int64_t)value + f->entry->static_shared > SI_SHARED_OPTIN) return CUDA_ERROR_INVALID_VALUE;
  f->max_dynamic_shared = value;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuFuncSetAttribute(void *fn, int attribute, int value) { SI_ENTRY(func_set_attribute(fn, attribute, value)); }

/* Blocks of one function an SM holds at once: threads, blocks and shared memory (1 KiB of it
 * reserved per block on sm_90). */
static int blocks_per_sm(const SiFunction *f, int threads, size_t dynamic) {
  if (threads <= 0 || threads > SI_MAX_THREADS) return 0;
  int by_threads = SI_THREADS_PER_SM / ((threads + 31) / 32 * 32);
  size_t shared = f->entry->static_shared + dynamic + 1024;
  int by_shared = (int)(SI_SHARED_PER_SM / shared);
  int n = by_threads < by_shared ? by_threads : by_shared;
  return n < SI_BLOCKS_PER_SM ? n : SI_BLOCKS_PER_SM;
}

static CUresult occupancy(int *blocks, void *handle, int threads, size_t dynamic) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiFunction *f = function_of(ctx, handle);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  if (!blocks) return CUDA_ERROR_INVALID_VALUE;
  *blocks = blocks_per_sm(f, threads, dynamic);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *fn, int threads, size_t dynamic) {
  SI_ENTRY(occupancy(blocks, fn, threads, dynamic));
}

/* ---- Launches ------------------------------------------------------------------------------- */

/* The device's limits and the kernel's launch bounds (cuLaunchKernel answers
 * CUDA_ERROR_INVALID_VALUE past them). */
static CUresult check_config(const SiFunction *f, const uint32_t g[3], const uint32_t b[3], uint32_t shared) {
  static const uint32_t max_block[3] = {1024, 1024, 64}, max_grid[3] = {2147483647u, 65535, 65535};
  for (int k = 0; k < 3; k++)
    if (!g[k] || !b[k] || b[k] > max_block[k] || g[k] > max_grid[k]) return CUDA_ERROR_INVALID_VALUE;
  if ((uint64_t)b[0] * b[1] * b[2] > f->entry->max_threads) return CUDA_ERROR_INVALID_VALUE;
  if ((int64_t)shared > f->max_dynamic_shared) return CUDA_ERROR_INVALID_VALUE;
  uint64_t params = 0;
  for (size_t i = 0; i < f->entry->param_count; i++) params += f->entry->param_sizes[i];
  return params > SI_PARAM_BYTES ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

/* Copies the parameters now, as the driver does: each one's declared size from its pointer. */
static CUresult copy_params(SiWork *w, const SiEntry *e, void **params) {
  size_t n = e->param_count, total = 0;
  if (n && !params) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < n; i++) total += (e->param_sizes[i] + 15) / 16 * 16;
  w->params = malloc(total ? total : 1);
  w->args = malloc((n ? n : 1) * sizeof *w->args);
  if (!w->params || !w->args) return CUDA_ERROR_OUT_OF_MEMORY;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    if (!params[i]) return CUDA_ERROR_INVALID_VALUE;
    memcpy(w->params + at, params[i], e->param_sizes[i]);
    w->args[i] = w->params + at;
    at += (e->param_sizes[i] + 15) / 16 * 16;
  }
  return CUDA_SUCCESS;
}

typedef struct Launch {
  void *fn;
  uint32_t grid[3], block[3], shared;
  void *stream;
  void **params, **extra;
  bool cooperative;
} Launch;

static CUresult launch(const Launch *l) {
  SiCtx *ctx;
  CUresult rc = si_need_ctx(&ctx, true);
  if (rc != CUDA_SUCCESS) return rc;
  SiFunction *f = function_of(ctx, l->fn);
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  SiStream *s = si_stream_of(ctx, l->stream, &rc);
  if (!s) return rc;
  if (l->extra) return si_note("cuLaunchKernel: `extra` is not modelled"), CUDA_ERROR_NOT_SUPPORTED;
  rc = check_config(f, l->grid, l->block, l->shared);
  if (rc != CUDA_SUCCESS) return rc;
  /* Built now, so that a module the stand-in cannot run fails its launch, not the context. */
  rc = module_sim(f->module, f->entry->name);
  if (rc != CUDA_SUCCESS) return CUDA_ERROR_NOT_SUPPORTED;
  uint64_t blocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
  uint32_t threads = l->block[0] * l->block[1] * l->block[2];
  if (l->cooperative && blocks > (uint64_t)blocks_per_sm(f, (int)threads, l->shared) * SI_SM_COUNT)
    return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  /* the fibers run every block of a cooperative grid at once; grid regions, any the memory allows */
  if (l->cooperative && !sim_kernel_has_grid_regions(f->module->sim, f->entry->name) &&
      blocks > sim_max_cooperative_blocks(threads)) {
    si_note("%s: a cooperative grid of %llu blocks of %u threads is more than the simulator runs "
            "at once (%u)", f->entry->name, (unsigned long long)blocks, threads, sim_max_cooperative_blocks(threads));
    return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  }
  SiWork *w = calloc(1, sizeof *w);
  if (!w) return CUDA_ERROR_OUT_OF_MEMORY;
  *w = (SiWork){.kind = WORK_KERNEL, .fn = f, .shared = l->shared, .cooperative = l->cooperative};
  memcpy(w->grid, l->grid, sizeof w->grid);
  memcpy(w->block, l->block, sizeof w->block);
  rc = copy_params(w, f->entry, l->params);
  if (rc != CUDA_SUCCESS) return si_work_free(w), rc;
  return si_enqueue(ctx, s, w);
}

EXPORT CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
  Launch l = {fn, {gx, gy, gz}, {bx, by, bz}, shared, stream, params, extra, false};
  SI_ENTRY(launch(&l));
}

EXPORT CUresult cuLaunchCooperativeKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                          unsigned by, unsigned bz, unsigned shared, void *stream,
                                          void **params) {
  Launch l = {fn, {gx, gy, gz}, {bx, by, bz}, shared, stream, params, NULL, true};
  SI_ENTRY(launch(&l));
}

/* ---- Running a kernel ----------------------------------------------------------------------- */

/* A long kernel, on request (PYK2CUDA_STANDIN_KERNEL_MS): the host's wait for it lasts at least
 * `ms`, so that a test can see what the host does meanwhile (another thread's progress). */
static void take_time(unsigned ms) {
  struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
  while (ms && nanosleep(&t, &t) != 0) continue;
}

CUresult si_run_kernel(SiWork *w) {
  SiFunction *f = w->fn;
  CUresult rc = module_sim(f->module, f->entry->name);
  if (rc != CUDA_SUCCESS) return rc;
  char name[320], err[1024] = "";
  snprintf(name, sizeof name, "p2c_sim_thread_%s", f->entry->name);
  SimLaunch l = {.symbol = f->entry->name, .grid = {w->grid[0], w->grid[1], w->grid[2]},
                 .block = {w->block[0], w->block[1], w->block[2]}, .dynamic_shared_bytes = w->shared,
                 .args = w->args, .uses_barrier = sim_module_symbol(f->module->sim, name) != NULL,
                 .cooperative = w->cooperative, .errbuf = err, .errbuf_size = sizeof err};
  SiCtx *ctx = f->module->ctx;
  si_open_device(ctx, true);
  P2cStatus s = sim_launch(f->module->sim, &l);
  si_open_device(ctx, false);
  /* The simulator catches a thread's fault (a page of the arena outside every live allocation,
   * or any wild address) and refuses the module's later launches, as the context is lost. */
  if (s == P2C_ERR_ILLEGAL_ADDRESS) {
    si_note("%s: CUDA_ERROR_ILLEGAL_ADDRESS", err);
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  }
  /* A bounds failure is the kernel's own report (p2c_bounds_report), not the driver's. */
  if (s == P2C_OK || s == P2C_ERR_BOUNDS) {
    si_state()->kernels_run++;
    take_time(si_state()->kernel_ms);
    return CUDA_SUCCESS;
  }
  si_note("kernel '%s' failed in the simulator: %s", f->entry->name, err);
  return CUDA_ERROR_LAUNCH_FAILED;
}

void si_free_ctx_modules(SiCtx *ctx, FILE *leaks) {
  int n = 0;
  for (SiModule *m = ctx->modules, *next; m; m = next) {
    next = m->next;
    module_free(m);
    n++;
  }
  ctx->modules = NULL;
  if (leaks && n) fprintf(leaks, "pyk2cuda stand-in: leak: device %d: %d modules\n", ctx->device, n);
}
