/* Internal to the public API's implementation: the handles' contents, shared by compiler.c
 * (translation, NVRTC) and launch.c (the dispatcher that runs kernels). */
#ifndef P2C_API_API_H
#define P2C_API_API_H

#include "codegen/codegen.h"
#include "runtime/cuda/nvrtc.h"
#include "runtime/sim/sanitize.h"
#include "typeinfer/typeinfer.h"

struct P2cCompiler {
  P2cAllocator alloc;
  char last_error[16384];     /* room for --sanitize's findings, one line each */
  /* The default checks of translations whose P2cChecks are not exact (compiler.c
   * translation_checks): the deprecated p2c_compiler_set_check_bounds and _set_sanitize, and
   * $PYK2CUDA_SANITIZE read when the compiler is made. */
  bool check_bounds;
  bool sanitize;
  bool sim_fibers;           /* $PYK2CUDA_SIM_FIBERS: kernels with barriers keep the simulator's
                                fibers, not regions (docs/simulator.md, "Regions") */
  bool no_cache;             /* p2c_compiler_set_cache(c, false) */
  bool host_call_signatures; /* p2c_compiler_set_host_call_signatures */
  P2cInterruptFn interrupt;  /* p2c_compiler_set_interrupt */
  void *interrupt_userdata;
  /* Set by p2c_specialize for its one translation: the kernel must take this many arguments
   * (else P2C_ERR_USAGE), and its launch signature (the last --sig) is dropped when the
   * decorator gives signatures, which are then the only specializations, as in Numba. */
  bool specializing;
  size_t specialize_nargs;
  /* The last error's failure record, when it was P2C_ERR_BOUNDS (api_fail_bounds) or a
   * simulator's P2C_ERR_ILLEGAL_ADDRESS (api_fail_fault). */
  bool has_failure;
  P2cLaunchFailure failure;
  /* The last error's findings, when it was P2C_ERR_SANITIZE (api_fail_sanitize, findings.c):
   * the checker's report, and the file and kernel they are in. */
  bool has_findings;
  SimSanReport findings;
  char findings_file[512], findings_kernel[128];
};

struct P2cModule {
  P2cAllocator alloc;
  Compilation comp;
  Module mod;
  TypeTable types;
  CodegenResult cg;
  bool ok;
  P2cKernelInfo *kernels;
  size_t nkernel_infos;      /* kernels, then exported device functions (fill_kernel_infos) */
  /* NVRTC's options beside the defaults, from the entries' decorators (code_options) */
  const char *nvrtc_options[4];
  size_t nvrtc_option_count;
  RtcResult rtc;
  bool rtc_cache_hit;        /* the image came from the compile cache */
  Analysis an;               /* the analysis phase's result */
  int reached;               /* phases done: 1 frontend, 2 typeinfer, 3 analysis, 4 codegen */
  const char *dumps[3];      /* --dump=ast|types|analysis, each made on first request */
  bool check_bounds;         /* translated with bounds checks (runtime/bounds.h) */
  bool sanitize;             /* translated for the simulator's checker (runs on it only) */
  /* The simulator's compiled module, loaded at the first launch on the simulator and kept for
   * the next ones (a load reads the compile cache and dlopens: ~300 us; a launch of a loaded
   * module costs a few us). Unloaded by p2c_module_delete. */
  struct SimModule *sim;     /* allocated with `alloc` (the compiler may go first) */
  /* The tiers of its @jit host functions (host_tier.c): NULL until the first host call. */
  struct HostTier *tier;
  /* Its C form (codegen_c_form), in its arena: made on first request (host_tier.c). */
  const CodegenResult *c_form;
};

typedef struct HostTier HostTier;
/* Runs host function k (converted arguments, the result's bytes last) on the first tier when it
 * is the one to run (host_tier.c), *ran then true; else *ran false and nothing happened: the
 * optimized tier is the caller's to run. */
P2cStatus host_tier_call(P2cCompiler *c, P2cModule *m, const P2cKernelInfo *k, const P2cValue *args, bool no_cache,
                         bool *ran);
/* The module's C form for the first tier, made once (p2c_module_dump's "c"); NULL when out of
 * memory or when the module did not translate. */
const CodegenResult *host_tier_c_form(P2cModule *m);
/* Stops and joins the module's optimized build, frees its first tier (p2c_module_delete). */
void host_tier_delete(P2cModule *m);

/* Sets the compiler's last error and returns `s`. */
P2cStatus api_fail(P2cCompiler *c, P2cStatus s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
struct P2cBoundsRecord;
/* P2C_ERR_BOUNDS for a claimed bounds record of kernel `kernel` of `file`: the message
 * (bounds_format; `host`: a @jit function's host entry, "in function") and the failure as data
 * (p2c_compiler_last_failure), from one place. */
P2cStatus api_fail_bounds(P2cCompiler *c, const struct P2cBoundsRecord *r, const char *file, const char *kernel,
                          bool host);
/* P2C_ERR_ILLEGAL_ADDRESS for a simulator launch that faulted: "simulator: " and the simulator's
 * `message`, and the failure as data: kernel `kernel` of `file`, Python line `line` (0: not
 * known). */
P2cStatus api_fail_fault(P2cCompiler *c, const char *message, const char *file, const char *kernel,
                         uint32_t line);

/* P2C_ERR_SANITIZE for what the checker found in a launch of kernel `kernel` of `file`: the last
 * error is one line per finding (as many as fit), then the summary line, and the findings are
 * kept as data (p2c_compiler_last_findings), from one place (findings.c). */
P2cStatus api_fail_sanitize(P2cCompiler *c, const SimSanReport *report, const char *file, const char *kernel);

/* NVRTC's log with the Python line prepended to each "NAME(CUDALINE): " (compiler.c); NULL when
 * out of memory. The result, of length *out_len, is freed with alloc and length + 1. */
char *nvrtc_log_with_python_lines(const char *log, const char *name, const uint32_t *python_line,
                                  size_t nlines, const P2cAllocator *alloc, size_t *out_len);

/* dispatch.c: the array a value describes (a device array's fields, its device address as the
 * data), and the type that takes a value, or that a parameter has, as a signature spells it
 * (appended to buf at *at, counted as counted_appendf counts). */
P2cHostArray dispatch_array_of(const P2cValue *v);
void dispatch_put_value_type(char *buf, size_t cap, size_t *at, const P2cValue *v);
void dispatch_put_param_type(char *buf, size_t cap, size_t *at, const P2cParam *p);
/* Whether parameter p takes value v as a launch packs it, after the dispatcher chose p's
 * specialization and converted the values: exactly its types (an array of p's ndim, laid out as
 * p's layout requires, 'A' taking any; a tuple element by element). The last check before
 * packing, by the dispatcher's rules (dispatch.c `fits`). */
bool dispatch_takes_as_converted(const P2cParam *p, const P2cValue *v);

#endif
