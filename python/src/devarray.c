/* Device arrays (Numba's DeviceNDArray) and host buffers (pinned memory).
 *
 * On the GPU a device array is a P2cDeviceArray: device memory it owns (p2c_device_array_new,
 * _like), or a view of memory another object owns. On the simulator, device memory is host
 * memory: the array owns a zero-filled allocation, and kernels work on it in place. Either way
 * the array exposes __cuda_array_interface__ (version 3; on the simulator its pointer is a host
 * address) and copies to and from NumPy arrays with the same strides. Its `stream` is where
 * work on the array may still be queued: the handle of the stream the array was made on, else
 * 1, the legacy default stream (pyk2cuda's default, where kernels are queued asynchronously);
 * None on the simulator, where nothing is ever in flight. */
#include "ext.h"

#include <stdlib.h>
#include <string.h>
#include <structmember.h>

bool is_device_array(State *st, PyObject *o) { return Py_TYPE(o) == st->DeviceArray; }

static PyObject *int_tuple(const int64_t *v, int n);
static int typestr_type(const char *ts);

/* The bytes an array's elements span, and the offset of element [0, ...] in them. */
void array_span(int64_t item, int ndim, const int64_t *shape, const int64_t *strides, size_t *span,
                size_t *offset) {
  int64_t lo = 0, hi = 0;
  for (int k = 0; k < ndim; k++) {
    if (shape[k] == 0) {
      *span = *offset = 0;
      return;
    }
    int64_t reach = (shape[k] - 1) * strides[k];
    if (reach < 0) lo += reach;
    else hi += reach;
  }
  *span = (size_t)(hi - lo) + (size_t)item;
  *offset = (size_t)-lo;
}

/* ---- the simulator's memory: what a __cuda_array_interface__ pointer may point into ---- */

