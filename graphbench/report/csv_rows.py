"""Records as CSV: the figures of the tables, one row per mode (per point
and mode for a sweep, per metric for a comparison). Rows come from the same
derived objects the tables render (RunSummary, the ladder, the verdicts),
never from rendered text. Units are in the header; the column order is part
of the interface (tests pin it), so new columns go at the end."""

from __future__ import annotations

import csv
import io

from graphbench.config.params import params_text
from graphbench.record.model import RunRecord, SweepRecord

RUN_COLUMNS = ("device", "elements", "depth", "iters", "mode", "verified", "rounds",
               "wall_median_us", "wall_iqr_us", "submit_us", "busy_us", "idle_us",
               "speedup_x", "x_floor", "grid", "block",  # the launch shape: a sweep's axis
               "params")  # pipeline()'s own (--param): name=value ...
REPORT_COLUMNS = ("record",) + RUN_COLUMNS
COMPARE_COLUMNS = ("metric", "unit", "baseline", "current", "change_pct", "detects_pct",
                   "threshold", "gated", "verdict", "p_value", "note")


def cell(value) -> str:
    """Six significant digits (the tables show fewer); '' for a figure not measured."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def csv_text(columns, rows) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([[cell(v) for v in row] for row in rows])
    return buffer.getvalue()


def run_rows(record: RunRecord) -> list[list]:
    """One row per mode of the run, then of each of its gate sizes."""
    from graphbench.stats.ladder import ladder
    from graphbench.stats.summary import summarize_run

    rows = []
    for point in (record, *record.gate_points):
        summary, cfg = summarize_run(point), point.config
        for row in ladder(summary).rows:
            wall = summary.modes[row.mode].wall
            rows.append([point.device.index, cfg.elements, cfg.depth, cfg.iters, row.mode,
                         point.verified, wall.n, row.wall_us, wall.iqr, row.submit_us,
                         row.busy_us, row.idle_gap_us, row.speedup, row.from_floor,
                         cfg.grid, cfg.block, params_text(cfg.params)])
    return rows


def sweep_rows(sweep: SweepRecord) -> list[list]:
    return [row for point in sweep.points for row in run_rows(point)]


def run_csv(record: RunRecord) -> str:
    return csv_text(RUN_COLUMNS, run_rows(record))


def sweep_csv(sweep: SweepRecord) -> str:
    return csv_text(RUN_COLUMNS, sweep_rows(sweep))


def report_csv(records: list[tuple[str, RunRecord | SweepRecord]]) -> str:
    rows = []
    for name, record in records:
        found = run_rows(record) if isinstance(record, RunRecord) else sweep_rows(record)
        rows += [[name, *row] for row in found]
    return csv_text(REPORT_COLUMNS, rows)


def comparison_csv(comparison) -> str:
    rows = []
    for v in comparison.verdicts:
        unit = "x" if v.metric.startswith("speedup") else "us"
        rows.append([v.metric, unit, v.baseline, v.current,
                     None if v.change is None else v.change * 100,
                     None if v.detectable is None else v.detectable * 100,
                     v.threshold, v.gated, v.verdict, v.p_value, v.note])
    return csv_text(COMPARE_COLUMNS, rows)
