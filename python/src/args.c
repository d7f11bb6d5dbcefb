/* Python arguments to the C API's P2cValue: host arrays through the buffer protocol (NumPy
 * arrays, 0-d ones included, and NumPy scalars, which export 0-d buffers too), pyk2cuda device arrays, objects with
 * __cuda_array_interface__ (CuPy, PyTorch on the GPU; on the simulator only over memory pyk2cuda
 * owns, read in place as a host array), and Python bool, int and float, typed as
 * Numba types them (bool, int64, float64). No NumPy C API: the extension is built without NumPy. */
#include "ext.h"

#include <stdio.h>
#include <ctype.h>
#include <string.h>

/* Native scalar types by struct-module character (x86-64 and aarch64 Linux: long is 64-bit). */
static int char_to_type(char c) {
  switch (c) {
  case '?': return P2C_BOOL;
  case 'b': return P2C_INT8;
  case 'B': return P2C_UINT8;
  case 'h': return P2C_INT16;
  case 'H': return P2C_UINT16;
  case 'i': return P2C_INT32;
  case 'I': return P2C_UINT32;
  case 'l': case 'q': return P2C_INT64;
  case 'L': case 'Q': return P2C_UINT64;
  case 'e': return P2C_FLOAT16;
  case 'f': return P2C_FLOAT32;
  case 'd': return P2C_FLOAT64;
  default: return -1;
  }
}

/* The character sequence of the decimal digits at s, up to `end`, or -1: the library's parser
 * (p2c_dtype_parse_charseq) reads NumPy's spelling of it, "S12" or "U12". */
static int charseq_type(const char *s, const char *end, bool unicode) {
  char text[24];
  P2cScalarType t;
  int len = snprintf(text, sizeof text, "%c%.*s", unicode ? 'U' : 'S', (int)(end - s < 20 ? end - s : 20), s);
  if (end - s >= 20 || len < 0 || !p2c_dtype_parse_charseq(text, (size_t)len, &t)) return -1;
  return (int)t;
}

int format_to_type(const char *f) {
  if (!f) return P2C_UINT8;              /* no format: bytes */
  if (*f == '@' || *f == '=' || *f == '<') f++;  /* native or little-endian: our hosts */
  size_t len = strlen(f);                /* "12s": NumPy's S12, "12w": its <U12 */
  if (len > 1 && (f[len - 1] == 's' || f[len - 1] == 'w')) return charseq_type(f, f + len - 1, f[len - 1] == 'w');
  if (f[0] == 'Z' && f[1] && !f[2]) return f[1] == 'f' ? P2C_COMPLEX64 : f[1] == 'd' ? P2C_COMPLEX128 : -1;
  if (!f[0] || f[1]) return -1;
  return char_to_type(f[0]);
}

/* ---- Python scalars ---- */

/* Whether `o` is an enum.Enum member (IntEnum members too). */
static bool is_enum_member(PyObject *o) {
  PyObject *enum_mod = PyImport_ImportModule("enum");
  PyObject *base = enum_mod ? PyObject_GetAttrString(enum_mod, "Enum") : NULL;
  int yes = base ? PyObject_IsInstance(o, base) : 0;
  Py_XDECREF(base);
  Py_XDECREF(enum_mod);
  PyErr_Clear();
  return yes == 1;
}

static int from_pyscalar(PyObject *o, const char *name, Arg *a) {
  a->v.is_array = false;
  if (PyBool_Check(o)) {
    a->v.type = P2C_BOOL;
    a->v.scalar.b = o == Py_True;
    return 0;
  }
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow > 0) {  /* Numba types ints in [2**63, 2**64) as uint64 */
      unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (PyErr_Occurred()) goto range;
      a->v.type = P2C_UINT64;
      a->v.scalar.u = u;
      return 0;
    }
    if (overflow < 0 || (x == -1 && PyErr_Occurred())) goto range;
    a->v.type = P2C_INT64;
    a->v.scalar.i = x;
    return 0;
  }
  if (PyFloat_Check(o)) {
    a->v.type = P2C_FLOAT64;
    a->v.scalar.f = PyFloat_AS_DOUBLE(o);
    return 0;
  }
  if (PyComplex_Check(o)) {   /* Numba types a Python complex as complex128 */
    a->v.type = P2C_COMPLEX128;
    a->v.scalar.c[0] = PyComplex_RealAsDouble(o);
    a->v.scalar.c[1] = PyComplex_ImagAsDouble(o);
    return 0;
  }
  PyErr_Format(PyExc_TypeError, "argument '%s': expected an array, a device array, a tuple or a "
               "bool, int, float or complex scalar, got %.100s", name, Py_TYPE(o)->tp_name);
  return -1;
