/* cuda.jit kernels: Numba's dispatcher over the C API.
 *
 * A Kernel holds the Python source translated for it (cuda.py builds it from the function
 * object, see source.py) and the kernel's specializations. Kernels declared
 * with signatures are translated when they are made (as Numba compiles them eagerly) and a
 * launch picks the signature its arguments fit best, converting scalars to the signature's
 * types, both by the library's one dispatcher (find_spec: p2c_match_specialization,
 * p2c_value_convert); lazy kernels get one specialization per tuple of argument types (p2c_specialize),
 * made at the first launch that needs it and kept.
 *
 * `kern[grid, block, stream, sharedmem]` makes a Launcher, whose vectorcall is the launch path:
 * convert the arguments (args.c), find the specialization by a scan of its parameter types,
 * launch. On the simulator that is p2c_module_launch, which keeps the module loaded; on the GPU,
 * with only device arrays, the specialization's kernel is loaded once and launched
 * asynchronously with p2c_gpu_kernel_launch on the launcher's stream; host arrays on the GPU go
 * through p2c_module_launch, which copies them in and back on the launcher's stream and waits
 * for them (as Numba does) with the GIL released. */
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
  size_t prog_index;     /* its index in the kernel's Program, when it is in one */
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
  bool sanitize;         /* sanitize=True: translated for the simulator's checker */
  Spec *specs;
  size_t nspecs, cap;
  Spec **retired;        /* spec arrays _recompile() replaced: freed with the kernel, since a
                          * launch on another thread (GIL released) may still use one */
  size_t *nretired_specs, nretired;
  /* A capsule of the Program this kernel's specializations run from on the GPU (NULL: each
   * from its own module), used while in_program; kept until the kernel is freed, since retired
   * specializations may still point into its loaded module. */
  PyObject *program;
  bool in_program;
  bool batch_asked;      /* its `_batch()` was called (once, before its first GPU compile) */
  vectorcallfunc vectorcall;
} Kernel;

/* Several signed kernels of one Python module translated as one module, so that NVRTC compiles
 * them as one program (issue 30): made by `Kernel._batch()` (cuda.py) through `_program`, joined
 * by each kernel through `_join`. Each kernel keeps its own module for everything else (the
 * simulator, inspection); only its GPU compile and loading use the program's. Held in a capsule
 * that owns the module reference, so the compiler and device outlive it. */
typedef struct Program {
  PyObject *module;      /* the extension module (its State: compiler, device) */
  P2cModule *m;
  P2cGpuModule *gm;      /* loaded at the first GPU compile of one of its kernels */
  bool failed;           /* NVRTC or the driver refused it: its kernels compile on their own */
} Program;

static const char PROGRAM_CAPSULE[] = "pyk2cuda._core.Program";

