/* Bounds checking (`--check-bounds`): the record through which a kernel reports its first
 * out-of-bounds access, shared by the code generator (which writes the device side, H_BOUNDS in
 * codegen/prelude.c), the simulator and the GPU runtime (which read it after a launch).
 *
 * The protocol (docs/generated-code.md, "Bounds checking"):
 *  - A module compiled with bounds checks in which a kernel can fail (an index checked, a raise
 *    reported; codegen's defines_bounds_record) defines one global `p2c_bounds_report` (extern "C",
 *    so its name is not mangled: dlsym on the simulator, cuModuleGetGlobal on the GPU), 176
 *    bytes, laid out as P2cBoundsRecord below.
 *  - The runtime zeroes it before each launch of a kernel of that module.
 *  - A thread whose index is out of bounds (after Python's wraparound of negative indices)
 *    takes the record with atomicCAS(&claimed, 0, 1); only the thread that gets 0 back fills in
 *    the other fields. Then it ends itself (PTX `exit`; on the simulator, exit_thread). On the
 *    GPU other threads carry on (exited threads no longer hold up barriers); the simulator
 *    stops the launch.
 *  - After the launch the runtime reads the record: claimed != 0 means the launch failed with
 *    P2C_ERR_BOUNDS, and the message comes from bounds_format.
 *  - A raise or a failed assert in a function compiled with debug=True (H_RAISE) uses the same
 *    record with ndim 0: the exception as Python prints it ("ValueError: msg", NUL-terminated,
 *    at most 127 bytes) fills the bytes of index and shape. A module with such a raise is read
 *    after each launch as if it had bounds checks. */
#ifndef P2C_RUNTIME_BOUNDS_H
#define P2C_RUNTIME_BOUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The symbol of the record in a module compiled with bounds checks. */
#define P2C_BOUNDS_SYMBOL "p2c_bounds_report"

enum { P2C_BOUNDS_MAX_NDIM = 8 };

/* Byte offsets (also asserted in bounds.c): claimed 0, line 4, column 8, ndim 12, axis 16,
 * block 20, thread 32, view 44, index 48, shape 112; size 176. Little-endian on both sides. */
typedef struct P2cBoundsRecord {
  uint32_t claimed;        /* 0: no failure; 1: a thread recorded one */
  uint32_t line, column;   /* the subscript's position in the Python source (1-based, column in
                            * characters) */
  uint32_t ndim;           /* the array's dimensions (1..8); 0: a raise (see above) */
  uint32_t axis;           /* the first axis whose index is out of bounds */
  uint32_t block[3];       /* blockIdx of the failing thread */
  uint32_t thread[3];      /* threadIdx */
  uint32_t view;           /* 1: the index made a view (a[i] of an N-D array): only index[axis]
                            * and shape[axis] are meaningful, ndim is axis + 1 */
  int64_t index[P2C_BOUNDS_MAX_NDIM]; /* the indices as written: negative ones not wrapped */
  int64_t shape[P2C_BOUNDS_MAX_NDIM]; /* the array's extents */
} P2cBoundsRecord;

/* Writes the message for a claimed record (a raise's: FILE:LINE:COL: error: ValueError: msg in
 * kernel 'k', thread (2,0,0) of block (1,0,0)); an index's:
 *   FILE:LINE:COL: error: index 7 is out of bounds for axis 0 with size 5 (array of shape (5,))
 *   in kernel 'k', thread (2,0,0) of block (1,0,0)
 * (one line; N-D indices as a tuple, "index (3, 64) ..."; a view's index alone, without the
 * array's shape, as NumPy says it). `file` and `kernel` may be NULL
 * ("<source>", and no kernel name). `host`: the kernel is a @jit function's host entry, run by
 * one thread on the CPU: "in function 'f'", without the thread and block. Fields from the
 * device are not trusted: ndim and axis are clamped. Always NUL-terminates a non-empty `out`. */
void bounds_format(const P2cBoundsRecord *r, const char *file, const char *kernel, bool host, char *out,
                   size_t size);

#endif
