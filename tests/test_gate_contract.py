"""The gate's contract, measured in simulation through the public entry point
(`graphbench.compare` on RunRecord objects), with fixed seeds, 100 or more
replicates a cell (200 for A/B and the same-host stored cell).

A/B (one process, 60 paired rounds: the least an A/B samples), the default
A/B gate (walls 5%, busy 2%, speedup 5%):
- identical builds: `same` on every metric, the speedup included, in 95% or
  more of the replicates where it is gateable, `slower` in 1% or fewer;
- a true change of the threshold T is `slower` in 95% or more of the
  replicates where the metric is gateable, one of T/2 passes in 95% or more.

Stored baseline (5 processes of 30 rounds, the current 1 process: what CI
does; two rungs, individual and graph, on an H100 whose records read the GPU
reference), every host-bound figure gated (walls, submit, device 10%, the
speedup 5%, the launch floor 10%) beside busy time (5%):
- identical code on another host of the same class (another hostname, or
  one hostname and another GPU), or on the same host in another CPU speed
  state, is never `slower` on a host-bound figure in 99% or more of the
  replicates, whatever the host's offset;
- identical code on the same host in the same CPU state: `slower` in 1% or
  fewer;
- a change of the figures of T or more the worse way (their medians, as
  measured) is never `same` or `faster`, on any host model;
- busy time +T on the same physical GPU is caught in 95% or more of the
  replicates where it is gateable, +T/2 passes in 95% or more.
A CPU state 9% slower is not the same state for a 10% threshold (the
tolerance is a quarter of the threshold): its walls are not judged.

The host: each process lands in a CPU state (0.5% sd between processes of
one state) that the pure-Python probe reads (3% per reading, lag-1 0.5);
walls, the launch probe and the replay floor follow it with elasticity 0.8,
or, in the knee model, graph replay stays GPU-bound until the CPU is slower
than the knee and follows it fully beyond. Another host of the class sits
-10% to +15% off in CPU speed and up to 10% off on every host-bound figure
besides. Rounds: AR(1), lag-1 0.5, 1% on walls, 0.2% on busy time (and in
A/B pairs a host drift both builds share, AR(1) lag-1 0.9 of 2%). The table
of observed rates is printed with -s.

Covers graphbench/gate/host_match.py."""

from __future__ import annotations

import dataclasses
import functools
import math
import zlib

import numpy as np
import pytest
from conftest import device_info, make_record, workload

import graphbench
from graphbench.gate.ab import default_ab_specs
from graphbench.gate.decide import CHANGED, FASTER, NOT_GATEABLE, SAME, SLOWER, WORSE_AS_MEASURED
from graphbench.gate.judge import judged as gate_judged
from graphbench.gate.gpu_spread import spread_of
from graphbench.gate.host_match import HOST_STATE_TOLERANCE, is_host_bound
from graphbench.gate.specs import default_specs, parse_spec
from graphbench.errors import RecordError
from graphbench.record.model import (BusyReading, Condition, HostInfo, LaunchFloorSamples,
                                     ModeSamples)

from calibration import _ar1  # the interval calibration's own AR(1)

pytestmark = pytest.mark.slow

AB_WALLS = {"individual": 14.0, "graph": 4.3, "fused": 4.6}  # us per iteration
AB_BUSY = {"stages": 3.0, "fused": 2.6}                       # GPU us per iteration
WALLS, BUSY = {m: AB_WALLS[m] for m in ("individual", "graph")}, {"stages": 3.0}
STREAM_US, PROBE_US, LAUNCH_US, REPLAY_US = 4.0, 300.0, 300.0, 5.9
WITHIN, BUSY_WITHIN, RHO = 0.01, 0.002, 0.5   # rounds: relative sd and lag-1
BETWEEN = 0.005          # walls: relative sd between processes of one CPU state
STATE_SD = 0.005         # the CPU state between processes of one host state
PROBE_NOISE = 0.03       # one reading of the pure-Python probe
ELASTICITY = 0.8         # host-bound figures against the CPU's speed
ROUNDS, BASE_PROCESSES, AB_PAIRS = 30, 5, 60
MODEL, UUID, OTHER_UUID = "NVIDIA H100 80GB HBM3", "GPU-00000000-test", "GPU-11111111-other"
# every host-bound figure the stored gate can judge, and busy time once per workload
STORED_SPECS = ("speedup:5%", "individual.wall:10%", "graph.wall:10%", "individual.submit:10%",
                "graph.submit:10%", "individual.device:10%", "graph.device:10%",
                "floor.launch:10%", "floor.replay:10%", "individual.busy:5%")
