/* cuda.jit kernels: Numba's dispatcher over the C API.
 *
 * A Kernel holds the Python source translated for it (cuda.py builds it from the function
 * object, see source.py) and the kernel's specializations. Kernels declared
 * with signatures are translated when they are made (as Numba compiles them eagerly) and a
 * launch picks the signature its arguments fit best (find_spec), converting scalars to the signature's
 * types; lazy kernels get one specialization per tuple of argument types (p2c_specialize),
 * made at the first launch that needs it and kept.
 *
 * `kern[grid, block, stream, sharedmem]` makes a Launcher, whose vectorcall is the launch path:
 * convert the arguments (args.c), find the specialization by a scan of its parameter types,
 * launch. On the simulator that is p2c_module_launch, which keeps the module loaded; on the GPU,
 * with only device arrays, the specialization's kernel is loaded once and launched
 * asynchronously with p2c_gpu_kernel_launch on the launcher's stream; host arrays on the GPU go
 * through p2c_module_launch, which copies them in and back (synchronously, as Numba does). */
#include "ext.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <structmember.h>

enum { MAX_ARGS = 64, SLOT = 16 + 16 * P2C_MAX_NDIM };

typedef struct Spec {
  P2cModule *m;          /* owned when owns_module */
  bool owns_module;
  size_t index;          /* the kernel's index in m */
  P2cKernelInfo info;
  P2cGpuModule *gm;      /* GPU: loaded at the first fast launch */
  P2cGpuKernel *gk;
} Spec;

typedef struct Kernel {
  PyObject_HEAD
  State *st;
  PyObject *module;
  PyObject *pyfunc;
  PyObject *name;        /* str */
  PyObject *filename;    /* str */
  PyObject *source;      /* bytes */
  PyObject *params;      /* tuple of str: the parameter names */
  PyObject *extensions;  /* list: Numba's kernel.extensions (objects with prepare_args) */
  bool explicit_sigs;
  bool bounds;           /* debug=True: bounds checking */
  bool sanitize;         /* sanitize=True: translated for the simulator's checker */
  Spec *specs;
  size_t nspecs, cap;
  vectorcallfunc vectorcall;
} Kernel;

typedef struct Launcher {
  PyObject_HEAD
  Kernel *k;
  uint32_t grid[3], block[3], shared;
  PyObject *stream;      /* a Stream or NULL */
  P2cStream *s;
  vectorcallfunc vectorcall;
} Launcher;

/* ---- specializations ---- */

static int add_spec(Kernel *k, P2cModule *m, bool owns, size_t index) {
  if (k->nspecs == k->cap) {
    size_t cap = k->cap ? 2 * k->cap : 4;
    Spec *s = PyMem_Realloc(k->specs, cap * sizeof *s);
    if (!s) {
      PyErr_NoMemory();
      return -1;
    }
    k->specs = s;
    k->cap = cap;
  }
  Spec *s = &k->specs[k->nspecs++];
  memset(s, 0, sizeof *s);
  s->m = m;
  s->owns_module = owns;
  s->index = index;
  s->info = p2c_module_kernel(m, index);
  return 0;
}

static const char *str_of(PyObject *o) { return PyUnicode_AsUTF8(o); }

/* Translations by this kernel check bounds, or are made for the simulator's checker, when it or
 * the module asks for it; afterwards the compiler is back to the module's settings. */
static void checks_on(Kernel *k) {
  p2c_compiler_set_check_bounds(k->st->compiler, k->bounds || k->st->check_bounds);
  p2c_compiler_set_sanitize(k->st->compiler, k->sanitize || k->st->sanitize);
}
static void checks_off(Kernel *k) {
  p2c_compiler_set_check_bounds(k->st->compiler, k->st->check_bounds);
  p2c_compiler_set_sanitize(k->st->compiler, k->st->sanitize);
}

/* A kernel made without source gets it at its first translation from its own `_build()`
 * (cuda.py: the synthetic module of the function and the names it uses, frozen then, as Numba
 * freezes globals at the first compile). */
static int ensure_source(Kernel *k) {
  if (k->source != Py_None) return 0;
  PyObject *r = PyObject_CallMethod((PyObject *)k, "_build", NULL);
  PyObject *filename, *source;
  if (!r || !PyArg_ParseTuple(r, "US:_build", &filename, &source)) {
    Py_XDECREF(r);
    return -1;
  }
  Py_SETREF(k->filename, Py_NewRef(filename));
  Py_SETREF(k->source, Py_NewRef(source));
  Py_DECREF(r);
  return 0;
}

/* A compile or bounds error of a launch, its locations put back in the user's source by the
 * kernel's `_fix_error(exc)` (the translated module is synthetic); called on failure only. */
static void fix_error(Kernel *k) {
  if (!PyErr_ExceptionMatches(k->st->CompileError) && !PyErr_ExceptionMatches(k->st->BoundsError))
    return;
  PyObject *t, *v, *tb;
  PyErr_Fetch(&t, &v, &tb);
  PyErr_NormalizeException(&t, &v, &tb);
  PyObject *fixed = PyObject_CallMethod((PyObject *)k, "_fix_error", "O", v);  /* none: the base type */
  if (!fixed) {  /* keep the error itself */
    PyErr_Clear();
    PyErr_Restore(t, v, tb);
    return;
  }
  Py_XDECREF(t);
  Py_XDECREF(v);
  Py_XDECREF(tb);
  PyErr_SetObject((PyObject *)Py_TYPE(fixed), fixed);
  Py_DECREF(fixed);
}

/* Translates the kernel's decorator signatures (and `extra`, "name(types)" strings, when the
 * decorator's are not literal) into one module. */
