"""The Python API refuses what the command line refuses, through the same
checks, before any GPU work: every CLI refusal below is made again through
the API, each side naming the same setting (the CLI by its flag, the API by
its keyword). Then bounded fuzzing of the API's entry points: odd values
of run's settings, compare's fail_on, load's and save's arguments raise
graphbench.errors types only, and a refused call never reaches the GPU."""

import dataclasses
from pathlib import Path

import pytest
from conftest import make_record
from tests_helpers import short_error
from hypothesis import HealthCheck, given, settings, strategies as st

import graphbench
from graphbench.stats.merge import merge_runs
from graphbench.gate.specs import FailSpec
from graphbench.cli import main
from graphbench.config import RunConfig
from graphbench.counts import MAX_PROCESSES
from graphbench.errors import ConfigError, GraphbenchError, RecordError, UsageError
from graphbench.record.model import Comparison, RunRecord, SweepRecord

WALLS = {"individual": 14.0, "graph": 4.3, "fused": 4.6}
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict:
    """Record files the rows name: a baseline of 3 processes, a current
    record, a committed sweep record, a file that is no record, a folder;
    and the baseline and its comparison with the current record as objects."""
    root = tmp_path_factory.mktemp("records")
    base = merge_runs([make_record(WALLS, rounds=20, seed=s) for s in (1, 5, 6)])
    current = make_record(WALLS, rounds=20, seed=2)
    paths = {"BASE": str(graphbench.save(root / "base.json", base)),
             "CUR": str(graphbench.save(root / "cur.json", current)),
             "SWEEP": str(Path(__file__).resolve().parent / "records" / "sweep.json"),
             "TEXT": str(root / "notes.txt"), "DIR": str(root / "folder"),
             "MISSING": str(root / "missing.json")}
    Path(paths["TEXT"]).write_text("not a record\n")
    Path(paths["DIR"]).mkdir()
    return {**paths, "record": base, "comparison": graphbench.compare(base, current)}


@pytest.fixture
def no_gpu(monkeypatch):
    """Any call that gets as far as measuring fails the test."""
    def reached(*args, **kwargs):
        raise AssertionError("a refused call reached the GPU")

    monkeypatch.setattr("graphbench.runner.measure", reached)
    monkeypatch.setattr("graphbench.runner.run_benchmark", reached)


def run_with(**kwargs):
    return lambda f: graphbench.run(**kwargs)