JUDGED_NOTHING = "judged nothing"  # graphbench.compare raised: no gated metric was judged


def threshold_of(spec: str) -> float:
    return float(spec.rsplit(":", 1)[1].rstrip("%")) / 100


THRESHOLDS = {spec.rsplit(":", 1)[0]: threshold_of(spec) for spec in STORED_SPECS}


def ar1(rng, n: int, rho: float = RHO) -> np.ndarray:
    return _ar1(rng, 1, n, rho)[0]


# --- the host -------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Host:
    """Where a side ran: its name, its GPU, its CPU's speed (its probe's
    level against the baseline host's: 1.3 is 30% slower) and how far its
    host-bound figures sit off what that speed explains."""

    hostname: str = "host"
    uuid: str = UUID
    speed: tuple[float, float] = (1.0, 1.0)    # drawn uniformly per side
    offset: tuple[float, float] = (0.0, 0.0)   # ditto, on every host-bound figure
    knee: float | None = None                  # graph replay CPU-bound above this speed


def host_factor(mode: str, state: float, host: Host) -> float:
    """How much slower a host-bound figure runs at CPU state `state`."""
    if host.knee is not None and mode in ("graph", "fused"):
        return max(1.0, state / host.knee)  # GPU-bound below the knee, CPU-bound above
    return state ** ELASTICITY


@dataclasses.dataclass(frozen=True)
class Side:
    host: Host
    speed: float      # this side's CPU speed, drawn from host.speed
    offset: float     # and its offset, from host.offset
    gpu: float = 1.0  # its GPU's busy time against the baseline GPU's
    copy: float = 1.0  # and its GPU reference's stream copy


def side_of(rng, host: Host, baseline: Side | None = None) -> Side:
    speed, offset = rng.uniform(*host.speed), rng.uniform(*host.offset)
    if baseline is None or host.uuid == baseline.host.uuid:
        return Side(host, speed, offset)
    # another physical GPU: off the baseline's by the spread between GPUs of the model,
    # its reference's copy following it as the model's GPUs do (graphbench.gate.gpu_spread)
    spread = spread_of(MODEL)
    gpu = 1 + spread.busy * math.sqrt(2) * rng.standard_normal()
    return Side(host, speed, offset, gpu, gpu * (1 + spread.reference * math.sqrt(2)
                                                 * rng.standard_normal()))


def conditions(rng, rounds: int, state: float, side: Side, busy: dict[str, np.ndarray],
               change: dict[str, float]):
    """One reading per round: the CPU probe, the launch probe, busy time and
    the GPU reference's stream copy."""
    cpu = PROBE_US * state * (1 + PROBE_NOISE * ar1(rng, rounds))
    launch = LAUNCH_US * state ** ELASTICITY * (1 + side.offset) * \
        (1 + change.get("floor.launch", 0.0)) * (1 + 0.02 * ar1(rng, rounds))
    copy = STREAM_US * side.copy * (1 + 0.001 * rng.standard_normal(rounds))
    return tuple(Condition(
        sm_clock_mhz=1980, host_probe_us=float(launch[i]), cpu_probe_us=float(cpu[i]),
        busy={w: BusyReading(float(us[i]), 100.0, True, 1980.0) for w, us in busy.items()},
        reference={"stream": BusyReading(float(copy[i]), 100.0, True, 1980.0)})
        for i in range(rounds))


def busy_series(rng, rounds: int, gpu: float, change: dict[str, float], workloads=BUSY,
                suffix: str = "", drift: np.ndarray | float = 0.0) -> dict[str, np.ndarray]:
    return {w + suffix: us * gpu * (1 + change.get(f"{w}.busy", 0.0)) * (1 + drift)
            * (1 + BUSY_WITHIN * ar1(rng, rounds)) for w, us in workloads.items()}


def mode_samples(rng, walls: np.ndarray, mode: str) -> ModeSamples:
    """Submit and device time ride on the wall, each with a little noise of its own."""
    submit = 0.6 * walls * (1 + 0.002 * rng.standard_normal(walls.size))
    device = 0.9 * walls * (1 + 0.002 * rng.standard_normal(walls.size))
    return ModeSamples(tuple(map(float, walls)), tuple(map(float, submit)),
                       tuple(map(float, device)), workload(mode))