typedef struct Launcher {
  PyObject_HEAD
  Kernel *k;
  uint32_t grid[3], block[3], shared;
  PyObject *stream;      /* a Stream or NULL */
  P2cStream *s;
  PyObject *callbacks;   /* numba-cuda's pre_launch_callbacks: a list made at its first read, or NULL */
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

/* What this kernel's translations check, exactly: the simulator's checker when it (sanitize=True)
 * or the package (set_sanitize, $PYK2CUDA_SANITIZE at import) asks for it, bounds when the package
 * does (set_check_bounds). (The decorator's debug= and boundscheck= are in the source the package
 * writes, which the frontend reads.) */
static P2cChecks checks_of(const Kernel *k) {
  return (P2cChecks){k->st->check_bounds, k->sanitize || k->st->sanitize, true};
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

/* An error of a launch (compile, bounds, the device's), its locations put back in the user's
 * source and its class made numba-cuda's by the kernel's `_fix_error(exc)` (cuda.py; the
 * translated module is synthetic); called on failure only. */
static void fix_error(Kernel *k) {
  if (!PyErr_ExceptionMatches(k->st->Error)) return;
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

/* A successful translation's warnings, handed to the kernel object's _compile_warnings
 * (cuda.py), which issues them as Numba does: NumbaWarnings at the user's lines. -1 when that
 * raised (a warnings filter set to "error"). */
static int report_warnings(Kernel *k, const P2cModule *m) {
  PyObject *list = diagnostics_list(m, P2C_SEVERITY_WARNING);
  if (!list) return -1;
  PyObject *r = PyList_GET_SIZE(list) ? PyObject_CallMethod((PyObject *)k, "_compile_warnings", "O", list)
                                      : Py_NewRef(Py_None);
  Py_DECREF(list);
  if (!r) return -1;
  Py_DECREF(r);
  return 0;
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
  P2cTranslateOptions o = {kernels, 1, sigs, (size_t)n, false, false, checks_of(k)};
  Py_ssize_t len = PyBytes_GET_SIZE(k->source);
  P2cModule *m = NULL;
  P2cStatus s = p2c_translate(k->st->compiler, str_of(k->filename), PyBytes_AS_STRING(k->source),
                              (size_t)len, &o, &m);
  PyMem_Free(sigs);
  if (s != P2C_OK) {
    raise_status(k->st, s, p2c_compiler_last_error(k->st->compiler), m);
    p2c_module_delete(m);
    return -1;
  }
  if (report_warnings(k, m) < 0) {
    p2c_module_delete(m);
    return -1;
  }
  size_t count = p2c_module_kernel_count(m);
  for (size_t i = 0; i < count; i++)
    if (add_spec(k, m, i == 0, i) < 0) return -1;
  if (!count) p2c_module_delete(m);
  return 0;
}

/* Tells the Python side (Kernel._specialized_now(index), cuda.py) that a launch made a new
 * specialization, so that cache=True records it (caching.py); once per signature, never on the
 * launch path after that. A kernel type without the method (cpu.py's @jit) is not told. */
static int note_new_spec(Kernel *k, size_t index) {
  if (!PyObject_HasAttrString((PyObject *)k, "_specialized_now")) return 0;   /* cpu.py's @jit */
  PyObject *r = PyObject_CallMethod((PyObject *)k, "_specialized_now", "n", (Py_ssize_t)index);
  Py_XDECREF(r);
  return r ? 0 : -1;
}

/* A new specialization for the arguments' types. */
static Spec *specialize(Kernel *k, const P2cValue *vals, size_t n) {
  P2cModule *m = NULL;
  if (ensure_source(k) < 0) return NULL;
  P2cTranslateOptions o = {.checks = checks_of(k)};
  P2cStatus s = p2c_specialize_with(k->st->compiler, str_of(k->filename), PyBytes_AS_STRING(k->source),
                                    (size_t)PyBytes_GET_SIZE(k->source), str_of(k->name), vals, n, &o, &m);
  if (s != P2C_OK || p2c_module_kernel_count(m) != 1) {
    if (s == P2C_OK) PyErr_Format(k->st->Error, "'%U' is not a kernel of %U", k->name, k->filename);
    else raise_status(k->st, s, p2c_compiler_last_error(k->st->compiler), m);
    p2c_module_delete(m);
    return NULL;
  }
  if (report_warnings(k, m) < 0 || add_spec(k, m, true, 0) < 0) {
    p2c_module_delete(m);
    return NULL;
  }
  if (note_new_spec(k, k->nspecs - 1) < 0) return NULL;
  return &k->specs[k->nspecs - 1];
}

/* The specialization the arguments take, chosen by the library's one dispatcher
 * (p2c_match_specialization): exactly for a lazily specialized kernel, with Numba's conversions
 * among the decorator's signatures; NULL when none takes them, with the dispatcher's message in
 * `why` (the TypeError no_signature raises). */
static Spec *find_spec(Kernel *k, const P2cValue *vals, size_t n, char *why, size_t why_cap) {
  enum { FEW = 16 };
  const P2cKernelInfo *few[FEW] = {0}, **infos = k->nspecs <= FEW ? few : PyMem_Malloc(sizeof *infos * k->nspecs);
  if (!infos) return (Spec *)PyErr_NoMemory();
  for (size_t i = 0; i < k->nspecs; i++) infos[i] = &k->specs[i].info;
  int j = p2c_match_specialization(infos, k->nspecs, vals, n,
                                   k->explicit_sigs ? P2C_MATCH_CONVERT : P2C_MATCH_EXACT, why, why_cap);
  if (infos != few) PyMem_Free(infos);
  return j < 0 ? NULL : &k->specs[j];
}

/* No signature takes the arguments: Numba's TypeError, with the dispatcher's words. */
static PyObject *no_signature(const char *why) {
  PyErr_SetString(PyExc_TypeError, why);
  return NULL;
}

/* ---- one program for a module's signed kernels ---- */

static void program_free(PyObject *cap) {
  Program *p = PyCapsule_GetPointer(cap, PROGRAM_CAPSULE);
  if (!p) return;
  p2c_gpu_module_delete(p->gm);
  p2c_module_delete(p->m);
  Py_XDECREF(p->module);
  PyMem_Free(p);
}

/* _program(source, kernels, signatures): a Program capsule of `source` (bytes: the merged
 * module, source.merge) translated for the kernels named (list of str) and their signatures
 * ("name(types)" strings), with this kernel's file name and checks. CompileError as a kernel's
 * translation raises it. */
static PyObject *kernel_program(Kernel *k, PyObject *args) {
  PyObject *source, *names, *sigs;
  if (!PyArg_ParseTuple(args, "SO!O!:_program", &source, &PyList_Type, &names, &PyList_Type, &sigs))
    return NULL;
  Py_ssize_t nk = PyList_GET_SIZE(names), ns = PyList_GET_SIZE(sigs);
  const char **strs = PyMem_Calloc((size_t)(nk + ns) + 1, sizeof *strs);
  if (!strs) return PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < nk + ns; i++)
    if (!(strs[i] = str_of(PyList_GET_ITEM(i < nk ? names : sigs, i < nk ? i : i - nk))))
      return PyMem_Free(strs), NULL;
  P2cTranslateOptions o = {strs, (size_t)nk, strs + nk, (size_t)ns, false, false, checks_of(k)};
  P2cModule *m = NULL;
  P2cStatus s = p2c_translate(k->st->compiler, str_of(k->filename), PyBytes_AS_STRING(source),
                              (size_t)PyBytes_GET_SIZE(source), &o, &m);
  PyMem_Free(strs);
  Program *p = s == P2C_OK ? PyMem_Calloc(1, sizeof *p) : NULL;
  PyObject *cap = p ? PyCapsule_New(p, PROGRAM_CAPSULE, program_free) : NULL;
  if (!cap) {
    if (s != P2C_OK) raise_status(k->st, s, p2c_compiler_last_error(k->st->compiler), m);
    else if (!p) PyErr_NoMemory();
    PyMem_Free(p);
    p2c_module_delete(m);
    return NULL;
  }
  p->module = Py_NewRef(k->module);
  p->m = m;
  return cap;
}

/* The program's kernel that is specialization `s`: the same symbol, signature and launch facts;
 * -1 when it has none. */
static Py_ssize_t program_index(const Program *p, const Spec *s) {
  size_t n = p2c_module_kernel_count(p->m);
  for (size_t j = 0; j < n; j++) {
    P2cKernelInfo info = p2c_module_kernel(p->m, j);
    if (strcmp(info.symbol, s->info.symbol) == 0 && strcmp(info.signature, s->info.signature) == 0 &&
        info.param_count == s->info.param_count && info.checks_bounds == s->info.checks_bounds &&
        info.cooperative == s->info.cooperative)
      return (Py_ssize_t)j;
  }
  return -1;
}

/* _join(program): this kernel's GPU compiles use the Program from now on, when it has every one
 * of the kernel's specializations and none is compiled yet; returns whether it joined. */
static PyObject *kernel_join(Kernel *k, PyObject *cap) {
  Program *p = PyCapsule_GetPointer(cap, PROGRAM_CAPSULE);
  if (!p) return NULL;
  if (k->program || !k->explicit_sigs || k->sanitize || k->st->sanitize || !k->nspecs) Py_RETURN_FALSE;
  for (size_t i = 0; i < k->nspecs; i++)
    if (k->specs[i].gk || program_index(p, &k->specs[i]) < 0) Py_RETURN_FALSE;
  for (size_t i = 0; i < k->nspecs; i++) k->specs[i].prog_index = (size_t)program_index(p, &k->specs[i]);
  k->program = Py_NewRef(cap);
  k->in_program = true;
  Py_RETURN_TRUE;
}

/* Before a signed kernel's first GPU compile, its `_batch()` (cuda.py) may make it join a
 * Program with the module's other signed kernels; asked once. */
static int ask_batch(Kernel *k) {
  if (!k->explicit_sigs || k->batch_asked || k->st->kind != DEV_GPU) return 0;
  k->batch_asked = true;
  if (!PyObject_HasAttrString((PyObject *)k, "_batch")) return 0;
  PyObject *r = PyObject_CallMethod((PyObject *)k, "_batch", NULL);
  Py_XDECREF(r);
  return r ? 0 : -1;
}

/* The Program this kernel's GPU compiles use now (loaded on the device), or NULL: it is in none,
 * or NVRTC or the driver refused it, and then the kernel leaves it and compiles its own module
 * (so that an error is reported for the kernel that has it, under its name). */
static Program *gpu_program(Kernel *k) {
  if (ask_batch(k) < 0) return (Program *)-1;
  Program *p = k->in_program ? PyCapsule_GetPointer(k->program, PROGRAM_CAPSULE) : NULL;
  if (!p) return NULL;
  if (!p->gm && !p->failed && p2c_gpu_module_from_python(k->st->gpu, p->m, false, &p->gm) != P2C_OK)
    p->failed = true;
  if (!p->failed) return p;
  k->in_program = false;
  if (PyObject_SetAttrString((PyObject *)k, "_program_unit", Py_None) < 0) PyErr_Clear();
  return NULL;
}

/* ---- the launch ---- */

/* GPU: the specialization's kernel, loaded on the device once (from its Program's module when
 * the kernel is in one). */
static int gpu_kernel(Kernel *k, Spec *s) {
  if (s->gk) return 0;
  State *st = k->st;
  Program *p = gpu_program(k);
  if (p == (Program *)-1) return -1;
  if (p) {
    P2cStatus r = p2c_gpu_module_kernel(p->gm, p2c_module_kernel(p->m, s->prog_index).symbol, &s->gk);
    return r == P2C_OK ? 0 : (raise_device(st, r), -1);
  }
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

/* A GPU launch's wait for the device, without the GIL (P2cLaunchOptions.wait), so that other
 * Python threads run during a long kernel; nothing of the library is called meanwhile. */
static void wait_without_gil(void *userdata, bool waiting) {
  PyThreadState **saved = userdata;
  if (waiting) *saved = PyEval_SaveThread();
  else PyEval_RestoreThread(*saved);
}

static int launch_module(Launcher *l, Spec *s, const P2cValue *vals, size_t n) {
  State *st = l->k->st;
  PyThreadState *saved = NULL;
  P2cLaunchOptions o = {.device = st->kind == DEV_GPU ? P2C_DEVICE_GPU : P2C_DEVICE_SIM,
                        .grid = {l->grid[0], l->grid[1], l->grid[2]},
                        .block = {l->block[0], l->block[1], l->block[2]},
                        .shared_bytes = l->shared, .gpu = st->gpu, .stream = l->s,
                        .wait = wait_without_gil, .wait_userdata = &saved};
  Program *p = st->kind == DEV_GPU ? gpu_program(l->k) : NULL;
  if (p == (Program *)-1) return -1;
  P2cStatus r = p ? p2c_module_launch(st->compiler, p->m, s->prog_index, vals, n, &o, NULL)
                  : p2c_module_launch(st->compiler, s->m, s->index, vals, n, &o, NULL);
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

/* ---- the launch configuration a compilation sees (numba-cuda's launchconfig) ---- */

/* numba-cuda lets Python code that runs while a launch compiles a kernel (its
 * `_compile_for_args`, wrapped by a user or by launchconfig.capture_compile_config) ask for the
 * launch configuration and its arguments. They are the calling thread's own, kept in its
 * thread-state dict under these keys while the launch's `_compile_for_args` runs, and absent
 * otherwise (None to the asker). */
static const char CURRENT_CONFIG[] = "pyk2cuda.launch_config", CURRENT_ARGS[] = "pyk2cuda.launch_args";

/* The calling thread's value under `key`, or None. A new reference. */
static PyObject *launch_current(const char *key) {
  PyObject *d = PyThreadState_GetDict();
  PyObject *v = d ? PyDict_GetItemString(d, key) : NULL;
  return Py_NewRef(v ? v : Py_None);
}

PyObject *launch_current_config(void) { return launch_current(CURRENT_CONFIG); }

/* Sets (value) or removes (NULL) the calling thread's value under `key`. */
static int launch_set_current(const char *key, PyObject *value) {
  PyObject *d = PyThreadState_GetDict();
  if (!d) {
    PyErr_SetString(PyExc_RuntimeError, "no thread state to hold the launch configuration");
    return -1;
  }
  if (value) return PyDict_SetItemString(d, key, value);
  if (PyDict_GetItemString(d, key) && PyDict_DelItemString(d, key) < 0) return -1;
  return 0;
}

/* Runs the kernel's `_compile_for_args(*argv)` (cuda.py, or what replaced it on the instance)
 * with the launch configuration `l` and its arguments current on this thread, restoring what
 * was current before (a launch from inside a compilation). */
static int compile_for_launch(Kernel *k, Launcher *l, PyObject *const *argv, size_t n) {
  PyObject *prev_config = launch_current(CURRENT_CONFIG), *prev_args = launch_current(CURRENT_ARGS);
  PyObject *args = PyTuple_New((Py_ssize_t)n), *r = NULL;
  for (size_t i = 0; args && i < n; i++) PyTuple_SET_ITEM(args, (Py_ssize_t)i, Py_NewRef(argv[i]));
  if (args && launch_set_current(CURRENT_CONFIG, (PyObject *)l) == 0 && launch_set_current(CURRENT_ARGS, args) == 0) {
    PyObject *method = PyObject_GetAttrString((PyObject *)k, "_compile_for_args");
    r = method ? PyObject_Call(method, args, NULL) : NULL;
    Py_XDECREF(method);
  }
  PyObject *t, *v, *tb;
  PyErr_Fetch(&t, &v, &tb);
  int restored = launch_set_current(CURRENT_CONFIG, prev_config == Py_None ? NULL : prev_config) |
                 launch_set_current(CURRENT_ARGS, prev_args == Py_None ? NULL : prev_args);
  if (t) PyErr_Restore(t, v, tb);
  Py_DECREF(prev_config);
  Py_DECREF(prev_args);
  Py_XDECREF(args);
  Py_XDECREF(r);
  return r && restored == 0 ? 0 : -1;
}

/* The specialization a call's arguments take, as Numba's dispatcher chooses it (a new one for a
 * lazy kernel's new types), and the arguments converted to its parameters: one step for a
 * launch and for a @jit function's host call. Fills args/vals; *got counts the args to release
 * whatever happens. NULL with an exception set when none fits or an argument is refused. */
static Spec *spec_for_args(Kernel *k, Launcher *l, PyObject *const *argv, size_t n, Arg *args,
                           P2cValue *vals, size_t *got) {
  for (; *got < n; (*got)++) {
    const char *pname = str_of(PyTuple_GET_ITEM(k->params, *got));
    if (arg_from_object(k->st, argv[*got], pname, &args[*got]) < 0) return NULL;
    vals[*got] = args[*got].v;
  }
  char why[1024] = "";
  Spec *s = find_spec(k, vals, n, why, sizeof why);
  if (!s && PyErr_Occurred()) return NULL;
  if (!s && k->explicit_sigs) {
    no_signature(why);
    return NULL;
  }
  if (!s && l && PyObject_HasAttrString((PyObject *)k, "_compile_for_args")) {
    /* a launch compiles through the kernel's _compile_for_args, as numba-cuda's does */
    if (compile_for_launch(k, l, argv, n) < 0) return NULL;
    s = find_spec(k, vals, n, why, sizeof why);
    if (!s && PyErr_Occurred()) return NULL;
  }
  if (!s && !(s = specialize(k, vals, n))) return NULL;
  for (size_t i = 0; i < n; i++)
    if (arg_check_writable(&args[i], &s->info.params[i], k->name) < 0) return NULL;
  for (size_t i = 0; i < n; i++) {
    if (arg_convert(&args[i], &s->info.params[i], str_of(PyTuple_GET_ITEM(k->params, i))) < 0) return NULL;
    vals[i] = args[i].v;
  }
  return s;
}

/* Numba's implicit-copy warning: each host array a launch copies to the device and back (not a
 * device array, not one whose memory the device reads in place, which exports
 * __cuda_array_interface__: mapped and managed arrays) is told to the kernel's
 * `_host_array_copied()` (cuda.py), which warns when Numba's config asks for it; -1 when a
 * filter made the warning an error. */
static int warn_host_copies(Kernel *k, PyObject *const *argv, const Arg *args, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!args[i].host_array || PyObject_HasAttrString(argv[i], "__cuda_array_interface__")) continue;
    if (!PyObject_HasAttrString((PyObject *)k, "_host_array_copied")) return 0;
    PyObject *r = PyObject_CallMethod((PyObject *)k, "_host_array_copied", NULL);
    Py_XDECREF(r);
    if (!r) return -1;
  }
  return 0;
}

/* numba-cuda's pre-launch callbacks: each callback(kernel, launcher), in order, after the
 * arguments are checked and just before the launch (a raise stops it). A copy of the list is
 * walked, so a callback that edits it changes the next launch, not this one. */
static int run_pre_launch_callbacks(Launcher *l) {
  if (!l->callbacks || PyList_GET_SIZE(l->callbacks) == 0) return 0;
  PyObject *calls = PyList_AsTuple(l->callbacks);
  if (!calls) return -1;
  int rc = 0;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(calls) && rc == 0; i++) {
    PyObject *r = PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(calls, i), (PyObject *)l->k, (PyObject *)l, NULL);
    rc = r ? 0 : -1;
    Py_XDECREF(r);
  }
  Py_DECREF(calls);
  return rc;
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
  Spec *s = spec_for_args(k, l, argv, n, args, vals, &got);
  if (!s || warn_host_copies(k, argv, args, n) < 0) goto done;
  bool fast = st->kind == DEV_GPU && all_on_device(vals, n) && !s->info.checks_bounds && !k->sanitize &&
              !st->sanitize;
  if (run_pre_launch_callbacks(l) < 0) goto done;
  if (args_sync_producers(st, args, n) < 0) goto done;   /* Numba's CUDA_ARRAY_INTERFACE_SYNC */
  if (st->kind == DEV_GPU && args_after_producers(st, args, n, l->s) < 0) goto done;
  if ((fast ? launch_gpu_fast(l, s, argv, vals, n) : launch_module(l, s, vals, n)) == 0)
    result = Py_NewRef(Py_None);
done:
  for (size_t i = 0; i < got; i++) arg_release(&args[i]);
  if (result && prepared && write_back(prepared) < 0) Py_CLEAR(result);
  Py_XDECREF(prepared);
  if (!result) fix_error(k);
  return result;
}

