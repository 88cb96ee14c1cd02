"""Every output format, once: its flag, and for each kind of thing it can
render (a run record, a sweep record, the records `report` reads, a
comparison's verdicts) the renderer and the help text of its flag.

The command line's flags, the commands that write them, --profile's
refusals and the launch shapes' per-shape files all read OUTPUTS, so a new
format is its renderer and one entry here. A text renderer returns the
text (`-` may take it: standard output); a picture's writes the file
itself and returns its path (None: nothing to draw), and its path is
checked first by `picture`. Renderers import what they use when called:
building the parser imports no report."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

RUN, SWEEP, RECORDS, COMPARISON, REPLAY = "run", "sweep", "records", "comparison", "replay"
STDOUT_HELP = "- for standard output; the report then goes to stderr"


@dataclass(frozen=True)
class Render:
    """One format of one kind: make(thing) -> text, or a picture's
    make(path, thing) -> its path; the flag's help; what "written to" names
    (None: written without a word, as the gate's files are)."""
    make: Callable[..., Any]
    help: str
    noun: str | None = None


@dataclass(frozen=True)
class Output:
    name: str  # --NAME, and args.NAME
    renders: dict[str, Render] = field(default_factory=dict)
    picture: Callable[[str], None] | None = None  # a picture's path check (its suffix)

    @property
    def flag(self) -> str:
        return f"--{self.name}"


@dataclass(frozen=True)
class Verdicts:
    """What the comparison kind renders: the gate's verdicts and the names of its sides."""
    comparison: Any
    baseline_name: str
    current_name: str


def outputs_for(kinds: tuple[str, ...]) -> list[tuple[Output, str]]:
    """Each output a command of these kinds has, with the kind it renders
    there: the first of `kinds` it can render (run's --json is the record,
    its --markdown the gate's verdicts)."""
    return [(output, next(k for k in kinds if k in output.renders))
            for output in OUTPUTS.values() if any(k in output.renders for k in kinds)]


def record_text(record) -> str:
    """The record as --json writes it, with its block of derived figures."""
    from graphbench.stats.summary import summary_document
    from graphbench.record.codec import run_document, sweep_document
    from graphbench.record.model import RunRecord

    document = run_document(record, summary_document) if isinstance(record, RunRecord) \
        else sweep_document(record, summary_document)
    return json_text(document)


def json_text(document: dict) -> str:
    return json.dumps(document, indent=2, allow_nan=False) + "\n"  # as codec.write_json


def _run_csv(record) -> str:
    from graphbench.report.csv_rows import run_csv

    return run_csv(record)


def _sweep_csv(sweep) -> str:
    from graphbench.report.csv_rows import sweep_csv

    return sweep_csv(sweep)


def _records_csv(records) -> str:
    from graphbench.report.csv_rows import report_csv

    return report_csv(records)


def _sweep_markdown(sweep) -> str:
    from graphbench.report.sweep import sweep_markdown

    return sweep_markdown(sweep)


def records_markdown(records) -> str:
    """report --markdown: one run's table, several runs side by side, then each sweep's tables."""
    from pathlib import Path

    from graphbench.record.model import RunRecord
    from graphbench.report.run import runs_side_by_side
    from graphbench.report.tables import markdown_table

    runs = [(p, r) for p, r in records if isinstance(r, RunRecord)]
    names = [p for p, _ in runs] if len(runs) == 1 else [Path(p).name for p, _ in runs]
    tables = [markdown_table(*runs_side_by_side([r for _, r in runs], names))] if runs else []
    sweeps = [r for _, r in records if not isinstance(r, RunRecord)]
    return "\n\n".join(tables + [_sweep_markdown(sweep) for sweep in sweeps]) + "\n"


def _verdicts_markdown(v: Verdicts) -> str:
    from graphbench.report.compare import comparison_markdown

    return comparison_markdown(v.comparison, v.baseline_name, v.current_name)


def _verdicts_json(v: Verdicts) -> str:
    from graphbench.record.codec import COMPARE_SCHEMA, to_json

    return json_text({"schema": COMPARE_SCHEMA, "schema_version": 3,
                      "passed": v.comparison.passed,
                      "regressions": [r.metric for r in v.comparison.regressions],
                      **to_json(v.comparison)})


def _replay_json(check) -> str:
    from graphbench.report.replay import replay_document

    return json_text(replay_document(check))


def _verdicts_csv(v: Verdicts) -> str:
    from graphbench.report.csv_rows import comparison_csv

    return comparison_csv(v.comparison)


def _check_chart(path: str) -> None:
    from graphbench.report.chart import check_chart_path

    check_chart_path(path)


def _check_timeline(path: str) -> None:
    from graphbench.report.timeline import check_timeline_path

    check_timeline_path(path)


def _sweep_chart(path: str, sweep):
    from graphbench.report.chart import sweep_panels
    from graphbench.report.chart_files import write_chart

    return write_chart(path, sweep_panels(sweep))


def _record_plot(path: str, records):
    """report --plot of its one record: a sweep's chart, or a run's rounds."""
    from graphbench.record.model import SweepRecord
    from graphbench.report.round_plot import round_panels, write_round_plot

    record = records[0][1]
    if isinstance(record, SweepRecord):
        return _sweep_chart(path, record)
    return write_round_plot(path, round_panels(record))


def _run_timeline(path: str, record):
    """A run's --attribute timeline; None for a record with no trace to draw."""
    from graphbench.stats.stage_figures import record_attribution
    from graphbench.report.attribution import write_record_timeline

    return None if record_attribution(record) is None else write_record_timeline(path, record)


def _records_timeline(path: str, records):
    from graphbench.record.model import RunRecord

    runs = [r for _, r in records if isinstance(r, RunRecord)]
    return _run_timeline(path, runs[0]) if len(runs) == 1 else None


CSV_HELP = "write {} as CSV to FILE (- for standard output), units in the header"
TABLES_HELP = "write the tables as markdown (- for standard output)"
TIMELINE_HELP = ("with an --attribute trace: write one iteration per rung on one time axis "
                 "to FILE (.svg or .png)")

OUTPUTS: dict[str, Output] = {output.name: output for output in (
    Output("json", {
        RUN: Render(record_text, f"write the record to FILE ({STDOUT_HELP})", "record"),
        SWEEP: Render(record_text, "write the sweep record (rewritten after every point) to "
                      f"FILE ({STDOUT_HELP})", "sweep record"),
        RECORDS: Render(lambda records: record_text(records[0][1]), "write the one record "
                        "again, in the current schema (- for standard output)", "json"),
        COMPARISON: Render(_verdicts_json, "write the verdicts as JSON (- for standard "
                           "output)"),
        REPLAY: Render(_replay_json, "write the verdict, each finding and every case's "
                       f"outcome to FILE ({STDOUT_HELP})", "replay record")}),
    Output("markdown", {
        SWEEP: Render(_sweep_markdown, TABLES_HELP, "markdown"),
        RECORDS: Render(records_markdown, TABLES_HELP, "markdown"),
        COMPARISON: Render(_verdicts_markdown, "write the comparison as a markdown table (CI "
                           "job summary; - for standard output)")}),
    Output("csv", {
        RUN: Render(_run_csv, CSV_HELP.format("one row per mode"), "CSV"),
        SWEEP: Render(_sweep_csv, CSV_HELP.format("one row per point and mode"), "csv"),
        RECORDS: Render(_records_csv, CSV_HELP.format("one row per mode of each run record "
                                                      "and per point of a sweep"), "csv"),
        COMPARISON: Render(_verdicts_csv, CSV_HELP.format("one row per metric"))}),
    Output("plot", {
        SWEEP: Render(_sweep_chart, "write the charts to FILE (.svg or .png)", "chart"),
        RECORDS: Render(_record_plot, "draw one record (.svg or .png): a sweep's chart, or a "
                        "run's rounds per mode and their paired ratios", "chart")},
           picture=_check_chart),
    Output("timeline", {
        RUN: Render(_run_timeline, TIMELINE_HELP, "timeline"),
        RECORDS: Render(_records_timeline, TIMELINE_HELP, "timeline")},
           picture=_check_timeline),
)}
