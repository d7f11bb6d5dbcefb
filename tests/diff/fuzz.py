#!/usr/bin/python3
"""Differential fuzzing: random kernels through Numba's CUDA simulator and `pyk2cuda run --device sim`.

    /usr/bin/python3 tests/diff/fuzz.py --pyk2cuda build/tools/pyk2cuda
                     [--kind expr|loops|stride|barriers|devbarriers|warps|grid|ops|all] [--seeds FIRST:LAST[,N...]] [--kernels N] [--keep]

Each seed writes one module of N kernels of one kind and runs every kernel on both sides with
the same inputs; outputs must be equal (integers exactly, float64 to 1e-12):

  expr    int64 and float64 expressions: + - * // % & | ^ << >>, min, max, abs, comparisons,
          conditional expressions, math.sqrt/floor, round, int() (divisors kept nonzero);
  loops   nested for (range with 1-3 arguments, a bound that the loop itself rebinds, steps of
          unknown sign), while with a guard, if/else, break, continue, augmented assignments;
  stride  the same statements inside a grid-stride loop over an uneven array, two blocks of four
          threads: some kernels run in lockstep in the simulator (docs/simulator.md), some not,
          and both must agree with the oracle. The last line says how many were in lockstep.
  barriers  phases between cuda.syncthreads() over a shared array, in loops and branches that are
          uniform across the block, with the loops kind's statements between barriers: the
          simulator runs most as regions, some (a loop bound read from memory) as fibers
          (docs/simulator.md, "Regions"). The last line says how many took each path. In `meson
          test --suite diff` as fuzz_barriers (seeds 1:2); by hand `--kind barriers --seeds 1:100`.
  devbarriers  the barriers kind with phases in device functions (one calling another), called
          from the kernel's uniform loops and branches as statements, as assignments' values
          (both inlined into the regions) or inside expressions (fibers): against the oracle,
          then the path the simulator chose against the fibers (PYK2CUDA_SIM_FIBERS=1), bit for
          bit. In `meson test --suite diff` as fuzz_devbarriers (seeds 1:2).
  warps   warp operations (shuffles, votes, match, syncwarp; the full mask) in loops and branches
          uniform across the block, with block barriers and the loops kind's statements between
          them. Numba's simulator has no warp operations: each kernel runs as the simulator
          chooses (regions where legal) and on the fibers (PYK2CUDA_SIM_FIBERS=1), at 2 x 64 and
          2 x 48 (a partial warp), bit for bit. In `meson test --suite diff` as fuzz_warps.
  grid    cooperative kernels: phases between grid syncs exchanging through a global array, in
          loops and branches the same in every block, with the barriers kind's block phases
          between them: one block against the oracle (Numba's simulator runs no more), then three
          blocks as the simulator runs them (grid regions, docs/simulator.md) against the fibers
          (PYK2CUDA_SIM_FIBERS=1), bit for bit. The last line says how many took each path.

  ops     expressions over variables of every scalar type (bool, int8..uint64, float32,
          float64) holding edge values (0, -1, MIN, MAX, NaN, inf, -0.0, subnormals) and
          constants (2**63, 10**-2, ~True, ...), every operator (+ - * / // % ** << >> & | ^,
          comparisons, unary - + ~ not): 60 in one kernel per seed, run once by `pyk2cuda run`
          and compiled by numba.njit(error_model='numpy'), the CPU oracle that shares the CUDA
          target's typing and error model. Each result's type (pyk2cuda's --dump=types against
          Numba's) and value must be equal: exact for ints and bools, bit for bit for floats
          (NaN equals NaN; -0.0 is not 0.0), except an integer ** past the int's range, which
          Numba leaves to the target (int_pow_undefined). In `meson test --suite diff` as
          fuzz_ops (seeds 1:6,34,54,57,89); by hand `--kind ops --seeds 1:500`.

A kernel that raises in the oracle (Python semantics that compiled Numba does not share) is
skipped. Exit status 1 when a kernel differs or pyk2cuda fails, else 0. Not part of `meson
test`: the cases in tests/diff/cases.txt are fixed; this looks for new ones. Every difference
it finds becomes a case there once understood.
"""
import argparse
import importlib.util
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import warnings

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import numpy as np  # noqa: E402

warnings.filterwarnings("ignore")   # NumPy's overflow warnings in the oracle: wrapping is meant


class Expressions:
    """Random int64 and float64 expressions over a, b, c (int) and p, q, r (float)."""

    def __init__(self, rng):
        self.rng = rng

    def integer(self, depth):
        rng = self.rng
        if depth == 0 or rng.random() < 0.25:
            return rng.choice(["a", "b", "c", "i", str(rng.randint(-9, 9))])
        x, y = self.integer(depth - 1), self.integer(depth - 1)
        form = rng.choice(["arith", "div", "minmax", "abs", "neg", "shift", "cmp", "ifexp"])
        if form == "arith":
            return f"({x} {rng.choice(['+', '-', '*', '&', '|', '^'])} {y})"
        if form == "div":
            return f"({x} {rng.choice(['//', '%'])} nonzero({y}))"
        if form == "minmax":
            return f"{rng.choice(['min', 'max'])}({x}, {y})"
        if form == "abs":
            return f"abs({x})"
        if form == "neg":
            return f"(-{x})"
        if form == "shift":
            return f"(({x}) {rng.choice(['<<', '>>'])} {rng.randint(0, 5)})"
        if form == "cmp":
            return f"(1 if {x} {rng.choice(['<', '<=', '>', '>=', '==', '!='])} {y} else 0)"
        return f"({x} if {self.integer(depth - 1)} > 0 else {y})"

    def floating(self, depth):
        rng = self.rng
        if depth == 0 or rng.random() < 0.25:
            return rng.choice(["p", "q", "r", "float(i)", repr(round(rng.uniform(-5, 5), 3))])
        x, y = self.floating(depth - 1), self.floating(depth - 1)
        form = rng.choice(["arith", "div", "minmax", "abs", "neg", "sqrt", "floor", "round", "int",
                           "ifexp"])
        if form == "arith":
            return f"({x} {rng.choice(['+', '-', '*'])} {y})"
        if form == "div":
            return f"({x} {rng.choice(['/', '//', '%'])} fnonzero({y}))"
        if form == "minmax":
            return f"{rng.choice(['min', 'max'])}({x}, {y})"
        if form in ("abs", "neg"):
            return f"abs({x})" if form == "abs" else f"(-{x})"
        if form == "sqrt":
            return f"math.sqrt(abs({x}))"
        if form in ("floor", "round", "int"):
            return {"floor": f"float(math.floor({x}))", "round": f"float(round({x}))",
                    "int": f"float(int({x}))"}[form]
        return f"({x} if {x} > {y} else {y})"