static int translate_signed(Kernel *k, PyObject *extra) {
  if (ensure_source(k) < 0) return -1;
  const char *name = str_of(k->name);
  Py_ssize_t n = extra ? PyList_GET_SIZE(extra) : 0;
  const char **sigs = PyMem_Calloc((size_t)n + 1, sizeof *sigs);
  if (!sigs) return PyErr_NoMemory(), -1;
  for (Py_ssize_t i = 0; i < n; i++)
    if (!(sigs[i] = str_of(PyList_GET_ITEM(extra, i)))) return PyMem_Free(sigs), -1;
  const char *kernels[1] = {name};
  P2cTranslateOptions o = {kernels, 1, sigs, (size_t)n, false, false};
  Py_ssize_t len = PyBytes_GET_SIZE(k->source);
  P2cModule *m = NULL;
  checks_on(k);
  P2cStatus s = p2c_translate(k->st->compiler, str_of(k->filename), PyBytes_AS_STRING(k->source),
                              (size_t)len, &o, &m);
  checks_off(k);
  PyMem_Free(sigs);
  if (s != P2C_OK) {
    raise_status(k->st, s, p2c_compiler_last_error(k->st->compiler), m);
    p2c_module_delete(m);
    return -1;
  }
  size_t count = p2c_module_kernel_count(m);
  for (size_t i = 0; i < count; i++)
    if (add_spec(k, m, i == 0, i) < 0) return -1;
  if (!count) p2c_module_delete(m);
  return 0;
}

/* A new specialization for the arguments' types. */
static Spec *specialize(Kernel *k, const P2cValue *vals, size_t n) {
  P2cModule *m = NULL;
  if (ensure_source(k) < 0) return NULL;
  checks_on(k);
  P2cStatus s = p2c_specialize(k->st->compiler, str_of(k->filename), PyBytes_AS_STRING(k->source),
                               (size_t)PyBytes_GET_SIZE(k->source), str_of(k->name), vals, n, &m);
  checks_off(k);
  if (s != P2C_OK || p2c_module_kernel_count(m) != 1) {
    if (s == P2C_OK) PyErr_Format(k->st->Error, "'%U' is not a kernel of %U", k->name, k->filename);
    else raise_status(k->st, s, p2c_compiler_last_error(k->st->compiler), m);
    p2c_module_delete(m);
    return NULL;
  }
  if (add_spec(k, m, true, 0) < 0) {
    p2c_module_delete(m);
    return NULL;
  }
  return &k->specs[k->nspecs - 1];
}

/* Whether an argument fits a parameter: the same kind and type; an array's layout must be the
 * parameter's (lazy kernels) or compatible with it ('A' takes any; signed kernels). A scalar
 * fits a signed kernel's scalar parameter of any type (it is converted, as Numba converts). */
static bool fits(const Kernel *k, const P2cValue *v, const P2cParam *p);

static bool same_name(const char *a, const char *b) { return a && b ? strcmp(a, b) == 0 : a == b; }

/* A tuple fits a tuple parameter of as many elements, each fitting its element, of the same
 * namedtuple class and fields (or plain, as it is). */
static bool tuple_fits(const Kernel *k, const P2cValue *v, const P2cParam *p) {
  if (v->type != p->type || v->elem_count != p->elem_count || !same_name(v->tuple_class, p->tuple_class))
    return false;
  for (size_t i = 0; i < v->elem_count; i++)
    if ((v->tuple_class && !same_name(v->field_names[i], p->elems[i].name)) || !fits(k, &v->elems[i], &p->elems[i]))
      return false;
  return true;
}

static bool fits(const Kernel *k, const P2cValue *v, const P2cParam *p) {
  if (v->is_array != p->is_array) return false;
  if (v->enum_class || p->enum_class) {   /* an Enum member: of the parameter's class exactly */
    if (same_name(v->enum_class, p->enum_class) && v->enum_is_int == p->enum_is_int && v->type == p->type &&
        (v->type != P2C_TUPLE || tuple_fits(k, v, p)))
      return true;
    /* or, an IntEnum member, a signature's integer parameter (Numba converts it to int) */
    return k->explicit_sigs && v->enum_is_int && !p->enum_class && !p->is_array && p->type != P2C_TUPLE &&
           p->type != P2C_RECORD;
  }
  if (v->type == P2C_TUPLE || p->type == P2C_TUPLE) return tuple_fits(k, v, p);
  if ((v->type == P2C_RECORD || p->type == P2C_RECORD) && !v->is_array)   /* a record by reference */
    return v->type == p->type && p2c_record_equal(v->array.record, p->record);
  if (!v->is_array && (is_time_type(v->type) || is_time_type(p->type)))
    return v->type == p->type;   /* Numba converts no datetime or timedelta to another type */
  if (!v->is_array) return k->explicit_sigs || v->type == p->type;
  if (v->type != p->type) return false;
  const P2cHostArray *h = &v->array;
  int ndim = v->device_array ? v->device_array->ndim : h->ndim;
  if (ndim != p->ndim) return false;
  const P2cRecord *rec = v->device_array ? v->device_array->record : h->record;
  if (v->type == P2C_RECORD && !p2c_record_equal(rec, p->record)) return false;
  int64_t item = (int64_t)p2c_dtype_size(v->type, rec);
  char l = v->device_array ? layout_of(item, ndim, v->device_array->shape, v->device_array->strides)
                           : layout_of(item, ndim, h->shape, h->strides);
  if (k->explicit_sigs) return p->layout == 'A' || p->layout == l;
  return p->layout == l;
}

/* Numba's kinds of conversion (typeconv): exact, promotion, safe, unsafe, none. */
enum { CONV_EXACT, CONV_PROMOTE, CONV_SAFE, CONV_UNSAFE, CONV_KINDS, CONV_NONE = CONV_KINDS };

/* Numba's casting rules between scalar types (typeconv/rules.py), closed over paths: a path is
 * as good as its worst step, a pair as its best path; a step back along a rule is unsafe. Made
 * once (the table is the same for every kernel). */
static unsigned char conv_table[P2C_SCALAR_TYPE_COUNT][P2C_SCALAR_TYPE_COUNT];

static void conv_rule(int from, int to, int kind) {
  if (kind < conv_table[from][to]) conv_table[from][to] = (unsigned char)kind;
  if (CONV_UNSAFE < conv_table[to][from]) conv_table[to][from] = CONV_UNSAFE;
}