BIG = 2**62
# (CLI argv, the same request through the API, the words naming the setting
# in the CLI's line and in the API's error). {NAME} is a path from `files`.
ROWS = [
    ("run --elements 0", run_with(elements=0), "--elements", "elements"),
    ("run --elements abc", run_with(elements="abc"), "--elements", "elements"),
    ("run --elements 1.5", run_with(elements=1.5), "--elements", "elements"),
    ("run --elements 2^40", run_with(elements="2^40"), "--elements", "elements"),
    ("run --elements 9^999999999", run_with(elements="9^999999999"), "--elements", "elements"),
    ("run --elements \uff14\uff10\uff19\uff16", run_with(elements="\uff14\uff10\uff19\uff16"),
     "--elements", "elements"),
    ("run --iters 0", run_with(iters=0), "--iters", "iters"),
    ("run --iters 1e8", run_with(iters=10**8), "--iters", "iters"),
    ("run --rounds 0", run_with(rounds=0), "--rounds", "rounds"),
    ("run --rounds 5 --max-noise 2%", run_with(rounds=5, max_noise=0.02),
     "--max-noise", "max_noise"),
    ("run --rounds 5 --min-rounds 30", run_with(rounds=5, min_rounds=30),
     "--min-rounds", "min_rounds"),
    ("run --rounds 5 --max-time 3", run_with(rounds=5, max_time=3), "--max-time", "max_time"),
    ("run --depth 0", run_with(depth=0), "--depth", "depth"),
    ("run --depth 2000", run_with(depth=2000), "--depth", "depth"),
    ("run --unroll 1001", run_with(unroll=1001), "--unroll", "unroll"),
    ("run --modes graph", run_with(modes="graph"), "--modes", "modes"),
    ("run --modes individual,warp", run_with(modes=["individual", "warp"]), "--modes", "modes"),
    ("run --modes individual,individual", run_with(modes="individual,individual"),
     "--modes", "modes"),
    ("run --modes all,graph", run_with(modes=("all", "graph")), "--modes", "modes"),
    ("run --modes=", run_with(modes=""), "--modes", "modes"),
    ("run --warmup -1", run_with(warmup_rounds=-1), "--warmup", "warmup_rounds"),
    ("run --warmup 10001", run_with(warmup_rounds=10001), "--warmup", "warmup_rounds"),
    ("run --stages=", run_with(stages=""), "--stages", "stages"),
    ("run --stages add,bogus", run_with(stages="add,bogus"), "--stages", "stages"),
    ("run --max-noise 0", run_with(max_noise=0), "--max-noise", "max_noise"),
    ("run --max-noise 150%", run_with(max_noise=1.5), "--max-noise", "max_noise"),
    ("run --max-noise lots", run_with(max_noise="lots"), "--max-noise", "max_noise"),
    ("run --max-time 0", run_with(max_time=0), "--max-time", "max_time"),
    ("run --max-time 100000", run_with(max_time=1e5), "--max-time", "max_time"),
    ("run --max-time soon", run_with(max_time="soon"), "--max-time", "max_time"),
    ("run --min-rounds 5", run_with(min_rounds=5), "--min-rounds", "min_rounds"),
    ("run --device -1", run_with(device=-1), "--device", "device"),
    ("run --device x", run_with(device="x"), "--device", "device"),
    ("run --seed -1", run_with(seed=-1), "--seed", "seed"),
    ("run --seed 1.5", run_with(seed=1.5), "--seed", "seed"),
    ("run --gate-sizes 0", run_with(gate_sizes=[0]), "--gate-sizes", "gate_sizes"),
    ("run --gate-sizes 2^40", run_with(gate_sizes=["2^40"]), "--gate-sizes", "gate_sizes"),
    ("run --grid bogus", run_with(grid="bogus"), "--grid", "grid"),
    ("run --grid per-element --block 1 --elements 2^32",
     run_with(grid="per-element", block=1, elements="2^32"), "--grid", "grid"),
    ("run --block 0", run_with(block=0), "--block", "block"),
    ("run --block 2000", run_with(block=2000), "--block", "block"),
    ("run --pipeline no/such.py", run_with(pipeline="no/such.py"), "no/such.py", "no/such.py"),
    ("run --pipeline=", run_with(pipeline=""), "--pipeline", "pipeline"),
    ("run --kernel-source no/such.cu", run_with(kernel_source="no/such.cu"),
     "no/such.cu", "no/such.cu"),
    ("run --kernel-source=", run_with(kernel_source=""), "--kernel-source", "kernel_source"),
    ("run --ab no/such.cu", run_with(ab_source="no/such.cu"), "no/such.cu", "no/such.cu"),
    ("run --ab=", run_with(ab_source=""), "--ab", "ab_source"),
    ("run --param depth=4", run_with(params={"depth": 4}), "--param", "params"),
    ("run --pipeline softmax --param colz=256", run_with(pipeline="softmax", params={"colz": 256}),
     "--param colz", "params colz"),
    ("run --pipeline softmax --param cols=true", run_with(pipeline="softmax",
                                                         params={"cols": "true"}),
     "--param cols", "params cols"),
    ("run --param x=None", run_with(params={"x": None}), "--param", "params"),
    ("run --param x=[1,2]", run_with(params={"x": [1, 2]}), "--param", "params"),
    ("run --processes 0", run_with(processes=0), "--processes", "processes"),
    (f"run --processes {BIG}", run_with(processes=BIG), "--processes", "processes"),
    ("run --processes 1001", run_with(processes=1001), "--processes", "processes"),
    ("run --processes x", run_with(processes="x"), "--processes", "processes"),
    ("compare {BASE} {CUR} --fail-on graph.wall:ten",
     lambda f: graphbench.compare(f["BASE"], f["CUR"], fail_on="graph.wall:ten"),
     "--fail-on", "fail_on"),
    ("compare {BASE} {CUR} --fail-on bogus.wall:10%",
     lambda f: graphbench.compare(f["BASE"], f["CUR"], fail_on=["bogus.wall:10%"]),
     "bogus.wall", "bogus.wall"),
    ("compare {BASE} {CUR} --fail-on speedup:5us",
     lambda f: graphbench.compare(f["BASE"], f["CUR"], fail_on="speedup:5us"),
     "--fail-on", "fail_on"),
    ("compare {BASE} {CUR} --fail-on graph.wall:10% --fail-on graph.wall:5%",
     lambda f: graphbench.compare(f["BASE"], f["CUR"],
                                  fail_on=["graph.wall:10%", "graph.wall:5%"]),
     "graph.wall twice", "graph.wall twice"),
    ("compare {MISSING} {CUR}", lambda f: graphbench.compare(f["MISSING"], f["CUR"]),
     "missing.json", "missing.json"),
    ("compare {TEXT} {CUR}", lambda f: graphbench.compare(f["TEXT"], f["CUR"]),
     "notes.txt", "notes.txt"),
    ("compare {BASE} {SWEEP}", lambda f: graphbench.compare(f["BASE"], f["SWEEP"]),
     "sweep record", "sweep record"),
    ("compare {BASE}", lambda f: graphbench.compare(f["BASE"]), "A/B record", "A/B record"),
    ("report {MISSING}", lambda f: graphbench.load(f["MISSING"]), "missing.json", "missing.json"),
    ("report {TEXT}", lambda f: graphbench.load(f["TEXT"]), "notes.txt", "notes.txt"),
    ("report {DIR}", lambda f: graphbench.load(f["DIR"]), "folder", "folder"),
    ("report {BASE} --json {DIR}", lambda f: graphbench.save(f["DIR"], f["record"]),
     "--json", "path"),
    ("report {BASE} --json {DIR}/", lambda f: graphbench.save(f["DIR"] + "/", f["record"]),
     "--json", "path"),
    ("report {BASE} --json /sys/x/y.json", lambda f: graphbench.save("/sys/x/y.json",
                                                                     f["record"]),
     "--json", "path"),
    ("report {BASE} --json=", lambda f: graphbench.save("", f["record"]), "--json", "path"),
]