class Statements:
    """Random statements over the int64 variables a, b, c, s, t, writing into out[row, 0..3]."""

    VARS = ["a", "b", "c", "s", "t"]

    def __init__(self, rng, row):
        self.rng, self.row = rng, row

    def operand(self):
        return self.rng.choice(self.VARS + [str(self.rng.randint(-4, 6))])

    def block(self, depth, indent, in_loop):
        lines = []
        for _ in range(self.rng.randint(1, 3)):
            lines += self.statement(depth, indent, in_loop)
        return lines

    def statement(self, depth, indent, in_loop):
        rng, pad, v = self.rng, " " * indent, self.rng.choice(self.VARS)
        kinds = ["assign", "aug", "out"] + (["if", "for", "while"] if depth else [])
        kinds += ["break", "continue"] if in_loop else []
        kind = rng.choice(kinds)
        if kind == "assign":
            return [f"{pad}{v} = ({self.operand()} {rng.choice(['+', '-', '*'])} {self.operand()}) % 17"]
        if kind == "aug":
            return [f"{pad}{v} {rng.choice(['+=', '-=', '*='])} {self.operand()}", f"{pad}{v} = {v} % 97"]
        if kind == "out":
            return [f"{pad}out[{self.row}, {rng.randint(0, 3)}] += {self.operand()}"]
        if kind in ("break", "continue"):
            return [f"{pad}if {self.operand()} > {rng.randint(-2, 5)}:", f"{pad}    {kind}"]
        if kind == "if":
            lines = [f"{pad}if {self.operand()} {rng.choice(['<', '>', '==', '!='])} {self.operand()}:"]
            lines += self.block(depth - 1, indent + 4, in_loop)
            if rng.random() < 0.5:
                lines += [f"{pad}else:"] + self.block(depth - 1, indent + 4, in_loop)
            return lines
        if kind == "for":
            var, o = rng.choice(self.VARS), self.operand
            step = rng.choice(["1", "2", "-1", "-3", "st"])
            args = rng.choice([f"{o()} % 7", rng.choice(self.VARS), f"{o()} % 5, {o()} % 9",
                               f"{rng.choice(self.VARS)}, {o()} % 9", f"{o()} % 9, {o()} % 9, {step}"])
            return ([f"{pad}st = {rng.choice(['1', '-1', '2', '-2'])}", f"{pad}for {var} in range({args}):"]
                    + self.block(depth - 1, indent + 4, True))
        guard = f"g{indent}"
        return ([f"{pad}{guard} = 0",
                 f"{pad}while {self.operand()} < {rng.randint(3, 30)} and {guard} < 6:",
                 f"{pad}    {guard} += 1"] + self.block(depth - 1, indent + 4, True))


PRELUDE = ["import math", "from numba import cuda", "", "",
           "@cuda.jit(device=True)", "def nonzero(v):", "    return v if v != 0 else 3", "", "",
           "@cuda.jit(device=True)", "def fnonzero(v):", "    return v if v != 0.0 else 0.5", ""]


def expr_module(rng, n):
    gen, lines = Expressions(rng), list(PRELUDE)
    for k in range(n):
        lines += ["", "@cuda.jit", f"def k{k}(ia, fa, out, fout):", "    i = cuda.grid(1)",
                  "    if i < ia.shape[0]:", "        a, b, c = ia[i, 0], ia[i, 1], ia[i, 2]",
                  "        p, q, r = fa[i, 0], fa[i, 1], fa[i, 2]",
                  f"        out[i] = {gen.integer(3)}", f"        fout[i] = {gen.floating(3)}"]
    return lines


def loops_module(rng, n):
    gen, lines = Statements(rng, "i"), list(PRELUDE)
    for k in range(n):
        lines += ["", "@cuda.jit", f"def k{k}(ia, out):", "    i = cuda.grid(1)", "    if i < ia.shape[0]:",
                  "        a, b, c = ia[i, 0], ia[i, 1], ia[i, 2]", "        s, t, st = 0, 1, 1"]
        lines += gen.block(3, 8, False)
        lines += ["        out[i, 3] += a + 10 * b + 100 * c + 1000 * s + 10000 * t"]
    return lines


def stride_module(rng, n):
    gen, lines = Statements(rng, "k"), list(PRELUDE)
    for k in range(n):
        loads = [rng.choice(["a = ia[k, 0]", "a = a + ia[k, 0]"]), "b = ia[k, 1]", "c = ia[k, 2]"]
        rng.shuffle(loads)
        lines += ["", "@cuda.jit", f"def k{k}(ia, out):", "    n = ia.shape[0]", "    s, t, st = 0, 1, 1",
                  "    a, b, c = 0, 0, 0", "    for k in range(cuda.grid(1), n, cuda.gridsize(1)):"]
        lines += ["        " + line for line in loads]
        lines += gen.block(3, 8, True)
        lines += ["        out[k, 3] += a + 10 * b + 100 * c + 1000 * s + 10000 * t"]
    return lines


