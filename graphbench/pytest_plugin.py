"""pytest plugin: a `graphbench` fixture that measures a pipeline in a test,
saves its record and gates it against a saved one.

    def test_my_op(graphbench):
        record = graphbench.run(my_pipeline, modes="individual,graph")

    pytest --graphbench-save DIR      # write each test's record to DIR
    pytest --graphbench-compare DIR   # gate each test against DIR's record

The options are checked when the session starts, before any test runs: a
compare folder that is missing or holds no records, a save folder that
cannot be written, a bad process count or one with nothing saved, or both
options on one folder are one usage error (pytest's exit 4, one line, its
control characters escaped). A regression fails the test
with the verdict table; a missing saved record fails it (never a pass) on a
machine with a GPU, and on one without is listed at the end of the session;
a record that cannot be judged, or wrong results, fail it; a machine
without a usable GPU skips it with the reason.

Registered through the `pytest11` entry point (graphbench.pytest_entry), so
it is loaded in every pytest session where graphbench is installed:
importing it stays cheap, and graphbench is imported only when an option is
given or a test asks for the fixture.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from graphbench.limits import MIN_PROCESSES
from graphbench.pytest_session import (Habits, add_options, autosave, bare_run, deselected,
                                       disabled, keep_verdicts, session_habits, verdict_table,
                                       verdict_text, verification_text)

SAVE, COMPARE, PROCESSES = "--graphbench-save", "--graphbench-compare", "--graphbench-processes"


def pytest_addoption(parser) -> None:
    group = parser.getgroup("graphbench", "graphbench: CUDA Graphs benchmarks")
    group.addoption(SAVE, metavar="DIR", default=None,
                    help="write each test's graphbench record to DIR (one JSON file per test)")
    group.addoption(COMPARE, metavar="DIR", default=None,
                    help="gate each test's graphbench record against its record in DIR, "
                    "with the default gate or the test's own fail_on")
    group.addoption(PROCESSES, metavar="N", default=None,
                    help=f"fresh processes for a saved record (default {MIN_PROCESSES}: the gate "
                    f"needs a baseline of {MIN_PROCESSES} or more to judge between processes)")
    add_options(group)


@dataclass
class Options:
    """The session's options, checked; and the tests that found no saved
    record on a machine without a GPU (shown at the end of the session)."""

    save: Path | None = None
    compare: Path | None = None
    processes: int = MIN_PROCESSES
    missing: list[tuple[str, Path]] = field(default_factory=list)
    habits: Habits = field(default_factory=Habits)


OPTIONS = pytest.StashKey[Options]()


def pytest_configure(config) -> None:
    options = session_options(config.getoption("graphbench_save"),
                              config.getoption("graphbench_compare"),
                              config.getoption("graphbench_processes"))
    options.habits = session_habits(config.getoption, bool(options.save),
                                    bool(options.compare))
    config.stash[OPTIONS] = options


def pytest_collection_modifyitems(config, items) -> None:
    deselected(items, config.stash[OPTIONS].habits)


def session_options(save: str | None, compare: str | None, processes: str | None) -> Options:
    """The options as given on the command line, checked before any test
    runs; pytest.UsageError (one line, naming the option) for the first
    that cannot work."""
    if save is None and compare is None and processes is None:
        return Options()
    from graphbench.counts import parse_processes
    from graphbench.errors import LINE_LIMIT, GraphbenchError, UsageError, shortened

    try:
        options = Options(save_folder(save), compare_folder(compare),
                          MIN_PROCESSES if processes is None
                          else parse_processes(processes, PROCESSES))
        check_distinct(options)
        if processes is not None and save is None:  # how a saved record is made: never ignored
            raise UsageError(f"{PROCESSES} {processes} without {SAVE}: only a saved record "
                             "is made of fresh processes",
                             f"add {SAVE} DIR, or leave out {PROCESSES}")
    except GraphbenchError as exc:  # pytest prints it after "ERROR: ", as one line
        raise pytest.UsageError(shortened(one_line(f"graphbench: {exc.one_line()}"),
                                          LINE_LIMIT - len("ERROR: "), "")) from None
    return options


def one_line(text: str) -> str:  # control characters escaped: a newline is no line of its own
    from graphbench.record.printable import printable

    return printable(text)


def save_folder(path: str | None) -> Path | None:
    """A folder records can be written to: it may not exist yet (it is made
    at the first save), but nothing on the way may be a file."""
    import stat

    from graphbench.errors import UsageError
    from graphbench.record.files import existing
    from graphbench.record.output_paths import check_folder

    if path is None:
        return None
    remedy = "give a folder this user can write (made if missing)"
    check_text(path, SAVE, remedy)
    try:
        found = existing(path, SAVE)
        if found is not None and not stat.S_ISDIR(found.st_mode):
            raise UsageError(f"{SAVE} {path} is a file, not a folder", remedy)
        check_folder(Path(path, "record.json") if found else path, SAVE)
    except UsageError as exc:
        raise UsageError(exc.message, exc.remedy or remedy) from None
    return Path(path)


def compare_folder(path: str | None) -> Path | None:
    """A folder that holds saved records (.json files)."""
    from graphbench.errors import UsageError
    from graphbench.record.files import shown_path

    if path is None:
        return None
    remedy, shown = f"give the folder {SAVE} wrote", shown_path(path) if len(path) > 200 else path
    check_text(path, COMPARE, remedy)
    try:
        records = [p for p in Path(path).iterdir() if p.suffix == ".json" and p.is_file()]
    except NotADirectoryError:
        raise UsageError(f"{COMPARE} {shown} is not a folder", remedy) from None
    except FileNotFoundError:
        raise UsageError(f"{COMPARE} {shown}: no such folder",
                         f"make it with {SAVE} {shown} on a machine with a GPU") from None
    except OSError as exc:
        raise UsageError(f"{COMPARE} {shown}: cannot read it ({exc.strerror or exc})",
                         remedy) from None
    if not records:
        raise UsageError(f"{COMPARE} {shown} holds no records (no .json file)",
                         f"make them with {SAVE} {shown} on a machine with a GPU")
    return Path(path)


def check_text(path: str, option: str, remedy: str) -> None:
    """A path that names nothing: empty, or with a NUL no file name holds."""
    from graphbench.errors import UsageError

    if path == "" or "\0" in path:
        raise UsageError(f"{option} {path!r}: " + ("an empty path" if path == "" else
                                                   "a NUL character, which no path holds"), remedy)


def check_distinct(options: Options) -> None:
    from graphbench.errors import UsageError

    if options.save and options.compare and \
            os.path.realpath(options.save) == os.path.realpath(options.compare):
        raise UsageError(f"{SAVE} and {COMPARE} name one folder: each test's record would "
                         "replace its baseline before it is judged", "save to another folder")


def record_name(node_id: str, call: int = 1) -> str:
    """A file name for a test's record: its node id with every character a
    file name may not safely hold replaced; a test's second run gets -2."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", node_id).strip("_.") or "test"
    return name + (f"-{call}" if call > 1 else "") + ".json"


