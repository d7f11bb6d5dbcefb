/* The public compiler API (include/pyk2cuda.h): compilers, modules, and the driver that runs
 * the pipeline source -> frontend -> typeinfer -> codegen in one straight line (p2c_translate),
 * and NVRTC on its output (p2c_module_compile).
 *
 * A module owns the compilation's arena: the AST, the diagnostics and the CUDA C text live in it
 * until p2c_module_delete. Allocation failure anywhere in the pipeline jumps back to the driver
 * (arena.h), which releases everything and returns P2C_ERR_NOMEM. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "frontend/frontend.h"
#include "runtime/cuda/nvrtc.h"
#include "runtime/bounds.h"
#include "runtime/cuda/rtc_cache.h"
#include "runtime/cache/cache.h"
#include "runtime/sim/sim.h"
#include "typeinfer/typeinfer.h"

#include "api/api.h"

/* ---- small things ---- */

const char *p2c_version(void) { return PYK2CUDA_VERSION_STRING; }

const char *p2c_status_string(P2cStatus s) {
  static const char *const names[] = {
      [P2C_OK] = "success",
      [P2C_ERR_SOURCE] = "errors in the Python source",
      [P2C_ERR_USAGE] = "invalid argument",
      [P2C_ERR_NOMEM] = "out of memory",
      [P2C_ERR_NO_CUDA] = "CUDA driver or NVRTC not available",
      [P2C_ERR_NVRTC] = "NVRTC failed to compile the generated code",
      [P2C_ERR_CUDA] = "a CUDA driver call failed",
      [P2C_ERR_IO] = "input/output error",
      [P2C_ERR_FORMAT] = "malformed input data",
      [P2C_ERR_SIM] = "the simulator failed",
      [P2C_ERR_INTERNAL] = "internal error",
      [P2C_ERR_BOUNDS] = "an array index was out of bounds",
      [P2C_ERR_SANITIZE] = "the simulator's checker found errors",
      [P2C_ERR_INTERRUPTED] = "interrupted",
      [P2C_ERR_ILLEGAL_ADDRESS] = "a kernel accessed memory it may not (illegal address)",
  };
  return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "unknown status";
}

size_t p2c_scalar_size(P2cScalarType t) {
  const Type *ty = type_of_scalar(t);
  return ty ? (size_t)ty->bits / 8 : 0;
}

const char *p2c_scalar_name(P2cScalarType t) {
  const Type *ty = type_of_scalar(t);
  return ty ? ty->name : NULL;
}

bool p2c_type_spelling(size_t i, const char **name, const char **canonical, bool *numba) {
  const Type *ty;
  if (!type_spelling(i, name, &ty, numba)) return false;
  *canonical = ty->name;
  return true;
}

bool p2c_dtype_charseq(P2cScalarType t, bool *unicode, int64_t *chars) {
  return type_dtype_charseq(t, unicode, chars);
}

bool p2c_dtype_parse_charseq(const char *text, size_t len, P2cScalarType *out) {
  bool unicode;
  int64_t chars;
  if (!text || !out || !type_charseq_parse(text, len, &unicode, &chars)) return false;
  *out = unicode ? P2C_UNICHARSEQ(chars) : P2C_CHARSEQ(chars);
  return true;
}

bool p2c_dtype_parse(const char *text, size_t len, P2cScalarType *out, bool *swapped) {
  bool swap = false;
  if (!text || !out || type_dtype_parse(text, len, out, &swap) != DTYPE_OK) return false;
  if (swapped) *swapped = swap;
  return true;
}

size_t p2c_dtype_str(P2cScalarType t, char *buf, size_t cap) { return type_dtype_str(t, buf, cap); }

size_t p2c_dtype_size(P2cScalarType t, const P2cRecord *record) {
  if (t == P2C_RECORD) return record && record->itemsize > 0 ? (size_t)record->itemsize : 0;
  bool unicode;
  int64_t chars;
  if (p2c_dtype_charseq(t, &unicode, &chars)) return (size_t)chars * (unicode ? 4 : 1);
  return p2c_scalar_size(t);
}

size_t p2c_record_name(const P2cRecord *record, char *buf, size_t cap) {
  return type_record_spell(buf, cap, record);
}

bool p2c_record_equal(const P2cRecord *a, const P2cRecord *b) {
  if (!a || !b || a->itemsize != b->itemsize || a->field_count != b->field_count) return false;
  for (size_t i = 0; i < a->field_count; i++) {
    const P2cRecordField *x = &a->fields[i], *y = &b->fields[i];
    if (strcmp(x->name, y->name) != 0 || x->type != y->type || x->offset != y->offset || x->ndim != y->ndim ||
        memcmp(x->shape, y->shape, sizeof x->shape[0] * (size_t)(x->ndim > 0 ? x->ndim : 0)) != 0)
      return false;
  }
  return true;
}