/* ---- @jit functions called from the host ---- */

/* ---- arrays a @jit function returns ---- */

/* One array in a result: its elements' address, shape and strides (read from the bytes of its
 * p2c_array: data, ndim extents, ndim strides), the memory they span [lo, hi), and the buffer
 * object the NumPy array is made over. */
typedef struct ResultArray {
  const P2cParam *p;
  char *data;
  int64_t shape[P2C_MAX_NDIM], strides[P2C_MAX_NDIM];
  char *lo, *hi;
  PyObject *buffer;
} ResultArray;

static void read_result_array(const P2cParam *p, const unsigned char *bytes, ResultArray *a) {
  memset(a, 0, sizeof *a);
  a->p = p;
  memcpy(&a->data, bytes, sizeof a->data);
  memcpy(a->shape, bytes + 8, 8 * (size_t)p->ndim);
  memcpy(a->strides, bytes + 8 + 8 * (size_t)p->ndim, 8 * (size_t)p->ndim);
  a->lo = a->hi = a->data;
  for (int k = 0; k < p->ndim; k++)
    if (a->shape[k] == 0) return;   /* no elements: it spans nothing */
  for (int k = 0; k < p->ndim; k++) {
    int64_t reach = (a->shape[k] - 1) * a->strides[k];
    if (reach < 0) a->lo += reach;
    else a->hi += reach;
  }
  a->hi += p2c_scalar_size(p->type);
}

