/* NVRTC, the CUDA runtime compiler, loaded with dlopen at first use (internal API).
 *
 * NVIDIA owns the nvrtc* names, so ours are rtc_*. No NVIDIA header is included: the few types
 * and prototypes we need are declared here, so the project builds where no CUDA toolkit is
 * installed, and `emit`/`check` keep working there.
 *
 * Where NVRTC is looked for, in order (the first that loads wins), as NVIDIA's cuda-pathfinder
 * orders it: the running Python environment's own copy first, then the system's:
 *   1. $PYK2CUDA_NVRTC, a path. When it is set, nothing else is tried: if it does not load, the
 *      result is P2C_ERR_NO_CUDA (so tests and users can simulate a missing library).
 *   2. the toolkit's places for a library (toolkit.h, the list nvdisasm's search walks too):
 *      NVIDIA's pip wheels in each folder of $PYK2CUDA_SITE_PACKAGES (nvidia/cu13/lib/ of
 *      nvidia-cuda-nvrtc 13, nvidia/cuda_nvrtc/lib/ of nvidia-cuda-nvrtc-cu12), $CONDA_PREFIX/lib/
 *      (conda's cuda-nvrtc), the dynamic linker's search path, $CUDA_HOME/lib64/,
 *      $CUDA_PATH/lib64/, /usr/local/cuda/lib64/.
 * Each folder is tried with the names libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so.
 * NVRTC opens its libnvrtc-builtins.so.MAJOR.MINOR by that name when it first compiles, and finds
 * it only on the loader path (a CUDA 13 wheel's library has no RUNPATH). So the builtins beside
 * the NVRTC found are loaded first, by full path: the dynamic linker then hands NVRTC that copy.
 *
 * Thread safety: rtc_version and rtc_compile may be called from any thread. The library is
 * loaded once per process under a mutex; a failed load is not remembered, so a later call
 * tries again. */
#ifndef P2C_RUNTIME_CUDA_NVRTC_H
#define P2C_RUNTIME_CUDA_NVRTC_H

#include <stdbool.h>
#include <stddef.h>

#include "pyk2cuda.h"
#include "runtime/cuda/dynlib.h"

/* ---- NVRTC's ABI, declared by hand ---------------------------------------------------------- */

typedef int RtcNvrtcResult;                       /* nvrtcResult; 0 is NVRTC_SUCCESS */
typedef struct RtcNvrtcProgram_ *RtcNvrtcProgram; /* nvrtcProgram, opaque */

enum {
  RTC_NVRTC_SUCCESS = 0,
  RTC_NVRTC_ERROR_OUT_OF_MEMORY = 1,
  RTC_NVRTC_ERROR_COMPILATION = 6,
};

/* The functions we bind, by their NVIDIA names. The names live only as fields of this struct and
 * as strings given to dlsym: nothing is exported under NVIDIA's names. Required entries are
 * non-NULL in every loaded table; optional ones may be NULL. */
typedef struct RtcLib {
  DynLib dl;       /* the library: its handle, the name or path that loaded */
  DynLib builtins; /* libnvrtc-builtins from dl's folder; handle NULL when it is not there */
  /* required */
  RtcNvrtcResult (*nvrtcVersion)(int *major, int *minor);
  RtcNvrtcResult (*nvrtcCreateProgram)(RtcNvrtcProgram *prog, const char *src, const char *name,
                                       int num_headers, const char *const *headers,
                                       const char *const *include_names);
  RtcNvrtcResult (*nvrtcDestroyProgram)(RtcNvrtcProgram *prog);
  RtcNvrtcResult (*nvrtcCompileProgram)(RtcNvrtcProgram prog, int num_options,
                                        const char *const *options);
  RtcNvrtcResult (*nvrtcGetPTXSize)(RtcNvrtcProgram prog, size_t *size);
  RtcNvrtcResult (*nvrtcGetPTX)(RtcNvrtcProgram prog, char *ptx);
  RtcNvrtcResult (*nvrtcGetProgramLogSize)(RtcNvrtcProgram prog, size_t *size);
  RtcNvrtcResult (*nvrtcGetProgramLog)(RtcNvrtcProgram prog, char *log);
  /* optional (CUBIN output needs both; present since CUDA 11.1) */
  RtcNvrtcResult (*nvrtcGetCUBINSize)(RtcNvrtcProgram prog, size_t *size);
  RtcNvrtcResult (*nvrtcGetCUBIN)(RtcNvrtcProgram prog, char *cubin);
  /* optional (LTO-IR output needs both; CUDA 12.0 and later) */
  RtcNvrtcResult (*nvrtcGetLTOIRSize)(RtcNvrtcProgram prog, size_t *size);
  RtcNvrtcResult (*nvrtcGetLTOIR)(RtcNvrtcProgram prog, char *ltoir);
  const char *(*nvrtcGetErrorString)(RtcNvrtcResult result);
  /* optional (CUDA 11.2 and later): the real architectures this NVRTC compiles for */
  RtcNvrtcResult (*nvrtcGetNumSupportedArchs)(int *count);
  RtcNvrtcResult (*nvrtcGetSupportedArchs)(int *archs);
} RtcLib;