range:
  PyErr_Clear();
  PyErr_Format(PyExc_OverflowError, "argument '%s': the int does not fit in 64 bits", name);
  return -1;
}

/* A 0-d buffer (a NumPy scalar) as a scalar of its own type. */
static int from_scalar_buffer(Arg *a, int t, const char *name) {
  const void *p = a->view.buf;
  a->v.is_array = false;
  a->v.type = (P2cScalarType)t;
  switch (t) {
  case P2C_BOOL: a->v.scalar.b = *(const bool *)p; break;
  case P2C_INT8: a->v.scalar.i = *(const int8_t *)p; break;
  case P2C_INT16: a->v.scalar.i = *(const int16_t *)p; break;
  case P2C_INT32: a->v.scalar.i = *(const int32_t *)p; break;
  case P2C_INT64: a->v.scalar.i = *(const int64_t *)p; break;
  case P2C_UINT8: a->v.scalar.u = *(const uint8_t *)p; break;
  case P2C_UINT16: a->v.scalar.u = *(const uint16_t *)p; break;
  case P2C_UINT32: a->v.scalar.u = *(const uint32_t *)p; break;
  case P2C_UINT64: a->v.scalar.u = *(const uint64_t *)p; break;
  case P2C_FLOAT32: a->v.scalar.f = *(const float *)p; break;
  case P2C_FLOAT64: a->v.scalar.f = *(const double *)p; break;
  case P2C_FLOAT16: a->v.scalar.f = p2c_float16_value(*(const uint16_t *)p); break;
  case P2C_COMPLEX64:
    a->v.scalar.c[0] = ((const float *)p)[0];
    a->v.scalar.c[1] = ((const float *)p)[1];
    break;
  case P2C_COMPLEX128:
    a->v.scalar.c[0] = ((const double *)p)[0];
    a->v.scalar.c[1] = ((const double *)p)[1];
    break;
  default:
    if (t >= P2C_DATETIME64 && t < P2C_SCALAR_TYPE_COUNT) {   /* np.datetime64, np.timedelta64 */
      a->v.scalar.i = *(const int64_t *)p;
      break;
    }
    PyErr_Format(PyExc_TypeError, "argument '%s': %s scalars are not supported as kernel "
                 "arguments (pass an array)", name,
                 p2c_scalar_name((P2cScalarType)t) ? p2c_scalar_name((P2cScalarType)t) : "character sequence");
    PyBuffer_Release(&a->view);
    return -1;
  }
  PyBuffer_Release(&a->view);
  return 0;
}

/* ---- records ---- */

/* The dtype of a NumPy typestr in the host's byte order ("<f8", "|u1", "|S12", "<U12"), read
 * by the library's one reader (p2c_dtype_parse); -1 for another order, or a datetime64 or
 * timedelta64, which records and other libraries' GPU arrays do not bring here. */
static int typestr_to_type(const char *ts) {
  P2cScalarType t;
  bool swapped;
  if (!ts || !p2c_dtype_parse(ts, strlen(ts), &t, &swapped) || swapped) return -1;
  return is_time_type((int)t) ? -1 : (int)t;
}

/* One field (name, typestr, offset, shape) of record_fields' result into f. */
static int record_field(PyObject *item, const char *name, P2cRecordField *f) {
  PyObject *shape;
  const char *fname, *ts;
  long long offset;
  if (!PyArg_ParseTuple(item, "ssLO!", &fname, &ts, &offset, &PyTuple_Type, &shape)) return -1;
  f->name = fname;
  f->offset = offset;
  f->ndim = (int)PyTuple_GET_SIZE(shape);
  int t = typestr_to_type(ts);
  if (t >= 0 && f->ndim > 0 && p2c_dtype_charseq((P2cScalarType)t, NULL, NULL)) {
    PyErr_Format(PyExc_TypeError, "argument '%s': record field '%s' is an array of character sequences "
                 "('%s', shape %S), which pyk2cuda does not support", name, fname, ts, shape);
    return -1;
  }
  if (t < 0 || f->ndim > P2C_MAX_NDIM) {
    PyErr_Format(PyExc_TypeError, "argument '%s': record field '%s' has an unsupported type '%s'", name, fname, ts);
    return -1;
  }
  f->type = (P2cScalarType)t;
  for (int k = 0; k < f->ndim; k++)
    if ((f->shape[k] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, k))) == -1 && PyErr_Occurred()) return -1;
  return 0;
}

