/* p2c_module_bundle: the files of an ahead-of-time bundle (`pyk2cuda build`, docs/aot.md).
 *
 * A bundle is NAME.h (the C API: an array struct and its helpers, the statuses, memory and one
 * typed launcher per kernel specialization, each documented with its Python signature and line)
 * and NAME.c: a generated preamble, the fixed runtime src/bundle/bundle_rt.c (embedded as text),
 * then the module's CUBIN for each architecture and its PTX as byte arrays, the kernels'
 * parameter tables and the launchers. All specializations are one NVRTC program per
 * architecture (p2c_module_compile). Everything but the header's names is static, and every
 * header name starts with NAME_, so two bundles link into one program. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "codegen/names.h"
#include "runtime/sim/sim.h"
#include "util/buf.h"

extern const char bundle_runtime_text[];
extern const size_t bundle_runtime_size;
extern const char bundle_sim_text[];
extern const size_t bundle_sim_size;

enum { BUNDLE_MAX_KERNELS = 256, BUNDLE_MAX_ARCHS = 16, BUNDLE_MAX_FILES = 3 };

/* One image of the module: a CUBIN for sm_XY, or the PTX of compute_XY. */
typedef struct BundleImage {
  unsigned sm;
  bool ptx;
  const unsigned char *data;
  size_t size;
} BundleImage;

struct P2cBundle {
  P2cAllocator alloc;       /* the compiler's, copied: the bundle may outlive it */
  Arena arena;
  StrBuf files[BUNDLE_MAX_FILES];
  const char *suffixes[BUNDLE_MAX_FILES];
  size_t nfiles;
};

/* What the writers need: the module, its launchable specializations and its images. */
typedef struct BundleCtx {
  P2cBundle *b;
  const P2cModule *m;
  const char *name;
  const KernelDesc *kernels[BUNDLE_MAX_KERNELS];
  const char *launchers[BUNDLE_MAX_KERNELS];
  size_t nkernels;
  BundleImage images[BUNDLE_MAX_ARCHS + 1];
  size_t nimages;
} BundleCtx;

/* The statuses, as NAME.h names them (NAME_ + name) and documents them; bundle_rt.c's P2CB_
 * enum has the same values, which the generated source asserts. */
static const struct {
  const char *name, *doc;
} statuses[] = {
    {"OK", "success"},
    {"ERR_ARGUMENT", "an array of the wrong dtype, ndim or layout, or NULL data"},
    {"ERR_LAUNCH", "a launch configuration over the device's limits; a simulator launch that failed"},
    {"ERR_NO_DEVICE", "no CUDA driver or device, and no simulator part (or PYK2CUDA_DEVICE asks for one missing)"},
    {"ERR_LOAD", "the module did not load: no CUBIN or PTX the device can run"},
    {"ERR_CUDA", "the driver reported an error (the message names it)"},
    {"ERR_MEMORY", "out of device or host memory"},
};

/* ---- Text helpers ------------------------------------------------------------------------- */

/* Text for a C comment: "*" + "/" and control bytes become '?'. */
static void put_comment_text(StrBuf *sb, const char *s) {
  for (; *s; s++) {
    bool closes = s[0] == '*' && s[1] == '/';
    sb_putc(sb, closes || (unsigned char)*s < 0x20 ? '?' : *s);
  }
}

/* A C string literal: quotes, backslashes and non-ASCII bytes escaped (octal, never hex, which
 * would swallow following digits). */
static void put_c_string(StrBuf *sb, const char *s) {
  sb_putc(sb, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') sb_printf(sb, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f || c == '?') sb_printf(sb, "\\%03o", c);
    else sb_putc(sb, (char)c);
  }
  sb_putc(sb, '"');
}

/* Bytes as the initializer of an unsigned char array, 20 a line. */
static void put_bytes(StrBuf *sb, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) sb_printf(sb, "%s%u,", i % 20 ? "" : "\n  ", p[i]);
  sb_puts(sb, "\n");
}

/* The C type of a scalar parameter or array element, NULL for one a bundle launcher does not
 * take. Each has the kernel's layout (docs/aot.md): complex as the header's struct of two
 * (NAME_complex64: C99's float _Complex and std::complex<float> have its layout), float16 as its
 * IEEE binary16 bits, a datetime64 or timedelta64 as its int64 count of units. */
static const char *scalar_ctype(const BundleCtx *x, P2cScalarType t) {
  switch ((int)t) {
  case P2C_BOOL: return "bool";
  case P2C_INT8: return "int8_t";
  case P2C_INT16: return "int16_t";
  case P2C_INT32: return "int32_t";
  case P2C_INT64: return "int64_t";
  case P2C_UINT8: return "uint8_t";
  case P2C_UINT16: return "uint16_t";
  case P2C_UINT32: return "uint32_t";
  case P2C_UINT64: return "uint64_t";
  case P2C_FLOAT32: return "float";
  case P2C_FLOAT64: return "double";
  case P2C_COMPLEX64: return arena_printf(&x->b->arena, "%s_complex64", x->name);
  case P2C_COMPLEX128: return arena_printf(&x->b->arena, "%s_complex128", x->name);
  case P2C_FLOAT16: return "uint16_t";
  default: return (int)t >= P2C_DATETIME64 && (int)t < P2C_SCALAR_TYPE_COUNT ? "int64_t" : NULL;
  }
}

/* Whether t is a datetime64 or timedelta64 type (any unit). */
static bool is_time(P2cScalarType t) { return (int)t >= P2C_DATETIME64 && (int)t < P2C_SCALAR_TYPE_COUNT; }

/* A scalar type's name as part of a C identifier: "FLOAT32", "COMPLEX64", "DATETIME64_ms",
 * "TIMEDELTA64" (the generic unit): the base upper-cased when `upper`, a time unit as NumPy
 * writes it (m is minutes, M months). */
