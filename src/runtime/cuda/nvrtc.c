/* NVRTC: loading the library with dlopen, and compiling one program to PTX or CUBIN.
 *
 * The loader binds NVRTC's functions into an RtcLib (a private table of function pointers: see
 * nvrtc.h for the search order). rtc_compile is the one place that drives NVRTC: create the
 * program, compile it with the default options then the caller's, keep the log whatever
 * happened, copy the image out, destroy the program. Every NVRTC call goes through RTC_CHECK,
 * which records the call, file, line and result name and jumps to the function's cleanup. */
#include "runtime/cuda/nvrtc.h"

#include <dlfcn.h>
#include <glob.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda/dynlib.h"
#include "runtime/cuda/toolkit.h"
#include "util/arena.h"

/* dlsym returns an object pointer; we store it into function-pointer fields by copying bytes,
 * which POSIX guarantees to work and ISO C does not forbid. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function and object pointers differ");

/* The options every compile gets after -arch. Measured in bench/nvrtc_options.c, results and
 * reasons in bench/RESULTS.md:
 *  --std=c++17      the dialect the generated code is written in (docs/generated-code.md);
 *  -default-device  functions and variables without an execution space are __device__, so a
 *                   helper that forgets its annotation is not rejected as host code. It changes
 *                   no PTX for code that annotates everything, as ours does;
 *  --minimal        leaves out the texture/surface, device-runtime and cuda* declarations the
 *                   generated code never uses: the compile is markedly faster, PTX identical. */
static const char *const default_options[] = {"--std=c++17", "-default-device", "--minimal"};
enum { DEFAULT_OPTION_COUNT = sizeof default_options / sizeof default_options[0] };

const char *rtc_default_options(void) { return "--std=c++17 -default-device --minimal"; }

/* ---- Names of results ----------------------------------------------------------------------- */

const char *rtc_result_name(int code) {
  static const char *const names[] = {
      "NVRTC_SUCCESS",
      "NVRTC_ERROR_OUT_OF_MEMORY",
      "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
      "NVRTC_ERROR_INVALID_INPUT",
      "NVRTC_ERROR_INVALID_PROGRAM",
      "NVRTC_ERROR_INVALID_OPTION",
      "NVRTC_ERROR_COMPILATION",
      "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
      "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
      "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
      "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
      "NVRTC_ERROR_INTERNAL_ERROR",
      "NVRTC_ERROR_TIME_FILE_WRITE_FAILED",
      "NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED",
      "NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED",
      "NVRTC_ERROR_PCH_CREATE",
      "NVRTC_ERROR_CANCELLED",
      "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED",
  };
  if (code < 0 || (size_t)code >= sizeof names / sizeof names[0]) return "NVRTC_ERROR_UNKNOWN";
  return names[code];
}

/* Writes "CALL failed: NAME (FILE:LINE)" into err; returns P2C_ERR_NVRTC (P2C_ERR_NOMEM when
 * NVRTC ran out of memory). Used by RTC_CHECK. */
static P2cStatus rtc_fail(RtcNvrtcResult rc, const char *call, const char *file, int line,
                          char *err, size_t errlen) {
  snprintf(err, errlen, "%s failed: %s (%s:%d)", call, rtc_result_name(rc), file, line);
  return rc == RTC_NVRTC_ERROR_OUT_OF_MEMORY ? P2C_ERR_NOMEM : P2C_ERR_NVRTC;
}

/* Calls lib->CALL; on failure records it in err and jumps to the caller's `cleanup` label with
 * the caller's `status` set. */
