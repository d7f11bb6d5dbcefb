#!/usr/bin/python3
"""A stand-in for `pyk2cuda run` that runs a kernel compiled by Numba, on the CPU.

    /usr/bin/python3 tests/diff/run_diff.py --pyk2cuda tests/diff/njit_standin.py

checks the oracle (Numba's CUDA simulator, which executes Python with NumPy scalar
types) against compiled Numba's typing: every kernel of the case file is rewritten into
an @njit function taking the thread coordinates (threadIdx, blockIdx, blockDim, gridDim)
as int32 parameters, like the CUDA target types them, and called once per thread, block
after block. Numba's operator typing (int32 * int32 -> int64, bool + bool -> int64,
uint64 + int64 -> int64, float32 ** int -> float32, ...) is shared by its CPU and CUDA
targets, so where the simulator and compiled Numba disagree, this shows it.

Limits: kernels using shared memory or cuda.syncthreads() cannot run thread by thread;
the stand-in exits 77 for them (run_diff reports SKIP). Math functions are the CPU's
(libm), not CUDA's libdevice. It is a tool for people writing cases, not a test of
pyk2cuda.

Usage (the `pyk2cuda run` contract):
    njit_standin.py run FILE.py KERNEL [--device sim] --grid X[,Y[,Z]] --block X[,Y[,Z]]
                    [--out-dir DIR] ARG...
Exit: 0 ok, 1 Numba could not compile the kernel, 2 usage, 3 the kernel raised, 77 skip.
"""

import ast
import inspect
import itertools
import math
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import oracle  # noqa: E402  (ARG parsing; sets NUMBA_ENABLE_CUDASIM, harmless for njit)

import numpy as np  # noqa: E402
import numba  # noqa: E402
from numba import njit  # noqa: E402
from numba.extending import overload  # noqa: E402

EXIT_SKIP = 77
COORDS = ["_tx", "_ty", "_tz", "_bx", "_by", "_bz", "_dx", "_dy", "_dz", "_gx", "_gy", "_gz"]
REGISTERS = {"threadIdx": "_t", "blockIdx": "_b", "blockDim": "_d", "gridDim": "_g"}

# numba 0.56's CPU target lacks some math functions that its CUDA target has: add them.
def _cpu_has(func, *args):
    try:
        njit(func)(*args)
        return True
    except Exception:  # noqa: BLE001
        return False


if not _cpu_has(lambda x: math.log2(x), 2.0):
    @overload(math.log2)
    def _log2(x):
        return lambda x: np.log2(x)

if not _cpu_has(lambda x, y: math.fmod(x, y), 2.0, 3.0):
    @overload(math.fmod)
    def _fmod(x, y):
        return lambda x, y: np.fmod(x, y)


class Unsupported(Exception):
    pass


