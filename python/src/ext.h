/* The pyk2cuda._core extension: what its files share.
 *
 * The extension is a client of include/pyk2cuda.h and nothing else. Its state lives in the
 * module object (PEP 489 multi-phase init, heap types), never in C globals: the compiler handle,
 * the device chosen for launches (the simulator or one GPU), the exception classes and the
 * types. Objects made by the module keep a strong reference to it, so the state they point at
 * outlives them.
 *
 * Files: module.c (init, device choice, errors), kernel.c (cuda.jit kernels: specializations and
 * the launch path), args.c (Python arguments to P2cValue), devarray.c (device arrays, pinned
 * buffers), stream.c (streams and events), ufunc.c (@vectorize). */
#ifndef PYK2CUDA_EXT_H
#define PYK2CUDA_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>

#include "pyk2cuda.h"

/* Which device launches use. Decided once, at the first call that needs it (or by
 * select_device / PYK2CUDA_DEVICE), and kept: objects made for one device never meet the other. */
typedef enum { DEV_UNDECIDED = 0, DEV_SIM, DEV_GPU } DevKind;

typedef struct State {
  P2cCompiler *compiler;
  DevKind kind;
  int ordinal;                 /* the GPU's ordinal */
  P2cDevice *gpu;              /* the open GPU when kind == DEV_GPU */
  long gpu_pid;                /* the process that opened it (a fork's child cannot use it) */
  char why[400];               /* why the device was chosen ("no CUDA driver: ...") */
  bool check_bounds;           /* later translations check every index */
  bool sanitize;               /* later translations are for the simulator's checker */
  PyObject *module;            /* borrowed: the module that owns this state */
  PyObject *Error, *CompileError, *BoundsError;
  PyTypeObject *Kernel, *Launcher, *DeviceArray, *Stream, *Event, *HostBuffer, *Ufunc;
  PyObject *numpy;             /* the numpy module, imported at the first need */
  PyObject *dtypes[P2C_SCALAR_TYPE_COUNT]; /* numpy.dtype per scalar type, made at first need */
  PyObject *str_cai;           /* "__cuda_array_interface__" */
  /* GPU: what work queued on the default stream uses (a list, or NULL), kept alive until a
   * synchronize of the device (stream_keep); sync_epoch counts those synchronizes. */
  PyObject *default_pending;
  unsigned long sync_epoch;
  PyObject *arg_hint;          /* cuda.args.ArgHint (In, Out, InOut), set by cuda.py; or NULL */
  PyObject *assigned;          /* cuda._assigned(view, value): what `d[key] = value` writes */
  PyObject *transposed;        /* cuda._transposed(d, axes): what d.T, d.transpose(*axes) give */
  PyObject *cai_sync;          /* cuda._cai_sync(handle): a launch consumed a foreign array whose
                                  __cuda_array_interface__ names stream `handle`; or NULL */
  /* Simulator: the host memory device arrays and host buffers own, as [lo, hi) ranges sorted by
   * lo, so that a __cuda_array_interface__ pointer is taken only where pyk2cuda's own memory is
   * (devarray.c, sim_memory_*). */
  struct SimRange {
    uintptr_t lo, hi;
    bool pages;                /* a device array's own page mapping (ipc.c can share it) */
    int ipc_fd;                /* once shared: the memfd holding its pages, else -1 */
    uint64_t ipc_token;        /* once shared: the token in the memfd's name and its handles */
  } *sim_ranges;
  size_t sim_range_count, sim_range_cap;
  /* Device allocations released since the last reset (Numba's memory_manager.deallocations). */
  size_t dealloc_count;
  /* The names Enum classes of arguments have in signatures (args.c, enum_class_name): class to
   * name, and name to class (two classes of one __name__ get two names). Made at first need. */
  PyObject *enum_names, *enum_classes;
  /* cuda.defer_cleanup(): while defer_depth > 0 the GPU memory of dropped device arrays waits
   * in `deferred`, to be freed when the outermost block ends (devarray.c, release_buffer). */
  unsigned defer_depth;
  P2cBuffer **deferred;
  size_t deferred_count, deferred_cap;
} State;