def argv_of(row: str, files: dict) -> list[str]:
    return [word.format(**files) for word in row.split(" ")]


@pytest.mark.parametrize("argv, call, cli_word, api_word", ROWS, ids=[r[0] for r in ROWS])
def test_every_cli_refusal_is_an_api_refusal_naming_the_same_setting(
        files, no_gpu, capsys, argv, call, cli_word, api_word):
    assert main(argv_of(argv, files)) == 2
    err = short_error(capsys.readouterr().err)
    assert cli_word in err, err
    with pytest.raises(GraphbenchError) as refused:
        call(files)
    assert api_word in refused.value.message, refused.value.one_line()
    # a file that cannot be read needs no advice beyond its error; every other refusal has one
    assert refused.value.remedy or refused.value.message.startswith("cannot read "), \
        refused.value.one_line()


def test_the_table_covers_every_setting_the_cli_takes():
    from graphbench.api import SETTINGS

    named = {word for *_, word in ROWS}
    untested = {"flush_l2", "pin_cpu", "attribute"}  # flags: a bool, refused as any wrong type
    assert set(SETTINGS) - named - untested == set()


# --- fuzzing ------------------------------------------------------------------

ODD = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
    st.binary(max_size=4),
    st.sampled_from(["2^20", "1e6", "0", "-1", "all", "auto", "8/sm", "per-element",
                     "individual,graph", "1%", "2s", "", " ", "\uff12", "0,1", "add,mul",
                     "softmax", "no/such.py", "2^99", "9^999999999"]),
    st.lists(st.one_of(st.integers(min_value=-5, max_value=2**40), st.text(max_size=6)),
             max_size=3),
    st.tuples(st.text(max_size=4)), st.dictionaries(st.text(max_size=3), st.integers(),
                                                     max_size=2))
KEYS = st.sampled_from([*(f.name for f in dataclasses.fields(RunConfig)), "processes",
                        "pipeline", "bogus"])
# requests refused whatever else comes with them (each row's API side)
REFUSED = [{"elements": 0}, {"rounds": 5, "max_noise": 0.02}, {"processes": BIG},
           {"processes": 0}, {"processes": True}, {"modes": "graph"}, {"seed": -1},
           {"kernel_source": ""}, {"unroll": 1001}, {"rtol": 0.1}, {"bogus": 1},
           {"pipeline": 42}, {"device": "0,1"}, {"gate_sizes": [0]}, {"block": 0}]