class Phases:
    """Kernels with barriers: phases separated by cuda.syncthreads() over a shared int64 array of one
    element per thread, nested in loops and branches whose bounds and conditions are the same in
    every thread of a block (blockIdx, blockDim, constants, variables set from those), as CUDA
    requires of a barrier's control; between barriers, Statements' random statements (thread-
    dependent control, loops, break) over the per-thread variables. Every phase reads the shared
    array, meets a barrier, then writes the thread's own element (or a tree step writes the lower
    half from the upper), so no two threads race and the oracle's threads give one answer. Some
    loops have a bound read from an array, the same for every thread but not known to be, which the
    simulator runs as fibers: both paths must agree with the oracle."""

    UNIFORM = ["cuda.blockIdx.x % 3 + 1", "cuda.blockDim.x // 8", "2", "u", "(u + cuda.blockIdx.x) % 4"]

    def __init__(self, rng):
        self.rng, self.stmts, self.n = rng, Statements(rng, "i"), 0
        self.funcs = []   # device functions with barriers a phase may call (the devbarriers kind)

    def fresh(self, base):
        self.n += 1
        return f"{base}{self.n}"

    def block(self, depth, indent):
        lines = []
        for _ in range(self.rng.randint(1, 3)):
            lines += self.phase(depth, indent)
        return lines

    def phase(self, depth, indent):
        rng, pad = self.rng, " " * indent
        kinds = ["exchange", "exchange", "tree"] + (["for", "while", "if"] if depth else [])
        kind = "data_for" if depth and rng.random() < 0.06 else rng.choice(kinds)
        if self.funcs and rng.random() < 0.3:
            return self.call(pad)
        if kind == "exchange":
            v = rng.choice(Statements.VARS)
            return ([f"{pad}{v} = ({v} + sh[(tid + {rng.randint(1, 15)}) % 16]) % 1009"]
                    + self.stmts.block(1, indent, False)
                    + [f"{pad}cuda.syncthreads()", f"{pad}sh[tid] = ({rng.choice(Statements.VARS)} * 7 + tid) % 1013",
                       f"{pad}cuda.syncthreads()"])
        if kind == "tree":
            w = self.fresh("w")
            return [f"{pad}{w} = 8", f"{pad}while {w} > 0:", f"{pad}    if tid < {w}:",
                    f"{pad}        sh[tid] = (sh[tid] + sh[tid + {w}]) % 100003", f"{pad}    cuda.syncthreads()",
                    f"{pad}    {w} //= 2", f"{pad}s = (s + sh[0]) % 1009", f"{pad}cuda.syncthreads()",
                    f"{pad}sh[tid] = (a + tid) % 1013", f"{pad}cuda.syncthreads()"]
        if kind == "for":
            j = self.fresh("j")
            return ([f"{pad}for {j} in range({rng.choice(self.UNIFORM)}):", f"{pad}    t = (t + {j}) % 1009"]
                    + self.block(depth - 1, indent + 4))
        if kind == "data_for":   # uniform in fact, not provably: fibers
            j = self.fresh("j")
            return [f"{pad}for {j} in range(ia[0, 0] % 3 + 1):"] + self.block(depth - 1, indent + 4)
        if kind == "while":
            w = self.fresh("w")
            return ([f"{pad}{w} = {rng.choice(self.UNIFORM)}", f"{pad}while {w} > 0:", f"{pad}    {w} -= 1"]
                    + self.block(depth - 1, indent + 4))
        lines = [f"{pad}if {rng.choice(self.UNIFORM)} {rng.choice(['<', '>', '==', '!='])} {rng.randint(0, 3)}:"]
        lines += self.block(depth - 1, indent + 4)
        if rng.random() < 0.5:
            lines += [f"{pad}else:"] + self.block(depth - 1, indent + 4)
        return lines


    def call(self, pad):
        """A call of a device function with barriers: its result assigned (inlined into the
        regions), the call a statement of its own (inlined), or inside an expression (fibers)."""
        rng, f = self.rng, self.rng.choice(self.funcs)
        call = f"{f}(sh, ia, out, tid, i, u, a, b, c)"
        form = rng.random()
        if form < 0.65:
            r = self.fresh("r")
            return [f"{pad}{r} = {call}", f"{pad}s = (s + {r}) % 1009"]
        if form < 0.94:
            return [f"{pad}{call}"]
        return [f"{pad}s = (s + {call}) % 1009"]


def devbarriers_module(rng, n):
    """The barriers kind with some phases in device functions (one or two per kernel, the second
    may call the first), called from the kernel's uniform loops and branches."""
    gen, lines = Phases(rng), list(PRELUDE) + ["import numpy as np", ""]
    for k in range(n):
        gen.funcs = []
        for j in range(rng.randint(1, 2)):
            name = f"d{k}_{j}"
            lines += ["", "@cuda.jit(device=True)", f"def {name}(sh, ia, out, tid, i, u, a, b, c):",
                      "    s, t, st = 0, 1, 1"]
            lines += gen.block(1, 4)
            lines += ["    return (a + 3 * b + 5 * c + 7 * s + 11 * t) % 100003"]
            gen.funcs.append(name)
        lines += ["", "@cuda.jit", f"def k{k}(ia, out):", "    sh = cuda.shared.array(16, dtype=np.int64)",
                  "    tid = cuda.threadIdx.x", "    i = cuda.grid(1)", "    a, b, c = ia[i, 0], ia[i, 1], ia[i, 2]",
                  "    s, t, st = 0, 1, 1", f"    u = {rng.choice(['cuda.blockIdx.x', '3', 'cuda.blockDim.x % 5'])}",
                  "    sh[tid] = a", "    cuda.syncthreads()"]
        lines += gen.call("    ") + gen.block(2, 4)
        lines += ["    out[i, 3] += a + 10 * b + 100 * c + 1000 * s + 10000 * t + 100000 * sh[tid]"]
    return lines