/* ---- Loading -------------------------------------------------------------------------------- */

/* Opens NVRTC into the caller's *lib, searching as described at the top of this file but with
 * `override` standing in for $PYK2CUDA_NVRTC (NULL or "": not set). Does not touch the process's
 * shared table. On failure returns P2C_ERR_NO_CUDA, writes the reason to err and leaves *lib
 * closed. Mainly for tests and tools (bench/); close with rtc_lib_close. */
P2cStatus rtc_lib_open(RtcLib *lib, const char *override, char *err, size_t errlen);
/* Closes a table opened with rtc_lib_open; accepts a closed or zeroed table. */
void rtc_lib_close(RtcLib *lib);

/* The process's shared table, loaded at the first call (reading $PYK2CUDA_NVRTC then). The table
 * is immutable once loaded and lives until the process ends. On failure returns P2C_ERR_NO_CUDA
 * with the reason in err. */
P2cStatus rtc_load(const RtcLib **out, char *err, size_t errlen);

/* The environment variables the search above reads (NULL-terminated), for the compile cache's
 * stamp of which NVRTC a search finds (rtc_cache.c). */
extern const char *const rtc_search_variables[];

/* The full path of the file a table's library (or builtins) was loaded from: lib->path when it
 * names a file, else the dynamic linker's answer for the bare name. */
void rtc_loaded_path(const DynLib *lib, char *out, size_t outlen);

/* Whether a driver of `driver_version` (cuDriverGetVersion's 1000 * major + 10 * minor) loads
 * what NVRTC major.minor builds: a driver of an older CUDA major version loads none of it. When
 * it does not, writes "the CUDA driver (CUDA 12.4) is older than NVRTC (CUDA 13.0)<what>:
 * install ..." into out and returns false. The one wording of the mismatch, for the first load's
 * error and for `info`. */
bool rtc_driver_fits(int driver_version, int major, int minor, const char *what, char *out,
                     size_t outlen);

/* An NVRTC whose CUBINs a driver of `driver_version` (cuDriverGetVersion's) loads, for when the
 * process's NVRTC (rtc_load) is of a newer CUDA major version: libnvrtc.so.<driver major> in
 * the places of the search above after $PYK2CUDA_NVRTC (the wheels of $PYK2CUDA_SITE_PACKAGES,
 * nvidia/cuda_nvrtc/lib for CUDA 12; $CONDA_PREFIX/lib; the library path; $CUDA_HOME/lib64,
 * $CUDA_PATH/lib64, /usr/local/cuda/lib64), then /usr/local/cuda-<major>.<minor>/lib64, the newest
 * first; its builtins beside it as above. A CUBIN loads on any driver of its CUDA major version
 * (CUDA's minor version compatibility), where PTX of a newer ISA would not. Loaded once per
 * process; a failed search is tried again at the next call. With $PYK2CUDA_NVRTC set, or when
 * nothing is found, P2C_ERR_NO_CUDA and why in err (the places tried). */
P2cStatus rtc_load_for_driver(int driver_version, const RtcLib **out, char *err, size_t errlen);

/* The NVRTC that compiles for `arch` ("sm_53", "compute_70"): NULL (*out) for the process's
 * (rtc_load), when it does; when `arch` is older than the oldest it compiles for (NVRTC 13
 * stopped at sm_75: nvrtcGetSupportedArchs), the previous CUDA major version's NVRTC, found as
 * rtc_load_for_driver finds one (NVIDIA's cu12 wheel, a CUDA 12 toolkit, ...), if that one
 * compiles for it. Otherwise P2C_ERR_NVRTC and, in err, which NVRTC stops where and what was
 * searched. Loads the process's NVRTC only for an arch below sm_75 (what every NVRTC since CUDA
 * 11 compiles for), so that a cached launch for a current GPU still loads none. */
P2cStatus rtc_lib_for_arch(const char *arch, const RtcLib **out, char *err, size_t errlen);

