/* p2c_module_explore: gathers what the explore view shows from a translated module and NVRTC,
 * and hands it to src/explore, which writes the page. The one place that runs NVRTC for the view:
 * the PTX with line info (-lineinfo: `.loc` entries naming the CUDA C's lines, under a program
 * name of its own so that they cannot be taken for the .py's lines), and the CUBIN with ptxas's
 * verbose report (-Xptxas=-v), compiled as `pyk2cuda ptx --cubin` compiles it, so that its
 * figures are the module's own: one compile gives all three (NVRTC's PTX of a real architecture
 * is the PTX its CUBIN is made from), where two compiles took twice NVRTC's front end (bench/
 * RESULTS.md). It bypasses the compile cache, which keeps no logs. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "explore/explore.h"
#include "runtime/cuda/nvdisasm.h"

/* NVRTC's PTX and CUBIN for the view; on failure `why` says what is missing. */
typedef struct ViewCompile {
  RtcResult ptx, cubin;
  char *sass;               /* nvdisasm's listing of the CUBIN (m->alloc's), or NULL */
  size_t sass_len;
  const char *sass_why;     /* no SASS: why (arena text), else NULL */
  const char *program;
  const char *why;          /* no PTX: why (arena text), else NULL */
  P2cStatus status;         /* P2C_ERR_NVRTC when NVRTC rejected the program, else P2C_OK */
} ViewCompile;

/* Whether the module's own options (its decorators': lineinfo=True, ...) already hold `option`. */
static bool has_option(const P2cModule *m, const char *option) {
  for (size_t i = 0; i < m->nvrtc_option_count; i++)
    if (strcmp(m->nvrtc_options[i], option) == 0) return true;
  return false;
}

/* The one NVRTC compile of the view: the module's CUDA C under `program`, with its own options
 * (fastmath=True, ...) and line info and ptxas's report, into a CUBIN (res) and its PTX (ptx). */
static P2cStatus compile_view(const P2cModule *m, const char *program, const char *arch, RtcResult *res,
                              RtcResult *ptx) {
  static const char *const extra[] = {"-lineinfo", "-Xptxas=-v"};
  const char *opts[sizeof m->nvrtc_options / sizeof m->nvrtc_options[0] + 2];
  size_t n = m->nvrtc_option_count;
  memcpy(opts, m->nvrtc_options, n * sizeof *opts);
  for (size_t i = 0; i < 2; i++)
    if (!has_option(m, extra[i])) opts[n++] = extra[i];
  RtcRequest req = {.source = m->cg.text, .program_name = program, .arch = arch, .target = P2C_TARGET_CUBIN,
                    .options = opts, .option_count = n, .alloc = &m->alloc};
  return rtc_compile_with_ptx(&req, res, ptx);
}

/* The SASS of the view's CUBIN, where nvdisasm is found; else why there is none. */
static void view_sass(P2cModule *m, ViewCompile *v) {
  char err[1400];
  if (rtc_disassemble(v->cubin.image, v->cubin.image_size, &m->alloc, &v->sass, &v->sass_len, err, sizeof err) != P2C_OK)
    v->sass_why = arena_printf(&m->comp.arena, "no SASS: %s", err);
}

/* Releases what the view's compile holds outside the arena. */
static void view_free(P2cModule *m, ViewCompile *v) {
  rtc_result_free(&v->ptx);
  rtc_result_free(&v->cubin);
  if (v->sass) mem_free(&m->alloc, v->sass, v->sass_len + 1);
  v->sass = NULL;
}

/* Compiles the module for the view. Usage errors (a bad architecture) are returned; NVRTC's
 * absence or refusal leaves a page without PTX (v->why). */
static P2cStatus view_compile(P2cCompiler *c, P2cModule *m, const char *arch, ViewCompile *v) {
  Arena *a = &m->comp.arena;
  v->program = arena_printf(a, "%s.cu", m->comp.file);
  if (!m->ok) {
    v->why = "the module has errors: no CUDA C was made";
    return P2C_OK;
  }
  if (m->sanitize) {
    v->why = "translated for the simulator's checker (--sanitize), which runs on the simulator only: no PTX";
    return P2C_OK;
  }
  P2cStatus s = compile_view(m, v->program, arch, &v->cubin, &v->ptx);
  if (s == P2C_OK) {
    view_sass(m, v);
    return P2C_OK;
  }
  const RtcResult *r = &v->cubin;
  if (s == P2C_ERR_USAGE || s == P2C_ERR_NOMEM) return api_fail(c, s, "NVRTC: %s", r->error);
  v->why = arena_printf(a, "no PTX: %s%s%s", r->error, r->log && r->log[0] ? "\n" : "", r->log ? r->log : "");
  if (s == P2C_ERR_NVRTC) v->status = api_fail(c, s, "NVRTC: %s", r->error);
  rtc_result_free(&v->ptx);
  rtc_result_free(&v->cubin);
  return P2C_OK;
}