static void conv_init(void) {
  static bool done;
  if (done) return;
  enum { N = P2C_SCALAR_TYPE_COUNT };
  for (int a = 0; a < N; a++)
    for (int b = 0; b < N; b++) conv_table[a][b] = a == b ? CONV_EXACT : CONV_NONE;
  static const int rules[][3] = {
      {P2C_BOOL, P2C_INT8, CONV_SAFE}, {P2C_BOOL, P2C_UINT8, CONV_SAFE},
      {P2C_INT8, P2C_INT16, CONV_PROMOTE}, {P2C_UINT8, P2C_UINT16, CONV_PROMOTE},
      {P2C_INT16, P2C_INT32, CONV_PROMOTE}, {P2C_UINT16, P2C_UINT32, CONV_PROMOTE},
      {P2C_INT32, P2C_INT64, CONV_PROMOTE}, {P2C_UINT32, P2C_UINT64, CONV_PROMOTE},
      {P2C_UINT8, P2C_INT16, CONV_SAFE}, {P2C_UINT16, P2C_INT32, CONV_SAFE},
      {P2C_UINT32, P2C_INT64, CONV_SAFE}, {P2C_INT16, P2C_FLOAT32, CONV_SAFE},
      {P2C_INT32, P2C_FLOAT64, CONV_SAFE}, {P2C_INT16, P2C_FLOAT16, CONV_UNSAFE},
      {P2C_INT32, P2C_FLOAT32, CONV_UNSAFE}, {P2C_INT64, P2C_FLOAT64, CONV_SAFE},
      {P2C_UINT64, P2C_FLOAT64, CONV_SAFE}, {P2C_FLOAT16, P2C_FLOAT32, CONV_PROMOTE},
      {P2C_FLOAT32, P2C_FLOAT64, CONV_PROMOTE}, {P2C_FLOAT32, P2C_COMPLEX64, CONV_SAFE},
      {P2C_FLOAT64, P2C_COMPLEX128, CONV_SAFE}, {P2C_COMPLEX64, P2C_COMPLEX128, CONV_PROMOTE}};
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) conv_rule(rules[i][0], rules[i][1], rules[i][2]);
  for (int m = 0; m < N; m++)   /* Floyd-Warshall with max along a path, min over paths */
    for (int a = 0; a < N; a++)
      for (int b = 0; b < N; b++) {
        int via = conv_table[a][m] > conv_table[m][b] ? conv_table[a][m] : conv_table[m][b];
        if (via < conv_table[a][b]) conv_table[a][b] = (unsigned char)via;
      }
  done = true;
}

/* How an argument that fits parameter p converts to it: a scalar by the casting rules (one with
 * no rule, complex to real, is refused later by arg_convert), an array of the parameter's own
 * layout exactly, one passed to an 'A' parameter of another layout safely (Numba's
 * Array.can_convert_to); tuples count as exact. */
static int conversion(const P2cValue *v, const P2cParam *p) {
  if (v->type == P2C_TUPLE || v->type == P2C_RECORD) return CONV_EXACT;
  if (v->is_array) {
    const P2cHostArray *h = &v->array;
    int ndim = v->device_array ? v->device_array->ndim : h->ndim;
    int64_t item = (int64_t)p2c_dtype_size(v->type, NULL);
    char l = v->device_array ? layout_of(item, ndim, v->device_array->shape, v->device_array->strides)
                             : layout_of(item, ndim, h->shape, h->strides);
    return p->layout == l ? CONV_EXACT : CONV_SAFE;
  }
  if ((unsigned)v->type >= P2C_SCALAR_TYPE_COUNT || (unsigned)p->type >= P2C_SCALAR_TYPE_COUNT) return CONV_UNSAFE;
  conv_init();
  int kind = conv_table[v->type][p->type];
  return kind == CONV_NONE ? CONV_UNSAFE : kind;
}

/* Lazy kernels: the specialization the arguments fit (one at most). Signed kernels: as Numba's
 * dispatcher, the fitting signature whose conversions are best, compared by their count of
 * unsafe conversions, then safe ones, then promotions; the first of equals (Numba calls a tie
 * ambiguous, a TypeError). */
static Spec *find_spec(Kernel *k, const P2cValue *vals, size_t n) {
  Spec *best = NULL;
  size_t best_rating[CONV_KINDS] = {0};
  for (size_t i = 0; i < k->nspecs; i++) {
    Spec *s = &k->specs[i];
    size_t j = 0, rating[CONV_KINDS] = {0};
    while (j < n && fits(k, &vals[j], &s->info.params[j])) j++;
    if (j < n) continue;
    if (!k->explicit_sigs) return s;
    for (j = 0; j < n; j++) rating[conversion(&vals[j], &s->info.params[j])]++;
    bool better = !best;
    for (int kind = CONV_UNSAFE; !better && kind > CONV_EXACT; kind--) {
      if (rating[kind] != best_rating[kind]) {
        better = rating[kind] < best_rating[kind];
        break;
      }
    }
    if (better) {
      best = s;
      memcpy(best_rating, rating, sizeof rating);
    }
  }
  return best;
}

static PyObject *param_text(const P2cParam *p);

/* "Enum<int64>(Color)", "IntEnum<int64>(Shape)": an Enum member's type around its value's type
 * `inner` (a reference this takes; NULL after an error passes through). */
static PyObject *enum_text(bool is_int, PyObject *inner, const char *cls) {
  PyObject *r = inner ? PyUnicode_FromFormat("%s<%U>(%s)", is_int ? "IntEnum" : "Enum", inner, cls) : NULL;
  Py_XDECREF(inner);
  return r;
}

/* "Tuple(int64, float64[::1])", "NamedTuple(Point, x=int64, y=int64)": the signature grammar's
 * spelling of a tuple parameter. */
static PyObject *tuple_param_text(const P2cParam *p) {
  PyObject *list = PyList_New(0);
  for (size_t i = 0; list && i < p->elem_count; i++) {
    PyObject *t = param_text(&p->elems[i]);
    if (t && p->tuple_class) Py_SETREF(t, PyUnicode_FromFormat("%s=%U", p->elems[i].name, t));
    if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
    Py_XDECREF(t);
  }
  PyObject *inner = join_list(", ", list);
  if (!inner) return NULL;
  PyObject *r = p->tuple_class ? PyUnicode_FromFormat("NamedTuple(%s%s%U)", p->tuple_class, p->elem_count ? ", " : "", inner)
                               : PyUnicode_FromFormat("Tuple(%U)", inner);
  Py_DECREF(inner);
  return r;
}

/* A parameter's type as Numba writes it in a signature: "float32[:, ::1]", "int64",
 * "Enum<int64>(Color)". */
