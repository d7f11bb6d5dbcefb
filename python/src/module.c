/* pyk2cuda._core: module init (PEP 489 multi-phase), its state, the choice of device, and the
 * exceptions that carry the C API's data.
 *
 * Device choice, as `--device auto` on the command line: PYK2CUDA_DEVICE=sim|gpu|auto (default
 * auto) or select(kind) before the first launch; auto takes the GPU when a CUDA driver and a
 * device are found, else the simulator, and says so once on stderr when it falls back (the
 * choice is also device_kind() and why()). */
#include "ext.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct PyModuleDef module_def;

/* The state of the module that defined `t` or the class `t` derives from (pyk2cuda.cuda's
 * Kernel subclasses _Kernel). */
State *state_of_type(PyTypeObject *t) {
  PyObject *m = PyType_GetModuleByDef(t, &module_def);
  return m ? PyModule_GetState(m) : NULL;
}

/* ---- errors ---- */

static const char *status_name(P2cStatus s) {
  static const char *const names[] = {"ok", "source", "usage", "nomem", "no_cuda", "nvrtc",
                                      "cuda", "io", "format", "sim", "internal", "bounds", "sanitize",
                                      "interrupted", "illegal_address"};
  return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "unknown";
}

/* The module's diagnostics of one severity (all of them when `only` is negative) as a list of
 * (file, line, column, severity, code, message). */
PyObject *diagnostics_list(const P2cModule *m, int only) {
  static const char *const sev[] = {"error", "warning", "note"};
  size_t n = p2c_module_diagnostic_count(m);
  PyObject *list = PyList_New(0);
  for (size_t i = 0; list && i < n; i++) {
    P2cDiagnostic d = p2c_module_diagnostic(m, i);
    if (only >= 0 && (int)d.severity != only) continue;
    PyObject *t = Py_BuildValue("(sIIsss)", d.file ? d.file : "", d.line, d.column,
                                sev[d.severity <= P2C_SEVERITY_NOTE ? d.severity : 0],
                                d.code ? d.code : "", d.message ? d.message : "");
    if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
    Py_XDECREF(t);
  }
  return list;
}

PyObject *join_list(const char *sep, PyObject *list) {
  if (!list) return NULL;
  PyObject *s = PyUnicode_FromString(sep);
  PyObject *text = s ? PyUnicode_Join(s, list) : NULL;
  Py_XDECREF(s);
  Py_DECREF(list);
  return text;
}

/* "FILE:LINE:COL: error: MESSAGE" lines, as the command line prints them. */
static PyObject *diagnostics_text(const P2cModule *m) {
  static const char *const sev[] = {"error", "warning", "note"};
  PyObject *parts = PyList_New(0);
  size_t n = p2c_module_diagnostic_count(m);
  for (size_t i = 0; parts && i < n; i++) {
    P2cDiagnostic d = p2c_module_diagnostic(m, i);
    PyObject *line = PyUnicode_FromFormat("%s:%u:%u: %s: %s", d.file ? d.file : "", d.line,
                                          d.column, sev[d.severity <= P2C_SEVERITY_NOTE ? d.severity : 0],
                                          d.message ? d.message : "");
    if (!line || PyList_Append(parts, line) < 0) Py_CLEAR(parts);
    Py_XDECREF(line);
  }
  return join_list("\n", parts);
}

/* exc.failure: what a failed launch recorded (p2c_compiler_last_failure), as a dict (raised,
 * exception, file, kernel, line, column, thread, block), or None; cuda.py makes Numba's
 * exception of it. After a simulator's fault: raised, file, kernel and line (0: not known).
 * 0, or -1 with an exception set. */
static int attach_failure(State *st, P2cStatus s, PyObject *exc) {
  P2cLaunchFailure f;
  PyObject *value;
  if (s == P2C_ERR_ILLEGAL_ADDRESS && p2c_compiler_last_failure(st->compiler, &f))
    value = Py_BuildValue("{s:O,s:s,s:s,s:I}", "raised", Py_False, "file", f.file, "kernel", f.kernel,
                          "line", f.line);
  else if (s == P2C_ERR_BOUNDS && p2c_compiler_last_failure(st->compiler, &f))
    value = Py_BuildValue("{s:O,s:s,s:s,s:s,s:I,s:I,s:(III),s:(III)}", "raised", f.raised ? Py_True : Py_False,
                          "exception", f.exception, "file", f.file, "kernel", f.kernel, "line", f.line,
                          "column", f.column, "thread", f.thread[0], f.thread[1], f.thread[2], "block",
                          f.block[0], f.block[1], f.block[2]);
  else
    value = Py_NewRef(Py_None);
  int r = value ? PyObject_SetAttrString(exc, "failure", value) : -1;
  Py_XDECREF(value);
  return r;
}

/* One finding of the checker (P2cFinding) as a dict: kind, message, file, kernel, line, column,
 * thread, block; an access's access, space, array and index; a race's other_line,
 * other_column, other_access, other_thread and other_block. */