int record_desc_of(PyObject *dtype, const char *name, RecordDesc *out) {
  memset(out, 0, sizeof *out);
  PyObject *types = PyImport_ImportModule("pyk2cuda.types");
  PyObject *desc = types ? PyObject_CallMethod(types, "record_fields", "O", dtype) : NULL;
  Py_XDECREF(types);
  PyObject *fields;
  long long itemsize;
  int aligned;
  if (!desc || !PyArg_ParseTuple(desc, "LpO!", &itemsize, &aligned, &PyTuple_Type, &fields)) {
    Py_XDECREF(desc);
    return -1;
  }
  out->desc = desc;
  Py_ssize_t n = PyTuple_GET_SIZE(fields);
  out->fields = PyMem_Calloc((size_t)(n ? n : 1), sizeof *out->fields);
  if (!out->fields) {
    record_desc_release(out);
    return PyErr_NoMemory(), -1;
  }
  for (Py_ssize_t i = 0; i < n; i++)
    if (record_field(PyTuple_GET_ITEM(fields, i), name, &out->fields[i]) < 0) {
      record_desc_release(out);
      return -1;
    }
  out->rec = (P2cRecord){.itemsize = itemsize, .aligned = aligned, .field_count = (size_t)n, .fields = out->fields};
  return 0;
}

void record_desc_release(RecordDesc *r) {
  PyMem_Free(r->fields);
  Py_CLEAR(r->desc);
  memset(r, 0, sizeof *r);
}

/* A structured NumPy array's record (from its dtype) into a->rd. */
static int record_of(PyObject *o, const char *name, Arg *a) {
  PyObject *dtype = PyObject_GetAttrString(o, "dtype");
  int r = dtype ? record_desc_of(dtype, name, &a->rd) : -1;
  Py_XDECREF(dtype);
  return r;
}

/* ---- host arrays (buffer protocol) ---- */

/* Whether `o` has a NumPy dtype of kind 'M' (datetime64) or 'm' (timedelta64). */
static bool is_datetime(PyObject *o) {
  PyObject *dtype = PyObject_GetAttrString(o, "dtype");
  PyObject *kind = dtype ? PyObject_GetAttrString(dtype, "kind") : NULL;
  bool yes = kind && PyUnicode_Check(kind) && (PyUnicode_CompareWithASCIIString(kind, "M") == 0 ||
                                               PyUnicode_CompareWithASCIIString(kind, "m") == 0);
  Py_XDECREF(kind);
  Py_XDECREF(dtype);
  PyErr_Clear();
  return yes;
}

int time_typestr_to_type(const char *ts) {
  P2cScalarType t;
  bool swapped;
  if (!ts || !p2c_dtype_parse(ts, strlen(ts), &t, &swapped) || swapped) return -1;
  return is_time_type((int)t) ? (int)t : -1;
}

/* The scalar type of datetime64 or timedelta64 object o (an array or a NumPy scalar), from its
 * dtype.str ("<M8[D]"); a TypeError naming the dtype when it has none (a unit with a multiple,
 * "M8[10D]", or another byte order). */
static int time_type_of(PyObject *o, const char *what) {
  PyObject *dtype = PyObject_GetAttrString(o, "dtype");
  PyObject *str = dtype ? PyObject_GetAttrString(dtype, "str") : NULL;
  const char *ts = str && PyUnicode_Check(str) ? PyUnicode_AsUTF8(str) : NULL;
  int t = ts ? time_typestr_to_type(ts) : -1;
  if (t < 0 && dtype)
    PyErr_Format(PyExc_TypeError, "%s: %S values are not supported: pyk2cuda's kernels take datetime64 "
                 "and timedelta64 of one unit (Y M W D h m s ms us ns ps fs as, or none) in native byte "
                 "order (docs/python.md)", what, dtype);
  Py_XDECREF(str);
  Py_XDECREF(dtype);
  return t;
}

/* NumPy refuses a datetime64 array's buffer (ValueError), and gives a datetime64 scalar's as 8
 * bytes without the strides asked for: the buffer of such an object is taken from its int64 view
 * (o.view('<i8'), which shares its memory), and its datetime type is set in *time_type. Any other
 * buffer without shape or strides is a TypeError. */
int get_host_buffer(PyObject *o, Py_buffer *view, int flags, const char *what, int *time_type) {
  if (time_type) *time_type = -1;
  if (is_datetime(o)) {
    int t = time_type_of(o, what);
    if (t < 0) return -1;
    PyObject *ints = PyObject_CallMethod(o, "view", "s", "<i8");
    if (!ints) return -1;
    int r = get_host_buffer(ints, view, flags, what, NULL);
    Py_DECREF(ints);   /* the buffer holds its own reference */
    if (r == 0 && time_type) *time_type = t;
    return r;
  }
  if (PyObject_GetBuffer(o, view, flags) < 0) return -1;
  if (view->ndim == 0 || (view->shape && view->strides)) return 0;
  PyBuffer_Release(view);
  PyErr_Format(PyExc_TypeError, "%s: a %.100s's buffer gives no shape or strides", what, Py_TYPE(o)->tp_name);
  return -1;
}

