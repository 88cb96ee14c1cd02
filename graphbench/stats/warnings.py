"""Stability warnings as data: each names what looks wrong, on which mode,
and what to do about it. A pure function of a record, so a saved record can
be re-assessed and every rule can be tested on data built to trigger it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from graphbench.stats.stats import summarize
from graphbench.record.columns import Columns, columns_of
from graphbench.record.model import Condition, RunRecord

HIGH_CV = 0.10
OUTLIER_HIGH = 1.25   # max this many times the median
OUTLIER_LOW = 0.80    # min this fraction of the median
CLOCK_DROP = 0.90     # lowest SM clock seen below this fraction of the highest
MIN_ROUND_S = 1e-3    # a round under 1 ms is too close to timer and event resolution
CLOCK_BELOW_MAX = 0.97    # SM clock measured during the timed work, against the maximum


@dataclass(frozen=True)
class Warning:
    code: str
    subject: str
    message: str
    remedy: str


def mode_warnings(name: str, wall_us: Sequence[float], iters: int) -> list[Warning]:
    found, s = [], summarize(wall_us)
    if s.n > 1 and s.cv >= HIGH_CV:
        found.append(Warning("high-cv", name, f"{name}: wall time varies by {s.cv:.0%} (CV) "
                             "between rounds", "close other GPU and CPU work, or raise --iters"))
    if s.max >= OUTLIER_HIGH * s.median or s.min <= OUTLIER_LOW * s.median:
        found.append(Warning("outliers", name, f"{name}: rounds range {s.min:.2f}..{s.max:.2f} us "
                             f"around a median of {s.median:.2f} us", "the machine changed speed "
                             "during sampling; run again or raise --min-rounds"))
    if s.median * iters / 1e6 < MIN_ROUND_S:
        found.append(Warning("short-round", name, f"{name}: a round lasts only "
                             f"{s.median * iters:.0f} us, close to the timers' resolution",
                             f"raise --iters to at least {int(MIN_ROUND_S * 1e6 / s.median) + 1}"))
    return found


def condition_warnings(conditions: Sequence[Condition] | Columns) -> list[Warning]:
    found, columns = [], conditions if isinstance(conditions, Columns) else columns_of(conditions)
    clocks = [clock for clock in columns.values("sm_clock_mhz") if clock]
    if clocks and min(clocks) < CLOCK_DROP * max(clocks):
        found.append(Warning("clock-drop", "device", f"SM clock fell from {max(clocks)} to "
                             f"{min(clocks)} MHz during sampling", "the GPU changed speed (power "
                             "or thermal management); let it cool or check its cooling and power "
                             "limits"))
    reasons = sorted({r for some in columns.values("throttle_reasons") for r in some})
    if reasons:
        found.append(Warning("throttled", "device", "the driver reported clock throttling: "
                             f"{', '.join(reasons)}", "check cooling, power and other load"))
    return found


def probe_warnings(conditions: Sequence[Condition] | Columns,
                   max_mhz: int | None) -> list[Warning]:
    """From the readings behind the hold kernel (the conditions, or their
    columns: graphbench.record.columns): did the hold cover the host's
    submission, and did the SMs run at their maximum clock?"""
    found, columns = [], conditions if isinstance(conditions, Columns) else columns_of(conditions)
    readings = columns.every_reading()
    short, held = sum(r.uncovered for r in readings), sum(len(r) for r in readings)
    if short:
        found.append(Warning("hold-too-short", "device", f"in {short} of {held} "
                             "held readings the hold kernel ended before the host had queued "
                             "the work, so host time may be in those figures", "the host was "
                             "slower than 20 ms per replay; quiet the machine"))
    clocks = np.concatenate([r.clocks for r in columns.busy.values()] or [np.zeros(0)])
    if clocks.size and max_mhz and clocks.min() < CLOCK_BELOW_MAX * max_mhz:
        found.append(Warning("clock-below-max", "device", f"the SMs ran at {clocks.min():.0f}.."
                             f"{clocks.max():.0f} MHz during the timed work (measured with "
                             f"clock64), below their {max_mhz} MHz maximum", "busy times are "
                             "slower than the GPU can be: check power and thermal limits, or "
                             "compare only records made at the same clock"))
    return found


def record_warnings(record: RunRecord, walls: Mapping[str, Sequence[float]]) -> list[Warning]:
    found = []
    for name, wall_us in walls.items():
        found += mode_warnings(name, wall_us, record.config.iters)
    found += condition_warnings(record.condition_columns)
    found += probe_warnings(record.condition_columns, record.device.sm_clock_max_mhz)
    others = [pid for run in record.runs for pid in run.environment.other_gpu_processes or ()]
    if others:
        found.append(Warning("other-processes", "device", f"{len(others)} other process(es) use "
                             f"this GPU (pids {', '.join(map(str, others))})",
                             "run graphbench on an idle GPU"))
    earlier = max((run.environment.earlier_runs for run in record.runs), default=0)
    if earlier > 0:
        found.append(Warning("earlier-runs", "run", f"measured in a process that had run "
                             f"graphbench {earlier} time(s) before: there the GPU-bound figures "
                             "of small kernels read up to 35% higher than in a fresh process",
                             "give the pipeline as a file or shipped name, which graphbench "
                             "measures in a fresh process"))
    found += [Warning("skipped", "run", note, "free device memory, or choose a smaller "
                      "--elements" if "memory" in note or "GiB" in note else
                      "this figure does not apply to this pipeline or rung")
              for run in record.runs for note in run.skipped]
    return found
