/* The command line's help: one row per command with its synopsis and what each option does.
 * `pyk2cuda --help` prints every synopsis; `pyk2cuda CMD --help` prints one command's row. The
 * rows are the one place where the options are described; docs/cli.md follows them. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct CommandHelp {
  const char *name;
  const char *synopsis;  /* "pyk2cuda NAME ..." lines, each ending in \n */
  const char *summary;   /* one line: what the command does */
  const char *options;   /* one option a line, "  FLAG  what it does\n" */
} CommandHelp;

static const CommandHelp commands[] = {
    {"emit",
     "  pyk2cuda emit  FILE.py [-k KERNEL]... [--sig SIG]... [-o OUT.cu] [--line-directives]\n"
     "                 [--check-bounds] [--sanitize] [--dump=ast|types|analysis|cuda|c]\n",
     "Translate the kernels of FILE.py to CUDA C.",
     "  -k KERNEL          only this kernel (repeatable); default: every kernel\n"
     "  --sig SIG          a signature for a kernel, NAME(TYPES) in Numba's syntax (repeatable)\n"
     "  -o OUT.cu          write here instead of stdout\n"
     "  --line-directives  #line directives pointing at FILE.py\n"
     "  --check-bounds     check every index against the array's shape\n"
     "  --sanitize         the simulator's memory and race checks (implies --check-bounds)\n"
     "  --dump=STAGE       print the form after one phase: ast, types, analysis or cuda;\n"
     "                     c: the C form of @jit host functions (their first tier)\n"},
    {"ptx",
     "  pyk2cuda ptx   FILE.py [-k KERNEL]... [--sig SIG]... [--arch sm_XY] [--cubin] [-o OUT]\n"
     "                 [--check-bounds] [--no-cache]\n",
     "Compile the kernels of FILE.py with NVRTC to PTX (or a CUBIN); no GPU needed.",
     "  -k KERNEL, --sig SIG  as for emit\n"
     "  --arch sm_XY       the target architecture (default sm_90)\n"
     "  --cubin            a CUBIN instead of PTX (default output FILE.cubin)\n"
     "  -o OUT             write here instead of stdout\n"
     "  --check-bounds     check every index against the array's shape\n"
     "  --no-cache         neither read nor write the compile cache\n"},
    {"check",
     "  pyk2cuda check FILE.py [--sig SIG]...\n",
     "Check FILE.py without writing anything: kernels without signatures get their statements, "
     "names and calls checked.",
     "  --sig SIG          a signature for a kernel, NAME(TYPES) (repeatable)\n"},
    {"run",
     "  pyk2cuda run   FILE.py KERNEL [--grid X[,Y[,Z]]|auto] [--block X[,Y[,Z]]] [--shared BYTES]\n"
     "                 [--device auto|gpu|sim] [--repeat N] [--time] [--out-dir DIR]\n"
     "                 [--check-bounds] [--sanitize] [--no-cache] [--timeout SECONDS] ARG...\n",
     "Launch KERNEL of FILE.py once (or N times) on the GPU or the simulator and write every "
     "array parameter to DIR/NAME.npy.",
     "  --grid, --block    the launch configuration, as kern[grid, block] (both required;\n"
     "                     --grid auto covers the first array argument's elements)\n"
     "  --shared BYTES     dynamic shared memory per block\n"
     "  --device D         auto (the GPU when there is one, else the simulator), gpu or sim\n"
     "  --repeat N         launch N times (default 1)\n"
     "  --time             print compile, load, copy and kernel times in ms (with --repeat, the\n"
     "                     kernel's min and median)\n"
     "  --out-dir DIR      where outputs go (default pyk2cuda-out/); inputs are never replaced\n"
     "  --check-bounds     check every index; --sanitize adds the simulator's checks\n"
     "  --no-cache         neither read nor write the compile cache\n"
     "  --timeout SECONDS  stop a launch that runs longer (exit 3)\n"
     "ARG, in the kernel's parameter order:\n"
     "  PATH.npy           an input array\n"
     "  zeros:DTYPE[d0,d1,...], ones:..., empty:..., arange:DTYPE[n]   a new array\n"
     "  42, -1.5, true     a scalar; float32:1.5, int32:7 give its type\n"
     "  '(1, float32:2.5)' a tuple of scalars and tuples; (7,) of one, () empty\n"},
    {"build",
     "  pyk2cuda build FILE.py [-k KERNEL]... [--sig SIG]... [--arch sm_XY,...] [--with-sim]\n"
     "                 -o OUT/NAME\n",
     "Write an ahead-of-time bundle of the kernels, OUT/NAME.h and OUT/NAME.c: one typed C launcher "
     "per specialization, the CUBIN of each architecture and the PTX, for a C or C++ program that "
     "runs them with no pyk2cuda, Python or NVRTC (docs/aot.md).",
     "  -k KERNEL, --sig SIG  as for emit\n"
     "  --arch LIST        the CUBINs' architectures, comma-separated (default sm_90); the PTX is\n"
     "                     the oldest one's, for newer GPUs\n"
     "  --with-sim         add the simulator's build of the kernels (OUT/NAME_sim.cc), used where\n"
     "                     there is no GPU\n"
     "  -o OUT/NAME        the files' folder and name; NAME prefixes every C name\n"
     "  --no-cache         neither read nor write the compile cache\n"},
    {"explore",
     "  pyk2cuda explore FILE.py [-k KERNEL]... [--sig SIG]... [--arch sm_XY] [--block N]\n"
     "                 [--shared BYTES] -o VIEW.html\n"
     "  pyk2cuda explore FILE.py KERNEL --sanitize [run's launch options] ARG... [--arch sm_XY]\n"
     "                 -o VIEW.html\n",
     "Write one self-contained HTML page showing, per kernel specialization, the Python with each "
     "name's type, the CUDA C and the PTX linked line by line, the diagnostics, the resources "
     "ptxas reports and the theoretical occupancy (docs/explore.md); no GPU needed. With "
     "--sanitize, launch KERNEL as `run --sanitize` does (the same arguments) and mark the "
     "checker's findings at their lines; the exit status is run's.",
     "  -k KERNEL, --sig SIG  as for emit\n"
     "  --arch sm_XY       the architecture of the PTX, resources and occupancy (default sm_90)\n"
     "  --block N          threads per block for the occupancy (default 256)\n"
     "  --shared BYTES     the launch's dynamic shared memory, for the occupancy (default 0)\n"
     "  -o VIEW.html       where the page goes (- for stdout)\n"
     "  --check-bounds     check every index against the array's shape\n"
     "  --sanitize         (with KERNEL and run's --grid, --block, --shared, ARG...) the launch\n"
     "                     on the simulator's checker; the occupancy is for its block\n"},
    {"info",
     "  pyk2cuda info\n",
     "Report pyk2cuda's, NVRTC's and the CUDA driver's versions, each GPU, and whether kernels "
     "will run on a GPU or on the simulator (exit 0 either way).",
     ""},
};

static const CommandHelp *find_command(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (strcmp(commands[i].name, name) == 0) return &commands[i];
  return NULL;
}

void cli_print_usage(FILE *out) {
  fputs("usage:\n", out);
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) fputs(commands[i].synopsis, out);
  fputs("  pyk2cuda --version\n"
        "  pyk2cuda COMMAND --help\n\n"
        "SIG is NAME(TYPES) in Numba's syntax, e.g. --sig 'axpy(float32, float32[::1], float32[::1])'.\n",
        out);
}

bool cli_is_command(const char *name) { return find_command(name) != NULL; }

bool cli_wants_help(int argc, char **argv) {
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return true;
  return false;
}

int cli_print_help(const char *name) {
  const CommandHelp *c = find_command(name);
  if (!c) return cli_usage_error("unknown command '%s'", name);
  printf("usage:\n%s\n%s\n", c->synopsis, c->summary);
  if (c->options[0]) printf("\noptions:\n%s", c->options);
  return 0;
}
