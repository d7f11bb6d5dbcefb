/* A phase's work shared with a second thread: see side.h. */
#include "util/side.h"

void side_prepare(Side *s, const Compilation *c, void (*work)(void *), void *arg) {
  s->c = *c;
  arena_init(&s->c.arena, c->arena.alloc);
  s->c.arena.oom = &s->oom;
  s->c.diags = (DiagVec){0};
  s->c.error_count = 0;
  s->c.too_many_errors = false;
  s->c.release = NULL;
  s->work = work;
  s->arg = arg;
  s->out_of_memory = false;
}

/* The side's work, with its arena's out-of-memory jump landing here. */
static void *side_main(void *arg) {
  Side *s = arg;
  if (setjmp(s->oom)) {
    s->out_of_memory = true;
    return NULL;
  }
  s->work(s->arg);
  return NULL;
}

/* here(arg) with c's out-of-memory jump caught: it must not leave while the side runs.
 * Returns false when it ran out. */
static bool run_here(Compilation *c, void (*here)(void *), void *arg) {
  jmp_buf *driver_oom = c->arena.oom;
  jmp_buf caught;
  bool ok = true;
  c->arena.oom = &caught;
  if (setjmp(caught) == 0) here(arg);
  else ok = false;
  c->arena.oom = driver_oom;
  return ok;
}

void side_run(Side *s, Compilation *c, void (*here)(void *), void *here_arg) {
  pthread_t thread;
  bool threaded = false;
  if (pthread_mutex_init(&s->lock, NULL) == 0) {
    c->arena.lock = s->c.arena.lock = &s->lock;
    threaded = pthread_create(&thread, NULL, side_main, s) == 0;
    if (!threaded) {
      c->arena.lock = s->c.arena.lock = NULL;
      pthread_mutex_destroy(&s->lock);
    }
  }
  bool ok = run_here(c, here, here_arg);
  if (threaded) {
    pthread_join(thread, NULL);
    c->arena.lock = s->c.arena.lock = NULL;
    pthread_mutex_destroy(&s->lock);
  } else if (ok) {
    side_main(s);
  }
  if (!ok) s->out_of_memory = true;   /* raised by side_finish, after the memory is merged */
}

void side_finish(Side *s, Compilation *c, bool keep_diagnostics) {
  arena_adopt(&c->arena, &s->c.arena);
  if (s->out_of_memory) arena_oom(&c->arena);
  if (!keep_diagnostics) return;
  for (size_t i = 0; i < s->c.diags.len; i++) {
    const P2cDiagnostic *d = &s->c.diags.items[i];
    if (diag_has_room(c, d->severity)) vec_push(&c->arena, &c->diags, *d);
    else c->too_many_errors = c->too_many_errors || d->severity != P2C_SEVERITY_WARNING;
  }
  c->error_count += s->c.error_count;
  c->too_many_errors = c->too_many_errors || s->c.too_many_errors;
}