/* Whether o, whose buffer is 0-d, is a 0-d array (numpy.ndarray: Numba types np.array(5.0) as
 * array(float64, 0d, C)) rather than a NumPy scalar (np.float64(5.0), a scalar argument). */
static bool is_0d_array(State *st, PyObject *o) {
  PyObject *np = state_numpy(st);
  PyObject *nd = np ? PyObject_GetAttrString(np, "ndarray") : NULL;
  int yes = nd ? PyObject_IsInstance(o, nd) : 0;
  Py_XDECREF(nd);
  PyErr_Clear();
  return yes == 1;
}

static int from_buffer(State *st, PyObject *o, const char *name, Arg *a) {
  char what[160];
  snprintf(what, sizeof what, "argument '%s'", name);
  int time_type;
  if (get_host_buffer(o, &a->view, PyBUF_RECORDS_RO, what, &time_type) < 0) return -1;
  a->readonly = a->view.readonly;   /* checked against the parameter once it is known */
  int t = time_type >= 0 ? time_type : format_to_type(a->view.format);
  if (t < 0 && a->view.format && a->view.format[0] == 'T') {   /* a struct: a NumPy record */
    if (record_of(o, name, a) < 0) {
      PyBuffer_Release(&a->view);
      return -1;
    }
    t = P2C_RECORD;
  }
  bool array = a->view.ndim > 0 || is_0d_array(st, o);
  if (t == P2C_RECORD && !array) {   /* arr[0]: a record, passed by reference */
    a->v.is_array = false;
    a->v.type = a->v.array.dtype = P2C_RECORD;
    a->v.array.data = a->view.buf;
    a->v.array.record = &a->rd.rec;
    a->host_array = true;
    return 0;
  }
  if (t < 0) {
    PyErr_Format(PyExc_TypeError, "argument '%s': unsupported element type '%s' (expected bool, "
                 "int8-64, uint8-64, float16/32/64, complex64/128, S<n>, U<n> in native byte order)",
                 name, a->view.format ? a->view.format : "");
    PyBuffer_Release(&a->view);
    return -1;
  }
  if (!array) return from_scalar_buffer(a, t, name);
  if (a->view.ndim > P2C_MAX_NDIM) {
    PyErr_Format(PyExc_ValueError, "argument '%s': %d dimensions (at most %d)", name,
                 a->view.ndim, P2C_MAX_NDIM);
    PyBuffer_Release(&a->view);
    return -1;
  }
  P2cHostArray *h = &a->v.array;
  a->v.is_array = true;
  a->v.type = h->dtype = (P2cScalarType)t;
  h->record = t == P2C_RECORD ? &a->rd.rec : NULL;
  h->ndim = a->view.ndim;
  h->data = a->view.buf;
  for (int k = 0; k < h->ndim; k++) {
    h->shape[k] = a->view.shape[k];
    h->strides[k] = a->view.strides[k];
  }
  a->host_array = true;
  return 0;
}

/* ---- __cuda_array_interface__ ---- */

static int cai_int(PyObject *o, int64_t *out) {
  long long x = PyLong_AsLongLong(o);
  if (x == -1 && PyErr_Occurred()) return -1;
  *out = x;
  return 0;
}

/* On the simulator device memory is host memory, so an interface's pointer is one: it is taken
 * only where it lies in memory pyk2cuda owns (a device array, a mapped or managed array, or an
 * object that passes their interface on), never another library's GPU address, which the host
 * cannot read. An empty array reads nothing. */
static int sim_memory_check(State *st, const char *name, const P2cDeviceArray *d) {
  if (st->kind == DEV_GPU) return 0;
  size_t span, offset;
  array_span((int64_t)p2c_dtype_size(d->dtype, NULL), d->ndim, d->shape, d->strides, &span, &offset);
  if (span == 0 || sim_memory_holds(st, (uintptr_t)d->data - offset, span)) return 0;
  PyErr_Format(PyExc_TypeError, "argument '%s': its __cuda_array_interface__ points at memory "
               "pyk2cuda's simulator did not allocate (another library's GPU array?): on the "
               "simulator only pyk2cuda's device, mapped and managed arrays can be passed so", name);
  return -1;
}

/* Version 3's producer rules, before a launch reads the memory: it must be on pyk2cuda's device
 * (refused naming both), and the work its producer queued on `stream` must come first: the
 * handle is kept in a->producer_stream for the launch, which synchronizes it as Numba does
 * (args_sync_producers) and orders its stream after it on the device (args_after_producers).
 * None: nothing in flight; 0 is disallowed. */
