/* p2c_environment_info: what `pyk2cuda info` prints, gathered from NVRTC and the driver: which
 * NVRTC was found (version, file, the builtins beside it), the driver and its devices, and
 * whether the two fit (a driver older than NVRTC loads none of its modules). */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "runtime/cuda/cudrv.h"

static void append(char *buf, size_t cap, size_t *len, const char *fmt, const char *s1, const char *s2) {
  int n = snprintf(buf + *len, cap - *len, fmt, s1, s2);
  if (n > 0) *len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

/* "NVRTC 13.0: FILE" and its builtins' line, or why NVRTC was not found. Sets *major, *minor
 * (0 when not found). */
static void describe_nvrtc(char *buf, size_t cap, size_t *len, int *major, int *minor) {
  char err[512], ver[32], path[512];
  const RtcLib *lib;
  *major = *minor = 0;
  if (rtc_load(&lib, err, sizeof err) != P2C_OK ||
      rtc_version(major, minor, err, sizeof err) != P2C_OK) {
    *major = *minor = 0;
    append(buf, cap, len, "NVRTC: %s%s\n", err, "");
    return;
  }
  snprintf(ver, sizeof ver, "%d.%d", *major, *minor);
  rtc_loaded_path(&lib->dl, path, sizeof path);
  append(buf, cap, len, "NVRTC %s: %s\n", ver, path);
  if (lib->builtins.handle) {
    rtc_loaded_path(&lib->builtins, path, sizeof path);
    append(buf, cap, len, "  builtins: %s%s\n", path, "");
  } else {
    append(buf, cap, len, "  builtins: none beside it (NVRTC looks for libnvrtc-builtins.so.%s on "
           "the library path%s)\n", ver, "");
  }
}

/* For a driver older than NVRTC: the NVRTC of the driver's version that modules are compiled
 * with instead (rtc_load_for_driver), or that they do not fit (`why`) and what was searched. */
static void describe_fallback(char *buf, size_t cap, size_t *len, int version, int major,
                              int minor, const char *why) {
  const RtcLib *lib;
  char err[RTC_ERROR_MAX], path[512], text[1400];
  int fmajor = 0, fminor = 0;
  if (rtc_load_for_driver(version, &lib, err, sizeof err) != P2C_OK ||
      rtc_lib_version(lib, &fmajor, &fminor, err, sizeof err) != P2C_OK) {
    append(buf, cap, len, "NVRTC and driver: they do not fit: %s; %s\n", why, err);
    return;
  }
  rtc_loaded_path(&lib->dl, path, sizeof path);
  snprintf(text, sizeof text, "the driver (CUDA %d.%d) is older than NVRTC %d.%d, so modules are "
           "compiled with NVRTC %d.%d instead (%s), whose CUBINs it loads",
           version / 1000, version % 1000 / 10, major, minor, fmajor, fminor, path);
  append(buf, cap, len, "NVRTC and driver: they fit: %s%s\n", text, "");
}

/* "NVRTC and driver: ..." after both were found: whether the driver loads what NVRTC builds. */
static void describe_fit(char *buf, size_t cap, size_t *len, int major, int minor) {
  const CuDriver *drv;
  char err[256], why[512], versions[96];
  int version = 0;
  if (major == 0 || cudrv_load(&drv, err, sizeof err) != P2C_OK ||
      drv->cuDriverGetVersion(&version) != CUDRV_SUCCESS)
    return;
  if (!rtc_driver_fits(version, major, minor, ", and cannot load the modules NVRTC builds", why,
                       sizeof why)) {
    describe_fallback(buf, cap, len, version, major, minor, why);
    return;
  }
  snprintf(versions, sizeof versions, "the driver (CUDA %d.%d) loads what NVRTC %d.%d builds",
           version / 1000, version % 1000 / 10, major, minor);
  append(buf, cap, len, "NVRTC and driver: they fit (%s)%s\n", versions, "");
}

P2cStatus p2c_environment_info(P2cCompiler *c, char **text) {
  enum { CAP = 16384 };
  *text = mem_alloc(&c->alloc, CAP);
  if (!*text) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  size_t len = 0;
  char err[512];
  int major, minor;
  append(*text, CAP, &len, "pyk2cuda %s%s\n", p2c_version(), "");
  describe_nvrtc(*text, CAP, &len, &major, &minor);
  char *drv_text = NULL;
  P2cStatus s = cudrv_info(NULL, &c->alloc, &drv_text, err, sizeof err);
  if (s == P2C_OK) append(*text, CAP, &len, "%s%s", drv_text, "");
  else append(*text, CAP, &len, "CUDA: %s%s\n", err, "");
  if (s == P2C_OK) describe_fit(*text, CAP, &len, major, minor);
  /* What `--device auto` will do follows from the line above; say it, so that a machine without
   * a GPU reads as a working setup rather than a failure. */
  if (s != P2C_OK && s != P2C_ERR_NOMEM)
    append(*text, CAP, &len, "no GPU: the simulator will run kernels%s%s\n", "", "");
  cudrv_text_free(&c->alloc, drv_text);
  return s == P2C_OK ? s : api_fail(c, s, "%s", err);
}

void p2c_text_free(P2cCompiler *c, char *text) {
  if (c && text) mem_free(&c->alloc, text, 16384);
}