static PyObject *finding_dict(const P2cFinding *f) {
  PyObject *d = Py_BuildValue("{s:s,s:s,s:s,s:s,s:I,s:I,s:(III),s:(III)}", "kind", f->kind, "message", f->message,
                              "file", f->file, "kernel", f->kernel, "line", f->line, "column", f->column, "thread",
                              f->thread[0], f->thread[1], f->thread[2], "block", f->block[0], f->block[1], f->block[2]);
  PyObject *index = d && f->access ? PyTuple_New(f->ndim) : NULL;
  for (int k = 0; index && k < f->ndim; k++) PyTuple_SET_ITEM(index, k, PyLong_FromLongLong(f->index[k]));
  PyObject *access = index ? Py_BuildValue("{s:s,s:s,s:s,s:O}", "access", f->access, "space", f->space, "array",
                                           f->array, "index", index) : NULL;
  PyObject *race = access && f->other_access
                       ? Py_BuildValue("{s:I,s:I,s:s,s:(III),s:(III)}", "other_line", f->other_line, "other_column",
                                       f->other_column, "other_access", f->other_access, "other_thread",
                                       f->other_thread[0], f->other_thread[1], f->other_thread[2], "other_block",
                                       f->other_block[0], f->other_block[1], f->other_block[2])
                       : NULL;
  bool ok = d && (!f->access || (access && PyDict_Update(d, access) == 0)) &&
            (!f->other_access || (race && PyDict_Update(d, race) == 0));
  Py_XDECREF(index);
  Py_XDECREF(access);
  Py_XDECREF(race);
  if (!ok) Py_CLEAR(d);
  return d;
}

/* exc.findings: what the checker found (p2c_compiler_last_findings), a list of finding_dict's
 * (the first 64 distinct ones), or None after another failure. 0, or -1 with an exception set. */
static int attach_findings(State *st, P2cStatus s, PyObject *exc) {
  P2cFindings all;
  PyObject *list = s == P2C_ERR_SANITIZE && p2c_compiler_last_findings(st->compiler, &all) ? PyList_New(0)
                                                                                           : Py_NewRef(Py_None);
  for (size_t i = 0; list && list != Py_None && i < all.count; i++) {
    P2cFinding f;
    PyObject *d = p2c_compiler_finding(st->compiler, i, &f) ? finding_dict(&f) : NULL;
    if (!d || PyList_Append(list, d) < 0) Py_CLEAR(list);
    Py_XDECREF(d);
  }
  int r = list ? PyObject_SetAttrString(exc, "findings", list) : -1;
  Py_XDECREF(list);
  return r;
}

/* The exception object: cls(message) with .status, .status_name, .failure, .findings and (CompileError)
 * .diagnostics set as attributes. */
PyObject *raise_status(State *st, P2cStatus s, const char *msg, const P2cModule *diags) {
  if (s == P2C_ERR_INTERRUPTED && PyErr_Occurred()) return NULL;   /* python_interrupted's */
  PyObject *cls = s == P2C_ERR_SOURCE ? st->CompileError : s == P2C_ERR_BOUNDS ? st->BoundsError : st->Error;
  PyObject *text = diags && p2c_module_diagnostic_count(diags) ? diagnostics_text(diags)
                                                                 : PyUnicode_FromString(msg ? msg : "");
  if (!text) return NULL;
  PyObject *exc = PyObject_CallOneArg(cls, text);
  Py_DECREF(text);
  if (!exc) return NULL;
  PyObject *status = PyLong_FromLong((long)s);
  PyObject *name = PyUnicode_FromString(status_name(s));
  PyObject *list = diags ? diagnostics_list(diags, -1) : PyList_New(0);
  if (status && name && list && PyObject_SetAttrString(exc, "status", status) == 0 &&
      PyObject_SetAttrString(exc, "status_name", name) == 0 &&
      PyObject_SetAttrString(exc, "diagnostics", list) == 0 && attach_failure(st, s, exc) == 0 &&
      attach_findings(st, s, exc) == 0)
    PyErr_SetObject(cls, exc);
  Py_XDECREF(status);
  Py_XDECREF(name);
  Py_XDECREF(list);
  Py_DECREF(exc);
  return NULL;
}

PyObject *raise_compiler(State *st, P2cStatus s) {
  return raise_status(st, s, p2c_compiler_last_error(st->compiler), NULL);
}

PyObject *raise_device(State *st, P2cStatus s) {
  return raise_status(st, s, st->gpu ? p2c_device_last_error(st->gpu) : "no device", NULL);
}

/* ---- numpy, imported at the first need (the package works without it until arrays are made) */

PyObject *state_numpy(State *st) {
  if (!st->numpy) st->numpy = PyImport_ImportModule("numpy");
  return st->numpy;
}

