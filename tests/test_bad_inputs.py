"""Property-based: whatever a record file holds, and whatever arguments are
given, graphbench ends with exit 0, 1 or 2, one line on stderr for 2, and
never a traceback (an exception escaping main fails these tests)."""

import contextlib
import io
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests_helpers import short_error

from graphbench.cli import main

RECORDS = Path(__file__).resolve().parent / "records"
RUN = json.loads((RECORDS / "same_code.json").read_text())
SWEEP = json.loads((RECORDS / "sweep.json").read_text())
BASELINE = str(RECORDS / "baseline.json")
SETTINGS = settings(max_examples=int(__import__("os").environ.get("GRAPHBENCH_EXAMPLES", 60)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def paths(value, prefix=()):
    """Every place in a JSON document: keys of objects, indices of lists."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):  # a few of each list keep it quick
            yield from paths(item, prefix + (index,))


REPLACEMENTS = st.sampled_from(["nan", None, {}, [], "x", -1, 0, True, 1e308, 2**80, "NaN",
                                [[[[]]]], {"a": 1}, 10**401, -1e308, "\ud800", float("nan"),
                                -0.5, 1e12 + 1])


def mutated(document, path, action, replacement):
    document = json.loads(json.dumps(document))
    if not path:
        return replacement
    *head, last = path
    parent = document
    for key in head:
        parent = parent[key]
    if action == "drop":
        del parent[last]
    else:
        parent[last] = replacement
    return document


def run_cli(argv) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


def assert_clean(code: int, err: str, verbose: bool = False) -> None:
    """No traceback; an error is short, but under --verbose, which prints it whole."""
    assert code in (0, 1, 2), code
    assert "Traceback" not in err
    if code == 2:
        assert err.startswith("graphbench: error: ") if verbose else short_error(err), err


def check_file(text_or_bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "record.json"
        if isinstance(text_or_bytes, bytes):
            path.write_bytes(text_or_bytes)
        else:
            path.write_text(text_or_bytes)
        for argv in (["report", str(path)], ["report", "--verbose", str(path)],
                     ["compare", BASELINE, str(path)], ["compare", str(path)]):
            assert_clean(*run_cli(argv), verbose="--verbose" in argv)


@pytest.mark.slow
@SETTINGS
@given(data=st.data(), document=st.sampled_from([RUN, SWEEP]))
def test_a_mutated_record_never_ends_in_a_traceback(data, document):
    path = data.draw(st.sampled_from(list(paths(document))))
    action = data.draw(st.sampled_from(["drop", "replace"] if path else ["replace"]))
    replacement = data.draw(REPLACEMENTS)
    check_file(json.dumps(mutated(document, path, action, replacement)))


@pytest.mark.slow
@SETTINGS
@given(cut=st.floats(0, 1), junk=st.binary(max_size=8), depth=st.integers(1, 100_000))
def test_truncated_binary_and_deep_files_never_end_in_a_traceback(cut, junk, depth):
    text = json.dumps(RUN)
    check_file(text[: int(len(text) * cut)])
    check_file(text.encode()[: int(len(text) * cut)] + junk)
    check_file("[" * depth + "]" * depth)


ARGS = st.lists(st.sampled_from([
    "--elements", "--iters", "--rounds", "--depth", "--modes", "--warmup", "--stages",
    "--max-noise", "--min-rounds", "--max-time", "--device", "--seed", "--threshold", "--arch",
    "--gate-sizes", "--processes", "--fail-on", "4096", "0", "-1", "2^20", "2^-1", "9^99999",
    "1e999", "nan", "abc", "1..2^40", "individual,warp", "graph", "all", "", "5%", "sm_9x",
    "grph.busy:3%", "1.1x", "--bogus"]), max_size=6)


@pytest.mark.slow
@SETTINGS
@given(command=st.sampled_from(["run", "sweep", "kernels"]), args=ARGS)
def test_random_arguments_are_judged_before_any_gpu_work(command, args):
    """No driver here: anything that passes parsing stops at the missing GPU
    (exit 2 too), so every outcome must be one clean line."""
    argv = [command, *args]
    if command == "kernels":
        argv = [a for a in argv if a not in ("--kernel-source",)]
    code, err = run_cli(argv + ["--no-progress"] if command != "kernels" else argv)
    assert_clean(code, err)
