/* Where the parts of a CUDA toolkit are looked for (internal API): the one list of places, in
 * order, that the NVRTC library's search (nvrtc.c) and nvdisasm's (nvdisasm.c) both walk, as
 * NVIDIA's cuda-pathfinder orders them, the running Python environment's own copy first, then
 * the system's:
 *   1. NVIDIA's pip wheels in each folder of $PYK2CUDA_SITE_PACKAGES (separated by ':'; the
 *      Python package sets it to its sys.path at import, the CLI reads it as it is):
 *      nvidia/cu13/{lib,bin} (CUDA 13's wheels share them) and nvidia/cuda_PART/{lib,bin}
 *      (CUDA 12's, e.g. nvidia/cuda_nvrtc/lib);
 *   2. $CONDA_PREFIX/{lib,bin};
 *   3. the system's own search: the dynamic linker's path for a library (visited as ""), each
 *      folder of $PATH for a program;
 *   4. $CUDA_HOME/{lib64,bin}, $CUDA_PATH/{lib64,bin}, /usr/local/cuda/{lib64,bin}.
 * Each part's own override ($PYK2CUDA_NVRTC, $PYK2CUDA_NVDISASM) comes before the list and is
 * its caller's business. */
#ifndef P2C_RUNTIME_CUDA_TOOLKIT_H
#define P2C_RUNTIME_CUDA_TOOLKIT_H

#include <stdbool.h>
#include <stddef.h>

typedef enum ToolkitKind {
  TOOLKIT_LIBRARY,   /* in lib/ (lib64/ under a toolkit), or on the loader's path */
  TOOLKIT_PROGRAM,   /* in bin/, or on $PATH */
} ToolkitKind;

/* Called for each folder of the search: `dir` ("" for the loader's path), and `place`, how a
 * message names the place it belongs to ("$CUDA_HOME/lib64", "NVIDIA's wheels in
 * $PYK2CUDA_SITE_PACKAGES", "$PATH", "the library path"). True ends the search. */
typedef bool (*ToolkitVisit)(void *ctx, const char *dir, const char *place);

/* Visits the folders where a `kind` part whose CUDA 12 wheel folder is nvidia/cuda_PART (`part`:
 * "nvrtc", "nvdisasm") may be, in the order above, until `visit` returns true; returns whether
 * one did. Places whose variable is unset or empty are skipped. */
bool toolkit_search(ToolkitKind kind, const char *part, ToolkitVisit visit, void *ctx);

/* The places of the search, for a message: "NVIDIA's wheels in $PYK2CUDA_SITE_PACKAGES,
 * $CONDA_PREFIX/bin, $PATH, $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin". */
void toolkit_places(ToolkitKind kind, char *out, size_t size);

#endif