uint16_t p2c_float16_bits(double v) {
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  if (isnan(v)) return 0x7e00;
  double a = fabs(v);
  int e;
  frexp(a, &e);
  int step = e - 11 < -24 ? -24 : e - 11;   /* the float16 spacing near a */
  double q = ldexp(a, -step), r = floor(q), frac = q - r;
  if (frac > 0.5 || (frac == 0.5 && fmod(r, 2) != 0)) r += 1;
  double x = ldexp(r, step);
  if (x >= 65520.0 || isinf(a)) return sign | 0x7c00;
  if (x < ldexp(1.0, -14)) return (uint16_t)(sign | (uint16_t)r);
  int xe;
  frexp(x, &xe);
  return (uint16_t)(sign | ((xe + 14) << 10) | ((unsigned)ldexp(x, 11 - xe) & 0x3ff));
}

double p2c_float16_value(uint16_t bits) {
  int e = (bits >> 10) & 0x1f, m = bits & 0x3ff;
  double v = e == 0 ? ldexp((double)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp((double)(m | 0x400), e - 25);
  return (bits & 0x8000) ? -v : v;
}

size_t p2c_array_arg_size(int ndim) { return 8 + 16 * (size_t)ndim; }

P2cStatus api_fail(P2cCompiler *c, P2cStatus s, const char *fmt, ...) {
  c->has_failure = c->has_findings = false;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->last_error, sizeof c->last_error, fmt, ap);
  va_end(ap);
  return s;
}

P2cStatus api_fail_bounds(P2cCompiler *c, const P2cBoundsRecord *r, const char *file, const char *kernel,
                          bool host) {
  char msg[1024];
  bounds_format(r, file, kernel, host, msg, sizeof msg);
  api_fail(c, P2C_ERR_BOUNDS, "%s", msg);
  P2cLaunchFailure *f = &c->failure;
  memset(f, 0, sizeof *f);
  f->raised = r->ndim == 0;
  if (f->raised) {   /* the exception's text is in the bytes of index and shape; not trusted */
    size_t n = sizeof r->index + sizeof r->shape < sizeof f->exception ? sizeof r->index + sizeof r->shape
                                                                         : sizeof f->exception;
    memcpy(f->exception, r->index, n - 1);
  }
  snprintf(f->file, sizeof f->file, "%s", file ? file : "<source>");
  snprintf(f->kernel, sizeof f->kernel, "%s", kernel ? kernel : "");
  f->line = r->line, f->column = r->column;
  memcpy(f->thread, r->thread, sizeof f->thread);
  memcpy(f->block, r->block, sizeof f->block);
  c->has_failure = true;
  return P2C_ERR_BOUNDS;
}

P2cStatus api_fail_fault(P2cCompiler *c, const char *message, const char *file, const char *kernel,
                         uint32_t line) {
  api_fail(c, P2C_ERR_ILLEGAL_ADDRESS, "simulator: %s", message);
  P2cLaunchFailure *f = &c->failure;
  memset(f, 0, sizeof *f);
  snprintf(f->file, sizeof f->file, "%s", file ? file : "<source>");
  snprintf(f->kernel, sizeof f->kernel, "%s", kernel ? kernel : "");
  f->line = line;
  c->has_failure = true;
  return P2C_ERR_ILLEGAL_ADDRESS;
}

bool p2c_compiler_last_failure(const P2cCompiler *c, P2cLaunchFailure *out) {
  if (!c || !out || !c->has_failure) return false;
  *out = c->failure;
  return true;
}

/* ---- compiler ---- */

P2cCompiler *p2c_compiler_new(const P2cAllocator *allocator) {
  const P2cAllocator *a = allocator ? allocator : mem_default();
  P2cCompiler *c = mem_alloc(a, sizeof *c);
  if (!c) return NULL;
  memset(c, 0, sizeof *c);
  c->alloc = *a;
  const char *san = getenv("PYK2CUDA_SANITIZE");   /* for programs that cannot pass the option */
  c->sanitize = san && san[0] && strcmp(san, "0") != 0;
  const char *fibers = getenv("PYK2CUDA_SIM_FIBERS");   /* a way back, and the benchmarks' baseline */
  c->sim_fibers = fibers && fibers[0] && strcmp(fibers, "0") != 0;
  return c;
}

void p2c_compiler_delete(P2cCompiler *c) {
  if (c) mem_free(&c->alloc, c, sizeof *c);
}