/* A real architecture (sm_XY), which ptxas needs: NVRTC's rule (rtc_valid_arch). */
static bool arch_ok(const char *arch) {
  bool is_virtual;
  return rtc_valid_arch(arch, &is_virtual) && !is_virtual;
}

/* The view's input from the module and the compile. */
static ExploreInput view_input(P2cModule *m, const P2cExploreOptions *o, const ViewCompile *v) {
  Arena *a = &m->comp.arena;
  ExploreInput in = {.file = m->comp.file, .version = arena_printf(a, "pyk2cuda %s", p2c_version()),
                     .python = m->comp.text ? m->comp.text : "", .python_len = m->comp.text ? m->comp.len : 0,
                     .line_starts = m->comp.line_starts.items, .nline_starts = m->comp.line_starts.len,
                     .program = v->program, .compile_error = v->why, .arch = o->arch,
                     .block_threads = o->block_threads, .dynamic_shared = o->dynamic_shared_bytes,
                     .diags = m->comp.diags.items, .ndiags = m->comp.diags.len,
                     .findings = o->findings, .nfindings = o->findings ? o->finding_count : 0};
  if (m->ok) {
    in.cuda = m->cg.text;
    in.cuda_len = m->cg.len;
    in.python_line = m->cg.python_line;
    in.nlines = m->cg.nlines;
    ExploreKernel *k = arena_alloc(a, ((size_t)m->cg.nkernels + 1) * sizeof *k);
    for (int i = 0; i < m->cg.nkernels; i++) {
      const KernelDesc *d = &m->cg.kernels[i];
      if (d->spec) k[in.nkernels++] = (ExploreKernel){d->spec->name, d->symbol, d->signature, d->spec};
    }
    in.kernels = k;
  }
  if (v->ptx.image) {
    in.ptx = v->ptx.image;
    in.ptx_len = v->ptx.image_size;
    in.ptxas_log = v->cubin.log;
    in.cubin = v->cubin.image;
    in.cubin_size = v->cubin.image_size;
    in.sass = v->sass;
    in.sass_len = v->sass_len;
    in.sass_error = v->sass_why;
  }
  return in;
}

P2cStatus p2c_module_explore(P2cCompiler *c, P2cModule *m, const P2cExploreOptions *options, const char **html,
                             size_t *length) {
  if (html) *html = NULL;
  if (length) *length = 0;
  if (!c || !m || !html) return c ? api_fail(c, P2C_ERR_USAGE, "p2c_module_explore: no module or no result") : P2C_ERR_USAGE;
  P2cExploreOptions o = options ? *options : (P2cExploreOptions){0};
  if (!o.arch) o.arch = "sm_90";
  if (!o.block_threads) o.block_threads = 256;
  if (!arch_ok(o.arch))
    return api_fail(c, P2C_ERR_USAGE, "bad architecture '%s': expected sm_XY (e.g. sm_90)", o.arch);
  if (o.block_threads < 0)
    return api_fail(c, P2C_ERR_USAGE, "bad block size %d: expected a positive number of threads", o.block_threads);
  ViewCompile v = {0};
  jmp_buf oom;
  m->comp.arena.oom = &oom;
  if (setjmp(oom)) {
    m->comp.arena.oom = NULL;
    view_free(m, &v);
    return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  }
  P2cStatus s = view_compile(c, m, o.arch, &v);
  if (s == P2C_OK) {
    ExploreInput in = view_input(m, &o, &v);
    size_t len;
    *html = explore_page(&m->comp.arena, &in, &len);
    if (length) *length = len;
    s = v.status;
  }
  m->comp.arena.oom = NULL;
  view_free(m, &v);
  return s;
}

bool p2c_find_nvdisasm(char *path, size_t size) {
  char found[1400];
  bool ok = rtc_nvdisasm_find(found, sizeof found);
  if (path && size) snprintf(path, size, "%s", found);
  return ok;
}
