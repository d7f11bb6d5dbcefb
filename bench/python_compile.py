#!/usr/bin/env python3
"""bench/python_compile.py: what the Python package spends on a kernel before its first launch,
now that it compiles function objects (docs/python.md, "How a function becomes a kernel").

  PYTHONPATH=build/python python3 bench/python_compile.py

Prints medians over 21 rounds, in milliseconds, for each kernel of tests/python/kernels.py that
has a signature:
  build       source.build(): the function's source, its free names resolved, the synthetic
              module written (Python only)
  translate   the C API's translation of that synthetic module for the kernel's signature
              (cuda.jit(sig)(f): p2c_translate, no compile)
  whole file  the same translation of the kernel's whole module file, as the package translated
              it before (each specialization and each vectorize call translates again, so this
              is the cost per specialization then and now)."""
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
ROUNDS = 21


def median_ms(fn):
    fn()
    times = []
    for _ in range(ROUNDS):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def main():
    import kernels as K
    from pyk2cuda import cuda, source
    with open(K.__file__, "rb") as f:
        whole = f.read()
    print("| kernel | build | translate | whole file |")
    print("|---|---|---|---|")
    for name in sorted(dir(K)):
        k = getattr(K, name)
        if not isinstance(k, cuda.Kernel) or not k.signatures:
            continue
        f, sig = k.py_func, k.signatures[0]
        call = source.call_signature(f.__name__, sig)
        params = k._params
        unit = source.build(f)
        build = median_ms(lambda: source.build(f))
        ours = median_ms(lambda: cuda.Kernel(f, f.__name__, unit.filename, unit.source, params,
                                             True, [call], False))
        file = median_ms(lambda: cuda.Kernel(f, f.__name__, K.__file__, whole, params, True,
                                             [call], False))
        print("| %s | %.2f | %.2f | %.2f |" % (name, build, ours, file))


if __name__ == "__main__":
    main()