/* The arrays in result `p` (at bytes), depth-first, as P2cKernelInfo.result_owners lists them. */
static size_t collect_arrays(const P2cParam *p, const unsigned char *bytes, ResultArray *out, size_t n) {
  if (p->is_array) {
    read_result_array(p, bytes, &out[n]);
    return n + 1;
  }
  for (size_t i = 0; p->type == P2C_TUPLE && i < p->elem_count; i++)
    n = collect_arrays(&p->elems[i], bytes + p->elems[i].offset, out, n);
  return n;
}

/* The memory an argument array spans, [lo, hi) (empty for other arguments). */
static void arg_span(const P2cValue *v, char **lo, char **hi) {
  *lo = *hi = NULL;
  if (!v->is_array) return;
  ResultArray a;
  P2cParam p = {.is_array = true, .type = v->array.dtype, .ndim = v->array.ndim};
  unsigned char bytes[8 + 16 * P2C_MAX_NDIM];
  memcpy(bytes, &v->array.data, 8);
  memcpy(bytes + 8, v->array.shape, 8 * (size_t)p.ndim);
  memcpy(bytes + 8 + 8 * (size_t)p.ndim, v->array.strides, 8 * (size_t)p.ndim);
  read_result_array(&p, bytes, &a);
  *lo = a.lo, *hi = a.hi;
}

/* The buffer objects of the result's arrays: one per heap block the call handed over (it frees
 * the block), covering every array in it; over an argument's memory for an array in one (as
 * Numba returns a view of it). Every block is owned by a buffer object, or freed, afterwards. */
static int result_buffers(Kernel *k, ResultArray *arr, size_t n, void *const *owners, PyObject *const *argv,
                          const P2cValue *vals, size_t nargs) {
  int status = 0;
  for (size_t i = 0; i < n; i++) {   /* each block once, at its first array */
    bool first = owners[i] != NULL;
    for (size_t j = 0; j < i && first; j++) first = owners[j] != owners[i];
    if (!first) continue;
    if (status < 0) {
      p2c_host_block_free(owners[i]);
      continue;
    }
    char *hi = arr[i].hi;
    for (size_t j = i + 1; j < n; j++)
      if (owners[j] == owners[i] && arr[j].hi > hi) hi = arr[j].hi;
    PyObject *b = host_buffer_over(k->st, owners[i], hi - (char *)owners[i], NULL);   /* frees it on failure */
    if (!b) status = -1;
    for (size_t j = i; b && j < n; j++)
      if (owners[j] == owners[i]) arr[j].buffer = Py_NewRef(b);
    Py_XDECREF(b);
  }
  for (size_t i = 0; i < n && status == 0; i++) {   /* an argument's memory */
    for (size_t j = 0; j < nargs && !arr[i].buffer && status == 0; j++) {
      char *lo, *hi;
      arg_span(&vals[j], &lo, &hi);
      if (lo && arr[i].lo >= lo && arr[i].hi <= hi && !(arr[i].buffer = host_buffer_over(k->st, lo, hi - lo, argv[j])))
        status = -1;
    }
    if (!arr[i].buffer && status == 0) {
      PyErr_Format(PyExc_RuntimeError, "%U() returned an array whose memory ends with the call (a local "
                   "array, or a view of one)", k->name);
      status = -1;
    }
  }
  return status;
}

