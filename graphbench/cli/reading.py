"""The sub-commands that read what exists: report (render records), compare
(the gate on two records, or on one A/B record) and kernels (compile
offline). Validated arguments -> one library call -> render -> exit code."""

from __future__ import annotations

import gc
from pathlib import Path

from graphbench.cli import outputs
from graphbench.cli.attribution import show_attribution, traced as _traced
from graphbench.cli.gate import gate
from graphbench.cli.outputs import check_outputs
from graphbench.cli.progress import console
from graphbench.errors import EXIT_OK, HistoryError, RecordError, UsageError
from graphbench.record.model import RunRecord, SweepRecord
from graphbench.record.printable import printable


LEFT_TO_EXIT: list = []  # records read by this command, which end with the process


def kept_until_exit(records):
    """`records`, moved out of the collector's sight and left for the
    process's end to free (graphbench.__main__ exits without freeing them):
    the interpreter's last collection over a large record's millions of
    objects, and freeing them, would keep the user waiting after the report
    is out (docs/measurement.md#host-side-costs)."""
    gc.freeze()
    LEFT_TO_EXIT[:] = [records]  # this command's only: main() may run many times in a process
    return records


def cmd_report(args) -> int:
    from graphbench.record.codec import read_record

    check_outputs(args)
    records = kept_until_exit([(path, read_record(path)) for path in args.files])
    runs = [(p, r) for p, r in records if isinstance(r, RunRecord)]
    sweeps = [(p, r) for p, r in records if isinstance(r, SweepRecord)]
    if args.plot and len(records) != 1:
        raise UsageError("--plot draws one record: a sweep's chart, or a run's rounds",
                         "give one FILE")
    if args.timeline and (len(runs) != 1 or not _traced(runs[0][1])):
        raise UsageError("--timeline needs one run record with an --attribute trace",
                         "give one record written by graphbench run --attribute --json")
    if args.json and len(records) != 1:
        raise UsageError("report --json writes one record again: give one FILE")
    markdown = show_runs(runs, args.verbose) + show_sweeps(sweeps)
    if len(runs) == 1:
        show_attribution(args, runs[0][1])
    if args.plot:
        chart = plot_record(args.plot, records[0][1])
        console().print(f"chart written to {printable(str(chart))}", style="dim")
    write_report_outputs(args, records, "\n\n".join(markdown) + "\n")
    return EXIT_OK


def plot_record(path: str, record: RunRecord | SweepRecord) -> Path:
    """A sweep's chart, or a run's rounds (graphbench.report.round_plot)."""
    from graphbench.report.chart import sweep_panels
    from graphbench.report.chart_files import write_chart
    from graphbench.report.round_plot import round_panels, write_round_plot

    if isinstance(record, SweepRecord):
        return write_chart(path, sweep_panels(record))
    return write_round_plot(path, round_panels(record))


def write_report_outputs(args, records, markdown: str) -> None:
    from graphbench.report.csv_rows import report_csv

    for option, make in (("markdown", lambda: markdown), ("csv", lambda: report_csv(records)),
                         ("json", lambda: outputs.record_text(records[0][1]))):
        if getattr(args, option):
            outputs.emit(option, getattr(args, option), make())


def show_runs(runs: list[tuple[str, RunRecord]], verbose: bool) -> list[str]:
    """Print one run in full, or several side by side; return their markdown."""
    from graphbench.report.run import run_report, runs_side_by_side
    from graphbench.report.tables import markdown_table, simple_table

    if not runs:
        return []
    if len(runs) == 1:
        console().print(run_report(runs[0][1], verbose=verbose))
        show_ab(runs[0][1])
        return [markdown_table(*runs_side_by_side([runs[0][1]], [runs[0][0]]))]
    columns, rows = runs_side_by_side([r for _, r in runs], [Path(p).name for p, _ in runs])
    console().print(simple_table("records side by side", columns, rows))
    return [markdown_table(columns, rows)]


def show_ab(record: RunRecord) -> None:
    """An A/B record also shows its candidate build against its base build."""
    from graphbench.gate.ab import compare_ab, is_ab
    from graphbench.report.compare import comparison_report

    if is_ab(record):
        console().print(comparison_report(compare_ab(record)))


def show_sweeps(sweeps: list[tuple[str, SweepRecord]]) -> list[str]:
    from graphbench.report.sweep import sweep_markdown, sweep_report

    for _, sweep in sweeps:
        console().print(sweep_report(sweep))
    return [sweep_markdown(sweep) for _, sweep in sweeps]


def cmd_compare(args) -> int:
    from graphbench.cli.series import against_series, compare_series, earlier_records

    check_outputs(args)
    if not against_series(args):
        return compare_pair(args)
    earlier = kept_until_exit(earlier_records(args))
    if not earlier.shortfall:
        return compare_series(args, earlier)
    try:  # too short a series: the newest one record, as compare last always judged
        return compare_pair(args)
    except (RecordError, HistoryError) as exc:
        from graphbench.cli.series import with_shortfall

        raise with_shortfall(exc, earlier) from None


def compare_pair(args) -> int:
    from graphbench.cli.history import compare_records

    records = kept_until_exit(compare_records(args))  # files, or references to stored records
    if args.current is None:  # one A/B record
        (record, name), = records
        return gate(None, record, args, None, name, json_out=args.json, csv_out=args.csv)
    (baseline, baseline_name), (current, current_name) = records
    return gate(baseline, current, args, baseline_name, current_name, json_out=args.json,
                csv_out=args.csv)


def cmd_kernels(args) -> int:
    from graphbench.measure.kernels import compile_report, validate_arch
    from graphbench.preflight import kernels_preflight
    from graphbench.report.kernels import kernels_table

    arch = validate_arch(args.arch)  # before NVRTC, whose log would say less
    required, source = kernels_preflight(args.pipeline, args.kernel_source, arch, args.params)
    console().print(kernels_table(compile_report(arch, source, required), arch))
    return EXIT_OK