/* The index of the first range whose lo is above `p` (binary search over the sorted ranges). */
static size_t sim_range_after(const State *st, uintptr_t p) {
  size_t lo = 0, hi = st->sim_range_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (st->sim_ranges[mid].lo <= p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

int sim_memory_add(State *st, void *p, size_t bytes, bool pages) {
  if (st->sim_range_count == st->sim_range_cap) {
    size_t cap = st->sim_range_cap ? 2 * st->sim_range_cap : 64;
    struct SimRange *grown = realloc(st->sim_ranges, cap * sizeof *grown);
    if (!grown) {
      PyErr_NoMemory();
      return -1;
    }
    st->sim_ranges = grown, st->sim_range_cap = cap;
  }
  size_t at = sim_range_after(st, (uintptr_t)p);
  memmove(st->sim_ranges + at + 1, st->sim_ranges + at, (st->sim_range_count - at) * sizeof *st->sim_ranges);
  st->sim_ranges[at] = (struct SimRange){.lo = (uintptr_t)p, .hi = (uintptr_t)p + bytes, .pages = pages, .ipc_fd = -1};
  st->sim_range_count++;
  return 0;
}

void sim_memory_remove(State *st, void *p) {
  size_t at = sim_range_after(st, (uintptr_t)p);
  if (at == 0 || st->sim_ranges[at - 1].lo != (uintptr_t)p) return;
  at--;
  memmove(st->sim_ranges + at, st->sim_ranges + at + 1, (st->sim_range_count - at - 1) * sizeof *st->sim_ranges);
  st->sim_range_count--;
}

struct SimRange *sim_memory_range(State *st, uintptr_t p) {
  size_t at = sim_range_after(st, p);
  return at > 0 && p < st->sim_ranges[at - 1].hi ? &st->sim_ranges[at - 1] : NULL;
}

bool sim_memory_holds(const State *st, uintptr_t lo, size_t span) {
  size_t at = sim_range_after(st, lo);
  return at > 0 && lo + span >= lo && lo + span <= st->sim_ranges[at - 1].hi;
}

P2cHostArray devarray_host_view(const DeviceArray *d) {
  P2cHostArray h = {.dtype = d->a.dtype, .ndim = d->a.ndim, .data = (void *)(uintptr_t)d->a.data,
                    .record = d->a.record};
  memcpy(h.shape, d->a.shape, sizeof h.shape);
  memcpy(h.strides, d->a.strides, sizeof h.strides);
  return h;
}

static void contiguous_strides(P2cScalarType t, int ndim, const int64_t *shape, char order,
                               int64_t *strides) {
  int64_t s = (int64_t)p2c_dtype_size(t, NULL);
  if (order == 'F') {
    for (int k = 0; k < ndim; k++) {
      strides[k] = s;
      s *= shape[k] ? shape[k] : 1;
    }
  } else {
    for (int k = ndim; k-- > 0;) {
      strides[k] = s;
      s *= shape[k] ? shape[k] : 1;
    }
  }
}

/* The NumPy dtype of d's elements (borrowed). A character sequence's is made at its first
 * need and kept with d, as a record's is kept from the start. */
static PyObject *np_dtype_of(DeviceArray *d) {
  if (!d->np_dtype && p2c_dtype_charseq(d->a.dtype, NULL, NULL)) {
    char ts[32];
    p2c_dtype_str(d->a.dtype, ts, sizeof ts);
    PyObject *np = state_numpy(d->st);
    d->np_dtype = np ? PyObject_CallMethod(np, "dtype", "s", ts) : NULL;
  }
  return d->np_dtype ? d->np_dtype : state_dtype(d->st, d->a.dtype);
}

/* "float32", "record" for a record dtype, "bytes" or "str" for a character sequence. */
static const char *dtype_name(P2cScalarType t) {
  bool unicode;
  if (p2c_dtype_charseq(t, &unicode, NULL)) return unicode ? "str" : "bytes";
  return t == P2C_RECORD ? "record" : p2c_scalar_name(t);
}

/* A new zero-filled array of the given shape and strides (contiguous ones); np_dtype: a record
 * array's NumPy dtype (its description is made from it), else NULL. On the GPU the zeros are
 * written on `stream` (NULL: the device's own stream, waited for; p2c_device_array_like_on). */
static DeviceArray *devarray_alloc(State *st, P2cScalarType t, PyObject *np_dtype, int ndim,
                                   const int64_t *shape, const int64_t *strides, P2cStream *stream) {
  if (state_device(st) < 0) return NULL;
  RecordDesc rd = {0};
  if (t == P2C_RECORD && record_desc_of(np_dtype, "array", &rd) < 0) return NULL;
  DeviceArray *d = PyObject_GC_New(DeviceArray, st->DeviceArray);
  if (!d) {
    record_desc_release(&rd);
    return NULL;
  }
  d->st = st;
  d->module = Py_NewRef(st->module);
  d->owner = NULL;
  d->host = NULL;
  d->weakrefs = NULL;
  d->stream = NULL;
  d->rd = rd;
  d->np_dtype = t == P2C_RECORD ? Py_NewRef(np_dtype) : NULL;
  memset(&d->a, 0, sizeof d->a);
  d->a.dtype = t;
  d->a.record = t == P2C_RECORD ? &d->rd.rec : NULL;
  d->a.ndim = ndim;
  memcpy(d->a.shape, shape, sizeof(int64_t) * (size_t)ndim);
  memcpy(d->a.strides, strides, sizeof(int64_t) * (size_t)ndim);
  array_span((int64_t)p2c_dtype_size(t, d->a.record), ndim, shape, strides, &d->span, &d->offset);
  d->on_gpu = st->kind == DEV_GPU;
  PyObject_GC_Track(d);
  if (d->on_gpu) {
    P2cHostArray like = devarray_host_view(d);
    P2cStatus s = d->span ? p2c_device_array_like_on(st->gpu, &like, stream, &d->a) : P2C_OK;
    if (s != P2C_OK) {
      Py_DECREF(d);
      return (DeviceArray *)raise_device(st, s);
    }
  } else {
    void *pages = sim_pages_alloc(d->span ? d->span : 1);
    if (!pages) {
      Py_DECREF(d);
      return (DeviceArray *)PyErr_NoMemory();
    }
    if (sim_memory_add(st, pages, d->span ? d->span : 1, true) < 0) {
      sim_pages_free(st, pages, d->span ? d->span : 1);
      Py_DECREF(d);
      return NULL;
    }
    d->host = pages;
    d->a.data = (uint64_t)(uintptr_t)((char *)d->host + d->offset);
  }
  return d;
}

/* Copies host memory described by `h` (same strides as the device array) to or from it. */
static int copy_host(DeviceArray *d, P2cHostArray *h, P2cStream *stream, bool to_device) {
  if (!d->span) return 0;
  if (!d->on_gpu) {
    char *dev = (char *)(uintptr_t)d->a.data - d->offset;  /* the span's start (views too) */
    char *host = (char *)h->data - d->offset;
    memmove(to_device ? dev : host, to_device ? host : dev, d->span);
    return 0;
  }
  if (state_device(d->st) < 0) return -1;   /* (a fork's child cannot copy) */
  P2cStatus s;
  Py_BEGIN_ALLOW_THREADS
  s = to_device ? p2c_device_array_upload(d->st->gpu, &d->a, h, stream)
                : p2c_device_array_download(d->st->gpu, &d->a, h, stream);
  Py_END_ALLOW_THREADS
  if (s != P2C_OK) {
    raise_device(d->st, s);
    return -1;
  }
  return 0;
}

PyObject *devarray_from_host(State *st, const P2cHostArray *h, PyObject *np_dtype, P2cStream *stream) {
  DeviceArray *d = devarray_alloc(st, h->dtype, np_dtype, h->ndim, h->shape, h->strides, stream);
  if (!d) return NULL;
  P2cHostArray src = *h;
  if (copy_host(d, &src, stream, true) < 0) Py_CLEAR(d);
  return (PyObject *)d;
}

/* ---- buffers of host objects ---- */

/* A host array's buffer, made contiguous (numpy.ascontiguousarray) when it is not. `writable`
 * asks for a writable buffer. The buffer's object may differ from `obj`. */
static int host_buffer(State *st, PyObject *obj, bool writable, Py_buffer *view, P2cHostArray *h) {
  int time_type;
  if (get_host_buffer(obj, view, writable ? PyBUF_RECORDS : PyBUF_RECORDS_RO, "a host array", &time_type) < 0)
    return -1;
  int t = time_type >= 0 ? time_type : format_to_type(view->format);
  h->record = NULL;
  if (t < 0 && view->format && view->format[0] == 'T') t = P2C_RECORD;   /* its description: host_record */
  if (t < 0 || view->ndim > P2C_MAX_NDIM) {
    PyErr_Format(PyExc_TypeError, "unsupported array: element format '%s', %d dimensions",
                 view->format ? view->format : "", view->ndim);
    PyBuffer_Release(view);
    return -1;
  }
  h->dtype = (P2cScalarType)t;
  h->ndim = view->ndim;
  h->data = view->buf;
  for (int k = 0; k < h->ndim; k++) {
    h->shape[k] = view->shape[k];
    h->strides[k] = view->strides[k];
  }
  if (writable || p2c_array_layout((int64_t)view->itemsize, h->ndim, h->shape, h->strides) != 'A') return 0;
  PyBuffer_Release(view);
  PyObject *np = state_numpy(st);
  PyObject *c = np ? PyObject_CallMethod(np, "ascontiguousarray", "O", obj) : NULL;
  if (!c) return -1;
  int r = host_buffer(st, c, false, view, h);
  Py_DECREF(c);
  return r;
}

/* Whether host array h has d's dtype (a record: d's itemsize; its fields are the caller's
 * responsibility, as NumPy's view casts are), shape and strides. */
static bool same_layout(const DeviceArray *d, const P2cHostArray *h) {
  if (d->a.dtype != h->dtype || d->a.ndim != h->ndim) return false;
  if (h->dtype == P2C_RECORD && h->record && h->record->itemsize != d->a.record->itemsize) return false;
  for (int k = 0; k < h->ndim; k++)
    if (d->a.shape[k] != h->shape[k] || (d->a.shape[k] > 1 && d->a.strides[k] != h->strides[k]))
      return false;
  return true;
}

static PyObject *incompatible(const DeviceArray *d, const P2cHostArray *h) {
  return PyErr_Format(PyExc_ValueError, "incompatible arrays: the device array is %s of %d "
                      "dimensions, the host array %s of %d (shapes and strides must match)",
                      dtype_name(d->a.dtype), d->a.ndim, dtype_name(h->dtype), h->ndim);
}

/* numpy.ndarray over `buffer`, a host copy of the bytes view d spans, with d's shape, strides,
 * offset and dtype: a host array whose elements are d's. New reference, or NULL. */
static PyObject *ndarray_over_span(DeviceArray *d, PyObject *buffer) {
  PyObject *np = state_numpy(d->st), *dtype = np_dtype_of(d);
  if (!np || !dtype) return NULL;
  PyObject *shape = int_tuple(d->a.shape, d->a.ndim), *strides = int_tuple(d->a.strides, d->a.ndim);
  PyObject *kw = shape && strides ? Py_BuildValue("{s:O,s:O,s:O,s:n,s:O}", "shape", shape, "dtype", dtype,
                                                  "buffer", buffer, "offset", (Py_ssize_t)d->offset,
                                                  "strides", strides) : NULL;
  PyObject *nd = kw ? PyObject_GetAttrString(np, "ndarray") : NULL;
  PyObject *empty = nd ? PyTuple_New(0) : NULL;
  PyObject *v = empty ? PyObject_Call(nd, empty, kw) : NULL;
  Py_XDECREF(empty);
  Py_XDECREF(nd);
  Py_XDECREF(kw);
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  return v;
}

/* A non-contiguous view: its span copied to a bytes object, read by numpy.ndarray with the
 * view's strides, and copied again into a C-ordered array. */
static PyObject *strided_to_numpy(DeviceArray *d, P2cStream *stream) {
  PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)d->span);
  if (!bytes) return NULL;
  P2cHostArray h = devarray_host_view(d);
  h.data = PyBytes_AS_STRING(bytes) + d->offset;
  PyObject *r = NULL;
  if (copy_host(d, &h, stream, false) == 0) {
    PyObject *v = ndarray_over_span(d, bytes);
    r = v ? PyObject_CallMethod(v, "copy", NULL) : NULL;
    Py_XDECREF(v);
  }
  Py_DECREF(bytes);
  return r;
}

