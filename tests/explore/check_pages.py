#!/usr/bin/env python3
"""Checks of `pyk2cuda explore` pages (docs/explore.md).

    check_pages.py data    --pyk2cuda BIN [--cases tests/golden/cases.txt]
    check_pages.py browser --pyk2cuda BIN [--chromium PATH]
    check_pages.py bench   --pyk2cuda BIN [--chromium PATH] [--kernels 1000]

`data` runs explore on the samples' golden cases (and two more) and checks each page's data
against what it was made from, each with an oracle of its own: every CUDA C line that repeats a
Python statement as a `// ` comment is linked to that statement's line; every PTX line is linked
to the C line of the `.loc` in force (read here from the PTX text); every annotated name stands
in the Python text where the page says; each kernel's registers, barriers, shared memory, stack
frame and spills equal what the toolkit's ptxas reports for the page's PTX (when ptxas is
installed); the occupancy is the smallest of its limits; the diagnostics are those the command
printed. `browser` opens pages in headless Chromium with every network request refused (a
proxy that does not exist, no name resolution) and checks the DOM the page's own script made:
for every Python line of every kernel, the C and PTX rows highlighted are exactly the linked
ones, and a PTX row selects its Python line back; the resource cells show ptxas's figures; the
page has no reference to anything outside itself. Exit 77 (skipped) without Chromium. `bench`
times a module of N kernels: the command, and Chromium's time to a drawn page.
"""
import argparse
import html.parser
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = re.compile(r'<script type="application/json" id="p2c-data">(.*?)</script>', re.S)
EXTRA_CASES = [
    ("memories", "tests/diff/cases/memories.py",
     ["-k", "const_arrays", "-k", "multidim", "--sig", "const_arrays(float32[::1], float64[:, ::1])",
      "--sig", "multidim(float64[::1], float64[:, ::1])"]),
    ("no_signature", "samples/matmul.py", []),   # an error: the page shows the diagnostics
]


def sample_cases(path):
    """The golden cases of samples/ (NAME FILE ARGS...)."""
    cases = []
    with open(path) as f:
        for line in f:
            parts = shlex.split(line, comments=True)
            if len(parts) >= 2 and parts[1].startswith("samples/"):
                cases.append((parts[0], parts[1], parts[2:]))
    return cases + EXTRA_CASES


def find_nvdisasm():
    """nvdisasm for the SASS column: $PYK2CUDA_NVDISASM, else the pinned wheel scripts/deps.sh
    --nvdisasm fetches into third_party/nvdisasm (never committed), else the toolkit's; or None."""
    wheel = os.path.join(ROOT, "third_party/nvdisasm/nvidia/cu13/bin/nvdisasm")
    for c in (os.environ.get("PYK2CUDA_NVDISASM"), wheel, shutil.which("nvdisasm"), "/usr/local/cuda/bin/nvdisasm"):
        if c and os.access(c, os.X_OK):
            return c
    return None


NVDISASM = find_nvdisasm()


def explore(pyk2cuda, file, args, out, arch="sm_90", block="256"):
    env = dict(os.environ)
    if NVDISASM:
        env["PYK2CUDA_NVDISASM"] = NVDISASM
    else:   # none: the page must say why it has no SASS
        env["PYK2CUDA_NVDISASM"] = "/nonexistent/nvdisasm"
    p = subprocess.run([pyk2cuda, "explore", file, *args, "--arch", arch, "--block", block,
                        "-o", out], capture_output=True, text=True, cwd=ROOT, env=env)
    with open(out, encoding="utf-8") as f:
        page = f.read()
    return p, page, json.loads(DATA.search(page).group(1))


# ---- the oracles ----

def ptx_loc_lines(ptx_lines, program, cuda_py):
    """C line of each PTX line, read from the .file and .loc directives (as docs/explore.md says:
    an inlined instruction's own line when it came from Python, else its call's)."""
    files = {}
    for line in ptx_lines:
        m = re.match(r'\s*\.file\s+(\d+)\s+"([^"]*)"', line)
        if m:
            files[int(m.group(1))] = m.group(2)
    # NVRTC writes a relative program name as the path the working folder makes of it
    own = [i for i, name in files.items()
           if name == program or (not program.startswith("/") and name.endswith("/" + program))]
    fid = own[0] if own else None
    out, cur = [], 0
    for line in ptx_lines:
        m = re.match(r'\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(.*)', line)
        if m:
            f, ln = int(m.group(1)), int(m.group(2))
            cur = ln if f == fid else 0
            inl = re.search(r'inlined_at\s+(\d+)\s+(\d+)', m.group(3))
            if inl and not (cur and 0 < cur <= len(cuda_py) and cuda_py[cur - 1]):
                cur = int(inl.group(2)) if int(inl.group(1)) == fid else cur
        elif line.startswith("}") or re.match(r'\s*\.(entry|visible|func)\b', line):
            cur = 0
        out.append(cur)
    return out


