/* Streams and events, with Numba's names. On the GPU they are the C API's P2cStream and
 * P2cEvent. On the simulator every operation completes before it returns, as on a GPU that
 * runs one thing at a time: a stream's synchronize has nothing to wait for, and an event records
 * the host's monotonic clock when it is recorded.
 *
 * On the GPU, work queued on a stream may still run after the Python objects it uses are gone
 * (`kern[g, b, s](d_x); del d_x`): each stream keeps a list of the arrays its queued work uses
 * (stream_keep), dropped when the stream is synchronized (the default stream's list, and every
 * stream's, when the device is), so memory is freed only after the work that uses it is done. */
#include "ext.h"

#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- streams ---- */

/* At most this many objects are kept for one stream; at the next one the stream is synchronized
 * and its list released, so a program that never synchronizes does not hold memory forever. */
enum { KEEP_MAX = 4096 };

/* What a stream keeps from before the last synchronize of the device is done: released. */
static void stream_catch_up(Stream *s) {
  if (s->epoch == s->st->sync_epoch) return;
  Py_CLEAR(s->pending);
  s->epoch = s->st->sync_epoch;
}

void stream_device_synchronized(State *st) {
  st->sync_epoch++;
  Py_CLEAR(st->default_pending);
}

/* Waits for the stream (a created one, or the default: the whole device), then releases what
 * it kept. */
static P2cStatus stream_wait(State *st, Stream *s) {
  P2cStatus r;
  Py_BEGIN_ALLOW_THREADS
  r = s && s->s ? p2c_stream_synchronize(s->s) : p2c_device_synchronize(st->gpu);
  Py_END_ALLOW_THREADS
  if (r != P2C_OK) return r;
  if (s && s->s) Py_CLEAR(s->pending);
  else stream_device_synchronized(st);
  return P2C_OK;
}

int stream_keep(State *st, PyObject *stream, PyObject *const *objs, size_t n) {
  if (st->kind != DEV_GPU) return 0;
  Stream *s = stream && Py_TYPE(stream) == st->Stream && ((Stream *)stream)->s ? (Stream *)stream : NULL;
  if (s) stream_catch_up(s);
  PyObject **list = s ? &s->pending : &st->default_pending;
  if (*list && PyList_GET_SIZE(*list) >= KEEP_MAX) {
    P2cStatus r = stream_wait(st, s);
    if (r != P2C_OK) return raise_device(st, r), -1;
  }
  if (!*list && !(*list = PyList_New(0))) return -1;
  for (size_t i = 0; i < n; i++)
    if (objs[i] && PyList_Append(*list, objs[i]) < 0) return -1;
  return 0;
}

static void stream_dealloc(Stream *s) {
  PyTypeObject *tp = Py_TYPE(s);
  if (s->s && s->pending) {   /* its work must end before what it uses is freed */
    stream_catch_up(s);
    if (s->pending && stream_wait(s->st, s) != P2C_OK) Py_CLEAR(s->pending);  /* the error stays on the device */
  }
  p2c_stream_delete(s->s);
  Py_CLEAR(s->pending);
  Py_CLEAR(s->module);
  PyObject_Free(s);
  Py_DECREF(tp);
}

static PyObject *stream_synchronize(Stream *s, PyObject *unused) {
  if (!s->st->gpu) Py_RETURN_NONE;
  P2cStatus r;
  if (s->external) {   /* another library's stream: the driver waits for it by its handle */
    Py_BEGIN_ALLOW_THREADS
    r = p2c_device_wait_stream(s->st->gpu, s->handle);
    Py_END_ALLOW_THREADS
  } else r = stream_wait(s->st, s);
  if (r != P2C_OK) return raise_device(s->st, r);
  Py_RETURN_NONE;
}

/* `with s.auto_synchronize():` (Numba's) synchronizes the stream when the block ends: the
 * stream is its own context manager. */
static PyObject *stream_self(Stream *s, PyObject *unused) { return Py_NewRef((PyObject *)s); }
static PyObject *stream_exit(Stream *s, PyObject *args) {
  PyObject *r = stream_synchronize(s, NULL);
  if (!r) return NULL;
  Py_DECREF(r);
  Py_RETURN_FALSE;
}

static PyObject *stream_repr(Stream *s) {
  return PyUnicode_FromFormat("<pyk2cuda Stream %s on the %s>", s->is_default ? "default" : s->external ? "external" : "",
                              s->st->kind == DEV_GPU ? "GPU" : "simulator");
}

