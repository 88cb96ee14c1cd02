"""The pytest plugin, run with pytester on CPU: its options, checked when
the session starts; the GPU-less skip; a missing saved record, failed on a
GPU and listed at the session's end without one; and save -> compare -> an
injected slowdown fails the test. The measurement is replaced by synthetic
records (tests/conftest.py make_record) read from files the outer test
writes; the inner session loads only this plugin (-p), with no conftest and
no entry-point plugins. The -p forms and the entry point are run in fresh
interpreters that see pyproject's entry point.

Covers graphbench/pytest_entry.py."""

import os
import re
import subprocess
import sys
import tempfile
from fnmatch import fnmatch
from pathlib import Path

import pytest
from conftest import make_record
from tests_helpers import ab_record
from hypothesis import given, settings, strategies as st

import graphbench.api
from graphbench.stats.merge import merge_runs
from graphbench.pytest_plugin import (GraphbenchFixture, Options, record_name,
                                      session_options)

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
WALLS = {"individual": 14.0, "graph": 4.3, "fused": 4.6}
INNER = '''
import json
import os
import pytest
import graphbench.api
import graphbench.measure.device
import graphbench.pytest_plugin
from graphbench.errors import DeviceError
from graphbench.record.codec import read_run


def no_gpu():
    raise DeviceError("no NVIDIA driver found (libcuda could not be loaded)")


def fake_run(pipeline=None, **settings):
    with open(os.environ["GB_SEEN"], "w") as seen:
        json.dump(settings, seen)
    if os.environ["GB_RECORD"] == "no-gpu":
        no_gpu()
    return read_run(os.environ["GB_RECORD"])


def fake_gpu():
    if os.environ["GB_RECORD"] == "no-gpu":
        no_gpu()


@pytest.fixture(autouse=True)
def synthetic(monkeypatch):
    if os.environ["GB_RECORD"] == "real-no-gpu":  # the real run, on a machine without a GPU
        monkeypatch.setattr(graphbench.measure.device, "list_devices", no_gpu)
        return
    monkeypatch.setattr(graphbench.api, "run", fake_run)
    monkeypatch.setattr(graphbench.pytest_plugin, "require_gpu", fake_gpu)


def test_op(graphbench):
    processes = {"processes": int(os.environ["GB_PROCESSES"])} \
        if os.environ.get("GB_PROCESSES") else {}
    record = graphbench.run("add_mul_sub", modes="individual,graph",
                            fail_on=os.environ.get("GB_FAIL_ON") or None, **processes)
    assert record.mode_names
'''