class WarpPhases:
    """Kernels with warp operations (shuffles, votes, match, syncwarp) with the full mask, in loops
    and branches that every thread of the block runs alike, with block barriers and Statements'
    random statements between them. Numba's simulator has no warp operations: these run only as
    the simulator chooses (regions where it can show them legal) against the fibers."""

    UNIFORM = ["cuda.blockIdx.x % 3 + 1", "cuda.blockDim.x // 16", "2", "u", "(u + cuda.blockIdx.x) % 4"]
    FULL = "0xffffffff"

    def __init__(self, rng):
        self.rng, self.stmts, self.n = rng, Statements(rng, "i"), 0

    def fresh(self, base):
        self.n += 1
        return f"{base}{self.n}"

    def block(self, depth, indent):
        lines = []
        for _ in range(self.rng.randint(1, 3)):
            lines += self.phase(depth, indent)
        return lines

    def warp_op(self):
        rng, v = self.rng, self.rng.choice(Statements.VARS)
        w = rng.choice(Statements.VARS)
        form = rng.choice(["shfl", "shfl", "up", "down", "xor", "ballot", "all", "any", "eq", "match"])
        if form == "shfl":
            return f"{v} = ({v} + cuda.shfl_sync({self.FULL}, {w}, (lane * {rng.randint(1, 9)} + {w}) % 32)) % 1009"
        if form in ("up", "down", "xor"):
            return f"{v} = ({v} + cuda.shfl_{form}_sync({self.FULL}, {w}, {rng.randint(1, 31)})) % 1009"
        if form == "ballot":
            return f"{v} = ({v} + cuda.ballot_sync({self.FULL}, {w} > {rng.randint(-3, 3)})) % 1009"
        if form in ("all", "any", "eq"):
            return f"{v} = {v} + (3 if cuda.{form}_sync({self.FULL}, {w} > {rng.randint(-3, 3)}) else 1)"
        return f"{v} = ({v} + cuda.match_any_sync({self.FULL}, {w} % 3)) % 1009"

    def phase(self, depth, indent):
        rng, pad = self.rng, " " * indent
        kinds = ["op", "op", "reduce", "syncwarp", "barrier", "stmts"] + (["for", "while", "if"] if depth else [])
        kind = rng.choice(kinds)
        if kind == "op":
            return [pad + self.warp_op()]
        if kind == "stmts":
            return self.stmts.block(1, indent, False)
        if kind == "reduce":
            o = self.fresh("o")
            return [f"{pad}{o} = 16", f"{pad}while {o} > 0:",
                    f"{pad}    s = (s + cuda.shfl_down_sync({self.FULL}, s, {o})) % 100003", f"{pad}    {o} //= 2"]
        if kind == "syncwarp":
            v = rng.choice(Statements.VARS)
            return [f"{pad}sh[tid] = {rng.choice(Statements.VARS)}", f"{pad}cuda.syncwarp()",
                    f"{pad}{v} = ({v} + sh[tid ^ {rng.randint(1, 31)}] * 3) % 1009"
                    if rng.random() < 0.5 else f"{pad}{v} = ({v} + sh[tid - lane + (lane + 1) % 32]) % 1009",
                    f"{pad}cuda.syncwarp({self.FULL})"]
        if kind == "barrier":
            v = rng.choice(Statements.VARS)
            return [f"{pad}sh[tid] = {rng.choice(Statements.VARS)}", f"{pad}cuda.syncthreads()",
                    f"{pad}{v} = ({v} + sh[(tid + {rng.randint(1, 40)}) % cuda.blockDim.x]) % 1009", f"{pad}cuda.syncthreads()"]
        if kind == "for":
            j = self.fresh("j")
            return ([f"{pad}for {j} in range({rng.choice(self.UNIFORM)}):", f"{pad}    t = (t + {j}) % 1009"]
                    + self.block(depth - 1, indent + 4))
        if kind == "while":
            w = self.fresh("w")
            return ([f"{pad}{w} = {rng.choice(self.UNIFORM)}", f"{pad}while {w} > 0:", f"{pad}    {w} -= 1"]
                    + self.block(depth - 1, indent + 4))
        lines = [f"{pad}if {rng.choice(self.UNIFORM)} {rng.choice(['<', '>', '==', '!='])} {rng.randint(0, 3)}:"]
        lines += self.block(depth - 1, indent + 4)
        if rng.random() < 0.5:
            lines += [f"{pad}else:"] + self.block(depth - 1, indent + 4)
        return lines


def warps_module(rng, n):
    gen, lines = WarpPhases(rng), list(PRELUDE) + ["import numpy as np", ""]
    for k in range(n):
        lines += ["", "@cuda.jit", f"def k{k}(ia, out):", "    sh = cuda.shared.array(64, dtype=np.int64)",
                  "    tid = cuda.threadIdx.x", "    lane = tid % 32", "    i = cuda.grid(1)",
                  "    a, b, c = ia[i, 0], ia[i, 1], ia[i, 2]", "    s, t, st = 0, 1, 1",
                  f"    u = {rng.choice(['cuda.blockIdx.x', '3', 'cuda.blockDim.x % 5'])}"]
        lines += gen.block(2, 4)
        lines += ["    out[i, 3] += a + 10 * b + 100 * c + 1000 * s + 10000 * t"]
    return lines


def barriers_module(rng, n):
    gen, lines = Phases(rng), list(PRELUDE) + ["import numpy as np", ""]
    for k in range(n):
        lines += ["", "@cuda.jit", f"def k{k}(ia, out):", "    sh = cuda.shared.array(16, dtype=np.int64)",
                  "    tid = cuda.threadIdx.x", "    i = cuda.grid(1)", "    a, b, c = ia[i, 0], ia[i, 1], ia[i, 2]",
                  "    s, t, st = 0, 1, 1", f"    u = {rng.choice(['cuda.blockIdx.x', '3', 'cuda.blockDim.x % 5'])}",
                  "    sh[tid] = a", "    cuda.syncthreads()"]
        lines += gen.block(2, 4)
        lines += ["    out[i, 3] += a + 10 * b + 100 * c + 1000 * s + 10000 * t + 100000 * sh[tid]"]
    return lines