const char *p2c_compiler_last_error(const P2cCompiler *c) { return c ? c->last_error : ""; }

void p2c_compiler_set_check_bounds(P2cCompiler *c, bool on) {
  if (c) c->check_bounds = on;
}

void p2c_compiler_set_sanitize(P2cCompiler *c, bool on) {
  if (c) c->sanitize = on;
}

bool p2c_compiler_get_sanitize(const P2cCompiler *c) { return c && c->sanitize; }

void p2c_compiler_set_cache(P2cCompiler *c, bool on) {
  if (c) c->no_cache = !on;
}

void p2c_compiler_set_host_call_signatures(P2cCompiler *c, bool on) {
  if (c) c->host_call_signatures = on;
}

bool p2c_cache_folder(char *out, size_t cap) {
  char root[CACHE_PATH_BYTES];
  if (!out || !cache_root(NULL, root) || strlen(root) >= cap) return false;
  memcpy(out, root, strlen(root) + 1);
  return true;
}

void p2c_compiler_set_interrupt(P2cCompiler *c, P2cInterruptFn check, void *userdata) {
  if (!c) return;
  c->interrupt = check;
  c->interrupt_userdata = check ? userdata : NULL;
}

/* ---- module ---- */

static P2cModule *module_new(P2cCompiler *c) {
  P2cModule *m = mem_alloc(&c->alloc, sizeof *m);
  if (!m) return NULL;
  memset(m, 0, sizeof *m);
  m->alloc = c->alloc;
  arena_init(&m->comp.arena, &m->alloc);
  return m;
}

void p2c_module_delete(P2cModule *m) {
  if (!m) return;
  host_tier_delete(m);
  sim_module_delete(m->sim);
  rtc_result_free(&m->rtc);
  arena_free(&m->comp.arena);
  P2cAllocator a = m->alloc;
  mem_free(&a, m, sizeof *m);
}

/* "--sig" strings: "name(types)" or "name:void(types)"; split into kernel and signature. */
static bool split_sigs(P2cCompiler *c, Arena *a, const P2cTranslateOptions *o, ExtraSig **out,
                       size_t *n) {
  *n = o ? o->signature_count : 0;
  *out = arena_alloc(a, sizeof **out * (*n ? *n : 1));
  for (size_t i = 0; i < *n; i++) {
    const char *s = o->signatures[i];
    const char *colon = strchr(s, ':'), *paren = strchr(s, '(');
    const char *end = colon && (!paren || colon < paren) ? colon : paren;
    if (!end || end == s) {
      api_fail(c, P2C_ERR_USAGE, "malformed --sig '%s': expected NAME(TYPES), e.g. 'add(float32[:], int64)'", s);
      return false;
    }
    (*out)[i].kernel = arena_strndup(a, s, (size_t)(end - s));
    const char *text = end == colon ? colon + 1 : paren;
    (*out)[i].text = text;
    (*out)[i].len = strlen(text);
  }
  return true;
}

/* Whether f is something the host calls, launches or links to: a kernel, a ufunc, a @jit
 * function, or an exported device function. */
static bool is_entry(const Function *f) { return f->kind != FN_DEVICE || f->host_jit || f->exported; }

/* Each name of the translation's kernels must be an entry or a device function; a device
 * function named there is exported (Function.exported: compile_ptx(device=True)). */
static bool check_kernel_names(P2cCompiler *c, Module *mod, const P2cTranslateOptions *o) {
  for (size_t i = 0; o && i < o->kernel_count; i++) {
    bool found = false;
    for (size_t j = 0; j < mod->funcs.len; j++) {
      Function *f = mod->funcs.items[j];
      if (strcmp(f->name, o->kernels[i]) != 0) continue;
      if (f->kind == FN_DEVICE && !f->host_jit) f->exported = true;
      found = true;
    }
    if (!found) {
      api_fail(c, P2C_ERR_USAGE, "no kernel named '%s' in the source", o->kernels[i]);
      return false;
    }
  }
  return true;
}

/* "a, b, c": the parameter names of f, for messages. */
static void param_list(const Function *f, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; i < f->nparams && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", f->vars[i].name);
}

/* p2c_specialize's translation: the argument count is the caller's (a usage error, not one in
 * the source), and a kernel with declared signatures gets no new one from its arguments. */