def sass_loc_lines(sass_lines, program, cuda_py):
    """C line of each SASS line, read from nvdisasm's `//## File "F", line N [inlined at "G", line
    M]` comments (innermost first): the first of a run's lines that came from Python, else the
    last of the program's, as docs/explore.md says; a section's banner clears it."""
    def ours(name):
        return name == program or (not program.startswith("/") and name.endswith("/" + program))

    out, cur, run, from_py = [], 0, False, False
    for line in sass_lines:
        m = re.match(r'\s*//## File "([^"]*)", line (\d+)(?: inlined at "([^"]*)", line (\d+))?', line)
        if m:
            if not run:
                cur, run, from_py = 0, True, False
            for name, ln in ((m.group(1), m.group(2)), (m.group(3), m.group(4))):
                if name is not None and ours(name) and int(ln) and not from_py:
                    cur = int(ln)
                    from_py = 0 < cur <= len(cuda_py) and bool(cuda_py[cur - 1])
        else:
            run = False
            if line.startswith("//---------------------"):
                cur = 0
        out.append(cur)
    return out


def ptxas_figures(ptx_text, arch):
    """{entry: figures} from the toolkit's ptxas -v, or None without ptxas."""
    ptxas = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
    if not ptxas:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx_text)
        p = subprocess.run([ptxas, "-v", "--gpu-name", arch, src, "-o", os.path.join(tmp, "k.cubin")],
                           capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    got, cur, props = {}, None, None
    for line in p.stderr.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            cur = got.setdefault(m.group(1), {"barriers": 0, "shared": 0})
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            props = m.group(1)
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and cur is not None and props in got and got[props] is cur:
            cur["stack"], cur["spill_stores"], cur["spill_loads"] = map(int, m.groups())
        m = re.search(r"Used (\d+) registers", line)
        if m and cur is not None:
            cur["registers"] = int(m.group(1))
            b = re.search(r"used (\d+) barriers", line)
            s = re.search(r"(\d+) bytes smem", line)
            cur["barriers"] = int(b.group(1)) if b else 0
            cur["shared"] = int(s.group(1)) if s else 0
    return got


def check_page(name, d, stderr, arch, failures):
    def fail(msg):
        failures.append("%s: %s" % (name, msg))

    py, cu, ptx = d["python"], d["cuda"], d["ptx"]
    # the diagnostics are those the command printed
    printed = re.findall(r"^.*?:(\d+):(\d+): (error|warning|note): .* \[([\w-]+)\]$", stderr, re.M)
    shown = [(str(x["line"]), str(x["column"]), x["severity"], x["code"]) for x in d["diagnostics"]]
    if printed != shown:
        fail("diagnostics %s, the command printed %s" % (shown, printed))
    if not cu:
        if d["kernels"]:
            fail("kernels without CUDA C")
        return
    if len(d["cuda_py"]) != len(cu) or len(d["ptx_cuda"]) != len(ptx):
        fail("line maps of the wrong length")
    # every `// statement` comment of the C is linked to that statement's Python line
    comments = 0
    for i, line in enumerate(cu):
        m = re.match(r"\s*// (.*)$", line)
        p = d["cuda_py"][i]
        if m and p:
            comments += 1
            want = " ".join(py[p - 1].split())
            if not want.startswith(" ".join(m.group(1).split())[:40].rstrip("\\")[:30]):
                fail("C line %d %r is linked to Python line %d %r" % (i + 1, line, p, py[p - 1]))
    if d["kernels"] and not comments:
        fail("no C line linked to Python")
    # every PTX line is linked to the .loc's C line
    want = ptx_loc_lines(ptx, d["file"] + ".cu", d["cuda_py"])
    if want != d["ptx_cuda"]:
        diff = [(j + 1, a, b) for j, (a, b) in enumerate(zip(d["ptx_cuda"], want)) if a != b][:5]
        fail("PTX lines linked otherwise than their .loc: (line, page, .loc) %s" % diff)
    if ptx and not any(d["ptx_cuda"]):
        fail("no PTX line is linked to the CUDA C")
    check_sass(d, fail)
    figures = ptxas_figures("\n".join(ptx) + "\n", arch) if ptx else None
    for k in d["kernels"]:
        check_kernel(k, d, figures, fail)


def check_sass(d, fail):
    """The SASS column: with nvdisasm, every line linked to the C line its line comments name and
    each kernel's range at its section; without it, none and the page says why."""
    sass = d["sass"]
    if not NVDISASM or not d["ptx"]:
        if sass or (d["ptx"] and "nvdisasm was not found" not in (d["sass_error"] or "")):
            fail("without nvdisasm: SASS %d lines, reason %r" % (len(sass), d["sass_error"]))
        return
    if not sass:
        fail("no SASS with nvdisasm at %s: %s" % (NVDISASM, d["sass_error"]))
        return
    want = sass_loc_lines(sass, d["file"] + ".cu", d["cuda_py"])
    if len(d["sass_cuda"]) != len(sass) or want != d["sass_cuda"]:
        diff = [(j + 1, a, b) for j, (a, b) in enumerate(zip(d["sass_cuda"], want)) if a != b][:5]
        fail("SASS lines linked otherwise than their line comments: (line, page, comment) %s" % diff)
    linked = [c for c in d["sass_cuda"] if c]
    if not any(d["cuda_py"][c - 1] for c in linked):
        fail("no SASS line is linked to a C line from Python")
    for k in d["kernels"]:
        if not any(re.match(r"//-+ \.text\.%s\s" % re.escape(k["symbol"]), sass[a - 1]) for a, _ in k["sass_ranges"]):
            fail("%s: no SASS range starts at its section" % k["name"])


def check_kernel(k, d, figures, fail):
    py, cu, ptx = d["python"], d["cuda"], d["ptx"]
    first, last = k["cuda_ranges"][0] if k["cuda_ranges"] else (0, 0)
    if not any("__global__" in cu[a - 1] and k["symbol"] + "(" in cu[a - 1] for a, _ in k["cuda_ranges"]):
        fail("%s: no C range starts at its __global__ function" % k["name"])
    if ptx and not any((".entry " + k["symbol"] + "(") in ptx[a - 1] for a, _ in k["ptx_ranges"]):
        fail("%s: no PTX range starts at its .entry" % k["name"])
    for line, col, name, ty in k["names"]:
        text = "".join(list(py[line - 1])[col - 1:])
        ident = re.match(r"\w+", text)
        if not ident or unicodedata.normalize("NFKC", ident.group(0)) != name or not ty:
            fail("%s: name %r (%s) is not at %d:%d (%r)" % (k["name"], name, ty, line, col, text[:20]))
    r, o = k["resources"], k["occupancy"]
    if figures is not None:
        want = figures.get(k["symbol"])
        got = {key: r[key] for key in ("registers", "barriers", "shared", "stack", "spill_stores", "spill_loads")}
        if want != got:
            fail("%s: resources %s, ptxas %s" % (k["name"], got, want))
    if o:
        limits = [v for v in o["limits"].values() if v is not None]
        if o["blocks_per_sm"] != min(limits) or abs(o["fraction"] - o["warps_per_sm"] / o["max_warps_per_sm"]) > 1e-6:
            fail("%s: occupancy %s is not its smallest limit" % (k["name"], o))
    elif d["arch"] in ("sm_80", "sm_90"):
        fail("%s: no occupancy" % k["name"])


def cmd_data(a):
    failures, pages = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, file, args in sample_cases(a.cases):
            for arch in ("sm_90", "sm_80") if name == "matmul" else ("sm_90",):
                p, page, d = explore(a.pyk2cuda, file, args, os.path.join(tmp, name + ".html"), arch)
                pages += 1
                expect = 1 if name == "no_signature" else 0
                if p.returncode != expect:
                    failures.append("%s: exit %d, expected %d: %s" % (name, p.returncode, expect, p.stderr))
                check_page(name, d, p.stderr, arch, failures)
                if name == "no_signature" and (d["kernels"] or not d["diagnostics"]):
                    failures.append("no_signature: expected the diagnostics and no kernel")
        for file, kernel in SANITIZE_CASES:
            found, run, view, page, d = sanitize_page(a.pyk2cuda, file, kernel, tmp)
            pages += 1
            check_sanitize_data("%s %s --sanitize" % (file, kernel), found, run, view, d, failures)
        failures += usage_errors(a.pyk2cuda, tmp)
    for f in failures:
        print("FAIL", f)
    print("SASS column checked with %s" % NVDISASM if NVDISASM else
          "no nvdisasm: the SASS column not checked, only its absence (bash scripts/deps.sh --nvdisasm)")
    print("%d pages, %d failures" % (pages, len(failures)))
    return 1 if failures else 0


# ---- explore --sanitize: the checker's findings on the page ----

# Kernels of the sanitizer's corpus (tests/sanitize) with known findings, every kind among them:
# a divergent barrier and a shared-memory race (barrier.py), global-memory races (histogram.py),
# an uninitialized read of dynamic shared memory (uninit.py), a warp operation with missing lanes
# (warp.py). Each is launched as its `# sanitize-run:` line says.
SANITIZE_CASES = [("tests/sanitize/barrier.py", "buggy"), ("tests/sanitize/histogram.py", "buggy"),
                  ("tests/sanitize/uninit.py", "buggy_dynamic"), ("tests/sanitize/warp.py", "buggy")]
FINDING = re.compile(r"(.*?):(\d+):(\d+): error: (.*) \(kernel '(\w+)'\)$")


def sanitize_run_args(file, kernel):
    with open(os.path.join(ROOT, file), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"# sanitize-run: (\S+) (.*)", line)
            if m and m.group(1) == kernel:
                return m.group(2).split()
    raise ValueError("no sanitize-run line for %s in %s" % (kernel, file))


def sanitize_page(pyk2cuda, file, kernel, tmp):
    """`run --sanitize` and `explore --sanitize` of one corpus kernel: the findings run printed
    (file, line, column, message, kernel, the other access's line and column or None), both
    processes, and the page with its data."""
    args = [file, kernel, "--sanitize", *sanitize_run_args(file, kernel)]
    run = subprocess.run([pyk2cuda, "run", *args, "--out-dir", os.path.join(tmp, "out")], capture_output=True,
                         text=True, cwd=ROOT)
    out = os.path.join(tmp, kernel + "-sanitize.html")
    env = dict(os.environ, PYK2CUDA_NVDISASM=NVDISASM or "/nonexistent/nvdisasm")
    view = subprocess.run([pyk2cuda, "explore", *args, "-o", out], capture_output=True, text=True, cwd=ROOT, env=env)
    found = []
    for line in run.stderr.splitlines():
        m = FINDING.match(line)
        if m:
            other = re.search(re.escape(m.group(1)) + r":(\d+):(\d+) by", m.group(4))
            found.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5),
                          (int(other.group(1)), int(other.group(2))) if other else None))
    with open(out, encoding="utf-8") as f:
        page = f.read()
    return found, run, view, page, json.loads(DATA.search(page).group(1))