static PyObject *param_text(const P2cParam *p) {
  if (p->enum_class) {
    P2cParam value = *p;
    value.enum_class = NULL;
    PyObject *inner = param_text(&value);
    return enum_text(p->enum_is_int, inner, p->enum_class);
  }
  if (p->type == P2C_TUPLE) return tuple_param_text(p);
  char rec[512];
  bool unicode;
  int64_t chars;
  const char *dtype = p->type == P2C_RECORD ? (p2c_record_name(p->record, rec, sizeof rec), rec)
                                            : p2c_scalar_name(p->type);
  if (p2c_dtype_charseq(p->type, &unicode, &chars))   /* Numba's "[unichr x 12]" */
    dtype = (snprintf(rec, sizeof rec, "[%s x %lld]", unicode ? "unichr" : "char", (long long)chars), rec);
  if (!dtype) dtype = "?";
  if (!p->is_array) return PyUnicode_FromString(dtype);
  char dims[64] = "";
  size_t len = 0;
  for (int d = 0; d < p->ndim && len < sizeof dims - 8; d++) {
    bool unit = (p->layout == 'C' && d == p->ndim - 1) || (p->layout == 'F' && d == 0);
    len += (size_t)snprintf(dims + len, sizeof dims - len, "%s%s", d ? ", " : "", unit ? "::1" : ":");
  }
  return PyUnicode_FromFormat("%s[%s]", dtype, dims);
}

/* "(float32[::1], int64)" for messages: each argument as the parameter type that takes it
 * exactly (an array's layout from its strides). */
static PyObject *arg_types_text(const P2cValue *vals, size_t n);

/* The type of one argument, as the parameter that takes it exactly would be spelled. */
static PyObject *arg_type_text(const P2cValue *v) {
  if (v->enum_class) {
    P2cValue value = *v;
    value.enum_class = NULL;
    PyObject *inner = arg_type_text(&value);
    return enum_text(v->enum_is_int, inner, v->enum_class);
  }
  if (v->type == P2C_TUPLE) {
    PyObject *inner = arg_types_text(v->elems, v->elem_count);
    if (!inner || !v->tuple_class) {
      PyObject *r = inner ? PyUnicode_FromFormat("Tuple(%U)", inner) : NULL;
      Py_XDECREF(inner);
      return r;
    }
    PyObject *r = PyUnicode_FromFormat("%s%U", v->tuple_class, inner);   /* Numba's "Point(int64, int64)" */
    Py_DECREF(inner);
    return r;
  }
  const P2cDeviceArray *d = v->device_array;
  P2cParam as = {.is_array = v->is_array, .type = v->type, .record = d ? d->record : v->array.record};
  if (v->is_array) {
    int64_t item = (int64_t)p2c_dtype_size(v->type, as.record);
    as.ndim = d ? d->ndim : v->array.ndim;
    as.layout = d ? layout_of(item, d->ndim, d->shape, d->strides)
                  : layout_of(item, v->array.ndim, v->array.shape, v->array.strides);
  }
  return param_text(&as);
}

static PyObject *arg_types_text(const P2cValue *vals, size_t n) {
  PyObject *list = PyList_New(0);
  for (size_t i = 0; list && i < n; i++) {
    PyObject *t = arg_type_text(&vals[i]);
    if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
    Py_XDECREF(t);
  }
  return join_list(", ", list);
}

/* "argument 'x' is float64[::1], where it takes float32[::1]": the first
 * argument that specialization `s` does not take. */
static PyObject *first_misfit(Kernel *k, const Spec *s, const P2cValue *vals, size_t n) {
  size_t i = 0;
  while (i + 1 < n && fits(k, &vals[i], &s->info.params[i])) i++;
  PyObject *given = arg_types_text(&vals[i], 1), *want = param_text(&s->info.params[i]);
  PyObject *r = given && want ? PyUnicode_FromFormat("%s: argument '%s' is %U, where it takes %U",
                                                     s->info.signature, s->info.params[i].name,
                                                     given, want)
                              : NULL;
  Py_XDECREF(given);
  Py_XDECREF(want);
  return r;
}

static PyObject *no_signature(Kernel *k, const P2cValue *vals, size_t n) {
  PyObject *given = arg_types_text(vals, n);
  PyObject *why = PyList_New(0);
  for (size_t i = 0; why && i < k->nspecs && n > 0; i++) {
    PyObject *s = first_misfit(k, &k->specs[i], vals, n);
    if (!s || PyList_Append(why, s) < 0) Py_CLEAR(why);
    Py_XDECREF(s);
  }
  PyObject *text = join_list("; ", why);
  if (given && text)
    PyErr_Format(PyExc_TypeError, "no signature of kernel '%U' takes (%U): %U", k->name, given, text);
  Py_XDECREF(given);
  Py_XDECREF(text);
  return NULL;
}

/* ---- the launch ---- */

/* GPU: the specialization's kernel, loaded on the device once. */
static int gpu_kernel(Kernel *k, Spec *s) {
  if (s->gk) return 0;
  State *st = k->st;
  P2cStatus r = p2c_gpu_module_from_python(st->gpu, s->m, false, &s->gm);
  if (r == P2C_OK) r = p2c_gpu_module_kernel(s->gm, s->info.symbol, &s->gk);
  if (r == P2C_OK) return 0;
  raise_device(st, r);
  p2c_gpu_module_delete(s->gm);
  s->gm = NULL;
  return -1;
}

/* Packs the arguments as cuLaunchKernel's parameters (docs/generated-code.md). */
static void pack(const P2cValue *vals, size_t n, unsigned char *storage, void **ptrs) {
  for (size_t i = 0; i < n; i++) {
    unsigned char *slot = storage + i * SLOT;
    const P2cValue *v = &vals[i];
    ptrs[i] = slot;
    if (v->is_array) p2c_device_array_pack(v->device_array, slot);
    else p2c_scalar_pack(v, slot);
  }
}

/* The arrays of an asynchronous launch stay alive until its stream is synchronized. */
static int keep_arrays(Launcher *l, PyObject *const *argv, const P2cValue *vals, size_t n) {
  PyObject *arrays[MAX_ARGS];
  for (size_t i = 0; i < n; i++) arrays[i] = vals[i].is_array ? argv[i] : NULL;
  return stream_keep(l->k->st, l->stream, arrays, n);
}