def _is_cuda_attr(node, *names):
    """node is cuda.<names[0]>.<names[1]>..."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return isinstance(node, ast.Name) and node.id == "cuda" and tuple(reversed(parts)) == names


def _expr(text):
    return ast.parse(text, mode="eval").body


class ToNjit(ast.NodeTransformer):
    def __init__(self):
        self.unsupported = {}     # function name -> reason
        self._reason = None

    def visit_FunctionDef(self, node):
        outer, self._reason = self._reason, None
        try:
            return self._function(node)
        finally:
            self._reason = outer

    def _function(self, node):
        kernel = False
        decorators = []
        for d in node.decorator_list:
            if _is_cuda_attr(d, "jit"):
                kernel = True
                decorators.append(ast.Name("_njit", ast.Load()))
            elif isinstance(d, ast.Call) and _is_cuda_attr(d.func, "jit"):
                device = any(k.arg == "device" and isinstance(k.value, ast.Constant)
                             and k.value.value is True for k in d.keywords)
                if not device or d.args:
                    raise Unsupported(f"{node.name}: decorator not supported by the stand-in")
                decorators.append(ast.Name("_njit", ast.Load()))
            else:
                decorators.append(d)
        node.decorator_list = decorators
        if kernel:
            node.args.args = [ast.arg(c) for c in COORDS] + node.args.args
        self.generic_visit(node)
        if self._reason:
            # leave a plain, empty Python function: main() skips it if it is asked for
            self.unsupported[node.name] = self._reason
            node.decorator_list = []
            node.body = [ast.Pass()]
        return node

    def visit_Attribute(self, node):
        for reg, prefix in REGISTERS.items():
            for axis in "xyz":
                if _is_cuda_attr(node, reg, axis):
                    return ast.copy_location(ast.Name(prefix + axis, ast.Load()), node)
        if _is_cuda_attr(node, "syncthreads") or _is_cuda_attr(node, "shared", "array"):
            self._reason = "shared memory and cuda.syncthreads() need real threads"
        self.generic_visit(node)
        return node

    def visit_Call(self, node):
        if (_is_cuda_attr(node.func, "grid") or _is_cuda_attr(node.func, "gridsize")) and \
                len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
            n = node.args[0].value
            axes = "xyz"[:n]
            if _is_cuda_attr(node.func, "grid"):
                items = [f"(_b{a} * _d{a} + _t{a})" for a in axes]
            else:
                items = [f"(_d{a} * _g{a})" for a in axes]
            text = items[0] if n == 1 else "(" + ", ".join(items) + ")"
            return ast.copy_location(_expr(text), node)
        self.generic_visit(node)
        return node


def load_njit_module(path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    transformer = ToNjit()
    tree = ast.fix_missing_locations(transformer.visit(tree))
    namespace = {"__name__": "_njit_standin_case", "__file__": path,
                 "_njit": njit(boundscheck=True)}
    exec(compile(tree, path, "exec"), namespace)
    return namespace, transformer.unsupported


def parse_run_args(argv):
    if not argv or argv[0] != "run":
        raise oracle.ArgError("only the `run` command is supported")
    opts = {"--device": "sim", "--out-dir": "."}
    positional = []
    i = 1
    while i < len(argv):
        tok = argv[i]
        if tok in ("--device", "--grid", "--block", "--out-dir"):
            if i + 1 >= len(argv):
                raise oracle.ArgError(f"{tok} needs a value")
            opts[tok] = argv[i + 1]
            i += 2
            continue
        if tok.startswith("--"):
            raise oracle.ArgError(f"unsupported option {tok}")
        positional.append(tok)
        i += 1
    if len(positional) < 2 or "--grid" not in opts or "--block" not in opts:
        raise oracle.ArgError("want run FILE KERNEL --grid G --block B ARG...")
    return opts, positional[0], positional[1], positional[2:]


def main(argv):
    if "--check-bounds" in argv:   # bounds checking is pyk2cuda's own; njit has nothing to say
        print("njit_standin: skipped: --check-bounds", file=sys.stderr)
        return EXIT_SKIP
    try:
        opts, path, kernel_name, arg_texts = parse_run_args(argv)
        grid = (oracle.parse_dims(opts["--grid"], "grid") + (1, 1))[:3]
        block = (oracle.parse_dims(opts["--block"], "block") + (1, 1))[:3]
        values = [oracle.parse_arg(a) for a in arg_texts]
    except oracle.ArgError as exc:
        print(f"njit_standin: error: {exc}", file=sys.stderr)
        return oracle.EXIT_USAGE
    try:
        namespace, unsupported = load_njit_module(path)
    except Unsupported as exc:
        print(f"njit_standin: skipped: {exc}", file=sys.stderr)
        return EXIT_SKIP
    if kernel_name in unsupported:
        print(f"njit_standin: skipped: {kernel_name}: {unsupported[kernel_name]}", file=sys.stderr)
        return EXIT_SKIP
    kernel = namespace.get(kernel_name)
    if kernel is None or not hasattr(kernel, "py_func"):
        print(f"njit_standin: error: no kernel {kernel_name}", file=sys.stderr)
        return oracle.EXIT_USAGE
    names = list(inspect.signature(kernel.py_func).parameters)[len(COORDS):]
    if len(names) != len(values):
        print(f"njit_standin: error: {kernel_name} takes {len(names)} arguments", file=sys.stderr)
        return oracle.EXIT_USAGE
    i32 = np.int32
    dims = [i32(d) for d in block + grid]
    try:
        for bz, by, bx in itertools.product(range(grid[2]), range(grid[1]), range(grid[0])):
            for tz, ty, tx in itertools.product(range(block[2]), range(block[1]),
                                                range(block[0])):
                kernel(i32(tx), i32(ty), i32(tz), i32(bx), i32(by), i32(bz), *dims, *values)
    except numba.core.errors.TypingError:
        traceback.print_exc()
        return oracle.EXIT_USER_PYTHON
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        return oracle.EXIT_RUNTIME
    os.makedirs(opts["--out-dir"], exist_ok=True)
    for name, value in zip(names, values):
        if isinstance(value, np.ndarray):
            np.save(os.path.join(opts["--out-dir"], name + ".npy"), value, allow_pickle=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