FUZZ = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


@pytest.fixture
def measured(monkeypatch) -> list:
    """graphbench.runner.measure replaced: each call it gets is kept, and
    answered with a synthetic record; the in-process run fails the test."""
    calls = []

    def fake_measure(config, processes=1, progress=None, spec=None):
        calls.append((config, processes))
        return make_record()

    def reached(*args, **kwargs):
        raise AssertionError("run_benchmark reached")

    monkeypatch.setattr("graphbench.runner.measure", fake_measure)
    monkeypatch.setattr("graphbench.runner.run_benchmark", reached)
    return calls


@pytest.mark.slow
@FUZZ
@given(kwargs=st.dictionaries(KEYS, ODD, max_size=4))
def test_odd_run_settings_raise_graphbench_errors_or_run_a_valid_config(measured, kwargs):
    measured.clear()
    try:
        record = graphbench.run(**kwargs)
    except GraphbenchError as exc:
        assert exc.message and measured == []
        return
    (config, processes), = measured
    assert isinstance(record, RunRecord) and 1 <= processes <= MAX_PROCESSES
    assert dataclasses.replace(config) == config  # a configuration its own checks accept


@pytest.mark.slow
@FUZZ
@given(refused=st.sampled_from(REFUSED), others=st.dictionaries(KEYS, ODD, max_size=3))
def test_a_refused_setting_never_reaches_the_gpu_whatever_comes_with_it(measured, refused,
                                                                        others):
    measured.clear()
    with pytest.raises(GraphbenchError):
        graphbench.run(**{**others, **refused})
    assert measured == []


SPECS = st.sampled_from(["graph.wall:10%", "individual.busy:5%", "speedup:5%",
                         "graph.wall@2^20:5%", "fused.wall:0.5us", "graph.wall:ten", ""])


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(fail_on=st.one_of(ODD, SPECS, st.lists(st.one_of(SPECS, ODD), max_size=3)))
def test_odd_fail_on_values_raise_graphbench_errors_or_judge(files, fail_on):
    try:
        verdict = graphbench.compare(files["record"], files["CUR"], fail_on=fail_on)
    except GraphbenchError as exc:
        assert exc.message
        return
    assert isinstance(verdict, Comparison)


NOT_PATHS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                      st.binary(max_size=4), st.lists(st.text(max_size=3), max_size=2),
                      st.dictionaries(st.text(max_size=2), st.integers(), max_size=1))
# Odd paths: values that are no path, paths that say nothing or cannot be
# written, and (str or Path, text) for a name inside the test's folder,
# never above it: a fuzzed write must not land anywhere else.
PATHS = st.one_of(NOT_PATHS, st.sampled_from(["", "/", "/sys/x", "/dev/null", "/proc/1/x"]),
                  st.tuples(st.sampled_from([str, Path]),
                            st.text(st.sampled_from("ab./\0 -"), max_size=8)
                            .filter(lambda t: ".." not in t)))


def inside(path, root: Path):
    if isinstance(path, tuple) and len(path) == 2 and path[0] in (str, Path):
        return path[0](f"{root}/{path[1]}")
    return path


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(path=PATHS)
def test_odd_load_paths_raise_graphbench_errors(root, path):
    try:
        record = graphbench.load(inside(path, root))
    except GraphbenchError as exc:
        assert exc.message
        return
    assert isinstance(record, (RunRecord, SweepRecord))


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(path=PATHS, which=st.sampled_from(["record", "text", "none", "comparison"]))
def test_odd_save_arguments_raise_graphbench_errors_or_write_the_record(files, root, path,
                                                                       which):
    record = {"record": files["record"], "text": "x", "none": None,
              "comparison": files["comparison"]}[which]
    target = inside(path, root)
    try:
        written = graphbench.save(target, record)
    except GraphbenchError as exc:
        assert exc.message
        return
    assert which == "record"
    if target != "/dev/null":
        assert graphbench.load(written).runs == files["record"].runs


