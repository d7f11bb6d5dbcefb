"""One kernel (undecorated: the test applies cuda.jit) that calls every function of numba.cuda.libdevice, written from the package's table
(pyk2cuda.cuda.libdevicefuncs, which the build writes from src/builtins/libdevice.def), for
test_libdevice.py: NVRTC compiles and links it (every libdevice function found), the simulator
runs it (every host version there, with the types the calls use).

Arguments: out_d, out_f, out_i, out_l (2-D: a row per result value of each type, in table
order), then the inputs, 1-D of one length: three float64 (x, y, z: a function's first, second
and third float64 arguments), three float32, three int32, two int64, one int16 (float16 bits)
and one int32 of small numbers (the order n of jn and yn, whose cost grows with n)."""
from pyk2cuda.cuda import libdevicefuncs

INPUTS = {"d": ["xd", "yd", "zd"], "f": ["xf", "yf", "zf"], "i": ["xi", "yi", "zi"],
          "l": ["xl", "yl"], "h": ["xh"]}
PARAMS = ["od", "of", "oi", "ol", "xd", "yd", "zd", "xf", "yf", "zf", "xi", "yi", "zi", "xl", "yl",
          "xh", "xn"]
# where each result type's values go (int16 results, float2half_rn's bits, into the int32 rows)
OUT = {"d": "od", "f": "of", "i": "oi", "h": "oi", "l": "ol"}
LETTER = {"float64": "d", "float32": "f", "int32": "i", "int16": "h", "int64": "l"}


def plan():
    """[(name, [argument array per parameter], [(output array, row) per result value])] for
    every function, and the number of rows of each output array."""
    rows = {"od": 0, "of": 0, "oi": 0, "ol": 0}
    out = []
    for cname, (retty, args) in sorted(libdevicefuncs.functions.items()):
        name = cname[5:]
        sig = libdevicefuncs.create_signature(retty, args)
        used = {k: 0 for k in INPUTS}
        inputs = []
        for a in sig.args:
            letter = LETTER[str(a)]
            if name in ("jn", "jnf", "yn", "ynf") and letter == "i":
                inputs.append("xn")
                continue
            inputs.append(INPUTS[letter][used[letter]])
            used[letter] += 1
        results = list(sig.return_type) if hasattr(sig.return_type, "count") else [sig.return_type]
        places = []
        for r in results:
            arr = OUT[LETTER[str(r)]]
            places.append((arr, rows[arr]))
            rows[arr] += 1
        out.append((name, inputs, places))
    return out, rows


def source():
    """The module's text."""
    calls, _ = plan()
    lines = ["from pyk2cuda import cuda", "from pyk2cuda.cuda import libdevice", "", "",
             "def every(%s):" % ", ".join(PARAMS), "    j = cuda.grid(1)",
             "    if j < xd.shape[0]:"]
    for name, inputs, places in calls:
        call = "libdevice.%s(%s)" % (name, ", ".join("%s[j]" % a for a in inputs))
        if len(places) == 1:
            lines.append("        %s[%d, j] = %s" % (places[0] + (call,)))
        else:
            lines.append("        r = %s" % call)
            lines += ["        %s[%d, j] = r[%d]" % (arr, row, k) for k, (arr, row) in enumerate(places)]
    return "\n".join(lines) + "\n"
