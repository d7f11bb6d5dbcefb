"""python3 -m pyk2cuda SCRIPT.py [ARGS...]: runs a script written for numba.cuda as it is, with
`numba`, `numba.cuda`, `numba.types` and the numba.core and numba.np modules scripts import
(numba_names.py) answered by pyk2cuda (the translator reads both spellings). python3 -m pyk2cuda --info: what this machine offers."""
import runpy
import sys

from pyk2cuda import cuda, numba_names, types


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    if argv[1] == "--info":
        cuda.detect()
        return 0
    sys.modules["numba"] = numba_names.numba_module()
    sys.modules["numba.cuda"] = cuda
    sys.modules["numba.types"] = types
    for name, module in cuda.SUBMODULES.items():   # numba.cuda.args, .devicearray, .random
        sys.modules["numba.cuda." + name] = module
    sys.modules.update(numba_names.MODULES)        # numba.core.errors, numba.np.numpy_support
    sys.argv = argv[1:]
    runpy.run_path(argv[1], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
