"""The sub-commands that read what exists: report (render records), compare
(the gate on two records, or on one A/B record) and kernels (compile
offline). Validated arguments -> one library call -> render -> exit code."""

from __future__ import annotations

import gc
from pathlib import Path

from graphbench.cli.attribution import show_attribution, traced as _traced
from graphbench.cli.gate import gate
from graphbench.cli.outputs import check_outputs, write_outputs
from graphbench.cli.progress import console
from graphbench.errors import EXIT_OK, HistoryError, RecordError, UsageError
from graphbench.record.model import RunRecord, SweepRecord
from graphbench.report.outputs import RECORDS


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
    show_runs(runs, args.verbose)
    show_sweeps(sweeps)
    if len(runs) == 1:
        show_attribution(runs[0][1])
    write_outputs(args, RECORDS, records)
    return EXIT_OK


def show_runs(runs: list[tuple[str, RunRecord]], verbose: bool) -> None:
    """Print one run in full, or several side by side."""
    from graphbench.report.run import run_report, runs_side_by_side
    from graphbench.report.tables import simple_table

    if len(runs) == 1:
        console().print(run_report(runs[0][1], verbose=verbose))
        show_ab(runs[0][1])
    elif runs:
        columns, rows = runs_side_by_side([r for _, r in runs], [Path(p).name for p, _ in runs])
        console().print(simple_table("records side by side", columns, rows))


def show_ab(record: RunRecord) -> None:
    """An A/B record also shows its candidate build against its base build."""
    from graphbench.gate.ab import compare_ab, is_ab
    from graphbench.report.compare import comparison_report

    if is_ab(record):
        console().print(comparison_report(compare_ab(record)))


def show_sweeps(sweeps: list[tuple[str, SweepRecord]]) -> None:
    from graphbench.report.sweep import sweep_report

    for _, sweep in sweeps:
        console().print(sweep_report(sweep))


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
        return gate(None, record, args, None, name)
    (baseline, baseline_name), (current, current_name) = records
    return gate(baseline, current, args, baseline_name, current_name)


def cmd_kernels(args) -> int:
    from graphbench.measure.kernels import compile_report, validate_arch
    from graphbench.preflight import kernels_preflight
    from graphbench.report.kernels import kernels_table

    arch = validate_arch(args.arch)  # before NVRTC, whose log would say less
    required, source = kernels_preflight(args.pipeline, args.kernel_source, arch, args.params)
    console().print(kernels_table(compile_report(arch, source, required), arch))
    return EXIT_OK