PyObject *state_dtype(State *st, P2cScalarType t) {
  if ((unsigned)t >= P2C_SCALAR_TYPE_COUNT) {
    PyErr_SetString(PyExc_ValueError, "invalid scalar type");
    return NULL;
  }
  if (st->dtypes[t]) return st->dtypes[t];
  PyObject *np = state_numpy(st);
  if (!np) return NULL;
  const char *name = t == P2C_BOOL ? "bool" : p2c_scalar_name(t);
  size_t n = strlen(name);   /* Numba's "datetime64[]" (the generic unit) is NumPy's "datetime64" */
  if (is_time_type(t) && n > 2 && strcmp(name + n - 2, "[]") == 0) n -= 2;
  st->dtypes[t] = PyObject_CallMethod(np, "dtype", "s#", name, (Py_ssize_t)n);
  return st->dtypes[t];
}

/* ---- the device ---- */

static int open_gpu(State *st, int ordinal) {
  P2cDevice *d = NULL;
  P2cStatus s = p2c_device_open(st->compiler, ordinal, &d);
  if (s != P2C_OK) {
    raise_compiler(st, s);
    return -1;
  }
  st->gpu = d;
  st->ordinal = ordinal;
  st->kind = DEV_GPU;
  st->gpu_pid = getpid();
  P2cDeviceInfo info = p2c_device_info(d);
  snprintf(st->why, sizeof st->why, "running on the GPU (CUDA device %d: %s)", ordinal, info.name);
  return 0;
}

/* auto: the GPU when a driver and a device are found, else the simulator, said once. */
static int choose_auto(State *st) {
  int count = 0;
  P2cStatus s = p2c_device_count(st->compiler, &count);
  if (s == P2C_OK && count > 0) return open_gpu(st, 0);
  st->kind = DEV_SIM;
  snprintf(st->why, sizeof st->why, "%.300s; running on the simulator",
           s == P2C_OK ? "no CUDA device" : p2c_compiler_last_error(st->compiler));
  PySys_FormatStderr("pyk2cuda: %s\n", st->why);
  return 0;
}

static int choose(State *st, const char *kind, int ordinal) {
  if (!kind || !*kind || strcmp(kind, "auto") == 0) return choose_auto(st);
  if (strcmp(kind, "gpu") == 0) return open_gpu(st, ordinal);
  if (strcmp(kind, "sim") == 0) {
    st->kind = DEV_SIM;
    snprintf(st->why, sizeof st->why, "running on the simulator (asked for)");
    return 0;
  }
  PyErr_Format(PyExc_ValueError, "device '%s': expected 'auto', 'gpu' or 'sim'", kind);
  return -1;
}

int state_device(State *st) {
  /* A CUDA context is its process's: a child made by fork() after the GPU was opened cannot
   * use it (the driver's calls there fail or hang), so it is told, as Numba tells it. The
   * simulator has no context: a forked child simulates as its parent does. */
  if (st->kind == DEV_GPU && st->gpu_pid != getpid()) {
    PyErr_Format(st->Error, "CUDA initialized before forking: this process is a fork of process %ld, "
                 "which opened the GPU, and cannot use its CUDA context; start it with "
                 "multiprocessing's 'spawn' or 'forkserver' method instead", (long)st->gpu_pid);
    return -1;
  }
  if (st->kind != DEV_UNDECIDED) return 0;
  return choose(st, getenv("PYK2CUDA_DEVICE"), 0);
}

/* ---- module functions ---- */