@pytest.mark.parametrize("call", [
    lambda huge: graphbench.run(elements=huge), lambda huge: graphbench.run(max_noise=huge),
    lambda huge: graphbench.run(processes=huge), lambda huge: graphbench.run(seed=huge),
    lambda huge: graphbench.load(huge),
    lambda huge: graphbench.compare("a.json", "b.json", fail_on=huge)])
def test_an_integer_past_pythons_text_limit_is_refused_in_one_short_line(call):
    """10**5000 cannot even be written as text by default (ValueError from
    str()): the refusal names its size instead."""
    from graphbench.errors import GraphbenchError

    with pytest.raises(GraphbenchError) as info:
        call(10**5000)
    assert len(info.value.one_line()) < 300


@pytest.mark.parametrize("changes, words", [
    ({"device": None}, "device: expected an object, got null"),
    ({"runs": None}, "runs: expected a list, got null"),
    ({"runs": ()}, "holds no process run"),
    ({"config": None}, "config: expected an object, got null"),
    ({"created": 5}, "created: expected a string, got a whole number"),
])
def test_a_hand_built_record_that_is_not_well_formed_is_refused_and_never_written(
        files, tmp_path, changes, words):
    """Each call names the argument and the field, in one line with a remedy;
    save leaves the file that was there as it was, and makes none."""
    bad = dataclasses.replace(files["record"], **changes)
    kept, new = tmp_path / "kept.json", tmp_path / "new.json"
    kept.write_text("the file that was there\n")
    calls = {"record": [lambda: graphbench.save(kept, bad), lambda: graphbench.save(new, bad),
                        lambda: graphbench.summarize(bad)],
             "baseline": [lambda: graphbench.compare(bad, files["CUR"])],
             "current": [lambda: graphbench.compare(files["BASE"], bad)]}
    for name, refused_calls in calls.items():
        for call in refused_calls:
            with pytest.raises(RecordError) as refused:
                call()
            line = refused.value.one_line()
            assert line.startswith(name) and words in line and "\n" not in line, line
            assert refused.value.remedy
    assert kept.read_text() == "the file that was there\n" and not new.exists()


@pytest.mark.parametrize("device", [99999, 10000, 2**40, -1, True, "x", 1.5, "-0", "1_0"])
def test_an_impossible_device_id_is_refused_before_the_driver(measured, device):
    """As --device reads at most 4 plain digits; an id within that but past
    this machine's count is the driver's to refuse (DeviceError)."""
    with pytest.raises(ConfigError) as refused:
        graphbench.run(device=device)
    assert refused.value.field == "device" and refused.value.remedy and measured == []
    graphbench.run(device=9999)  # the largest id a device list can hold reaches the driver
    assert measured[0][0].device == 9999


@pytest.mark.parametrize("spec, words", [
    (FailSpec("graph.wall", 0.1, relative="yes"), "fail_on 'graph.wall' has relative='yes'"),
    (FailSpec("graph.wall", 0.1, True, gated=1), "fail_on 'graph.wall' has gated=1"),
    (FailSpec("graph.wall", 10**400, False), "has threshold an integer of 401 digits"),
    (FailSpec("graph.wall", float("nan"), True), "has threshold nan"),
    (FailSpec("graph.wall", 0.1, True, size=-1), "has size -1"),
    (FailSpec("graph.wall", 0.1, True, size=True), "has size True"),
    (FailSpec("graph.wall", 0.1, True, size=2**70), "has size 1180591620717411303424"),
    (FailSpec("graph.wall", 0.1, True, size=2.5), "has size 2.5"),
    (FailSpec(None, 0.1, True), "fail_on has a spec whose metric is None"),
    (FailSpec("graph.nope", 0.1, True), "unknown metric 'graph.nope'"),
])
def test_a_hand_built_fail_spec_with_a_bad_field_is_refused_naming_it(files, spec, words):
    with pytest.raises(UsageError) as refused:
        graphbench.compare(files["BASE"], files["CUR"], fail_on=[spec])
    line = refused.value.one_line()
    assert line.startswith("fail_on") and words in line and refused.value.remedy, line


# --- messages in the API's words ----------------------------------------------

def builtin_object():
    from graphbench.pipeline.shipped.add_mul_sub import pipeline

    return pipeline()


