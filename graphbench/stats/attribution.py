"""Per-stage figures of `run --attribute`, derived from the raw CUPTI kernel
records (graphbench.record.trace): a pure function of the record.

How kernels are assigned:
- A stage's kernels are the ones it launched when it ran alone (its
  StageWindow); for a kernel pipeline that is its one kernel, for a torch
  or CuPy stage whatever the framework launched.
- A traced batch runs a known number of iterations back to back, so its
  kernels (sorted by start, graphbench's own loop kernels aside) split into
  that many iterations of the expected count. Within an iteration, kernels
  go to stages by order, and by name where the order differs; a kernel may
  repeat across stages (depth > 1), so order decides between them.
- A kernel's gap is the idle GPU between the previous kernel's end and its
  start; a negative gap is overlap (PDL, or work on another stream). The
  first iteration of a batch follows a host sync, so its first gap is left
  out. In the loop rung, the gaps around loop_count and its own time are
  the conditional node's cost, not stage 1's gap.
- A graph rung whose replay lacks kernels its stages ran alone is a capture
  escape, named kernel by kernel: work the replay does not do, a failed
  check. Kernels the replay adds (a library may pick another kernel
  sequence under capture) are a difference to show, each with its time,
  and fail nothing.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from graphbench.ladder import rung
from graphbench.record.model import Check
from graphbench.record.trace import Attribution, KernelActivity, RungTrace

NS_PER_US = 1000.0


@dataclass(frozen=True)
class StageFigures:
    index: int                   # 1-based
    stage: str
    kernels: tuple[str, ...]     # as the stage launched them alone
    gpu_us: float                # kernel time, median over iterations
    gap_us: float | None         # idle before and between its kernels (None: never measured)
    overlap_us: float            # how far it started before its predecessor ended
    share: float                 # of the iteration's period


@dataclass(frozen=True)
class Escape:
    missing: tuple[tuple[str, float], ...]  # kernel name, launches per iteration
    extra: tuple[tuple[str, float], ...]
    extra_us: tuple[float, ...] = ()        # each added kernel's median GPU time per launch

    @property
    def fails(self) -> bool:
        """Only work the replay lacks is an escape that fails the run."""
        return bool(self.missing)

    def lacks_text(self) -> str:
        return f"replay lacks {_names(self.missing)}" if self.missing else ""

    def adds_text(self) -> str:
        if not self.extra:
            return ""
        timed = [f"{name}{'' if count == 1 else f' x{count:g}'} ({us:,.2f} us each)"
                 for (name, count), us in zip(self.extra, self.extra_us)]
        return "replay adds " + (", ".join(timed) if timed else _names(self.extra))

    def text(self) -> str:
        return "; ".join(part for part in (self.lacks_text(), self.adds_text()) if part)


@dataclass(frozen=True)
class RungFigures:
    mode: str
    iterations: int
    kernels_per_iteration: float       # graphbench's own loop kernels aside
    expected_kernels: int              # what the stages launched alone (0: unknown)
    stages: tuple[StageFigures, ...]   # empty when the kernels could not be assigned
    period_us: float | None            # end of one iteration to the end of the next
    loop_us: float | None              # the loop rung's conditional node, per iteration
    escape: Escape | None
    untraced_wall_us: float | None
    traced_wall_us: float | None
    loop_from_events: bool = False     # loop_us from CUDA-event device time (stage_figures.loop_cost)

    @property
    def accounted_us(self) -> float:
        """Stage times plus gaps (and the loop's conditional), less overlap."""
        return sum(s.gpu_us + (s.gap_us or 0.0) - s.overlap_us for s in self.stages) + \
            (self.loop_us or 0.0)

    @property
    def inside_us(self) -> float:
        """What one replay of a one-iteration graph spends on the GPU: the
        gap before its first stage is the host launching the next replay,
        which busy time, replaying many iterations in one graph, does not
        have (docs/profiling.md#per-stage-attribution-run---attribute)."""
        first_gap = (self.stages[0].gap_us or 0.0) if self.stages else 0.0
        return self.accounted_us - first_gap


def _names(pairs) -> str:
    return ", ".join(name if count == 1 else f"{name} x{count:g}" for name, count in pairs)


def expected_stages(attribution: Attribution, workload: str) -> list[tuple[str, tuple[str, ...]]]:
    """(stage, kernel names in launch order) for each stage of `workload`."""
    return [(w.stage, tuple(k.name for k in sorted(w.kernels, key=_order)))
            for w in attribution.stages if w.workload == workload]


def _order(kernel: KernelActivity):
    return kernel.start_ns, kernel.correlation_id


def batches(trace: RungTrace) -> list[list[KernelActivity]]:
    found: dict[int, list[KernelActivity]] = {}
    for kernel in trace.kernels:
        found.setdefault(kernel.batch, []).append(kernel)
    return [sorted(found[b], key=_order) for b in sorted(found)]


def escape_of(attribution: Attribution, trace: RungTrace) -> Escape | None:
    """What a rung's batches ran per iteration beyond or short of its stages."""
    expected = Counter(n for _, names in expected_stages(attribution, trace.workload)
                       for n in names)
    if not expected:
        return None
    harness = set(attribution.harness_kernels)
    ran = Counter(k.name for k in trace.kernels if k.name not in harness)
    runs = len(batches(trace)) * trace.iterations_per_batch or 1
    missing = tuple((n, (c * runs - ran[n]) / runs) for n, c in expected.items()
                    if ran[n] < c * runs)
    extra = tuple((n, (c - expected[n] * runs) / runs) for n, c in sorted(ran.items())
                  if c > expected[n] * runs)
    return Escape(missing, extra, _times(trace, extra)) if missing or extra else None


def _times(trace: RungTrace, kernels) -> tuple[float, ...]:
    """Each named kernel's median GPU time per launch in the trace, in us."""
    out = []
    for name, _ in kernels:
        spans = sorted((k.end_ns - k.start_ns) / NS_PER_US for k in trace.kernels if k.name == name)
        out.append(spans[len(spans) // 2] if spans else 0.0)
    return tuple(out)


def loop_escape_of(attribution: Attribution, trace: RungTrace) -> Escape | None:
    """The device loop's body by kernel name only: CUPTI may report its
    body's kernels once per graph launch, not once per iteration, so counts
    say nothing there (docs/profiling.md#per-stage-attribution-run---attribute)."""
    expected = {n for _, names in expected_stages(attribution, trace.workload) for n in names}
    ran = {k.name for k in trace.kernels if k.name not in set(attribution.harness_kernels)}
    missing = tuple((n, 1.0) for n in sorted(expected - ran))
    extra = tuple((n, 1.0) for n in sorted(ran - expected))
    return Escape(missing, extra, _times(trace, extra)) if expected and (missing or extra) \
        else None


def rung_escape(attribution: Attribution, mode: str) -> Escape | None:
    """A graph rung's escape, judged the way its trace allows (the device
    loop by kernel names); None for a rung that is no graph, or has none."""
    ladder_rung = rung(mode)
    if not (ladder_rung and ladder_rung.graph):
        return None
    check = loop_escape_of if ladder_rung.launches == "per-iters" else escape_of
    return check(attribution, attribution.rungs[mode])


def capture_escapes(attribution: Attribution) -> dict[str, Escape]:
    """Every graph rung whose replay ran other kernels than its stages."""
    found = {mode: rung_escape(attribution, mode) for mode in attribution.rungs}
    return {mode: escape for mode, escape in found.items() if escape}


def escape_checks(attribution: Attribution) -> list[Check]:
    """A failed check per graph rung whose replay lacks kernels its stages
    ran alone: the run fails as a wrong result does (exit 1). Kernels a
    replay adds are shown with their times (graphbench.report.attribution)."""
    checks = []
    for mode, escape in capture_escapes(attribution).items():
        if not escape.fails:
            continue
        count = sum(math.ceil(n) for _, n in escape.missing)
        expected = sum(len(w.kernels) for w in attribution.stages
                       if w.workload == attribution.rungs[mode].workload)
        checks.append(Check(f"{mode}: capture escape: {escape.lacks_text()}", False, expected,
                            count, None, None))
    return checks


@dataclass(frozen=True)
class Placed:
    """One kernel of one iteration: its stage (0-based; -1: graphbench's
    loop kernels), its gap before (None after a host sync) and times."""

    stage: int
    kernel: KernelActivity
    gap_ns: int | None
    after_loop: bool = False  # follows a loop kernel: its gap is the conditional node's


def iterations(attribution: Attribution, trace: RungTrace) -> list[list[Placed]]:
    """Each traced iteration's kernels, placed on stages; [] when a batch
    does not split into whole iterations (an escape, or unknown stages)."""
    plan = [i for i, (_, names) in enumerate(expected_stages(attribution, trace.workload))
            for _ in names]
    names = [n for _, ns in expected_stages(attribution, trace.workload) for n in ns]
    harness, found = set(attribution.harness_kernels), []
    for batch in batches(trace):
        placed = _with_gaps(batch, harness)
        body = [p for p in placed if p.stage != -1]
        if not plan or len(body) != len(plan) * trace.iterations_per_batch:
            return []
        found += _split(placed, plan, names)
    return found


def _with_gaps(batch: list[KernelActivity], harness: set) -> list[Placed]:
    out, previous = [], None
    for kernel in batch:
        gap = None if previous is None else kernel.start_ns - previous.end_ns
        out.append(Placed(-1 if kernel.name in harness else 0, kernel, gap,
                          previous is not None and previous.name in harness))
        previous = kernel
    return out


def _split(placed: list[Placed], plan: list[int], names: list[str]) -> list[list[Placed]]:
    """A batch's kernels as iterations: a stage kernel starts a new iteration
    after len(plan) of them; the loop kernels stay with the iteration they end."""
    result: list[list[Placed]] = []
    current: list[Placed] = []
    count = 0
    for one in placed:
        if one.stage == -1:
            (current if current or not result else result[-1]).append(one)
            continue
        if count and count % len(plan) == 0:
            result.append(current)
            current = []
        current.append(one)
        count += 1
    result.append(current)
    return [_assign(iteration, plan, names) for iteration in result]


def _assign(iteration: list[Placed], plan: list[int], names: list[str]) -> list[Placed]:
    """Stages by position where the names match the expected order, else by
    name: each expected slot takes the earliest unplaced kernel of its name."""
    body = [p for p in iteration if p.stage != -1]
    if [p.kernel.name for p in body] == names:
        slots = iter(plan)
        return [p if p.stage == -1 else Placed(next(slots), p.kernel, p.gap_ns, p.after_loop)
                for p in iteration]
    taken: dict[int, int] = {}
    for slot, name in enumerate(names):
        index = next((i for i, p in enumerate(body) if i not in taken and p.kernel.name == name),
                     None)
        if index is not None:
            taken[index] = plan[slot]
    placed = {id(body[i]): stage for i, stage in taken.items()}
    return [Placed(placed.get(id(p), p.stage), p.kernel, p.gap_ns, p.after_loop)
            for p in iteration]