def require_gpu() -> None:  # DeviceError unless the driver reports a usable GPU (no context)
    from graphbench.measure.device import list_devices

    list_devices()


class GraphbenchFixture:
    """What the `graphbench` fixture gives a test: `run`, as graphbench.run,
    with the session's saving and gating applied to its record; `bench`;
    and `check_replay`, as graphbench.check_replay, failing a stale replay."""

    def __init__(self, node_id: str, options: Options) -> None:
        self.node_id, self.options, self.calls = node_id, options, 0

    def run(self, pipeline=None, *, fail_on=None, **settings):
        from graphbench import api

        name, habits = record_name(self.node_id, self.calls + 1), self.options.habits
        api_call(api.fail_specs, fail_on)  # a mistyped spec fails now, not after the measurement
        ab = settings.get("ab") or habits.ab
        if self.options.compare and not ab:
            self._require_saved(self.options.compare / name)
        chosen = disabled(settings) if habits.disable else self._settings(settings, pipeline)
        record = api_call(api.run, pipeline, **({**chosen, "ab": ab} if ab else chosen))
        self.calls += 1
        if not record.verified:
            pytest.fail(one_line(verification_text(record)), pytrace=False)
        if self.options.save:
            api_call(api.save, self.options.save / name, record)
        if habits.autosave:
            api_call(autosave, record, habits, why="cannot store the record: ")
        if ab and not habits.disable:  # an A/B record is judged against its own base side
            self._gate(record, None, fail_on)
        elif self.options.compare:
            self._gate(record, self.options.compare / name, fail_on)
        return record

    def bench(self, fn, *inputs, fail_on=None, **settings):
        """A bare torch or CuPy function, as graphbench.bench (one process:
        a function object cannot be sent to fresh ones)."""
        spec, chosen = bare_run(fn, inputs, settings)
        return self.run(spec, fail_on=fail_on, **chosen)

    def check_replay(self, fn, *args, **options):
        """graphbench.check_replay in a test: a stale replay fails it, with
        each finding's class and evidence in one line; a replay that cannot
        be judged fails it too (no usable GPU skips it)."""
        from graphbench import api

        check = api_call(api.check_replay, fn, *args, **options)
        if check.judgement.unjudged:
            pytest.fail(one_line(f"graphbench: cannot judge the replay: "
                                 f"{check.judgement.unjudged}"), pytrace=False)
        if not check.passed:
            pytest.fail(one_line("graphbench: stale replay: " + "; ".join(
                f"{f.kind}: {f.evidence}" for f in check.judgement.findings)), pytrace=False)
        return check

    def _settings(self, settings: dict, pipeline=None) -> dict:
        """A saved record is a baseline the gate can judge against: made of
        several fresh processes (a pipeline object runs in this one)."""
        given = settings.get("processes", 1)
        if not self.options.save or isinstance(given, bool) or not isinstance(given, int) \
                or given < 1 or not isinstance(pipeline, (str, os.PathLike, type(None))):
            return settings  # a bad processes is graphbench.run's to refuse, never replaced
        return {**settings, "processes": max(self.options.processes, given)}

    def _require_saved(self, saved: Path) -> None:
        """Fail closed without a saved record: at once on a machine with a
        GPU; on one without (nothing can be measured), skip and list the
        test at the end of the session, so it never passes for a skip."""
        from graphbench.errors import DeviceError

        if saved.is_file():
            return
        try:
            require_gpu()
            no_gpu = None
        except DeviceError as exc:
            no_gpu = exc.one_line()
        if no_gpu is not None:  # skipped outside the except block: one line, no chained error
            self.options.missing.append((self.node_id, saved))
            pytest.skip(one_line(f"graphbench: no usable GPU: {no_gpu}; and no saved record "
                                 f"{saved} (listed at the end of the session)"))
        pytest.fail(one_line(f"graphbench: no saved record {saved} for {self.node_id}; make "
                             f"one with {SAVE} {saved.parent}"), pytrace=False)

    def _gate(self, record, saved: Path | None, fail_on) -> None:
        """Against the saved record, or (None) an A/B record against its base side."""
        from graphbench import api

        against = saved if saved is not None else "its base side"
        comparison = api_call(api.compare, *((saved, record) if saved else (record, None)),
                              fail_on, why=f"cannot judge {self.node_id} against {against}: ")
        keep_verdicts(self.node_id, comparison, self.options.habits)
        if not comparison.passed:
            pytest.fail(verdict_text(comparison, against), pytrace=False)