#define RTC_CHECK(lib, call, err, errlen)                                       \
  do {                                                                          \
    RtcNvrtcResult rtc_check_rc_ = (lib)->call;                                 \
    if (rtc_check_rc_ != RTC_NVRTC_SUCCESS) {                                   \
      status = rtc_fail(rtc_check_rc_, #call, __FILE__, __LINE__, err, errlen); \
      goto cleanup;                                                             \
    }                                                                           \
  } while (0)

/* ---- Loading -------------------------------------------------------------------------------- */


/* clang-format off */
#define SYMBOL(field, required) {offsetof(RtcLib, field), required, {#field, NULL}}
/* clang-format on */
static const DynSymbol symbols[] = {
    SYMBOL(nvrtcVersion, true),           SYMBOL(nvrtcCreateProgram, true),
    SYMBOL(nvrtcDestroyProgram, true),    SYMBOL(nvrtcCompileProgram, true),
    SYMBOL(nvrtcGetPTXSize, true),        SYMBOL(nvrtcGetPTX, true),
    SYMBOL(nvrtcGetProgramLogSize, true), SYMBOL(nvrtcGetProgramLog, true),
    SYMBOL(nvrtcGetCUBINSize, false),     SYMBOL(nvrtcGetCUBIN, false),
    SYMBOL(nvrtcGetLTOIRSize, false),     SYMBOL(nvrtcGetLTOIR, false),
    SYMBOL(nvrtcGetErrorString, false),   SYMBOL(nvrtcGetNumSupportedArchs, false),
    SYMBOL(nvrtcGetSupportedArchs, false),
};
#undef SYMBOL

static const char *const library_names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
enum { LIBRARY_NAME_COUNT = sizeof library_names / sizeof library_names[0] };

/* Binds every symbol of an open library; a missing required one is an error. */
static P2cStatus bind_symbols(RtcLib *lib, char *err, size_t errlen) {
  const char *missing = dynlib_bind(lib->dl.handle, lib, symbols, sizeof symbols / sizeof symbols[0]);
  if (!missing) return P2C_OK;
  snprintf(err, errlen, "NVRTC at %.300s lacks %s: install a CUDA toolkit 12 or newer", lib->dl.path, missing);
  return P2C_ERR_NO_CUDA;
}

/* Tries one name or path. Returns P2C_OK when it loaded and bound, P2C_ERR_NO_CUDA otherwise;
 * *bound_fail tells a library that loaded but lacks functions (err then says which). */
static P2cStatus try_open(RtcLib *lib, const char *path, bool *bound_fail, char *err,
                          size_t errlen) {
  memset(lib, 0, sizeof *lib);
  *bound_fail = false;
  if (!dynlib_open(&lib->dl, path, err, errlen)) return P2C_ERR_NO_CUDA;
  if (bind_symbols(lib, err, errlen) != P2C_OK) {
    *bound_fail = true;
    rtc_lib_close(lib);
    return P2C_ERR_NO_CUDA;
  }
  return P2C_OK;
}

/* Only the path the user gave: no fallback, so that a wrong path is an error, not a surprise. */
static P2cStatus open_override(RtcLib *lib, const char *path, char *err, size_t errlen) {
  char why[512];
  bool bound_fail;
  if (try_open(lib, path, &bound_fail, why, sizeof why) == P2C_OK) return P2C_OK;
  if (bound_fail)
    snprintf(err, errlen, "%s (set by PYK2CUDA_NVRTC)", why);
  else
    snprintf(err, errlen,
             "NVRTC not found: PYK2CUDA_NVRTC=%s could not be loaded (%s): fix or unset "
             "PYK2CUDA_NVRTC",
             path, why);
  return P2C_ERR_NO_CUDA;
}

/* Tries each library name in `dir` ("" = the dynamic linker's search path). */
static P2cStatus open_in_dir(RtcLib *lib, const char *dir, bool *bound_fail, char *err,
                             size_t errlen) {
  for (int i = 0; i < LIBRARY_NAME_COUNT; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s%s%s", dir, *dir ? "/" : "", library_names[i]);
    if (try_open(lib, path, bound_fail, err, errlen) == P2C_OK) return P2C_OK;
    if (*bound_fail) return P2C_ERR_NO_CUDA;
  }
  return P2C_ERR_NO_CUDA;
}

const char *const rtc_search_variables[] = {"PYK2CUDA_NVRTC", "PYK2CUDA_SITE_PACKAGES",
                                            "CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH", NULL};

/* One search in progress: the table it fills, whether it is over, and the places it tried (for
 * the message when nothing loads). */
typedef struct Search {
  RtcLib *lib;
  bool found, bound_fail;
  char why[512];
  char tried[1024];
  size_t tried_len;
} Search;

/* Whether `place` is in the list already (CUDA_HOME is often /usr/local/cuda). */
static bool already_tried(const Search *s, const char *place) {
  size_t n = strlen(place);
  for (const char *p = s->tried; (p = strstr(p, place)); p++)
    if (p >= s->tried + 2 && p[-2] == ',' && (p[n] == ',' || p[n] == '\0')) return true;
  return false;
}

/* Notes a place in the list of places tried, once. */
static void note_tried(Search *s, const char *place) {
  if (already_tried(s, place)) return;
  int n = snprintf(s->tried + s->tried_len, sizeof s->tried - s->tried_len, ", %s", place);
  if (n > 0 && s->tried_len + (size_t)n < sizeof s->tried) s->tried_len += (size_t)n;
}

/* Tries one folder; true when the search is over (NVRTC loaded, or a library that is not NVRTC
 * found, which is reported rather than skipped). */
static bool search_dir(Search *s, const char *dir) {
  if (open_in_dir(s->lib, dir, &s->bound_fail, s->why, sizeof s->why) == P2C_OK) s->found = true;
  return s->found || s->bound_fail;
}

/* toolkit_search's visit: notes the place and tries the folder ("": the loader's path, under
 * nvrtc.h's names); true when the search is over. */
static bool search_visit(void *ctx, const char *dir, const char *place) {
  Search *s = ctx;
  note_tried(s, *dir ? place : "libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so on the library path");
  return search_dir(s, dir);
}

/* The places after $PYK2CUDA_NVRTC, in the toolkit's order (toolkit.h); true when the search is
 * over. */
static bool search_places(Search *s) { return toolkit_search(TOOLKIT_LIBRARY, "nvrtc", search_visit, s); }

void rtc_loaded_path(const DynLib *lib, char *out, size_t outlen) {
  struct link_map *map = NULL;
  if (!strchr(lib->path, '/') && lib->handle &&
      dlinfo(lib->handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && map->l_name[0])
    snprintf(out, outlen, "%s", map->l_name);
  else
    snprintf(out, outlen, "%s", lib->path);
}

/* Loads libnvrtc-builtins.so.MAJOR.MINOR from the folder NVRTC was found in, if it is there
 * (nvrtc.h says why). Its absence is no error here: NVRTC may still find it on the loader path,
 * and says so itself when it compiles if it does not. */
static void load_builtins(RtcLib *lib) {
  int major = 0, minor = 0;
  char path[512], why[256];
  if (lib->nvrtcVersion(&major, &minor) != RTC_NVRTC_SUCCESS) return;
  rtc_loaded_path(&lib->dl, path, sizeof path);
  char *slash = strrchr(path, '/');
  if (!slash) return;
  snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "libnvrtc-builtins.so.%d.%d",
           major, minor);
  if (!dynlib_open(&lib->builtins, path, why, sizeof why))
    memset(&lib->builtins, 0, sizeof lib->builtins);
}

/* Why a search found nothing: a library that is not NVRTC, or the places tried. */
static P2cStatus not_found(const Search *s, char *err, size_t errlen) {
  if (s->bound_fail)
    snprintf(err, errlen, "%s", s->why);
  else
    snprintf(err, errlen,
             "NVRTC not found (tried PYK2CUDA_NVRTC (unset)%s): install the CUDA toolkit or "
             "NVRTC's wheel (pip install pyk2cuda[cu13]), or set PYK2CUDA_NVRTC",
             s->tried);
  return P2C_ERR_NO_CUDA;
}

P2cStatus rtc_lib_open(RtcLib *lib, const char *override, char *err, size_t errlen) {
  Search s = {.lib = lib};
  if (override && *override) {
    if (open_override(lib, override, err, errlen) != P2C_OK) return P2C_ERR_NO_CUDA;
  } else if (!search_places(&s) || !s.found) {
    return not_found(&s, err, errlen);
  }
  load_builtins(lib);
  return P2C_OK;
}

void rtc_lib_close(RtcLib *lib) {
  if (lib->builtins.handle) dlclose(lib->builtins.handle);
  dynlib_close(&lib->dl, lib, sizeof *lib);
}

bool rtc_driver_fits(int driver_version, int major, int minor, const char *what, char *out,
                     size_t outlen) {
  if (driver_version / 1000 >= major) return true;
  snprintf(out, outlen,
           "the CUDA driver (CUDA %d.%d) is older than NVRTC (CUDA %d.%d)%s: install an NVIDIA "
           "driver for CUDA %d.%d or later, or set PYK2CUDA_NVRTC to an NVRTC of CUDA %d",
           driver_version / 1000, driver_version % 1000 / 10, major, minor, what, major, minor,
           driver_version / 1000);
  return false;
}

/* The one mutable global of this file: the process-wide NVRTC table. A loaded library is
 * process-wide by nature (dlopen hands every caller the same handle), so one table serves every
 * compiler; dynlib_load_once fills it on the first successful load and never changes it
 * afterwards. */
static DynOnce shared_once = DYN_ONCE_INIT;
static RtcLib shared_lib;

static P2cStatus open_lib(void *table, const char *override, char *err, size_t errlen) {
  return rtc_lib_open(table, override, err, errlen);
}

P2cStatus rtc_load(const RtcLib **out, char *err, size_t errlen) {
  const void *table;
  P2cStatus status = dynlib_load_once(&shared_once, &shared_lib, open_lib, "PYK2CUDA_NVRTC", &table, err, errlen);
  *out = table;
  return status;
}

/* ---- An NVRTC for an older driver -------------------------------------------------------- */

/* Opens libnvrtc.so.<major> in `dir` ("": the loader's path) when it loads, is NVRTC and is of
 * that CUDA major version (a libnvrtc.so.12 link may lead elsewhere). */
static bool fallback_in_dir(RtcLib *lib, const char *dir, int major, Search *s) {
  char path[512], why[256], place[560];
  bool bound_fail = false;
  int got_major = 0, got_minor = 0;
  snprintf(path, sizeof path, "%s%slibnvrtc.so.%d", dir, *dir ? "/" : "", major);
  snprintf(place, sizeof place, "%s", *dir ? dir : "the library path");
  note_tried(s, place);
  if (try_open(lib, path, &bound_fail, why, sizeof why) != P2C_OK) return false;
  if (lib->nvrtcVersion(&got_major, &got_minor) == RTC_NVRTC_SUCCESS && got_major == major)
    return true;
  rtc_lib_close(lib);
  return false;
}

/* The toolkits of one major version installed side by side: /usr/local/cuda-<major>.<minor>/lib64,
 * the newest first (by the minor version as a number: 12.10 after 12.9). */
static bool fallback_in_toolkits(RtcLib *lib, int major, Search *s) {
  char pattern[64];
  glob_t found;
  snprintf(pattern, sizeof pattern, "/usr/local/cuda-%d.*/lib64", major);
  if (glob(pattern, 0, NULL, &found) != 0) return false;
  bool ok = false;
  for (int minor = 99; !ok && minor >= 0; minor--)
    for (size_t i = 0; !ok && i < found.gl_pathc; i++) {
      int m = -1;
      if (sscanf(found.gl_pathv[i] + strlen("/usr/local/cuda-"), "%*d.%d", &m) == 1 && m == minor)
        ok = fallback_in_dir(lib, found.gl_pathv[i], major, s);
    }
  globfree(&found);
  return ok;
}

/* One search for an NVRTC of one major version: the table, the version, the places tried. */
typedef struct FallbackSearch {
  RtcLib *lib;
  int major;
  Search *s;
} FallbackSearch;

/* toolkit_search's visit for the fallback: libnvrtc.so.<major> in the folder. */
static bool fallback_visit(void *ctx, const char *dir, const char *place) {
  (void)place;
  FallbackSearch *f = ctx;
  return fallback_in_dir(f->lib, dir, f->major, f->s);
}

/* Searches the toolkit's places (toolkit.h), after $PYK2CUDA_NVRTC, for libnvrtc.so.<major>,
 * then the toolkits of that version under /usr/local. */
static bool search_fallback(RtcLib *lib, int major, Search *s) {
  FallbackSearch f = {lib, major, s};
  return toolkit_search(TOOLKIT_LIBRARY, "nvrtc", fallback_visit, &f) || fallback_in_toolkits(lib, major, s);
}

/* The second process-wide table: the NVRTC found for a driver older than the first's, loaded
 * once under its lock and never changed afterwards (a failed search is not remembered). The
 * process has one driver, so one such table serves it. */
static pthread_mutex_t fallback_lock = PTHREAD_MUTEX_INITIALIZER;
static RtcLib fallback_lib;
static bool fallback_loaded;

P2cStatus rtc_load_for_driver(int driver_version, const RtcLib **out, char *err, size_t errlen) {
  int major = driver_version / 1000;
  *out = NULL;
  const char *pinned = getenv("PYK2CUDA_NVRTC");
  if (pinned && *pinned) {
    snprintf(err, errlen, "PYK2CUDA_NVRTC is set, so no other NVRTC is looked for");
    return P2C_ERR_NO_CUDA;
  }
  pthread_mutex_lock(&fallback_lock);
  P2cStatus status = P2C_OK;
  if (!fallback_loaded) {
    RtcLib lib;
    Search s = {.lib = &lib};
    if (search_fallback(&lib, major, &s)) {
      load_builtins(&lib);
      fallback_lib = lib;
      fallback_loaded = true;
    } else {
      snprintf(err, errlen, "no NVRTC of CUDA %d found (tried%s)", major,
               s.tried_len > 1 ? s.tried + 1 : " nothing");
      status = P2C_ERR_NO_CUDA;
    }
  }
  if (status == P2C_OK) *out = &fallback_lib;
  pthread_mutex_unlock(&fallback_lock);
  return status;
}

/* ---- An NVRTC for an older GPU -------------------------------------------------------------- */

/* An architecture's number: 53 for "sm_53" or "compute_53" (rtc_valid_arch's forms). */
static int arch_number(const char *arch) {
  const char *digits = strchr(arch, '_');
  return digits ? atoi(digits + 1) : 0;
}

/* The oldest real architecture `lib` compiles for (nvrtcGetSupportedArchs' first, the list is
 * ascending), or 0 when this NVRTC cannot say (before CUDA 11.2). */
static int oldest_arch(const RtcLib *lib) {
  int count = 0, archs[128];
  if (!lib->nvrtcGetNumSupportedArchs || !lib->nvrtcGetSupportedArchs ||
      lib->nvrtcGetNumSupportedArchs(&count) != RTC_NVRTC_SUCCESS || count < 1 || count > 128 ||
      lib->nvrtcGetSupportedArchs(archs) != RTC_NVRTC_SUCCESS)
    return 0;
  return archs[0];
}

/* Below this, an arch may be older than the process's NVRTC compiles for (CUDA 13 dropped
 * sm_50 to sm_72); at or above it every NVRTC since CUDA 11 does. */
enum { ARCH_EVERY_NVRTC = 75 };

P2cStatus rtc_lib_for_arch(const char *arch, const RtcLib **out, char *err, size_t errlen) {
  const RtcLib *lib, *older;
  int want = arch_number(arch), major = 0, minor = 0, oldest;
  char why[RTC_ERROR_MAX];
  *out = NULL;
  if (want >= ARCH_EVERY_NVRTC || rtc_load(&lib, err, errlen) != P2C_OK) return P2C_OK;
  if ((oldest = oldest_arch(lib)) == 0 || want >= oldest) return P2C_OK;
  if (lib->nvrtcVersion(&major, &minor) != RTC_NVRTC_SUCCESS) return P2C_OK;
  P2cStatus st = rtc_load_for_driver((major - 1) * 1000, &older, why, sizeof why);
  if (st == P2C_OK && oldest_arch(older) <= want) {
    *out = older;
    return P2C_OK;
  }
  if (st == P2C_OK) snprintf(why, sizeof why, "the NVRTC of CUDA %d found (%.200s) does not either",
                             major - 1, older->dl.path);
  snprintf(err, errlen,
           "NVRTC %d.%d compiles for sm_%d and newer, not %s; an NVRTC of CUDA %d does (NVIDIA's "
           "nvidia-cuda-nvrtc-cu%d wheel, or a CUDA %d toolkit): %s",
           major, minor, oldest, arch, major - 1, major - 1, major - 1, why);
  return P2C_ERR_NVRTC;
}

P2cStatus rtc_lib_version(const RtcLib *lib, int *major, int *minor, char *err, size_t errlen) {
  P2cStatus status = P2C_OK;
  RTC_CHECK(lib, nvrtcVersion(major, minor), err, errlen);
cleanup:
  return status;
}

P2cStatus rtc_version(int *major, int *minor, char *err, size_t errlen) {
  const RtcLib *lib;
  P2cStatus status = rtc_load(&lib, err, errlen);
  if (status != P2C_OK) return status;
  RTC_CHECK(lib, nvrtcVersion(major, minor), err, errlen);
cleanup:
  return status;
}

/* ---- Compiling ------------------------------------------------------------------------------ */

/* Checks "sm_90", "sm_90a", "compute_100f": a prefix, two or three digits, an optional letter. */
bool rtc_valid_arch(const char *arch, bool *is_virtual) {
  const char *p;
  if (strncmp(arch, "sm_", 3) == 0) {
    p = arch + 3;
    *is_virtual = false;
  } else if (strncmp(arch, "compute_", 8) == 0) {
    p = arch + 8;
    *is_virtual = true;
  } else {
    return false;
  }
  size_t digits = strspn(p, "0123456789");
  if (digits < 2 || digits > 3) return false;
  p += digits;
  return *p == '\0' || ((*p == 'a' || *p == 'f') && p[1] == '\0');
}

static P2cStatus check_request(const RtcRequest *req, const char *arch, char *err, size_t errlen) {
  bool is_virtual;
  if (!req->source) {
    snprintf(err, errlen, "no CUDA source to compile");
    return P2C_ERR_USAGE;
  }
  if (req->target != P2C_TARGET_PTX && req->target != P2C_TARGET_CUBIN && req->target != P2C_TARGET_LTOIR) {
    snprintf(err, errlen, "unknown NVRTC target %d", (int)req->target);
    return P2C_ERR_USAGE;
  }
  if (!rtc_valid_arch(arch, &is_virtual)) {
    snprintf(err, errlen, "bad architecture '%s': expected sm_XY or compute_XY (e.g. sm_90)", arch);
    return P2C_ERR_USAGE;
  }
  if (is_virtual && req->target != P2C_TARGET_PTX) {
    snprintf(err, errlen,
             "%s needs a real architecture such as sm_%s, not the virtual '%s' (use PTX "
             "for compute_XY)",
             req->target == P2C_TARGET_CUBIN ? "a CUBIN" : "LTO-IR", arch + 8, arch);
    return P2C_ERR_USAGE;
  }
  return P2C_OK;
}

/* Copies NVRTC's program log into res->log (NUL-terminated). */
static P2cStatus fetch_log(const RtcLib *lib, RtcNvrtcProgram prog, RtcResult *res) {
  P2cStatus status = P2C_OK;
  size_t size = 0;
  RTC_CHECK(lib, nvrtcGetProgramLogSize(prog, &size), res->error, sizeof res->error);
  if (size == 0) size = 1;
  res->log = mem_alloc(res->alloc, size);
  if (!res->log) {
    snprintf(res->error, sizeof res->error, "out of memory for the NVRTC log (%zu bytes)", size);
    return P2C_ERR_NOMEM;
  }
  res->log[0] = '\0';
  res->log_len = size - 1;
  if (size > 1) RTC_CHECK(lib, nvrtcGetProgramLog(prog, res->log), res->error, sizeof res->error);
  res->log[size - 1] = '\0';
cleanup:
  return status;
}

/* Copies the PTX, CUBIN or LTO-IR into res->image, with a NUL byte after it. */
static P2cStatus fetch_image(const RtcLib *lib, RtcNvrtcProgram prog, P2cTarget target,
                             RtcResult *res) {
  P2cStatus status = P2C_OK;
  bool ptx = target == P2C_TARGET_PTX;
  size_t size = 0;
  if (ptx)
    RTC_CHECK(lib, nvrtcGetPTXSize(prog, &size), res->error, sizeof res->error);
  else if (target == P2C_TARGET_LTOIR)
    RTC_CHECK(lib, nvrtcGetLTOIRSize(prog, &size), res->error, sizeof res->error);
  else
    RTC_CHECK(lib, nvrtcGetCUBINSize(prog, &size), res->error, sizeof res->error);
  /* NVRTC counts the PTX's trailing NUL; we count the text only and add our own NUL. */
  size_t image_size = ptx && size > 0 ? size - 1 : size;
  char *image = mem_alloc(res->alloc, image_size + 1);
  if (!image) {
    snprintf(res->error, sizeof res->error, "out of memory for the NVRTC output (%zu bytes)", size);
    return P2C_ERR_NOMEM;
  }
  image[0] = '\0';
  res->image = image;
  res->image_size = image_size;
  if (ptx && size > 0)
    RTC_CHECK(lib, nvrtcGetPTX(prog, image), res->error, sizeof res->error);
  else if (target == P2C_TARGET_LTOIR && size > 0)
    RTC_CHECK(lib, nvrtcGetLTOIR(prog, image), res->error, sizeof res->error);
  else if (size > 0)
    RTC_CHECK(lib, nvrtcGetCUBIN(prog, image), res->error, sizeof res->error);
  image[image_size] = '\0';
cleanup:
  return status;
}

/* Copies the first line of `log` that contains "error" (or the first line) into out. */
static void first_error_line(const char *log, char *out, size_t outlen) {
  const char *line = log, *pick = NULL;
  while (*line && !pick) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    const char *hit = strstr(line, "error");
    if (hit && hit < line + len) pick = line;
    line = end ? end + 1 : line + len;
  }
  if (!pick) pick = log;
  size_t len = strcspn(pick, "\n");
  snprintf(out, outlen, "%.*s", (int)len, pick);
}

