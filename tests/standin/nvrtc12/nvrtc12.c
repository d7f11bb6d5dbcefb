/* A test double of NVRTC 12.4 for `standin-old-driver` (tests/standin/old_driver.py): this
 * machine has only NVRTC 13, and the fallback for a CUDA 12 driver (nvrtc.h,
 * rtc_load_for_driver) needs an NVRTC of CUDA 12 to find. Built as libnvrtc.so.12, it forwards
 * every call to the real NVRTC ($P2C_TEST_REAL_NVRTC, else libnvrtc.so.13) and differs where a
 * CUDA 12.4 NVRTC would: nvrtcVersion says 12.4, and the CUBIN's CUDA_API_VERSION records
 * (EIATTR_CUDA_API_VERSION in each .nv.info section, which the driver stand-in reads as the CUDA
 * version the CUBIN was built for) say 12.4. The code is NVRTC 13's: for the stand-in, which
 * runs the CUDA C through the simulator, that changes nothing. No real driver is ever given it.
 *
 * For the old-GPU fallback (rtc_lib_for_arch; old_driver.py's check_old_arch) it also plays
 * CUDA 12.4's list of architectures (nvrtcGetSupportedArchs, sm_50 to sm_90) and takes a PTX
 * request for one NVRTC 13 dropped (-arch=compute_53): it compiles for compute_75 and writes
 * the PTX's `.target` as the one asked for. Only the selection of the library is under test
 * there: that PTX is NVRTC 13's code, never given to a driver. */
#include <dlfcn.h>
#include <elf.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef int nvrtcResult;
typedef void *nvrtcProgram;
enum { NVRTC_ERROR_INTERNAL_ERROR = 11, EIATTR_CUDA_API_VERSION = 0x37, API_VERSION_12_4 = 124 };

static pthread_once_t real_once = PTHREAD_ONCE_INIT;
static void *real_handle; /* written once, under real_once */

static void open_real(void) {
  const char *path = getenv("P2C_TEST_REAL_NVRTC");
  real_handle = dlopen(path && *path ? path : "libnvrtc.so.13", RTLD_NOW | RTLD_LOCAL);
}

/* The real NVRTC's function `name`, or NULL. */
static void *real(const char *name) {
  pthread_once(&real_once, open_real);
  return real_handle ? dlsym(real_handle, name) : NULL;
}

/* Calls the real function NAME of type TYPE with ARGS; NVRTC_ERROR_INTERNAL_ERROR without it. */
#define FORWARD(TYPE, NAME, ...)                         \
  do {                                                   \
    void *f_ = real(#NAME);                              \
    __typeof__(TYPE) fn_;                                \
    if (!f_) return NVRTC_ERROR_INTERNAL_ERROR;          \
    memcpy(&fn_, &f_, sizeof f_);                        \
    return fn_(__VA_ARGS__);                             \
  } while (0)

EXPORT nvrtcResult nvrtcVersion(int *major, int *minor) {
  *major = 12;
  *minor = 4;
  return 0;
}

EXPORT nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name,
                                      int n, const char *const *headers,
                                      const char *const *names) {
  FORWARD(nvrtcResult(*)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                         const char *const *),
          nvrtcCreateProgram, prog, src, name, n, headers, names);
}

static void note_played(nvrtcProgram prog, int arch);

EXPORT nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog) {
  note_played(*prog, 0);
  FORWARD(nvrtcResult(*)(nvrtcProgram *), nvrtcDestroyProgram, prog);
}

/* CUDA 12.4's architectures, ascending, as its nvrtcGetSupportedArchs lists them. */
static const int archs_12_4[] = {50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90};
enum { ARCH_COUNT = sizeof archs_12_4 / sizeof archs_12_4[0], OLDEST_REAL = 75, PLAYED_MAX = 16 };

EXPORT nvrtcResult nvrtcGetNumSupportedArchs(int *count) {
  *count = ARCH_COUNT;
  return 0;
}

EXPORT nvrtcResult nvrtcGetSupportedArchs(int *archs) {
  memcpy(archs, archs_12_4, sizeof archs_12_4);
  return 0;
}

/* The programs compiled for compute_75 in place of an older arch, and that arch (a double's
 * bookkeeping, under its lock). */
static pthread_mutex_t played_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  nvrtcProgram prog;
  int arch;
} played[PLAYED_MAX];

/* Notes prog's arch; 0 forgets prog (compiled for its own arch, or destroyed). */
static void note_played(nvrtcProgram prog, int arch) {
  pthread_mutex_lock(&played_lock);
  for (int i = 0; i < PLAYED_MAX; i++)
    if (played[i].prog == prog) played[i].prog = NULL;
  for (int i = 0; arch && i < PLAYED_MAX; i++)
    if (!played[i].prog) {
      played[i].prog = prog;
      played[i].arch = arch;
      break;
    }
  pthread_mutex_unlock(&played_lock);
}