class GridPhases:
    """Cooperative kernels: phases separated by grid syncs (g.sync()), each exchanging through a
    global array of one element per thread of the grid (read another thread's element, possibly
    in another block; sync; write the thread's own; sync), nested in loops and branches whose
    bounds are the same in every block (gridDim, blockDim, constants, a variable set from those:
    no blockIdx), with the barriers kind's block phases (Phases) between them, whose control may
    use blockIdx. Some loops have a bound read from an array (the same everywhere, not known to
    be): the simulator keeps the fibers there (docs/simulator.md, "Grid regions")."""

    UNIFORM = ["cuda.gridDim.x % 3 + 1", "cuda.blockDim.x // 8", "2", "u", "(u + cuda.gridDim.x) % 4"]

    def __init__(self, rng):
        self.rng, self.phases = rng, Phases(rng)

    def block(self, depth, indent):
        lines = []
        for _ in range(self.rng.randint(1, 3)):
            lines += self.phase(depth, indent)
        return lines

    def phase(self, depth, indent):
        rng, pad = self.rng, " " * indent
        kind = rng.choice(["grid", "grid", "block"] + (["for", "while", "if"] if depth else []))
        if depth and rng.random() < 0.05:
            kind = "data_for"
        if kind == "block":
            return self.phases.phase(1, indent)
        if kind == "grid":
            v = rng.choice(Statements.VARS)
            return ([f"{pad}{v} = ({v} + gx[(i + {rng.randint(1, 40)}) % gx.shape[0]]) % 1009",
                     f"{pad}g.sync()", f"{pad}gx[i] = ({rng.choice(Statements.VARS)} * 7 + i) % 1013", f"{pad}g.sync()"])
        j = self.phases.fresh("j")
        if kind == "for":
            return ([f"{pad}for {j} in range({rng.choice(self.UNIFORM)}):", f"{pad}    t = (t + {j}) % 1009"]
                    + self.block(depth - 1, indent + 4))
        if kind == "data_for":   # the same in every block in fact, not provably: fibers
            return [f"{pad}for {j} in range(ia[0, 0] % 3 + 1):"] + self.block(depth - 1, indent + 4)
        if kind == "while":
            return ([f"{pad}{j} = {rng.choice(self.UNIFORM)}", f"{pad}while {j} > 0:", f"{pad}    {j} -= 1"]
                    + self.block(depth - 1, indent + 4))
        lines = [f"{pad}if {rng.choice(self.UNIFORM)} {rng.choice(['<', '>', '==', '!='])} {rng.randint(0, 3)}:"]
        lines += self.block(depth - 1, indent + 4)
        if rng.random() < 0.5:
            lines += [f"{pad}else:"] + self.block(depth - 1, indent + 4)
        return lines


def grid_module(rng, n):
    gen, lines = GridPhases(rng), list(PRELUDE) + ["import numpy as np", ""]
    for k in range(n):
        lines += ["", "@cuda.jit", f"def k{k}(ia, gx, out):", "    sh = cuda.shared.array(16, dtype=np.int64)",
                  "    g = cuda.cg.this_grid()", "    tid = cuda.threadIdx.x", "    i = cuda.grid(1)",
                  "    a, b, c = ia[i, 0], ia[i, 1], ia[i, 2]", "    s, t, st = 0, 1, 1",
                  f"    u = {rng.choice(['cuda.gridDim.x', '3', 'cuda.blockDim.x % 5'])}",
                  "    sh[tid] = a", "    gx[i] = b", "    g.sync()"]
        lines += gen.block(2, 4)
        lines += ["    out[i, 3] += a + 10 * b + 100 * c + 1000 * s + 10000 * t + 100000 * sh[tid]"]
    return lines


class Kind:
    def __init__(self, module, launch, params, arrays, sig, also=None, oracle=True):
        self.module, self.launch, self.params, self.arrays, self.sig = module, launch, params, arrays, sig
        self.also = also   # a second launch, pyk2cuda only: its paths must agree bit for bit
        self.oracle = oracle   # False: Numba's simulator cannot run these (only `also` is checked)


KINDS = {
    "expr": Kind(expr_module, ((1,), (32,)), ("ia", "fa", "out", "fout"),
                 lambda r: [r.integers(-50, 50, (32, 3), dtype=np.int64), r.uniform(-4, 4, (32, 3)),
                            np.zeros(32, np.int64), np.zeros(32)],
                 "(int64[:, ::1], float64[:, ::1], int64[::1], float64[::1])"),
    "loops": Kind(loops_module, ((1,), (16,)), ("ia", "out"),
                  lambda r: [r.integers(-10, 10, (16, 3), dtype=np.int64), np.zeros((16, 4), np.int64)],
                  "(int64[:, ::1], int64[:, ::1])"),
    "stride": Kind(stride_module, ((2,), (4,)), ("ia", "out"),
                   lambda r: [r.integers(-10, 10, (19, 3), dtype=np.int64), np.zeros((19, 4), np.int64)],
                   "(int64[:, ::1], int64[:, ::1])"),
    "barriers": Kind(barriers_module, ((2,), (16,)), ("ia", "out"),
                     lambda r: [r.integers(-10, 10, (32, 3), dtype=np.int64), np.zeros((32, 4), np.int64)],
                     "(int64[:, ::1], int64[:, ::1])"),
    # the regions (device functions inlined) against the oracle, then against the fibers, bit for bit
    "devbarriers": Kind(devbarriers_module, ((2,), (16,)), ("ia", "out"),
                        lambda r: [r.integers(-10, 10, (32, 3), dtype=np.int64), np.zeros((32, 4), np.int64)],
                        "(int64[:, ::1], int64[:, ::1])", also=((2,), (16,))),
    # Numba's simulator has no warp operations: the simulator's choice against the fibers, bit for
    # bit, at 2 x 64 (whole warps) and 2 x 48 (a partial warp in each block)
    "warps": Kind(warps_module, ((2,), (64,)), ("ia", "out"),
                  lambda r: [r.integers(-10, 10, (128, 3), dtype=np.int64), np.zeros((128, 4), np.int64)],
                  "(int64[:, ::1], int64[:, ::1])", also=((2,), (48,)), oracle=False),
    # Numba's simulator runs a cooperative grid of one block: the oracle at 1 x 16; then 3 blocks,
    # grid regions against the fibers (PYK2CUDA_SIM_FIBERS=1), bit for bit.
    "grid": Kind(grid_module, ((1,), (16,)), ("ia", "gx", "out"),
                 lambda r: [r.integers(-10, 10, (48, 3), dtype=np.int64), np.zeros(48, np.int64),
                            np.zeros((48, 4), np.int64)],
                 "(int64[:, ::1], int64[::1], int64[:, ::1])", also=((3,), (16,))),
}


def paths_agree(opts, kind, path, k, inputs, work, launch=None):
    """Kernel k at kind.also's launch (or `launch`) as the simulator chooses and with the fibers:
    None when both ran and wrote the same arrays, else what differs."""
    grid, block = launch or kind.also
    outs = []
    for fibers in ("0", "1"):
        out_dir = os.path.join(work, f"also_{k}_{fibers}")
        os.makedirs(out_dir, exist_ok=True)
        cmd = [opts.pyk2cuda, "run", path, f"k{k}", "--grid", ",".join(map(str, grid)), "--block",
               ",".join(map(str, block)), "--device", "sim", "--out-dir", out_dir] + inputs
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=opts.timeout,
                           env=dict(os.environ, PYK2CUDA_SIM_FIBERS=fibers))
        if r.returncode != 0:
            return f"pyk2cuda exited {r.returncode} (PYK2CUDA_SIM_FIBERS={fibers}): {r.stderr.strip()[-300:]}"
        outs.append([np.load(os.path.join(out_dir, p + ".npy")) for p in kind.params])
    for pname, x, y in zip(kind.params, *outs):
        if x.tobytes() != y.tobytes():
            at = tuple(np.argwhere(x != y)[0])
            return f"parameter {pname}, index {at}: {x[at]} as the simulator chose, {y[at]} on fibers"
    return None