/* np.ndarray over the array's buffer object, as Numba's CPU dispatcher returns a new array. */
static PyObject *boxed_array(State *st, const ResultArray *a) {
  PyObject *np = state_numpy(st), *dtype = state_dtype(st, a->p->type);
  if (!np || !dtype) return NULL;
  const char *base;
  Py_buffer view;
  if (PyObject_GetBuffer(a->buffer, &view, PyBUF_SIMPLE) < 0) return NULL;
  base = view.buf;
  PyBuffer_Release(&view);
  PyObject *shape = PyTuple_New(a->p->ndim), *strides = PyTuple_New(a->p->ndim);
  for (int i = 0; shape && strides && i < a->p->ndim; i++) {
    PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(a->shape[i]));
    PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(a->strides[i]));
  }
  PyObject *cls = PyObject_GetAttrString(np, "ndarray");
  PyObject *kw = shape && strides && cls ? Py_BuildValue("{sOsOsOsLsO}", "shape", shape, "dtype", dtype, "buffer",
                                                         a->buffer, "offset", (long long)(a->data - base),
                                                         "strides", strides) : NULL;
  PyObject *empty = PyTuple_New(0);
  PyObject *out = kw && empty ? PyObject_Call(cls, empty, kw) : NULL;
  Py_XDECREF(empty);
  Py_XDECREF(kw);
  Py_XDECREF(cls);
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  return out;
}

/* A @jit function's result, read from its bytes as `p` describes them, as Numba's CPU dispatcher
 * boxes it: a Python bool, int, float or complex (a float32 result is a Python float, as Numba
 * returns it), a NumPy array (the next of `arrays`, made ready by result_buffers), a tuple of
 * those. */
static PyObject *boxed(State *st, const P2cParam *p, const unsigned char *bytes, const ResultArray *arrays,
                       size_t *next) {
  if (p->is_array) return boxed_array(st, &arrays[(*next)++]);
  if (p->type == P2C_TUPLE) {
    PyObject *t = PyTuple_New((Py_ssize_t)p->elem_count);
    for (size_t i = 0; t && i < p->elem_count; i++) {
      PyObject *e = boxed(st, &p->elems[i], bytes + p->elems[i].offset, arrays, next);
      if (!e) Py_CLEAR(t);
      else PyTuple_SET_ITEM(t, (Py_ssize_t)i, e);
    }
    return t;
  }
  P2cValue v;
  if (!p2c_scalar_unpack(p->type, bytes, &v))
    return PyErr_Format(PyExc_TypeError, "a @jit function returned a value of type %s", p2c_scalar_name(p->type));
  switch (v.type) {
  case P2C_BOOL: return PyBool_FromLong(v.scalar.b);
  case P2C_UINT8: case P2C_UINT16: case P2C_UINT32: case P2C_UINT64: return PyLong_FromUnsignedLongLong(v.scalar.u);
  case P2C_FLOAT16: case P2C_FLOAT32: case P2C_FLOAT64: return PyFloat_FromDouble(v.scalar.f);
  case P2C_COMPLEX64: case P2C_COMPLEX128: return PyComplex_FromDoubles(v.scalar.c[0], v.scalar.c[1]);
  default: return PyLong_FromLongLong(v.scalar.i);   /* the signed integers (typeinfer allows no other) */
  }
}

/* The result in `bytes` boxed; the arrays in it over the heap blocks the call handed over or
 * over the arguments' memory. */
static PyObject *box_result(Kernel *k, const P2cKernelInfo *info, const unsigned char *bytes, PyObject *const *argv,
                            const P2cValue *vals, size_t n) {
  size_t count = info->result_arrays, next = 0;
  ResultArray *arrays = count ? PyMem_Calloc(count, sizeof *arrays) : NULL;
  if (count && !arrays) {
    for (size_t i = 0; i < count; i++) p2c_host_block_free(((void *const *)(bytes + info->result_owners))[i]);
    return PyErr_NoMemory();
  }
  collect_arrays(info->result, bytes, arrays, 0);
  PyObject *out = NULL;
  if (!count || result_buffers(k, arrays, count, (void *const *)(bytes + info->result_owners), argv, vals, n) == 0)
    out = boxed(k->st, info->result, bytes, arrays, &next);
  for (size_t i = 0; i < count; i++) Py_XDECREF(arrays[i].buffer);
  PyMem_Free(arrays);
  return out;
}

/* Runs specialization s with the converted arguments; its result boxed (None when it returns
 * nothing). The result's bytes live in a PyMem block, which is aligned for any result. */
static PyObject *call_spec(Kernel *k, Spec *s, PyObject *const *argv, const P2cValue *vals, size_t n) {
  const P2cParam *res = s->info.result;
  unsigned char *bytes = res ? PyMem_Calloc(1, s->info.result_size) : NULL;
  if (res && !bytes) return PyErr_NoMemory();
  P2cStatus r = p2c_module_call(k->st->compiler, s->m, s->index, vals, n, NULL, bytes, res ? s->info.result_size : 0);
  PyObject *out = r != P2C_OK ? raise_compiler(k->st, r) : res ? box_result(k, &s->info, bytes, argv, vals, n)
                                                                : Py_NewRef(Py_None);
  PyMem_Free(bytes);
  return out;
}

/* _call(*args): the host's call of a @jit function (numba.jit, njit): the specialization the
 * arguments take (the one dispatcher, as for a launch; a new one for a lazy function's new
 * types), run once on the CPU by p2c_module_call; its result boxed. */
static PyObject *kernel_host_call(Kernel *k, PyObject *const *argv, Py_ssize_t nargs) {
  size_t n = (size_t)nargs, want = (size_t)PyTuple_GET_SIZE(k->params);
  if (n != want)
    return PyErr_Format(PyExc_TypeError, "%U() takes %zu argument%s, %zu given", k->name, want,
                        want == 1 ? "" : "s", n);
  if (n > MAX_ARGS) return PyErr_Format(PyExc_TypeError, "%U(): at most %d arguments", k->name, MAX_ARGS);
  if (check_stack(k) < 0) return NULL;
  Arg args[MAX_ARGS];
  P2cValue vals[MAX_ARGS];
  size_t got = 0;
  PyObject *result = NULL;
  Spec *s = spec_for_args(k, NULL, argv, n, args, vals, &got);
  if (s) result = call_spec(k, s, argv, vals, n);
  for (size_t i = 0; i < got; i++) arg_release(&args[i]);
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
  l->callbacks = NULL;
  l->vectorcall = (vectorcallfunc)launch;
  PyObject_GC_Track(l);
  return l;
}

