"""The cases of benchmarks/odd_inputs.py, generated from a fixed seed.

A case is a dict: `id`, `how` (cli, api, plugin: run in a forked process;
exec: a fresh interpreter), `argv` or `code`, `bad` (True where no reading
of the input can be right: it must be refused, before the driver), `outputs`
(fixture files the case may rewrite), `files` (extra files, written into the
case's folder first, as text, as a record mutation or as a results history
holding records), `env`/`unset`, `stdout`, `nobody` (run as an unprivileged
user), `flags` (for the API: the CLI's words its messages must not use),
`at_start` (plugin: refused at session start), `secret` (text no output of
the case may show)."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261202
RESULTS = ROOT / "results"
H200 = ROOT / "tests" / "records" / "h200"  # the tests' copies of H200 records

SAXPY = r'''
from graphbench.spec import Pipeline, Stage, buffer, count, scalar

SOURCE = r"""
extern "C" __global__ void saxpy(const float* x, const float* y0, float* y, float a, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) y[i] = a * x[i] + y0[i];
}
extern "C" __global__ void scale(const float* y, float* z, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) z[i] = y[i] * 0.5f;
}
"""

def reference(inputs, n):
    return {"z": (2.0 * inputs["x"] + inputs["y0"]) * 0.5}

def pipeline():
    n = count("n")
    return Pipeline(name=NAME, source=SRC, reference=REF, rtol=RTOL, atol=1e-6,
                    buffers=BUFFERS, stages=STAGES, description=DESC)
'''
SAXPY_FIELDS = {
    "NAME": '"saxpy"', "SRC": "SOURCE", "REF": "reference", "RTOL": "1e-5", "DESC": '""',
    "BUFFERS": '[buffer("x", role="input"), buffer("y0", role="input"), buffer("y"), '
               'buffer("z")]',
    "STAGES": '[Stage("saxpy", args=("x", "y0", "y", scalar(2.0), n)), '
              'Stage("scale", args=("y", "z", n))]',
}
DOUBLE = '''
import cupy
from graphbench.callables import CallablePipeline, array

def scale(bufs):
    cupy.multiply(bufs["x"], 2.0, out=bufs["y"])

def reference(inputs, n):
    return {"y": inputs["x"].astype(cupy.float64) * 2}

def pipeline():
    return CallablePipeline(name=NAME, framework=FRAMEWORK, stages=STAGES, reference=REF,
                            arrays=ARRAYS, rtol=RTOL)
'''
DOUBLE_FIELDS = {"NAME": '"double"', "FRAMEWORK": '"cupy"', "STAGES": "[scale]",
                 "REF": "reference", "RTOL": "1e-5",
                 "ARRAYS": '[array("x", ("n",), role="input"), array("y", ("n",))]'}
TEST_FILE = "def test_it(graphbench):\n    graphbench.run(BODY)\n"


def another_programs_database() -> bytes:
    """A SQLite database that is not a graphbench history: no command may change it."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, what TEXT)")
    db.execute("INSERT INTO orders (what) VALUES ('kept')")
    db.commit()
    data = db.serialize()
    db.close()
    return data


def fill(template: str, fields: dict, **changes: str) -> str:
    text = template
    for key, value in {**fields, **changes}.items():
        text = text.replace(key, value, 1) if key != "SRC" else text.replace("source=SRC",
                                                                            f"source={value}")
    return text


FIXTURES = {
    "base.json": RESULTS / "gate/baseline.json", "cur.json": RESULTS / "gate/same_1.json",
    "ab.json": RESULTS / "ab/identical_4096.json",
    "sweep.json": H200 / "bad_inputs/interrupted_sweep.json",
    "v1.json": H200 / "v1/default_4096.json",
    "keep.txt": "precious: must survive\n", "ro.txt": "read-only\n",
    "k.cu": ROOT / "kernels/pipeline.cu", "empty.cu": "", "bad.cu": "garbage\n",
    "pipe.py": fill(SAXPY, SAXPY_FIELDS), "call.py": fill(DOUBLE, DOUBLE_FIELDS),
    "test_gb.py": TEST_FILE.replace("BODY", '"pipe.py", modes="individual,graph"'),
    "sub/.keep": "",
    "app.db": another_programs_database(), "empty.db": "",
}
RECORDS = ("base.json", "cur.json", "ab.json", "sweep.json", "v1.json")

# values no option reads as right, and values some option may
NEVER = ["", " ", "nan", "inf", "-inf", "1e400", ",", ",,", "%", "%%", "\n",
         "\x1b[2J", "a" * 5000, "None", "1/0", "\u2026", "\x7f", "0x", "\t", "'4096'", "--",
         "[]", "{}", "-nan", "1e309%", "\u202e4096", "4096\x00"[:-1] + "\x01"]
