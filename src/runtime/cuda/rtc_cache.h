/* NVRTC behind the compile cache: PTX and CUBIN images kept on disk (internal API).
 *
 * Images live in <cache>/nvrtc/<hash>.bin next to <hash>.key (runtime/cache/cache.h). The key is
 * everything that changes NVRTC's output: the source, the program name (NVRTC puts it in
 * messages and line information), the target (PTX or CUBIN), the architecture, every option
 * (the defaults of rtc_default_options and the caller's), the NVRTC library (its version, path
 * and file identity) and pyk2cuda's version. A second compile of the same request reads the
 * image from the cache and never loads NVRTC.
 *
 * Knowing which NVRTC would run without loading it: dlopen of libnvrtc costs about 7 ms, more
 * than the whole warm start may take, so the identity of the library found last time is kept in
 * <cache>/nvrtc/nvrtc.id together with what the search depended on ($PYK2CUDA_NVRTC, $CUDA_HOME,
 * $LD_LIBRARY_PATH, /etc/ld.so.cache) and the file's device, inode, size and modification time.
 * When all of those are unchanged the stored version is used; otherwise NVRTC is loaded and the
 * stamp rewritten. */
#ifndef P2C_RUNTIME_CUDA_RTC_CACHE_H
#define P2C_RUNTIME_CUDA_RTC_CACHE_H

#include <stdbool.h>

#include "runtime/cuda/nvrtc.h"

typedef struct RtcCacheOptions {
  const char *cache_dir; /* the cache root; NULL: the environment's (cache.h) */
  bool no_cache;         /* neither read nor write: plain rtc_compile */
} RtcCacheOptions;

/* Like rtc_compile (same statuses, same result ownership), through the cache; a request with
 * its own NVRTC (req->lib), or for an arch only an older NVRTC compiles for (rtc_lib_for_arch),
 * is keyed by that library. *hit tells whether
 * the image came from the cache (the log is then ""; NVRTC did not run). A corrupt entry is
 * removed and rebuilt; an unusable cache folder is not an error (the compile runs uncached). */
P2cStatus rtc_compile_cached(const RtcRequest *req, const RtcCacheOptions *opts, RtcResult *res,
                             bool *hit);

/* Removes the entry for `req`, for an image the cache gave that the driver then refused. */
void rtc_cache_forget(const RtcRequest *req, const RtcCacheOptions *opts);

/* The identity of the NVRTC that compiles would use: "nvrtc MAJOR.MINOR PATH DEV INO SIZE
 * MTIME", taken from the stamp described above when it is still valid. P2C_ERR_NO_CUDA when
 * NVRTC cannot be loaded. `stamp_dir` NULL: no stamp (always loads NVRTC). */
P2cStatus rtc_identity(const char *stamp_dir, char *out, size_t outlen, char *err, size_t errlen);

/* The version of the NVRTC compiles use (rtc_load's), from the stamp above when it is valid, so
 * that NVRTC is not loaded to learn it; `cache_dir` NULL: the environment's cache. */
P2cStatus rtc_version_stamped(const char *cache_dir, int *major, int *minor, char *err,
                              size_t errlen);

#endif
