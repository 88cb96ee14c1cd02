"""`compare last FILE` against FILE's series: the stored records of its
pipeline, machine class and configuration (graphbench.history.series),
judged by graphbench.gate.series where MIN_SERIES or more are stored
before it. With fewer, compare last judges the newest one record as it
always has (graphbench.history.refs), and where that cannot judge, the
error says how many more records the series needs."""

from __future__ import annotations

from dataclasses import dataclass

from graphbench.gate.series import SERIES_WINDOW
from graphbench.cli.history_files import is_file
from graphbench.cli.progress import console
from graphbench.errors import GraphbenchError
from graphbench.history.refs import LAST
from graphbench.history.series import SeriesKey, series_runs
from graphbench.limits import MIN_SERIES
from graphbench.record.model import RunRecord


@dataclass(frozen=True)
class Earlier:
    """The current record file and the earlier records of its series."""

    current: RunRecord
    series: SeriesKey
    records: list[RunRecord]
    commits: list[str | None]

    @property
    def shortfall(self) -> int:
        return max(MIN_SERIES - len(self.records), 0)


def against_series(args) -> bool:
    """compare last FILE: the one form judged against a series."""
    return (args.current is not None and args.baseline.strip() == LAST
            and not is_file(args.baseline) and is_file(args.current))


def earlier_records(args) -> Earlier:
    """The newest SERIES_WINDOW records of FILE's series made before it (or
    at its time), never FILE's own text, only those the gate can judge."""
    from graphbench.gate.judge import is_judgeable
    from graphbench.history.keys import key_for
    from graphbench.history.store import History
    from graphbench.record.codec import read_run
    from graphbench.record.files import read_text

    current = read_run(args.current)
    key = key_for(current, read_text(args.current), None)
    series = SeriesKey.of(key, current)
    with History.open(getattr(args, "history", None), create=False) as history:
        runs = series_runs(history, series, until=key.created, exclude=key.id,
                           limit=SERIES_WINDOW, keep=is_judgeable)
    return Earlier(current, series, [record for _, record in runs],
                   [stored.git_commit for stored, _ in runs])


def compare_series(args, earlier: Earlier) -> int:
    """The gate on FILE against its series: verdicts, outputs, exit code."""
    from graphbench.cli.gate import gate

    name = f"its series {earlier.series.id} ({len(earlier.records)} records)"
    if not getattr(args, "quiet", False):
        console().print(f"{args.current} judged against its series {earlier.series.id}: "
                        f"{len(earlier.records)} earlier records of "
                        f"{earlier.series.pipeline} on {earlier.series.machine_class}",
                        style="dim", markup=False, highlight=False)
    return gate(None, earlier.current, args, name, args.current,
                series=(earlier.records, earlier.commits))


def with_shortfall(exc: GraphbenchError, earlier: Earlier) -> GraphbenchError:
    """The pair's error (no earlier record, or none it can judge), its remedy
    saying how many more records the series needs before compare last
    judges by it."""
    held = len(earlier.records)
    return type(exc)(exc.message, f"store {earlier.shortfall} more record(s) of this machine "
                       f"class and configuration (run --save): compare last judges one record "
                       f"against a series of {MIN_SERIES}, this one holds {held}",
                       details=exc.details)


@dataclass(frozen=True)
class Listed:
    """What history list says of a stored run record's series: its id, and
    each step that starts at the record (metric, verdict, change)."""

    series: str
    steps: tuple[tuple[str, str, object], ...] = ()

    def step_text(self) -> str:
        return ", ".join(f"{metric} {verdict} {change.estimate:+.1%}"
                         for metric, verdict, change in self.steps) or "-"

    def as_json(self) -> dict:
        return {"series": self.series, "steps": [
            {"metric": metric, "verdict": verdict, "change": change.estimate,
             "change_low": change.low, "change_high": change.high}
            for metric, verdict, change in self.steps]}


def listed_series(history, keys) -> tuple[dict[str, Listed], int]:
    """The series of each listed run record and the steps of the series
    that start at it (the gated metrics of the default gate: busy time
    wherever a series holds it), by record id; and how many stored records
    of those series the reader refused."""
    from graphbench.gate.judge import is_judgeable
    from graphbench.gate.series import figures
    from graphbench.history.series import class_runs, grouped

    runs, refused = class_runs(history, keys)
    found: dict[str, Listed] = {}
    for series, group in grouped(runs).items():
        found.update({key.id: Listed(series.id) for key, _ in group})
        judged = [(key, record) for key, record in group if is_judgeable(record)]
        steps: dict[str, list] = {}
        for figure in figures([r for _, r in judged], [k.git_commit for k, _ in judged]):
            for step in figure.found.steps if figure.found and figure.spec.gated else ():
                first = judged[figure.indices[step.index]][0]
                steps.setdefault(first.id, []).append((figure.spec.name, step.verdict,
                                                       step.change))
        found.update({i: Listed(series.id, tuple(s)) for i, s in steps.items()})
    return found, refused