static PyObject *m_select(PyObject *mod, PyObject *args) {
  State *st = PyModule_GetState(mod);
  const char *kind;
  int ordinal = 0;
  if (!PyArg_ParseTuple(args, "s|i:select", &kind, &ordinal)) return NULL;
  if (st->kind != DEV_UNDECIDED) {
    bool same = (st->kind == DEV_SIM && strcmp(kind, "sim") == 0) ||
                (st->kind == DEV_GPU && strcmp(kind, "sim") != 0 && ordinal == st->ordinal);
    if (same) Py_RETURN_NONE;
    return PyErr_Format(st->Error, "the device is already chosen (%s); choose before the first "
                        "launch or allocation", st->why);
  }
  if (choose(st, kind, ordinal) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *m_device_kind(PyObject *mod, PyObject *unused) {
  State *st = PyModule_GetState(mod);
  if (state_device(st) < 0) return NULL;
  return PyUnicode_FromString(st->kind == DEV_GPU ? "gpu" : "sim");
}

/* find_nvdisasm(): the nvdisasm the explore view runs (p2c_find_nvdisasm), for inspect_sass;
 * pyk2cuda.Error (status 'no_cuda') with the page's words when there is none. */
static PyObject *m_find_nvdisasm(PyObject *mod, PyObject *unused) {
  (void)unused;
  char path[1400];
  if (p2c_find_nvdisasm(path, sizeof path)) return PyUnicode_DecodeFSDefault(path);
  return raise_status(PyModule_GetState(mod), P2C_ERR_NO_CUDA, path, NULL);
}

static PyObject *m_why(PyObject *mod, PyObject *unused) {
  State *st = PyModule_GetState(mod);
  if (state_device(st) < 0) return NULL;
  return PyUnicode_FromString(st->why);
}

/* The compile cache's folder (p2c_cache_folder), None when none can be named. */
static PyObject *m_cache_folder(PyObject *mod, PyObject *unused) {
  char path[4096];
  if (!p2c_cache_folder(path, sizeof path)) Py_RETURN_NONE;
  return PyUnicode_DecodeFSDefault(path);
}

/* The number of CUDA devices, 0 when there is no driver or device (never raises for that). */
static PyObject *m_gpu_count(PyObject *mod, PyObject *unused) {
  State *st = PyModule_GetState(mod);
  int count = 0;
  if (p2c_device_count(st->compiler, &count) != P2C_OK) count = 0;
  return PyLong_FromLong(count);
}

/* A dict of the GPU's properties (GPU only). */
static PyObject *m_device_info(PyObject *mod, PyObject *unused) {
  State *st = PyModule_GetState(mod);
  if (state_device(st) < 0) return NULL;
  if (st->kind != DEV_GPU) return PyErr_Format(st->Error, "no GPU: %s", st->why);
  P2cDeviceInfo i = p2c_device_info(st->gpu);
  return Py_BuildValue("{s:i,s:s,s:s,s:(ii),s:K,s:i,s:i,s:i,s:(iii),s:(iii),s:i}", "id", i.ordinal,
                       "name", i.name, "arch", i.arch, "compute_capability", i.compute_major,
                       i.compute_minor, "total_memory", (unsigned long long)i.total_memory,
                       "multiprocessors", i.multiprocessors, "warp_size", i.warp_size,
                       "max_threads_per_block", i.max_threads_per_block, "max_block", i.max_block[0],
                       i.max_block[1], i.max_block[2], "max_grid", i.max_grid[0], i.max_grid[1],
                       i.max_grid[2], "max_shared_per_block", i.max_shared_per_block);
}

/* The environment report of `pyk2cuda info`, and whether a GPU was found. */
static PyObject *m_environment(PyObject *mod, PyObject *unused) {
  State *st = PyModule_GetState(mod);
  char *text = NULL;
  P2cStatus s = p2c_environment_info(st->compiler, &text);
  if (!text) return raise_compiler(st, s);
  PyObject *r = Py_BuildValue("(sO)", text, s == P2C_OK ? Py_True : Py_False);
  p2c_text_free(st->compiler, text);
  return r;
}

static PyObject *m_synchronize(PyObject *mod, PyObject *unused) {
  State *st = PyModule_GetState(mod);
  if (state_device(st) < 0) return NULL;
  if (st->kind == DEV_GPU) {
    P2cStatus s;
    Py_BEGIN_ALLOW_THREADS
    s = p2c_device_synchronize(st->gpu);
    Py_END_ALLOW_THREADS
    if (s != P2C_OK) return raise_device(st, s);
    stream_device_synchronized(st);
  }
  Py_RETURN_NONE;
}

/* A check for later translations, kept in the state: each translation passes the state's checks
 * (kernel.c checks_of, ufunc.c), so nothing is toggled on the compiler. */
static PyObject *set_switch(PyObject *arg, bool *kept) {
  int on = PyObject_IsTrue(arg);
  if (on < 0) return NULL;
  *kept = on;
  Py_RETURN_NONE;
}

static PyObject *m_set_check_bounds(PyObject *mod, PyObject *arg) {
  State *st = PyModule_GetState(mod);
  return set_switch(arg, &st->check_bounds);
}

static PyObject *m_set_sanitize(PyObject *mod, PyObject *arg) {
  State *st = PyModule_GetState(mod);
  return set_switch(arg, &st->sanitize);
}

/* _set_arg_hint(cls): the base class of the argument wrappers (cuda.In, Out, InOut) that a
 * launch hands to Kernel._prepare_args. */
static PyObject *m_set_arg_hint(PyObject *mod, PyObject *cls) {
  State *st = PyModule_GetState(mod);
  if (!PyType_Check(cls)) return PyErr_Format(PyExc_TypeError, "_set_arg_hint takes a class");
  Py_XDECREF(st->arg_hint);
  st->arg_hint = Py_NewRef(cls);
  Py_RETURN_NONE;
}

/* _set_assigned(func): func(view, value), the NumPy array that `d[key] = value` writes into
 * the view d[key] (Numba's shape checks and broadcasting, in cuda.py). */
static PyObject *m_set_assigned(PyObject *mod, PyObject *func) {
  State *st = PyModule_GetState(mod);
  if (!PyCallable_Check(func)) return PyErr_Format(PyExc_TypeError, "_set_assigned takes a function");
  Py_XSETREF(st->assigned, Py_NewRef(func));
  Py_RETURN_NONE;
}

/* _set_transposed(func): func(d, axes), what d.T and d.transpose(*axes) return (Numba's rules,
 * in cuda.py: a 2-D array's transpose is a new array, made by cuda.kernels.transpose). */
static PyObject *m_set_transposed(PyObject *mod, PyObject *func) {
  State *st = PyModule_GetState(mod);
  if (!PyCallable_Check(func)) return PyErr_Format(PyExc_TypeError, "_set_transposed takes a function");
  Py_XSETREF(st->transposed, Py_NewRef(func));
  Py_RETURN_NONE;
}

/* _set_cai_sync(func): func(handle), called for each foreign array a launch consumes whose
 * __cuda_array_interface__ names a stream (cuda._cai_sync: Numba's CUDA_ARRAY_INTERFACE_SYNC). */
static PyObject *m_set_cai_sync(PyObject *mod, PyObject *func) {
  State *st = PyModule_GetState(mod);
  if (!PyCallable_Check(func)) return PyErr_Format(PyExc_TypeError, "_set_cai_sync takes a function");
  Py_XSETREF(st->cai_sync, Py_NewRef(func));
  Py_RETURN_NONE;
}

/* array_layout(itemsize, shape, strides): 'C', 'F' or 'A', the library's one rule
 * (p2c_array_layout), for arrays the package describes by their strides. */
static PyObject *m_array_layout(PyObject *mod, PyObject *args) {
  Py_ssize_t itemsize;
  PyObject *shape, *strides;
  if (!PyArg_ParseTuple(args, "nOO:array_layout", &itemsize, &shape, &strides)) return NULL;
  PyObject *sh = PySequence_Tuple(shape), *st = sh ? PySequence_Tuple(strides) : NULL;
  Py_ssize_t n = sh ? PyTuple_GET_SIZE(sh) : 0;
  int64_t dims[P2C_MAX_NDIM], steps[P2C_MAX_NDIM];
  PyObject *r = NULL;
  if (st && (n > P2C_MAX_NDIM || PyTuple_GET_SIZE(st) != n))
    PyErr_Format(PyExc_ValueError, "array_layout: %zd extents and %zd strides (at most %d)", n,
                 PyTuple_GET_SIZE(st), P2C_MAX_NDIM);
  else if (st) {
    for (Py_ssize_t i = 0; i < n && !PyErr_Occurred(); i++) {
      dims[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(sh, i));
      steps[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(st, i));
    }
    if (!PyErr_Occurred()) {
      char layout = p2c_array_layout((int64_t)itemsize, (int)n, dims, steps);
      r = PyUnicode_FromStringAndSize(&layout, 1);
    }
  }
  Py_XDECREF(sh);
  Py_XDECREF(st);
  return r;
}

/* type_spellings(): ((name, canonical, numba), ...), the library's one table of scalar type
 * names (p2c_type_spelling), from which pyk2cuda.types makes its type objects. */
static PyObject *m_type_spellings(PyObject *mod, PyObject *unused) {
  PyObject *list = PyList_New(0);
  const char *name, *canonical;
  bool numba;
  for (size_t i = 0; list && p2c_type_spelling(i, &name, &canonical, &numba); i++) {
    PyObject *row = Py_BuildValue("(ssO)", name, canonical, numba ? Py_True : Py_False);
    if (!row || PyList_Append(list, row) < 0) Py_CLEAR(list);
    Py_XDECREF(row);
  }
  PyObject *t = list ? PyList_AsTuple(list) : NULL;
  Py_XDECREF(list);
  return t;
}

/* array_dims(ndim, layout): "[:, ::1]", how signatures write an array's dimensions (the
 * library's one rule, p2c_array_dims), for the package's type objects and signature texts. */
static PyObject *m_array_dims(PyObject *mod, PyObject *args) {
  int ndim;
  const char *layout;
  Py_ssize_t n;
  char buf[64];
  if (!PyArg_ParseTuple(args, "is#:array_dims", &ndim, &layout, &n)) return NULL;
  if (n != 1 || !p2c_array_dims(ndim, layout[0], buf, sizeof buf))
    return PyErr_Format(PyExc_ValueError, "an array type has 0 to %d dimensions and layout 'C', 'F' or 'A' "
                        "(got %d, %R)", P2C_MAX_NDIM, ndim, PyTuple_GET_ITEM(args, 1));
  return PyUnicode_FromString(buf);
}

/* gufunc_layout(text): ([input's dimension names, ...], [output's]), each a tuple of str, as the
 * translator reads @guvectorize's layout (p2c_gufunc_layout); ValueError when it is not one. */
static PyObject *m_gufunc_layout(PyObject *mod, PyObject *arg) {
  Py_ssize_t n;
  const char *text = PyUnicode_AsUTF8AndSize(arg, &n);
  if (!text) return NULL;
  P2cGufuncLayout *g = PyMem_Malloc(sizeof *g);
  if (!g) return PyErr_NoMemory();
  PyObject *groups[2] = {NULL, NULL}, *r = NULL;
  if (!p2c_gufunc_layout(text, (size_t)n, g)) {
    PyErr_Format(PyExc_ValueError, "bad gufunc layout '%s': %s", text, g->error);
    goto done;
  }
  if (!(groups[0] = PyList_New(0)) || !(groups[1] = PyList_New(0))) goto done;
  for (int k = 0; k < g->nargs; k++) {
    PyObject *names = PyTuple_New(g->ndims[k]);
    for (int d = 0; names && d < g->ndims[k]; d++) {
      PyObject *name = PyUnicode_FromStringAndSize(text + g->name_at[k][d], g->name_len[k][d]);
      if (!name) Py_CLEAR(names);
      else PyTuple_SET_ITEM(names, d, name);
    }
    int failed = !names || PyList_Append(groups[k >= g->ninputs], names) < 0;
    Py_XDECREF(names);
    if (failed) goto done;
  }
  r = PyTuple_Pack(2, groups[0], groups[1]);
done:
  Py_XDECREF(groups[0]);
  Py_XDECREF(groups[1]);
  PyMem_Free(g);
  return r;
}

/* slices_layout(ndim, first, last): Numba's layout of a type indexed with ndim slices whose
 * first and last are '::1' or not (p2c_slices_layout). */
static PyObject *m_slices_layout(PyObject *mod, PyObject *args) {
  int ndim, first, last;
  if (!PyArg_ParseTuple(args, "ipp:slices_layout", &ndim, &first, &last)) return NULL;
  char layout = p2c_slices_layout(ndim, first, last);
  return PyUnicode_FromStringAndSize(&layout, 1);
}

/* defer_cleanup_enter() / defer_cleanup_exit(): cuda.defer_cleanup()'s block (devarray.c,
 * release_buffer); blocks nest, and the memory is freed when the outermost one ends. */
static PyObject *m_defer_cleanup_enter(PyObject *mod, PyObject *unused) {
  (void)unused;
  State *st = PyModule_GetState(mod);
  st->defer_depth++;
  Py_RETURN_NONE;
}

static PyObject *m_defer_cleanup_exit(PyObject *mod, PyObject *unused) {
  (void)unused;
  State *st = PyModule_GetState(mod);
  if (st->defer_depth == 0) return PyErr_Format(PyExc_RuntimeError, "defer_cleanup_exit without its enter");
  if (--st->defer_depth == 0) devarray_free_deferred(st);
  Py_RETURN_NONE;
}

/* bundle(filename, source, kernels, signatures, archs, with_sim, name): [(suffix, text)] of an
 * ahead-of-time bundle of the source's kernels (p2c_translate, then p2c_module_bundle; docs/aot.md).
 * kernels and signatures are lists of str ("name(types)"); an empty kernels list means all. */
static PyObject *m_bundle(PyObject *mod, PyObject *args) {
  State *st = PyModule_GetState(mod);
  const char *file, *name;
  Py_buffer src;
  PyObject *kernels, *sigs, *archs;
  int with_sim;
  if (!PyArg_ParseTuple(args, "sy*O!O!O!ps:bundle", &file, &src, &PyList_Type, &kernels, &PyList_Type, &sigs,
                        &PyList_Type, &archs, &with_sim, &name))
    return NULL;
  Py_ssize_t nk = PyList_GET_SIZE(kernels), ns = PyList_GET_SIZE(sigs), na = PyList_GET_SIZE(archs);
  const char **strs = PyMem_Calloc((size_t)(nk + ns + na + 1), sizeof *strs);
  PyObject *result = NULL;
  P2cModule *m = NULL;
  P2cBundle *b = NULL;
  if (!strs) goto done;
  for (Py_ssize_t i = 0; i < nk + ns + na; i++) {
    PyObject *item = i < nk ? PyList_GET_ITEM(kernels, i) : i < nk + ns ? PyList_GET_ITEM(sigs, i - nk)
                                                                       : PyList_GET_ITEM(archs, i - nk - ns);
    if (!(strs[i] = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : NULL)) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "bundle: kernels, signatures and archs are str");
      goto done;
    }
  }
  P2cTranslateOptions o = {nk ? strs : NULL, (size_t)nk, strs + nk, (size_t)ns, false, false, {0}};
  P2cStatus s = p2c_translate(st->compiler, file, src.buf, (size_t)src.len, &o, &m);
  if (s != P2C_OK) {
    raise_status(st, s, p2c_compiler_last_error(st->compiler), m);
    goto done;
  }
  P2cBundleOptions bo = {name, na ? strs + nk + ns : NULL, (size_t)na, with_sim != 0};
  Py_BEGIN_ALLOW_THREADS
  s = p2c_module_bundle(st->compiler, m, &bo, &b);
  Py_END_ALLOW_THREADS
  if (s != P2C_OK) {
    raise_compiler(st, s);
    goto done;
  }
  result = PyList_New(0);
  for (size_t i = 0; result && i < p2c_bundle_file_count(b); i++) {
    const char *suffix;
    size_t len;
    const char *text = p2c_bundle_file(b, i, &suffix, &len);
    PyObject *pair = Py_BuildValue("(ss#)", suffix, text, (Py_ssize_t)len);
    if (!pair || PyList_Append(result, pair) < 0) Py_CLEAR(result);
    Py_XDECREF(pair);
  }
done:
  p2c_bundle_delete(b);
  p2c_module_delete(m);
  PyMem_Free(strs);
  PyBuffer_Release(&src);
  return result;
}