static P2cStatus compile_failed(RtcNvrtcResult rc, const char *name, const char *arch,
                                RtcResult *res) {
  char first[600];
  first_error_line(res->log ? res->log : "", first, sizeof first);
  snprintf(res->error, sizeof res->error, "NVRTC could not compile %s for %s (%s)%s%s", name, arch,
           rtc_result_name(rc), *first ? ": " : "", first);
  return rc == RTC_NVRTC_ERROR_OUT_OF_MEMORY ? P2C_ERR_NOMEM : P2C_ERR_NVRTC;
}

/* Whether this NVRTC knows --minimal (NVRTC 12.4 and later; an older one refuses the option,
 * and a CUDA 12 driver's fallback NVRTC may be older). */
static bool knows_minimal(const RtcLib *lib) {
  int major = 0, minor = 0;
  return lib->nvrtcVersion(&major, &minor) != RTC_NVRTC_SUCCESS || major > 12 ||
         (major == 12 && minor >= 4);
}

/* Builds -arch=..., -dlto for LTO-IR, the defaults (those `lib` knows), then the request's
 * options, into an allocated array of *cap entries, *count used. */
static const char **build_options(const RtcRequest *req, const RtcLib *lib, char *arch_option,
                                  size_t *count, size_t *cap) {
  *cap = 2 + DEFAULT_OPTION_COUNT + req->option_count;
  const char **opts = mem_alloc(req->alloc, *cap * sizeof *opts);
  if (!opts) return NULL;
  size_t n = 0;
  bool minimal = knows_minimal(lib);
  opts[n++] = arch_option;
  if (req->target == P2C_TARGET_LTOIR) opts[n++] = "-dlto";
  for (size_t i = 0; i < DEFAULT_OPTION_COUNT; i++)
    if (minimal || strcmp(default_options[i], "--minimal") != 0) opts[n++] = default_options[i];
  for (size_t i = 0; i < req->option_count; i++) opts[n++] = req->options[i];
  *count = n;
  return opts;
}