def run_seed(opts, kind_name, seed, work):
    kind = KINDS[kind_name]
    rng = random.Random(f"{kind_name}:{seed}")
    path = os.path.join(work, f"{kind_name}_{seed}.py")
    with open(path, "w") as f:
        f.write("\n".join(kind.module(rng, opts.kernels)) + "\n")
    spec = importlib.util.spec_from_file_location(f"fuzz_{kind_name}_{seed}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    arrays = kind.arrays(np.random.default_rng(seed))
    inputs = [os.path.join(work, f"{kind_name}_{seed}_{p}.npy") for p in kind.params]
    for file, a in zip(inputs, arrays):
        np.save(file, a)
    grid, block = kind.launch
    failures = ran = 0
    for k in range(opts.kernels):
        if not kind.oracle:
            ran += 1
            problem = paths_agree(opts, kind, path, k, inputs, work, kind.launch)
            problem = problem or paths_agree(opts, kind, path, k, inputs, work)
            if problem:
                print(f"FAIL {kind_name} seed {seed} k{k}: {problem} ({path})")
                failures += 1
            continue
        want = [a.copy() for a in arrays]
        try:
            getattr(mod, f"k{k}")[grid, block](*want)
        except Exception:   # Python raised where compiled code would not: nothing to compare
            continue
        ran += 1
        out_dir = os.path.join(work, f"out_{k}")
        os.makedirs(out_dir, exist_ok=True)
        cmd = [opts.pyk2cuda, "run", path, f"k{k}", "--grid", ",".join(map(str, grid)), "--block",
               ",".join(map(str, block)), "--device", "sim", "--out-dir", out_dir]
        cmd += inputs
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=opts.timeout)
        except subprocess.TimeoutExpired:
            print(f"FAIL {kind_name} seed {seed} k{k}: pyk2cuda timed out ({path})")
            failures += 1
            continue
        if r.returncode != 0:
            print(f"FAIL {kind_name} seed {seed} k{k}: pyk2cuda exited {r.returncode}: {r.stderr.strip()[-300:]}")
            failures += 1
            continue
        differs = False
        for pname, w in zip(kind.params, want):
            got = np.load(os.path.join(out_dir, pname + ".npy"))
            same = got == w if w.dtype.kind in "iub" else np.isclose(got, w, rtol=1e-12, atol=1e-12, equal_nan=True)
            if not np.all(same):
                at = tuple(np.argwhere(~same)[0])
                print(f"FAIL {kind_name} seed {seed} k{k}: parameter {pname}, index {at}: pyk2cuda {got[at]}, "
                      f"oracle {w[at]} ({path})")
                failures += 1
                differs = True
                break
        problem = None if differs or not kind.also else paths_agree(opts, kind, path, k, inputs, work)
        if problem:
            print(f"FAIL {kind_name} seed {seed} k{k}: at {kind.also}: {problem} ({path})")
            failures += 1
    lockstep = ""
    if kind_name == "grid":
        sigs = sum((["--sig", f"k{k}{kind.sig}"] for k in range(opts.kernels)), [])
        text = subprocess.run([opts.pyk2cuda, "emit", path] + sigs, capture_output=True, text=True).stdout
        lockstep = f", {text.count('P2C_SIM_GRID(')} as grid regions, {text.count('P2C_SIM_FIBERS(')} as fibers"
    if kind_name in ("stride", "barriers", "devbarriers", "warps"):
        sigs = sum((["--sig", f"k{k}{kind.sig}"] for k in range(opts.kernels)), [])
        text = subprocess.run([opts.pyk2cuda, "emit", path] + sigs, capture_output=True, text=True).stdout
        lockstep = (f", {text.count('P2C_SIM_LOCKSTEP(')} in lockstep" if kind_name == "stride"
                    else f", {text.count('P2C_SIM_REGIONS(')} as regions, {text.count('P2C_SIM_FIBERS(')} as fibers")
    print(f"{'ok  ' if not failures else 'FAIL'} {kind_name} seed {seed}: {ran} kernels run, {failures} differ{lockstep}")
    return failures



# ---- ops: every scalar type pair and operator, against numba.njit ---------------------------

SCALARS = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float32", "float64"]


def edge_values(t):
    """The values a variable of type t takes: 0, -1, MIN, MAX and their neighbours, NaN, the
    infinities, -0.0, the smallest subnormal, and a few plain ones."""
    if t == "bool":
        return [False, True]
    if t.startswith("float"):
        info = np.finfo(t)
        return [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, float("nan"), float("inf"), float("-inf"),
                float(info.max), -float(info.max), float(info.tiny), float(info.smallest_subnormal),
                1e-3, 7.25]
    info = np.iinfo(t)
    vals = [0, 1, 2, 3, 5, 7, 100, int(info.max), int(info.max) - 1, int(info.min), int(info.min) + 1]
    return vals + ([-1, -2, -7, -100] if info.min < 0 else [])


# Constants as kernels write them, by kind, including what CPython folds (ints Numba types as
# int64 or uint64, signed zeros, subnormals, constant expressions).
CONSTANTS = {
    "int": ["0", "1", "2", "7", "-1", "-(3)", "255", "2**31", "2**63", "2**63 - 1", "2**64 - 1",
            "-2**63", "10**19", "0xff", "1 << 40", "~5", "(1 + 2) * 3", "7 // -2", "-7 % 3",
            "3 ** 35", "-True", "~True", "True + True"],
    "float": ["0.5", "-0.0", "2.5", "1e308", "5e-324", "10**-2", "2**-1", "1 / 3", "7.5 // -2",
              "2.0**-1074", "1e308 * 10"],
    "bool": ["True", "False", "not 0", "True & False"],
}
ARITH = ["+", "-", "*", "/", "//", "%", "**"]
COMPARE = ["<", "<=", ">", ">=", "==", "!="]
BITWISE = ["&", "|", "^"]