/* current_launch_config(): launch_current_config (kernel.c). */
static PyObject *m_current_launch_config(PyObject *m, PyObject *unused) { return launch_current_config(); }

static PyMethodDef module_functions[] = {
    {"current_launch_config", m_current_launch_config, METH_NOARGS,
     "the launch configuration whose launch is compiling a kernel on this thread, or None"},
    {"_set_arg_hint", m_set_arg_hint, METH_O, "the base class of cuda.In, Out and InOut"},
    {"_set_assigned", m_set_assigned, METH_O, "what d[key] = value writes (cuda._assigned)"},
    {"_set_cai_sync", m_set_cai_sync, METH_O, "what a launch does with a foreign array's stream"},
    {"_set_transposed", m_set_transposed, METH_O, "what d.T and d.transpose() return (cuda._transposed)"},
    {"select", m_select, METH_VARARGS, "select(kind, ordinal=0): 'auto', 'gpu' or 'sim'"},
    {"device_kind", m_device_kind, METH_NOARGS, "'gpu' or 'sim': where launches run"},
    {"why", m_why, METH_NOARGS, "why the device was chosen"},
    {"find_nvdisasm", m_find_nvdisasm, METH_NOARGS, "the nvdisasm the explore view runs (p2c_find_nvdisasm)"},
    {"cache_folder", m_cache_folder, METH_NOARGS, "the compile cache's folder, or None"},
    {"gpu_count", m_gpu_count, METH_NOARGS, "the number of CUDA devices (0 without a driver)"},
    {"device_info", m_device_info, METH_NOARGS, "the GPU's properties"},
    {"environment", m_environment, METH_NOARGS, "(report text, GPU found)"},
    {"type_spellings", m_type_spellings, METH_NOARGS, "((name, canonical, numba), ...)"},
    {"array_layout", m_array_layout, METH_VARARGS, "array_layout(itemsize, shape, strides): 'C', 'F' or 'A'"},
    {"array_dims", m_array_dims, METH_VARARGS, "array_dims(ndim, layout): '[:, ::1]'"},
    {"slices_layout", m_slices_layout, METH_VARARGS, "slices_layout(ndim, first, last): 'C', 'F' or 'A'"},
    {"gufunc_layout", m_gufunc_layout, METH_O, "gufunc_layout(text): (inputs' dimension names, output's)"},
    {"synchronize", m_synchronize, METH_NOARGS, "waits for all work on the device"},
    {"defer_cleanup_enter", m_defer_cleanup_enter, METH_NOARGS, "cuda.defer_cleanup()'s block begins"},
    {"defer_cleanup_exit", m_defer_cleanup_exit, METH_NOARGS, "cuda.defer_cleanup()'s block ends"},
    {"set_check_bounds", m_set_check_bounds, METH_O, "bounds checking for later translations"},
    {"set_sanitize", m_set_sanitize, METH_O, "the simulator's checker for later translations"},
    {"bundle", m_bundle, METH_VARARGS, "[(suffix, text)] of an ahead-of-time bundle (docs/aot.md)"},
    {NULL, NULL, 0, NULL},
};