PyObject *devarray_to_numpy(DeviceArray *d, P2cStream *stream) {
  PyObject *np = state_numpy(d->st);
  PyObject *dtype = np_dtype_of(d);
  if (!np || !dtype) return NULL;
  PyObject *shape = PyTuple_New(d->a.ndim);
  for (int k = 0; shape && k < d->a.ndim; k++)
    PyTuple_SET_ITEM(shape, k, PyLong_FromLongLong(d->a.shape[k]));
  if (!shape) return NULL;
  char layout = p2c_array_layout((int64_t)p2c_dtype_size(d->a.dtype, d->a.record), d->a.ndim, d->a.shape, d->a.strides);
  if (layout == 'A') {
    Py_DECREF(shape);
    return strided_to_numpy(d, stream);
  }
  char order = layout == 'F' ? 'F' : 'C';
  PyObject *out = PyObject_CallMethod(np, "empty", "OOs#", shape, dtype, &order, (Py_ssize_t)1);
  Py_DECREF(shape);
  if (!out) return NULL;
  Py_buffer view;
  P2cHostArray h;
  if (host_buffer(d->st, out, true, &view, &h) < 0) {
    Py_DECREF(out);
    return NULL;
  }
  int r = same_layout(d, &h) ? copy_host(d, &h, stream, false) : (incompatible(d, &h), -1);
  PyBuffer_Release(&view);
  if (r < 0) Py_CLEAR(out);
  return out;
}

/* ---- the type ---- */

static int da_traverse(DeviceArray *d, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(d));
  Py_VISIT(d->module);
  Py_VISIT(d->owner);
  Py_VISIT(d->np_dtype);
  Py_VISIT(d->stream);
  return 0;
}

static int da_clear(DeviceArray *d) {
  Py_CLEAR(d->owner);
  Py_CLEAR(d->stream);
  return 0;
}

/* Frees a dropped array's GPU memory, or keeps it until the outermost cuda.defer_cleanup() block
 * ends. The free itself never waits for the host (cuMemFreeAsync), but it goes on the legacy
 * default stream, which orders it after every blocking stream's queued work and their later
 * work after it: inside a pipeline of streams it would make them meet, which is what Numba's
 * defer_cleanup is for. Where the list cannot grow, the memory is freed now. */
static void release_buffer(State *st, P2cDeviceArray *a) {
  if (st->defer_depth == 0 || !a->buffer) {
    p2c_device_array_free(a);
    return;
  }
  if (st->deferred_count == st->deferred_cap) {
    size_t cap = st->deferred_cap ? 2 * st->deferred_cap : 16;
    P2cBuffer **grown = realloc(st->deferred, cap * sizeof *grown);
    if (!grown) {
      p2c_device_array_free(a);
      return;
    }
    st->deferred = grown, st->deferred_cap = cap;
  }
  st->deferred[st->deferred_count++] = a->buffer;
  a->buffer = NULL;
}

void devarray_free_deferred(State *st) {
  for (size_t i = 0; i < st->deferred_count; i++) p2c_buffer_delete(st->deferred[i]);
  free(st->deferred);
  st->deferred = NULL, st->deferred_count = st->deferred_cap = 0;
}

static void da_dealloc(DeviceArray *d) {
  PyTypeObject *tp = Py_TYPE(d);
  PyObject_GC_UnTrack(d);
  if (d->weakrefs) PyObject_ClearWeakRefs((PyObject *)d);
  if ((d->on_gpu && d->a.buffer) || d->host) d->st->dealloc_count++;   /* memory it owned */
  if (d->on_gpu) release_buffer(d->st, &d->a);
  if (d->host) sim_pages_free(d->st, d->host, d->span ? d->span : 1);
  record_desc_release(&d->rd);
  Py_CLEAR(d->np_dtype);
  Py_CLEAR(d->owner);
  Py_CLEAR(d->stream);
  Py_CLEAR(d->module);
  PyObject_GC_Del(d);
  Py_DECREF(tp);
}

/* A copy queued on a stream (not the default one, whose copies are synchronous) keeps the
 * device array and the host object whose memory it reads or writes until the stream is
 * synchronized (stream_keep). */
static int keep_copy(DeviceArray *d, PyObject *stream, PyObject *host) {
  PyObject *objs[2] = {(PyObject *)d, host};
  return stream_keep(d->st, stream, objs, 2);
}

/* Numba's refusal of copy_to_host for an array with a negative stride (c_arr[::-1]), its
 * NotImplementedError naming the strides (its issue 3705; test_cuda_array_interface checks it):
 * -1 with the exception set, else 0. The package's own host copies flip such axes first
 * (cuda.py, _host_copy). */
static int negative_strides(const DeviceArray *d) {
  bool negative = false;
  for (int i = 0; i < d->a.ndim; i++) negative |= d->a.strides[i] < 0;
  if (!negative) return 0;
  PyObject *strides = PyTuple_New(d->a.ndim);
  for (int i = 0; strides && i < d->a.ndim; i++) {
    PyObject *v = PyLong_FromLongLong(d->a.strides[i]);
    if (!v) Py_CLEAR(strides);
    else PyTuple_SET_ITEM(strides, i, v);
  }
  if (strides) PyErr_Format(PyExc_NotImplementedError, "D->H copy not implemented for negative strides: %R", strides);
  Py_XDECREF(strides);
  return -1;
}

static PyObject *da_copy_to_host(DeviceArray *d, PyObject *args, PyObject *kw) {
  static char *names[] = {"ary", "stream", NULL};
  PyObject *ary = Py_None, *stream = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:copy_to_host", names, &ary, &stream)) return NULL;
  if (negative_strides(d)) return NULL;
  P2cStream *s = NULL;
  if (stream_arg(d->st, stream, &s) < 0) return NULL;
  if (ary == Py_None) {
    PyObject *out = devarray_to_numpy(d, s);
    if (out && s && keep_copy(d, stream, out) < 0) Py_CLEAR(out);
    return out;
  }
  Py_buffer view;
  P2cHostArray h;
  if (host_buffer(d->st, ary, true, &view, &h) < 0) return NULL;
  int r = same_layout(d, &h) ? copy_host(d, &h, s, false) : (incompatible(d, &h), -1);
  if (r == 0 && s) r = keep_copy(d, stream, view.obj);
  PyBuffer_Release(&view);
  return r < 0 ? NULL : Py_NewRef(ary);
}