def check_sanitize_data(name, found, run, view, d, failures):
    """The page's findings are those `run --sanitize` printed, at the same positions, with the
    same words; the command says what run says and exits as it does; the page has the kernel's
    PTX (it is translated again without the checker) and the launch's block size."""
    def fail(msg):
        failures.append("%s: %s" % (name, msg))

    if not found or run.returncode != 3:
        fail("run --sanitize found %d findings, exit %d (expected some, and 3)" % (len(found), run.returncode))
    if view.returncode != run.returncode or view.stderr != run.stderr:
        fail("explore --sanitize said %r (exit %d), run said %r (exit %d)" % (
            view.stderr, view.returncode, run.stderr, run.returncode))
    got = [(d["file"], f["line"], f["column"], f["message"], f["kernel"],
            (f["other_line"], f["other_column"]) if f["other_line"] else None) for f in d["findings"]]
    if got != found:
        fail("the page's findings %s, run's %s" % (got, found))
    if not d["ptx"] or not d["kernels"]:
        fail("the page has no PTX or no kernel: %s" % d["ptx_error"])


# Appended to a copy of a page with findings: the rows under each Python line (finding and other
# rows), the flagged Python and C rows, and the findings pane's lines.
SANITIZE_PROBE = r"""
<script>
(function () {
  const out = { ready: document.body.dataset.ready, under: [], flagged: {}, pane: [] };
  for (const f of document.querySelectorAll("#py .finding")) {
    let r = f.previousElementSibling; while (r && !r.classList.contains("ln")) r = r.previousElementSibling;
    out.under.push([r ? +r.dataset.line : 0, f.classList.contains("other"), f.textContent]);
  }
  for (const p of ["py", "cu"]) out.flagged[p] = [...document.querySelectorAll("#" + p + " .ln.flagged")].map((r) => +r.dataset.line);
  out.pane = [...document.querySelectorAll("#findings div")].map((x) => x.textContent);
  const pre = document.createElement("pre"); pre.id = "p2c-test"; pre.textContent = JSON.stringify(out);
  document.body.append(pre);
})();
</script>
"""