static bool check_specialization(P2cCompiler *c, const Module *mod, const P2cTranslateOptions *o,
                                 size_t *nsigs) {
  if (!c->specializing || !o || o->kernel_count != 1) return true;
  for (size_t j = 0; j < mod->funcs.len; j++) {
    const Function *f = mod->funcs.items[j];
    if (!is_entry(f) || strcmp(f->name, o->kernels[0]) != 0) continue;
    if ((size_t)f->nparams != c->specialize_nargs) {
      char names[512];
      param_list(f, names, sizeof names);
      api_fail(c, P2C_ERR_USAGE, "kernel '%s' takes %d argument%s (%s); %zu given", f->name,
               f->nparams, f->nparams == 1 ? "" : "s", names, c->specialize_nargs);
      return false;
    }
    if (f->nsigs > 0 && *nsigs > 0) --*nsigs;   /* the launch signature is the last one */
  }
  return true;
}

/* P2cKernelInfo.launch_bound_threads of a kernel: its launch_bounds='s first figure, or 0. */
static uint32_t launch_bound_threads(const Function *f) {
  return f->nlaunch_bounds ? (uint32_t)f->launch_bounds[0] : 0;
}

/* The module's P2cKernelInfo: its kernels, then its exported device functions. */
static void fill_kernel_infos(P2cModule *m) {
  int n = m->cg.nkernels + m->cg.nexports;
  m->kernels = arena_alloc(&m->comp.arena, sizeof *m->kernels * (size_t)(n ? n : 1));
  m->nkernel_infos = (size_t)n;
  for (int i = 0; i < n; i++) {
    const KernelDesc *k = i < m->cg.nkernels ? &m->cg.kernels[i] : &m->cg.exports[i - m->cg.nkernels];
    size_t nparams = (size_t)k->nparams - (k->has_result ? 1 : 0);   /* the result is not an argument */
    m->kernels[i] = (P2cKernelInfo){k->spec->generic->name, k->symbol, k->signature,
                                    nparams, k->params, k->spec->uses_barrier,
                                    k->static_shared_bytes, k->is_ufunc, k->spec->cooperative,
                                    k->spec->generic->nsigs > 0, m->check_bounds, k->is_host,
                                    k->has_result ? &k->result_type : NULL, k->result_arrays,
                                    k->result_owners, k->result_bytes, k->is_export,
                                    launch_bound_threads(k->spec->generic)};
  }
}

/* "k1, k2" of the module's functions of one kind (kernels and ufuncs, or device functions). */
static int list_functions(const Module *mod, bool kernels, char *buf, size_t cap) {
  size_t n = 0;
  int count = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < mod->funcs.len; i++) {
    const Function *f = mod->funcs.items[i];
    if (is_entry(f) != kernels) continue;
    if (n < cap) n += (size_t)snprintf(buf + n, cap - n, "%s%s", count ? ", " : "", f->name);
    count++;
  }
  return count;
}

/* Notes on what the file holds beside its kernels: none at all, or host code, which is never
 * run (a script written for numba.cuda launches its kernels from there). */
static void note_module(Compilation *comp, const Module *mod) {
  char kernels[256], devices[256];
  int nk = list_functions(mod, true, kernels, sizeof kernels);
  int nd = list_functions(mod, false, devices, sizeof devices);
  if (nk == 0)
    diag_note(comp, (Loc){1, 1}, "no kernel in this file: a kernel is a function decorated with "
              "@cuda.jit or @vectorize(..., target='cuda')");
  if (mod->host_code.line && nk)
    diag_note(comp, mod->host_code, "host code is not run: pyk2cuda translates the kernels (%s)%s%s%s "
              "and ignores the module's other statements", kernels, nd ? " and device functions (" : "",
              nd ? devices : "", nd ? ")" : "");
  else if (mod->host_code.line)
    diag_note(comp, mod->host_code, "host code is not run: pyk2cuda translates kernels and device "
              "functions only");
}

/* Whether the options keep kernel `name` (every kernel when they name none). */
static bool kernel_wanted(const P2cTranslateOptions *o, const char *name) {
  if (!o || o->kernel_count == 0) return true;
  for (size_t j = 0; j < o->kernel_count; j++)
    if (strcmp(o->kernels[j], name) == 0) return true;
  return false;
}

/* `check` (skip_unsigned_kernels) types only kernels with signatures: each other one gets a note
 * that its types were not checked. */