static int launch_gpu_fast(Launcher *l, Spec *s, PyObject *const *argv, const P2cValue *vals, size_t n) {
  if (gpu_kernel(l->k, s) < 0) return -1;
  unsigned char storage[SLOT * 8];
  void *ptrs_small[8];
  unsigned char *st = n <= 8 ? storage : PyMem_Malloc(SLOT * n);
  void **ptrs = n <= 8 ? ptrs_small : PyMem_Malloc(sizeof(void *) * n);
  if (!st || !ptrs) return PyErr_NoMemory(), -1;
  pack(vals, n, st, ptrs);
  P2cGpuLaunch cfg = {{l->grid[0], l->grid[1], l->grid[2]}, {l->block[0], l->block[1], l->block[2]},
                      l->shared, l->s, s->info.cooperative};
  P2cStatus r = p2c_gpu_kernel_launch(s->gk, &cfg, ptrs);
  if (n > 8) {
    PyMem_Free(st);
    PyMem_Free(ptrs);
  }
  if (r != P2C_OK) return raise_device(l->k->st, r), -1;
  return keep_arrays(l, argv, vals, n);
}

static int launch_module(Launcher *l, Spec *s, const P2cValue *vals, size_t n) {
  State *st = l->k->st;
  P2cLaunchOptions o = {.device = st->kind == DEV_GPU ? P2C_DEVICE_GPU : P2C_DEVICE_SIM,
                        .grid = {l->grid[0], l->grid[1], l->grid[2]},
                        .block = {l->block[0], l->block[1], l->block[2]},
                        .shared_bytes = l->shared, .gpu = st->gpu};
  P2cStatus r = p2c_module_launch(st->compiler, s->m, s->index, vals, n, &o, NULL);
  if (r != P2C_OK) return raise_compiler(st, r), -1;
  return 0;
}

/* Whether every array is already on the device (then the GPU launch needs no copies). */
static bool all_on_device(const P2cValue *vals, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if ((vals[i].is_array || vals[i].type == P2C_RECORD) && !vals[i].device_array) return false;
    if (vals[i].type == P2C_TUPLE) return false;   /* packed by the library (launch.c) */
  }
  return true;
}

/* Whether the launch goes through Kernel._prepare_args first: the kernel has extensions, or an
 * argument is a cuda.In/Out/InOut (docs/python.md). */
static bool needs_prepare(Kernel *k, PyObject *const *argv, size_t n) {
  if (k->extensions && PyList_GET_SIZE(k->extensions) > 0) return true;
  PyTypeObject *hint = (PyTypeObject *)k->st->arg_hint;
  for (size_t i = 0; hint && i < n; i++)
    if (PyObject_TypeCheck(argv[i], hint)) return true;
  return false;
}

/* Kernel._prepare_args(args, stream): a new reference to (the arguments to launch with, the
 * write-backs to call after the launch), checked; NULL with an exception set. */
static PyObject *prepare_args(Launcher *l, PyObject *const *argv, size_t n) {
  PyObject *given = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; given && i < n; i++) PyTuple_SET_ITEM(given, (Py_ssize_t)i, Py_NewRef(argv[i]));
  PyObject *r = given ? PyObject_CallMethod((PyObject *)l->k, "_prepare_args", "NO", given,
                                            l->stream ? l->stream : Py_None) : NULL;
  if (r && !(PyTuple_Check(r) && PyTuple_GET_SIZE(r) == 2 && PyTuple_Check(PyTuple_GET_ITEM(r, 0)) &&
             (size_t)PyTuple_GET_SIZE(PyTuple_GET_ITEM(r, 0)) == n && PyList_Check(PyTuple_GET_ITEM(r, 1)))) {
    Py_DECREF(r);
    return PyErr_Format(PyExc_TypeError, "_prepare_args must return (a tuple of %zu arguments, a list)", n);
  }
  return r;
}

/* Calls each write-back of `prepared` in order; -1 with the first one's exception. */
static int write_back(PyObject *prepared) {
  PyObject *wbs = PyTuple_GET_ITEM(prepared, 1);
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(wbs); i++) {
    PyObject *r = PyObject_CallNoArgs(PyList_GET_ITEM(wbs, i));
    if (!r) return -1;
    Py_DECREF(r);
  }
  return 0;
}

/* The C stack a launch keeps in reserve: a launch made by a launch (an extension's prepare_args,
 * a signal handler run by the interrupt check) nests its frames, about 50 KiB a level, and the
 * Python recursion limit counts none of them: 150-200 levels overflowed the stack (SIGSEGV). */
enum { LAUNCH_STACK_RESERVE = 512 * 1024 };

/* The lowest address of the calling thread's stack, 0 where unknown. Found once per thread
 * (pthread_getattr_np reads /proc for the main thread) and kept in a thread-local, a fact about
 * the thread that never changes. */
static uintptr_t stack_low(void) {
  static _Thread_local uintptr_t low;
  static _Thread_local bool known;
  if (!known) {
    pthread_attr_t a;
    void *addr;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
      if (pthread_attr_getstack(&a, &addr, &size) == 0) low = (uintptr_t)addr;
      pthread_attr_destroy(&a);
    }
    known = true;
  }
  return low;
}

/* RecursionError when a nested launch would leave less than LAUNCH_STACK_RESERVE of C stack. */
static int check_stack(Kernel *k) {
  uintptr_t low = stack_low(), here = (uintptr_t)__builtin_frame_address(0);
  if (!low || here < low || here - low >= LAUNCH_STACK_RESERVE) return 0;
  PyErr_Format(PyExc_RecursionError, "maximum recursion depth exceeded while launching kernel '%U' "
               "(launches made by launches, e.g. in an extension's prepare_args, with less than "
               "%d KiB of C stack left)", k->name, LAUNCH_STACK_RESERVE / 1024);
  return -1;
}

