/* The toolkit's places (toolkit.h): one table, walked for libraries and programs alike. */
#include "runtime/cuda/toolkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

typedef enum PlaceHow {
  PLACE_WHEELS,     /* NVIDIA's wheels in each folder of the variable's list */
  PLACE_VARIABLE,   /* the folder the variable names */
  PLACE_SYSTEM,     /* the loader's path (libraries) or $PATH (programs) */
  PLACE_FIXED,      /* a folder of its own */
} PlaceHow;

/* The places, in toolkit.h's order: how each is walked, its variable or folder, and the
 * subfolder of a library and of a program under it. */
static const struct {
  PlaceHow how;
  const char *root;
  const char *lib, *bin;
} PLACES[] = {
    {PLACE_WHEELS, "PYK2CUDA_SITE_PACKAGES", "lib", "bin"},
    {PLACE_VARIABLE, "CONDA_PREFIX", "lib", "bin"},
    {PLACE_SYSTEM, NULL, NULL, NULL},
    {PLACE_VARIABLE, "CUDA_HOME", "lib64", "bin"},
    {PLACE_VARIABLE, "CUDA_PATH", "lib64", "bin"},
    {PLACE_FIXED, "/usr/local/cuda", "lib64", "bin"},
};
enum { PLACE_COUNT = sizeof PLACES / sizeof PLACES[0] };

/* Visits the wheels' folders of `part` under each folder of the ':'-separated `list`: CUDA 13's
 * shared nvidia/cu13/SUB, then CUDA 12's nvidia/cuda_PART/SUB. */
static bool visit_wheels(const char *list, const char *part, const char *sub, ToolkitVisit visit, void *ctx) {
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ":");
    char dir[1024];
    if (len > 0 && len < 700) {
      snprintf(dir, sizeof dir, "%.*s/nvidia/cu13/%s", (int)len, p, sub);
      if (visit(ctx, dir, "NVIDIA's wheels in $PYK2CUDA_SITE_PACKAGES")) return true;
      snprintf(dir, sizeof dir, "%.*s/nvidia/cuda_%s/%s", (int)len, p, part, sub);
      if (visit(ctx, dir, "NVIDIA's wheels in $PYK2CUDA_SITE_PACKAGES")) return true;
    }
    p += len + (p[len] == ':');
  }
  return false;
}

/* Visits each folder of $PATH, as a shell looks for a program (an empty entry is skipped). */
static bool visit_path(ToolkitVisit visit, void *ctx) {
  const char *list = getenv("PATH");
  for (const char *p = list ? list : ""; *p;) {
    size_t len = strcspn(p, ":");
    char dir[1024];
    if (len > 0 && len < sizeof dir) {
      snprintf(dir, sizeof dir, "%.*s", (int)len, p);
      if (visit(ctx, dir, "$PATH")) return true;
    }
    p += len + (p[len] == ':');
  }
  return false;
}

/* Visits place i of the table for a `kind` part. */
static bool visit_place(size_t i, ToolkitKind kind, const char *part, ToolkitVisit visit, void *ctx) {
  const char *sub = kind == TOOLKIT_LIBRARY ? PLACES[i].lib : PLACES[i].bin;
  const char *root = PLACES[i].how == PLACE_FIXED || PLACES[i].how == PLACE_SYSTEM ? PLACES[i].root
                                                                                   : getenv(PLACES[i].root);
  char dir[1024], place[128];
  switch (PLACES[i].how) {
  case PLACE_WHEELS: return root && *root && visit_wheels(root, part, sub, visit, ctx);
  case PLACE_SYSTEM: return kind == TOOLKIT_LIBRARY ? visit(ctx, "", "the library path") : visit_path(visit, ctx);
  case PLACE_VARIABLE:
    if (!root || !*root || strlen(root) > 900) return false;
    snprintf(dir, sizeof dir, "%s/%s", root, sub);
    snprintf(place, sizeof place, "$%s/%s", PLACES[i].root, sub);
    return visit(ctx, dir, place);
  case PLACE_FIXED:
    snprintf(dir, sizeof dir, "%s/%s", root, sub);
    return visit(ctx, dir, dir);
  }
  return false;
}

bool toolkit_search(ToolkitKind kind, const char *part, ToolkitVisit visit, void *ctx) {
  for (size_t i = 0; i < PLACE_COUNT; i++)
    if (visit_place(i, kind, part, visit, ctx)) return true;
  return false;
}

void toolkit_places(ToolkitKind kind, char *out, size_t size) {
  size_t len = 0;
  if (size) out[0] = '\0';
  for (size_t i = 0; i < PLACE_COUNT; i++) {
    const char *sub = kind == TOOLKIT_LIBRARY ? PLACES[i].lib : PLACES[i].bin;
    const char *sep = i ? ", " : "";
    switch (PLACES[i].how) {
    case PLACE_WHEELS: fixed_appendf(out, size, &len, "%sNVIDIA's wheels in $%s", sep, PLACES[i].root); break;
    case PLACE_VARIABLE: fixed_appendf(out, size, &len, "%s$%s/%s", sep, PLACES[i].root, sub); break;
    case PLACE_SYSTEM: fixed_appendf(out, size, &len, "%s%s", sep, kind == TOOLKIT_LIBRARY ? "the library path" : "$PATH"); break;
    case PLACE_FIXED: fixed_appendf(out, size, &len, "%s%s/%s", sep, PLACES[i].root, sub); break;
    }
  }
}
