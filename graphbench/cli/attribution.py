"""Printing and writing a record's --attribute trace (run and report)."""

from __future__ import annotations

from graphbench.cli.outputs import per_device_path
from graphbench.cli.progress import console
from graphbench.record.model import RunRecord
from graphbench.record.printable import printable


def show_attribution(args, record: RunRecord, device: int = 0, count: int = 1) -> None:
    """A record with an --attribute trace: its tables, timeline and --timeline file."""
    from graphbench.stats.stage_figures import record_attribution
    from graphbench.report.attribution import attribution_report, write_record_timeline

    if record_attribution(record) is None:
        return
    console().print(attribution_report(record))
    if getattr(args, "timeline", None):
        path = write_record_timeline(per_device_path(args.timeline, device, count), record)
        console().print(f"timeline written to {printable(str(path))}", style="dim")


def traced(record: RunRecord) -> bool:
    from graphbench.stats.stage_figures import record_attribution

    return record_attribution(record) is not None
