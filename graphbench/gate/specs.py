"""What the gate judges: `--fail-on` specs and the default gate.

A spec is METRIC[@SIZE]:THRESHOLD, e.g. graph.wall:10%, individual.busy@2^24:5%,
individual.wall:0.5us, speedup:5%. The default gate judges the components,
each mode's wall time, the launch floor (floor.launch: an empty kernel's
launch; floor.replay: a one-node graph's replay) and each GPU workload's busy
time (at the run's size and at every --gate-sizes size both records have);
the speedup is shown but not gated unless asked for, since it falls when
individual launches get faster. Host-bound figures are judged only like with
like (graphbench.gate.host_match); an A/B run gates them all, the speedup
too (graphbench.gate.ab).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphbench.config import ALL_MODES, MAX_ELEMENTS
from graphbench.counts import parse_count, power_label
from graphbench.metrics import GATE_FIELDS
from graphbench.stats.host_readings import FLOOR_METRICS, floor_values
from graphbench.errors import UsageError
from graphbench.record.model import RunRecord


SPEEDUP_METRICS = ("speedup", "speedup.fused")
DEFAULT_SHOWN = ("speedup:5%",)  # shown, not gated
DEFAULT_WALL, DEFAULT_BUSY = "{mode}.wall:10%", "{mode}.busy{size}:5%"
# the launch path alone: a slower driver, interpreter or cuda-core shows here
DEFAULT_FLOOR = tuple(f"{metric}:10%" for metric in FLOOR_METRICS)
_SPEC = re.compile(r"^([a-z_.-]+)(?:@([0-9^e]+))?:(\d+(?:\.\d+)?)(%|us|x)$", re.ASCII)


@dataclass(frozen=True)
class FailSpec:
    metric: str                  # speedup, speedup.fused or MODE.FIELD
    threshold: float             # a fraction when relative, else us or x
    relative: bool
    gated: bool = True           # False: shown for information only
    size: int | None = None      # a --gate-sizes point; None: the run's own size

    @property
    def name(self) -> str:
        return self.metric + (f"@{elements_label(self.size)}" if self.size else "")

    @property
    def text(self) -> str:
        unit = "x" if self.metric.startswith("speedup") else "us"
        return f"{self.threshold:.0%}" if self.relative else f"{self.threshold:g}{unit}"


def elements_label(count: int) -> str:
    """A size in a metric's name (graph.busy@2^20), written so it parses back."""
    return power_label(count, separator="")




def parse_size(text: str, option: str = "--fail-on") -> int:
    size = parse_count(text, f"{option} size", "an element count")
    if not 0 < size <= MAX_ELEMENTS:
        raise UsageError(f"{option} size {text} is not an element count a GPU can hold",
                         "e.g. graph.busy@2^24:5%")
    return size


def parse_spec(text: str, gated: bool = True, option: str = "--fail-on") -> FailSpec:
    """A spec from its text; `option`: what the caller calls the specs
    (the API: fail_on)."""
    match = _SPEC.match(text.strip())
    if not match:
        raise UsageError(f"{option} {text!r} is not METRIC[@SIZE]:THRESHOLD",
                         "e.g. graph.wall:10%, individual.busy@2^24:5%, individual.wall:0.5us")
    metric, size, number, unit = match.groups()
    check_metric_name(metric)
    speedup = metric.startswith("speedup")
    if (speedup and unit == "us") or (not speedup and unit == "x"):
        raise UsageError(f"{option} {text!r}: {metric} takes % or {'x' if speedup else 'us'}",
                         "e.g. graph.wall:10%, individual.wall:0.5us, speedup:5%")
    return FailSpec(metric, float(number) / 100 if unit == "%" else float(number), unit == "%",
                    gated, parse_size(size, option) if size else None)


def check_metric_name(metric: str) -> None:
    if metric in SPEEDUP_METRICS or metric in FLOOR_METRICS:
        return
    mode, _, field = metric.partition(".")
    if mode not in ALL_MODES or field not in GATE_FIELDS:
        raise UsageError(f"unknown metric {metric!r}",
                         f"use speedup, speedup.fused, {', '.join(FLOOR_METRICS)} or "
                         f"MODE.{{{','.join(GATE_FIELDS)}}} "
                         f"with MODE one of {', '.join(ALL_MODES)}")


def check_spec_fields(item: FailSpec, where: str) -> None:
    """A spec built by hand, checked as parse_spec builds one: a finite
    threshold of 0 or more, flags that are bools, a size a GPU can hold."""
    import sys

    from graphbench.pipeline.spec import _short  # a value of any size in one short line

    threshold = item.threshold
    real = isinstance(threshold, (int, float)) and not isinstance(threshold, bool)
    if not real or not 0 <= threshold <= sys.float_info.max:  # an int beyond it: OverflowError
        raise UsageError(f"{where} has threshold {_short(threshold)}",
                         "a threshold is a finite number of 0 or more")
    for name in ("relative", "gated"):
        if not isinstance(getattr(item, name), bool):
            raise UsageError(f"{where} has {name}={_short(getattr(item, name))}",
                             f"{name} is True or False")
    if item.size is not None and (type(item.size) is not int or not 0 < item.size <= MAX_ELEMENTS):
        raise UsageError(f"{where} has size {_short(item.size)}",
                         f"a size is None or an element count from 1 to {MAX_ELEMENTS:,}")


def check_specs(specs: list[FailSpec], option: str = "--fail-on") -> list[FailSpec]:
    """A metric gated twice is a typo or a contradiction: refuse it."""
    seen: dict[str, str] = {}
    for spec in specs:
        if spec.name in seen:
            raise UsageError(f"{option} gates {spec.name} twice ({seen[spec.name]} and "
                             f"{spec.text})", "give each metric once")
        seen[spec.name] = spec.text
    return specs


def default_specs(baseline: RunRecord) -> list[FailSpec]:
    """Every mode's wall time, and busy time once per GPU workload (individual
    and graph share one series: a slower kernel is one regression, not two),
    at the run's size and at each of the baseline's gate sizes."""
    specs = [parse_spec(text, gated=False) for text in DEFAULT_SHOWN]
    specs += [parse_spec(DEFAULT_WALL.format(mode=mode)) for mode in baseline.mode_names]
    specs += [parse_spec(text) for text, metric in zip(DEFAULT_FLOOR, FLOOR_METRICS)
              if any(floor_values(run, metric) for run in baseline.runs)]
    for point in (baseline, *baseline.gate_points):
        size = "" if point is baseline else f"@{point.config.elements}"
        specs += [parse_spec(DEFAULT_BUSY.format(mode=mode, size=size))
                  for mode in first_mode_per_workload(point)]
    return specs


def first_mode_per_workload(record: RunRecord) -> list[str]:
    seen, modes = set(), []
    for mode in record.mode_names:
        if record.samples(mode, "busy") and record.workload(mode) not in seen:
            seen.add(record.workload(mode))
            modes.append(mode)
    return modes