static void note_untyped_kernels(Compilation *comp, const Module *mod, const P2cTranslateOptions *o,
                                 const ExtraSig *sigs, size_t nsigs) {
  if (!o || !o->skip_unsigned_kernels) return;
  for (size_t i = 0; i < mod->funcs.len; i++) {
    const Function *f = mod->funcs.items[i];
    bool signed_ = f->kind == FN_DEVICE || f->nsigs > 0;
    for (size_t j = 0; j < nsigs && !signed_; j++) signed_ = strcmp(sigs[j].kernel, f->name) == 0;
    if (!signed_ && kernel_wanted(o, f->name))
      diag_note(comp, f->loc, "kernel '%s' has no signature: its statements, names, returns, builtin calls, array shapes and recursion were "
                "checked, its types were not; give --sig to check them, e.g. --sig '%s' (guessed "
                "from how the parameters are used)", f->name, typeinfer_sig_hint(&comp->arena, f));
  }
}

/* CUDA's kernel parameter space from sm_70 and CUDA 12.1 on. Past it NVRTC fails with a line of
 * the generated code; the parameters are the user's, so the limit is reported at the def. */
enum { PARAM_SPACE_BYTES = 32764 };

/* The bytes of a kernel's parameters as docs/generated-code.md lays them out: each parameter
 * at the next multiple of its alignment (P2cParam.size and .align, from codegen). */
static size_t param_bytes(const KernelDesc *k) {
  size_t at = 0;
  for (int i = 0; i < k->nparams; i++) {
    const P2cParam *p = &k->params[i];
    at = (at + p->align - 1) / p->align * p->align + p->size;
  }
  return at;
}

static bool check_param_space(Compilation *comp, const CodegenResult *cg) {
  bool ok = true;
  for (int i = 0; i < cg->nkernels; i++) {
    const KernelDesc *k = &cg->kernels[i];
    size_t bytes = param_bytes(k);
    if (bytes <= PARAM_SPACE_BYTES) continue;
    diag_error(comp, k->spec->generic->loc, "E-param-space",
               "the %d parameters of kernel '%s' take %zu bytes; CUDA's limit is %d bytes (an "
               "array takes 8 bytes and 16 per dimension)", k->nparams, k->spec->generic->name, bytes,
               PARAM_SPACE_BYTES);
    ok = false;
  }
  return ok;
}

/* After a phase, in builds with assertions (the default build and the tests): the AST has the
 * shape the next phase relies on (frontend/verify.c). */
static bool verified(Compilation *c, const Module *m, AstStage stage) {
#ifdef NDEBUG
  (void)c, (void)m, (void)stage;
  return true;
#else
  return ast_verify(c, m, stage);
#endif
}

/* The checks translation `o` is made with: its own, and unless they are exact the compiler's
 * defaults (the environment's, the deprecated switches). The one place of the rule that
 * sanitizing implies bounds checking. */
static P2cChecks translation_checks(const P2cCompiler *c, const P2cTranslateOptions *o) {
  P2cChecks k = o ? o->checks : (P2cChecks){0};
  if (!k.exact) {
    k.bounds = k.bounds || c->check_bounds;
    k.sanitize = k.sanitize || c->sanitize;
  }
  k.bounds = k.bounds || k.sanitize;
  return k;
}

/* What the entries' decorators ask of NVRTC (docs/python.md, "Options that change the code"):
 * fastmath=True --use_fast_math (Numba's ftz, prec_div=0, prec_sqrt=0, fma, and the fast
 * float32 math functions), lineinfo=True -lineinfo (and #line directives, so that the PTX's
 * .loc lines are the .py file's), debug=True -G (the debug sections Numba's -g gives), opt=False
 * -Xnvvm=-opt=0 (NVVM's -opt=0, the option Numba gives NVVM; -G implies it, and NVVM refuses
 * -opt twice). NVRTC takes options for a whole program, so an option any entry asks for applies
 * to the module (the Python package translates each kernel on its own). Exported device
 * functions need relocatable code (-rdc=true), or NVRTC would drop them. */
static void code_options(P2cModule *m, bool *line_directives) {
  const FunctionList *lists[] = {&m->an.kernels, &m->an.ufuncs, &m->an.hosts, &m->an.exports};
  bool fast = false, lines = false, debug = false, noopt = false;
  for (size_t l = 0; l < 4; l++)
    for (size_t i = 0; i < lists[l]->len; i++) {
      const Function *g = lists[l]->items[i]->generic ? lists[l]->items[i]->generic : lists[l]->items[i];
      fast |= g->fastmath;
      lines |= g->lineinfo;
      debug |= g->debug;
      noopt |= g->noopt;
    }
  size_t n = 0;
  if (fast) m->nvrtc_options[n++] = "--use_fast_math";
  if (lines) m->nvrtc_options[n++] = "-lineinfo";
  if (debug) m->nvrtc_options[n++] = "-G";
  else if (noopt) m->nvrtc_options[n++] = "-Xnvvm=-opt=0";
  if (m->an.exports.len) m->nvrtc_options[n++] = "-rdc=true";
  m->nvrtc_option_count = n;
  *line_directives = *line_directives || lines || debug;
}

