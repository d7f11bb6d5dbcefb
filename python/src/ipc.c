/* CUDA IPC on the simulator: another process opens a device array's memory by a handle
 * (Numba's get_ipc_handle / open_ipc_array; python/pyk2cuda/ipc.py builds Numba's objects on
 * these functions).
 *
 * On the simulator device memory is host memory, so sharing it means sharing pages. Each device
 * array owns a page mapping of its own (sim_pages_alloc), private until the first export: then
 * its pages move, in place and with their contents, into a memfd mapped MAP_SHARED at the same
 * address, so the exporter's pointers, views and kernels see no change. The handle names the
 * exporter's pid, the memfd's descriptor there, the bytes, and a random token that is also in
 * the memfd's name. The opener maps /proc/PID/fd/FD after checking that it is that memfd: a
 * handle that names any other file (stale, forged or corrupted) is refused before anything is
 * mapped, so opening it can never write into a file of the user's. The mapping stays until the
 * last array over it is gone (the owner object these functions return), so closing a handle
 * while arrays still view it cannot leave them dangling. */
#include "ext.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

enum { IPC_HANDLE_BYTES = 64 };   /* Numba's handle.reserved: a CUipcMemHandle's size */
static const char IPC_MAGIC[8] = "p2c-ipc";
#define IPC_NAME_PREFIX "pyk2cuda-ipc-"

/* The fields of a simulator handle, in its first 40 bytes (the rest zero). */
typedef struct IpcFields {
  char magic[8];
  int64_t pid;                 /* the exporting process */
  int64_t fd;                  /* the memfd's descriptor in that process */
  uint64_t bytes;              /* the allocation's bytes */
  uint64_t token;              /* also in the memfd's name */
} IpcFields;

_Static_assert(sizeof(IpcFields) <= IPC_HANDLE_BYTES, "a simulator handle fits Numba's 64 bytes");

static size_t page_rounded(size_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (bytes + page - 1) / page * page;
}

