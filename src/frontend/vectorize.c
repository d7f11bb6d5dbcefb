/* @vectorize([sig, ...], target='cuda'): Numba's CUDA ufuncs. The decorated function becomes a
 * FN_UFUNC whose signatures are scalar ones ("float32(float32, float32)"); typeinfer types one
 * specialization per signature and codegen wraps each in an elementwise kernel. Only the CUDA
 * target exists here, so any other target, and the lazy form without signatures (which Numba
 * compiles at the first call, from the argument types), are refused with a diagnostic. */
#include <string.h>

#include "frontend/lower.h"

/* Options of numba.vectorize that change nothing in the generated CUDA code. */
static const char *const ignored_vectorize_options[] = {"cache", "nopython", "fastmath", NULL};

static bool is_ignored_vectorize_option(const char *name) {
  for (int i = 0; ignored_vectorize_options[i]; i++)
    if (strcmp(ignored_vectorize_options[i], name) == 0) return true;
  return false;
}

/* target='cuda' is the only target; *seen records that it was given. */
static bool lower_target_keyword(Lowerer *L, TSNode val, bool *seen) {
  const char *text = NULL;
  size_t len = 0;
  if (!node_is(L, val, K_string)) {
    diag_error(L->c, node_loc(L, val), "E-decorator", "vectorize's target= must be the string 'cuda'");
    return false;
  }
  if (!lower_string_value(L, val, &text, &len)) return false;
  if (len != 4 || memcmp(text, "cuda", 4) != 0) {
    diag_error(L->c, node_loc(L, val), "E-decorator",
               "vectorize target '%.*s' is not supported: pyk2cuda compiles only target='cuda'",
               (int)len, text);
    return false;
  }
  *seen = true;
  return true;
}

static bool lower_vectorize_keyword(Lowerer *L, TSNode kw, bool *target_seen) {
  char *name = node_str(L, lower_field(L, kw, F_name));
  TSNode val = lower_field(L, kw, F_value);
  if (strcmp(name, "target") == 0) return lower_target_keyword(L, val, target_seen);
  if (is_ignored_vectorize_option(name)) return true;
  diag_error(L->c, node_loc(L, kw), "E-decorator", "unsupported option '%s' of vectorize", name);
  return false;
}


bool lower_vectorize_decorator(Lowerer *L, Function *f, TSNode e, const char *path) {
  f->kind = FN_UFUNC;
  /* numba.cuda.vectorize is the CUDA target already; numba.vectorize needs target='cuda'. */
  bool target_seen = strcmp(path, "numba.cuda.vectorize") == 0;
  bool ok = true;
  if (node_is(L, e, K_call)) {
    TSNode args = lower_field(L, e, F_arguments);
    TSNode kids[64];
    int k = node_kids(L, args, kids, 64);
    for (int i = 0; i < k && i < 64; i++) {
      if (node_is(L, kids[i], K_keyword_argument)) ok &= lower_vectorize_keyword(L, kids[i], &target_seen);
      else lower_add_sigs(L, f, kids[i]);
    }
  }
  if (!ok) return false;
  if (!target_seen) {
    diag_error(L->c, node_loc(L, e), "E-decorator",
               "vectorize without target='cuda' compiles for the CPU in Numba; pyk2cuda compiles "
               "only target='cuda'");
    return false;
  }
  if (f->nsigs == 0) {
    diag_error(L->c, node_loc(L, e), "E-no-signature",
               "vectorize needs its signatures, as in @vectorize(['float32(float32)'], "
               "target='cuda'): the lazy form, typed at the first call, is not supported");
    return false;
  }
  return true;
}
