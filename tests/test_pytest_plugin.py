"""The pytest plugin, run with pytester on CPU: its options, the GPU-less
skip, and save -> compare -> an injected slowdown fails the test. The
measurement is replaced by synthetic records (tests/conftest.py make_record)
read from files the outer test writes; the inner session loads only this
plugin (-p), with no conftest and no entry-point plugins."""

from pathlib import Path

import pytest
from conftest import make_record

import graphbench.api
from graphbench.analyze.merge import merge_runs
from graphbench.pytest_plugin import record_name

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
WALLS = {"individual": 14.0, "graph": 4.3, "fused": 4.6}
INNER = '''
import os
import pytest
import graphbench.api
from graphbench.errors import DeviceError
from graphbench.record.codec import read_run


def fake_run(pipeline=None, **settings):
    if os.environ["GB_RECORD"] == "no-gpu":
        raise DeviceError("no NVIDIA driver found (libcuda could not be loaded)")
    return read_run(os.environ["GB_RECORD"])


@pytest.fixture(autouse=True)
def synthetic(monkeypatch):
    monkeypatch.setattr(graphbench.api, "run", fake_run)


def test_op(graphbench):
    record = graphbench.run("add_mul_sub", modes="individual,graph",
                            fail_on=os.environ.get("GB_FAIL_ON") or None)
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
               "wrong": make_record(WALLS, rounds=20, seed=4, passed=False)}

    def run(name: str, *options: str, fail_on: str = ""):
        path = "no-gpu" if name == "no-gpu" else str(graphbench.api.save(
            tmp_path / f"{name}.json", records[name]))
        monkeypatch.setenv("GB_RECORD", path)
        monkeypatch.setenv("GB_FAIL_ON", fail_on)
        return pytester.runpytest("-p", "graphbench.pytest_plugin", "-p", "no:cacheprovider",
                                  "-rsf", *options)
    return run


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


def test_save_then_compare_then_a_slowdown_fails_with_the_verdict_table(inner, pytester):
    saved = pytester.path / "saved"
    inner("base", "--graphbench-save", str(saved)).assert_outcomes(passed=1)
    assert [p.name for p in saved.iterdir()] == ["test_inner.py_test_op.json"]
    inner("same", "--graphbench-compare", str(saved)).assert_outcomes(passed=1)
    result = inner("slow", "--graphbench-compare", str(saved))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*graphbench: FAIL*", "*graph.wall*slower*"])
    # the test's own fail_on gates only what it names
    inner("slow", "--graphbench-compare", str(saved), fail_on="fused.wall:10%"
          ).assert_outcomes(passed=1)


def test_a_mistyped_fail_on_is_an_error_before_measuring(inner):
    result = inner("same", fail_on="graph.wall:ten")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*UsageError*--fail-on*"])


def test_a_missing_saved_record_fails_closed(inner, pytester):
    result = inner("same", "--graphbench-compare", str(pytester.path / "nothing"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no saved record*test_inner.py_test_op.json*"
                                 "--graphbench-save*"])


def test_a_failed_verification_fails_the_test_and_is_not_saved(inner, pytester):
    saved = pytester.path / "saved"
    result = inner("wrong", "--graphbench-save", str(saved))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*graphbench: verification failed*"])
    assert not saved.exists()


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
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # this checkout's graphbench, not another
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