def api_call(call, *args, why: str = "", **kwargs):
    """`call`'s result; a graphbench error ends the test in one line: no
    usable GPU skips it (nothing can be measured), any other fails it. The
    skip or failure is raised outside the except block, so that pytest
    shows no chained exception ("During handling of the above ...")."""
    from graphbench.errors import DeviceError, GraphbenchError

    try:
        return call(*args, **kwargs)
    except DeviceError as exc:
        skipped, line = True, f"graphbench: no usable GPU: {exc.one_line()}"
    except GraphbenchError as exc:
        skipped, line = False, f"graphbench: {why}{exc.one_line()}"
    if skipped:
        pytest.skip(one_line(line))
    pytest.fail(one_line(line), pytrace=False)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """The tests skipped without a GPU that have no saved record either: a
    missing baseline must not pass for a plain skip."""
    options = config.stash.get(OPTIONS, None)
    if options:
        verdict_table(terminalreporter, options.habits)
    if not options or not options.missing:
        return
    terminalreporter.section("graphbench: no saved record", sep="=", red=True, bold=True)
    for node_id, saved in options.missing:
        terminalreporter.line(f"{node_id}: no {saved}")
    terminalreporter.line(f"{len(options.missing)} test(s) have no baseline to be judged "
                          f"against; make them with {SAVE} {options.compare} on a machine "
                          "with a GPU")


@pytest.fixture
def graphbench(request) -> GraphbenchFixture:
    """Measure a pipeline in this test: `graphbench.run(pipeline, **settings)`."""
    return GraphbenchFixture(request.node.nodeid, request.config.stash[OPTIONS])