def check_sanitize_dom(name, found, d, record, failures):
    """Each finding stands under its Python line with run's words, a race's other access under
    its line; the flagged Python rows are exactly the findings' lines, the flagged C rows exactly
    those made from them; the findings pane lists run's lines."""
    def fail(msg):
        failures.append("%s: %s" % (name, msg))

    if not record or record["ready"] != "1":
        fail("the page's script did not run to the end")
        return
    k = d["kernels"][0]
    shown_py = {n for a, b in k["python_ranges"] for n in range(a, b + 1)}
    shown_cu = {n for a, b in k["cuda_ranges"] for n in range(a, b + 1)}
    want_under, lines = [], set()
    for file, line, col, msg, kernel, other in found:
        want_under.append([line, False, "\u2191 sanitize [%s] col %d: %s (kernel '%s')" % (
            next(f["kind"] for f in d["findings"] if f["line"] == line and f["column"] == col), col, msg, kernel)])
        lines.add(line)
        if other and other[0] != line:
            want_under.append([other[0], True, None])
            lines.add(other[0])
    got_under = [[n, o, None if o else t] for n, o, t in record["under"]]
    if sorted(got_under, key=str) != sorted(want_under, key=str):
        fail("the rows under the Python lines are %s, expected %s" % (record["under"], want_under))
    if sorted(record["flagged"]["py"]) != sorted(lines & shown_py):
        fail("flagged Python lines %s, expected %s" % (record["flagged"]["py"], sorted(lines & shown_py)))
    want_cu = sorted({i + 1 for i, p in enumerate(d["cuda_py"]) if p in lines} & shown_cu)
    if sorted(record["flagged"]["cu"]) != want_cu:
        fail("flagged C lines %s, expected %s" % (record["flagged"]["cu"], want_cu))
    want_pane = ["%s:%d:%d: error: %s (kernel '%s')" % f[:5] for f in found]
    if record["pane"] != want_pane:
        fail("the findings pane lists %s, expected %s" % (record["pane"], want_pane))