MAYBE = ["4096\n", "0", "-0", "-1", "1", "0.5", "+5", "1e6", "2^20", " 4096", "4096 ", "1_000",
         "\uff11\uff12", "\u0663", "all", "auto", "2^-1", "1e-400", "0.0001%", "100%",
         "4096,4096", "2^12..2^10", "2^12..2^14:x0", "1..5:+0", "9" * 30, "-5/sm", "sm_90",
         "individual", "graph,graph", "add,,mul", "x", "2^31", "2^63", "1e-5", "5s", "0.5ms",
         "2^10..2^12:x2", "per-element", "8/sm", "1056", "0,1", "0,0", "speedup:5%",
         "graph.wall:10%@2^20", "individual.busy:-1%", "graph.wall:10%,graph.wall:5%"]
VALUE_OPTIONS = {
    "run": ["--elements", "--iters", "--rounds", "--depth", "--modes", "--unroll", "--warmup",
            "--stages", "--max-noise", "--min-rounds", "--max-time", "--device", "--seed",
            "--gate-sizes", "--grid", "--block", "--processes", "--fail-on"],
    "sweep": ["--elements", "--depth", "--threshold", "--grid", "--block", "--iters", "--modes",
              "--unroll", "--stages", "--max-noise", "--min-rounds", "--max-time", "--device",
              "--seed"],
    "compare": ["--fail-on"], "kernels": ["--arch"],
    "replay": ["--elements", "--repeats", "--seed"],
}
FLAGS = {"run": ["--flush-l2", "--no-pin", "--attribute", "--verbose", "--profile", "--quiet",
                 "--no-progress"], "sweep": ["--flush-l2", "--no-pin", "--quiet"],
         "report": ["--verbose", "--quiet"], "compare": ["--quiet"], "kernels": ["--quiet"],
         "replay": ["--quiet", "--verbose"]}
OUT_OPTIONS = {"run": ["--json", "--csv", "--markdown", "--timeline"],
               "sweep": ["--json", "--csv", "--markdown", "--plot"],
               "report": ["--json", "--csv", "--markdown", "--plot", "--timeline"],
               "compare": ["--json", "--csv", "--markdown"], "replay": ["--json"]}
IN_OPTIONS = {"run": ["--pipeline", "--kernel-source", "--ab", "--baseline"],
              "sweep": ["--pipeline", "--kernel-source"],
              "kernels": ["--pipeline", "--kernel-source"], "replay": ["--pipeline"]}
BASE_ARGS = {"run": ["--iters", "2", "--rounds", "2"], "sweep": ["--elements", "4096"],
             "report": ["cur.json"], "kernels": [], "replay": ["--pipeline", "cupy_chain"],
             "compare": ["base.json", "cur.json", "--fail-on", "individual.busy:50%"]}  # passes
# (path, bad as an output, bad as an input)
PATHS = [("", True, True), (".", True, True), ("..", True, True), ("sub", True, True),
         ("sub/", True, True), ("missing/x.json", None, True), ("/proc/version", True, True),
         ("/dev/full", None, True), ("/dev/null", None, True), ("fifo", None, True),
         ("sock", True, True), ("keep.txt", None, True), ("ro.txt", None, True),
         ("link", None, True), ("dangling", None, True), ("-", None, None),
         ("/dev/stdout", None, True), ("/dev/stderr", None, True), ("a\nb.json", None, True),
         ("x\x1b[2J.json", None, True), ("n" * 300 + ".json", True, True), ("/", True, True),
         ("rodir/x.json", None, True), ("/sys/kernel/x", True, True), ("~/x.json", None, True),
         ("x.txt", None, True), ("/dev/zero", None, True), ("/dev/urandom", None, True),
         ("/dev/stdin", None, True), ("/proc/self/mem", True, True), ("rodir", True, True),
         ("open/new.json", None, None), ("new.svg", None, True), ("new.png", None, True),
         ("base.json", None, None), ("x" * 5000, True, True), (" ", None, True),
         ("new.json ", None, True), ("/tmp", True, True), ("keep.txt/x", True, True)]
# fixture files an output of that name may rewrite (a link is written through)
WRITES = {"keep.txt": ["keep.txt"], "ro.txt": ["ro.txt"], "link": ["link", "keep.txt"],
          "base.json": ["base.json"]}
CLI_FLAGS = sorted({o for group in (VALUE_OPTIONS, IN_OPTIONS) for opts in group.values()
                    for o in opts} | {"--ab", "--kernel-source", "--fail-on", "--processes"})


def case(id_: str, how: str, **fields) -> dict:
    return {"id": id_, "how": how, **fields}


def cli_option_cases() -> list[dict]:
    cases = []
    for command, options in VALUE_OPTIONS.items():
        for option in options:
            for i, value in enumerate(NEVER + MAYBE):
                bad = True if value in NEVER else None
                base = BASE_ARGS[command] if command != "compare" else ["base.json", "cur.json"]
                argv = [command, *base, f"{option}={value}"]
                cases.append(case(f"cli/{command}{option}/{i}", "cli", argv=argv, bad=bad))
    for command, flags in FLAGS.items():
        for flag in flags:
            for j, argv in enumerate(([f"{flag}=1"], [flag, flag], [f"{flag}="])):
                cases.append(case(f"cli/{command}{flag}/flag{j}", "cli",
                                  argv=[command, *BASE_ARGS[command], *argv],
                                  bad=j != 1 or None))
    return cases