/* kern[grid, block], kern[grid, block, stream], kern[grid, block, stream, sharedmem]. */
/* Numba's low-occupancy warning (0.56 and numba-cuda): a grid of fewer blocks than this, made
 * into a launch configuration, is a NumbaPerformanceWarning when Numba's config asks for it. */
enum { LOW_OCCUPANCY_GRID = 128 };

/* Asks the kernel's `_low_occupancy(blocks)` (cuda.py: Numba's config and warning class) about a
 * small grid; -1 when the warning was made an error by a filter. */
static int warn_low_occupancy(Kernel *k, const Launcher *l) {
  unsigned long long blocks = (unsigned long long)l->grid[0] * l->grid[1] * l->grid[2];
  if (blocks >= LOW_OCCUPANCY_GRID || !PyObject_HasAttrString((PyObject *)k, "_low_occupancy")) return 0;
  PyObject *r = PyObject_CallMethod((PyObject *)k, "_low_occupancy", "K", blocks);
  Py_XDECREF(r);
  return r ? 0 : -1;
}

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
  if (warn_low_occupancy(k, l) < 0) goto fail;
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
  Py_VISIT(l->callbacks);
  return 0;
}

static int launcher_clear(Launcher *l) {
  Py_CLEAR(l->stream);
  Py_CLEAR(l->callbacks);
  return 0;
}

static void launcher_dealloc(Launcher *l) {
  PyTypeObject *tp = Py_TYPE(l);
  PyObject_GC_UnTrack(l);
  Py_CLEAR(l->stream);
  Py_CLEAR(l->callbacks);
  Py_CLEAR(l->k);
  PyObject_GC_Del(l);
  Py_DECREF(tp);
}

static PyObject *launcher_config(Launcher *l, void *c) {
  return Py_BuildValue("((III)(III)OI)", l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                       l->block[2], l->stream ? l->stream : Py_None, l->shared);
}

/* numba-cuda's pre_launch_callbacks: the list of callbacks run before each launch of this
 * configuration (run_pre_launch_callbacks), made empty at its first read. */
static PyObject *launcher_callbacks(Launcher *l, void *c) {
  if (!l->callbacks && !(l->callbacks = PyList_New(0))) return NULL;
  return Py_NewRef(l->callbacks);
}

/* Numba's launch configuration's griddim and blockdim: three ints each. */
static PyObject *launcher_griddim(Launcher *l, void *c) {
  return Py_BuildValue("(III)", l->grid[0], l->grid[1], l->grid[2]);
}
static PyObject *launcher_blockdim(Launcher *l, void *c) {
  return Py_BuildValue("(III)", l->block[0], l->block[1], l->block[2]);
}

/* numba-cuda's launch configuration's dispatcher, sharedmem and stream (0: the default). */
static PyObject *launcher_dispatcher(Launcher *l, void *c) { return Py_NewRef((PyObject *)l->k); }
static PyObject *launcher_sharedmem(Launcher *l, void *c) { return PyLong_FromUnsignedLong(l->shared); }
static PyObject *launcher_stream(Launcher *l, void *c) {
  return l->stream ? Py_NewRef(l->stream) : PyLong_FromLong(0);
}

/* numba-cuda's launch configuration's args: the arguments of the launch compiling on this
 * thread (compile_for_launch), else None. */
static PyObject *launcher_args(Launcher *l, void *c) { return launch_current(CURRENT_ARGS); }

/* Pickled as the kernel (which pickles itself: cuda.Kernel.__reduce__) and the configuration,
 * rebuilt by kernel[grid, block, 0, sharedmem]. A stream is not pickled: it is this process's. */
static PyObject *launcher_reduce(Launcher *l, PyObject *unused) {
  if (l->callbacks && PyList_GET_SIZE(l->callbacks)) {   /* functions of this process, as a stream */
    PyObject *pickle = PyImport_ImportModule("pickle");
    PyObject *error = pickle ? PyObject_GetAttrString(pickle, "PicklingError") : NULL;
    Py_XDECREF(pickle);
    if (error) PyErr_SetString(error, "Cannot pickle configured launches with pre-launch callbacks");
    Py_XDECREF(error);
    return NULL;
  }
  if (l->stream)
    return PyErr_Format(PyExc_TypeError, "cannot pickle kernel '%U' configured with a stream: pickle "
                        "the kernel, or its configuration without the stream", l->k->name);
  PyObject *op = PyImport_ImportModule("operator");
  PyObject *getitem = op ? PyObject_GetAttrString(op, "getitem") : NULL;
  Py_XDECREF(op);
  if (!getitem) return NULL;
  return Py_BuildValue("(N(O((III)(III)iI)))", getitem, (PyObject *)l->k, l->grid[0], l->grid[1],
                       l->grid[2], l->block[0], l->block[1], l->block[2], 0, l->shared);
}

