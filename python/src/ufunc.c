/* @vectorize([...], target='cuda') ufuncs: the ufunc's module is translated once, when the ufunc
 * is made (as Numba compiles it at decoration), and kept; a call goes to p2c_module_ufunc_launch,
 * which chooses the signature, broadcasts the inputs as NumPy does and returns a new host array,
 * on the same module each time (its simulator code is loaded by the first call and kept; on the
 * GPU the device keeps the loaded module). Host arrays in,
 * a NumPy array out; when an input is a device array the result is a device array, as with
 * Numba (on the GPU its inputs are read back to the host first: the C API's ufunc call takes
 * host arrays). Inputs that are all scalars give a NumPy scalar. */
#include "ext.h"

#include <string.h>

typedef struct Ufunc {
  PyObject_HEAD
  State *st;
  PyObject *module;
  PyObject *pyfunc, *name;
  P2cModule *m;                /* the translated module, owned */
} Ufunc;

/* The NumPy array holding a copy of a host array from the C API. */
static PyObject *numpy_from_host(State *st, const P2cHostArray *h) {
  PyObject *np = state_numpy(st), *dtype = state_dtype(st, h->dtype);
  if (!np || !dtype) return NULL;
  PyObject *shape = PyTuple_New(h->ndim);
  size_t bytes = p2c_scalar_size(h->dtype);
  for (int k = 0; shape && k < h->ndim; k++) {
    PyTuple_SET_ITEM(shape, k, PyLong_FromLongLong(h->shape[k]));
    bytes *= (size_t)h->shape[k];
  }
  if (!shape) return NULL;
  PyObject *out = PyObject_CallMethod(np, "empty", "OO", shape, dtype);
  Py_DECREF(shape);
  Py_buffer view;
  if (!out || PyObject_GetBuffer(out, &view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
    Py_XDECREF(out);
    return NULL;
  }
  memcpy(view.buf, h->data, bytes);
  PyBuffer_Release(&view);
  return out;
}

/* On the GPU a device-array input is read back to the host: a NumPy copy replaces it. */
static int host_input(State *st, PyObject *o, PyObject **keep) {
  *keep = NULL;
  if (!is_device_array(st, o) || !((DeviceArray *)o)->on_gpu) return 0;
  *keep = devarray_to_numpy((DeviceArray *)o, NULL);
  return *keep ? 0 : -1;
}

static PyObject *ufunc_call(Ufunc *u, PyObject *args, PyObject *kw) {
  State *st = u->st;
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (kw && PyDict_GET_SIZE(kw))
    return PyErr_Format(PyExc_TypeError, "ufunc '%U': keyword arguments are not supported", u->name);
  if (n < 1 || n > 32) return PyErr_Format(PyExc_TypeError, "ufunc '%U': 1 to 32 inputs, %zd given", u->name, n);
  if (state_device(st) < 0) return NULL;
  Arg a[32];
  P2cValue vals[32];
  PyObject *keep[32] = {0};
  Py_ssize_t got = 0;
  bool any_device = false, all_scalars = true;
  PyObject *result = NULL;
  for (; got < n; got++) {
    PyObject *o = PyTuple_GET_ITEM(args, got);
    any_device |= is_device_array(st, o);
    if (host_input(st, o, &keep[got]) < 0) break;
    char name[16];
    snprintf(name, sizeof name, "%zd", got + 1);
    if (arg_from_object(st, keep[got] ? keep[got] : o, name, &a[got]) < 0) break;
    vals[got] = a[got].v;
    all_scalars &= !vals[got].is_array;
  }
  if (got == n) {
    P2cLaunchOptions o = {.device = st->kind == DEV_GPU ? P2C_DEVICE_GPU : P2C_DEVICE_SIM, .gpu = st->gpu};
    P2cHostArray out = {0};
    P2cStatus s = p2c_module_ufunc_launch(st->compiler, u->m, PyUnicode_AsUTF8(u->name), vals, (size_t)n,
                                          &o, NULL, &out);
    char why[1024];
    if (s == P2C_ERR_USAGE && p2c_module_ufunc_choose(u->m, PyUnicode_AsUTF8(u->name), vals, (size_t)n, why,
                                                      sizeof why) < 0)
      PyErr_SetString(PyExc_TypeError, why);   /* no signature takes them: Numba's TypeError */
    else if (s != P2C_OK) raise_status(st, s, p2c_compiler_last_error(st->compiler), NULL);
    else if (any_device) result = devarray_from_host(st, &out, NULL, NULL);
    else if (all_scalars && out.ndim == 1 && out.shape[0] == 1) {
      PyObject *arr = numpy_from_host(st, &out);
      result = arr ? PySequence_GetItem(arr, 0) : NULL;
      Py_XDECREF(arr);
    } else result = numpy_from_host(st, &out);
    p2c_host_array_free(st->compiler, &out);
  }
  for (Py_ssize_t i = 0; i < got; i++) arg_release(&a[i]);
  for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(keep[i]);
  return result;
}

/* Ufunc(pyfunc, name, filename, source): translates the ufunc's module now (a CompileError with
 * its diagnostics when the source has errors). */
static PyObject *ufunc_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  PyObject *pyfunc, *name, *filename, *source;
  if (!PyArg_ParseTuple(args, "OUUS:Ufunc", &pyfunc, &name, &filename, &source)) return NULL;
  State *st = state_of_type(type);
  const char *cname = PyUnicode_AsUTF8(name), *cfile = PyUnicode_AsUTF8(filename);
  if (!st || !cname || !cfile) return NULL;
  const char *kernels[1] = {cname};
  P2cTranslateOptions o = {kernels, 1, NULL, 0, false, false, {st->check_bounds, st->sanitize, true}};
  P2cModule *m = NULL;
  P2cStatus s = p2c_translate(st->compiler, cfile, PyBytes_AS_STRING(source), (size_t)PyBytes_GET_SIZE(source),
                              &o, &m);
  if (s != P2C_OK) {
    raise_status(st, s, p2c_compiler_last_error(st->compiler), m);
    p2c_module_delete(m);
    return NULL;
  }
  Ufunc *u = (Ufunc *)type->tp_alloc(type, 0);
  if (!u) {
    p2c_module_delete(m);
    return NULL;
  }
  u->st = st;
  u->module = Py_NewRef(u->st->module);
  u->pyfunc = Py_NewRef(pyfunc);
  u->name = Py_NewRef(name);
  u->m = m;
  return (PyObject *)u;
}