def cli_path_cases() -> list[dict]:
    cases = []
    for command, options in OUT_OPTIONS.items():
        for option in options:
            for i, (path, bad_out, _) in enumerate(PATHS):
                inputs = set(BASE_ARGS[command])
                bad = True if bad_out or path in inputs else None
                outputs = WRITES.get(path, [])
                cases.append(case(f"cli/{command}{option}/path{i}", "cli", bad=bad,
                                  argv=[command, *BASE_ARGS[command], option, path],
                                  outputs=outputs if not bad else [],
                                  fifo_reader=path == "fifo"))
    for command, options in IN_OPTIONS.items():
        for option in options:
            for i, (path, _, bad_in) in enumerate(PATHS):
                cases.append(case(f"cli/{command}{option}/path{i}", "cli",
                                  argv=[command, *BASE_ARGS[command], option, path],
                                  bad=bad_in and path not in ("base.json",) or None))
    for command in ("report", "compare"):
        for i, (path, _, bad_in) in enumerate(PATHS):
            argv = ["report", path] if command == "report" else ["compare", path, "cur.json"]
            cases.append(case(f"cli/{command}/positional{i}", "cli", argv=argv,
                              bad=bad_in or None))
            if command == "compare":
                cases.append(case(f"cli/compare/current{i}", "cli", bad=bad_in or None,
                                  argv=["compare", "base.json", path]))
    return cases


def cli_combination_cases(rng: random.Random) -> list[dict]:
    """Two outputs on one file, an output that is an input, odd counts of
    positionals, random mixes of odd values."""
    fixed = [["run", "--json", "a.json", "--csv", "a.json"],
             ["run", "--json", "base.json", "--baseline", "base.json"],
             ["run", "--kernel-source", "k.cu", "--ab", "k.cu", "--json", "k.cu"],
             ["report"], ["compare"], ["compare", "base.json"], ["compare", "a", "b", "c"],
             ["report", "cur.json", "--json", "cur.json"], ["report", "cur.json", "sweep.json",
                                                              "--json", "x.json"],
             ["compare", "base.json", "cur.json", "--json", "base.json"],
             ["compare", "ab.json", "--markdown", "ab.json"], ["sweep", "--plot", "-"],
             ["report", "cur.json", "--plot", "x.svg"], ["kernels", "--arch", "sm_90",
                                                         "--pipeline", "call.py"],
             ["run", "--rounds", "5", "--max-noise", "1%"], ["--version", "x"], ["bogus"],
             ["run", "--", "x"], ["", "run"], ["run", "--dev", "0"], ["RUN"], ["-h", "run"]]
    # help and version end the parse, as argparse's; --dev is --device abbreviated; a run
    # record's rounds are charted
    valid = (["-h", "run"], ["--version", "x"], ["run", "--dev", "0"],
             ["report", "cur.json", "--plot", "x.svg"])
    cases = [case(f"cli/combo/{i}", "cli", argv=argv, bad=None if argv in valid else True)
             for i, argv in enumerate(fixed)]
    options = [(c, o) for c, opts in VALUE_OPTIONS.items() for o in opts]
    for i in range(300):
        command, option = rng.choice(options)
        _, other = rng.choice([p for p in options if p[0] == command])
        argv = [command, *BASE_ARGS[command], option, rng.choice(NEVER), other,
                rng.choice(MAYBE)]
        cases.append(case(f"cli/mix/{i}", "cli", argv=argv, bad=True))
    return cases


# odd but right, or wrong only in a way nothing before the GPU can see: a long
# name, a name with a backslash, a multi-line description, rtol -0.0, an int
# size, a bool dtype, a buffer of n**3, block 33, a PDL kernel the source
# lacks (PDL rungs are left out), a reference of the wrong signature (run
# before timing), a BOM, a print, a Latin-1 comment, an extra parameter, a
# shape given as "n"
VALID_FILES = {"kernel-name-3", "kernel-name-4", "kernel-desc-0", "kernel-desc-3",
               "kernel-rtol-6", "kernel-buffers-12", "kernel-buffers-17", "kernel-buffers-22",
               "kernel-stages-10", "kernel-stages-14", "kernel-ref-3", "kernel-ref-4",
               "file-bom", "file-prints", "file-latin1", "file-depth-kw", "callable-arrays-6"}