static PyObject *launch(Launcher *l, PyObject *const *argv, size_t nargsf, PyObject *kwnames) {
  Kernel *k = l->k;
  State *st = k->st;
  if (check_stack(k) < 0) return NULL;
  size_t n = (size_t)PyVectorcall_NARGS(nargsf);
  size_t want = (size_t)PyTuple_GET_SIZE(k->params);
  if (kwnames && PyTuple_GET_SIZE(kwnames))
    return PyErr_Format(PyExc_TypeError, "kernel '%U' takes positional arguments only", k->name);
  if (n != want)
    return PyErr_Format(PyExc_TypeError, "kernel '%U' takes %zu argument%s, %zu given", k->name,
                        want, want == 1 ? "" : "s", n);
  if (n > MAX_ARGS)
    return PyErr_Format(PyExc_TypeError, "kernel '%U': at most %d arguments", k->name, MAX_ARGS);
  if (state_device(st) < 0) return NULL;
  PyObject *prepared = NULL;
  if (needs_prepare(k, argv, n)) {
    if (!(prepared = prepare_args(l, argv, n))) return NULL;
    argv = PySequence_Fast_ITEMS(PyTuple_GET_ITEM(prepared, 0));
  }
  Arg args[MAX_ARGS];
  P2cValue vals[MAX_ARGS];
  size_t got = 0;
  PyObject *result = NULL;
  for (; got < n; got++) {
    const char *pname = str_of(PyTuple_GET_ITEM(k->params, got));
    if (arg_from_object(st, argv[got], pname, &args[got]) < 0) goto done;
    vals[got] = args[got].v;
  }
  Spec *s = find_spec(k, vals, n);
  if (!s && k->explicit_sigs) {
    no_signature(k, vals, n);
    goto done;
  }
  if (!s && !(s = specialize(k, vals, n))) goto done;
  for (size_t i = 0; i < n; i++)
    if (arg_check_writable(&args[i], &s->info.params[i], k->name) < 0) goto done;
  for (size_t i = 0; i < n; i++)
    if (arg_convert(&args[i], &s->info.params[i], str_of(PyTuple_GET_ITEM(k->params, i))) < 0) goto done;
    else vals[i] = args[i].v;
  bool fast = st->kind == DEV_GPU && all_on_device(vals, n) && !k->bounds && !st->check_bounds &&
              !k->sanitize && !st->sanitize;
  if ((fast ? launch_gpu_fast(l, s, argv, vals, n) : launch_module(l, s, vals, n)) == 0)
    result = Py_NewRef(Py_None);
done:
  for (size_t i = 0; i < got; i++) arg_release(&args[i]);
  if (result && prepared && write_back(prepared) < 0) Py_CLEAR(result);
  Py_XDECREF(prepared);
  if (!result) fix_error(k);
  return result;
}

/* ---- the launch configuration ---- */

static int dims(PyObject *o, uint32_t out[3], const char *what, const char *kname) {
  out[0] = out[1] = out[2] = 1;
  PyObject *t = PyIndex_Check(o) ? PyTuple_Pack(1, o) : PyTuple_Check(o) || PyList_Check(o) ? PySequence_Tuple(o) : NULL;
  for (Py_ssize_t i = 0; t && i < PyTuple_GET_SIZE(t); i++)
    if (!PyIndex_Check(PyTuple_GET_ITEM(t, i))) Py_CLEAR(t);
  if (!t) {  /* Numba's words (tests match them), then ours */
    PyErr_Clear();
    PyObject *given = PySequence_Check(o) ? PySequence_List(o) : Py_BuildValue("[O]", o);
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "kernel '%s': %s must be a sequence of integers, got %R (an int "
                 "or a tuple of 1 to 3 ints, got %.100s)", kname, what, given ? given : o,
                 Py_TYPE(o)->tp_name);
    Py_XDECREF(given);
    return -1;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(t);
  int r = 0;
  if (n < 1 || n > 3) {
    PyObject *given = PySequence_List(t);
    if (given)
      PyErr_Format(PyExc_ValueError, "kernel '%s': %s must be a sequence of 1, 2 or 3 integers, got "
                   "%R (it has %zd dimensions)", kname, what, given, n);
    Py_XDECREF(given);
    r = -1;
  }
  for (Py_ssize_t i = 0; r == 0 && i < n; i++) {
    PyObject *ix = PyNumber_Index(PyTuple_GET_ITEM(t, i));
    long long x = ix ? PyLong_AsLongLong(ix) : -1;
    Py_XDECREF(ix);
    if (x == -1 && PyErr_Occurred()) r = -1;
    else if (x < 1 || x > UINT32_MAX) {
      PyErr_Format(PyExc_ValueError, "kernel '%s': %s dimension %zd is %lld (must be 1 to %u)",
                   kname, what, i, x, UINT32_MAX);
      r = -1;
    } else out[i] = (uint32_t)x;
  }
  Py_DECREF(t);
  return r;
}

/* What every GPU of compute capability 7.5 and later allows, checked on both devices so that a
 * launch that would fail on a GPU fails the same way on the simulator (the GPU path also checks
 * the device's own limits, shared memory among them). */
static int check_limits(const Launcher *l, const char *kname) {
  uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
  const char *why = threads > 1024 ? "more than 1024 threads per block"
                    : l->block[0] > 1024 || l->block[1] > 1024 ? "a block dimension over 1024"
                    : l->block[2] > 64 ? "a block z dimension over 64"
                    : l->grid[0] > 2147483647u ? "a grid x dimension over 2**31 - 1"
                    : l->grid[1] > 65535 || l->grid[2] > 65535 ? "a grid y or z dimension over 65535"
                    : NULL;
  if (!why) return 0;
  PyErr_Format(PyExc_ValueError, "kernel '%s': launch configuration with %s (grid %u,%u,%u, block "
               "%u,%u,%u)", kname, why, l->grid[0], l->grid[1], l->grid[2], l->block[0],
               l->block[1], l->block[2]);
  return -1;
}

static Launcher *new_launcher(Kernel *k) {
  Launcher *l = PyObject_GC_New(Launcher, k->st->Launcher);
  if (!l) return NULL;
  l->k = (Kernel *)Py_NewRef(k);
  l->stream = NULL;
  l->s = NULL;
  l->shared = 0;
  l->vectorcall = (vectorcallfunc)launch;
  PyObject_GC_Track(l);
  return l;
}