/* The pipeline. Each phase's comment in its header says what it requires and produces. */
/* ---- linked CUDA C ---- */

enum { MAX_LINK_BYTES = 16 << 20 };   /* a larger .cu file is refused */

/* The contents of one linked file (the frontend's LinkFile), read relative to the current
 * directory as Numba opens link= paths; a diagnostic at its link= item when it cannot be read,
 * is too large or holds a NUL byte (the text is compiled as part of the module's CUDA C). */
static void read_link(Compilation *comp, LinkFile *lf) {
  FILE *f = fopen(lf->path, "rb");
  if (!f) {
    diag_error(comp, lf->loc, "E-link", "cannot read '%s', given to link=: %s (a relative path is "
               "read from the current directory, as Numba reads it)", lf->path, strerror(errno));
    return;
  }
  StrBuf sb;
  sb_init(&sb, &comp->arena);
  char chunk[8192];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && sb.len <= MAX_LINK_BYTES) sb_putn(&sb, chunk, n);
  bool failed = ferror(f);
  fclose(f);
  if (failed || sb.len > MAX_LINK_BYTES || memchr(sb_str(&sb), '\0', sb.len))
    diag_error(comp, lf->loc, "E-link", "cannot link '%s': %s", lf->path,
               failed ? "a read error" : sb.len > MAX_LINK_BYTES ? "it is larger than 16 MiB" : "it holds a NUL byte");
  lf->text = sb_str(&sb);
  lf->len = sb.len;
}

/* Reads the files the module links (Module.links); false after a diagnostic. */
static bool read_links(Compilation *comp, Module *mod) {
  for (size_t i = 0; i < mod->links.len; i++)
    if (!mod->links.items[i].text) read_link(comp, &mod->links.items[i]);
  return !diag_has_errors(comp);
}

static P2cStatus run_pipeline(P2cCompiler *c, P2cModule *m, const char *src, size_t len,
                              const P2cTranslateOptions *o) {
  Compilation *comp = &m->comp;
  ExtraSig *sigs;
  size_t nsigs;
  P2cChecks checks = translation_checks(c, o);
  if (!split_sigs(c, &comp->arena, o, &sigs, &nsigs)) return P2C_ERR_USAGE;
  if (!source_prepare(comp, src, len)) return P2C_ERR_SOURCE;
  comp->host_call_signatures = c->host_call_signatures && !c->specializing;
  if (!frontend_run(comp, &m->mod) || !verified(comp, &m->mod, AST_RESOLVED)) return P2C_ERR_SOURCE;
  if (!read_links(comp, &m->mod)) return P2C_ERR_SOURCE;
  m->reached = 1;
  if (!check_kernel_names(c, &m->mod, o)) return P2C_ERR_USAGE;
  if (!c->specializing) note_module(comp, &m->mod);
  note_untyped_kernels(comp, &m->mod, o, sigs, nsigs);
  if (!check_specialization(c, &m->mod, o, &nsigs)) return P2C_ERR_USAGE;
  types_init(&m->types, &comp->arena);
  TypeinferOptions tio = {sigs, nsigs, o && o->skip_unsigned_kernels,
                          o && o->kernel_count ? o->kernels : NULL, o ? o->kernel_count : 0};
  bool typed = typeinfer_run(comp, &m->mod, &m->types, &tio) && verified(comp, &m->mod, AST_TYPED);
  if (typed) m->reached = 2;
  /* `check` only (a launch must not fail on a kernel it does not run) */
  if (o && o->skip_unsigned_kernels && !c->specializing && !o->kernel_count)
    analysis_check_untyped(comp, &m->mod, &m->types);
  if (!typed || diag_has_errors(comp)) return P2C_ERR_SOURCE;
  AnalysisOptions ao = {o && o->kernel_count ? o->kernels : NULL, o ? o->kernel_count : 0,
                        .check_bounds = checks.bounds, .fibers = checks.sanitize || c->sim_fibers};
  analysis_run(comp, &m->mod, &ao, &m->an);
  if (!verified(comp, &m->mod, AST_ANALYSED)) return P2C_ERR_SOURCE;
  m->reached = 3;
  bool line_directives = o && o->line_directives;
  code_options(m, &line_directives);
  CodegenOptions cgo = {.line_directives = line_directives, .sanitize = checks.sanitize};
  if (!codegen_run(comp, &m->mod, &m->an, &cgo, &m->cg)) return P2C_ERR_SOURCE;
  m->reached = 4;
  if (!check_param_space(comp, &m->cg)) return P2C_ERR_SOURCE;
  /* launches read the bounds record: out-of-bounds accesses, and raises checked with debug=True;
   * a checked module whose kernels cannot fail has no record (codegen defines it only where it
   * is written), and its launches have nothing to read */
  m->check_bounds = (m->an.checks_bounds || m->cg.reports_raises) && m->cg.defines_bounds_record;
  m->sanitize = checks.sanitize;
  fill_kernel_infos(m);
  m->ok = true;
  return P2C_OK;
}