def pipeline_mutations() -> list[tuple[str, str, bool | None]]:
    """(name, file text, bad) for odd kernel and callable pipeline files."""
    out = []
    odd = {"NAME": ['""', "5", "None", '"x" * 1000', '"a\\nb"', '"\\x1b[2J"', '"\\u202e"'],
           "SRC": ['""', "None", "5", 'b"x"', '"garbage"', 'SOURCE.replace("saxpy", "saxpx")',
                   'SOURCE.replace("float a", "float a, int q")', '"\\x00"', "SOURCE * 2"],
           "REF": ["None", "5", '"reference"', "lambda: 1", "print"],
           "RTOL": ['-1', 'float("nan")', '"x"', "None", "1e400", "True", "-0.0"],
           "DESC": ['"a\\nb"', "5", '"\\x1b[31m"', '"x" * 100000'],
           "BUFFERS": ["[]", "None", "5", '[buffer("x", role="input")]',
                       '[buffer("x", role="input"), buffer("x", role="input"), buffer("y"), '
                       'buffer("z")]',
                       '[buffer("x", role="bogus"), buffer("y0", role="input"), buffer("y"), '
                       'buffer("z")]'] + [
                           f'[buffer("x", role="input", {field}), buffer("y0", role="input"), '
                           f'buffer("y"), buffer("z")]'
                           for field in ('size="-1"', 'size="n/0"', 'size="n**100"',
                                         'size="0"', 'size="1e30"', 'size=""', "size=5",
                                         'size="__import__(\'os\')"', 'dtype="float128"',
                                         'dtype="foo"', "dtype=None", 'dtype="bool"',
                                         "low=5, high=1", 'low=float("nan")', 'low="x"',
                                         "high=1e400", 'size="n*n*n"', 'size="2**40"')],
           "STAGES": ["[]", "None", "5", '[Stage("nope", args=())]',
                      '[Stage("saxpy", args=("x", "y0", "y", n)), Stage("scale", '
                      'args=("y", "z", n))]'] + [
                          f'[Stage("saxpy", args=("x", "y0", "y", scalar(2.0), n), {field}), '
                          'Stage("scale", args=("y", "z", n))]'
                          for field in ("grid=0", "grid=-1", 'grid="abc"', "block=0",
                                        "block=2048", "block=33", "block=None", 'work="n/0"',
                                        "grid=(1, 2, 3, 4)", 'pdl_kernel="nope"',
                                        "shared_bytes=-1", "shared_bytes=10**9", "grid=2**40",
                                        "block=1.5", 'grid="n*n*n"')] + [
                          f'[Stage("saxpy", args=("x", "y0", "y", {arg}, n)), '
                          'Stage("scale", args=("y", "z", n))]'
                          for arg in ('scalar("x")', "scalar(1e400)", 'scalar(2.0, "foo")',
                                      '"nope"', "5", "None", 'count("n/0")', 'count("-n")',
                                      'count("n", "foo")', 'scalar(float("nan"))')]}
    for field, values in odd.items():
        for i, value in enumerate(values):
            name = f"kernel-{field.lower()}-{i}"
            out.append((name, fill(SAXPY, SAXPY_FIELDS, **{field: value}),
                        None if name in VALID_FILES else True))
    whole = {"syntax": "def pipeline(:\n", "empty": "", "no-function": "x = 1\n",
             "returns-none": "def pipeline():\n    return None\n",
             "raises": "def pipeline():\n    raise RuntimeError('boom')\n",
             "exits": "import sys\ndef pipeline():\n    sys.exit(3)\n",
             "hard-exit": "import os\nos._exit(0)\n", "import-error": "import nonexistent_mod\n",
             "kbd": "raise KeyboardInterrupt\n", "bom": "\ufeff" + fill(SAXPY, SAXPY_FIELDS),
             "prints": "print('hello')\n" + fill(SAXPY, SAXPY_FIELDS),
             "takes-args": "def pipeline(a, b):\n    return 1\n",
             "not-callable": "pipeline = 5\n", "recursion": "def pipeline():\n"
             "    return pipeline()\n", "latin1": "# \xe9\n" + fill(SAXPY, SAXPY_FIELDS),
             "memory": "def pipeline():\n    raise MemoryError\n",
             "base-exc": "def pipeline():\n    raise SystemExit('x')\n",
             "string": "def pipeline():\n    return 'softmax'\n",
             "depth-kw": fill(SAXPY, SAXPY_FIELDS).replace("def pipeline():",
                                                           "def pipeline(depth=1, x=2):")}
    out += [(f"file-{k}", v, None if f"file-{k}" in VALID_FILES else True)
            for k, v in whole.items()]
    odd_call = {"FRAMEWORK": ['"jax"', '""', "None", '"CUPY"', '"torch"'],
                "STAGES": ["[]", "None", "[5]", "[print]", "scale", "[lambda: None]"],
                "ARRAYS": ["[]", '[array("x", ("n",), role="input")]',
                           '[array("x", ("n",), role="input"), array("y", ("-1",))]',
                           '[array("x", (), role="input"), array("y", ("n",))]',
                           '[array("x", ("n",), role="input"), array("y", ("n",), dtype="q")]',
                           '[array("x", ("n",), role="input"), array("x", ("n",))]',
                           '[array("x", "n", role="input"), array("y", ("n",))]',
                           '[array("x", ("n/0",), role="input"), array("y", ("n",))]'],
                "REF": ["None", "5"], "RTOL": ['"x"', "-1"], "NAME": ['""', "7"]}
    for field, values in odd_call.items():
        for i, value in enumerate(values):
            name = f"callable-{field.lower()}-{i}"
            out.append((name, fill(DOUBLE, DOUBLE_FIELDS, **{field: value}),
                        None if name in VALID_FILES else True))
    return out