/* kern[grid, block], kern[grid, block, stream], kern[grid, block, stream, sharedmem]. */
static PyObject *kernel_subscript(Kernel *k, PyObject *key) {
  const char *kname = str_of(k->name);
  Py_ssize_t n = PyTuple_Check(key) ? PyTuple_GET_SIZE(key) : 1;
  if (!PyTuple_Check(key) || n < 2 || n > 4)
    return PyErr_Format(PyExc_ValueError, "kernel '%s': the launch configuration is [grid, block] "
                        "or [grid, block, stream] or [grid, block, stream, sharedmem]", kname);
  Launcher *l = new_launcher(k);
  if (!l) return NULL;
  if (dims(PyTuple_GET_ITEM(key, 0), l->grid, "griddim", kname) < 0 ||
      dims(PyTuple_GET_ITEM(key, 1), l->block, "blockdim", kname) < 0)
    goto fail;
  if (n >= 3) {
    PyObject *stream = PyTuple_GET_ITEM(key, 2);
    if (stream_arg(k->st, stream, &l->s) < 0) goto fail;
    if (stream != Py_None && !PyLong_Check(stream)) l->stream = Py_NewRef(stream);
  }
  if (n == 4) {
    long long shared = PyLong_AsLongLong(PyTuple_GET_ITEM(key, 3));
    if (shared == -1 && PyErr_Occurred()) goto fail;
    if (shared < 0 || shared > UINT32_MAX) {
      PyErr_Format(PyExc_ValueError, "kernel '%s': dynamic shared memory of %lld bytes", kname, shared);
      goto fail;
    }
    l->shared = (uint32_t)shared;
  }
  if (state_device(k->st) < 0) goto fail;
  if (check_limits(l, kname) < 0) goto fail;
  return (PyObject *)l;
fail:
  Py_DECREF(l);
  return NULL;
}

/* ---- Launcher type ---- */

static int launcher_traverse(Launcher *l, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(l));
  Py_VISIT(l->k);
  Py_VISIT(l->stream);
  return 0;
}

static int launcher_clear(Launcher *l) {
  Py_CLEAR(l->stream);
  return 0;
}

static void launcher_dealloc(Launcher *l) {
  PyTypeObject *tp = Py_TYPE(l);
  PyObject_GC_UnTrack(l);
  Py_CLEAR(l->stream);
  Py_CLEAR(l->k);
  PyObject_GC_Del(l);
  Py_DECREF(tp);
}

static PyObject *launcher_config(Launcher *l, void *c) {
  return Py_BuildValue("((III)(III)OI)", l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                       l->block[2], l->stream ? l->stream : Py_None, l->shared);
}

static PyMemberDef launcher_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Launcher, vectorcall), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef launcher_getset[] = {
    {"config", (getter)launcher_config, NULL, "(grid, block, stream, sharedmem)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot launcher_slots[] = {
    {Py_tp_dealloc, launcher_dealloc},
    {Py_tp_traverse, launcher_traverse},
    {Py_tp_clear, launcher_clear},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_members, launcher_members},
    {Py_tp_getset, launcher_getset},
    {Py_tp_doc, "A kernel with its launch configuration: call it with the kernel's arguments."},
    {0, NULL},
};

PyType_Spec Launcher_spec = {
    .name = "pyk2cuda.Launcher",
    .basicsize = sizeof(Launcher),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = launcher_slots,
};

/* ---- Kernel type ---- */

/* Kernel(pyfunc, name, filename, source, params, explicit_sigs, extra_sigs, bounds,
 * sanitize=False); source is bytes, or None to ask `_build()` for it at the first translation. */
static PyObject *kernel_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  PyObject *pyfunc, *name, *filename, *source, *params, *extra;
  int explicit_sigs, bounds, sanitize = 0;
  if (!PyArg_ParseTuple(args, "OUUOO!pOp|p:Kernel", &pyfunc, &name, &filename, &source, &PyTuple_Type,
                        &params, &explicit_sigs, &extra, &bounds, &sanitize))
    return NULL;
  if (source != Py_None && !PyBytes_Check(source))
    return PyErr_Format(PyExc_TypeError, "a kernel's source is bytes or None");
  if (extra != Py_None && !PyList_Check(extra))
    return PyErr_Format(PyExc_TypeError, "extra signatures must be a list of str");
  State *st = state_of_type(type);
  Kernel *k = st ? (Kernel *)type->tp_alloc(type, 0) : NULL;  /* zeroed, tracked; subclasses have a dict */
  if (!k) return NULL;
  k->st = st;
  k->module = Py_NewRef(k->st->module);
  k->pyfunc = Py_NewRef(pyfunc);
  k->name = Py_NewRef(name);
  k->filename = Py_NewRef(filename);
  k->source = Py_NewRef(source);
  k->params = Py_NewRef(params);
  k->extensions = PyList_New(0);
  if (!k->extensions) {
    Py_DECREF(k);
    return NULL;
  }
  k->explicit_sigs = explicit_sigs;
  k->bounds = bounds;
  k->sanitize = sanitize;
  if (explicit_sigs && translate_signed(k, extra == Py_None ? NULL : extra) < 0) {
    Py_DECREF(k);
    return NULL;
  }
  return (PyObject *)k;
}

static int kernel_traverse(Kernel *k, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(k));
  Py_VISIT(k->module);
  Py_VISIT(k->pyfunc);
  Py_VISIT(k->extensions);
  return 0;
}

static int kernel_clear(Kernel *k) {
  Py_CLEAR(k->pyfunc);
  Py_CLEAR(k->extensions);
  return 0;
}

static void kernel_dealloc(Kernel *k) {
  PyTypeObject *tp = Py_TYPE(k);
  PyObject_GC_UnTrack(k);
  for (size_t i = 0; i < k->nspecs; i++) {
    p2c_gpu_module_delete(k->specs[i].gm);
    if (k->specs[i].owns_module) p2c_module_delete(k->specs[i].m);
  }
  PyMem_Free(k->specs);
  Py_CLEAR(k->pyfunc);
  Py_CLEAR(k->name);
  Py_CLEAR(k->filename);
  Py_CLEAR(k->source);
  Py_CLEAR(k->params);
  Py_CLEAR(k->extensions);
  Py_CLEAR(k->module);
  PyObject_GC_Del(k);
  Py_DECREF(tp);
}

static PyObject *kernel_call(Kernel *k, PyObject *args, PyObject *kw) {
  return PyErr_Format(PyExc_ValueError, "kernel '%U' was called without a launch configuration "
                      "(Numba: launch configuration was not specified): launch it as "
                      "%U[grid, block](...)", k->name, k->name);
}