def usage_errors(pyk2cuda, tmp):
    """Usage errors: exit 2 and a message naming the option."""
    out = []
    smooth = os.path.join(ROOT, "samples/smooth.py")
    for args, words in ((["--block", "0"], "--block"), (["--block", "x"], "--block"), (["--arch", "gfx90"], "architecture"),
                        ([], "-o"), (["--shared", "-1"], "--shared")):
        o = [] if not args and words == "-o" else ["-o", os.path.join(tmp, "u.html")]
        p = subprocess.run([pyk2cuda, "explore", smooth, "--sig", "smooth_gpu(int32[:, ::1], int32[:, ::1])", *args, *o],
                           capture_output=True, text=True)
        if p.returncode != 2 or words not in p.stderr:
            out.append("explore %s: exit %d, %r (expected 2 and a message naming %s)" % (args, p.returncode, p.stderr, words))
    return out


# ---- the browser ----

class Rows(html.parser.HTMLParser):
    """The test's record (a <pre id="p2c-test">) and the page's references to other resources."""

    def __init__(self):
        super().__init__()
        self.record, self.refs, self._in = None, [], False

    def handle_starttag(self, tag, attrs):
        at = dict(attrs)
        for key in ("src", "href", "action", "poster", "data"):
            if at.get(key) and not at[key].startswith("#"):
                self.refs.append((tag, key, at[key]))
        if tag == "link":
            self.refs.append((tag, "link", at.get("href")))
        self._in = at.get("id") == "p2c-test"

    def handle_data(self, data):
        if self._in:
            self.record = (self.record or "") + data

    def handle_endtag(self, tag):
        self._in = False