/* Frees a result's image on failure, so that only a successful result carries one. */
static void drop_image(RtcResult *res) {
  if (!res->image) return;
  mem_free(res->alloc, res->image, res->image_size + 1);
  res->image = NULL;
  res->image_size = 0;
}

/* rtc_compile, and the PTX of the same program into *ptx where ptx is not NULL (a CUBIN target). */
static P2cStatus compile_program(const RtcRequest *req, RtcResult *res, RtcResult *ptx) {
  memset(res, 0, sizeof *res);
  res->alloc = req->alloc ? req->alloc : mem_default();
  const char *arch = req->arch ? req->arch : "sm_90";
  const char *name = req->program_name ? req->program_name : "pyk2cuda.cu";
  P2cStatus status = check_request(req, arch, res->error, sizeof res->error);
  if (status != P2C_OK) return status;
  const RtcLib *lib = req->lib;
  if (!lib) status = rtc_lib_for_arch(arch, &lib, res->error, sizeof res->error);
  if (status == P2C_OK && !lib) status = rtc_load(&lib, res->error, sizeof res->error);
  if (status != P2C_OK) return status;
  if (req->target == P2C_TARGET_CUBIN && (!lib->nvrtcGetCUBIN || !lib->nvrtcGetCUBINSize)) {
    snprintf(res->error, sizeof res->error,
             "NVRTC at %.300s cannot produce CUBIN (no nvrtcGetCUBIN): install CUDA 11.1 or newer",
             lib->dl.path);
    return P2C_ERR_NO_CUDA;
  }
  if (req->target == P2C_TARGET_LTOIR && (!lib->nvrtcGetLTOIR || !lib->nvrtcGetLTOIRSize)) {
    snprintf(res->error, sizeof res->error,
             "NVRTC at %.300s cannot produce LTO-IR (no nvrtcGetLTOIR): install CUDA 12.0 or newer",
             lib->dl.path);
    return P2C_ERR_NO_CUDA;
  }
  /* PTX is compiled for the virtual architecture: with a real one NVRTC also runs ptxas and
   * makes SASS that a PTX request throws away (about 20 ms of 50; the PTX is the same). */
  char arch_option[64];
  bool ptx_of_real = req->target == P2C_TARGET_PTX && strncmp(arch, "sm_", 3) == 0;
  snprintf(arch_option, sizeof arch_option, ptx_of_real ? "-arch=compute_%s" : "-arch=%s",
           ptx_of_real ? arch + 3 : arch);
  size_t option_count = 0, option_cap = 0;
  const char **options = build_options(req, lib, arch_option, &option_count, &option_cap);
  if (!options) {
    snprintf(res->error, sizeof res->error, "out of memory for NVRTC options");
    return P2C_ERR_NOMEM;
  }

  RtcNvrtcProgram prog = NULL;
  RTC_CHECK(lib, nvrtcCreateProgram(&prog, req->source, name, 0, NULL, NULL), res->error,
            sizeof res->error);
  RtcNvrtcResult rc = lib->nvrtcCompileProgram(prog, (int)option_count, options);
  status = fetch_log(lib, prog, res); /* the log is kept on success and on failure */
  if (status != P2C_OK) goto cleanup;
  if (rc != RTC_NVRTC_SUCCESS) {
    status = compile_failed(rc, name, arch, res);
    goto cleanup;
  }
  status = fetch_image(lib, prog, req->target, res);
  if (status == P2C_OK && ptx) {
    status = fetch_image(lib, prog, P2C_TARGET_PTX, ptx);
    if (status != P2C_OK) memcpy(res->error, ptx->error, sizeof res->error);
  }

cleanup:
  if (prog) lib->nvrtcDestroyProgram(&prog);
  mem_free(req->alloc, options, option_cap * sizeof *options);
  if (status != P2C_OK) {
    drop_image(res);
    if (ptx) drop_image(ptx);
  }
  return status;
}

P2cStatus rtc_compile(const RtcRequest *req, RtcResult *res) {
  return compile_program(req, res, NULL);
}

P2cStatus rtc_compile_with_ptx(const RtcRequest *req, RtcResult *res, RtcResult *ptx) {
  memset(ptx, 0, sizeof *ptx);
  ptx->alloc = req->alloc ? req->alloc : mem_default();
  if (req->target != P2C_TARGET_CUBIN) {
    memset(res, 0, sizeof *res);
    res->alloc = ptx->alloc;
    snprintf(res->error, sizeof res->error, "rtc_compile_with_ptx: the request is not for a CUBIN");
    return P2C_ERR_USAGE;
  }
  return compile_program(req, res, ptx);
}

void rtc_result_free(RtcResult *res) {
  if (!res) return;
  const P2cAllocator *alloc = res->alloc;
  if (res->image) mem_free(alloc, res->image, res->image_size + 1);
  if (res->log) mem_free(alloc, res->log, res->log_len + 1);
  memset(res, 0, sizeof *res);
  res->alloc = alloc;
}
