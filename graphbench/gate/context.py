"""What differs between two records besides the code under test: hardware,
host speed, kernel sources, pinning, package versions, measured SM clocks.
Each difference is a note on the comparison; some change how it is judged."""

from __future__ import annotations

import numpy as np

from graphbench.stats.stats import median
from graphbench.config.params import params_text
from graphbench.record.model import RunRecord

# Not iters: every figure is per iteration, and a run chooses its own count by
# time (about 10 ms a round), which moves with the host's speed; a note says so
CONFIG_KEYS = ("elements", "flush_l2", "stages", "depth", "params")  # params: pipeline()'s
CLOCK_TOLERANCE = 0.02
PACKAGES = ("cuda-core", "cuda-bindings", "cupy-cuda13x")


def config_mismatch(baseline: RunRecord, current: RunRecord) -> list[str]:
    out = []
    if baseline.pipeline.name != current.pipeline.name:
        out.append(f"pipeline {baseline.pipeline.name} vs {current.pipeline.name}")
    for key in CONFIG_KEYS:
        b, c = getattr(baseline.config, key), getattr(current.config, key)
        if b != c:
            shown = (",".join(b), ",".join(c)) if isinstance(b, tuple) else \
                (params_text(b) or "none", params_text(c) or "none") if isinstance(b, dict) \
                else (b, c)
            out.append(f"{key} {shown[0]} vs {shown[1]}")
    return out


def same_hardware(baseline: RunRecord, current: RunRecord) -> bool:
    return (baseline.device.name, baseline.device.driver_version) == \
        (current.device.name, current.device.driver_version)


def same_physical_gpu(baseline: RunRecord, current: RunRecord) -> bool:
    """Both records ran on the same physical GPU (by UUID); unknown counts as not."""
    b, c = baseline.device.uuid, current.device.uuid
    return bool(b) and b == c


def device_notes(baseline: RunRecord, current: RunRecord) -> list[str]:
    """Which hardware the two records ran on, when it differs."""
    b, c = baseline.device, current.device
    if not same_hardware(baseline, current):
        return [f"different device or driver ({b.name} {b.driver_version} vs {c.name} "
                f"{c.driver_version}): times are shown, not gated"]
    if not same_physical_gpu(baseline, current):
        return [f"different physical GPUs ({_short(b.uuid)} vs {_short(c.uuid)}): the spread "
                "between GPUs of one model is part of the noise"]
    return []


def measured_clock(record: RunRecord) -> float | None:
    """The median SM clock the busy readings measured (where they did)."""
    measured = [readings.clocks for readings in record.condition_columns.busy.values()]
    clocks = np.concatenate(measured) if measured else np.zeros(0)
    return median(clocks) if clocks.size else None


def difference_notes(baseline: RunRecord, current: RunRecord) -> list[str]:
    """Differences worth knowing that do not by themselves stop the gate."""
    notes, b, c = [], baseline.pipeline, current.pipeline
    if baseline.config.iters != current.config.iters:
        notes.append(f"iterations per round {baseline.config.iters} vs {current.config.iters}: "
                     "figures are per iteration")
    if b.kernel_source_sha256 != c.kernel_source_sha256:
        notes.append(f"kernel sources differ ({b.kernel_source} {_short(b.kernel_source_sha256)} "
                     f"vs {c.kernel_source} {_short(c.kernel_source_sha256)})")
    if b.harness_sha256 and c.harness_sha256 and b.harness_sha256 != c.harness_sha256:
        notes.append("graphbench's own harness kernels differ: the instrument changed")
    pinned = [{run.environment.pinned_cpu is not None for run in r.runs} for r in (baseline, current)]
    if pinned[0] != pinned[1]:
        notes.append("one record pinned its launching thread and the other did not")
    for name in PACKAGES:
        if baseline.packages.get(name) != current.packages.get(name):
            notes.append(f"{name} {baseline.packages.get(name)} vs {current.packages.get(name)}")
    clocks = measured_clock(baseline), measured_clock(current)
    if all(clocks) and abs(clocks[1] - clocks[0]) / clocks[0] > CLOCK_TOLERANCE:
        notes.append(f"measured SM clock differs ({clocks[0]:.0f} vs {clocks[1]:.0f} MHz): GPU "
                     "time moves with it")
    return notes


def _short(digest: str | None) -> str:
    return digest.removeprefix("GPU-")[:12] if digest else "?"