# Appended to a copy of the page: for every kernel, select each Python line and record which rows
# the page's script marked in each pane; select each PTX line with a C line and record the Python
# row selected back; read the resource cells. The record goes into <pre id="p2c-test">.
PROBE = r"""
<script>
(function () {
  const out = { ready: document.body.dataset.ready, ms: performance.now(), kernels: [] };
  const marked = (pane) => [...document.querySelectorAll("#" + pane + " .ln.sel, #" + pane + " .ln.linked")].map((r) => +r.dataset.line);
  const limit = +(new URLSearchParams(location.hash.slice(1)).get("probe") || 1e9);
  D.kernels.slice(0, limit).forEach((k, i) => {
    show(i);
    const rec = { py: {}, back: {}, cells: {} };
    for (const r of document.querySelectorAll("#py .ln[data-line]")) {
      const n = +r.dataset.line; select("py", n, true);
      rec.py[n] = { cu: marked("cu"), ptx: marked("ptx"), sass: marked("sass") };
    }
    for (const r of document.querySelectorAll("#ptx .ln[data-line]")) {
      const j = +r.dataset.line; if (!D.ptx_cuda[j - 1]) continue;
      select("ptx", j, true); rec.back[j] = marked("py");
    }
    rec.sass_back = {}; rec.sass_shown = !document.getElementById("sasspane").hidden;
    for (const r of document.querySelectorAll("#sass .ln[data-line]")) {
      const j = +r.dataset.line; if (!D.sass_cuda[j - 1]) continue;
      select("sass", j, true); rec.sass_back[j] = { py: marked("py"), ptx: marked("ptx") };
    }
    for (const c of document.querySelectorAll("#summary td[id]")) rec.cells[c.id] = c.textContent;
    out.kernels.push(rec);
  });
  const pre = document.createElement("pre"); pre.id = "p2c-test"; pre.textContent = JSON.stringify(out);
  document.body.append(pre);
})();
</script>
"""


def find_chromium(given):
    for c in ([given] if given else []) + ["chromium", "chromium-browser", "google-chrome"]:
        path = shutil.which(c) if c else None
        if path:
            return path
    return None


def dom_of(chromium, path, fragment=""):
    """The DOM after the page's scripts ran, with no network: every request goes to a proxy that
    is not there and no name resolves."""
    with tempfile.TemporaryDirectory() as profile:
        p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile,
                            "--proxy-server=http://127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
                            "--virtual-time-budget=5000", "--dump-dom", "file://" + path + fragment],
                           capture_output=True, text=True, timeout=120)
    rows = Rows()
    rows.feed(p.stdout)
    return rows