static void put_dtype_ident(StrBuf *sb, P2cScalarType t, bool upper) {
  bool in_unit = false;
  for (const char *s = p2c_scalar_name(t); *s && *s != ']'; s++) {
    if (*s == '[') {
      if (s[1] != ']') sb_putc(sb, '_');
      in_unit = true;
    }
    else sb_putc(sb, upper && !in_unit && *s >= 'a' && *s <= 'z' ? (char)(*s - 32) : *s);
  }
}

/* The short spelling of a type in a launcher's name: f32, i64, u8, b, c64, f16, M8s (a
 * datetime64[s], NumPy's character), m8ms (a timedelta64[ms]); an array adds its layout and
 * ndim (f32c1, i32a2). */
static void put_type_code(StrBuf *sb, const P2cParam *p) {
  if (p->type == P2C_TUPLE) {   /* t, the element count, the elements' codes: t2i32f64 */
    sb_printf(sb, "t%zu", p->elem_count);
    for (size_t i = 0; i < p->elem_count; i++) put_type_code(sb, &p->elems[i]);
    return;
  }
  const char *name = p2c_scalar_name(p->type);   /* "float32", "uint8", "bool" */
  if (p->type == P2C_BOOL) sb_putc(sb, 'b');
  else if (is_time(p->type)) {
    const char *unit = strchr(name, '[') + 1;
    sb_printf(sb, "%c8%.*s", name[0] == 'd' ? 'M' : 'm', (int)strcspn(unit, "]"), unit);
  }
  else if (!strncmp(name, "complex", 7)) sb_printf(sb, "c%s", name + 7);
  else if (!strncmp(name, "float", 5)) sb_printf(sb, "f%s", name + 5);
  else if (!strncmp(name, "uint", 4)) sb_printf(sb, "u%s", name + 4);
  else sb_printf(sb, "i%s", name + 3);
  if (p->is_array) sb_printf(sb, "%c%d", p->layout == 'C' ? 'c' : p->layout == 'F' ? 'f' : 'a', p->ndim);
}

/* The header's struct for a tuple of scalars: NAME_tuple_ + its elements' codes, "_" between. */
static const char *tuple_ctype(const BundleCtx *x, const P2cParam *p) {
  StrBuf sb;
  sb_init(&sb, &x->b->arena);
  sb_printf(&sb, "%s_tuple", x->name);
  for (size_t i = 0; i < p->elem_count; i++) sb_putc(&sb, '_'), put_type_code(&sb, &p->elems[i]);
  return sb_str(&sb);
}

/* A scalar or tuple parameter's C type (an array's is NAME_array). */
static const char *param_ctype(const BundleCtx *x, const P2cParam *p) {
  return p->type == P2C_TUPLE ? tuple_ctype(x, p) : scalar_ctype(x, p->type);
}

