"""Random tuple comparisons and memberships (docs/semantics.md, "Tuples"), compiled as one kernel
and checked against Python's own evaluation of the same expressions: nested tuples of ints and
floats of different lengths, every comparison operator, `in` and `not in`. Seeded: the same
expressions every run."""
import random

import numpy as np

import pyk2cuda

OPS = ["==", "!=", "<", "<=", ">", ">="]


def atom(rng, kind=None):
    kind = kind or rng.choice(["int", "float"])
    if kind == "int":
        return rng.choice(["x[0]", "x[1]", "x[2]", str(rng.randint(-2, 2))])
    return rng.choice(["%.1f" % rng.choice([-1.0, 0.5, 2.0]), "float(x[%d])" % rng.randint(0, 2)])


def flat(rng, n, kind=None):
    return "(" + "".join(atom(rng, kind) + ", " for _ in range(n)) + ")"


def nested(rng):
    """Two tuples of one shape: an inner tuple at the same place in both (Numba compares tuples
    with tuples and numbers with numbers only)."""
    inner = rng.randint(0, 2)
    a, b = [atom(rng), flat(rng, inner)], [atom(rng), flat(rng, inner)]
    return "(%s, %s)" % tuple(a), "(%s, %s)" % tuple(b)


def expressions(seed, count):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        kind = rng.random()
        if kind < 0.5:
            out.append("%s %s %s" % (flat(rng, rng.randint(0, 3)), rng.choice(OPS), flat(rng, rng.randint(0, 3))))
        elif kind < 0.7:
            a, b = nested(rng)
            out.append("%s %s %s" % (a, rng.choice(OPS), b))
        else:
            elem = rng.choice(["int", "float"])
            out.append("%s %s %s" % (atom(rng), rng.choice(["in", "not in"]), flat(rng, rng.randint(0, 4), elem)))
    return out


def test_random_tuple_comparisons_match_python(tmp_path):
    exprs = expressions(20261127, 120)
    body = "".join("    out[%d] = %s\n" % (i, e) for i, e in enumerate(exprs))
    src = tmp_path / "tuple_cmp.py"
    src.write_text("from pyk2cuda import cuda\n\n\n@cuda.jit\ndef k(x, out):\n" + body)
    ns = {}
    exec(compile(src.read_text(), str(src), "exec"), ns)
    for x in ([0, 1, 2], [-1, -1, 0], [2, -2, 1]):
        xs = np.array(x, np.int64)
        out = np.zeros(len(exprs), np.bool_)
        ns["k"][1, 1](xs, out)
        want = [eval(e, {"x": [int(v) for v in x]}) for e in exprs]
        bad = [(e, bool(g)) for e, g, w in zip(exprs, out, want) if bool(g) != w]
        assert not bad, bad[:5]