@pytest.fixture
def inner(pytester, monkeypatch, tmp_path):
    """Run the inner test on the record `name` (written here), with options."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_inner=INNER)
    records = {"base": merge_runs([make_record(WALLS, rounds=20, seed=s) for s in (1, 5, 6)]),
               "same": make_record(WALLS, rounds=20, seed=2),
               "slow": make_record({**WALLS, "graph": 4.3 * 1.3}, rounds=20, seed=3),
               "wrong": make_record(WALLS, rounds=20, seed=4, passed=False),
               "ab-same": ab_record(WALLS), "ab-slower-gpu": ab_record(WALLS, busy_factor=1.05)}

    def run(name: str, *options: str, fail_on: str = "", processes: str = ""):
        path = name if name in ("no-gpu", "real-no-gpu") else str(graphbench.api.save(
            tmp_path / f"{name}.json", records[name]))
        monkeypatch.setenv("GB_RECORD", path)
        monkeypatch.setenv("GB_FAIL_ON", fail_on)
        monkeypatch.setenv("GB_PROCESSES", processes)
        monkeypatch.setenv("GB_SEEN", str(tmp_path / "seen.json"))
        arguments = ("-p", "graphbench.pytest_plugin", "-p", "no:cacheprovider", "-rsf", *options)
        if name == "real-no-gpu":  # a fresh process: the real run imports numpy and CUDA
            monkeypatch.setenv("PYTHONPATH", str(ROOT))
            return pytester.runpytest_subprocess(*arguments)
        return pytester.runpytest(*arguments)
    return run


def seen_settings(tmp_path) -> dict:
    import json

    return json.loads((tmp_path / "seen.json").read_text())


def warm_up() -> None:
    """Import, at collection, what the inner sessions will: pytester drops the
    modules imported while a test uses it, and numpy's C extensions cannot
    load twice in one process."""
    from graphbench.pytest_plugin import verdict_text, verification_text

    base = merge_runs([make_record(WALLS, seed=s, rounds=20) for s in (1, 5, 6)])
    slow = make_record({**WALLS, "graph": 6.0}, seed=2, rounds=20)
    verdict_text(graphbench.api.compare(base, slow), "base.json")
    verification_text(make_record(passed=False))


warm_up()


def test_the_options_are_registered(pytester, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest("-p", "graphbench.pytest_plugin", "--help")
    result.stdout.fnmatch_lines(["*--graphbench-save=DIR*", "*--graphbench-compare=DIR*"])


def test_a_machine_without_a_gpu_skips_with_the_reason(inner):
    result = inner("no-gpu")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*no usable GPU: no NVIDIA driver found*"])


def test_without_a_gpu_a_saved_run_skips_too(inner, pytester):
    """The real run, its fresh processes refused before they start (the
    driver is asked once, in the test's process)."""
    result = inner("real-no-gpu", "--graphbench-save", str(pytester.path / "saved"))
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*no usable GPU: no NVIDIA driver found*"])
    assert "Traceback" not in result.stdout.str() and not (pytester.path / "saved").exists()


def test_save_then_compare_then_a_slowdown_fails_with_the_verdict_table(inner, pytester,
                                                                        tmp_path):
    saved = pytester.path / "saved"
    inner("base", "--graphbench-save", str(saved)).assert_outcomes(passed=1)
    assert [p.name for p in saved.iterdir()] == ["test_inner.py_test_op.json"]
    assert seen_settings(tmp_path)["processes"] == 3  # a baseline the gate can judge
    inner("base", "--graphbench-save", str(saved), "--graphbench-processes", "2^2"
          ).assert_outcomes(passed=1)
    assert seen_settings(tmp_path)["processes"] == 4
    inner("same", "--graphbench-compare", str(saved)).assert_outcomes(passed=1)
    result = inner("slow", "--graphbench-compare", str(saved))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*graphbench: FAIL*", "*graph.wall*slower*"])
    # the test's own fail_on gates only what it names
    inner("slow", "--graphbench-compare", str(saved), fail_on="fused.wall:10%"
          ).assert_outcomes(passed=1)


def test_graphbench_ab_runs_each_test_against_its_base_side_and_gates_it(inner, tmp_path):
    """--graphbench-ab REF: every fixture run is an A/B against REF, judged
    on its paired rounds; no saved record is needed."""
    inner("ab-same", "--graphbench-ab", "origin/main").assert_outcomes(passed=1)
    assert seen_settings(tmp_path)["ab"] == "origin/main"
    result = inner("ab-slower-gpu", "--graphbench-ab", "origin/main")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*graphbench: FAIL*its base side*", "*individual.busy*slower*"])


def test_graphbench_ab_with_a_saved_record_to_compare_is_a_usage_error(inner, pytester):
    saved = pytester.path / "saved"
    saved.mkdir()
    graphbench.api.save(saved / "test_inner.py_test_op.json", make_record(WALLS, rounds=20))
    result = inner("ab-same", "--graphbench-ab", "main", "--graphbench-compare", str(saved))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--graphbench-ab judges each test against its base side*"])


def test_a_mistyped_fail_on_is_an_error_before_measuring(inner, tmp_path):
    result = inner("same", fail_on="graph.wall:ten")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*graphbench: fail_on 'graph.wall:ten' is not METRIC*"])
    assert "Traceback" not in result.stdout.str() and not (tmp_path / "seen.json").exists()


def test_a_graphbench_error_in_a_test_is_one_line_with_no_chained_exception(inner, pytester):
    judged = pytester.path / "judged"
    graphbench.api.save(judged / "test_inner.py_test_op.json",
                        make_record(WALLS, rounds=20, passed=False))
    for result, line in [
            (inner("same", fail_on="graph.wall:ten"),
             "graphbench: fail_on 'graph.wall:ten' is not METRIC*"),
            (inner("same", "--graphbench-compare", str(judged)),
             "graphbench: cannot judge test_inner.py::test_op against *judged*: the baseline "
             "record failed verification*")]:
        result.assert_outcomes(failed=1)
        out = result.stdout.str()
        result.stdout.fnmatch_lines([line])  # the failure's whole text, on its own line
        assert "During handling" not in out and "Traceback" not in out, out


def test_a_tests_bad_process_count_under_save_is_refused_not_replaced(inner, pytester):
    """processes=0 in a test was max(3, 0): a saved run of 3 processes. It
    is graphbench.run's to refuse, naming processes, in one line."""
    result = inner("real-no-gpu", "--graphbench-save", str(pytester.path / "saved"),
                   processes="0")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["graphbench: processes must be a positive integer, got 0*"])
    assert "During handling" not in result.stdout.str()
    assert GraphbenchFixture("t", Options(save=Path("saved")))._settings({"processes": -2}) \
        == {"processes": -2}