static PyObject *da_copy_to_device(DeviceArray *d, PyObject *args, PyObject *kw) {
  static char *names[] = {"ary", "stream", NULL};
  PyObject *ary, *stream = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:copy_to_device", names, &ary, &stream)) return NULL;
  P2cStream *s = NULL;
  if (stream_arg(d->st, stream, &s) < 0) return NULL;
  if (is_device_array(d->st, ary)) {
    DeviceArray *src = (DeviceArray *)ary;
    P2cHostArray h = devarray_host_view(src);
    if (!same_layout(d, &h)) return incompatible(d, &h);
    if (!d->on_gpu) {
      memmove((char *)(uintptr_t)d->a.data - d->offset, (char *)(uintptr_t)src->a.data - src->offset, d->span);
      Py_RETURN_NONE;
    }
    if (d->a.buffer && src->a.buffer) {
      P2cStatus st = d->span ? p2c_buffer_copy(d->a.buffer, 0, src->a.buffer, 0, d->span, s) : P2C_OK;
      if (st != P2C_OK) return raise_device(d->st, st);
      if (s && keep_copy(d, stream, ary) < 0) return NULL;
      Py_RETURN_NONE;
    }
    /* A view of another library's memory has no P2cBuffer: through the host. */
    PyObject *tmp = devarray_to_numpy(src, s);
    if (!tmp) return NULL;
    ary = tmp;
    Py_buffer view = {0};
    P2cHostArray h2;
    int r = host_buffer(d->st, ary, false, &view, &h2) < 0 ? -1 : copy_host(d, &h2, s, true);
    if (view.obj) PyBuffer_Release(&view);
    Py_DECREF(tmp);
    if (r < 0) return NULL;
    Py_RETURN_NONE;
  }
  Py_buffer view;
  P2cHostArray h;
  if (host_buffer(d->st, ary, false, &view, &h) < 0) return NULL;
  int r = same_layout(d, &h) ? copy_host(d, &h, s, true) : (incompatible(d, &h), -1);
  if (r == 0 && s) r = keep_copy(d, stream, view.obj);
  PyBuffer_Release(&view);
  if (r < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject *int_tuple(const int64_t *v, int n) {
  PyObject *t = PyTuple_New(n);
  for (int k = 0; t && k < n; k++) {
    PyObject *x = PyLong_FromLongLong(v[k]);
    if (!x) Py_CLEAR(t);
    else PyTuple_SET_ITEM(t, k, x);
  }
  return t;
}

static PyObject *da_shape(DeviceArray *d, void *c) { return int_tuple(d->a.shape, d->a.ndim); }
static PyObject *da_strides(DeviceArray *d, void *c) { return int_tuple(d->a.strides, d->a.ndim); }
static PyObject *da_ndim(DeviceArray *d, void *c) { return PyLong_FromLong(d->a.ndim); }

static int64_t da_count(const DeviceArray *d) {
  int64_t n = 1;
  for (int k = 0; k < d->a.ndim; k++) n *= d->a.shape[k];
  return n;
}

static PyObject *da_size(DeviceArray *d, void *c) { return PyLong_FromLongLong(da_count(d)); }
static PyObject *da_nbytes(DeviceArray *d, void *c) {
  return PyLong_FromLongLong(da_count(d) * (int64_t)p2c_dtype_size(d->a.dtype, d->a.record));
}
static PyObject *da_dtype(DeviceArray *d, void *c) { return Py_XNewRef(np_dtype_of(d)); }

/* Numba's alloc_size: the bytes of the memory the array spans, first element to last (a view's
 * own, not its owner's), as Numba's views and foreign arrays count it. */
static PyObject *da_alloc_size(DeviceArray *d, void *c) { return PyLong_FromSize_t(d->span); }

/* The lowest address the array's elements reach, where its alloc_size bytes begin (below element
 * 0 where strides are negative): Numba's gpu_data starts there (ipc.py). */
static PyObject *da_span_start(DeviceArray *d, void *c) {
  return PyLong_FromUnsignedLongLong(d->span ? d->a.data - d->offset : 0);   /* empty: 0, as device_ctypes_pointer */
}

/* Numba's device_ctypes_pointer (as an int, the NVIDIA bindings' CUdeviceptr converts to one):
 * the address of element [0, ...]; on the simulator a host address. 0 for an empty array. */
static PyObject *da_pointer(DeviceArray *d, void *c) {
  return PyLong_FromUnsignedLongLong(da_count(d) ? d->a.data : 0);
}

/* The array made on `stream` (a pyk2cuda Stream other than the default one) keeps it, as
 * Numba's device arrays keep theirs. */
static void bind_stream(DeviceArray *d, PyObject *stream) {
  if (stream && Py_TYPE(stream) == d->st->Stream && !((Stream *)stream)->is_default)
    Py_XSETREF(d->stream, Py_NewRef(stream));
}

/* CAI v3's `stream` (see the file's comment); never 0, which v3 disallows. */
static PyObject *cai_stream(DeviceArray *d) { return stream_cai_value(d->st, d->stream); }

/* Numba's DeviceNDArray.stream: the stream it was made on, or 0. */
static PyObject *da_stream(DeviceArray *d, void *c) {
  return d->stream ? Py_NewRef(d->stream) : PyLong_FromLong(0);
}

static PyObject *da_cai(DeviceArray *d, void *c) {
  if (d->a.dtype == P2C_RECORD)
    return PyErr_Format(PyExc_AttributeError, "__cuda_array_interface__ of a record array is not supported");
  char typestr[32];
  p2c_dtype_str(d->a.dtype, typestr, sizeof typestr);   /* the library's typestr of it */
  bool c_order = p2c_array_layout((int64_t)p2c_dtype_size(d->a.dtype, d->a.record), d->a.ndim, d->a.shape, d->a.strides) == 'C';
  PyObject *shape = da_shape(d, NULL);
  PyObject *strides = c_order ? Py_NewRef(Py_None) : da_strides(d, NULL);
  PyObject *stream = cai_stream(d);
  PyObject *r = NULL;
  if (shape && strides && stream)
    r = Py_BuildValue("{s:O,s:O,s:s,s:(KO),s:i,s:O}", "shape", shape, "strides", strides, "typestr",
                      typestr, "data",
                      (unsigned long long)(da_count(d) ? d->a.data : 0), Py_False, "version", 3,
                      "stream", stream);
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  Py_XDECREF(stream);
  return r;
}

static PyObject *da_is_c(DeviceArray *d, PyObject *u) {
  return PyBool_FromLong(p2c_array_layout((int64_t)p2c_dtype_size(d->a.dtype, d->a.record), d->a.ndim, d->a.shape, d->a.strides) == 'C');
}
static PyObject *da_is_f(DeviceArray *d, PyObject *u) {
  char l = p2c_array_layout((int64_t)p2c_dtype_size(d->a.dtype, d->a.record), d->a.ndim, d->a.shape, d->a.strides);
  return PyBool_FromLong(l == 'F' || (d->a.ndim <= 1 && l == 'C'));
}

/* Numba's DeviceNDArray.flags: NumPy's two contiguity flags, as a dict. */
static PyObject *da_flags(DeviceArray *d, void *c) {
  char l = p2c_array_layout((int64_t)p2c_dtype_size(d->a.dtype, d->a.record), d->a.ndim, d->a.shape, d->a.strides);
  return Py_BuildValue("{sOsO}", "C_CONTIGUOUS", l == 'C' ? Py_True : Py_False, "F_CONTIGUOUS",
                       l == 'F' || (d->a.ndim <= 1 && l == 'C') ? Py_True : Py_False);
}

static PyObject *make_view(DeviceArray *d, int ndim, const int64_t *shape, const int64_t *strides,
                           uint64_t data);

/* d._reversed_axes(): the view with the axes reversed (as NumPy's d.T). */
static PyObject *da_reversed_axes(DeviceArray *d, PyObject *u) {
  int64_t shape[P2C_MAX_NDIM], strides[P2C_MAX_NDIM];
  for (int i = 0; i < d->a.ndim; i++) {
    shape[i] = d->a.shape[d->a.ndim - 1 - i];
    strides[i] = d->a.strides[d->a.ndim - 1 - i];
  }
  return make_view(d, d->a.ndim, shape, strides, d->a.data);
}

/* d.transpose(*axes), d.T: Numba's rules, which cuda._transposed applies (a 2-D array's is a
 * new array); without pyk2cuda.cuda imported, the reversed view. */
static PyObject *da_transpose(DeviceArray *d, PyObject *axes) {
  if (!d->st->transposed) return da_reversed_axes(d, NULL);
  return PyObject_CallFunctionObjArgs(d->st->transposed, (PyObject *)d, axes, NULL);
}
static PyObject *da_T(DeviceArray *d, void *c) {
  PyObject *none = PyTuple_New(0);
  PyObject *r = none ? da_transpose(d, none) : NULL;
  Py_XDECREF(none);
  return r;
}

/* Pickled as a host copy of its elements, rebuilt by to_device in the process that loads it
 * (device memory is this process's). */
static PyObject *da_reduce(DeviceArray *d, PyObject *unused) {
  PyObject *host = devarray_to_numpy(d, NULL);
  PyObject *to_device = host ? PyObject_GetAttrString(d->module, "to_device") : NULL;
  if (!to_device) {
    Py_XDECREF(host);
    return NULL;
  }
  return Py_BuildValue("(N(N))", to_device, host);
}

/* Numba's __array__: NumPy functions given a device array copy it to the host. */
static PyObject *da_array(DeviceArray *d, PyObject *args) {
  PyObject *dtype = Py_None, *copy = Py_None;
  if (!PyArg_ParseTuple(args, "|OO:__array__", &dtype, &copy)) return NULL;
  PyObject *host = devarray_to_numpy(d, NULL);
  if (!host || dtype == Py_None) return host;
  PyObject *r = PyObject_CallMethod(host, "astype", "O", dtype);
  Py_DECREF(host);
  return r;
}

static Py_ssize_t da_len(DeviceArray *d) {
  if (d->a.ndim == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a 0-d array");
    return -1;
  }
  return (Py_ssize_t)d->a.shape[0];
}

static PyObject *da_repr(DeviceArray *d) {
  PyObject *shape = da_shape(d, NULL);
  if (!shape) return NULL;
  PyObject *r = PyUnicode_FromFormat("<pyk2cuda DeviceArray %s%R on the %s>", dtype_name(d->a.dtype),
                                     shape, d->on_gpu ? "GPU" : "simulator");
  Py_DECREF(shape);
  return r;
}

/* A view of `d` with the given shape, strides and first element (memory owned by `d`). */
static PyObject *make_view(DeviceArray *d, int ndim, const int64_t *shape, const int64_t *strides,
                           uint64_t data) {
  DeviceArray *v = PyObject_GC_New(DeviceArray, d->st->DeviceArray);
  if (!v) return NULL;
  v->st = d->st;
  v->module = Py_NewRef(d->module);
  v->owner = Py_NewRef(d->owner ? d->owner : (PyObject *)d);
  v->host = NULL;
  v->weakrefs = NULL;
  v->stream = Py_XNewRef(d->stream);   /* a view's work is its owner's: the same stream */
  v->on_gpu = d->on_gpu;
  memset(&v->rd, 0, sizeof v->rd);
  v->np_dtype = Py_XNewRef(d->np_dtype);
  memset(&v->a, 0, sizeof v->a);
  v->a.dtype = d->a.dtype;
  v->a.record = d->a.record;   /* the owner's, which the view keeps alive */
  v->a.ndim = ndim;
  memcpy(v->a.shape, shape, sizeof(int64_t) * (size_t)ndim);
  memcpy(v->a.strides, strides, sizeof(int64_t) * (size_t)ndim);
  v->a.data = data;
  array_span((int64_t)p2c_dtype_size(v->a.dtype, v->a.record), ndim, shape, strides, &v->span, &v->offset);
  PyObject_GC_Track(v);
  return (PyObject *)v;
}

/* The scalar type of numpy.dtype(arg) (not a record's), or -1 with TypeError. */
static int view_dtype(State *st, PyObject *arg) {
  PyObject *np = state_numpy(st);
  PyObject *dt = np ? PyObject_CallMethod(np, "dtype", "O", arg) : NULL;
  PyObject *str = dt ? PyObject_GetAttrString(dt, "str") : NULL;
  const char *ts = str && PyUnicode_Check(str) ? PyUnicode_AsUTF8(str) : NULL;
  int t = ts ? typestr_type(ts) : -1;
  if (ts && (t < 0 || t == P2C_RECORD)) {
    PyErr_Format(PyExc_TypeError, "view(): dtype %s is not one device arrays view (numbers, "
                 "datetimes, bytes and str)", ts);
    t = -1;
  }
  Py_XDECREF(str);
  Py_XDECREF(dt);
  return t;
}

/* d.view(dtype): Numba's DeviceNDArray.view, the same memory read as another dtype. A dtype of
 * another size rescales the last axis, which needs a C-contiguous array whose last axis's bytes
 * the new size divides (Numba's ValueErrors, its texts). */
static PyObject *da_view(DeviceArray *d, PyObject *arg) {
  int t = view_dtype(d->st, arg);
  if (t < 0) return NULL;
  int n = d->a.ndim;
  int64_t shape[P2C_MAX_NDIM], strides[P2C_MAX_NDIM];
  memcpy(shape, d->a.shape, sizeof shape);
  memcpy(strides, d->a.strides, sizeof strides);
  int64_t was = (int64_t)p2c_dtype_size(d->a.dtype, d->a.record), now = (int64_t)p2c_dtype_size((P2cScalarType)t, NULL);
  if (was != now) {
    if (n == 0 || p2c_array_layout(was, n, shape, strides) != 'C')
      return PyErr_Format(PyExc_ValueError, "To change to a dtype of a different size, the array must "
                          "be C-contiguous");
    if (shape[n - 1] * was % now != 0)
      return PyErr_Format(PyExc_ValueError, "When changing to a larger dtype, its size must be a divisor "
                          "of the total size in bytes of the last axis of the array.");
    shape[n - 1] = shape[n - 1] * was / now;
    strides[n - 1] = now;
  }
  DeviceArray *v = (DeviceArray *)make_view(d, n, shape, strides, d->a.data);
  if (!v) return NULL;
  v->a.dtype = (P2cScalarType)t;
  v->a.record = NULL;
  Py_CLEAR(v->np_dtype);   /* np_dtype_of makes it from the scalar type */
  array_span(now, n, shape, strides, &v->span, &v->offset);
  return (PyObject *)v;
}

/* One element, read to the host as a NumPy scalar. */
static PyObject *read_scalar(DeviceArray *d, uint64_t data) {
  int64_t one = 1, stride = (int64_t)p2c_dtype_size(d->a.dtype, d->a.record);
  DeviceArray *v = (DeviceArray *)make_view(d, 1, &one, &stride, data);
  if (!v) return NULL;
  PyObject *arr = devarray_to_numpy(v, NULL);
  Py_DECREF(v);
  PyObject *r = arr ? PySequence_GetItem(arr, 0) : NULL;
  Py_XDECREF(arr);
  return r;
}

/* d[i, j:k:s, ...]: ints and slices, as NumPy's basic indexing, as a view (0-d for all ints)
 * when `element` is false, else with all ints the element read back as a scalar. */
static PyObject *index_view(DeviceArray *d, PyObject *key, bool element) {
  PyObject *t = PyTuple_Check(key) ? Py_NewRef(key) : PyTuple_Pack(1, key);
  if (!t) return NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(t);
  int64_t shape[P2C_MAX_NDIM], strides[P2C_MAX_NDIM];
  int nd = 0;
  int64_t offset = 0;
  PyObject *r = NULL;
  if (n > d->a.ndim) {
    PyErr_Format(PyExc_IndexError, "too many indices: the array has %d dimensions", d->a.ndim);
    goto done;
  }
  for (int k = 0; k < d->a.ndim; k++) {
    PyObject *ix = k < n ? PyTuple_GET_ITEM(t, k) : NULL;
    int64_t ext = d->a.shape[k], st = d->a.strides[k];
    if (ix && PyIndex_Check(ix)) {
      Py_ssize_t i = PyNumber_AsSsize_t(ix, PyExc_IndexError);
      if (i == -1 && PyErr_Occurred()) goto done;
      if (i < 0) i += ext;
      if (i < 0 || i >= ext) {
        PyErr_Format(PyExc_IndexError, "index %zd is out of bounds for axis %d with size %lld",
                     i < 0 ? i - ext : i, k, (long long)ext);
        goto done;
      }
      offset += i * st;
    } else if (!ix || PySlice_Check(ix)) {
      Py_ssize_t start = 0, stop = ext, step = 1;
      if (ix && PySlice_Unpack(ix, &start, &stop, &step) < 0) goto done;
      Py_ssize_t len = PySlice_AdjustIndices((Py_ssize_t)ext, &start, &stop, step);
      offset += start * st;
      shape[nd] = len;
      strides[nd++] = st * step;
    } else {
      PyErr_Format(PyExc_TypeError, "device arrays take ints and slices as indices, got %.100s",
                   Py_TYPE(ix)->tp_name);
      goto done;
    }
  }
  uint64_t data = d->a.data + (uint64_t)offset;
  r = nd == 0 && element ? read_scalar(d, data) : make_view(d, nd, shape, strides, data);
done:
  Py_DECREF(t);
  return r;
}

static PyObject *da_subscript(DeviceArray *d, PyObject *key) { return index_view(d, key, true); }

/* `src`, a NumPy array of view v's shape and dtype, written into v. A view whose strides the
 * host array has is copied directly; any other (a strided view) has the memory it spans read
 * to the host, its elements replaced there and the span written back. */
static int write_numpy(DeviceArray *v, PyObject *src) {
  Py_buffer view;
  P2cHostArray h;
  if (host_buffer(v->st, src, false, &view, &h) < 0) return -1;
  if (same_layout(v, &h)) {
    int r = copy_host(v, &h, NULL, true);
    PyBuffer_Release(&view);
    return r;
  }
  PyBuffer_Release(&view);
  PyObject *span = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)v->span);
  if (!span) return -1;
  h = devarray_host_view(v);
  h.data = PyByteArray_AS_STRING(span) + v->offset;
  int r = -1;
  if (copy_host(v, &h, NULL, false) == 0) {
    PyObject *host = ndarray_over_span(v, span);
    if (host && PyObject_SetItem(host, Py_Ellipsis, src) == 0) r = copy_host(v, &h, NULL, true);
    Py_XDECREF(host);
  }
  Py_DECREF(span);
  return r;
}