static int played_arch(nvrtcProgram prog) {
  int arch = 0;
  pthread_mutex_lock(&played_lock);
  for (int i = 0; i < PLAYED_MAX; i++)
    if (played[i].prog == prog) arch = played[i].arch;
  pthread_mutex_unlock(&played_lock);
  return arch;
}

EXPORT nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int n, const char *const *options) {
  const char *given[64];
  int arch = 0;
  if (n > 64) return NVRTC_ERROR_INTERNAL_ERROR;
  for (int i = 0; i < n; i++) {
    given[i] = options[i];
    if (!strncmp(options[i], "-arch=compute_", 14) && atoi(options[i] + 14) < OLDEST_REAL) {
      arch = atoi(options[i] + 14);
      given[i] = "-arch=compute_75";
    }
  }
  note_played(prog, arch);
  FORWARD(nvrtcResult(*)(nvrtcProgram, int, const char *const *), nvrtcCompileProgram, prog, n,
          given);
}

EXPORT nvrtcResult nvrtcGetPTXSize(nvrtcProgram prog, size_t *size) {
  FORWARD(nvrtcResult(*)(nvrtcProgram, size_t *), nvrtcGetPTXSize, prog, size);
}

EXPORT nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx) {
  void *f = real("nvrtcGetPTX");
  nvrtcResult (*fn)(nvrtcProgram, char *);
  if (!f) return NVRTC_ERROR_INTERNAL_ERROR;
  memcpy(&fn, &f, sizeof f);
  nvrtcResult rc = fn(prog, ptx);
  int arch = played_arch(prog);
  char *target = rc == 0 && arch >= 10 && arch <= 99 ? strstr(ptx, ".target sm_75") : NULL;
  if (target) {   /* the same length: two digits for two */
    target[11] = (char)('0' + arch / 10);
    target[12] = (char)('0' + arch % 10);
  }
  return rc;
}

EXPORT nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *size) {
  FORWARD(nvrtcResult(*)(nvrtcProgram, size_t *), nvrtcGetProgramLogSize, prog, size);
}

EXPORT nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *log) {
  FORWARD(nvrtcResult(*)(nvrtcProgram, char *), nvrtcGetProgramLog, prog, log);
}

EXPORT nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *size) {
  FORWARD(nvrtcResult(*)(nvrtcProgram, size_t *), nvrtcGetCUBINSize, prog, size);
}

EXPORT const char *nvrtcGetErrorString(nvrtcResult result) {
  void *f = real("nvrtcGetErrorString");
  const char *(*fn)(nvrtcResult);
  if (!f) return "NVRTC_ERROR_INTERNAL_ERROR";
  memcpy(&fn, &f, sizeof f);
  return fn(result);
}

/* Rewrites the CUDA_API_VERSION records of one .nv.info section (4-byte headers: format, attribute,
 * and for format 4 a 16-bit length of the value that follows). */
static void patch_info(unsigned char *p, unsigned char *end) {
  while (p + 4 <= end) {
    size_t len = p[0] == 4 ? (size_t)(p[2] | p[3] << 8) : 0;
    if (p + 4 + len > end) return;
    if (p[1] == EIATTR_CUDA_API_VERSION && len >= 4) {
      p[4] = API_VERSION_12_4 & 0xff;
      p[5] = API_VERSION_12_4 >> 8;
    }
    p += 4 + len;
  }
}

/* Makes the CUBIN say it was built by CUDA 12.4, in every .nv.info section. */
static void patch_cubin(unsigned char *data, size_t size) {
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)data;
  if (size < sizeof *h || h->e_shentsize != sizeof(Elf64_Shdr) || h->e_shstrndx >= h->e_shnum ||
      h->e_shoff + (uint64_t)h->e_shnum * sizeof(Elf64_Shdr) > size)
    return;
  const Elf64_Shdr *sections = (const Elf64_Shdr *)(data + h->e_shoff);
  const Elf64_Shdr *names = &sections[h->e_shstrndx];
  for (size_t i = 0; i < h->e_shnum; i++) {
    const Elf64_Shdr *s = &sections[i];
    if (s->sh_name >= names->sh_size || s->sh_offset + s->sh_size > size) continue;
    if (!strncmp((const char *)data + names->sh_offset + s->sh_name, ".nv.info", 8))
      patch_info(data + s->sh_offset, data + s->sh_offset + s->sh_size);
  }
}

EXPORT nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin) {
  void *f = real("nvrtcGetCUBIN"), *size_f = real("nvrtcGetCUBINSize");
  nvrtcResult (*fn)(nvrtcProgram, char *);
  nvrtcResult (*size_fn)(nvrtcProgram, size_t *);
  size_t size = 0;
  if (!f || !size_f) return NVRTC_ERROR_INTERNAL_ERROR;
  memcpy(&fn, &f, sizeof f);
  memcpy(&size_fn, &size_f, sizeof size_f);
  nvrtcResult rc = size_fn(prog, &size);
  if (rc == 0) rc = fn(prog, cubin);
  if (rc == 0) patch_cubin((unsigned char *)cubin, size);
  return rc;
}