static int ufunc_traverse(Ufunc *u, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(u));
  Py_VISIT(u->module);
  Py_VISIT(u->pyfunc);
  return 0;
}

static int ufunc_clear(Ufunc *u) {
  Py_CLEAR(u->pyfunc);
  return 0;
}

static void ufunc_dealloc(Ufunc *u) {
  PyTypeObject *tp = Py_TYPE(u);
  PyObject_GC_UnTrack(u);
  Py_CLEAR(u->pyfunc);
  Py_CLEAR(u->name);
  p2c_module_delete(u->m);
  Py_CLEAR(u->module);
  tp->tp_free(u);
  Py_DECREF(tp);
}

#include <structmember.h>

static PyMemberDef ufunc_members[] = {
    {"py_func", T_OBJECT, offsetof(Ufunc, pyfunc), READONLY, "the Python function"},
    {"__name__", T_OBJECT, offsetof(Ufunc, name), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot ufunc_slots[] = {
    {Py_tp_new, ufunc_new},
    {Py_tp_dealloc, ufunc_dealloc},
    {Py_tp_traverse, ufunc_traverse},
    {Py_tp_clear, ufunc_clear},
    {Py_tp_call, ufunc_call},
    {Py_tp_members, ufunc_members},
    {Py_tp_doc, "A @vectorize(target='cuda') ufunc: call it on arrays and scalars."},
    {0, NULL},
};

PyType_Spec Ufunc_spec = {
    .name = "pyk2cuda._Ufunc",
    .basicsize = sizeof(Ufunc),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .slots = ufunc_slots,
};