/* ---- init ---- */

static int add_type(PyObject *m, PyType_Spec *spec, PyObject *base, PyTypeObject **out) {
  *out = (PyTypeObject *)PyType_FromModuleAndSpec(m, spec, base);
  if (!*out) return -1;
  return PyModule_AddType(m, *out);
}

static PyObject *new_error(PyObject *m, const char *name, PyObject *bases, const char *doc) {
  PyObject *e = PyErr_NewExceptionWithDoc(name, doc, bases, NULL);
  if (e && PyModule_AddObjectRef(m, strrchr(name, '.') + 1, e) < 0) Py_CLEAR(e);
  return e;
}

static int add_errors(PyObject *m, State *st) {
  st->Error = new_error(m, "pyk2cuda.Error", NULL,
                        "A failure of the compiler or runtime: .status_name says which "
                        "('usage', 'cuda', 'nvrtc', 'sim', ...).");
  if (!st->Error) return -1;
  st->CompileError = new_error(m, "pyk2cuda.CompileError", st->Error,
                               "Errors in a kernel's Python: the message is the FILE:LINE:COL: "
                               "error: text; .diagnostics holds them as tuples.");
  PyObject *bases = st->CompileError ? PyTuple_Pack(2, st->Error, PyExc_IndexError) : NULL;
  st->BoundsError = bases ? new_error(m, "pyk2cuda.BoundsError", bases,
                                      "With bounds checking, a kernel indexed an array out of bounds.")
                          : NULL;
  Py_XDECREF(bases);
  return st->BoundsError ? 0 : -1;
}