def pipeline_cases() -> list[dict]:
    cases = []
    for name, text, bad in pipeline_mutations():
        files = {"p.py": text}
        flags = ["--pipeline"]
        cases += [case(f"pipeline/{name}/run", "cli", files=files, bad=bad,
                       argv=["run", "--pipeline", "p.py", "--modes", "individual,graph"]),
                  case(f"pipeline/{name}/sweep", "cli", files=files, bad=bad,
                       argv=["sweep", "--pipeline", "p.py", "--elements", "4096", "--depth", "1"]),
                  case(f"pipeline/{name}/api", "api", files=files, bad=bad, flags=flags,
                       code='graphbench.run("p.py", modes="individual,graph")')]
        if "callable" not in name:
            cases.append(case(f"pipeline/{name}/kernels", "cli", files=files, bad=bad,
                              argv=["kernels", "--pipeline", "p.py"]))
    return cases


def record_mutations(rng: random.Random) -> list[tuple[str, dict]]:
    """(name, how to make the file) for odd record files."""
    ops = [("truncate", {"at": rng.random()}) for _ in range(12)]
    ops += [("bytes", {"text": t}) for t in (
        "", " ", "null", "[]", "{}", "5", '"x"', "\ufeff{}", "\xff\xfe", "{" * 100000,
        "[" * 100000 + "]" * 100000, '{"schema": "graphbench/run"}', "NaN",
        '{"schema": "graphbench/run", "schema_version": 3}', "\x00" * 100)]
    for version in (0, 1, 2, 4, 99, -1, "3", None, 3.0, True, 10 ** 30, [3]):
        ops.append(("set", {"path": ["schema_version"], "value": version}))
    for schema in ("graphbench/sweep", "graphbench/compare", "", None, 5, "graphbench/run\n"):
        ops.append(("set", {"path": ["schema"], "value": schema}))
    values = [None, -1, 0, 1e308, -1e308, "x", [], {}, "\x1b[31mred", True, "NaN",
              10 ** 400, "a" * 100000, [[[[[]]]]], 2 ** 64, -0.0, "\n"]
    for i in range(140):
        ops.append(("random", {"seed": rng.randrange(2 ** 32), "value": rng.choice(values),
                               "action": rng.choice(["set", "set", "del", "rename", "dup"])}))
    return [(f"{op}-{i}", {"op": op, **params}) for i, (op, params) in enumerate(ops)]


def record_cases(rng: random.Random) -> list[dict]:
    cases = []
    for name, mutation in record_mutations(rng):
        source = rng.choice(("cur.json", "base.json", "ab.json", "sweep.json", "v1.json"))
        files = {"m.json": {"mutate": source, **mutation}}
        cases += [case(f"record/{name}/report", "cli", files=files, argv=["report", "m.json"]),
                  case(f"record/{name}/compare", "cli", files=files,
                       argv=["compare", "m.json", "cur.json"]),
                  case(f"record/{name}/report-json", "cli", files=files,
                       argv=["report", "m.json", "--json", "out.json"], outputs=[]),
                  case(f"record/{name}/load", "api", files=files, flags=CLI_FLAGS,
                       code='graphbench.summarize(graphbench.load("m.json"))'),
                  case(f"record/{name}/api-compare", "api", files=files, flags=CLI_FLAGS,
                       code='graphbench.compare("base.json", "m.json")')]
    return cases


def mutate(box: Path, spec: dict) -> bytes:
    """The bytes of a mutated record file."""
    text = (box / spec["mutate"]).read_bytes()
    op = spec["op"]
    if op == "truncate":
        return text[: int(len(text) * spec["at"])]
    if op == "bytes":
        return spec["text"].encode("utf-8", "surrogatepass")
    doc = json.loads(text)
    if op == "set":
        set_path(doc, spec["path"], spec["value"])
        return dump(doc)
    rng = random.Random(spec["seed"])
    parent, key = random_spot(doc, rng)
    action = spec["action"]
    if action == "set":
        parent[key] = spec["value"]
    elif action == "del":
        del parent[key]
    elif action == "rename" and isinstance(parent, dict):
        parent[f"{key}_x"] = parent.pop(key)
    elif action == "dup":
        return dump(doc).replace(b"{", b'{"schema": 5, ', 1)
    return dump(doc)


def dump(doc) -> bytes:
    return json.dumps(doc, allow_nan=True).encode()


def set_path(doc, path, value) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def random_spot(doc, rng: random.Random):
    parent, key = doc, rng.choice(list(doc))
    for _ in range(rng.randrange(1, 8)):
        child = parent[key]
        if isinstance(child, dict) and child:
            parent, key = child, rng.choice(list(child))
        elif isinstance(child, list) and child:
            parent, key = child, rng.randrange(len(child))
        else:
            break
    return parent, key


API_VALUES = ["None", "True", "-1", "0", "1.5", '""', '"x"', "[]", "{}", "object()",
              'float("nan")', 'float("inf")', "10 ** 400", 'b"bytes"', '__import__("pathlib").'
              'Path("x")', '("a",)', "2 ** 63", '"1e400"', '"\\n"', '"-1"', "[1, 2]", "-0.0"]