TEMPLATE = make_record(WALLS, rounds=ROUNDS)
TEMPLATE_RUN = dataclasses.replace(TEMPLATE.runs[0], lifecycles={}, graph_update=None)


def stored_process(rng, seed: int, side: Side, change: dict[str, float]):
    """One process of a stored record on `side`, the code `change` slower
    (by metric: MODE.wall, floor.launch, floor.replay, WORKLOAD.busy)."""
    state = side.speed * (1 + STATE_SD * rng.standard_normal())
    modes = {}
    for mode, us in WALLS.items():
        level = us * host_factor(mode, state, side.host) * (1 + side.offset) * \
            (1 + change.get(f"{mode}.wall", 0.0)) * (1 + BETWEEN * rng.standard_normal())
        modes[mode] = mode_samples(rng, level * (1 + WITHIN * ar1(rng, ROUNDS)), mode)
    busy = busy_series(rng, ROUNDS, side.gpu, change)
    replay = REPLAY_US * state ** ELASTICITY * (1 + side.offset) * \
        (1 + change.get("floor.replay", 0.0)) * (1 + 0.01 * rng.standard_normal(5))
    floor = LaunchFloorSamples(TEMPLATE_RUN.launch_floor.kernel_launch_us,
                               tuple(map(float, replay)))
    return dataclasses.replace(TEMPLATE_RUN, seed=seed, rounds=ROUNDS, modes=modes,
                               conditions=conditions(rng, ROUNDS, state, side, busy, change),
                               launch_floor=floor)


def stored_record(runs, host: Host):
    return dataclasses.replace(TEMPLATE, runs=tuple(runs),
                               host=HostInfo(host.hostname, "Linux", "x86_64"),
                               device=device_info(MODEL, uuid=host.uuid))


# --- outcomes ---------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Outcome:
    verdict: str
    worse: float  # the medians' own change, worse positive (nan where not shown)


def outcomes(comparison) -> dict[str, Outcome]:
    out = {}
    for v in comparison.verdicts:
        worse = math.nan
        if v.baseline and v.current is not None:
            worse = (v.current / v.baseline - 1) * (-1 if v.metric.startswith("speedup") else 1)
        out[v.metric] = Outcome(v.verdict, worse)
    return out


def judged(call, pair=None) -> dict[str, Outcome]:
    """The verdicts of graphbench.compare; a gate that judged nothing raises
    (fail closed), and every metric reads `not gateable` then. A gate that
    refused a metric worse as measured beyond its threshold raises too (it
    did not pass): the verdicts are then the comparison it refused
    (graphbench.gate.judge.judged of `pair`: baseline, current, specs)."""
    try:
        return outcomes(call())
    except RecordError as exc:
        if pair is not None and f": {WORSE_AS_MEASURED} by more" in exc.message:
            return outcomes(gate_judged(*pair))
        assert JUDGED_NOTHING in exc.message, exc.message
        return {}


# --- stored baseline --------------------------------------------------------------

SAME_HOST = Host()
KNEE_HOST = Host(knee=1.0)  # graph replay at its knee: a slower CPU state makes it CPU-bound
OTHER_STATE = Host(speed=(1.4, 1.8), knee=1.0)  # two speed states lie 1.4-1.8x apart
EDGE = 1 + 0.9 * HOST_STATE_TOLERANCE           # a CPU state just inside the tolerance
EDGE_HOST = Host(speed=(EDGE, EDGE))
OTHER_HOST = Host("host-2", OTHER_UUID, speed=(0.9, 1.15), offset=(-0.1, 0.1))
OTHER_MACHINE = Host("host", OTHER_UUID, speed=(0.9, 1.15), offset=(-0.1, 0.1), knee=1.0)
GRAPH_T = {"graph.wall": 0.10}
LAUNCH_T = {"individual.wall": 0.10, "floor.launch": 0.10, "floor.replay": 0.10}


@dataclasses.dataclass(frozen=True)
class StoredCell:
    current: Host
    change: dict[str, float] = dataclasses.field(default_factory=dict)
    baseline: Host = SAME_HOST
    reps: int = 100  # a 99% or 1% rate read to about 1 point; the suite stays within CI's time