/* d[key] = value, as Numba's DeviceNDArray: cuda._assigned checks value against the view d[key]
 * and gives the array to write (a host or device array, or a scalar, broadcast and converted to
 * the view's dtype); the write is synchronous, on the default stream. */
static int da_ass_subscript(DeviceArray *d, PyObject *key, PyObject *value) {
  if (!value) {
    PyErr_SetString(PyExc_TypeError, "device array elements cannot be deleted");
    return -1;
  }
  if (!d->st->assigned) {
    PyErr_SetString(PyExc_TypeError, "device array item assignment needs pyk2cuda.cuda imported");
    return -1;
  }
  PyObject *v = index_view(d, key, false);
  if (!v) return -1;
  PyObject *src = PyObject_CallFunctionObjArgs(d->st->assigned, v, value, NULL);
  int r = src == Py_None ? 0 : src ? write_numpy((DeviceArray *)v, src) : -1;
  Py_XDECREF(src);
  Py_DECREF(v);
  return r;
}

static PyMethodDef da_methods[] = {
    {"copy_to_host", (PyCFunction)(void (*)(void))da_copy_to_host, METH_VARARGS | METH_KEYWORDS,
     "copy_to_host(ary=None, stream=0): a NumPy copy, or a copy into `ary`"},
    {"copy_to_device", (PyCFunction)(void (*)(void))da_copy_to_device, METH_VARARGS | METH_KEYWORDS,
     "copy_to_device(ary, stream=0): copies a host or device array of the same shape in"},
    {"is_c_contiguous", (PyCFunction)da_is_c, METH_NOARGS, NULL},
    {"is_f_contiguous", (PyCFunction)da_is_f, METH_NOARGS, NULL},
    {"transpose", (PyCFunction)da_transpose, METH_VARARGS,
     "transpose(*axes): Numba's (a 2-D array's is a new array, transposed)"},
    {"_reversed_axes", (PyCFunction)da_reversed_axes, METH_NOARGS, "the view with the axes reversed"},
    {"view", (PyCFunction)da_view, METH_O, "view(dtype): the same memory as another dtype (Numba's)"},
    {"__array__", (PyCFunction)da_array, METH_VARARGS, "__array__(dtype=None): a host copy"},
    {"__reduce__", (PyCFunction)da_reduce, METH_NOARGS, "pickled as a host copy, rebuilt by to_device"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef da_getset[] = {
    {"shape", (getter)da_shape, NULL, NULL, NULL},
    {"stream", (getter)da_stream, NULL, "the stream the array was made on, or 0", NULL},
    {"strides", (getter)da_strides, NULL, NULL, NULL},
    {"ndim", (getter)da_ndim, NULL, NULL, NULL},
    {"size", (getter)da_size, NULL, NULL, NULL},
    {"nbytes", (getter)da_nbytes, NULL, NULL, NULL},
    {"dtype", (getter)da_dtype, NULL, NULL, NULL},
    {"alloc_size", (getter)da_alloc_size, NULL, "the bytes the array spans", NULL},
    {"_span_start", (getter)da_span_start, NULL, "the address alloc_size's bytes begin at", NULL},
    {"device_ctypes_pointer", (getter)da_pointer, NULL, "the address of element [0, ...]", NULL},
    {"flags", (getter)da_flags, NULL, "{'C_CONTIGUOUS': bool, 'F_CONTIGUOUS': bool}", NULL},
    {"T", (getter)da_T, NULL, "transpose(): Numba's (a 2-D array's is a new array)", NULL},
    {"__cuda_array_interface__", (getter)da_cai, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef da_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(DeviceArray, weakrefs), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot da_slots[] = {
    {Py_tp_dealloc, da_dealloc},
    {Py_tp_traverse, da_traverse},
    {Py_tp_clear, da_clear},
    {Py_tp_methods, da_methods},
    {Py_tp_getset, da_getset},
    {Py_tp_members, da_members},
    {Py_tp_repr, da_repr},
    {Py_mp_length, da_len},
    {Py_mp_subscript, da_subscript},
    {Py_mp_ass_subscript, da_ass_subscript},
    {Py_tp_doc, "An array in device memory (on the simulator: host memory the array owns)."},
    {0, NULL},
};

PyType_Spec DeviceArray_spec = {
    .name = "pyk2cuda.DeviceArray",
    .basicsize = sizeof(DeviceArray),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = da_slots,
};

/* ---- module functions ---- */

static int shape_arg(PyObject *o, int *ndim, int64_t *shape) {
  if (PyLong_Check(o)) {
    *ndim = 1;
    shape[0] = PyLong_AsLongLong(o);
  } else {
    PyObject *seq = PySequence_Tuple(o);
    if (!seq) return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    if (n > P2C_MAX_NDIM) {
      Py_DECREF(seq);
      PyErr_Format(PyExc_ValueError, "%zd dimensions (at most %d)", n, P2C_MAX_NDIM);
      return -1;
    }
    *ndim = (int)n;
    for (Py_ssize_t k = 0; k < n; k++) shape[k] = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, k));
    Py_DECREF(seq);
  }
  if (PyErr_Occurred()) return -1;
  for (int k = 0; k < *ndim; k++)
    if (shape[k] < 0) {
      PyErr_SetString(PyExc_ValueError, "negative dimensions are not allowed");
      return -1;
    }
  return 0;
}

/* NumPy's limit on a new array (numpy.empty): its bytes, extents of 0 counted as 1, must fit in
 * a signed size. Past it the arithmetic of strides and spans would overflow: before this check,
 * device_array(2**62, float64) had nbytes 0 and a 16-byte allocation that indexing read past. */
static int check_size(P2cScalarType t, int ndim, const int64_t *shape) {
  int64_t bytes = (int64_t)p2c_dtype_size(t, NULL);
  for (int k = 0; k < ndim; k++)
    if (__builtin_mul_overflow(bytes, shape[k] ? shape[k] : 1, &bytes)) {
      PyErr_SetString(PyExc_ValueError, "array is too big; `arr.size * arr.dtype.itemsize` is larger "
                                        "than the maximum possible size.");
      return -1;
    }
  return 0;
}

/* The scalar type of a NumPy typestr in the host's byte order, read by the library's one reader
 * (p2c_dtype_parse); -1 for any other. */
static int typestr_type(const char *ts) {
  P2cScalarType t;
  bool swapped;
  return p2c_dtype_parse(ts, strlen(ts), &t, &swapped) && !swapped ? (int)t : -1;
}

/* device_array(shape, typechar, order): typechar as numpy.dtype(...).char, or a typestr
 * ("<M8[D]", "<c16": datetimes, whose unit the char lacks, and complex numbers, whose char is
 * not a buffer format). */
static PyObject *f_device_array(PyObject *mod, PyObject *args) {
  State *st = PyModule_GetState(mod);
  PyObject *shape_o;
  const char *tc, *order = "C";
  PyObject *stream = Py_None;
  if (!PyArg_ParseTuple(args, "Os|sO:device_array", &shape_o, &tc, &order, &stream)) return NULL;
  P2cStream *s = NULL;
  if (stream_arg(st, stream, &s) < 0) return NULL;
  int ndim;
  int64_t shape[P2C_MAX_NDIM], strides[P2C_MAX_NDIM];
  if (shape_arg(shape_o, &ndim, shape) < 0) return NULL;
  char fmt[2] = {tc[0], 0};
  int t = tc[0] && !tc[1] ? format_to_type(fmt) : typestr_type(tc);
  if (t < 0) return PyErr_Format(PyExc_TypeError, "unsupported dtype '%s'", tc);
  if (check_size((P2cScalarType)t, ndim, shape) < 0) return NULL;
  contiguous_strides((P2cScalarType)t, ndim, shape, order[0] == 'F' ? 'F' : 'C', strides);
  DeviceArray *d = devarray_alloc(st, (P2cScalarType)t, NULL, ndim, shape, strides, s);
  if (d) bind_stream(d, stream);
  return (PyObject *)d;
}

/* to_device(obj, stream=None): a device array holding a copy of a host array. */
static PyObject *f_to_device(PyObject *mod, PyObject *args) {
  State *st = PyModule_GetState(mod);
  PyObject *obj, *stream = Py_None;
  if (!PyArg_ParseTuple(args, "O|O:to_device", &obj, &stream)) return NULL;
  P2cStream *s = NULL;
  if (stream_arg(st, stream, &s) < 0) return NULL;
  if (is_device_array(st, obj)) return Py_NewRef(obj);
  Py_buffer view;
  P2cHostArray h;
  if (host_buffer(st, obj, false, &view, &h) < 0) return NULL;
  PyObject *dtype = h.dtype == P2C_RECORD ? PyObject_GetAttrString(view.obj, "dtype") : NULL;
  RecordDesc rd = {0};
  if (h.dtype == P2C_RECORD && (!dtype || record_desc_of(dtype, "obj", &rd) < 0)) {
    Py_XDECREF(dtype);
    PyBuffer_Release(&view);
    return NULL;
  }
  h.record = h.dtype == P2C_RECORD ? &rd.rec : NULL;
  PyObject *r = devarray_from_host(st, &h, dtype, s);
  if (r) bind_stream((DeviceArray *)r, stream);
  if (r && s && keep_copy((DeviceArray *)r, stream, view.obj) < 0) Py_CLEAR(r);
  record_desc_release(&rd);
  Py_XDECREF(dtype);
  PyBuffer_Release(&view);
  return r;
}

/* ---- host buffers: pinned memory on the GPU, plain memory on the simulator ---- */

typedef struct HostBuffer {
  PyObject_HEAD
  State *st;
  PyObject *module;
  void *ptr;
  Py_ssize_t size;
  bool pinned;
  /* host_buffer_over: the memory of another object, kept alive (ptr is not freed), or a heap
   * block a @jit function's call handed over (freed by p2c_host_block_free). */
  PyObject *keep;
  bool heap_block;
} HostBuffer;

static int hb_getbuffer(HostBuffer *b, Py_buffer *view, int flags) {
  return PyBuffer_FillInfo(view, (PyObject *)b, b->ptr, b->size, 0, flags);
}

static void hb_dealloc(HostBuffer *b) {
  PyTypeObject *tp = Py_TYPE(b);
  if (b->pinned) p2c_pinned_delete(b->st->gpu, b->ptr);
  else if (b->heap_block) p2c_host_block_free(b->ptr);
  else if (!b->keep) {
    if (b->ptr) sim_memory_remove(b->st, b->ptr);
    free(b->ptr);
  }
  Py_CLEAR(b->keep);
  Py_CLEAR(b->module);
  PyObject_Free(b);
  Py_DECREF(tp);
}

static PyType_Slot hb_slots[] = {
    {Py_tp_dealloc, hb_dealloc},
    {Py_bf_getbuffer, hb_getbuffer},
    {Py_tp_doc, "Host memory for pinned_array: page-locked on the GPU, plain on the simulator."},
    {0, NULL},
};

PyType_Spec HostBuffer_spec = {
    .name = "pyk2cuda.HostBuffer",
    .basicsize = sizeof(HostBuffer),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = hb_slots,
};

/* host_buffer(nbytes): writable host memory, zero-filled, page-locked when on the GPU. */
static PyObject *f_host_buffer(PyObject *mod, PyObject *arg) {
  State *st = PyModule_GetState(mod);
  Py_ssize_t n = PyLong_AsSsize_t(arg);
  if (n < 0) return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "negative size");
  if (state_device(st) < 0) return NULL;
  HostBuffer *b = PyObject_New(HostBuffer, st->HostBuffer);
  if (!b) return NULL;
  b->st = st;
  b->module = Py_NewRef(st->module);
  b->size = n;
  b->pinned = st->kind == DEV_GPU && n > 0;
  b->ptr = NULL;
  b->keep = NULL;
  b->heap_block = false;
  if (b->pinned) {
    P2cStatus s = p2c_pinned_new(st->gpu, (size_t)n, &b->ptr);
    if (s != P2C_OK) {
      b->pinned = false;
      Py_DECREF(b);
      return raise_device(st, s);
    }
    memset(b->ptr, 0, (size_t)n);
  } else if (!(b->ptr = calloc(1, n ? (size_t)n : 1))) {
    Py_DECREF(b);
    return PyErr_NoMemory();
  } else if (sim_memory_add(st, b->ptr, n ? (size_t)n : 1, false) < 0) {
    Py_DECREF(b);
    return NULL;
  }
  return (PyObject *)b;
}

PyObject *host_buffer_over(State *st, void *ptr, Py_ssize_t size, PyObject *keep) {
  HostBuffer *b = PyObject_New(HostBuffer, st->HostBuffer);
  if (!b) {
    if (!keep) p2c_host_block_free(ptr);
    return NULL;
  }
  b->st = st;
  b->module = Py_NewRef(st->module);
  b->ptr = ptr;
  b->size = size;
  b->pinned = false;
  b->keep = Py_XNewRef(keep);
  b->heap_block = keep == NULL;
  return (PyObject *)b;
}

/* as_device_array(obj, stream=None): a device array viewing the memory that obj's
 * __cuda_array_interface__ describes, without a copy; it keeps `obj` alive. On the simulator the
 * pointer must lie in memory pyk2cuda owns (arg_read_cai). `stream` becomes the array's stream
 * (Numba's .stream: the producer's, as an external Stream); waiting for it is the caller's
 * choice (cuda.from_cuda_array_interface, sync=). */
static PyObject *f_as_device_array(PyObject *mod, PyObject *args) {
  State *st = PyModule_GetState(mod);
  PyObject *obj, *stream = Py_None;
  if (!PyArg_ParseTuple(args, "O|O:as_device_array", &obj, &stream)) return NULL;
  if (state_device(st) < 0) return NULL;
  Arg a;
  memset(&a, 0, sizeof a);
  int has = arg_read_cai(st, obj, "obj", &a);
  if (has <= 0) {
    arg_release(&a);
    return has < 0 ? NULL : PyErr_Format(PyExc_TypeError, "as_cuda_array: %.100s has no __cuda_array_interface__",
                                         Py_TYPE(obj)->tp_name);
  }
  DeviceArray *d = PyObject_GC_New(DeviceArray, st->DeviceArray);
  if (!d) {
    arg_release(&a);
    return NULL;
  }
  d->st = st;
  d->module = Py_NewRef(st->module);
  d->owner = Py_NewRef(obj);
  d->host = NULL;
  d->weakrefs = NULL;
  d->stream = NULL;
  d->on_gpu = st->kind == DEV_GPU;
  d->a = a.dev;
  d->a.buffer = NULL;  /* a view: the owner frees the memory */
  arg_release(&a);
  d->np_dtype = NULL;
  memset(&d->rd, 0, sizeof d->rd);
  array_span((int64_t)p2c_dtype_size(d->a.dtype, NULL), d->a.ndim, d->a.shape, d->a.strides, &d->span, &d->offset);
  bind_stream(d, stream);
  PyObject_GC_Track(d);
  return (PyObject *)d;
}

/* deallocations(reset=False): how many device arrays released the memory they owned since the
 * last reset (Numba's memory_manager.deallocations counts the frees it has pending; pyk2cuda
 * frees at once, so this counts them instead). */
static PyObject *f_deallocations(PyObject *mod, PyObject *args) {
  State *st = PyModule_GetState(mod);
  int reset = 0;
  if (!PyArg_ParseTuple(args, "|p:deallocations", &reset)) return NULL;
  size_t n = st->dealloc_count;
  if (reset) st->dealloc_count = 0;
  return PyLong_FromSize_t(n);
}

/* ---- page-locked host arrays, for `with cuda.pinned(...)` ---- */

/* The bytes a buffer's elements span: *start is the lowest address; 0 bytes when it is empty. */
static size_t buffer_span(const Py_buffer *v, char **start) {
  Py_ssize_t lo = 0, hi = 0;
  for (int k = 0; k < v->ndim; k++) {
    if (v->shape[k] == 0) return 0;
    Py_ssize_t reach = (v->shape[k] - 1) * v->strides[k];
    if (reach < 0) lo += reach;
    else hi += reach;
  }
  *start = (char *)v->buf + lo;
  return v->len == 0 ? 0 : (size_t)(hi - lo + v->itemsize);
}

/* pin_host(obj): page-locks a host array's memory on the GPU until unpin_host(address); returns
 * that address, or None when there is nothing to undo (the simulator, whose device memory is
 * host memory; an empty array; memory that is already page-locked, as pinned_array's is). */
static PyObject *f_pin_host(PyObject *mod, PyObject *obj) {
  State *st = PyModule_GetState(mod);
  if (state_device(st) < 0) return NULL;
  Py_buffer view;
  if (get_host_buffer(obj, &view, PyBUF_RECORDS_RO, "cuda.pinned()", NULL) < 0) return NULL;
  char *start = NULL;
  size_t bytes = buffer_span(&view, &start);
  bool read_only = view.readonly; /* a read-only buffer is only copied from */
  PyBuffer_Release(&view);
  bool registered = false;
  if (st->kind == DEV_GPU && bytes > 0) {
    P2cStatus s = p2c_pinned_register(st->gpu, start, bytes, read_only, &registered);
    if (s != P2C_OK) return raise_device(st, s);
  }
  return registered ? PyLong_FromVoidPtr(start) : Py_NewRef(Py_None);
}

static PyObject *f_unpin_host(PyObject *mod, PyObject *arg) {
  State *st = PyModule_GetState(mod);
  void *start = PyLong_AsVoidPtr(arg);
  if (!start) return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "null address");
  P2cStatus s = p2c_pinned_unregister(st->gpu, start);
  return s == P2C_OK ? Py_NewRef(Py_None) : raise_device(st, s);
}

PyMethodDef devarray_functions[] = {
    {"as_device_array", f_as_device_array, METH_VARARGS,
     "as_device_array(obj, stream=None): a view of the memory obj's __cuda_array_interface__ describes"},
    {"deallocations", f_deallocations, METH_VARARGS,
     "deallocations(reset=False): device arrays that released their memory since the last reset"},
    {"device_array", f_device_array, METH_VARARGS,
     "device_array(shape, typechar, order='C', stream=0): zeroed on the stream"},
    {"to_device", f_to_device, METH_VARARGS, "to_device(ary, stream=None)"},
    {"host_buffer", f_host_buffer, METH_O, "host_buffer(nbytes): memory for pinned arrays"},
    {"pin_host", f_pin_host, METH_O, "pin_host(ary): page-locks a host array (GPU)"},
    {"unpin_host", f_unpin_host, METH_O, "unpin_host(address): ends pin_host's page-locking"},
    {NULL, NULL, 0, NULL},
};
