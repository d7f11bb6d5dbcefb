/* Catching a simulated thread's memory fault: the process-wide SIGSEGV/SIGBUS handler, the
 * thread's arming, and alternate signal stacks (fault.h, docs/simulator.md "Faults").
 *
 * A handler is process-wide by nature, so this file keeps the only state that a signal handler
 * can reach, each with its reason:
 *  - `armed`, thread-local: the catch of the worker running kernel code on this thread; NULL
 *    elsewhere. Set before the kernel's first instruction, so its storage already exists when
 *    the handler reads it.
 *  - `previous`: the handlers that were there when ours was installed, to pass other faults
 *    on to; written under `install_lock`.
 *  - `own_lo`, `own_hi`: where pyk2cuda's own code is. A fault there is a bug of pyk2cuda (the
 *    launcher's scheduler, a callback), never the kernel's, and is not caught. Written once,
 *    under `once`.
 *  - `passing`, thread-local: the thread is passing a fault on (pass_on), so that a handler
 *    that sends the signal again to the handler before it (Python's faulthandler does, after
 *    putting ours back) ends the process instead of going round for ever.
 * Every launch makes sure that ours is the installed handler (sim_fault_install): a host or a
 * test framework may install its own afterwards (cmocka does for every test, Python's
 * faulthandler when enabled), and faults that are not a kernel's still reach it through ours. */
#include "runtime/sim/fault.h"

#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define FAULT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FAULT_ASAN 1
#endif
#endif
#ifdef FAULT_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction previous[2];   /* [0] SIGSEGV, [1] SIGBUS */
static uintptr_t own_lo, own_hi;
static _Thread_local SimFaultCatch *armed;
static _Thread_local bool passing;

/* ---- Where pyk2cuda's code is ----------------------------------------------------------- */

/* dl_iterate_phdr's callback: when the object holds this file's code, records the span of its
 * executable segments. */
static int find_own_code(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  uintptr_t here = *(const uintptr_t *)data, lo = UINTPTR_MAX, hi = 0;
  bool mine = false;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
    mine |= here >= start && here < end;
    if (start < lo) lo = start;
    if (end > hi) hi = end;
  }
  if (!mine) return 0;
  own_lo = lo, own_hi = hi;
  return 1;
}

static bool own_code(const void *pc) {
  return (uintptr_t)pc >= own_lo && (uintptr_t)pc < own_hi;
}

/* The faulting instruction and the stack pointer from the handler's context; NULL where this
 * file cannot read them. */
static const void *fault_pc(const void *ucv) {
  const ucontext_t *uc = ucv;
#if defined(__x86_64__)
  return (const void *)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (const void *)uc->uc_mcontext.pc;
#else
  (void)uc;
  return NULL;
#endif
}

static const void *fault_sp(const void *ucv) {
  const ucontext_t *uc = ucv;
#if defined(__x86_64__)
  return (const void *)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
  return (const void *)uc->uc_mcontext.sp;
#else
  (void)uc;
  return NULL;
#endif
}

/* ---- The handler ------------------------------------------------------------------------- */

/* A fault that is not a kernel's: the handler that was there before runs, or the default
 * action does (restored here; the faulting instruction then faults again and ends the process,
 * with a core dump where the system makes them, as it did before the simulator was loaded). */
static void pass_on(int sig, siginfo_t *si, void *uc) {
  const struct sigaction *p = &previous[sig == SIGBUS];
  if (!passing && (p->sa_flags & SA_SIGINFO)) {
    passing = true;
    p->sa_sigaction(sig, si, uc);
    passing = false;
    return;
  }
  if (!passing && p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
    passing = true;
    p->sa_handler(sig);
    passing = false;
    return;
  }
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, NULL);
  if (si->si_code <= 0) raise(sig);   /* sent, not a fault: nothing would repeat it */
}

/* SIGSEGV and SIGBUS: a fault of a thread armed for kernel code, raised by the hardware (not
 * sent) at an instruction outside pyk2cuda, goes back to the worker; anything else is passed on.
 * Only async-signal-safe work here: plain stores, and siglongjmp out of the handler. */
static void on_fault(int sig, siginfo_t *si, void *uc) {
  SimFaultCatch *c = armed;
  const void *pc = fault_pc(uc);
  if (!c || si->si_code <= 0 || own_code(pc)) {
    pass_on(sig, si, uc);
    return;
  }
  armed = NULL;
  c->signo = sig;
  c->code = si->si_code;
  c->addr = si->si_addr;
  c->pc = pc;
  c->sp = fault_sp(uc);
#ifdef FAULT_ASAN
  if (c->on_fiber) __sanitizer_start_switch_fiber(NULL, *c->home, *c->home_size);
#endif
  siglongjmp(*c->jump, SIM_FAULT_JUMPED);
}

static void find_once(void) {
  uintptr_t here = (uintptr_t)sim_fault_install;
  dl_iterate_phdr(find_own_code, &here);
}

/* Whether the handler installed for `sig` is ours. */
static bool ours(int sig) {
  struct sigaction cur;
  return sigaction(sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_fault;
}

void sim_fault_install(void) {
  pthread_once(&once, find_once);
  if (ours(SIGSEGV) && ours(SIGBUS)) return;
  pthread_mutex_lock(&install_lock);
  static const int sigs[2] = {SIGSEGV, SIGBUS};
  for (int i = 0; i < 2; i++) {
    if (ours(sigs[i])) continue;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_fault;
    /* SA_NODEFER: the jump leaves the handler without restoring the signal mask, so the
     * handler must not block its own signal (a second fault in that worker would then end
     * the process at once). SA_ONSTACK: a fiber that overflowed has no stack left. */
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    struct sigaction was;
    if (sigaction(sigs[i], &sa, &was) == 0) previous[i] = was;
  }
  pthread_mutex_unlock(&install_lock);
}

void sim_fault_arm(SimFaultCatch *c) {
  armed = c;
  passing = false;   /* a handler passed a fault to may have jumped out of pass_on */
}

void sim_fault_disarm(void) { armed = NULL; }

void sim_fault_leave(void) { siglongjmp(*armed->jump, SIM_FAULT_LEFT); }

/* ---- Alternate signal stacks ------------------------------------------------------------- */

enum { ALT_STACK_BYTES = 128 * 1024 };   /* room for a chained handler too (ASan's, Python's) */

bool sim_altstack_push(SimAltStack *s) {
  stack_t old;
  if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE)) return true;
  if (!s->mem) {
    void *p = mmap(NULL, ALT_STACK_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    s->mem = p, s->size = ALT_STACK_BYTES;
  }
  stack_t st = {.ss_sp = s->mem, .ss_size = s->size, .ss_flags = 0};
  s->installed = sigaltstack(&st, NULL) == 0;
  return s->installed;
}

void sim_altstack_pop(SimAltStack *s) {
  if (!s->installed) return;
  stack_t off = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
  sigaltstack(&off, NULL);
  s->installed = false;
}

void sim_altstack_free(SimAltStack *s) {
  if (s->mem) munmap(s->mem, s->size);
  s->mem = NULL, s->size = 0;
}
