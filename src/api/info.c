/* p2c_environment_info: what `pyk2cuda info` prints, gathered from NVRTC and the driver. */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "runtime/cuda/cudrv.h"

static void append(char *buf, size_t cap, size_t *len, const char *fmt, const char *s1, const char *s2) {
  int n = snprintf(buf + *len, cap - *len, fmt, s1, s2);
  if (n > 0) *len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

P2cStatus p2c_environment_info(P2cCompiler *c, char **text) {
  enum { CAP = 16384 };
  *text = mem_alloc(&c->alloc, CAP);
  if (!*text) return api_fail(c, P2C_ERR_NOMEM, "out of memory");
  size_t len = 0;
  char err[512], ver[64];
  int major, minor;
  append(*text, CAP, &len, "pyk2cuda %s%s\n", p2c_version(), "");
  if (rtc_version(&major, &minor, err, sizeof err) == P2C_OK) {
    snprintf(ver, sizeof ver, "%d.%d", major, minor);
    append(*text, CAP, &len, "NVRTC %s%s\n", ver, "");
  } else {
    append(*text, CAP, &len, "NVRTC: %s%s\n", err, "");
  }
  char *drv_text = NULL;
  P2cStatus s = cudrv_info(NULL, &c->alloc, &drv_text, err, sizeof err);
  if (s == P2C_OK) append(*text, CAP, &len, "%s%s", drv_text, "");
  else append(*text, CAP, &len, "CUDA: %s%s\n", err, "");
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