API_NEVER = {'""', "{}", "object()", 'float("nan")', "10 ** 400", 'b"bytes"', '"\\n"',
             '"1e400"'}


def api_cases() -> list[dict]:
    from_settings = ["elements", "iters", "rounds", "depth", "modes", "unroll", "warmup_rounds",
                     "stages", "max_noise", "min_rounds", "max_time", "flush_l2", "device",
                     "seed", "kernel_source", "pin_cpu", "ab_source", "attribute", "grid",
                     "block", "processes", "gate_sizes"]
    cases = []
    for name in from_settings:
        for i, value in enumerate(API_VALUES):
            bad = True if value in API_NEVER else None
            cases.append(case(f"api/run/{name}/{i}", "api", bad=bad, flags=CLI_FLAGS,
                              code=f"graphbench.run({name}={value})"))
    for i, value in enumerate(API_VALUES + ['"softmax "', '"missing.py"', '"keep.txt"',
                                            '"sub"', "5", '"fifo"', '"/dev/zero"']):
        cases.append(case(f"api/run/pipeline/{i}", "api", flags=CLI_FLAGS,
                          bad=None if value in ("None", '__import__("pathlib").Path("x")') else True,
                          code=f"graphbench.run({value})"))
    for i, (path, _, bad_in) in enumerate(PATHS):
        for source in ("kernel_source", "ab_source"):
            cases.append(case(f"api/run/{source}-path/{i}", "api", flags=CLI_FLAGS,
                              bad=bad_in or None, code=f"graphbench.run({source}={path!r})"))
        cases.append(case(f"api/load/path{i}", "api", bad=bad_in or None, flags=CLI_FLAGS,
                          code=f"graphbench.load({path!r})"))
        cases.append(case(f"api/save/path{i}", "api", flags=CLI_FLAGS,
                          outputs=WRITES.get(path, []),
                          fifo_reader=path == "fifo",
                          bad=True if path in ("", ".", "sub", "/proc/version") else None,
                          code=f"graphbench.save({path!r}, graphbench.load('cur.json'))"))
    for i, value in enumerate(API_VALUES):
        for what, code in (("load", "graphbench.load(V)"), ("summarize", "graphbench.summarize(V)"),
                           ("compare-base", "graphbench.compare(V, 'cur.json')"),
                           ("compare-cur", "graphbench.compare('base.json', V)"),
                           ("save-record", "graphbench.save('new.json', V)"),
                           ("fail_on", "graphbench.compare('base.json', 'cur.json', fail_on=V)"),
                           ("fail_on-list", "graphbench.compare('base.json', 'cur.json', "
                                            "fail_on=['speedup:5%', V])")):
            cases.append(case(f"api/{what}/{i}", "api", flags=CLI_FLAGS,
                              bad=None if value == "None" else True,
                              code=code.replace("V", value)))
    return cases + api_spec_cases()


def api_spec_cases() -> list[dict]:
    specs = ["graph.wall:10%", "graph.wall:10%,graph.wall:5%", "nope:5%", "graph.wall",
             "graph.wall:-5%", "graph.wall:nan%", "graph.wall:1e400%", "graph.wall:10%@0",
             "graph.wall:10%@2^99", ":", "speedup:5%@x", "graph.wall:5%@2^20@2^20",
             "graph.wall:10 %", "GRAPH.WALL:10%"]
    replaced = ["device=None", "runs=()", "config=None", "pipeline=5", "gate_points=None",
                "runs=5", "device=5"]
    cases = []
    for i, spec in enumerate(specs):
        for j, code in enumerate(("graphbench.compare('base.json', 'cur.json', fail_on={s!r})",
                                  "graphbench.compare('base.json', 'cur.json', "
                                  "fail_on=[{s!r}, {s!r}])",
                                  "graphbench.run(fail_on={s!r})")):
            cases.append(case(f"api/spec/{i}/{j}", "api", flags=CLI_FLAGS, bad=None,
                              code=code.format(s=spec)))
    for i, change in enumerate(replaced):
        record = f"__import__('dataclasses').replace(graphbench.load('cur.json'), {change})"
        for k, what in enumerate(("save('new.json', R)", "summarize(R)",
                                  "compare('base.json', R)", "compare(R, 'cur.json')",
                                  "save('keep.txt', R)")):
            cases.append(case(f"api/record-object/{i}/{k}", "api", flags=CLI_FLAGS,
                              bad=True, code=f"graphbench.{what.replace('R', record)}"))
    kw = ["graphbench.run(rtol=1)", "graphbench.run(bogus=1)", "graphbench.run(None, None)",
          "graphbench.run(json='x.json')", "graphbench.compare()", "graphbench.load()",
          "graphbench.save('x.json')", "graphbench.run(processes=3, gate_sizes='2^20,2^20')",
          "graphbench.run(rounds=5, max_noise=0.01)", "graphbench.run(kernel_source='k.cu', "
          "ab_source='empty.cu')", "graphbench.run(ab_source='bad.cu')",
          "graphbench.run(kernel_source='empty.cu')", "graphbench.run('call.py', grid=5)",
          "graphbench.run(modes='fused', stages='add')", "graphbench.run(elements='2^40')"]
    cases += [case(f"api/misc/{i}", "api", flags=CLI_FLAGS, bad=True, code=c,
                   python_error="TypeError" if i in (2, 4, 5, 6) else None)  # Python's own
              for i, c in enumerate(kw)]
    return cases