static int cai_producer(State *st, PyObject *cai, const char *name, Arg *a) {
  int ordinal = -1, ours = st->kind == DEV_GPU ? p2c_device_info(st->gpu).ordinal : -1;
  P2cStatus s = st->kind == DEV_GPU ? p2c_device_pointer_ordinal(st->gpu, a->dev.data, &ordinal) : P2C_OK;
  if (s != P2C_OK) return raise_device(st, s), -1;
  if (ordinal >= 0 && ordinal != ours) {
    PyErr_Format(PyExc_ValueError, "argument '%s': a GPU array on CUDA device %d, where pyk2cuda "
                 "runs on CUDA device %d: copy it to device %d, or cuda.select_device(%d) first",
                 name, ordinal, ours, ours, ordinal);
    return -1;
  }
  PyObject *stream = PyDict_GetItemString(cai, "stream");
  if (!stream || stream == Py_None) return 0;
  int64_t handle;
  if (!PyLong_Check(stream) || cai_int(stream, &handle) < 0) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "argument '%s': __cuda_array_interface__ 'stream' must be an int "
                 "or None, not %.100s", name, Py_TYPE(stream)->tp_name);
    return -1;
  }
  if (handle == 0) {
    PyErr_Format(PyExc_ValueError, "argument '%s': __cuda_array_interface__ 'stream' is 0, which "
                 "version 3 disallows (1 is the legacy default stream, 2 the per-thread one)", name);
    return -1;
  }
  a->producer_stream = (uint64_t)handle;
  return 0;
}

/* Reads version 2/3 of the interface: shape, typestr, data=(ptr, readonly), strides or None,
 * and stream (cai_producer). */
static int from_cai(State *st, PyObject *cai, const char *name, Arg *a) {
  if (!PyDict_Check(cai)) goto bad;
  PyObject *shape = PyDict_GetItemString(cai, "shape");
  PyObject *typestr = PyDict_GetItemString(cai, "typestr");
  PyObject *data = PyDict_GetItemString(cai, "data");
  PyObject *strides = PyDict_GetItemString(cai, "strides");
  if (!shape || !PyTuple_Check(shape) || !typestr || !PyUnicode_Check(typestr) || !data ||
      !PyTuple_Check(data) || PyTuple_GET_SIZE(data) < 1)
    goto bad;
  const char *ts = PyUnicode_AsUTF8(typestr);
  int t = typestr_to_type(ts);
  if (t < 0) {
    PyErr_Format(PyExc_TypeError, "argument '%s': unsupported typestr '%s'", name, ts ? ts : "?");
    return -1;
  }
  Py_ssize_t nd = PyTuple_GET_SIZE(shape);
  if (nd > P2C_MAX_NDIM) {   /* shape (): a 0-d array */
    PyErr_Format(PyExc_ValueError, "argument '%s': %zd dimensions (0 to %d supported)", name, nd, P2C_MAX_NDIM);
    return -1;
  }
  P2cDeviceArray *d = &a->dev;
  memset(d, 0, sizeof *d);
  d->dtype = (P2cScalarType)t;
  d->ndim = (int)nd;
  int64_t ptr;
  if (cai_int(PyTuple_GET_ITEM(data, 0), &ptr) < 0) return -1;
  d->data = (uint64_t)ptr;
  for (int k = 0; k < d->ndim; k++)
    if (cai_int(PyTuple_GET_ITEM(shape, k), &d->shape[k]) < 0) return -1;
  if (strides && strides != Py_None) {
    if (!PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != nd) goto bad;
    for (int k = 0; k < d->ndim; k++)
      if (cai_int(PyTuple_GET_ITEM(strides, k), &d->strides[k]) < 0) return -1;
  } else {
    int64_t s = (int64_t)p2c_dtype_size(d->dtype, NULL);   /* scalars, S<n>, U<n> */
    for (int k = d->ndim; k-- > 0;) {
      d->strides[k] = s;
      s *= d->shape[k];
    }
  }
  a->v.is_array = true;
  a->v.type = d->dtype;
  a->v.device_array = d;
  /* data = (pointer, read-only flag): a read-only GPU array goes only where no store is. */
  if (PyTuple_GET_SIZE(data) > 1) {
    int ro = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
    if (ro < 0) return -1;
    a->readonly = ro;
  }
  return sim_memory_check(st, name, d) < 0 ? -1 : cai_producer(st, cai, name, a);
bad:
  PyErr_Format(PyExc_TypeError, "argument '%s': malformed __cuda_array_interface__", name);
  return -1;
}

static int optional_attr(PyObject *o, PyObject *name, PyObject **out);