P2cStatus p2c_translate(P2cCompiler *c, const char *filename, const char *source, size_t length,
                        const P2cTranslateOptions *options, P2cModule **out) {
  if (!out) return P2C_ERR_USAGE;
  *out = NULL;
  if (!c || (!source && length)) return c ? api_fail(c, P2C_ERR_USAGE, "no source given") : P2C_ERR_USAGE;
  c->last_error[0] = '\0';
  P2cModule *m = module_new(c);
  if (!m) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  jmp_buf oom;
  m->comp.arena.oom = &oom;
  if (setjmp(oom)) {
    m->comp.arena.oom = NULL;
    if (m->comp.release) m->comp.release(m->comp.release_arg);
    p2c_module_delete(m);
    return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  }
  m->comp.file = arena_strdup(&m->comp.arena, filename ? filename : "<input>");
  m->comp.opts = options;
  P2cStatus s = run_pipeline(c, m, source ? source : "", length, options);
  frontend_finish(&m->comp);
  m->comp.arena.oom = NULL;
  if (s == P2C_ERR_SOURCE && !c->last_error[0])
    api_fail(c, s, "%zu error%s in %s", m->comp.error_count, m->comp.error_count == 1 ? "" : "s", m->comp.file);
  if (s != P2C_OK && s != P2C_ERR_SOURCE) {
    p2c_module_delete(m);
    return s;
  }
  *out = m;
  return s;
}

size_t p2c_module_diagnostic_count(const P2cModule *m) { return m ? m->comp.diags.len : 0; }

P2cDiagnostic p2c_module_diagnostic(const P2cModule *m, size_t i) {
  if (!m || i >= m->comp.diags.len) return (P2cDiagnostic){0};
  return m->comp.diags.items[i];
}

const char *p2c_module_cuda(const P2cModule *m, size_t *length) {
  if (!m || !m->ok) {
    if (length) *length = 0;
    return NULL;
  }
  if (length) *length = m->cg.len;
  return m->cg.text;
}

/* The index of a --dump stage printed from the AST (0 ast, 1 types, 2 analysis), or -1. */
static int dump_stage(const char *stage) {
  static const char *const stages[] = {"ast", "types", "analysis"};
  for (int i = 0; stage && i < 3; i++)
    if (strcmp(stage, stages[i]) == 0) return i;
  return -1;
}

/* Prints dump k of m into the module's arena; NULL when out of memory. */
static const char *make_dump(P2cModule *m, int k) {
  jmp_buf oom;
  m->comp.arena.oom = &oom;
  if (setjmp(oom)) {
    m->comp.arena.oom = NULL;
    return NULL;
  }
  StrBuf sb;
  sb_init(&sb, &m->comp.arena);
  if (k < 2) ast_dump(&sb, &m->mod, k == 1);
  else analysis_dump(&sb, &m->an);
  const char *text = sb_str(&sb);
  m->comp.arena.oom = NULL;
  return text;
}

const char *p2c_module_dump(P2cModule *m, const char *stage) {
  if (m && stage && strcmp(stage, "cuda") == 0) return p2c_module_cuda(m, NULL);
  if (m && stage && strcmp(stage, "c") == 0) {   /* the first tier's C form (host_tier.c) */
    const CodegenResult *cf = host_tier_c_form(m);
    return cf ? cf->text : NULL;
  }
  int k = dump_stage(stage);
  if (!m || k < 0 || m->reached <= k) return NULL;   /* the phase did not complete */
  if (!m->dumps[k]) m->dumps[k] = make_dump(m, k);
  return m->dumps[k];
}

size_t p2c_module_kernel_count(const P2cModule *m) { return m && m->ok ? m->nkernel_infos : 0; }

P2cKernelInfo p2c_module_kernel(const P2cModule *m, size_t i) {
  if (!m || !m->ok || i >= m->nkernel_infos) return (P2cKernelInfo){0};
  return m->kernels[i];
}

/* ---- NVRTC ---- */