/* The library's interrupt check (p2c_compiler_set_interrupt), asked about every 20-30 ms while
 * the simulator's host compiler runs and between runs of blocks of a launch: Python's signal
 * handlers run here, so Ctrl-C raises KeyboardInterrupt (left set for raise_status) and stops
 * the call. Launches keep the GIL, so this thread usually holds it already; handlers run in the
 * main thread only, elsewhere this never stops a call. */
static bool python_interrupted(void *userdata) {
  (void)userdata;
  PyGILState_STATE g = PyGILState_Ensure();
  bool stop = PyErr_CheckSignals() < 0;
  PyGILState_Release(g);
  return stop;
}

static int exec_module(PyObject *m) {
  State *st = PyModule_GetState(m);
  memset(st, 0, sizeof *st);
  st->module = m;
  st->compiler = p2c_compiler_new(NULL);
  if (!st->compiler) {
    PyErr_NoMemory();
    return -1;
  }
  st->sanitize = p2c_compiler_get_sanitize(st->compiler);   /* $PYK2CUDA_SANITIZE */
  p2c_compiler_set_interrupt(st->compiler, python_interrupted, NULL);
  st->str_cai = PyUnicode_InternFromString("__cuda_array_interface__");
  if (!st->str_cai || add_errors(m, st) < 0) return -1;
  if (add_type(m, &DeviceArray_spec, NULL, &st->DeviceArray) < 0 ||
      add_type(m, &HostBuffer_spec, NULL, &st->HostBuffer) < 0 ||
      add_type(m, &Stream_spec, NULL, &st->Stream) < 0 ||
      add_type(m, &Event_spec, NULL, &st->Event) < 0 ||
      add_type(m, &Kernel_spec, NULL, &st->Kernel) < 0 ||
      add_type(m, &Launcher_spec, NULL, &st->Launcher) < 0 ||
      add_type(m, &Ufunc_spec, NULL, &st->Ufunc) < 0)
    return -1;
  if (PyModule_AddFunctions(m, devarray_functions) < 0 || PyModule_AddFunctions(m, stream_functions) < 0 ||
      PyModule_AddFunctions(m, ipc_functions) < 0)
    return -1;
  return PyModule_AddStringConstant(m, "version", p2c_version());
}