int arg_read_cai(State *st, PyObject *obj, const char *name, Arg *a) {
  PyObject *cai = NULL;
  if (optional_attr(obj, st->str_cai, &cai) < 0) return -1;
  if (!cai) return 0;
  int r = from_cai(st, cai, name, a);
  Py_DECREF(cai);
  return r < 0 ? -1 : 1;
}

/* A foreign array on the simulator: its memory is read where it is, as a host array. */
static void cai_as_host(Arg *a) {
  P2cHostArray h = {.dtype = a->dev.dtype, .ndim = a->dev.ndim, .data = (void *)(uintptr_t)a->dev.data};
  memcpy(h.shape, a->dev.shape, sizeof h.shape);
  memcpy(h.strides, a->dev.strides, sizeof h.strides);
  a->v.device_array = NULL;
  a->v.array = h;
}

/* A pyk2cuda device array: on the GPU its device view, on the simulator its host memory. */
static void from_device_array(DeviceArray *da, Arg *a) {
  a->v.is_array = true;
  a->v.type = da->a.dtype;
  if (da->on_gpu) {
    a->dev = da->a;
    a->v.device_array = &a->dev;
  } else {
    a->v.array = devarray_host_view(da);
  }
}

/* ---- tuples ---- */

/* Tuples nest at most this deep (the compiler's limit, src/typeinfer/infer_tuple.c). */
enum { MAX_TUPLE_DEPTH = 16 };

static int convert(State *st, PyObject *obj, const char *name, Arg *out, int depth);

/* A namedtuple's class name and field names (its _fields, one str per element), kept in
 * a->names; a plain tuple (no _fields) leaves them NULL. */
static int tuple_names(PyObject *o, const char *name, Arg *a) {
  PyObject *fields = PyTuple_CheckExact(o) ? NULL : PyObject_GetAttrString((PyObject *)Py_TYPE(o), "_fields");
  if (!fields) {
    PyErr_Clear();
    return 0;
  }
  PyObject *cls = PyObject_GetAttrString((PyObject *)Py_TYPE(o), "__name__");
  Py_ssize_t n = PyTuple_GET_SIZE(o);
  if (!cls || !PyUnicode_Check(cls) || !PyTuple_Check(fields) || PyTuple_GET_SIZE(fields) != n) {
    Py_XDECREF(cls);
    Py_DECREF(fields);
    PyErr_Clear();
    return 0;   /* not a namedtuple after all: a plain tuple */
  }
  a->names = Py_BuildValue("(NN)", cls, fields);
  a->field_names = a->names ? PyMem_Calloc((size_t)(n ? n : 1), sizeof *a->field_names) : NULL;
  if (!a->field_names) return a->names ? (PyErr_NoMemory(), -1) : -1;
  for (Py_ssize_t i = 0; i < n; i++)
    if (!(a->field_names[i] = PyUnicode_Check(PyTuple_GET_ITEM(fields, i)) ? PyUnicode_AsUTF8(PyTuple_GET_ITEM(fields, i)) : NULL)) {
      if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "argument '%s': a namedtuple field name is not a str", name);
      return -1;
    }
  a->v.tuple_class = PyUnicode_AsUTF8(cls);
  a->v.field_names = a->field_names;
  return a->v.tuple_class ? 0 : -1;
}

/* A tuple or namedtuple: each element converted as an argument of its own (Numba passes tuples
 * by value: UniTuple, Tuple, NamedTuple). */
static int from_tuple(State *st, PyObject *o, const char *name, Arg *a, int depth) {
  Py_ssize_t n = PyTuple_GET_SIZE(o);
  if (depth >= MAX_TUPLE_DEPTH) {
    PyErr_Format(PyExc_ValueError, "argument '%s': tuples nested more than %d deep", name, MAX_TUPLE_DEPTH);
    return -1;
  }
  a->v.type = P2C_TUPLE;
  a->elems = PyMem_Calloc((size_t)(n ? n : 1), sizeof *a->elems);
  a->elem_vals = PyMem_Calloc((size_t)(n ? n : 1), sizeof *a->elem_vals);
  if (!a->elems || !a->elem_vals) return PyErr_NoMemory(), -1;
  for (Py_ssize_t i = 0; i < n; i++) {
    if (convert(st, PyTuple_GET_ITEM(o, i), name, &a->elems[i], depth + 1) < 0) return -1;
    a->nelems++;
    a->elem_vals[i] = a->elems[i].v;
  }
  a->v.elems = a->elem_vals;
  a->v.elem_count = (size_t)n;
  return tuple_names(o, name, a);
}

/* Whether converted tuple a holds numbers only, in nested tuples too. */
static bool tuple_of_numbers(const Arg *a) {
  for (size_t i = 0; i < a->nelems; i++) {
    const P2cValue *e = &a->elems[i].v;
    if (e->is_array || e->type == P2C_RECORD || e->enum_class || (e->type == P2C_TUPLE && !tuple_of_numbers(&a->elems[i])))
      return false;
  }
  return true;
}