/* NVRTC names the generated code by the Python file's name, but counts lines of the CUDA C.
 * Every "NAME(LINE): " that starts a line of the log and points into a function body gains the
 * Python position it came from: "NAME:PYLINE: [CUDA C line LINE] ". Returns the new log in
 * alloc's memory (length in *out_len), or NULL when out of memory. */
char *nvrtc_log_with_python_lines(const char *log, const char *name, const uint32_t *python_line,
                                  size_t nlines, const P2cAllocator *alloc, size_t *out_len) {
  size_t name_len = strlen(name), cap = strlen(log) + 1, len = 0;
  char *out = mem_alloc(alloc, cap);
  if (!out) return NULL;
  for (const char *line = log; *line;) {
    const char *eol = strchr(line, '\n');
    size_t n = eol ? (size_t)(eol - line) + 1 : strlen(line);
    char prefix[64] = "";
    const char *rest = line;
    if (strncmp(line, name, name_len) == 0 && line[name_len] == '(') {
      char *end;
      unsigned long l = strtoul(line + name_len + 1, &end, 10);
      if (end[0] == ')' && end[1] == ':' && l >= 1 && l <= nlines && python_line[l - 1]) {
        snprintf(prefix, sizeof prefix, ":%u: [CUDA C line %lu]", python_line[l - 1], l);
        rest = end + 2;
      }
    }
    size_t add = prefix[0] ? name_len + strlen(prefix) + (size_t)(line + n - rest) : n;
    if (len + add + 1 > cap) {
      size_t ncap = (len + add + 1) * 2;
      char *grown = mem_realloc(alloc, out, cap, ncap);
      if (!grown) {
        mem_free(alloc, out, cap);
        return NULL;
      }
      out = grown;
      cap = ncap;
    }
    if (prefix[0]) {
      len += (size_t)sprintf(out + len, "%s%s", name, prefix);
      memcpy(out + len, rest, (size_t)(line + n - rest));
      len += (size_t)(line + n - rest);
    } else {
      memcpy(out + len, line, n);
      len += n;
    }
    line += n;
  }
  out[len] = '\0';
  /* Shrunk to the exact size: RtcResult frees its log by its length. */
  char *exact = mem_realloc(alloc, out, cap, len + 1);
  if (!exact) mem_free(alloc, out, cap);
  *out_len = len;
  return exact;
}

/* Replaces the module's NVRTC log with one that names Python lines; false when out of memory. */
static bool annotate_nvrtc_log(P2cModule *m) {
  size_t len;
  char *log = nvrtc_log_with_python_lines(m->rtc.log, m->comp.file, m->cg.python_line,
                                          m->cg.nlines, m->rtc.alloc, &len);
  if (!log) return false;
  mem_free(m->rtc.alloc, m->rtc.log, m->rtc.log_len + 1);
  m->rtc.log = log;
  m->rtc.log_len = len;
  return true;
}

P2cStatus p2c_module_compile(P2cCompiler *c, P2cModule *m, const char *arch, P2cTarget target) {
  if (!c || !m) return P2C_ERR_USAGE;
  if (!m->ok) return api_fail(c, P2C_ERR_USAGE, "the module has errors; nothing to compile");
  if (m->sanitize)
    return api_fail(c, P2C_ERR_USAGE, "a module translated with --sanitize runs on the simulator only");
  rtc_result_free(&m->rtc);
  RtcRequest req = {.source = m->cg.text, .program_name = m->comp.file, .arch = arch,
                    .target = target, .alloc = &m->alloc, .options = m->nvrtc_options,
                    .option_count = m->nvrtc_option_count};
  RtcCacheOptions cache = {.no_cache = c->no_cache};
  P2cStatus s = rtc_compile_cached(&req, &cache, &m->rtc, &m->rtc_cache_hit);
  if (s == P2C_OK) return s;
  if (s == P2C_ERR_NVRTC && m->rtc.log && !annotate_nvrtc_log(m)) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  return api_fail(c, s, "NVRTC: %s", m->rtc.error);
}

const void *p2c_module_image(const P2cModule *m, size_t *size) {
  if (size) *size = m && m->rtc.image ? m->rtc.image_size : 0;
  return m ? m->rtc.image : NULL;
}

bool p2c_module_image_from_cache(const P2cModule *m) { return m && m->rtc.image && m->rtc_cache_hit; }

const char *p2c_module_nvrtc_log(const P2cModule *m) {
  return m && m->rtc.log ? m->rtc.log : "";
}

/* The translator's reading of a @guvectorize layout, for every front (the Python package's
 * gufuncs schedule calls with its dimension names). */
bool p2c_gufunc_layout(const char *text, size_t len, P2cGufuncLayout *out) {
  return frontend_gufunc_layout(text, len, out);
}