/* forall(ntasks): a launcher covering ntasks threads, 256 to a block (Numba asks the driver's
 * occupancy calculator; the simulator has none, and 256 is a good block on every GPU). */
static PyObject *kernel_forall(Kernel *k, PyObject *args, PyObject *kw) {
  static char *names[] = {"ntasks", "tpb", "stream", "sharedmem", NULL};
  long long n, tpb = 256, shared = 0;
  PyObject *stream = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "L|LOL:forall", names, &n, &tpb, &stream, &shared))
    return NULL;
  if (n < 1) return PyErr_Format(PyExc_ValueError, "forall: ntasks must be at least 1, got %lld", n);
  if (tpb < 1 || tpb > 1024) return PyErr_Format(PyExc_ValueError, "forall: tpb must be 1 to 1024");
  PyObject *key = Py_BuildValue("(LLOL)", (n + tpb - 1) / tpb, n < tpb ? n : tpb, stream, shared);
  if (!key) return NULL;
  PyObject *l = kernel_subscript(k, key);
  Py_DECREF(key);
  return l;
}

/* [(signature, CUDA C, types dump, symbol)] of every specialization. */
static PyObject *kernel_specs(Kernel *k, PyObject *unused) {
  PyObject *list = PyList_New((Py_ssize_t)k->nspecs);
  for (size_t i = 0; list && i < k->nspecs; i++) {
    Spec *s = &k->specs[i];
    size_t len;
    const char *cuda = p2c_module_cuda(s->m, &len);
    const char *types = p2c_module_dump(s->m, "types");
    PyObject *t = Py_BuildValue("(ssss)", s->info.signature, cuda ? cuda : "", types ? types : "",
                                s->info.symbol);
    if (!t) Py_CLEAR(list);
    else PyList_SET_ITEM(list, (Py_ssize_t)i, t);
  }
  return list;
}

/* _ptx(index, arch): the PTX of specialization `index` (NVRTC, no GPU needed). */
static PyObject *kernel_ptx(Kernel *k, PyObject *args) {
  Py_ssize_t i;
  const char *arch = NULL;
  if (!PyArg_ParseTuple(args, "n|z:_ptx", &i, &arch)) return NULL;
  if (i < 0 || (size_t)i >= k->nspecs) return PyErr_Format(PyExc_IndexError, "no specialization %zd", i);
  Spec *s = &k->specs[i];
  P2cStatus r = p2c_module_compile(k->st->compiler, s->m, arch, P2C_TARGET_PTX);
  if (r != P2C_OK) return raise_compiler(k->st, r);
  size_t size;
  const char *ptx = p2c_module_image(s->m, &size);
  return Py_BuildValue("(s#s)", ptx, (Py_ssize_t)strnlen(ptx, size), p2c_module_nvrtc_log(s->m));
}

/* _cooperative(index, block_threads, shared_bytes): (whether specialization `index` is launched
 * cooperatively, the most blocks such a launch may have on the device in use). */
static PyObject *kernel_cooperative(Kernel *k, PyObject *args) {
  Py_ssize_t i;
  unsigned int threads, shared;
  if (!PyArg_ParseTuple(args, "nII:_cooperative", &i, &threads, &shared)) return NULL;
  if (i < 0 || (size_t)i >= k->nspecs) return PyErr_Format(PyExc_IndexError, "no specialization %zd", i);
  if (threads < 1 || threads > 1024)
    return PyErr_Format(PyExc_ValueError, "a block has 1 to 1024 threads, got %u", threads);
  Spec *s = &k->specs[i];
  if (state_device(k->st) < 0) return NULL;
  uint32_t blocks = 0;
  if (k->st->kind != DEV_GPU) {
    blocks = p2c_sim_max_cooperative_blocks(threads);
  } else {
    if (gpu_kernel(k, s) < 0) return NULL;
    P2cStatus r = p2c_gpu_kernel_max_cooperative_blocks(s->gk, threads, shared, &blocks);
    if (r != P2C_OK) return raise_device(k->st, r);
  }
  return Py_BuildValue("(OI)", s->info.cooperative ? Py_True : Py_False, blocks);
}

static PyMethodDef kernel_methods[] = {
    {"_cooperative", (PyCFunction)kernel_cooperative, METH_VARARGS,
     "(cooperative, max blocks of a cooperative launch) of a specialization"},
    {"forall", (PyCFunction)(void (*)(void))kernel_forall, METH_VARARGS | METH_KEYWORDS,
     "forall(ntasks, tpb=256, stream=0, sharedmem=0): a launcher over ntasks threads"},
    {"_specs", (PyCFunction)kernel_specs, METH_NOARGS, "[(signature, cuda, types, symbol)]"},
    {"_ptx", (PyCFunction)kernel_ptx, METH_VARARGS, "(ptx, nvrtc log) of a specialization"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef kernel_members[] = {
    {"py_func", T_OBJECT, offsetof(Kernel, pyfunc), READONLY, "the Python function"},
    {"__name__", T_OBJECT, offsetof(Kernel, name), READONLY, NULL},
    {"_filename", T_OBJECT, offsetof(Kernel, filename), READONLY, NULL},
    {"_params", T_OBJECT, offsetof(Kernel, params), READONLY, NULL},
    {"extensions", T_OBJECT, offsetof(Kernel, extensions), READONLY,
     "Numba's kernel extensions: objects whose prepare_args(ty, val, stream=, retr=) maps each "
     "argument before the launch, the last one first"},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot kernel_slots[] = {
    {Py_tp_new, kernel_new},
    {Py_tp_dealloc, kernel_dealloc},
    {Py_tp_traverse, kernel_traverse},
    {Py_tp_clear, kernel_clear},
    {Py_tp_call, kernel_call},
    {Py_mp_subscript, kernel_subscript},
    {Py_tp_methods, kernel_methods},
    {Py_tp_members, kernel_members},
    {Py_tp_doc, "A @cuda.jit kernel: launch it as kern[grid, block](args)."},
    {0, NULL},
};

PyType_Spec Kernel_spec = {
    .name = "pyk2cuda._Kernel",
    .basicsize = sizeof(Kernel),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .slots = kernel_slots,
};