static int traverse(PyObject *m, visitproc visit, void *arg) {
  State *st = PyModule_GetState(m);
  if (!st) return 0;
  Py_VISIT(st->Error);
  Py_VISIT(st->CompileError);
  Py_VISIT(st->BoundsError);
  Py_VISIT(st->Kernel);
  Py_VISIT(st->Launcher);
  Py_VISIT(st->DeviceArray);
  Py_VISIT(st->Stream);
  Py_VISIT(st->Event);
  Py_VISIT(st->HostBuffer);
  Py_VISIT(st->Ufunc);
  Py_VISIT(st->numpy);
  Py_VISIT(st->default_pending);
  Py_VISIT(st->arg_hint);
  Py_VISIT(st->assigned);
  Py_VISIT(st->cai_sync);
  Py_VISIT(st->transposed);
  Py_VISIT(st->enum_names);
  Py_VISIT(st->enum_classes);
  return 0;
}

static int clear(PyObject *m) {
  State *st = PyModule_GetState(m);
  if (!st) return 0;
  Py_CLEAR(st->Error);
  Py_CLEAR(st->CompileError);
  Py_CLEAR(st->BoundsError);
  Py_CLEAR(st->Kernel);
  Py_CLEAR(st->Launcher);
  Py_CLEAR(st->DeviceArray);
  Py_CLEAR(st->Stream);
  Py_CLEAR(st->Event);
  Py_CLEAR(st->HostBuffer);
  Py_CLEAR(st->Ufunc);
  Py_CLEAR(st->numpy);
  Py_CLEAR(st->default_pending);
  Py_CLEAR(st->str_cai);
  Py_CLEAR(st->arg_hint);
  Py_CLEAR(st->assigned);
  Py_CLEAR(st->cai_sync);
  Py_CLEAR(st->transposed);
  Py_CLEAR(st->enum_names);
  Py_CLEAR(st->enum_classes);
  for (int i = 0; i < P2C_SCALAR_TYPE_COUNT; i++) Py_CLEAR(st->dtypes[i]);
  return 0;
}

/* Every object made from the device holds the module, so by now none is left. */
static void free_module(void *m) {
  State *st = PyModule_GetState((PyObject *)m);
  clear((PyObject *)m);
  if (!st) return;
  devarray_free_deferred(st);
  free(st->sim_ranges);
  st->sim_ranges = NULL, st->sim_range_count = st->sim_range_cap = 0;
  p2c_device_delete(st->gpu);
  st->gpu = NULL;
  p2c_compiler_delete(st->compiler);
  st->compiler = NULL;
}

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, exec_module},
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "pyk2cuda._core",
    .m_doc = "pyk2cuda's C extension: compiling and launching kernels through the C API.",
    .m_size = sizeof(State),
    .m_methods = module_functions,
    .m_slots = slots,
    .m_traverse = traverse,
    .m_clear = clear,
    .m_free = free_module,
};

PyMODINIT_FUNC PyInit__core(void) { return PyModuleDef_Init(&module_def); }