PLUGIN_VALUES = ["", " ", "\n", "x\x1b[2J", "sub", "missing", "keep.txt", "keep.txt/x",
                 "/proc/version", "rodir", "/dev/null", "fifo", "sock", ".", "a" * 5000, "-",
                 "0", "-1", "1001", "nan", "3", "1e3", "2^2", "\uff13"]


def plugin_cases() -> list[dict]:
    cases = []
    for i, value in enumerate(PLUGIN_VALUES):
        for option in ("--graphbench-save", "--graphbench-compare", "--graphbench-processes"):
            argv = [f"{option}={value}"]
            if option == "--graphbench-processes":
                cases.append(case(f"plugin/processes-alone/{i}", "plugin", bad=True,
                                  at_start=True, argv=argv))
                argv = ["--graphbench-save=open", *argv]
            bad = value not in ("open", "3", "sub", ".", "1e3", "2^2", "0" * 0 + "-") or None
            if option == "--graphbench-compare":
                bad = True
            if option == "--graphbench-save" and value in ("sub", ".", "-", "0", "-1", "1001",
                                                            "nan", "3", "1e3", "2^2", "\uff13",
                                                            "missing", " ", "\n", "x\x1b[2J",
                                                            "rodir"):  # a folder it can make
                bad = None
            if option == "--graphbench-compare" and value == ".":  # holds records
                bad = None
            cases.append(case(f"plugin{option}/{i}", "plugin", bad=bad, at_start=bad,
                              argv=["test_gb.py", *argv], outputs=["sub/.keep"]))
    cases.append(case("plugin/both", "plugin", bad=True, at_start=True,
                      argv=["--graphbench-save=sub", "--graphbench-compare=sub"]))
    bodies = ["processes=0", "fail_on=5", "fail_on='nope:5%'", "elements=-1", "modes='x'",
              "bogus=1", "'missing.py'", "'p.py'", "pipeline=5", "kernel_source='bad.cu'",
              "processes='3'", "fail_on=[]", "ab_source='empty.cu'"]
    for i, body in enumerate(bodies):
        files = {"test_gb.py": TEST_FILE.replace("BODY", body)}
        for j, argv in enumerate(([], ["--graphbench-save=open"], ["--graphbench-compare=."])):
            cases.append(case(f"plugin/body/{i}/{j}", "plugin", files=files,
                              argv=["test_gb.py", *argv]))
    return cases