static bool is_c_identifier(const char *s) {
  if (!s[0] || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_')) return false;
  for (; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return false;
  return true;
}

/* "vecadd(int32[::1], ...)": the Python name and the signature's argument list; a ufunc's whole
 * scalar signature, "add float32(float32, float32)" (its kernel's parameters are views). */
static const char *python_signature(Arena *a, const KernelDesc *k) {
  if (k->is_ufunc) return arena_printf(a, "%s %s", k->spec->generic->name, k->signature);
  const char *args = strchr(k->signature, '(');
  return arena_printf(a, "%s%s", k->spec->generic->name, args ? args : "()");
}

/* ---- Checks --------------------------------------------------------------------------------- */

/* Why parameter p cannot be a bundle launcher's argument and what to do instead, or NULL. */
static const char *param_refusal(const BundleCtx *x, const P2cParam *p) {
  for (size_t i = 0; p->type == P2C_TUPLE && i < p->elem_count; i++) {
    const P2cParam *e = &p->elems[i];
    if (e->is_array || e->type == P2C_TUPLE || e->enum_class || !scalar_ctype(x, e->type))
      return "a tuple holding arrays, tuples, records or enum members, which bundle launchers do not "
             "take yet (they take tuples of numbers): give the kernel its elements as parameters of "
             "their own";
  }
  if (p->type == P2C_TUPLE) return NULL;   /* the header's struct of its elements */
  if (p->type == P2C_RECORD)
    return p->is_array ? "an array of records (a structured dtype), which bundle launchers do not take yet: "
                         "give the kernel one array per field"
                       : "a record, which bundle launchers do not take yet: give the kernel its fields as "
                         "parameters of their own";
  if (p->enum_class) return NULL;   /* passed as its value */
  if (!scalar_ctype(x, p->type))
    return p->is_array ? "an array of character sequences, which bundle launchers do not take: give the "
                         "kernel an array of uint8 (or uint32 for Unicode) code units"
                       : "a value of a type bundle launchers do not take";
  return NULL;
}

/* The module's kernels that go into the bundle (host entries of @jit functions are left out);
 * P2C_ERR_USAGE for what a bundle cannot launch yet. */
static P2cStatus collect_kernels(P2cCompiler *c, BundleCtx *x) {
  const P2cModule *m = x->m;
  if (m->sanitize)
    return api_fail(c, P2C_ERR_USAGE, "a bundle's kernels cannot run under the simulator's checker "
                                      "(translate without --sanitize)");
  for (int i = 0; i < m->cg.nkernels; i++) {
    const KernelDesc *k = &m->cg.kernels[i];
    if (k->is_host) continue;
    if (m->kernels[i].checks_bounds)
      return api_fail(c, P2C_ERR_USAGE, "%s cannot check bounds or report raises in a bundle yet "
                      "(debug=True, boundscheck=True or --check-bounds): bundles do not read the "
                      "failure record, so its failures would go unreported; build it without those "
                      "(and find the failures first with pyk2cuda run --check-bounds or --sanitize)",
                      k->spec->generic->name);
    for (int j = 0; j < k->nparams; j++) {
      const char *why = param_refusal(x, &k->params[j]);
      if (why)
        return api_fail(c, P2C_ERR_USAGE, "%s: parameter '%s' is %s (bundle launchers take numbers, "
                        "bools, complex, float16, datetimes, arrays and tuples of them; docs/aot.md)",
                        python_signature(&x->b->arena, k), k->params[j].name, why);
    }
    if (x->nkernels == BUNDLE_MAX_KERNELS)
      return api_fail(c, P2C_ERR_USAGE, "more than %d kernel specializations in one bundle", BUNDLE_MAX_KERNELS);
    x->kernels[x->nkernels++] = k;
  }
  if (!x->nkernels) return api_fail(c, P2C_ERR_USAGE, "no kernel to put in the bundle");
  return P2C_OK;
}

/* XY of "sm_XY" (two or three digits), or 0. */
static unsigned parse_arch(const char *arch) {
  if (strncmp(arch, "sm_", 3) != 0) return 0;
  unsigned v = 0;
  size_t n = 0;
  for (const char *p = arch + 3; *p; p++, n++) {
    if (*p < '0' || *p > '9') return 0;
    v = v * 10 + (unsigned)(*p - '0');
  }
  return n >= 2 && n <= 3 ? v : 0;
}

/* Compiles the module once per architecture to a CUBIN, and once to the PTX of the oldest
 * one (which the driver compiles for any newer GPU); keeps copies of the images. */
static P2cStatus compile_images(P2cCompiler *c, P2cModule *m, const P2cBundleOptions *o, BundleCtx *x) {
  static const char *const default_arch[] = {"sm_90"};
  const char *const *archs = o->arch_count ? o->archs : default_arch;
  size_t narchs = o->arch_count ? o->arch_count : 1;
  if (narchs > BUNDLE_MAX_ARCHS) return api_fail(c, P2C_ERR_USAGE, "more than %d architectures", BUNDLE_MAX_ARCHS);
  const char *oldest = NULL;
  for (size_t i = 0; i < narchs; i++) {
    unsigned sm = parse_arch(archs[i]);
    if (!sm) return api_fail(c, P2C_ERR_USAGE, "bad architecture '%s': expected sm_XY, e.g. sm_90", archs[i]);
    for (size_t j = 0; j < x->nimages; j++)
      if (x->images[j].sm == sm) return api_fail(c, P2C_ERR_USAGE, "architecture %s given twice", archs[i]);
    P2cStatus s = p2c_module_compile(c, m, archs[i], P2C_TARGET_CUBIN);
    if (s != P2C_OK) return s;
    x->images[x->nimages++] = (BundleImage){sm, false, arena_dup(&x->b->arena, m->rtc.image, m->rtc.image_size),
                                            m->rtc.image_size};
    if (!oldest || sm < parse_arch(oldest)) oldest = archs[i];
  }
  P2cStatus s = p2c_module_compile(c, m, oldest, P2C_TARGET_PTX);
  if (s != P2C_OK) return s;
  x->images[x->nimages++] = (BundleImage){parse_arch(oldest), true,
                                          arena_dup(&x->b->arena, m->rtc.image, m->rtc.image_size + 1),
                                          m->rtc.image_size + 1};   /* the PTX's NUL too */
  return P2C_OK;
}

/* Each specialization's launcher name: NAME_ + the Python name (the C symbol when the Python
 * name is not plain ASCII) + "__" + its types' codes (a ufunc's: its inputs' element types). */
static P2cStatus name_launchers(P2cCompiler *c, BundleCtx *x) {
  for (size_t i = 0; i < x->nkernels; i++) {
    const KernelDesc *k = x->kernels[i];
    StrBuf sb;
    sb_init(&sb, &x->b->arena);
    const char *base = is_c_identifier(k->spec->generic->name) ? k->spec->generic->name : k->symbol;
    sb_printf(&sb, "%s_%s_", x->name, base);
    for (int j = 0; j < k->nparams - (k->is_ufunc ? 1 : 0); j++) {
      P2cParam p = k->params[j];
      p.is_array &= !k->is_ufunc;   /* a ufunc's inputs are named by their element types */
      sb_putc(&sb, '_'), put_type_code(&sb, &p);
    }
    x->launchers[i] = sb_str(&sb);
    for (size_t j = 0; j < i; j++)
      if (!strcmp(x->launchers[j], x->launchers[i]))
        return api_fail(c, P2C_ERR_USAGE, "%s is given twice", python_signature(&x->b->arena, k));
  }
  return P2C_OK;
}

/* ---- NAME.h ------------------------------------------------------------------------------- */

/* The launcher's parameter list, the Python names made safe as C names (namer_claim). */
static void put_launcher_params(StrBuf *sb, BundleCtx *x, const KernelDesc *k, const char **names) {
  Namer namer;
  namer_init(&namer, &x->b->arena, NULL);
  if (k->is_ufunc) sb_puts(sb, "void *p2c_stream, int64_t p2c_n");
  else sb_printf(sb, "void *p2c_stream, %s_dim3 p2c_grid, %s_dim3 p2c_block, unsigned p2c_shared", x->name, x->name);
  for (int j = 0; j < k->nparams; j++) {
    const P2cParam *p = &k->params[j];
    names[j] = namer_claim(&namer, p->name);
    if (k->is_ufunc)   /* inputs read-only, the last parameter the output */
      sb_printf(sb, ",\n    %s%s *%s", j < k->nparams - 1 ? "const " : "", scalar_ctype(x, p->type), names[j]);
    else if (p->is_array) sb_printf(sb, ",\n    %s_array %s", x->name, names[j]);
    else sb_printf(sb, ",\n    %s %s", param_ctype(x, p), names[j]);
  }
}

/* A line for each parameter whose C type does not say its Python type (float16 bits, time
 * counts): "'t': datetime64[s] elements, int64_t counts of s". */
static void put_param_notes(StrBuf *sb, const KernelDesc *k) {
  for (int j = 0; j < k->nparams; j++) {
    const P2cParam *p = &k->params[j];
    if (p->type != P2C_FLOAT16 && !is_time(p->type)) continue;
    sb_puts(sb, "\n * '"), put_comment_text(sb, p->name);
    sb_printf(sb, "': %s%s, ", p2c_scalar_name(p->type), p->is_array ? " elements" : "");
    if (p->type == P2C_FLOAT16) sb_puts(sb, "uint16_t IEEE binary16 bits");
    else {
      const char *unit = strchr(p2c_scalar_name(p->type), '[') + 1;
      sb_printf(sb, "int64_t counts of %s%.*s", *unit == ']' ? "(generic) units" : "",
                (int)strcspn(unit, "]"), unit);
      if (p->type < P2C_TIMEDELTA64) sb_puts(sb, " since 1970-01-01");
      sb_puts(sb, " (INT64_MIN: NaT)");
    }
  }
}

static void put_launcher_doc(StrBuf *sb, BundleCtx *x, const KernelDesc *k) {
  sb_puts(sb, "/* ");
  put_comment_text(sb, python_signature(&x->b->arena, k));
  sb_puts(sb, ", ");
  put_comment_text(sb, x->m->comp.file);
  sb_printf(sb, ":%u.", k->spec->generic->loc.line);
  if (k->spec->cooperative) sb_puts(sb, " Launched cooperatively (a grid sync).");
  put_param_notes(sb, k);
  if (k->is_ufunc)
    sb_puts(sb, "\n * A @vectorize ufunc over n elements: out[i] = f(inputs[i]...), each pointer n elements\n"
                " * of its type (device memory on a GPU); the grid is the launcher's choice.");
  sb_puts(sb, " */\n");
}

static void write_header_types(StrBuf *sb, const char *n) {
  sb_printf(sb, "typedef enum %s_status {\n", n);
  for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++)
    sb_printf(sb, "  %s_%s = %zu,%*s/* %s */\n", n, statuses[i].name, i,
              (int)(14 - strlen(statuses[i].name)), "", statuses[i].doc);
  sb_printf(sb, "} %s_status;\n\n", n);
  sb_puts(sb, "/* An array's element type (the values of pyk2cuda's P2cScalarType). */\n");
  sb_printf(sb, "typedef enum %s_dtype {\n", n);
  for (int t = P2C_BOOL; t < P2C_SCALAR_TYPE_COUNT; t++) {
    sb_printf(sb, "  %s_", n);
    put_dtype_ident(sb, (P2cScalarType)t, true);
    sb_printf(sb, " = %d,\n", t);
  }
  sb_printf(sb, "} %s_dtype;\n\n", n);
  sb_puts(sb, "/* complex64 and complex128 values (scalars, array elements): the real part, then the imaginary\n"
              " * part, as NumPy stores them; C99's float _Complex and C++'s std::complex<float> have this\n"
              " * layout too. float16 is passed as its IEEE binary16 bits (uint16_t); datetime64[unit] and\n"
              " * timedelta64[unit] as int64_t counts of the unit (since 1970-01-01 for a datetime; INT64_MIN\n"
              " * is NaT), the unit named in each launcher's comment. */\n");
  sb_printf(sb, "typedef struct %s_complex64 {\n  float re, im;\n} %s_complex64;\n", n, n);
  sb_printf(sb, "typedef struct %s_complex128 {\n  double re, im;\n} %s_complex128;\n\n", n, n);
  sb_puts(sb, "/* An array argument: data (device memory on a GPU, e.g. from the _malloc below), its element\n"
              " * type, extents, and strides in bytes (NumPy's convention). Make one with the helpers. */\n");
  sb_printf(sb, "typedef struct %s_array {\n  void *data;\n  int dtype;  /* %s_dtype */\n  int ndim;\n"
                "  int64_t shape[%d];\n  int64_t strides[%d];\n} %s_array;\n\n",
            n, n, P2C_MAX_NDIM, P2C_MAX_NDIM, n);
  sb_printf(sb, "typedef struct %s_dim3 {\n  unsigned x, y, z;\n} %s_dim3;\n\n", n, n);
}

static void write_header_functions(StrBuf *sb, const char *n) {
  sb_printf(sb, "/* A C-contiguous array of `ndim` extents `shape` over `data` (strides computed). */\n"
                "%s_array %s_array_c(void *data, %s_dtype dtype, int ndim, const int64_t *shape);\n", n, n, n);
  sb_printf(sb, "/* An array with the given strides in bytes. */\n"
                "%s_array %s_array_strided(void *data, %s_dtype dtype, int ndim, const int64_t *shape,\n"
                "    const int64_t *strides);\n", n, n, n);
  sb_printf(sb, "/* A launch configuration's extents. */\n%s_dim3 %s_dim3_of(unsigned x, unsigned y, unsigned z);\n\n", n, n);
  sb_printf(sb, "/* Why the calling thread's last call failed (\"\" after none). Thread-local storage, valid\n"
                " * until the thread's next call into this bundle. */\nconst char *%s_last_error(void);\n", n);
  sb_printf(sb, "/* Where kernels run: \"gpu\", \"sim\" (the simulator part) or \"none\". The first call into the\n"
                " * bundle decides it (docs/aot.md): PYK2CUDA_DEVICE=gpu|sim forces one; otherwise the GPU when\n"
                " * libcuda ($PYK2CUDA_LIBCUDA, else libcuda.so.1) and a device are there. */\n"
                "const char *%s_backend(void);\n\n", n);
  sb_printf(sb, "/* Memory kernels can use: device memory on the GPU (in its primary context), host memory on\n"
                " * the simulator. Copies wait for the work on the default stream. */\n");
  sb_printf(sb, "%s_status %s_malloc(void **ptr, size_t bytes);\n", n, n);
  sb_printf(sb, "%s_status %s_free(void *ptr);\n", n, n);
  sb_printf(sb, "%s_status %s_upload(void *device_dst, const void *host_src, size_t bytes);\n", n, n);
  sb_printf(sb, "%s_status %s_download(void *host_dst, const void *device_src, size_t bytes);\n", n, n);
  sb_printf(sb, "/* Waits for a stream's work (NULL: all of it); a kernel's failure shows here on a GPU. */\n"
                "%s_status %s_synchronize(void *stream);\n\n", n, n);
}

/* Calls `each` once for every distinct tuple type among the bundle's parameters (the first
 * parameter of that type). */
static void each_tuple_type(BundleCtx *x, StrBuf *sb, void (*each)(BundleCtx *, StrBuf *, const P2cParam *)) {
  for (size_t i = 0; i < x->nkernels; i++)
    for (int j = 0; j < x->kernels[i]->nparams; j++) {
      const P2cParam *p = &x->kernels[i]->params[j];
      if (p->type != P2C_TUPLE) continue;
      const char *name = tuple_ctype(x, p);
      bool seen = false;
      for (size_t a = 0; a <= i && !seen; a++)
        for (int b = 0; b < (a == i ? j : x->kernels[a]->nparams) && !seen; b++)
          seen = x->kernels[a]->params[b].type == P2C_TUPLE && !strcmp(tuple_ctype(x, &x->kernels[a]->params[b]), name);
      if (!seen) each(x, sb, p);
    }
}

/* A tuple's struct in NAME.h: its elements f0, f1, ... in their C types, at the offsets the
 * kernel's parameter has them (NAME.c asserts it: put_tuple_assert). */
static void put_tuple_struct(BundleCtx *x, StrBuf *sb, const P2cParam *p) {
  const char *name = tuple_ctype(x, p);
  sb_puts(sb, "/* A tuple (");
  for (size_t i = 0; i < p->elem_count; i++)
    sb_printf(sb, "%s%s", i ? ", " : "", p2c_scalar_name(p->elems[i].type));
  sb_printf(sb, ") passed by value: element i is f<i>. */\ntypedef struct %s {\n", name);
  for (size_t i = 0; i < p->elem_count; i++)
    sb_printf(sb, "  %s f%zu;\n", scalar_ctype(x, p->elems[i].type), i);
  sb_printf(sb, "} %s;\n\n", name);
}

/* NAME.c's check that the C compiler lays the tuple's struct out as the kernel takes it. */
static void put_tuple_assert(BundleCtx *x, StrBuf *sb, const P2cParam *p) {
  const char *name = tuple_ctype(x, p);
  sb_printf(sb, "_Static_assert(sizeof(%s) == %zu", name, p->size);
  for (size_t i = 0; i < p->elem_count; i++) sb_printf(sb, " && offsetof(%s, f%zu) == %zu", name, i, p->elems[i].offset);
  sb_puts(sb, ", \"the tuple's struct has the kernel's layout\");\n");
}

static void write_header(BundleCtx *x, StrBuf *sb) {
  const char *n = x->name;
  sb_printf(sb, "/* Generated by pyk2cuda %s from ", p2c_version());
  put_comment_text(sb, x->m->comp.file);
  sb_printf(sb, " (pyk2cuda build): do not edit.\n"
                " * The C API of bundle %s: compile %s.c (and %s_sim.cc, when built --with-sim) into your\n"
                " * program; nothing of pyk2cuda, Python or NVRTC is needed at run time (docs/aot.md).\n"
                " * Every launcher takes a stream (NULL: the default stream), the grid and block, the\n"
                " * dynamic shared memory in bytes, then the kernel's arguments, checks them and the\n"
                " * configuration, launches asynchronously and returns a status; %s_last_error says why.",
            n, n, n, n);
  bool ufuncs = false;
  for (size_t i = 0; i < x->nkernels; i++) ufuncs |= x->kernels[i]->is_ufunc;
  if (ufuncs) sb_puts(sb, "\n * A @vectorize ufunc's launcher takes the stream, a count n and pointers instead.");
  sb_puts(sb, " */\n");
  sb_printf(sb, "#ifndef %s_BUNDLE_H\n#define %s_BUNDLE_H\n\n", n, n);
  sb_puts(sb, "#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  write_header_types(sb, n);
  each_tuple_type(x, sb, put_tuple_struct);
  write_header_functions(sb, n);
  for (size_t i = 0; i < x->nkernels; i++) {
    const KernelDesc *k = x->kernels[i];
    const char **names = arena_alloc(&x->b->arena, sizeof *names * (size_t)(k->nparams + 1));
    put_launcher_doc(sb, x, k);
    sb_printf(sb, "%s_status %s(", n, x->launchers[i]);
    put_launcher_params(sb, x, k, names);
    sb_puts(sb, ");\n\n");
  }
  sb_printf(sb, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s_BUNDLE_H */\n", n);
}

/* ---- NAME.c ------------------------------------------------------------------------------- */

static void write_preamble(BundleCtx *x, StrBuf *sb, bool with_sim) {
  const char *n = x->name;
  sb_printf(sb, "/* Generated by pyk2cuda %s from ", p2c_version());
  put_comment_text(sb, x->m->comp.file);
  sb_printf(sb, " (pyk2cuda build): do not edit. Bundle %s's\n"
                " * runtime (pyk2cuda's src/bundle/bundle_rt.c, copied), its module's images and launchers. */\n",
            n);
  sb_printf(sb, "#include \"%s.h\"\n\ntypedef %s_array P2cbArray;\ntypedef %s_dim3 P2cbDim3;\n\n", n, n, n);
  each_tuple_type(x, sb, put_tuple_assert);
  sb_puts(sb, "/* The dtype's name in messages. */\nstatic const char *p2cb_dtype_name(int dtype) {\n  switch (dtype) {\n");
  for (int t = P2C_BOOL; t < P2C_SCALAR_TYPE_COUNT; t++)
    sb_printf(sb, "  case %d: return \"%s\";\n", t, p2c_scalar_name((P2cScalarType)t));
  sb_puts(sb, "  default: return \"an unknown dtype\";\n  }\n}\n\n");
  if (with_sim)
    sb_printf(sb, "int %s_sim_launch(unsigned index, const unsigned grid[3], const unsigned block[3],\n"
                  "    unsigned shared_bytes, void **args, char *err, size_t errlen);  /* %s_sim.cc */\n\n", n, n);
}

static void write_tables(BundleCtx *x, StrBuf *sb, bool with_sim) {
  for (size_t i = 0; i < x->nimages; i++) {
    sb_printf(sb, "/* %s for sm_%u */\nstatic const unsigned char p2cb_image%zu[] = {", x->images[i].ptx ? "PTX" : "CUBIN",
              x->images[i].sm, i);
    put_bytes(sb, x->images[i].data, x->images[i].size);
    sb_puts(sb, "};\n");
  }
  sb_puts(sb, "/* The CUDA C, for the driver stand-in's test hook (tests/standin) only. */\n"
              "static const unsigned char p2cb_source[] = {");
  put_bytes(sb, (const unsigned char *)x->m->cg.text, x->m->cg.len + 1);
  sb_puts(sb, "};\n\nstatic const P2cbImage p2cb_images[] = {\n");
  for (size_t i = 0; i < x->nimages; i++)
    sb_printf(sb, "  {%u, %u, p2cb_image%zu, sizeof p2cb_image%zu},\n", x->images[i].ptx ? 0 : x->images[i].sm,
              x->images[i].ptx ? x->images[i].sm : 0, i, i);
  sb_puts(sb, "};\n\n");
  for (size_t i = 0; i < x->nkernels; i++) {
    const KernelDesc *k = x->kernels[i];
    sb_printf(sb, "static const P2cbParam p2cb_params%zu[] = {\n", i);
    for (int j = 0; j < k->nparams; j++) {
      const P2cParam *p = &k->params[j];
      sb_puts(sb, "  {"), put_c_string(sb, p->name);
      sb_printf(sb, ", %d, %d, %d, '%c', %zu},\n", p->is_array, (int)p->type, p->is_array ? p->ndim : 0,
                p->is_array ? p->layout : 'A', p2c_scalar_size(p->type));
    }
    if (!k->nparams) sb_puts(sb, "  {\"\", 0, 0, 0, 'A', 0},\n");
    sb_puts(sb, "};\n");
  }
  sb_puts(sb, "static const P2cbKernel p2cb_kernels[] = {\n");
  for (size_t i = 0; i < x->nkernels; i++) {
    sb_puts(sb, "  {"), put_c_string(sb, x->kernels[i]->symbol), sb_puts(sb, ", ");
    put_c_string(sb, python_signature(&x->b->arena, x->kernels[i]));
    sb_printf(sb, ", p2cb_params%zu, %d, %d},\n", i, x->kernels[i]->nparams, x->kernels[i]->spec->cooperative);
  }
  sb_printf(sb, "};\n\nstatic const P2cbBundle p2cb_bundle = {\"%s\", p2cb_images, %zu, (const char *)p2cb_source,\n"
                "    sizeof p2cb_source - 1, p2cb_kernels, %zu, %s};\n\n",
            x->name, x->nimages, x->nkernels, with_sim ? arena_printf(&x->b->arena, "%s_sim_launch", x->name) : "NULL");
  for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++)
    sb_printf(sb, "_Static_assert((int)%s_%s == (int)P2CB_%s, \"the statuses of NAME.h and bundle_rt.c agree\");\n",
              x->name, statuses[i].name, statuses[i].name);
  sb_puts(sb, "\n");
}

/* The helpers NAME.h declares, over the runtime's functions. */
static void write_api(BundleCtx *x, StrBuf *sb) {
  const char *n = x->name;
  sb_printf(sb, "%s_array %s_array_strided(void *data, %s_dtype dtype, int ndim, const int64_t *shape,\n"
                "    const int64_t *strides) {\n  %s_array a;\n  memset(&a, 0, sizeof a);\n"
                "  a.data = data, a.dtype = (int)dtype, a.ndim = ndim < 0 ? -1 : ndim > %d ? -1 : ndim;\n"
                "  for (int i = 0; i < a.ndim; i++) a.shape[i] = shape[i], a.strides[i] = strides[i];\n"
                "  return a;\n}\n\n", n, n, n, n, P2C_MAX_NDIM);
  sb_printf(sb, "%s_array %s_array_c(void *data, %s_dtype dtype, int ndim, const int64_t *shape) {\n"
                "  static const unsigned char size[] = {", n, n, n);
  for (int t = P2C_BOOL; t < P2C_SCALAR_TYPE_COUNT; t++) sb_printf(sb, "%zu, ", p2c_scalar_size((P2cScalarType)t));
  sb_printf(sb, "};\n  int64_t strides[%d] = {0};\n  int64_t step = (int)dtype >= 0 && (int)dtype < (int)sizeof size ? size[dtype] : 1;\n"
                "  /* an ndim out of range reads no extent: the array says ndim -1, which every launcher refuses */\n"
                "  for (int i = (ndim < 0 || ndim > %d ? 0 : ndim) - 1; i >= 0; i--) strides[i] = step, step *= shape[i];\n"
                "  return %s_array_strided(data, dtype, ndim, shape, strides);\n}\n\n", P2C_MAX_NDIM, P2C_MAX_NDIM, n);
  sb_printf(sb, "%s_dim3 %s_dim3_of(unsigned x, unsigned y, unsigned z) {\n  %s_dim3 d = {x, y, z};\n  return d;\n}\n\n", n, n, n);
  sb_printf(sb, "const char *%s_last_error(void) { return p2cb_message; }\n", n);
  sb_printf(sb, "const char *%s_backend(void) { return p2cb_backend(); }\n", n);
  sb_printf(sb, "%s_status %s_malloc(void **ptr, size_t bytes) { p2cb_message[0] = 0; return (%s_status)p2cb_malloc(ptr, bytes); }\n", n, n, n);
  sb_printf(sb, "%s_status %s_free(void *ptr) { p2cb_message[0] = 0; return (%s_status)p2cb_free(ptr); }\n", n, n, n);
  sb_printf(sb, "%s_status %s_upload(void *dst, const void *src, size_t bytes) {\n"
                "  p2cb_message[0] = 0;\n  return (%s_status)p2cb_copy(dst, src, bytes, 1);\n}\n", n, n, n);
  sb_printf(sb, "%s_status %s_download(void *dst, const void *src, size_t bytes) {\n"
                "  p2cb_message[0] = 0;\n  return (%s_status)p2cb_copy(dst, src, bytes, 0);\n}\n", n, n, n);
  sb_printf(sb, "%s_status %s_synchronize(void *stream) { p2cb_message[0] = 0; return (%s_status)p2cb_synchronize(stream); }\n\n", n, n, n);
}

/* A ufunc's launcher: its pointers (inputs, then out) and n to p2cb_launch_ufunc, with room for
 * the views (data, extents, strides) the kernel takes. */
static void write_ufunc_launcher(BundleCtx *x, StrBuf *sb, size_t i, const char **names) {
  const KernelDesc *k = x->kernels[i];
  sb_puts(sb, "  const void *p2c_data[] = {");
  for (int j = 0; j < k->nparams; j++) sb_printf(sb, "%s%s", j ? ", " : "", names[j]);
  sb_printf(sb, "};\n  uint64_t p2c_views[%d][%d];\n  void *p2c_args[%d];\n", k->nparams, 1 + 2 * P2C_MAX_NDIM,
            k->nparams);
  sb_printf(sb, "  p2cb_message[0] = 0;\n  return (%s_status)p2cb_launch_ufunc(%zu, p2c_stream, p2c_n, p2c_data, "
                "p2c_views[0], p2c_args);\n}\n\n", x->name, i);
}

/* One launcher: each array checked and packed, scalars by address, then p2cb_launch. */
static void write_launcher(BundleCtx *x, StrBuf *sb, size_t i) {
  const KernelDesc *k = x->kernels[i];
  const char **names = arena_alloc(&x->b->arena, sizeof *names * (size_t)(k->nparams + 1));
  sb_printf(sb, "%s_status %s(", x->name, x->launchers[i]);
  put_launcher_params(sb, x, k, names);
  if (k->is_ufunc) {
    sb_puts(sb, ") {\n");
    write_ufunc_launcher(x, sb, i, names);
    return;
  }
  sb_printf(sb, ") {\n  const P2cbKernel *p2c_k = &p2cb_kernels[%zu];\n  void *p2c_args[%d];\n", i, k->nparams ? k->nparams : 1);
  sb_puts(sb, "  p2cb_message[0] = 0;\n  (void)p2c_k;\n");
  for (int j = 0; j < k->nparams; j++) {
    const P2cParam *p = &k->params[j];
    if (!p->is_array) {
      sb_printf(sb, "  p2c_args[%d] = &%s;\n", j, names[j]);
      continue;
    }
    sb_printf(sb, "  uint64_t p2c_a%d[%d];\n", j, 1 + 2 * p->ndim);
    sb_printf(sb, "  if (p2cb_pack_array(p2c_k, &p2c_k->params[%d], &%s, p2c_a%d) != P2CB_OK) return %s_ERR_ARGUMENT;\n",
              j, names[j], j, x->name);
    sb_printf(sb, "  p2c_args[%d] = p2c_a%d;\n", j, j);
  }
  sb_printf(sb, "  return (%s_status)p2cb_launch(%zu, p2c_grid, p2c_block, p2c_shared, p2c_stream, p2c_args);\n}\n\n",
            x->name, i);
}

static void write_source(BundleCtx *x, StrBuf *sb, bool with_sim) {
  write_preamble(x, sb, with_sim);
  sb_putn(sb, bundle_runtime_text, bundle_runtime_size);
  sb_puts(sb, "\n/* ---- Generated: the module's images, kernels and launchers ---- */\n\n");
  write_tables(x, sb, with_sim);
  write_api(x, sb);
  for (size_t i = 0; i < x->nkernels; i++) write_launcher(x, sb, i);
}

/* ---- NAME_sim.cc ------------------------------------------------------------------------- */

/* The simulator part: the prelude with static entries, bundle_sim.cc, the module's CUDA C with
 * each kernel renamed NAME__k_SYMBOL (its extern "C" inline function would otherwise be one
 * symbol across bundles), then the table of runs and NAME_sim_launch. */
static void write_sim_source(BundleCtx *x, StrBuf *sb) {
  const char *n = x->name;
  sb_printf(sb, "// Generated by pyk2cuda %s from ", p2c_version());
  put_comment_text(sb, x->m->comp.file);
  sb_printf(sb, " (pyk2cuda build --with-sim): do not edit.\n"
                "// Bundle %s's kernels built for the CPU, as pyk2cuda's simulator builds them. Compile as C++17\n"
                "// with the simulator's flags: -O2 -fwrapv -fno-strict-aliasing -ffp-contract=off -fno-math-errno\n"
                "// (docs/aot.md).\n", n);
  sb_puts(sb, "#define P2C_SIM_ENTRY static __attribute__((unused))\n"
              "#pragma GCC diagnostic ignored \"-Wunused-function\"  // the prelude's helpers a module does not use\n\n");
  sb_putn(sb, sim_prelude_text, sim_prelude_size);
  sb_puts(sb, "\n");
  sb_putn(sb, bundle_sim_text, bundle_sim_size);
  sb_puts(sb, "\n// ---- Generated: the module's CUDA C, its kernels renamed for this bundle ----\n\n"
              "// A kernel's regions and lockstep functions declare every variable of the kernel, and not\n"
              "// every piece uses each (nor each its thread index): a program's -Wall -Wextra need not see it.\n"
              "#pragma GCC diagnostic ignored \"-Wunused-variable\"\n"
              "#pragma GCC diagnostic ignored \"-Wunused-but-set-variable\"\n"
              "#pragma GCC diagnostic ignored \"-Wunused-parameter\"\n\n");
  for (size_t i = 0; i < x->nkernels; i++) {
    bool seen = false;
    for (size_t j = 0; j < i; j++) seen |= !strcmp(x->kernels[j]->symbol, x->kernels[i]->symbol);
    if (!seen) sb_printf(sb, "#define %s %s__k_%s\n", x->kernels[i]->symbol, n, x->kernels[i]->symbol);
  }
  sb_putn(sb, x->m->cg.text, x->m->cg.len);
  sb_puts(sb, "\n\nstatic const P2cbSimRun p2cb_sim_runs[] = {\n");
  for (size_t i = 0; i < x->nkernels; i++)
    sb_printf(sb, "    p2cb_sim_run<p2cb_sim_entry<%s>, %lluull>,\n", x->kernels[i]->symbol,
              (unsigned long long)x->kernels[i]->spec->local_bytes);   /* a fiber's stack holds these */
  sb_printf(sb, "};\n\nextern \"C\" int %s_sim_launch(unsigned index, const unsigned grid[3], const unsigned block[3],\n"
                "                            unsigned shared_bytes, void **args, char *err, size_t errlen) {\n"
                "  return p2cb_sim_runs[index](grid, block, shared_bytes, args, err, errlen);\n}\n", n);
}

/* ---- The API ------------------------------------------------------------------------------ */

static StrBuf *add_file(P2cBundle *b, const char *suffix) {
  b->suffixes[b->nfiles] = suffix;
  sb_init(&b->files[b->nfiles], &b->arena);
  return &b->files[b->nfiles++];
}

static P2cStatus build_files(P2cCompiler *c, P2cModule *m, const P2cBundleOptions *o, BundleCtx *x) {
  P2cStatus s = collect_kernels(c, x);
  if (s == P2C_OK) s = name_launchers(c, x);
  if (s == P2C_OK) s = compile_images(c, m, o, x);
  if (s != P2C_OK) return s;
  write_header(x, add_file(x->b, ".h"));
  write_source(x, add_file(x->b, ".c"), o->with_sim);
  if (o->with_sim) write_sim_source(x, add_file(x->b, "_sim.cc"));
  return P2C_OK;
}

P2cStatus p2c_module_bundle(P2cCompiler *c, P2cModule *m, const P2cBundleOptions *o, P2cBundle **out) {
  if (!c || !m || !o || !out) return P2C_ERR_USAGE;
  *out = NULL;
  if (!m->ok) return api_fail(c, P2C_ERR_USAGE, "the module has errors; nothing to bundle");
  if (!o->name || !is_c_identifier(o->name) || strlen(o->name) > 64)
    return api_fail(c, P2C_ERR_USAGE, "bad bundle name '%s': expected a C identifier of at most 64 characters",
                    o->name ? o->name : "");
  P2cBundle *b = mem_alloc(&c->alloc, sizeof *b);
  if (!b) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  memset(b, 0, sizeof *b);
  b->alloc = c->alloc;
  arena_init(&b->arena, &b->alloc);
  BundleCtx *x = NULL;
  jmp_buf oom;
  b->arena.oom = &oom;
  if (setjmp(oom)) {
    p2c_bundle_delete(b);
    return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  }
  x = arena_alloc(&b->arena, sizeof *x);
  x->b = b, x->m = m, x->name = o->name;
  P2cStatus s = build_files(c, m, o, x);
  b->arena.oom = NULL;
  if (s != P2C_OK) {
    p2c_bundle_delete(b);
    return s;
  }
  *out = b;
  return P2C_OK;
}

size_t p2c_bundle_file_count(const P2cBundle *b) { return b ? b->nfiles : 0; }

const char *p2c_bundle_file(const P2cBundle *b, size_t i, const char **suffix, size_t *length) {
  if (!b || i >= b->nfiles) return NULL;
  if (suffix) *suffix = b->suffixes[i];
  if (length) *length = b->files[i].len;
  return sb_str(&b->files[i]);
}

void p2c_bundle_delete(P2cBundle *b) {
  if (!b) return;
  P2cAllocator a = b->alloc;
  arena_free(&b->arena);
  mem_free(&a, b, sizeof *b);
}