/* getattr that returns 0 with *out NULL when the attribute is missing. */
static int optional_attr(PyObject *o, PyObject *name, PyObject **out) {
  *out = PyObject_GetAttr(o, name);
  if (*out) return 1;
  if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
  PyErr_Clear();
  return 0;
}

/* The name Enum class `cls` has in signatures (P2cValue.enum_class): its __name__ made an ASCII
 * identifier of at most 50 characters, with "_2", "_3", ... after it when another class of that
 * name came first, since two classes are two types. Owned by st->enum_names; NULL on error. */
static const char *enum_class_name(State *st, PyObject *cls) {
  if (!st->enum_names && !(st->enum_names = PyDict_New())) return NULL;
  if (!st->enum_classes && !(st->enum_classes = PyDict_New())) return NULL;
  PyObject *known = PyDict_GetItemWithError(st->enum_names, cls);
  if (known || PyErr_Occurred()) return known ? PyUnicode_AsUTF8(known) : NULL;
  char base[52] = "_";   /* a leading '_' only where the name would start with a digit */
  const char *tp = ((PyTypeObject *)cls)->tp_name, *dot = strrchr(tp, '.');
  size_t n = 1;
  for (const char *c = dot ? dot + 1 : tp; *c && n < sizeof base - 1; c++)
    base[n++] = isascii((unsigned char)*c) && (isalnum((unsigned char)*c) || *c == '_') ? *c : '_';
  base[n] = '\0';
  const char *start = n > 1 && !isdigit((unsigned char)base[1]) ? base + 1 : base;
  PyObject *candidate = PyUnicode_FromString(start);
  for (int k = 2; candidate; k++) {
    int taken = PyDict_Contains(st->enum_classes, candidate);
    if (taken < 0) Py_CLEAR(candidate);
    if (taken <= 0) break;
    Py_SETREF(candidate, PyUnicode_FromFormat("%s_%d", start, k));
  }
  if (!candidate || PyDict_SetItem(st->enum_classes, candidate, cls) < 0 ||
      PyDict_SetItem(st->enum_names, cls, candidate) < 0) {
    Py_XDECREF(candidate);
    return NULL;
  }
  Py_DECREF(candidate);   /* the dicts hold it */
  return PyUnicode_AsUTF8(candidate);
}

/* An Enum or IntEnum member: its value (a number or a tuple of numbers; an IntEnum's an int),
 * typed as a member of its class, as Numba types it (Enum<int64>(Color)). */
static int from_enum_member(State *st, PyObject *o, const char *name, Arg *a, int depth) {
  PyObject *value = PyObject_GetAttrString(o, "value");
  if (!value) return -1;
  bool is_int = PyLong_Check(o);   /* an IntEnum (or IntFlag) member is an int */
  int r = is_int ? from_pyscalar(value, name, a) : convert(st, value, name, a, depth);
  Py_DECREF(value);
  if (r < 0 && !PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
  PyErr_Clear();   /* a value of no argument type: the message below names the member */
  bool numbers = r == 0 && (a->v.type == P2C_TUPLE ? tuple_of_numbers(a) : !a->v.is_array && a->v.type != P2C_RECORD);
  if (!numbers || (is_int && a->v.type != P2C_INT64)) {
    PyErr_Format(PyExc_TypeError, "argument '%s': %R is a member of Enum class '%.100s' whose value is "
                 "not %s, which Numba's Enum types need", name, o, Py_TYPE(o)->tp_name,
                 is_int ? "an int64" : "a number or a tuple of numbers");
    return -1;
  }
  a->v.enum_is_int = is_int;
  return (a->v.enum_class = enum_class_name(st, (PyObject *)Py_TYPE(o))) ? 0 : -1;
}

static int convert(State *st, PyObject *obj, const char *name, Arg *out, int depth) {
  memset(out, 0, sizeof *out);
  if (is_device_array(st, obj)) {
    from_device_array((DeviceArray *)obj, out);
    return 0;
  }
  if (is_enum_member(obj)) {
    int r = from_enum_member(st, obj, name, out, depth);
    if (r < 0) arg_release(out);
    return r;
  }
  if (PyFloat_CheckExact(obj) || PyLong_CheckExact(obj) || PyBool_Check(obj) || PyComplex_CheckExact(obj))
    return from_pyscalar(obj, name, out);
  if (PyTuple_Check(obj)) {   /* a failed tuple releases the elements it converted */
    int r = from_tuple(st, obj, name, out, depth);
    if (r < 0) arg_release(out);
    return r;
  }
  if (PyObject_CheckBuffer(obj)) return from_buffer(st, obj, name, out);
  int cai = arg_read_cai(st, obj, name, out);
  if (cai != 0) {
    if (cai > 0 && st->kind != DEV_GPU) cai_as_host(out);
    return cai < 0 ? -1 : 0;
  }
  return from_pyscalar(obj, name, out);  /* int and float subclasses, or the TypeError */
}

int args_after_producers(State *st, const Arg *args, size_t n, P2cStream *stream) {
  for (size_t i = 0; i < n; i++) {
    if (args_after_producers(st, args[i].elems, args[i].nelems, stream) < 0) return -1;
    if (!args[i].producer_stream) continue;
    P2cStatus s = p2c_stream_wait_producer(st->gpu, args[i].producer_stream, stream);
    if (s != P2C_OK) return raise_device(st, s), -1;
  }
  return 0;
}

int args_sync_producers(State *st, Arg *args, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (args_sync_producers(st, args[i].elems, args[i].nelems) < 0) return -1;
    if (!args[i].producer_stream || !st->cai_sync) continue;
    PyObject *h = PyLong_FromUnsignedLongLong(args[i].producer_stream);
    PyObject *r = h ? PyObject_CallOneArg(st->cai_sync, h) : NULL;
    Py_XDECREF(h);
    int synced = r ? PyObject_IsTrue(r) : -1;
    Py_XDECREF(r);
    if (synced < 0) return -1;
    if (synced) args[i].producer_stream = 0;   /* done: nothing left to order after */
  }
  return 0;
}