def exec_cases() -> list[dict]:
    """Fresh interpreters: odd standard streams and environments."""
    gb = ["-m", "graphbench"]
    commands = [["report", "cur.json"], ["compare", "base.json", "cur.json",
                                         "--fail-on", "individual.busy:50%"],
                ["report", "cur.json", "--json", "-"], ["kernels"], ["run"], ["--help"],
                ["run", "--iters", "x"], ["compare", "ab.json", "--csv", "-"]]
    cases = []
    for i, argv in enumerate(commands):
        for stdout in ("closed", "full", "reader-gone", "file"):
            cases.append(case(f"exec/stdout-{stdout}/{i}", "exec", argv=gb + argv,
                              stdout=stdout))
    envs = [({}, ["HOME"]), ({"HOME": "/nonexistent"}, []), ({"HOME": ""}, []),
            ({"XDG_CACHE_HOME": "/proc/x"}, ["GRAPHBENCH_CACHE_DIR"]),
            ({"XDG_CACHE_HOME": "keep.txt"}, ["GRAPHBENCH_CACHE_DIR"]),
            ({"GRAPHBENCH_CACHE_DIR": "/dev/full"}, []), ({"GRAPHBENCH_CACHE_DIR": "keep.txt"}, []),
            ({"GRAPHBENCH_CACHE_DIR": "/proc/version/x"}, []),
            ({"GRAPHBENCH_CACHE_DIR": "\n"}, []), ({"GRAPHBENCH_CACHE_DIR": "fifo"}, []),
            ({}, ["HOME", "GRAPHBENCH_CACHE_DIR", "XDG_CACHE_HOME"]),
            ({"NO_COLOR": ""}, []), ({"COLUMNS": "-1"}, []), ({"COLUMNS": "x"}, []),
            ({"TERM": "\x1b"}, []), ({"LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "ascii"},
                                     [])]
    for i, (env, unset) in enumerate(envs):
        for j, argv in enumerate((["kernels"], ["run"], ["report", "cur.json"],
                                  ["run", "--pipeline", "\u00e9.py"],
                                  ["kernels", "--kernel-source", "k.cu"])):
            cases.append(case(f"exec/env{i}/{j}", "exec", argv=gb + argv, env=env, unset=unset,
                              outputs=["keep.txt"] if False else []))
    for i, argv in enumerate((["kernels"], ["run", "--json", "open/x.json"],
                              ["run", "--json", "ro.txt"], ["run", "--json", "x.json"],
                              ["report", "cur.json", "--json", "keep.txt"],
                              ["run", "--csv", "rodir/x.csv"], ["compare", "base.json", "ro.txt"],
                              ["report", "cur.json", "--markdown", "open/m.md"])):
        cases.append(case(f"nobody/{i}", "cli", argv=argv, nobody=True,
                          bad=True if i in (2, 3, 4, 5, 6) else None))
    return cases


SECRET = "S3cr3t-p4ss"
HISTORY_COMMANDS = {"list": ["history", "list"], "export": ["history", "export", "last"],
                    "html": ["history", "html", "site"],
                    "import": ["history", "import", "cur.json"],
                    "compare": ["compare", "last", "cur.json"],
                    "run-save": ["run", "--save", *BASE_ARGS["run"]]}
READS = ("list", "export", "html", "compare")
# (--history, bad for a reader, bad for a writer): files that are no history,
# names that are no database file's, and URLs whose password no line may show
HISTORIES = [("app.db", True, True), ("empty.db", True, True), ("keep.txt", True, True),
             ("cur.json", True, True), ("-", True, True), ("sub", True, True),
             ("newdir/", True, True), ("", True, True), ("h" * 300, True, True),
             ("missing.db", True, None), ("/proc/version", True, True), ("fifo", True, True),
             ("/dev/null", True, True), ("link", True, True), ("ro.txt", True, True),
             (f"postgresql://u@127.0.0.1:1/x?password={SECRET}", True, True),
             (f"postgresql://u:{SECRET}@127.0.0.1:1/x", True, True),
             (f"mysql://u:{SECRET}@h/db", True, True)]
STORED = {"h.db": {"history": ["base.json", "cur.json"]}}  # a history of two records
# (argv beside the history h.db, bad): outputs on the history, odd folders for
# the site, times outside the years of UTC, a machine that says nothing
WITH_HISTORY = [
    (["history", "list", "--json", "h.db"], True),
    (["history", "list", "--json", "h.db-wal"], True),
    (["history", "export", "last", "--json", "h.db"], True),
    (["compare", "last", "cur.json", "--json", "h.db"], True),
    (["run", "--save", *BASE_ARGS["run"], "--json", "h.db"], True),
    (["history", "html", "sub"], True), (["history", "html", ""], True),
    (["history", "html", "."], True), (["history", "html", "keep.txt"], True),
    (["history", "html", "open"], None), (["history", "html", "site"], None),
    (["history", "list", "--since", "0001-01-01T00:00+01:00"], True),
    (["history", "list", "--since", "9999-12-31T23:59-05:00"], True),
    (["history", "list", "--machine", "GPU-"], True),
    (["history", "list", "--machine", ""], True),
    (["history", "list", "--machine", "GPU-00000000-test"], None),
    (["history", "export", "last"], None), (["history", "list"], None)]


def history_cases() -> list[dict]:
    """The results history: every command with a --history that is no
    graphbench history, and odd inputs beside one that is."""
    cases = []
    for i, (where, bad_read, bad_write) in enumerate(HISTORIES):
        for name, argv in HISTORY_COMMANDS.items():
            if name == "run-save" and bad_write is None:
                continue  # a new history is made before the driver is asked: not a failure's
            bad = bad_read if name in READS else bad_write
            cases.append(case(f"history/{name}/history{i}", "cli", bad=bad, secret=SECRET,
                              argv=[*argv, "--history", where]))
    for i, (argv, bad) in enumerate(WITH_HISTORY):
        cases.append(case(f"history/stored/{i}", "cli", files=STORED, bad=bad,
                          argv=[*argv, "--history", "h.db"]))
    return cases


def long_message_cases() -> list[dict]:
    """Where the longest messages were: a gate that judged nothing gave each
    metric's note on one line (700-1,700 characters), and a sweep whose
    largest point no GPU holds planned every point before it said so."""
    gates = [["compare", "base.json", "cur.json"],
             ["compare", "cur.json", "base.json", "--fail-on", "graph.wall:1%", "--fail-on",
              "individual.wall:1%", "--fail-on", "fused.wall:1%"],
             ["compare", "v1.json", "cur.json"], ["compare", "cur.json", "v1.json"]]
    cases = [case(f"long/compare/{i}", "cli", argv=argv) for i, argv in enumerate(gates)]
    cases += [case("long/compare/api", "api", flags=["--fail-on", "--processes"],
                   code='graphbench.compare("base.json", "cur.json")'),
              case("long/sweep/range", "cli", bad=True,
                   argv=["sweep", "--elements", "1..2^34", "--depth", "1..1024"])]
    return cases


def all_cases() -> list[dict]:
    rng = random.Random(SEED)
    cases = (cli_option_cases() + cli_path_cases() + cli_combination_cases(rng)
             + pipeline_cases() + record_cases(rng) + api_cases() + plugin_cases()
             + exec_cases() + history_cases() + long_message_cases())
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    return cases