static PyMethodDef stream_methods[] = {
    {"synchronize", (PyCFunction)stream_synchronize, METH_NOARGS, "waits for the stream's work"},
    {"auto_synchronize", (PyCFunction)stream_self, METH_NOARGS,
     "a context manager that synchronizes the stream at its end"},
    {"__enter__", (PyCFunction)stream_self, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)stream_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* The stream's handle as an int, as __cuda_array_interface__ v3 gives streams: on the GPU the
 * driver's (the default stream: 1, the legacy default stream); on the simulator a number of
 * the stream's own, None for the default stream (nothing is ever in flight there). */
static PyObject *stream_handle(Stream *s, void *unused) {
  return s->handle ? PyLong_FromUnsignedLongLong(s->handle) : Py_NewRef(Py_None);
}

static PyObject *stream_external(Stream *s, void *unused) { return PyBool_FromLong(s->external); }

PyObject *stream_cai_value(State *st, PyObject *stream) {
  if (stream && Py_TYPE(stream) == st->Stream) return stream_handle((Stream *)stream, NULL);
  return st->kind == DEV_GPU ? PyLong_FromUnsignedLongLong(p2c_stream_handle(NULL)) : Py_NewRef(Py_None);
}

static PyGetSetDef stream_getset[] = {
    {"handle", (getter)stream_handle, NULL, "the CUDA stream handle (an int; 1: legacy default)", NULL},
    {"external", (getter)stream_external, NULL, "whether it is another library's stream", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot stream_slots[] = {
    {Py_tp_dealloc, stream_dealloc},
    {Py_tp_methods, stream_methods},
    {Py_tp_getset, stream_getset},
    {Py_tp_repr, stream_repr},
    {Py_tp_doc, "A CUDA stream (on the simulator, work completes as it is queued)."},
    {0, NULL},
};

PyType_Spec Stream_spec = {
    .name = "pyk2cuda.Stream",
    .basicsize = sizeof(Stream),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = stream_slots,
};

/* A Stream: the default one, a new one, or (external_handle not 0) another library's. */
static PyObject *new_stream(State *st, bool is_default, uint64_t external_handle) {
  if (state_device(st) < 0) return NULL;
  Stream *s = PyObject_New(Stream, st->Stream);
  if (!s) return NULL;
  s->st = st;
  s->module = Py_NewRef(st->module);
  s->s = NULL;
  s->is_default = is_default;
  s->external = external_handle != 0;
  s->pending = NULL;
  s->epoch = st->sync_epoch;
  if (!is_default && !s->external && st->kind == DEV_GPU) {
    P2cStatus r = p2c_stream_new(st->gpu, &s->s);
    if (r != P2C_OK) {
      Py_DECREF(s);
      return raise_device(st, r);
    }
  }
  /* A simulator stream's number is its address: unique while it lives, never 0, 1 or 2. */
  s->handle = s->external ? external_handle
              : st->kind == DEV_GPU ? p2c_stream_handle(s->s)
              : is_default ? 0 : (uint64_t)(uintptr_t)s;
  return (PyObject *)s;
}

int stream_arg(State *st, PyObject *o, P2cStream **out) {
  *out = NULL;
  if (o == Py_None || (PyLong_CheckExact(o) && PyLong_AsLong(o) == 0)) return 0;
  if (Py_TYPE(o) != st->Stream) {
    PyErr_Format(PyExc_TypeError, "stream: expected a pyk2cuda Stream or 0, got %.100s",
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  if (((Stream *)o)->external && st->kind == DEV_GPU) {
    PyErr_SetString(PyExc_ValueError, "stream: another library's stream (external) cannot be given "
                    "for pyk2cuda's work: pyk2cuda queues work only on streams it created");
    return -1;
  }
  *out = ((Stream *)o)->s;
  return 0;
}

/* ---- events ---- */

typedef struct Event {
  PyObject_HEAD
  State *st;
  PyObject *module;
  P2cEvent *e;     /* GPU */
  double ms;       /* simulator: the clock when recorded, -1 before */
} Event;

static void event_dealloc(Event *e) {
  PyTypeObject *tp = Py_TYPE(e);
  p2c_event_delete(e->e);
  Py_CLEAR(e->module);
  PyObject_Free(e);
  Py_DECREF(tp);
}

static PyObject *event_record(Event *e, PyObject *args, PyObject *kw) {
  static char *names[] = {"stream", NULL};
  PyObject *stream = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:record", names, &stream)) return NULL;
  P2cStream *s = NULL;
  if (stream_arg(e->st, stream, &s) < 0) return NULL;
  if (!e->e) {
    e->ms = now_ms();
    Py_RETURN_NONE;
  }
  P2cStatus r = p2c_event_record(e->e, s);
  if (r != P2C_OK) return raise_device(e->st, r);
  Py_RETURN_NONE;
}

static PyObject *event_synchronize(Event *e, PyObject *unused) {
  if (!e->e) Py_RETURN_NONE;
  P2cStatus r;
  Py_BEGIN_ALLOW_THREADS
  r = p2c_event_synchronize(e->e);
  Py_END_ALLOW_THREADS
  if (r != P2C_OK) return raise_device(e->st, r);
  Py_RETURN_NONE;
}

/* Numba's Event.wait(stream=0): the stream's later work waits for the event on the device. On
 * the simulator every piece of work is done when its call returns: nothing to wait for. */
static PyObject *event_wait(Event *e, PyObject *args, PyObject *kw) {
  static char *names[] = {"stream", NULL};
  PyObject *stream = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:wait", names, &stream)) return NULL;
  P2cStream *s = NULL;
  if (stream_arg(e->st, stream, &s) < 0) return NULL;
  if (!e->e) Py_RETURN_NONE;
  P2cStatus r;
  Py_BEGIN_ALLOW_THREADS
  r = p2c_stream_wait_event(s, e->e);
  Py_END_ALLOW_THREADS
  if (r != P2C_OK) return raise_device(e->st, r);
  Py_RETURN_NONE;
}

/* Milliseconds from `a` to `b`, both recorded. */
static PyObject *elapsed(State *st, PyObject *a, PyObject *b) {
  if (Py_TYPE(a) != st->Event || Py_TYPE(b) != st->Event)
    return PyErr_Format(PyExc_TypeError, "event_elapsed_time takes two pyk2cuda events");
  Event *x = (Event *)a, *y = (Event *)b;
  if (!x->e || !y->e) {
    if (x->ms < 0 || y->ms < 0) return PyErr_Format(st->Error, "an event was never recorded");
    return PyFloat_FromDouble(y->ms - x->ms);
  }
  float ms = 0;
  P2cStatus r;
  Py_BEGIN_ALLOW_THREADS
  r = p2c_event_elapsed_ms(x->e, y->e, &ms);
  Py_END_ALLOW_THREADS
  if (r != P2C_OK) return raise_device(st, r);
  return PyFloat_FromDouble(ms);
}

static PyObject *event_elapsed_time(Event *e, PyObject *other) { return elapsed(e->st, (PyObject *)e, other); }

static PyMethodDef event_methods[] = {
    {"record", (PyCFunction)(void (*)(void))event_record, METH_VARARGS | METH_KEYWORDS,
     "record(stream=0)"},
    {"synchronize", (PyCFunction)event_synchronize, METH_NOARGS, "waits for the event"},
    {"wait", (PyCFunction)(void (*)(void))event_wait, METH_VARARGS | METH_KEYWORDS,
     "wait(stream=0): the stream's later work waits for the event (the host does not)"},
    {"elapsed_time", (PyCFunction)event_elapsed_time, METH_O, "ms from this event to another"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot event_slots[] = {
    {Py_tp_dealloc, event_dealloc},
    {Py_tp_methods, event_methods},
    {Py_tp_doc, "A CUDA event that records time (the host's clock on the simulator)."},
    {0, NULL},
};

PyType_Spec Event_spec = {
    .name = "pyk2cuda.Event",
    .basicsize = sizeof(Event),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = event_slots,
};

/* ---- module functions ---- */

static PyObject *f_stream(PyObject *mod, PyObject *unused) { return new_stream(PyModule_GetState(mod), false, 0); }
static PyObject *f_default_stream(PyObject *mod, PyObject *unused) {
  return new_stream(PyModule_GetState(mod), true, 0);
}

/* external_stream_of(handle): a Stream for the stream a __cuda_array_interface__ names (Numba's
 * external stream): synchronize() waits for it (GPU) or has nothing to wait for (simulator). */
static PyObject *f_external_stream_of(PyObject *mod, PyObject *arg) {
  unsigned long long h = PyLong_AsUnsignedLongLong(arg);
  if (h == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  if (h == 0) return PyErr_Format(PyExc_ValueError, "stream handle 0 is not a stream");
  return new_stream(PyModule_GetState(mod), false, h);
}

static PyObject *f_event(PyObject *mod, PyObject *unused) {
  State *st = PyModule_GetState(mod);
  if (state_device(st) < 0) return NULL;
  Event *e = PyObject_New(Event, st->Event);
  if (!e) return NULL;
  e->st = st;
  e->module = Py_NewRef(st->module);
  e->e = NULL;
  e->ms = -1;
  if (st->kind == DEV_GPU) {
    P2cStatus r = p2c_event_new(st->gpu, &e->e);
    if (r != P2C_OK) {
      Py_DECREF(e);
      return raise_device(st, r);
    }
  }
  return (PyObject *)e;
}

static PyObject *f_event_elapsed_time(PyObject *mod, PyObject *args) {
  PyObject *a, *b;
  if (!PyArg_ParseTuple(args, "OO:event_elapsed_time", &a, &b)) return NULL;
  return elapsed(PyModule_GetState(mod), a, b);
}

PyMethodDef stream_functions[] = {
    {"stream", f_stream, METH_NOARGS, "a new stream"},
    {"default_stream", f_default_stream, METH_NOARGS, "the default stream"},
    {"external_stream_of", f_external_stream_of, METH_O, "external_stream_of(handle): another library's stream"},
    {"event", f_event, METH_NOARGS, "a new event"},
    {"event_elapsed_time", f_event_elapsed_time, METH_VARARGS, "ms between two recorded events"},
    {NULL, NULL, 0, NULL},
};
