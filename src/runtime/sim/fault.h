/* Catching a memory fault of a simulated thread (src/runtime/sim/fault.c). Private to
 * src/runtime/sim.
 *
 * A kernel that stores through a wild index faults (SIGSEGV, SIGBUS) in the worker that runs it.
 * On a GPU the same bug is an error, CUDA_ERROR_ILLEGAL_ADDRESS, after which the context is
 * unusable; the simulator behaves the same way: a process-wide handler recognizes a fault of a
 * thread that runs kernel code (sim_fault_arm) at an instruction outside pyk2cuda's own code, and
 * jumps back to where the worker armed it (siglongjmp). Every other fault goes on to the handler
 * that was there before, or to the default action (the process ends as before). */
#ifndef P2C_RUNTIME_SIM_FAULT_H
#define P2C_RUNTIME_SIM_FAULT_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

/* One worker's catch: where to jump, and what the handler saw. */
typedef struct SimFaultCatch {
  sigjmp_buf *jump;       /* siglongjmp(*jump, SIM_FAULT_JUMPED) after a fault */
  int signo;              /* SIGSEGV or SIGBUS */
  int code;               /* si_code: SEGV_MAPERR, SEGV_ACCERR, BUS_ADRERR, ... */
  const void *addr;       /* the address the thread touched */
  const void *pc;         /* the faulting instruction; NULL where unknown */
  const void *sp;         /* the stack pointer then; NULL where unknown */
  /* ASan only: kernel code runs on fiber stacks; before the jump, ASan is told that the thread
   * goes back to the stack [*home, *home + *home_size) (the worker's own, read at the fault). */
  bool on_fiber;
  const void *const *home;
  const size_t *home_size;
} SimFaultCatch;

enum { SIM_FAULT_JUMPED = 2 };   /* sigsetjmp's value after a caught fault */
enum { SIM_FAULT_LEFT = 3 };     /* ... after sim_fault_leave */

/* Makes sure that the process-wide SIGSEGV and SIGBUS handlers are ours (two sigaction calls
 * when they are): one installed by someone else since is kept as the one that other faults are
 * passed on to. */
void sim_fault_install(void);

/* The calling thread runs kernel code until sim_fault_disarm: a fault outside pyk2cuda's code
 * fills `c` and jumps to *c->jump. `c` must stay valid until then. */
void sim_fault_arm(SimFaultCatch *c);
void sim_fault_disarm(void);
/* Leaves the armed code at once, as a caught fault does, with SIM_FAULT_LEFT: what the first tier
 * of host functions does when the host's interrupt check says stop. The thread must be armed. */
void sim_fault_leave(void) __attribute__((noreturn));

/* A stack for signal handlers, so that a fiber that overflows its stack into the guard page can
 * still be caught. */
typedef struct SimAltStack {
  void *mem;
  size_t size;
  bool installed;   /* this object is the thread's alternate stack now */
} SimAltStack;

/* Gives the calling thread `s` as its alternate signal stack when it has none (mapping it on
 * first use); false when none could be made (faults then still end the process). */
bool sim_altstack_push(SimAltStack *s);
/* Undoes sim_altstack_push on the same thread (nothing when it installed nothing). */
void sim_altstack_pop(SimAltStack *s);
/* Unmaps the stack; it must not be installed. */
void sim_altstack_free(SimAltStack *s);

#endif