def kind_of(t):
    return "bool" if t == "bool" else "float" if t.startswith("float") else "int"


class Ops:
    """Random expressions over typed variables v0..vN and constants, each with its kind (bool,
    int, float) so that ~, & | ^ and shifts get integer or bool operands only, as Numba types
    them. Kept within what both sides define: shift counts are literals 0..31 (Numba's shift by
    the width or more is LLVM poison), integer exponents are literals -3..40 (Numba takes
    math.pow past 65536); NaN, inf, overflow, division by zero are all compared (numba.njit with
    error_model='numpy' is the CUDA target's error model)."""

    def __init__(self, rng, types):
        self.rng, self.types = rng, types
        self.int_pows = []   # (base, exponent) of each integer ** written since the last reset

    def leaf(self, kinds):
        rng = self.rng
        vs = [k for k, t in enumerate(self.types) if kind_of(t) in kinds]
        if vs and rng.random() < 0.75:
            k = rng.choice(vs)
            return f"v{k}", kind_of(self.types[k])
        kind = rng.choice(sorted(kinds))
        return f"({rng.choice(CONSTANTS[kind])})", kind

    def expr(self, depth, kinds=("bool", "int", "float")):
        rng = self.rng
        if depth == 0 or rng.random() < 0.25:
            return self.leaf(kinds)
        form = rng.choice(["unary", "arith", "arith", "compare", "bitwise", "shift", "pow"])
        if form == "unary":
            op = rng.choice(["-", "+", "~", "not "] if "float" in kinds else ["-", "+", "~"])
            inner, k = self.expr(depth - 1, ("bool", "int") if op == "~" else kinds)
            kind = "bool" if op == "not " or (op == "~" and k == "bool") else "int" if k == "bool" else k
            return f"({op}{inner})", kind
        if form == "compare" and "bool" in kinds:
            (a, _), (b, _) = self.expr(depth - 1), self.expr(depth - 1)
            return f"({a} {rng.choice(COMPARE)} {b})", "bool"
        if form == "bitwise":
            (a, ka), (b, kb) = self.expr(depth - 1, ("bool", "int")), self.expr(depth - 1, ("bool", "int"))
            return f"({a} {rng.choice(BITWISE)} {b})", "bool" if ka == kb == "bool" else "int"
        if form == "shift":
            a, _ = self.expr(depth - 1, ("int",))
            return f"({a} {rng.choice(['<<', '>>'])} {rng.randint(0, 31)})", "int"
        sub = kinds if "float" in kinds else ("bool", "int")
        (a, ka) = self.expr(depth - 1, sub)
        if form == "pow":
            n = rng.randint(-3, 40)
            if ka != "float":
                self.int_pows.append((a, n))
            return f"({a} ** {n})", "float" if ka == "float" else "int"
        op = rng.choice(ARITH[:-1])
        (b, kb) = self.expr(depth - 1, sub)
        kind = "float" if "float" in (ka, kb) or op == "/" else "int"
        if kind == "float" and "float" not in kinds:
            return self.leaf(kinds)
        return f"({a} {op} {b})", kind


def ops_sources(rng, n_vars, n_exprs):
    """The variables' types, the expressions of one seed, and each one's integer ** (base,
    exponent) pairs."""
    types = [rng.choice(SCALARS) for _ in range(n_vars)]
    gen = Ops(rng, types)
    exprs, pows = [], {}
    for _ in range(n_exprs):
        gen.int_pows = []
        e = gen.expr(3)[0]
        exprs.append(e)
        pows.setdefault(e, []).extend(gen.int_pows)
    return types, exprs, pows


def int_pow_undefined(base, signed, n):
    """Whether Numba's integer ** leaves its range for these operands, which Numba leaves to
    the target: int_power_impl squares in the base's 64-bit type (wrapping), then returns the
    result (or 1.0 / it for n < 0) through a float64, and converting a float64 past the int's
    range is LLVM's fptosi poison. CUDA's cvt.rzi saturates (what pyk2cuda's p2c_pow follows:
    (2**63 - 1) ** 25 wraps to 2**63 - 1, whose double is 2**63, INT64_MAX on the GPU); the
    CPU's cvttsd2si gives INT64_MIN, or LLVM folds the poison to anything (fuzz seeds 54, 57).
    1.0 / 0 (0 ** -n, or a power that wraps to 0) stays compared: p2c_pow's INT64_MIN there is
    the rule docs/semantics.md states, and the CPU gives it too."""
    r = 1
    for _ in range(abs(n)):
        r = (r * int(base)) % 2**64
    if signed and r >= 2**63:
        r -= 2**64
    with np.errstate(all="ignore"):
        d = np.float64(r) if n >= 0 else np.float64(1.0) / np.float64(r)
    lo, hi = (-2.0**63, 2.0**63) if signed else (0.0, 2.0**64)
    return bool(np.isfinite(d)) and not lo <= d < hi


def target_defined(types, exprs, pows, values):
    """The expressions holding an integer ** whose value Numba leaves to the target (above):
    each base is computed by numba.njit on the seed's values."""
    import numba
    sites = [(e, b, n) for e in exprs for b, n in pows.get(e, [])]
    if not sites:
        return set()
    params = ", ".join(f"v{k}" for k in range(len(types)))
    src = f"def f({params}):\n    return ({', '.join(b for _, b, _ in sites)},)\n"
    scope = {}
    exec(compile(src, "<bases>", "exec"), scope)
    f = numba.njit(error_model="numpy")(scope["f"])
    bases = f(*values)
    signed = [not str(t).startswith("uint") for t in f.nopython_signatures[0].return_type]
    return {e for (e, _, n), b, sg in zip(sites, bases, signed) if int_pow_undefined(b, sg, n)}