@pytest.fixture
def other_records(pytester) -> Path:
    """A compare folder that holds a record, but not the inner test's."""
    folder = pytester.path / "other"
    graphbench.api.save(folder / "test_other.py_test_x.json", make_record(rounds=20))
    return folder


def test_a_missing_saved_record_fails_closed_on_a_gpu_before_measuring(inner, other_records,
                                                                        tmp_path):
    result = inner("same", "--graphbench-compare", str(other_records))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no saved record*test_inner.py_test_op.json*"
                                 "--graphbench-save*"])
    assert not (tmp_path / "seen.json").exists()  # nothing measured for a test that must fail


def test_without_a_gpu_a_missing_saved_record_is_listed_at_the_end(inner, other_records):
    result = inner("no-gpu", "--graphbench-compare", str(other_records))
    result.assert_outcomes(skipped=1)
    out = result.stdout.str()
    section = out[out.index("graphbench: no saved record ="):]
    assert re.search(r"test_inner.py::test_op: no .*test_inner.py_test_op.json", section)
    assert "1 test(s) have no baseline to be judged against; make them with " \
        f"--graphbench-save {other_records}" in section


def test_without_a_gpu_a_test_with_its_record_is_a_plain_skip(inner, pytester):
    saved = pytester.path / "saved"
    inner("base", "--graphbench-save", str(saved)).assert_outcomes(passed=1)
    result = inner("no-gpu", "--graphbench-compare", str(saved))
    result.assert_outcomes(skipped=1)
    assert "no saved record" not in result.stdout.str()


def test_a_failed_verification_fails_the_test_and_is_not_saved(inner, pytester):
    saved = pytester.path / "saved"
    result = inner("wrong", "--graphbench-save", str(saved))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*graphbench: verification failed*"])
    assert not saved.exists()


def bad_options(root: Path) -> list[tuple[list[str], str]]:
    """(options, the one line they are refused with): every option checked
    when the session starts, in the folder `root` (an empty folder, a file
    and a folder of records made there)."""
    (root / "empty").mkdir()
    (root / "afile").write_text("x")
    graphbench.api.save(root / "records" / "test_x.json", make_record(rounds=20))
    big = str(2**62)
    return [
        (["--graphbench-compare", "nothing"], "--graphbench-compare nothing: no such folder; "
         "make it with --graphbench-save nothing on a machine with a GPU"),
        (["--graphbench-compare", "afile"], "--graphbench-compare afile is not a folder; "
         "give the folder --graphbench-save wrote"),
        (["--graphbench-compare="], "--graphbench-compare '': an empty path; "
         "give the folder --graphbench-save wrote"),
        (["--graphbench-compare", "empty"], "--graphbench-compare empty holds no records "
         "(no .json file); make them with --graphbench-save empty on a machine with a GPU"),
        (["--graphbench-save", "afile"], "--graphbench-save afile is a file, not a folder; "
         "give a folder this user can write (made if missing)"),
        (["--graphbench-save", "afile/x"], "--graphbench-save afile/x: a folder on that path "
         "is not a directory; give a folder this user can write (made if missing)"),
        (["--graphbench-save", "/sys/x"], "--graphbench-save /sys/x: cannot write in /sys *; "
         "give a folder this user can write (made if missing)"),
        (["--graphbench-save="], "--graphbench-save '': an empty path; "
         "give a folder this user can write (made if missing)"),
        (["--graphbench-save", "records", "--graphbench-compare", "./records"],
         "--graphbench-save and --graphbench-compare name one folder: each test's record would "
         "replace its baseline before it is judged; save to another folder"),
        (["--graphbench-processes", "0"], "--graphbench-processes must be a positive integer, "
         "got 0; e.g. 3: a baseline the gate can judge needs 3 or more"),
        (["--graphbench-processes", "-1"], "--graphbench-processes must be a positive integer, "
         "got '-1'; e.g. 3: a baseline the gate can judge needs 3 or more"),
        (["--graphbench-processes", "1.5"], "--graphbench-processes must be a positive "
         "integer, got '1.5'; e.g. 3*"),
        (["--graphbench-processes", "three"], "--graphbench-processes must be a positive "
         "integer, got 'three'; e.g. 3*"),
        (["--graphbench-processes", big], f"--graphbench-processes {big} is more than 1000 "
         "processes; each one starts a fresh interpreter and CUDA context; use a few (3 to 10) "
         "for a baseline"),
        # a process count says how a saved record is made: nothing saved, it is refused
        (["--graphbench-processes", "5"], "--graphbench-processes 5 without --graphbench-save: "
         "only a saved record is made of fresh processes; add --graphbench-save DIR, or leave "
         "out --graphbench-processes"),
        (["--graphbench-compare", "records", "--graphbench-processes", "5"],
         "--graphbench-processes 5 without --graphbench-save*"),
        # a control character in a value is written as its escape, never as itself
        (["--graphbench-compare", "no\nwhere"], "--graphbench-compare no\\nwhere: no such "
         "folder; make it with --graphbench-save no\\nwhere on a machine with a GPU"),
        (["--graphbench-compare", "no\x1b[2J"], "--graphbench-compare no\\x1b[[]2J: no such*"),
    ]