/* ---- module.c ---- */
State *state_of_type(PyTypeObject *t);
/* Chooses the device if it is not chosen yet. -1 with an exception set on failure, or when
 * this process is a fork of the one that opened the GPU. */
int state_device(State *st);
/* Raises the exception for a failed C API call: CompileError (with the module's diagnostics
 * when `diags` is not NULL), BoundsError, or Error; the message is `msg`. Returns NULL. */
PyObject *raise_status(State *st, P2cStatus s, const char *msg, const P2cModule *diags);
/* raise_status with the compiler's last error. */
PyObject *raise_compiler(State *st, P2cStatus s);
/* raise_status with the GPU's last error. */
PyObject *raise_device(State *st, P2cStatus s);
/* numpy, imported once. Borrowed reference, NULL with an exception set. */
PyObject *state_numpy(State *st);
/* The strings of `list` joined with `sep`; takes the reference to `list` (NULL: returns NULL). */
PyObject *join_list(const char *sep, PyObject *list);
/* A module's diagnostics of severity `only` (-1: all) as [(file, line, column, severity, code,
 * message)]; NULL with an exception set. */
PyObject *diagnostics_list(const P2cModule *m, int only);
/* numpy.dtype for a scalar type. Borrowed reference. */
PyObject *state_dtype(State *st, P2cScalarType t);

/* ---- args.c ---- */

/* A record dtype's description for the C API, made from a NumPy structured dtype by
 * pyk2cuda.types.record_fields (the extension is built without NumPy's C API). */
typedef struct RecordDesc {
  P2cRecord rec;
  P2cRecordField *fields;      /* PyMem */
  PyObject *desc;              /* record_fields(dtype): owns the field names */
} RecordDesc;
/* Fills *out from a NumPy dtype with fields (`name` names the argument in messages). 0, or -1
 * with an exception and nothing to release. */
int record_desc_of(PyObject *dtype, const char *name, RecordDesc *out);
void record_desc_release(RecordDesc *r);

/* One argument of a launch as the C API takes it, and what must be released after it. */
typedef struct Arg {
  P2cValue v;
  Py_buffer view;              /* a host array's buffer; view.obj NULL when none */
  P2cDeviceArray dev;          /* a device array's view (GPU) */
  bool host_array;             /* a host array the launch reads and writes in place */
  bool readonly;               /* a read-only host array: only for parameters the kernel does not
                                  write (P2cParam.written; arg_check_writable) */
  RecordDesc rd;               /* a structured array's record */
  uint64_t producer_stream;    /* a foreign array (__cuda_array_interface__): the stream it
                                  names (0: none), which the launch is ordered after */
  /* A tuple (v.type P2C_TUPLE): one Arg per element and their values (v.elems points at
   * elem_vals); a namedtuple's field names, kept alive by `names` (its _fields and class name). */
  struct Arg *elems;
  P2cValue *elem_vals;
  size_t nelems;
  const char **field_names;
  PyObject *names;
} Arg;

/* The scalar type for a struct-module format ("f", "<i8"-style prefixes not accepted beyond
 * native/little-endian markers). -1 when unsupported. */
int format_to_type(const char *format);
/* PyObject_GetBuffer, with NumPy's datetime64 and timedelta64 arrays and scalars (which NumPy
 * exports no buffer for) read through their int64 view; *time_type (NULL: not wanted) is then
 * their P2C_DATETIME64 + unit or P2C_TIMEDELTA64 + unit type, else -1. A unit NumPy gives a
 * multiple (M8[10D]) is a TypeError (`what` says which object: "argument 'a'"). */
