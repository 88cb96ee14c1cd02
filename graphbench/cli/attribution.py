"""Printing a record's --attribute trace (run and report); its --timeline
file is an output of the registry (graphbench.report.outputs)."""

from __future__ import annotations

from graphbench.cli.progress import console
from graphbench.record.model import RunRecord


def show_attribution(record: RunRecord) -> None:
    """A record with an --attribute trace: its tables and timeline."""
    from graphbench.stats.stage_figures import record_attribution
    from graphbench.report.attribution import attribution_report

    if record_attribution(record) is None:
        return
    console().print(attribution_report(record))


def traced(record: RunRecord) -> bool:
    from graphbench.stats.stage_figures import record_attribution

    return record_attribution(record) is not None