void *sim_pages_alloc(size_t bytes) {
  void *p = mmap(NULL, page_rounded(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

void sim_pages_free(State *st, void *p, size_t bytes) {
  struct SimRange *r = sim_memory_range(st, (uintptr_t)p);
  if (r && r->lo == (uintptr_t)p && r->ipc_fd >= 0) close(r->ipc_fd);
  sim_memory_remove(st, p);
  munmap(p, page_rounded(bytes));
}

/* Moves range r's pages into a new memfd mapped shared at the same address; r->ipc_fd is then
 * the memfd, kept open until the pages are freed (the opener reaches it through /proc). 0, or
 * -1 with OSError. */
static int share_pages(struct SimRange *r, uint64_t token) {
  char name[64];
  snprintf(name, sizeof name, IPC_NAME_PREFIX "%016llx", (unsigned long long)token);
  size_t len = page_rounded(r->hi - r->lo);
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) goto fail;
  if (ftruncate(fd, (off_t)len) != 0) goto fail;
  for (size_t done = 0; done < len;) {
    ssize_t n = pwrite(fd, (char *)r->lo + done, len - done, (off_t)done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) goto fail;
    done += (size_t)n;
  }
  if (mmap((void *)r->lo, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) goto fail;
  r->ipc_fd = fd;
  r->ipc_token = token;
  return 0;
fail:
  PyErr_SetFromErrno(PyExc_OSError);
  if (fd >= 0) close(fd);
  return -1;
}

/* ipc_export(address): (handle, base, bytes) for the simulator allocation that holds `address`:
 * the 64 bytes another process opens, the allocation's start and its size. */
static PyObject *f_ipc_export(PyObject *mod, PyObject *arg) {
  State *st = PyModule_GetState(mod);
  if (state_device(st) < 0) return NULL;
  if (st->kind != DEV_SIM)
    return PyErr_Format(PyExc_NotImplementedError, "CUDA IPC on the GPU path is not supported by pyk2cuda yet: "
                        "share the data through the host (copy_to_host), or run on the simulator");
  unsigned long long address = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return NULL;
  struct SimRange *r = sim_memory_range(st, (uintptr_t)address);
  if (!r || !r->pages)
    return PyErr_Format(PyExc_ValueError, "get_ipc_handle: address 0x%llx is not in a device array's memory", address);
  if (r->ipc_fd < 0) {
    uint64_t token;
    if (getrandom(&token, sizeof token, 0) != (ssize_t)sizeof token) return PyErr_SetFromErrno(PyExc_OSError);
    if (share_pages(r, token) < 0) return NULL;
  }
  unsigned char handle[IPC_HANDLE_BYTES] = {0};
  IpcFields f = {.pid = getpid(), .fd = r->ipc_fd, .bytes = r->hi - r->lo, .token = r->ipc_token};
  memcpy(f.magic, IPC_MAGIC, sizeof f.magic);
  memcpy(handle, &f, sizeof f);
  return Py_BuildValue("(y#KK)", (const char *)handle, (Py_ssize_t)sizeof handle,
                       (unsigned long long)r->lo, (unsigned long long)(r->hi - r->lo));
}

/* What an opened handle maps, freed with the capsule that owns it (the last array over it). */
typedef struct IpcMapping {
  State *st;
  PyObject *module;            /* keeps the state alive */
  void *p;
  size_t bytes;
} IpcMapping;

static const char MAPPING_CAPSULE[] = "pyk2cuda.ipc_mapping";

static void mapping_free(PyObject *capsule) {
  IpcMapping *m = PyCapsule_GetPointer(capsule, MAPPING_CAPSULE);
  if (!m) return;
  sim_memory_remove(m->st, m->p);
  munmap(m->p, page_rounded(m->bytes));
  Py_XDECREF(m->module);
  PyMem_Free(m);
}

/* Whether descriptor path `link` (a /proc/PID/fd/FD) is the memfd a handle with `token` names. */
static bool is_exported_memfd(const char *link, uint64_t token) {
  char target[128], want[64];
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n < 0) return false;
  target[n] = '\0';
  int w = snprintf(want, sizeof want, "/memfd:" IPC_NAME_PREFIX "%016llx", (unsigned long long)token);
  return strncmp(target, want, (size_t)w) == 0 && (target[w] == '\0' || target[w] == ' ');
}

/* Maps the memfd a handle names; NULL with ValueError or OSError. */
static void *map_exported(const IpcFields *f) {
  char link[64];
  snprintf(link, sizeof link, "/proc/%lld/fd/%lld", (long long)f->pid, (long long)f->fd);
  if (!is_exported_memfd(link, f->token)) {
    PyErr_Format(PyExc_ValueError, "open_ipc_array: the handle's memory is gone (process %lld exported it, "
                 "and no longer holds it) or the handle is not one pyk2cuda made", (long long)f->pid);
    return NULL;
  }
  int fd = open(link, O_RDWR | O_CLOEXEC);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0) {
    PyErr_SetFromErrnoWithFilename(PyExc_OSError, link);
    if (fd >= 0) close(fd);
    return NULL;
  }
  size_t len = page_rounded(f->bytes);
  void *p = (uint64_t)sb.st_size >= len ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  int err = errno;
  close(fd);
  if (p == MAP_FAILED) {
    if ((uint64_t)sb.st_size < len) PyErr_SetString(PyExc_ValueError, "open_ipc_array: the handle's size does not match its memory");
    else errno = err, PyErr_SetFromErrno(PyExc_OSError);
    return NULL;
  }
  return p;
}

/* ipc_open(handle): (owner, address, bytes): another process's device memory, mapped here and
 * noted as the simulator's; `owner` unmaps it when the last reference goes. */
static PyObject *f_ipc_open(PyObject *mod, PyObject *arg) {
  State *st = PyModule_GetState(mod);
  if (state_device(st) < 0) return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
  IpcFields f;
  bool ok = view.len == IPC_HANDLE_BYTES;
  if (ok) memcpy(&f, view.buf, sizeof f);
  PyBuffer_Release(&view);
  if (!ok || memcmp(f.magic, IPC_MAGIC, sizeof f.magic) != 0 || f.bytes == 0 || f.bytes > (uint64_t)PTRDIFF_MAX)
    return PyErr_Format(PyExc_ValueError, "open_ipc_array: not an IPC handle of pyk2cuda's simulator "
                        "(%d bytes that get_ipc_handle gave)", IPC_HANDLE_BYTES);
  if (st->kind != DEV_SIM)
    return PyErr_Format(PyExc_ValueError, "open_ipc_array: the handle is the simulator's, and this process runs on the GPU");
  IpcMapping *m = PyMem_Calloc(1, sizeof *m);
  if (!m) return PyErr_NoMemory();
  if (!(m->p = map_exported(&f))) {
    PyMem_Free(m);
    return NULL;
  }
  m->st = st, m->bytes = (size_t)f.bytes;
  if (sim_memory_add(st, m->p, m->bytes, false) < 0) {
    munmap(m->p, page_rounded(m->bytes));
    PyMem_Free(m);
    return NULL;
  }
  m->module = Py_NewRef(st->module);
  PyObject *owner = PyCapsule_New(m, MAPPING_CAPSULE, mapping_free);
  if (!owner) {
    sim_memory_remove(st, m->p);
    munmap(m->p, page_rounded(m->bytes));
    Py_DECREF(m->module);
    PyMem_Free(m);
    return NULL;
  }
  return Py_BuildValue("(NKK)", owner, (unsigned long long)(uintptr_t)m->p, (unsigned long long)m->bytes);
}

PyMethodDef ipc_functions[] = {
    {"ipc_export", f_ipc_export, METH_O,
     "ipc_export(address): (handle, base, bytes) of the device allocation holding address"},
    {"ipc_open", f_ipc_open, METH_O, "ipc_open(handle): (owner, address, bytes) of another process's device memory"},
    {NULL, NULL, 0, NULL},
};