STORED = {
    "same host, same state": StoredCell(SAME_HOST, reps=200),
    "same host, same state, knee": StoredCell(KNEE_HOST, baseline=KNEE_HOST),
    "other host (hostname)": StoredCell(OTHER_HOST),
    "other machine (GPU), knee": StoredCell(OTHER_MACHINE, baseline=KNEE_HOST),
    "same host, other CPU state, knee": StoredCell(OTHER_STATE, baseline=KNEE_HOST),
    "same host, graph replay +T": StoredCell(KNEE_HOST, GRAPH_T, baseline=KNEE_HOST),
    "same host, launch path +T": StoredCell(SAME_HOST, LAUNCH_T),
    "other host, launch path +T": StoredCell(OTHER_HOST, LAUNCH_T),
    "same GPU, busy +T/2": StoredCell(SAME_HOST, {"stages.busy": 0.025}),
    "same GPU, busy +T": StoredCell(SAME_HOST, {"stages.busy": 0.05}),
    # not the same state, yet inside the tolerance that reads as one (a known gap)
    "same host, CPU state +9%": StoredCell(EDGE_HOST),
}


@functools.lru_cache(maxsize=None)
def stored_outcomes(name: str) -> tuple[dict[str, Outcome], ...]:
    cell = STORED[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    out = []
    for _ in range(cell.reps):
        base_side = side_of(rng, cell.baseline)
        base = stored_record([stored_process(rng, i, base_side, {})
                              for i in range(BASE_PROCESSES)], cell.baseline)
        cur_side = side_of(rng, cell.current, base_side)
        current = stored_record([stored_process(rng, 0, cur_side, cell.change)], cell.current)
        out.append(judged(lambda: graphbench.compare(base, current, list(STORED_SPECS)),
                          (base, current, [parse_spec(t) for t in STORED_SPECS])))
    return tuple(out)


# --- A/B --------------------------------------------------------------------------

AB_TEMPLATE = make_record({**AB_WALLS, **{f"{m}@base": us for m, us in AB_WALLS.items()}},
                          rounds=AB_PAIRS)
AB_TEMPLATE = dataclasses.replace(AB_TEMPLATE, pipeline=dataclasses.replace(
    AB_TEMPLATE.pipeline, kernel_source="new.cu", ab_source="base.cu"))
AB_DEFAULTS = {"speedup": 0.05, "speedup.fused": 0.05, "individual.wall": 0.05,
               "graph.wall": 0.05, "fused.wall": 0.05, "individual.busy": 0.02,
               "fused.busy": 0.02}


def ab_process(rng, change: dict[str, float]):
    """One A/B process: rounds alternate, so the host's drift is both builds'."""
    drift = 0.02 * ar1(rng, AB_PAIRS, 0.9)
    gpu_drift = 0.0005 * ar1(rng, AB_PAIRS, 0.9)
    modes = {}
    for build, changed in (("", change), ("@base", {})):
        for mode, us in AB_WALLS.items():
            walls = us * (1 + changed.get(f"{mode}.wall", 0.0)) * (1 + drift) * \
                (1 + WITHIN * ar1(rng, AB_PAIRS))
            modes[mode + build] = mode_samples(rng, walls, mode + build)
    busy = {**busy_series(rng, AB_PAIRS, 1.0, change, AB_BUSY, drift=gpu_drift),
            **busy_series(rng, AB_PAIRS, 1.0, {}, AB_BUSY, "@base", drift=gpu_drift)}
    side = Side(SAME_HOST, 1.0, 0.0)
    run = dataclasses.replace(AB_TEMPLATE.runs[0], rounds=AB_PAIRS, modes=modes,
                              conditions=conditions(rng, AB_PAIRS, 1.0, side, busy, {}))
    return dataclasses.replace(AB_TEMPLATE, runs=(run,))


AB = {  # name: (the candidate's change, the metric it moves); the speedup: graph slower
    "identical builds": ({}, None),
    "graph.wall +T/2": ({"graph.wall": 0.025}, "graph.wall"),
    "graph.wall +T": ({"graph.wall": 0.05}, "graph.wall"),
    "busy +T/2": ({"stages.busy": 0.01, "fused.busy": 0.01}, "individual.busy"),
    "busy +T": ({"stages.busy": 0.02, "fused.busy": 0.02}, "individual.busy"),
    "speedup -T/2": ({"graph.wall": 1 / (1 - 0.025) - 1}, "speedup"),
    "speedup -T": ({"graph.wall": 1 / (1 - 0.05) - 1}, "speedup"),
}
AB_REPS = 200


@functools.lru_cache(maxsize=None)
def ab_outcomes(name: str) -> tuple[dict[str, Outcome], ...]:
    change, _ = AB[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return tuple(judged(lambda: graphbench.compare(ab_process(rng, change)))
                 for _ in range(AB_REPS))


# --- rates ------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Rates:
    n: int
    gateable: float   # of all
    same: float       # of the gateable
    slower: float     # of all
    caught: float     # slower, of the gateable
    passed: float     # anything but slower, of the gateable


def rates_of(runs, metrics) -> Rates:
    """Over replicates x metrics: a metric a replicate lacks (the gate judged
    nothing) reads `not gateable`."""
    verdicts = [run.get(m, Outcome(NOT_GATEABLE, math.nan)).verdict for run in runs
                for m in metrics]
    gated = [v for v in verdicts if v != NOT_GATEABLE]
    g = max(1, len(gated))
    return Rates(len(verdicts), len(gated) / len(verdicts), gated.count(SAME) / g,
                 verdicts.count(SLOWER) / len(verdicts), gated.count(SLOWER) / g,
                 1 - gated.count(SLOWER) / g)


RNG_CHECK = np.random.default_rng(0)
STORED_METRICS = tuple(spec.rsplit(":", 1)[0] for spec in STORED_SPECS)
HOST_BOUND = tuple(m for m in STORED_METRICS if is_host_bound(m))
BUSY_METRICS = tuple(m for m in STORED_METRICS if not is_host_bound(m))


def test_the_stored_specs_hold_the_default_gate():
    """The stored cells gate every default metric at its default threshold
    (and more: submit, device and the speedup)."""
    defaults = {spec.name: spec.threshold for spec in default_specs(TEMPLATE)}
    assert defaults.items() <= THRESHOLDS.items()
    assert set(HOST_BOUND) | set(BUSY_METRICS) == set(STORED_METRICS)
    assert BUSY_METRICS == ("individual.busy",)
    ab = {spec.name: spec.threshold for spec in default_ab_specs(ab_process(RNG_CHECK, {}))}
    assert ab == AB_DEFAULTS  # the A/B cells judge the default A/B gate


# --- 1. A/B -----------------------------------------------------------------------

@pytest.mark.parametrize("metric", AB_DEFAULTS)
def test_ab_identical_builds_are_same_and_almost_never_slower(metric):
    runs = ab_outcomes("identical builds")
    assert all(set(run) == set(AB_DEFAULTS) for run in runs)  # the default A/B gate
    r = rates_of(runs, [metric])
    assert r.same >= 0.95 and r.slower <= 0.01, r
    assert r.gateable >= 0.5, r  # the noise is realistic, not beyond what T allows


@pytest.mark.parametrize("name", [n for n in AB if AB[n][1]])
def test_ab_catches_t_and_passes_half_of_it(name):
    metric = AB[name][1]
    r = rates_of(ab_outcomes(name), [metric])
    assert r.gateable >= 0.5, r
    if name.endswith("+T/2") or name.endswith("-T/2"):
        assert r.passed >= 0.95, r
    else:
        assert r.caught >= 0.95, r


# --- 2. stored baseline -------------------------------------------------------------

@pytest.mark.parametrize("name", ["other host (hostname)", "other machine (GPU), knee",
                                  "same host, other CPU state, knee"])
def test_identical_code_on_another_host_is_never_slower_on_host_bound_figures(name):
    runs = stored_outcomes(name)
    never_slower = sum(all(run.get(m, Outcome(NOT_GATEABLE, 0)).verdict != SLOWER
                           for m in HOST_BOUND) for run in runs) / len(runs)
    assert never_slower >= 0.99
    # and it is because they are not gateable: host-bound figures are judged like with like
    assert rates_of(runs, HOST_BOUND).gateable == 0.0


@pytest.mark.parametrize("name", ["same host, same state", "same host, same state, knee"])
def test_identical_code_on_the_same_host_in_the_same_state_is_rarely_slower(name):
    runs = stored_outcomes(name)
    anywhere = sum(any(o.verdict == SLOWER for o in run.values()) for run in runs) / len(runs)
    for metric in STORED_METRICS:
        assert rates_of(runs, [metric]).slower <= 0.01, metric
    assert rates_of(runs, HOST_BOUND).gateable >= 0.5  # and it is judged, not set aside
    assert anywhere <= 0.05


def test_a_raw_change_of_t_or_more_is_never_same_or_faster_on_any_host_model():
    seen = 0
    for name in STORED:
        for run in stored_outcomes(name):
            for metric, o in run.items():
                if is_host_bound(metric) and o.worse > THRESHOLDS[metric]:
                    seen += 1
                    assert o.verdict not in (SAME, FASTER), (name, metric, o)
    assert seen > 1000  # the host models and the +T cells make many such figures


@pytest.mark.parametrize("name", ["same host, graph replay +T", "same host, launch path +T",
                                  "other host, launch path +T"])
def test_a_true_change_of_t_on_a_host_bound_figure_is_never_same(name):
    changed = [m for m in HOST_BOUND if m.split(".")[0] in ("graph", "speedup")] \
        if "graph" in name else ["individual.wall", "floor.launch", "floor.replay"]
    for run in stored_outcomes(name):
        for metric in changed:
            assert run.get(metric, Outcome(NOT_GATEABLE, 0)).verdict not in (SAME, FASTER)
    if name.startswith("same host"):
        assert rates_of(stored_outcomes(name), changed).caught >= 0.95


def test_busy_time_plus_t_on_the_same_gpu_is_caught_and_half_of_it_passes():
    full = rates_of(stored_outcomes("same GPU, busy +T"), BUSY_METRICS)
    half = rates_of(stored_outcomes("same GPU, busy +T/2"), BUSY_METRICS)
    assert full.gateable >= 0.9 and full.caught >= 0.95, full
    assert half.gateable >= 0.9 and half.passed >= 0.95, half


def test_identical_code_in_a_cpu_state_9_percent_slower_is_never_slower():
    """A CPU 9% slower is another state for a 10% threshold (state_tolerance:
    T/4), so the walls it moves are not judged as the code's."""
    runs = stored_outcomes("same host, CPU state +9%")
    assert replicates_slower(runs, HOST_BOUND) <= 0.01


# --- 3. the table -------------------------------------------------------------------

def replicates_slower(runs, metrics) -> float:
    """The replicates with any of `metrics` judged slower."""
    return sum(any(run.get(m, Outcome(NOT_GATEABLE, 0)).verdict == SLOWER for m in metrics)
               for run in runs) / len(runs)


def raw_beyond_t() -> dict[str, int]:
    """The verdicts on every host-bound figure whose medians differ by more
    than its threshold the worse way, over every stored cell."""
    found = [o.verdict for name in STORED for run in stored_outcomes(name)
             for metric, o in run.items() if is_host_bound(metric) and o.worse > THRESHOLDS[metric]]
    return {v: found.count(v) for v in (SLOWER, NOT_GATEABLE, CHANGED, SAME, FASTER)}


DETAIL = {"same host, graph replay +T": ("graph.wall", "speedup"),
          "same host, launch path +T": ("individual.wall", "floor.launch", "floor.replay"),
          "same host, CPU state +9%": ("individual.wall", "floor.launch")}


def table_lines() -> list[str]:
    lines = [f"{'cell':38} {'metrics':16} {'n':>5} {'gateable':>8} {'same|g':>7} "
             f"{'slower':>7} {'slower|g':>8} {'any slower':>10}"]

    def line(cell, label, runs, metrics):
        r = rates_of(runs, metrics)
        lines.append(f"{cell:38} {label:16} {r.n:5d} {r.gateable:8.1%} {r.same:7.1%} "
                     f"{r.slower:7.2%} {r.caught:8.1%} {replicates_slower(runs, metrics):10.1%}")
    for name in AB:
        runs, changed = ab_outcomes(name), AB[name][1]
        for metric in [changed] if changed else list(AB_DEFAULTS):
            line(f"A/B {name}", metric, runs, [metric])
    for name in STORED:
        runs = stored_outcomes(name)
        line(f"stored {name}", "host-bound", runs, HOST_BOUND)
        for metric in DETAIL.get(name, ()):
            line("", f"  {metric}", runs, [metric])
        line("", "busy", runs, BUSY_METRICS)
    counts = raw_beyond_t()
    lines.append("stored, host-bound medians more than T the worse way: " + ", ".join(
        f"{v} {n}" for v, n in counts.items()))
    return lines


def test_print_the_observed_rates():
    print("\n" + "\n".join(table_lines()))