int arg_from_object(State *st, PyObject *obj, const char *name, Arg *out) {
  return convert(st, obj, name, out, 0);
}

void arg_release(Arg *a) {
  if (a->view.obj) PyBuffer_Release(&a->view);
  record_desc_release(&a->rd);
  for (size_t i = 0; i < a->nelems; i++) arg_release(&a->elems[i]);
  PyMem_Free(a->elems);
  PyMem_Free(a->elem_vals);
  PyMem_Free(a->field_names);
  Py_CLEAR(a->names);
  a->elems = NULL;
  a->elem_vals = NULL;
  a->field_names = NULL;
  a->nelems = 0;
}

/* A read-only array in a tuple: arrays in tuples count as written (P2cParam.elems). */
static int check_tuple_writable(const Arg *a, const P2cParam *p, PyObject *kernel, const char *pname) {
  for (size_t i = 0; i < a->nelems && i < p->elem_count; i++) {
    const Arg *e = &a->elems[i];
    if (e->v.type == P2C_TUPLE && check_tuple_writable(e, &p->elems[i], kernel, pname) < 0) return -1;
    if (!e->readonly || !e->v.is_array || !p->elems[i].written) continue;
    PyErr_Format(PyExc_ValueError, "argument '%s' of kernel '%U': element %zu of the tuple is a read-only "
                 "array, and arrays in tuples are passed as written (pass a writable array, e.g. a copy, "
                 "or a device array)", pname, kernel, i);
    return -1;
  }
  return 0;
}

int arg_check_writable(const Arg *a, const P2cParam *p, PyObject *kernel) {
  if (p->type == P2C_TUPLE) return check_tuple_writable(a, p, kernel, p->name);
  if (!a->readonly || !a->v.is_array || !p->written) return 0;
  PyErr_Format(PyExc_ValueError, "argument '%s' of kernel '%U': the array is read-only, and the "
               "kernel writes '%s' (pass a writable array, e.g. a copy, or a device array)",
               p->name, kernel, p->name);
  return -1;
}

/* ---- conversion to an explicit signature's scalar type ---- */

/* As every front converts (p2c_value_convert): a refusal is Numba's TypeError naming the
 * parameter. */
int arg_convert_scalar(Arg *a, P2cScalarType t, const char *name) {
  char why[512];
  if (p2c_value_convert(&a->v, t, name, why, sizeof why)) return 0;
  PyErr_SetString(PyExc_TypeError, why);
  return -1;
}

int arg_convert(Arg *a, const P2cParam *p, const char *name) {
  if (!p->enum_class) {   /* an IntEnum member given to an integer parameter: its int */
    a->v.enum_class = NULL;
    a->v.enum_is_int = false;
  }
  if (a->v.type == P2C_TUPLE) {
    for (size_t i = 0; i < a->nelems && i < p->elem_count; i++) {
      if (arg_convert(&a->elems[i], &p->elems[i], name) < 0) return -1;
      a->elem_vals[i] = a->elems[i].v;
    }
    return 0;
  }
  if (a->v.is_array || a->v.type == P2C_RECORD) return 0;
  return arg_convert_scalar(a, p->type, name);
}
