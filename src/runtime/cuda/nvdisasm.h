/* nvdisasm: the SASS of a CUBIN, for the explore view (internal API; docs/explore.md).
 *
 * nvdisasm is a program of the CUDA toolkit (and of NVIDIA's wheel nvidia-cuda-nvdisasm), not a
 * library, so it runs as a child process: the CUBIN goes to a file in a fresh temporary folder,
 * `nvdisasm -c -gi FILE` writes the code sections with the CUBIN's line table (the CUDA C lines
 * ptxas kept from the PTX's `.loc` entries, and where code was inlined) into a second file there,
 * and the folder is removed. Where nvdisasm is found, in this order: $PYK2CUDA_NVDISASM (a path;
 * when set, the only place tried), then the toolkit's places for a program (toolkit.h, the list
 * NVRTC's search walks too): the wheels' bin folders in each folder of $PYK2CUDA_SITE_PACKAGES
 * (nvidia/cu13/bin, nvidia/cuda_nvdisasm/bin), $CONDA_PREFIX/bin, the folders of $PATH,
 * $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin. The public p2c_find_nvdisasm is this
 * search, for the Python package's inspect_sass. */
#ifndef P2C_RUNTIME_CUDA_NVDISASM_H
#define P2C_RUNTIME_CUDA_NVDISASM_H

#include <stdbool.h>
#include <stddef.h>

#include "pyk2cuda.h"

/* Finds nvdisasm as above: its path in out (NUL-terminated) and true, else false and in out the
 * message: "nvdisasm was not found (tried PLACES)". */
bool rtc_nvdisasm_find(char *out, size_t outlen);

/* The SASS of `cubin` (size bytes) by nvdisasm -c -gi: *text (NUL-terminated, *len bytes,
 * allocated with alloc, NULL: malloc; the caller frees it with mem_free(alloc, *text, *len + 1)).
 * Statuses: P2C_OK; P2C_ERR_NO_CUDA, nvdisasm was not found (err is rtc_nvdisasm_find's message);
 * P2C_ERR_IO, the temporary files could not be written or read, nvdisasm could not be started,
 * or it failed (err holds the first line of what it said); P2C_ERR_NOMEM. On failure *text is
 * NULL. Nothing is left in the temporary folder on any path. */
P2cStatus rtc_disassemble(const void *cubin, size_t size, const P2cAllocator *alloc, char **text, size_t *len,
                          char *err, size_t errlen);

#endif