static PyMethodDef launcher_methods[] = {
    {"__reduce__", (PyCFunction)launcher_reduce, METH_NOARGS, "pickled as the kernel and the configuration"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef launcher_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Launcher, vectorcall), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef launcher_getset[] = {
    {"config", (getter)launcher_config, NULL, "(grid, block, stream, sharedmem)", NULL},
    {"griddim", (getter)launcher_griddim, NULL, "the grid's three dimensions", NULL},
    {"blockdim", (getter)launcher_blockdim, NULL, "the block's three dimensions", NULL},
    {"dispatcher", (getter)launcher_dispatcher, NULL, "the kernel", NULL},
    {"sharedmem", (getter)launcher_sharedmem, NULL, "the dynamic shared memory in bytes", NULL},
    {"stream", (getter)launcher_stream, NULL, "the stream (0: the default stream)", NULL},
    {"args", (getter)launcher_args, NULL,
     "the arguments of the launch compiling on this thread (None outside a compilation)", NULL},
    {"pre_launch_callbacks", (getter)launcher_callbacks, NULL,
     "callbacks run as callback(kernel, launch_config) just before each launch", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot launcher_slots[] = {
    {Py_tp_dealloc, launcher_dealloc},
    {Py_tp_traverse, launcher_traverse},
    {Py_tp_clear, launcher_clear},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_members, launcher_members},
    {Py_tp_methods, launcher_methods},
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

/* Kernel(pyfunc, name, filename, source, params, explicit_sigs, extra_sigs, sanitize=False);
 * source is bytes, or None to ask `_build()` for it at the first translation. */
static PyObject *kernel_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  PyObject *pyfunc, *name, *filename, *source, *params, *extra;
  int explicit_sigs, sanitize = 0;
  if (!PyArg_ParseTuple(args, "OUUOO!pO|p:Kernel", &pyfunc, &name, &filename, &source, &PyTuple_Type,
                        &params, &explicit_sigs, &extra, &sanitize))
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

/* Frees n specializations and their array. */
static void free_specs(Spec *specs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    p2c_gpu_module_delete(specs[i].gm);
    if (specs[i].owns_module) p2c_module_delete(specs[i].m);
  }
  PyMem_Free(specs);
}

static void kernel_dealloc(Kernel *k) {
  PyTypeObject *tp = Py_TYPE(k);
  PyObject_GC_UnTrack(k);
  free_specs(k->specs, k->nspecs);
  for (size_t i = 0; i < k->nretired; i++) free_specs(k->retired[i], k->nretired_specs[i]);
  PyMem_Free(k->retired);
  PyMem_Free(k->nretired_specs);
  Py_CLEAR(k->pyfunc);
  Py_CLEAR(k->name);
  Py_CLEAR(k->filename);
  Py_CLEAR(k->source);
  Py_CLEAR(k->params);
  Py_CLEAR(k->extensions);
  Py_CLEAR(k->program);   /* after the specializations: their kernels point into its module */
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

/* _ltoir(index, arch): NVRTC's LTO-IR of specialization `index` (bytes; cuda.compile's
 * output='ltoir'). */
static PyObject *kernel_ltoir(Kernel *k, PyObject *args) {
  Py_ssize_t i;
  const char *arch = NULL;
  if (!PyArg_ParseTuple(args, "n|z:_ltoir", &i, &arch)) return NULL;
  if (i < 0 || (size_t)i >= k->nspecs) return PyErr_Format(PyExc_IndexError, "no specialization %zd", i);
  P2cStatus r = p2c_module_compile(k->st->compiler, k->specs[i].m, arch, P2C_TARGET_LTOIR);
  if (r != P2C_OK) return raise_compiler(k->st, r);
  size_t size;
  const char *image = p2c_module_image(k->specs[i].m, &size);
  return PyBytes_FromStringAndSize(image, (Py_ssize_t)size);
}

/* A text field of a finding's dict into buf (size bytes): 0, or -1 with an exception set. */
static int finding_text(PyObject *d, const char *key, char *buf, size_t size) {
  PyObject *v = PyDict_GetItemString(d, key);
  const char *text = v ? PyUnicode_AsUTF8(v) : NULL;
  if (!text) {
    if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "a finding without '%s'", key);
    return -1;
  }
  snprintf(buf, size, "%s", text);
  return 0;
}

/* A number field of a finding's dict (0 where it has none). */
static uint32_t finding_number(PyObject *d, const char *key) {
  PyObject *v = PyDict_GetItemString(d, key);
  unsigned long n = v && PyLong_Check(v) ? PyLong_AsUnsignedLong(v) : 0;
  if (PyErr_Occurred()) PyErr_Clear();
  return (uint32_t)n;
}

/* A thread or block tuple of a finding's dict (zeros where it has none). */
static void finding_dims(PyObject *d, const char *key, uint32_t out[3]) {
  PyObject *v = PyDict_GetItemString(d, key);
  for (Py_ssize_t j = 0; j < 3; j++) {
    PyObject *x = v && PyTuple_Check(v) && PyTuple_GET_SIZE(v) == 3 ? PyTuple_GET_ITEM(v, j) : NULL;
    out[j] = x && PyLong_Check(x) ? (uint32_t)PyLong_AsUnsignedLong(x) : 0;
  }
  if (PyErr_Occurred()) PyErr_Clear();
}

/* exc.findings' dicts (module.c finding_dict) back into P2cFinding, for the page: kind and
 * message required, the rest where given. *out is PyMem's (free with PyMem_Free); the kind texts
 * are the dicts', valid while `list` lives. 0, or -1 with an exception set. */
static int findings_from(PyObject *list, P2cFinding **out, size_t *n) {
  *out = NULL, *n = 0;
  if (list == Py_None) return 0;
  if (!PyList_Check(list)) return PyErr_SetString(PyExc_TypeError, "findings must be a list (exc.findings)"), -1;
  Py_ssize_t count = PyList_GET_SIZE(list);
  P2cFinding *f = PyMem_Calloc((size_t)count + 1, sizeof *f);
  if (!f) return PyErr_NoMemory(), -1;
  for (Py_ssize_t i = 0; i < count; i++) {
    PyObject *d = PyList_GET_ITEM(list, i);
    PyObject *kind = PyDict_Check(d) ? PyDict_GetItemString(d, "kind") : NULL;
    f[i].kind = kind ? PyUnicode_AsUTF8(kind) : NULL;
    if (!f[i].kind || finding_text(d, "message", f[i].message, sizeof f[i].message) < 0 ||
        finding_text(d, "kernel", f[i].kernel, sizeof f[i].kernel) < 0) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "findings must be exc.findings' dicts");
      PyMem_Free(f);
      return -1;
    }
    f[i].line = finding_number(d, "line"), f[i].column = finding_number(d, "column");
    f[i].other_line = finding_number(d, "other_line"), f[i].other_column = finding_number(d, "other_column");
    finding_dims(d, "thread", f[i].thread);
    finding_dims(d, "block", f[i].block);
  }
  *out = f, *n = (size_t)count;
  return 0;
}

/* _explore(index, arch, block_threads, shared_bytes, findings): the explore page of
 * specialization `index` (p2c_module_explore; docs/explore.md), as str, with the checker's
 * findings (exc.findings, or None) at their lines. */
