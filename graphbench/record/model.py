"""The typed records. Raw measurements and the configuration are the truth;
every statistic is derived from them (graphbench.analyze.summary), never
stored here and never read back from a file.

A run record holds one ProcessRun per process that measured it: merging the
records of several processes is a key check followed by concatenating runs.
Only the JSON boundary (graphbench.record.codec) knows how these are spelled
in a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from graphbench.config import RunConfig, SweepConfig

TIME_METRICS = ("wall", "submit", "device", "busy")


@dataclass(frozen=True)
class DeviceInfo:
    index: int
    name: str
    compute_capability: str
    arch: str
    uuid: str | None = None
    multiprocessors: int | None = None
    l2_bytes: int | None = None
    total_memory_bytes: int | None = None
    free_memory_bytes: int | None = None
    driver_version: str | None = None
    cuda_driver_version: str | None = None
    cuda_runtime_version: str | None = None
    nvrtc_version: str | None = None
    sm_clock_mhz: int | None = None
    sm_clock_max_mhz: int | None = None
    memory_clock_mhz: int | None = None


@dataclass(frozen=True)
class ToolInfo:
    name: str
    version: str
    git_commit: str | None = None
    git_dirty: bool | None = None


@dataclass(frozen=True)
class HostInfo:
    hostname: str = ""
    platform: str = ""
    processor: str = ""


@dataclass(frozen=True)
class Check:
    name: str            # e.g. "graph", "graph: replay with new data"
    passed: bool
    elements: int
    bad_elements: int
    max_abs_error: float | None  # None: a NaN or infinite element (JSON has neither)
    first_bad_index: int | None


@dataclass(frozen=True)
class Condition:
    """Device and host readings after one set of rounds."""

    sm_clock_mhz: int | None = None
    throttle_reasons: tuple[str, ...] = ()
    host_probe_us: float | None = None
    busy_us: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ModeSamples:
    """Per-iteration microseconds of one mode, one value per timed round;
    busy holds one value per set of rounds (empty when it was not measured)."""

    wall_us: tuple[float, ...]
    submit_us: tuple[float, ...]
    device_us: tuple[float, ...]
    busy_us: tuple[float, ...] = ()

    def series(self, metric: str) -> tuple[float, ...]:
        return getattr(self, f"{metric}_us")


@dataclass(frozen=True)
class LaunchFloorSamples:
    """Wall microseconds per launch, one value per repetition of many launches."""

    kernel_launch_us: tuple[float, ...]   # an empty kernel
    graph_replay_us: tuple[float, ...]    # a one-node graph


@dataclass(frozen=True)
class LifecycleSamples:
    """A graph's one-off costs, one value per repetition."""

    capture_us: tuple[float, ...]
    instantiate_us: tuple[float, ...]
    upload_us: tuple[float, ...]
    first_launch_us: tuple[float, ...]


@dataclass(frozen=True)
class UpdateSamples:
    """Re-pointing an instantiated graph at other buffers, against building anew."""

    node_update_us: tuple[float, ...]
    whole_graph_update_us: tuple[float, ...]
    recapture_instantiate_us: tuple[float, ...]


EXTRA_TYPES = {"launch_floor": LaunchFloorSamples, "graph_lifecycle": LifecycleSamples,
               "graph_update": UpdateSamples}


@dataclass(frozen=True)
class Environment:
    other_gpu_processes: tuple[int, ...] | None = None
    pinned_cpu: int | None = None


@dataclass(frozen=True)
class ProcessRun:
    """What one process measured."""

    seed: int
    rounds: int
    stop_reason: str
    elapsed_s: float             # the whole run, compile to record
    sampling_s: float | None     # the timed rounds alone; None when none ran
    modes: dict[str, ModeSamples]
    conditions: tuple[Condition, ...]
    checks: tuple[Check, ...]
    launch_floor: LaunchFloorSamples | None = None
    graph_lifecycle: LifecycleSamples | None = None
    graph_update: UpdateSamples | None = None
    environment: Environment = field(default_factory=Environment)


@dataclass(frozen=True)
class PipelineInfo:
    stages: tuple[str, ...]
    depth: int
    kernel_launches_per_iteration: int
    grid: tuple[int, ...]
    block: tuple[int, ...]
    kernel_source: str = "shipped"
    kernel_source_sha256: str | None = None


@dataclass(frozen=True)
class LegacyProcesses:
    """A version-1 merged record stored its processes' rounds concatenated,
    without where each process began, plus each process's medians. Those
    medians are kept here so the gate reads such a baseline as it did."""

    count: int
    medians: dict[str, tuple[float, ...]]


@dataclass(frozen=True)
class RunRecord:
    tool: ToolInfo
    created: str
    host: HostInfo
    packages: dict[str, str | None]
    device: DeviceInfo
    config: RunConfig
    pipeline: PipelineInfo
    runs: tuple[ProcessRun, ...]
    legacy_processes: LegacyProcesses | None = None

    @property
    def process_count(self) -> int:
        return self.legacy_processes.count if self.legacy_processes else len(self.runs)

    @property
    def mode_names(self) -> tuple[str, ...]:
        return tuple(self.runs[0].modes) if self.runs else ()

    def samples(self, mode: str, metric: str) -> tuple[float, ...]:
        """One metric of one mode over every process's rounds, in order."""
        return tuple(x for run in self.runs if mode in run.modes
                     for x in run.modes[mode].series(metric))

    def extra_samples(self, section: str):
        """launch_floor, graph_lifecycle or graph_update over every process
        that measured it; None when none did."""
        parts = [getattr(run, section) for run in self.runs if getattr(run, section)]
        if not parts:
            return None
        return EXTRA_TYPES[section](**{f.name: tuple(x for part in parts for x in getattr(part, f.name))
                                       for f in fields(EXTRA_TYPES[section])})

    @property
    def conditions(self) -> tuple[Condition, ...]:
        return tuple(c for run in self.runs for c in run.conditions)

    @property
    def checks(self) -> tuple[Check, ...]:
        if len(self.runs) == 1:
            return self.runs[0].checks
        return tuple(Check(**{**vars(c), "name": f"process {i + 1}: {c.name}"})
                     for i, run in enumerate(self.runs) for c in run.checks)

    @property
    def verified(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)

    @property
    def rounds(self) -> int:
        return sum(run.rounds for run in self.runs)

    @property
    def stop_reason(self) -> str:
        return ", ".join(sorted({run.stop_reason for run in self.runs}))


@dataclass(frozen=True)
class SweepRecord:
    tool: ToolInfo
    created: str
    host: HostInfo
    config: SweepConfig
    device: DeviceInfo | None
    points: tuple[RunRecord, ...]
    complete: bool

    def point(self, elements: int, depth: int) -> RunRecord | None:
        return next((p for p in self.points if p.config.elements == elements
                     and p.config.depth == depth), None)


@dataclass(frozen=True)
class Verdict:
    metric: str
    verdict: str
    gated: bool
    threshold: str
    baseline: float | None = None
    current: float | None = None
    change: float | None = None       # relative, current vs baseline
    p_value: float | None = None
    noise: float | None = None        # the larger of the two records' noise
    note: str = ""


@dataclass(frozen=True)
class Comparison:
    verdicts: tuple[Verdict, ...]
    notes: tuple[str, ...]
    incompatible: tuple[str, ...]

    @property
    def regressions(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.gated and v.verdict == "slower"]

    @property
    def passed(self) -> bool:
        return not self.regressions and not self.incompatible