int get_host_buffer(PyObject *obj, Py_buffer *view, int flags, const char *what, int *time_type);
/* Whether t is a datetime64 or timedelta64 type (of any unit). */
static inline bool is_time_type(int t) { return t >= P2C_DATETIME64 && t < P2C_SCALAR_TYPE_COUNT; }
/* The datetime type of a NumPy typestr ("<M8[D]", "<m8"), or -1. */
int time_typestr_to_type(const char *typestr);
/* Converts one Python argument (`name` is the parameter's name, for messages). 0 or -1 with an
 * exception set. Release with arg_release. */
int arg_from_object(State *st, PyObject *obj, const char *name, Arg *out);
void arg_release(Arg *a);
/* Orders the launch's stream (NULL: the legacy default stream) after the producer streams of
 * the arguments' foreign GPU arrays (Arg.producer_stream; tuples' elements too), on the device:
 * the host does not wait. 0 or -1 with an exception set. */
int args_after_producers(State *st, const Arg *args, size_t n, P2cStream *stream);
/* Numba's consumer rule for the foreign arrays among the arguments (tuples' elements too): each
 * producer stream is handed to State.cai_sync, which synchronizes it when
 * CUDA_ARRAY_INTERFACE_SYNC is on and then says so (true), and the argument has no producer
 * stream left to order after (args_after_producers). 0 or -1 with an exception set. */
int args_sync_producers(State *st, Arg *args, size_t n);
/* Reads obj's __cuda_array_interface__ into a->dev (a device view: on the simulator its pointer
 * is a host address inside memory pyk2cuda owns, checked), a->producer_stream and a->readonly.
 * 1 when obj has the interface, 0 when it has none, -1 with an exception. */
int arg_read_cai(State *st, PyObject *obj, const char *name, Arg *a);
/* A read-only array given for a parameter the kernel may write: a ValueError naming the
 * parameter (`kernel` names the kernel). 0 when the argument may be passed. */
int arg_check_writable(const Arg *a, const P2cParam *p, PyObject *kernel);
/* Converts a Python scalar argument to the parameter type `t` (Numba's conversion to an explicit
 * signature's type). 0 or -1 with an exception. */
int arg_convert_scalar(Arg *a, P2cScalarType t, const char *name);
/* Converts the scalars of an argument (a scalar, or those in a tuple) to parameter p's types,
 * as arg_convert_scalar; arrays and records are left as they are. */
int arg_convert(Arg *a, const P2cParam *p, const char *name);

/* ---- devarray.c ---- */

/* A device array: on the GPU device memory (dev.buffer owned, or a view of another owner);
 * on the simulator host memory the array owns (device memory is host memory there). */
typedef struct DeviceArray {
  PyObject_HEAD
  State *st;
  PyObject *module;            /* keeps the state alive */
  PyObject *owner;             /* the object whose memory this views, or NULL when owned */
  P2cDeviceArray a;            /* a.data: device address (GPU) or host address (simulator) */
  size_t span;                 /* bytes from the lowest to the highest element, inclusive */
  size_t offset;               /* bytes from the span's start to element [0, ..., 0] */
  void *host;                  /* simulator: the owned allocation (span bytes) */
  bool on_gpu;
  PyObject *weakrefs;
  PyObject *np_dtype;          /* a record array's NumPy dtype (NULL for scalar dtypes) */
  RecordDesc rd;               /* a record array's description (a view's a.record is its owner's) */
  PyObject *stream;            /* the Stream it was made on (Numba's .stream), or NULL: the
                                  default stream; its __cuda_array_interface__ names it */
} DeviceArray;

extern PyType_Spec DeviceArray_spec, HostBuffer_spec;
/* A buffer object exposing `size` bytes at ptr: the memory of `keep`, kept alive, or (keep NULL)
 * a heap block a @jit function's call handed over, freed with the buffer (also when this fails). */
PyObject *host_buffer_over(State *st, void *ptr, Py_ssize_t size, PyObject *keep);
extern PyMethodDef devarray_functions[];
bool is_device_array(State *st, PyObject *o);
/* Frees the GPU memory that cuda.defer_cleanup() kept back (at its outermost block's end, and
 * when the module goes). */