/* ---- Using it ------------------------------------------------------------------------------- */

/* The version of a loaded table's NVRTC. */
P2cStatus rtc_lib_version(const RtcLib *lib, int *major, int *minor, char *err, size_t errlen);

/* The NVRTC version, e.g. 13.0. */
P2cStatus rtc_version(int *major, int *minor, char *err, size_t errlen);

/* NVIDIA's name of an nvrtcResult ("NVRTC_ERROR_COMPILATION"), from our own table: works with
 * no library loaded. Static storage; "NVRTC_ERROR_UNKNOWN" for codes we do not know. */
const char *rtc_result_name(int code);

/* The options every compile starts with, after `-arch=<arch>`, as one space-separated string
 * (for cache keys and --verbose output). Static storage. See bench/RESULTS.md for why. */
const char *rtc_default_options(void);

enum { RTC_ERROR_MAX = 1024 };

/* Whether `arch` names an architecture NVRTC takes: "sm_90", "sm_90a", "compute_100f" (a prefix,
 * two or three digits, an optional 'a' or 'f'); *is_virtual: a compute_XY one. */
bool rtc_valid_arch(const char *arch, bool *is_virtual);

typedef struct RtcRequest {
  const char *source; /* NUL-terminated CUDA C */
  const char
      *program_name; /* the .py file, so that NVRTC's messages name it; NULL: "pyk2cuda.cu" */
  const char *arch;  /* "sm_90", "compute_90" (PTX only) or NULL for "sm_90"; PTX for sm_XY is
                        compiled for compute_XY, which gives the same PTX without running ptxas */
  P2cTarget target;  /* P2C_TARGET_PTX, P2C_TARGET_CUBIN or P2C_TARGET_LTOIR (-dlto added) */
  const char *const *options; /* extra NVRTC options, appended after the defaults; may be NULL */
  size_t option_count;
  const P2cAllocator *alloc; /* for the result's image and log; NULL: malloc */
  const RtcLib *lib;         /* the NVRTC to compile with (rtc_load_for_driver's); NULL: the
                                process's (rtc_load) */
} RtcRequest;

typedef struct RtcResult {
  /* The PTX or CUBIN. image_size counts the bytes of the image proper (for PTX: the text without
   * its NUL). A NUL byte always follows the image, so PTX can be used as a C string. NULL unless
   * the compile succeeded. */
  void *image;
  size_t image_size;
  /* NVRTC's program log, NUL-terminated, on success and on failure ("" when NVRTC said nothing).
   * NULL only when the compile did not reach NVRTC (library missing, bad request, no memory). */
  char *log;
  size_t log_len;            /* strlen(log) */
  const P2cAllocator *alloc; /* what image and log were allocated with (rtc_result_free) */
  char error[RTC_ERROR_MAX]; /* "" on success; otherwise what failed, in one line */
} RtcResult;

/* Compiles req->source with NVRTC into *res (overwritten; release it with rtc_result_free, on
 * success and on failure). Options: `-arch=<arch>`, then rtc_default_options(), then req's.
 * Returns:
 *   P2C_OK           the image and log are set;
 *   P2C_ERR_NVRTC    NVRTC rejected the program or failed: res->log holds its log, res->error
 *                    the nvrtcResult name and the first error line of the log;
 *   P2C_ERR_NO_CUDA  NVRTC could not be loaded (res->error says what was tried), or it lacks
 *                    nvrtcGetCUBIN for a CUBIN target;
 *   P2C_ERR_USAGE    a bad request: no source, malformed arch, compute_XX with a CUBIN target;
 *   P2C_ERR_NOMEM    the allocator failed.
 * Every nvrtcProgram created is destroyed before returning. */
P2cStatus rtc_compile(const RtcRequest *req, RtcResult *res);

/* rtc_compile of a CUBIN target that also hands over the same program's PTX in *ptx (its image
 * only; the log is res's): one NVRTC compile where a PTX and a CUBIN request make two (the
 * explore view's, which needs both and ptxas's log; the PTX of a real architecture is that of its
 * virtual one). *ptx is overwritten and released with rtc_result_free, on success and on failure;
 * it is set only when res is. A request that is not for a CUBIN is P2C_ERR_USAGE. */
P2cStatus rtc_compile_with_ptx(const RtcRequest *req, RtcResult *res, RtcResult *ptx);

/* Frees the image and log of a result (with the allocator it records) and empties it. Accepts a
 * zeroed result and can be called twice. */
void rtc_result_free(RtcResult *res);

#endif
