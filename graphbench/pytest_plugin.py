"""pytest plugin: a `graphbench` fixture that measures a pipeline in a test,
saves its record and gates it against a saved one.

    def test_my_op(graphbench):
        record = graphbench.run(my_pipeline, modes="individual,graph")

    pytest --graphbench-save DIR      # write each test's record to DIR
    pytest --graphbench-compare DIR   # gate each test against DIR's record

A regression fails the test with the verdict table; a missing saved record,
or one that cannot be judged, fails it too (never a pass); wrong results
fail it; a machine without a usable GPU skips it with the reason.

Registered through the `pytest11` entry point, so it is loaded in every
pytest session where graphbench is installed: importing it stays cheap, and
graphbench is imported only when a test asks for the fixture.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphbench.limits import MIN_PROCESSES


def pytest_addoption(parser) -> None:
    group = parser.getgroup("graphbench", "graphbench: CUDA Graphs benchmarks")
    group.addoption("--graphbench-save", metavar="DIR", default=None,
                    help="write each test's graphbench record to DIR (one JSON file per test)")
    group.addoption("--graphbench-compare", metavar="DIR", default=None,
                    help="gate each test's graphbench record against its record in DIR, "
                    "with the default gate or the test's own fail_on")
    group.addoption("--graphbench-processes", metavar="N", type=int, default=3,
                    help="fresh processes for a saved record (default 3: the gate needs a "
                    "baseline of 3 or more to judge between processes)")


def record_name(node_id: str, call: int = 1) -> str:
    """A file name for a test's record: its node id with every character a
    file name may not safely hold replaced; a test's second run gets -2."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", node_id).strip("_.") or "test"
    return name + (f"-{call}" if call > 1 else "") + ".json"


class GraphbenchFixture:
    """What the `graphbench` fixture gives a test: `run`, as graphbench.run,
    with the session's saving and gating applied to its record."""

    def __init__(self, node_id: str, save_dir: str | None, compare_dir: str | None,
                 save_processes: int = MIN_PROCESSES) -> None:
        self.node_id, self.save_dir, self.compare_dir = node_id, save_dir, compare_dir
        self.save_processes, self.calls = save_processes, 0

    def run(self, pipeline=None, *, fail_on=None, **settings):
        from graphbench import api
        from graphbench.errors import DeviceError

        from graphbench.errors import UsageError

        api.fail_specs(fail_on)  # a mistyped spec fails now, not after the measurement
        if self.save_dir:  # a baseline the gate can judge against: several fresh processes
            settings = {**settings, "processes": max(self.save_processes,
                                                     settings.get("processes", 1))}
        try:
            record = api.run(pipeline, **settings)
        except DeviceError as exc:
            pytest.skip(f"graphbench: no usable GPU: {exc.one_line()}")
        except UsageError as exc:
            pytest.fail(f"graphbench: {exc.one_line()}", pytrace=False)
        self.calls += 1
        name = record_name(self.node_id, self.calls)
        if not record.verified:
            pytest.fail(verification_text(record), pytrace=False)
        if self.save_dir:
            api.save(Path(self.save_dir) / name, record)
        if self.compare_dir:
            self._gate(record, Path(self.compare_dir) / name, fail_on)
        return record

    def _gate(self, record, saved: Path, fail_on) -> None:
        from graphbench import api
        from graphbench.errors import GraphbenchError

        if not saved.is_file():  # fail closed: nothing to compare with is not a pass
            pytest.fail(f"graphbench: no saved record {saved} for {self.node_id}; make one "
                        f"with --graphbench-save {saved.parent}", pytrace=False)
        try:
            comparison = api.compare(saved, record, fail_on)
        except GraphbenchError as exc:
            pytest.fail(f"graphbench: cannot judge {self.node_id} against {saved}: "
                        f"{exc.one_line()}", pytrace=False)
        if not comparison.passed:
            pytest.fail(verdict_text(comparison, saved), pytrace=False)


def verification_text(record) -> str:
    from graphbench.report.run import failure_text

    failed = [c for p in (record, *record.gate_points) for c in p.checks if not c.passed]
    return "graphbench: verification failed: " + "; ".join(map(failure_text, failed))


def verdict_text(comparison, saved: Path) -> str:
    from graphbench.report.compare import comparison_report, decision_line
    from graphbench.report.tables import to_text

    return (f"graphbench: {decision_line(comparison)} (against {saved})\n"
            + to_text(comparison_report(comparison)))


@pytest.fixture
def graphbench(request) -> GraphbenchFixture:
    """Measure a pipeline in this test: `graphbench.run(pipeline, **settings)`."""
    option = request.config.getoption
    return GraphbenchFixture(request.node.nodeid, option("graphbench_save"),
                             option("graphbench_compare"), option("graphbench_processes"))