void devarray_free_deferred(State *st);
/* The host array a host-memory device array (simulator) describes. */
P2cHostArray devarray_host_view(const DeviceArray *d);
/* A new DeviceArray holding a copy of a host array (np_dtype: its NumPy dtype, needed for a
 * record array, else NULL); NULL with an exception. */
PyObject *devarray_from_host(State *st, const P2cHostArray *h, PyObject *np_dtype, P2cStream *stream);
/* A numpy array holding a copy of the device array. New reference or NULL. */
PyObject *devarray_to_numpy(DeviceArray *d, P2cStream *stream);
/* Simulator: whether the bytes [lo, lo + span) lie in one allocation pyk2cuda owns. */
bool sim_memory_holds(const State *st, uintptr_t lo, size_t span);
/* Simulator: notes memory device arrays (pages: their own page mappings), host buffers or IPC
 * mappings own, before kernels may use it; -1 with MemoryError. */
int sim_memory_add(State *st, void *p, size_t bytes, bool pages);
/* Forgets memory sim_memory_add noted, before it is freed. */
void sim_memory_remove(State *st, void *p);
/* The noted range that holds address p, or NULL. */
struct SimRange *sim_memory_range(State *st, uintptr_t p);

/* ---- ipc.c ---- */

/* A device array's memory on the simulator: zero-filled pages of its own, which ipc.c can turn
 * into shared ones in place. NULL when out of memory. */
void *sim_pages_alloc(size_t bytes);
/* Frees sim_pages_alloc's pages, noted with sim_memory_add, and their memfd once shared. */
void sim_pages_free(State *st, void *p, size_t bytes);
extern PyMethodDef ipc_functions[];
/* The bytes an array spans, and the offset of its element [0, ...] in them. */
void array_span(int64_t item, int ndim, const int64_t *shape, const int64_t *strides, size_t *span,
                size_t *offset);

/* ---- stream.c ---- */
typedef struct Stream {
  PyObject_HEAD
  State *st;
  PyObject *module;
  P2cStream *s;                /* GPU: the stream, NULL for the default one; simulator: NULL */
  bool is_default;
  bool external;               /* another library's stream, known by its handle only */
  uint64_t handle;             /* __cuda_array_interface__'s number for it: the driver's handle
                                  (GPU), a number of its own (a simulator stream), the given one
                                  (external); 0: none (the simulator's default stream) */
  PyObject *pending;           /* GPU: what work queued on it uses (a list, or NULL) */
  unsigned long epoch;         /* the State's sync_epoch when `pending` was begun */
} Stream;
extern PyType_Spec Stream_spec, Event_spec;
extern PyMethodDef stream_functions[];
/* The P2cStream of a `stream=` argument: None/0 is the default stream. -1 with an exception. */
int stream_arg(State *st, PyObject *o, P2cStream **out);
/* The number __cuda_array_interface__ gives for work on `stream` (a Stream or NULL: the
 * default stream): None where there is none. New reference. */
PyObject *stream_cai_value(State *st, PyObject *stream);
/* Keeps objs[0..n) (the arrays, host memory and device memory, that work just queued uses)
 * alive until that work is known done: until the stream `stream` (a Stream, or None/0/NULL for
 * the default stream) is synchronized, or the device is. Nothing on the simulator, whose work
 * is done when the call that queued it returns. NULL entries are skipped. -1 with an exception
 * (the work is queued: the caller should synchronize before dropping the objects). */
int stream_keep(State *st, PyObject *stream, PyObject *const *objs, size_t n);
/* The device was synchronized: everything kept for the default stream and, lazily, for every
 * stream, is released (stream_keep). */
void stream_device_synchronized(State *st);

/* ---- kernel.c ---- */
extern PyType_Spec Kernel_spec, Launcher_spec;
/* The launch configuration (a Launcher) whose launch is compiling a kernel on the calling thread,
 * or None (numba-cuda's launchconfig.current_launch_config). A new reference. */
PyObject *launch_current_config(void);

/* ---- ufunc.c ---- */
extern PyType_Spec Ufunc_spec;

#endif