static PyObject *kernel_explore(Kernel *k, PyObject *args) {
  Py_ssize_t i;
  const char *arch = NULL;
  int block = 0;
  unsigned int shared = 0;
  PyObject *found = Py_None;
  if (!PyArg_ParseTuple(args, "n|ziIO:_explore", &i, &arch, &block, &shared, &found)) return NULL;
  if (i < 0 || (size_t)i >= k->nspecs) return PyErr_Format(PyExc_IndexError, "no specialization %zd", i);
  P2cExploreOptions o = {.arch = arch, .block_threads = block, .dynamic_shared_bytes = shared};
  P2cFinding *findings;
  if (findings_from(found, &findings, &o.finding_count) < 0) return NULL;
  o.findings = findings;
  const char *html = NULL;
  size_t len = 0;
  P2cStatus r = p2c_module_explore(k->st->compiler, k->specs[i].m, &o, &html, &len);
  PyMem_Free(findings);
  if (r != P2C_OK) return raise_compiler(k->st, r);
  return PyUnicode_DecodeUTF8(html, (Py_ssize_t)len, "replace");
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

/* _max_threads(index): the most threads a block of a launch of specialization `index` may have
 * on the device in use (Numba's get_max_threads_per_block). */
static PyObject *kernel_max_threads(Kernel *k, PyObject *arg) {
  Py_ssize_t i = PyLong_AsSsize_t(arg);
  if (i == -1 && PyErr_Occurred()) return NULL;
  if (i < 0 || (size_t)i >= k->nspecs) return PyErr_Format(PyExc_IndexError, "no specialization %zd", i);
  if (state_device(k->st) < 0) return NULL;
  Spec *s = &k->specs[i];
  if (k->st->kind != DEV_GPU) {   /* the simulator's limit, or the launch bounds it checks */
    uint32_t most = p2c_sim_max_block_threads(), bound = s->info.launch_bound_threads;
    return PyLong_FromUnsignedLong(bound && bound < most ? bound : most);
  }
  uint32_t threads = 0;
  if (gpu_kernel(k, s) < 0) return NULL;
  P2cStatus r = p2c_gpu_kernel_max_threads(s->gk, &threads);
  if (r != P2C_OK) return raise_device(k->st, r);
  return PyLong_FromUnsignedLong(threads);
}

/* _compile_args(args): the specialization a launch with these arguments takes, made now if
 * there is none (the work of numba-cuda's Dispatcher._compile_for_args, which cuda.py's calls);
 * its index. */
static PyObject *kernel_compile_args(Kernel *k, PyObject *argtuple) {
  if (!PyTuple_Check(argtuple)) return PyErr_Format(PyExc_TypeError, "_compile_args takes a tuple");
  size_t n = (size_t)PyTuple_GET_SIZE(argtuple);
  if (n != (size_t)PyTuple_GET_SIZE(k->params) || n > MAX_ARGS)
    return PyErr_Format(PyExc_TypeError, "kernel '%U' takes %zd arguments, %zu given", k->name,
                        PyTuple_GET_SIZE(k->params), n);
  if (state_device(k->st) < 0) return NULL;
  Arg args[MAX_ARGS];
  P2cValue vals[MAX_ARGS];
  size_t got = 0;
  Spec *s = spec_for_args(k, NULL, &PyTuple_GET_ITEM(argtuple, 0), n, args, vals, &got);
  for (size_t i = 0; i < got; i++) arg_release(&args[i]);
  return s ? PyLong_FromSsize_t(s - k->specs) : NULL;
}

/* _recompile(extra_signatures): Numba's Dispatcher.recompile. The specializations are retired
 * (kept until the kernel is freed) and the source forgotten, so the next translation asks
 * `_build()` again (the function's globals frozen anew); a kernel declared with signatures is
 * translated again now, with `extra_signatures` (a list of str, or None) as at its making. */
static PyObject *kernel_recompile(Kernel *k, PyObject *extra) {
  if (extra != Py_None && !PyList_Check(extra))
    return PyErr_Format(PyExc_TypeError, "extra signatures must be a list of str");
  Spec **r = PyMem_Realloc(k->retired, (k->nretired + 1) * sizeof *r);
  if (r) k->retired = r;
  size_t *n = r ? PyMem_Realloc(k->nretired_specs, (k->nretired + 1) * sizeof *n) : NULL;
  if (!n) return PyErr_NoMemory();
  k->nretired_specs = n;
  k->retired[k->nretired] = k->specs;
  k->nretired_specs[k->nretired++] = k->nspecs;
  k->specs = NULL;
  k->nspecs = k->cap = 0;
  k->in_program = false;   /* the new specializations compile on their own */
  Py_SETREF(k->source, Py_NewRef(Py_None));
  if (k->explicit_sigs && translate_signed(k, extra == Py_None ? NULL : extra) < 0) return NULL;
  Py_RETURN_NONE;
}

/* _in_program(): whether the kernel's GPU compiles use a Program now (for tests and docs). */
static PyObject *kernel_in_program(Kernel *k, PyObject *unused) {
  (void)unused;
  return PyBool_FromLong(k->in_program);
}

/* _host_tiers(settle=False): [(signature, tier, why not the first)] of a @jit function's
 * specializations (p2c_module_host_tier: tier 'first', 'optimized' or None before any call);
 * with settle, each one's optimized build is waited for and swapped in first. */
static PyObject *kernel_host_tiers(Kernel *k, PyObject *args) {
  int settle = 0;
  if (!PyArg_ParseTuple(args, "|p", &settle)) return NULL;
  static const char *const names[] = {NULL, "first", "optimized"};
  PyObject *out = PyList_New(0);
  for (size_t i = 0; out && i < k->nspecs; i++) {
    if (settle) {
      Py_BEGIN_ALLOW_THREADS
      p2c_module_host_settle(k->specs[i].m);
      Py_END_ALLOW_THREADS
    }
    const char *why;
    P2cHostTier t = p2c_module_host_tier(k->specs[i].m, &why);
    PyObject *row = Py_BuildValue("(szs)", k->specs[i].info.signature, names[t], why);
    if (!row || PyList_Append(out, row) < 0) Py_CLEAR(out);
    Py_XDECREF(row);
  }
  return out;
}

static PyMethodDef kernel_methods[] = {
    {"_host_tiers", (PyCFunction)kernel_host_tiers, METH_VARARGS,
     "_host_tiers(settle=False): [(signature, tier, why not the first)] of a @jit function"},
    {"_compile_args", (PyCFunction)kernel_compile_args, METH_O,
     "_compile_args(args): the index of the specialization these arguments take, made if new"},
    {"_recompile", (PyCFunction)kernel_recompile, METH_O,
     "_recompile(extra_signatures): retire every specialization and translate again"},
    {"_max_threads", (PyCFunction)kernel_max_threads, METH_O,
     "_max_threads(index): the most threads per block of specialization index"},
    {"_cooperative", (PyCFunction)kernel_cooperative, METH_VARARGS,
     "(cooperative, max blocks of a cooperative launch) of a specialization"},
    {"forall", (PyCFunction)(void (*)(void))kernel_forall, METH_VARARGS | METH_KEYWORDS,
     "forall(ntasks, tpb=256, stream=0, sharedmem=0): a launcher over ntasks threads"},
    {"_specs", (PyCFunction)kernel_specs, METH_NOARGS, "[(signature, cuda, types, symbol)]"},
    {"_call", (PyCFunction)(void (*)(void))kernel_host_call, METH_FASTCALL,
     "_call(*args): the host's call of a @jit function, run on the CPU"},
    {"_ptx", (PyCFunction)kernel_ptx, METH_VARARGS, "(ptx, nvrtc log) of a specialization"},
    {"_ltoir", (PyCFunction)kernel_ltoir, METH_VARARGS, "the LTO-IR (bytes) of a specialization"},
    {"_program", (PyCFunction)kernel_program, METH_VARARGS,
     "_program(source, kernels, signatures): several signed kernels translated as one program"},
    {"_join", (PyCFunction)kernel_join, METH_O,
     "_join(program): compile for the GPU from the program; whether the kernel joined"},
    {"_in_program", (PyCFunction)kernel_in_program, METH_NOARGS,
     "whether the kernel's GPU compiles use a program shared with other kernels"},
    {"_explore", (PyCFunction)kernel_explore, METH_VARARGS, "the explore page (HTML) of a specialization"},
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