def njit_oracle(types, exprs, values):
    """Compiled Numba's types and values of exprs (numba.njit, error_model='numpy'); an
    expression Numba cannot type, or that raises, is dropped (and compiled alone to find it)."""
    import numba
    params = ", ".join(f"v{k}" for k in range(len(types)))

    def build(es):
        src = f"def f({params}):\n    return ({', '.join(es)},)\n"
        scope = {}
        exec(compile(src, "<ops>", "exec"), scope)
        f = numba.njit(error_model="numpy")(scope["f"])
        out = f(*values)
        return f.nopython_signatures[0].return_type, out

    # What compiled Numba refuses (TypingError) or raises (ZeroDivisionError: int 0 ** -n raises
    # in njit whatever the error model; on the CUDA target it is p2c_pow's INT64_MIN) is dropped.
    dropped = (numba.core.errors.TypingError, ZeroDivisionError)
    try:
        ty, out = build(exprs)
        return exprs, [str(t) for t in ty], list(out)
    except dropped:
        kept = []
        for e in exprs:
            try:
                build([e])
                kept.append(e)
            except dropped:
                pass
        ty, out = build(kept)
        return kept, [str(t) for t in ty], list(out)


def scalar_arg(t, v):
    """A `pyk2cuda run` scalar argument that gives exactly v (a float32 by its exact double)."""
    if t == "bool":
        return f"bool:{'true' if v else 'false'}"
    if t.startswith("float"):
        return f"{t}:{float(v)!r}"
    return f"{t}:{int(v)}"


def same_value(got, want):
    """Exact, for floats bit for bit with every NaN equal to every other."""
    if isinstance(want, (float, np.floating)):
        g, w = float(got), float(want)
        return (math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1, g) == math.copysign(1, w))
    return int(got) == int(want) if not isinstance(want, (bool, np.bool_)) else bool(got) == bool(want)


def dump_types(text, n):
    """The type of the value stored by each `o_T[K] = ...` line of the kernel in a --dump=types
    text, in statement order."""
    lines, types = text.splitlines(), []
    for i, line in enumerate(lines):
        if line.startswith("  Assign @") and i + 4 < len(lines) and lines[i + 2].strip().startswith("Var o_"):
            for j in range(i + 4, len(lines)):
                if lines[j].startswith("    ") and not lines[j].startswith("     "):
                    types.append(lines[j].rsplit(" : ", 1)[-1])
                    break
    return types[:n]


def run_ops_seed(opts, seed, work):
    rng = random.Random(f"ops:{seed}")
    types, exprs, pows = ops_sources(rng, 8, opts.exprs)
    values = [rng.choice(edge_values(t)) for t in types]
    np_values = [bool(v) if t == "bool" else np.dtype(t).type(v) for t, v in zip(types, values)]
    exprs, want_types, want = njit_oracle(types, exprs, np_values)
    unjudged = target_defined(types, exprs, pows, np_values)
    outs = sorted(set(want_types))
    slot, counts = [], {t: 0 for t in outs}
    for t in want_types:
        slot.append(counts[t])
        counts[t] += 1
    params = [f"v{k}" for k in range(len(types))] + [f"o_{t}" for t in outs]
    lines = ["from numba import cuda", "", "", "@cuda.jit", f"def k({', '.join(params)}):"]
    lines += [f"    o_{t}[{s}] = {e}" for t, s, e in zip(want_types, slot, exprs)]
    path = os.path.join(work, f"ops_{seed}.py")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    args = [scalar_arg(t, v) for t, v in zip(types, values)] + [f"zeros:{t}[{counts[t]}]" for t in outs]
    sig = f"k({', '.join(types + [f'{t}[::1]' for t in outs])})"
    where = f"ops seed {seed} ({path}; v = {', '.join(map(repr, values))})"
    r = subprocess.run([opts.pyk2cuda, "emit", path, "--sig", sig, "--dump=types"], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL {where}: pyk2cuda refused what Numba compiles: {r.stderr.strip()[:600]}")
        return 1
    failures = 0
    for k, (t, got_t) in enumerate(zip(want_types, dump_types(r.stdout, len(exprs)))):
        if got_t != t:
            print(f"FAIL {where} line {6 + k}: {exprs[k]} is {got_t} in pyk2cuda, {t} in Numba")
            failures += 1
    out_dir = os.path.join(work, f"ops_out_{seed}")
    r = subprocess.run([opts.pyk2cuda, "run", path, "k", "--grid", "1", "--block", "1", "--device", "sim",
                        "--out-dir", out_dir] + args, capture_output=True, text=True, timeout=opts.timeout)
    if r.returncode != 0:
        print(f"FAIL {where}: pyk2cuda run exited {r.returncode}: {r.stderr.strip()[-600:]}")
        return failures + 1
    got = {t: np.load(os.path.join(out_dir, f"o_{t}.npy")) for t in outs}
    for k, (t, s) in enumerate(zip(want_types, slot)):
        if exprs[k] not in unjudged and not same_value(got[t][s], want[k]):
            print(f"FAIL {where} line {6 + k}: {exprs[k]} = {got[t][s]!r} in pyk2cuda, {want[k]!r} in Numba ({t})")
            failures += 1
    for e in unjudged:
        print(f"note: ops seed {seed}: not compared, left to the target: {e}")
    aside = f" ({len(unjudged)} values left to the target: int ** past the int's range)" if unjudged else ""
    print(f"{'ok  ' if not failures else 'FAIL'} ops seed {seed}: {len(exprs)} expressions, {failures} differ{aside}")
    return failures


def seed_range(text):
    """FIRST:LAST (inclusive) or one seed N."""
    first, _, last = text.partition(":")
    return range(int(first), int(last or first) + 1)


def main():
    ap = argparse.ArgumentParser(prog="fuzz.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--kind", default="all", choices=sorted(KINDS) + ["ops", "all"])
    ap.add_argument("--seeds", default="1:5", help="FIRST:LAST, inclusive, or a list of those and seeds: 1:6,34,54")
    ap.add_argument("--kernels", type=int, default=12, help="kernels per seed")
    ap.add_argument("--exprs", type=int, default=60, help="expressions per seed (--kind ops)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per pyk2cuda run")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    opts = ap.parse_args()
    seeds = [n for part in opts.seeds.split(",") for n in seed_range(part)]
    kinds = sorted(KINDS) + ["ops"] if opts.kind == "all" else [opts.kind]
    work = tempfile.mkdtemp(prefix="pyk2cuda-fuzz-")
    failures = sum(run_ops_seed(opts, seed, work) if kind == "ops" else run_seed(opts, kind, seed, work)
                   for kind in kinds for seed in seeds)
    if failures or opts.keep:
        print(f"fuzz: the modules are in {work}")
    else:
        shutil.rmtree(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