def test_bad_options_are_one_usage_error_before_any_test_runs(inner, pytester, tmp_path):
    for options, line in bad_options(pytester.path):
        result = inner("same", *options)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, options
        errors = [e for e in result.errlines if e.strip()]
        assert len(errors) == 1 and fnmatch(errors[0], f"ERROR: graphbench: {line}"), errors
        assert "Traceback" not in result.stdout.str() + result.stderr.str()
        assert not (tmp_path / "seen.json").exists(), options  # no test ran


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    """An environment where graphbench is installed as a wheel installs it,
    as far as pytest can tell: this checkout importable, and a distribution
    that declares pyproject's pytest11 entry points (ahead of any installed
    copy, which may be older)."""
    site = tmp_path_factory.mktemp("site")
    text = (ROOT / "pyproject.toml").read_text()
    section = text.split("[project.entry-points.pytest11]", 1)[1].split("\n[", 1)[0]
    entries = [line.replace('"', "") for line in section.splitlines() if "=" in line]
    assert entries == ["graphbench = graphbench.pytest_entry"]
    info = site / "graphbench_checkout-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: graphbench-checkout\n"
                                   "Version: 0\n")
    (info / "entry_points.txt").write_text("[pytest11]\n" + "\n".join(entries) + "\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    return {**env, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)])}


def pytest_in(folder: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, autoload", [
    (["-p", "graphbench.pytest_plugin"], True),  # the documented form for a checkout
    (["-p", "graphbench"], True),                # the entry point's name
    ([], True),                                  # the entry point alone
    (["-p", "graphbench"], False),
    (["-p", "graphbench.pytest_plugin"], False),
])
def test_every_way_of_loading_the_plugin_registers_it_once(installed, tmp_path, args, autoload):
    env = installed if autoload else {**installed, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    result = pytest_in(tmp_path, env, *args, "--help")
    assert result.returncode == 0, result.stderr
    assert "--graphbench-save=DIR" in result.stdout and "--graphbench-processes=N" in result.stdout


def test_a_conftest_may_load_the_plugin_beside_the_entry_point(installed, tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text('pytest_plugins = ["graphbench.pytest_plugin"]\n')
    (suite / "test_fixture.py").write_text(
        "def test_fixture(graphbench):\n    assert callable(graphbench.run)\n")
    result = pytest_in(suite, installed, "-q", "-p", "no:randomly")
    assert result.returncode == 0 and "1 passed" in result.stdout, result.stdout + result.stderr
    # the usual way to turn a plugin off still does
    result = pytest_in(tmp_path, installed, "-p", "no:graphbench", "--help")
    assert result.returncode == 0 and "--graphbench-save" not in result.stdout


@pytest.fixture(scope="module")
def option_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("options")
    (root / "empty").mkdir()
    (root / "afile").write_text("x")
    graphbench.api.save(root / "records" / "test_x.json", make_record(rounds=20))
    return root


NAMES = st.one_of(st.sampled_from(["records", "empty", "afile", "afile/x", "nothing", "",
                                   "records/", "./records", "empty/new/deeper"]),
                  st.text(st.sampled_from("ab./\0 -"), max_size=8).filter(lambda t: ".." not in t))
FOLDERS = st.one_of(st.none(), st.sampled_from(["", "/sys/x", "/", "/proc/1/x"]),
                    NAMES.map(lambda name: ("root", name)))
COUNTS = st.one_of(st.none(), st.text(max_size=6), st.integers(-5, 2**70).map(str),
                   st.sampled_from(["2^62", "1e3", "1e4", "3", "\uff13", " 3 ", "2^0"]))


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(save=FOLDERS, compare=FOLDERS, processes=COUNTS)
def test_odd_plugin_options_are_one_usage_error_or_checked_options(option_root, save, compare,
                                                                   processes):
    def placed(value):
        return f"{option_root}/{value[1]}" if isinstance(value, tuple) else value

    before = sorted(option_root.rglob("*"))
    try:
        options = session_options(placed(save), placed(compare), processes)
    except pytest.UsageError as exc:
        line, = exc.args
        assert line.startswith("graphbench: --graphbench-") and "\n" not in line, line
    else:
        assert isinstance(options, Options) and 1 <= options.processes <= 1000
        assert options.compare is None or any(options.compare.glob("*.json"))
    assert sorted(option_root.rglob("*")) == before  # checking writes nothing


def test_a_long_option_value_is_refused_in_a_line_that_fits_after_pytest_s_error(tmp_path):
    with pytest.raises(pytest.UsageError) as refused:
        session_options("a" * 5000, None, None)
    line, = refused.value.args
    assert len("ERROR: " + line) <= 200 and line.startswith("graphbench: --graphbench-save aaa")
    assert "File name too long" in line


def test_record_names_are_safe_file_names():
    assert record_name("tests/test_x.py::test_op[2^20-a/b]") == \
        "tests_test_x.py_test_op_2_20-a_b.json"
    assert record_name("t.py::test", 2) == "t.py_test-2.json"


REAL = """
import dataclasses
import os
import pytest
import graphbench.api

real_run = graphbench.api.run


def slowed(*args, **settings):
    \"\"\"The real measurement, its GPU busy time made 20% longer (GPU time:
    the host's speed, which swings, cannot hide it).\"\"\"
    record = real_run(*args, **settings)
    runs = tuple(dataclasses.replace(run, conditions=tuple(dataclasses.replace(c, busy={
        w: dataclasses.replace(r, us=1.2 * r.us) for w, r in c.busy.items()})
        for c in run.conditions)) for run in record.runs)
    return dataclasses.replace(record, runs=runs)


@pytest.fixture(autouse=True)
def injected(monkeypatch):
    if os.environ.get("GB_SLOW"):
        monkeypatch.setattr(graphbench.api, "run", slowed)


def test_op(graphbench):
    graphbench.run(modes="individual,graph", rounds=10, fail_on="individual.busy:5%")
"""


@pytest.mark.gpu
def test_on_a_gpu_save_compare_and_an_injected_slowdown_fails(pytester, monkeypatch):
    """For real: each session in a fresh process (a second run in one
    process measures slower kernels, see measure/benchmark.py)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    # this checkout's graphbench first, not another; what else the path held stays
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    pytester.makepyfile(test_real=REAL)
    saved = str(pytester.path / "saved")

    def session(*options):
        return pytester.runpytest_subprocess("-p", "graphbench.pytest_plugin",
                                             "-p", "no:cacheprovider", *options)
    session("--graphbench-save", saved).assert_outcomes(passed=1)
    session("--graphbench-compare", saved).assert_outcomes(passed=1)
    monkeypatch.setenv("GB_SLOW", "1")
    result = session("--graphbench-compare", saved)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*individual.busy*slower*"])


@pytest.mark.parametrize("option", ["--graphbench-compare", "--graphbench-processes"])
def test_an_option_value_of_5000_characters_is_shown_cut_short(option, tmp_path):
    from graphbench.pytest_plugin import session_options

    values = {"--graphbench-compare": (None, "x" * 5000, None),
              "--graphbench-processes": (str(tmp_path), None, "9" * 5000)}[option]
    with pytest.raises(pytest.UsageError) as refused:
        session_options(*values)
    assert option in str(refused.value) and len(str(refused.value)) < 400