@pytest.mark.parametrize("call, said", [
    (lambda d: graphbench.run(builtin_object(), ab=str(d / "missing.cu")), "cannot read ab "),
    (lambda d: graphbench.run(builtin_object(), kernel_source=str(d / "missing.cu")),
     "cannot read kernel_source "),
    (lambda d: graphbench.run(ab=str(d / "empty.cu")), "ab "),
    (lambda d: graphbench.run(ab=3), "ab must be a str or a path"),
    (lambda d: graphbench.run(kernel_source=str(d / "missing.cu")), "cannot read kernel_source "),
    (lambda d: graphbench.run(""), "pipeline '' names no file"),
    (lambda d: graphbench.run(str(d)), "is a folder"),
    (lambda d: graphbench.run(stages="add,x"), "stages has unknown stage(s) x"),
    (lambda d: graphbench.run("cupy_chain", modes="individual,fused"), "modes fused cannot run"),
])
def test_an_api_refusal_names_keywords_not_flags(tmp_path, no_gpu, call, said):
    (tmp_path / "empty.cu").write_text("")
    with pytest.raises(GraphbenchError) as caught:
        call(tmp_path)
    message = caught.value.message
    assert said in message and "--" not in message, message
    assert caught.value.remedy and "--" not in caught.value.remedy


def test_fail_on_naming_a_metric_twice_is_refused_in_the_api_s_words(files):
    with pytest.raises(UsageError, match=r"^fail_on gates graph\.wall twice"):
        graphbench.compare(files["BASE"], files["CUR"], fail_on=["graph.wall:10%",
                                                                  "graph.wall:5%"])
    with pytest.raises(UsageError, match=r"^fail_on 'graph\.wall:5x': graph\.wall takes"):
        graphbench.compare(files["BASE"], files["CUR"], fail_on="graph.wall:5x")


def test_a_verdict_note_in_a_gate_error_names_processes_as_the_api_does(files):
    base, current = (REPO / "tests/records/h200/gate/baseline.json",
                     REPO / "tests/records/h200/gate/same_1.json")
    with pytest.raises(RecordError) as caught:
        graphbench.compare(base, current)
    details = caught.value.details
    assert "processes" in details and "--processes" not in details and "--ab" not in details
    assert "--processes" not in caught.value.message + caught.value.remedy
    assert "run --ab" in caught.value.remedy  # a command stays a command


# --- every API error says what to do, in one line -----------------------------

def test_a_record_error_says_what_to_do_even_where_the_reader_does_not(files, tmp_path):
    import json

    doc = json.loads(Path(files["CUR"]).read_text())
    del doc["tool"]
    (tmp_path / "r.json").write_text(json.dumps(doc))
    for call in (graphbench.load, graphbench.summarize):
        with pytest.raises(RecordError) as caught:
            call(tmp_path / "r.json")
        assert "tool" in caught.value.message and caught.value.remedy


def test_a_path_with_a_newline_is_named_in_one_line(tmp_path):
    with pytest.raises(RecordError) as caught:
        graphbench.load(str(tmp_path / "a\nb.json"))
    assert "\n" not in caught.value.message and "a\\nb.json" in caught.value.message
    assert caught.value.remedy


@pytest.mark.parametrize("text", ["def pipeline():\n    raise RuntimeError('boom')\n",
                                  "def pipeline(:\n", "import no_such_module_here\n"])
def test_a_pipeline_file_error_says_what_to_do(tmp_path, no_gpu, text):
    from graphbench.pipeline.spec import SpecError

    (tmp_path / "p.py").write_text(text)
    with pytest.raises(SpecError) as caught:
        graphbench.run(str(tmp_path / "p.py"))
    assert caught.value.remedy


@pytest.mark.parametrize("call", [
    lambda fifo: graphbench.load(fifo), lambda fifo: graphbench.summarize(fifo),
    lambda fifo: graphbench.compare(fifo, fifo), lambda fifo: graphbench.run(kernel_source=fifo),
    lambda fifo: graphbench.run(ab_source=fifo)])
def test_a_fifo_nothing_writes_to_is_refused_not_waited_on(tmp_path, no_gpu, call):
    import os
    import signal

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def waited(*args):
        raise AssertionError("waited on a FIFO with no writer")

    previous = signal.signal(signal.SIGALRM, waited)
    signal.alarm(10)
    try:
        with pytest.raises(UsageError, match="is a FIFO that nothing writes to"):
            call(str(fifo))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