def probe(chromium, page, tmp, name, fragment=""):
    path = os.path.join(tmp, name + ".probe.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(page.replace("</body>", PROBE + "</body>"))
    rows = dom_of(chromium, path, fragment)
    return rows, json.loads(rows.record) if rows.record else None


def check_dom(name, page, d, record, refs, arch, failures):
    def fail(msg):
        failures.append("%s: %s" % (name, msg))

    if refs:
        fail("the page refers to other resources: %s" % refs[:5])
    if re.search(r"@import|url\(\s*['\"]?(https?:|//)", page.split('id="p2c-data"')[0]):
        fail("the page's style loads something")
    if not record or record["ready"] != "1":
        fail("the page's script did not run to the end with the network off")
        return
    figures = ptxas_figures("\n".join(d["ptx"]) + "\n", arch) if d["ptx"] else None
    for k, rec in zip(d["kernels"], record["kernels"]):
        shown_cu = {n for a, b in k["cuda_ranges"] for n in range(a, b + 1)}
        shown_ptx = {n for a, b in k["ptx_ranges"] for n in range(a, b + 1)}
        shown_sass = {n for a, b in k["sass_ranges"] for n in range(a, b + 1)}
        if rec["sass_shown"] != bool(d["sass"]):
            fail("%s: the SASS column is %s with %d lines of SASS" % (
                k["name"], "shown" if rec["sass_shown"] else "hidden", len(d["sass"])))
        for n, got in rec["py"].items():
            n = int(n)
            cu_all = {i + 1 for i, p in enumerate(d["cuda_py"]) if p == n}
            want_cu = sorted(cu_all & shown_cu)
            want_ptx = sorted({j + 1 for j, c in enumerate(d["ptx_cuda"]) if c in cu_all} & shown_ptx)
            if sorted(got["cu"]) != want_cu or sorted(got["ptx"]) != want_ptx:
                fail("%s: Python line %d highlights C %s and PTX %s, expected C %s and PTX %s" % (
                    k["name"], n, got["cu"], got["ptx"], want_cu, want_ptx))
            want_sass = sorted({j + 1 for j, c in enumerate(d["sass_cuda"]) if c in cu_all} & shown_sass)
            if sorted(got["sass"]) != want_sass:
                fail("%s: Python line %d highlights SASS %s, expected %s" % (k["name"], n, got["sass"], want_sass))
        for j, got in rec["sass_back"].items():
            c = d["sass_cuda"][int(j) - 1]
            p = d["cuda_py"][c - 1]
            want_ptx = sorted({i + 1 for i, x in enumerate(d["ptx_cuda"]) if x == c} & shown_ptx)
            if got["py"] != ([p] if p else []) or sorted(got["ptx"]) != want_ptx:
                fail("%s: SASS line %s selects Python %s and PTX %s, expected %s and %s" % (
                    k["name"], j, got["py"], got["ptx"], p, want_ptx))
        for j, got in rec["back"].items():
            p = d["cuda_py"][d["ptx_cuda"][int(j) - 1] - 1]
            if got != ([p] if p else []):
                fail("%s: PTX line %s selects Python %s, expected %s" % (k["name"], j, got, p))
        if figures is not None:
            want = figures[k["symbol"]]
            if rec["cells"].get("res-registers") != str(want["registers"]) or \
                    rec["cells"].get("res-shared") != "%d B" % want["shared"]:
                fail("%s: the page shows %s, ptxas %s" % (k["name"], rec["cells"], want))
        if not any(rec["py"][n]["cu"] for n in rec["py"]):
            fail("%s: no Python line is linked to C" % k["name"])


def cmd_browser(a):
    chromium = find_chromium(a.chromium)
    if not chromium:
        print("no chromium: skipped (apt install chromium; docs/explore.md)")
        return 77
    failures, pages = [], 0
    cases = [c for c in sample_cases(a.cases) if c[0] in ("smooth", "matmul", "great_circle", "normalize", "memories")]
    with tempfile.TemporaryDirectory() as tmp:
        for name, file, args in cases:
            p, page, d = explore(a.pyk2cuda, file, args, os.path.join(tmp, name + ".html"))
            rows, record = probe(chromium, page, tmp, name)
            pages += 1
            check_dom(name, page, d, record, rows.refs, "sm_90", failures)
            if record:
                print("%s: %d kernels, %d Python lines and %d SASS lines checked" % (
                    name, len(record["kernels"]), sum(len(r["py"]) for r in record["kernels"]),
                    sum(len(r["sass_back"]) for r in record["kernels"])))
        for file, kernel in SANITIZE_CASES[:2]:
            found, run, view, page, d = sanitize_page(a.pyk2cuda, file, kernel, tmp)
            path = os.path.join(tmp, kernel + ".sanitize-probe.html")
            with open(path, "w", encoding="utf-8") as f:
                f.write(page.replace("</body>", SANITIZE_PROBE + "</body>"))
            rows = dom_of(chromium, path)
            pages += 1
            record = json.loads(rows.record) if rows.record else None
            check_sanitize_dom("%s %s --sanitize" % (file, kernel), found, d, record, failures)
            if rows.refs:
                failures.append("%s: the page refers to other resources: %s" % (file, rows.refs[:5]))
            print("%s %s --sanitize: %d findings checked in the DOM" % (file, kernel, len(found)))
    for f in failures:
        print("FAIL", f)
    print("%d pages in Chromium, %d failures" % (pages, len(failures)))
    return 1 if failures else 0


def thousand_kernels(n):
    parts = ["from numba import cuda, float32, int64\n"]
    for i in range(n):
        parts.append('\n@cuda.jit("void(float32[::1], float32[::1], int64)")\n'
                     "def k%d(x, out, m):\n"
                     "    i = cuda.grid(1)\n"
                     "    if i < x.size:\n"
                     "        out[i] = x[i] * %d.0 + float32(m %% %d)\n" % (i, i + 1, i + 2))
    return "".join(parts)


def cpu_seconds(cmd, env=None):
    """Runs cmd; its wall seconds and its CPU seconds (user + sys of the child), and the process."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), p


# Appended to a copy of the bench's page: the time to the drawn page (the page's script has run:
# the data parsed, the kernel of the address drawn), and no more (PROBE's selection of every line
# measures the probe, not the page).
DRAWN_PROBE = r"""
<script>
(function () {
  const pre = document.createElement("pre"); pre.id = "p2c-test";
  pre.textContent = JSON.stringify({ ready: document.body.dataset.ready, ms: performance.now(), sass: D.sass.length });
  document.body.append(pre);
})();
</script>
"""


def cmd_bench(a):
    """The module of N kernels: explore with SASS (nvdisasm found) and without, CPU and wall
    seconds; NVRTC's CUBIN alone and nvdisasm alone on it; the page's size and Chromium's time to
    the drawn page (the last kernel shown)."""
    chromium = find_chromium(a.chromium)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "many.py")
        with open(src, "w") as f:
            f.write(thousand_kernels(a.kernels))
        out, plain = os.path.join(tmp, "many.html"), os.path.join(tmp, "plain.html")
        env = dict(os.environ, PYK2CUDA_NVDISASM=NVDISASM or "/nonexistent/nvdisasm")
        wall, cpu, p = cpu_seconds([a.pyk2cuda, "explore", src, "-o", out], env)
        assert p.returncode == 0, p.stderr
        print("%d kernels: explore %.2f s wall, %.2f s CPU, %s; page %.1f MB" % (
            a.kernels, wall, cpu, "with SASS (%s)" % NVDISASM if NVDISASM else "no nvdisasm: no SASS",
            os.path.getsize(out) / 1e6))
        wall, cpu, p = cpu_seconds([a.pyk2cuda, "explore", src, "-o", plain],
                                   dict(os.environ, PYK2CUDA_NVDISASM="/nonexistent/nvdisasm"))
        print("  without SASS: %.2f s wall, %.2f s CPU; page %.1f MB" % (wall, cpu, os.path.getsize(plain) / 1e6))
        cubin = os.path.join(tmp, "many.cubin")
        wall, cpu, p = cpu_seconds([a.pyk2cuda, "ptx", src, "--no-cache", "--cubin", "-o", cubin])
        print("  the module's CUBIN alone (pyk2cuda ptx --cubin --no-cache): %.2f s wall, %.2f s CPU" % (wall, cpu))
        if NVDISASM:
            wall, cpu, p = cpu_seconds([NVDISASM, "-c", "-gi", cubin])
            print("  nvdisasm -c -gi on it, once for the module: %.2f s wall, %.2f s CPU, %.1f MB of SASS" % (
                wall, cpu, len(p.stdout) / 1e6))
        if chromium:
            for name, path in (("with SASS", out), ("without SASS", plain)):
                with open(path, encoding="utf-8") as f:
                    page = f.read()
                drawn = os.path.join(tmp, "many.drawn.html")
                with open(drawn, "w", encoding="utf-8") as f:
                    f.write(page.replace("</body>", DRAWN_PROBE + "</body>"))
                t = time.perf_counter()
                record = json.loads(dom_of(chromium, drawn, "#k=%d" % (a.kernels - 1)).record)
                wall = time.perf_counter() - t
                print("  Chromium, page %s: the last kernel drawn %.0f ms after the page started (%.2f s with "
                      "Chromium's start)" % (name, record["ms"], wall))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["data", "browser", "bench"])
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--chromium")
    ap.add_argument("--cases", default=os.path.join(ROOT, "tests/golden/cases.txt"))
    ap.add_argument("--kernels", type=int, default=1000)
    a = ap.parse_args()
    a.pyk2cuda = os.path.abspath(a.pyk2cuda)
    return {"data": cmd_data, "browser": cmd_browser, "bench": cmd_bench}[a.mode](a)


if __name__ == "__main__":
    sys.exit(main())
