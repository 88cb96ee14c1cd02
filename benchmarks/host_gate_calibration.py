"""How compare judges host-bound figures between two moments, in simulation
through compare_records: processes whose host speed state changes from
round to round (a Markov chain with a mean dwell of 5 rounds; on the H200's
host the state changed every few rounds in some hours), individual wall
following the probe as measured on the H200 (8.05 + 0.0091 x probe us, a
1.5% spread between processes) and graph wall not. A stored baseline of 5
processes, currents of 3, 40 rounds each; gate individual.wall and
graph.wall at 10%. `blind` makes the probe read a constant: the host's
state then moves the figures where the gate cannot see it.

    PYTHONPATH=. python3 benchmarks/host_gate_calibration.py
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conftest import make_record, make_run  # noqa: E402

from graphbench.analyze.compare import compare_records  # noqa: E402
from graphbench.analyze.specs import parse_spec  # noqa: E402
from graphbench.record.machine import LAUNCH_PROBE  # noqa: E402

FAST, SLOW = 600.0, 1000.0  # the H200 host's two states, probe us
ROUNDS, DWELL = 40, 5
SPECS = ("individual.wall:10%", "graph.wall:10%")


def process(rng, seed: int, p_fast: float, slower: float = 0.0, blind: bool = False):
    states, state = [], rng.uniform() < p_fast
    for _ in range(ROUNDS):
        if rng.uniform() < 1 / DWELL:
            state = rng.uniform() < p_fast
        states.append(state)
    probes = np.where(states, FAST, SLOW) * rng.uniform(0.95, 1.05, ROUNDS)
    level = 1 + rng.normal(0, 0.015)
    walls = {"individual": (8.05 + 0.0091 * probes) * level * (1 + slower)
             + rng.normal(0, 0.1, ROUNDS),
             "graph": 5.8 * (1 + rng.normal(0, 0.01)) + rng.normal(0, 0.03, ROUNDS)}
    if blind:
        probes = 800.0 * rng.uniform(0.99, 1.01, ROUNDS)
    run = make_run({"individual": 14.0, "graph": 5.8}, rounds=ROUNDS, seed=seed)
    around = {"probe_before_us": tuple(map(float, probes)),
              "probe_after_us": tuple(map(float, probes))}
    modes = {m: dataclasses.replace(run.modes[m], wall_us=tuple(map(float, w)), **around)
             for m, w in walls.items()}
    return dataclasses.replace(run, modes=modes)


# The launch probe (graphbench.analyze.launch_gate), as measured on the H200:
# individual wall is launches, 1.0 x the probe's per-launch time x 3, with
# 0.4% between processes; the probe reads the host's speed within 2.8% before
# and after each round (so the elasticity read within processes, uncorrected,
# is well below 1); graph
# replay does not follow the host. `host` is the record's host speed (1.1: a
# host whose launches cost 10% more), `jitter` the speed's spread by round.
LAUNCH_UNIT_US = 600.0


def launch_process(rng, seed: int, host: float = 1.0, jitter: float = 0.05,
                   slower: float = 0.0, extra_us: float = 0.0, level_sd: float = 0.004):
    speed = host * np.exp(rng.normal(0, jitter, ROUNDS))
    before, after = (LAUNCH_UNIT_US * speed * (1 + rng.normal(0, 0.028, ROUNDS)) for _ in "ba")
    level = 1 + rng.normal(0, level_sd)  # the process's own level over the probe
    walls = {"individual": (12.4 * speed * level * (1 + slower) + extra_us)
             * (1 + rng.normal(0, 0.01, ROUNDS)),
             "graph": 5.9 * (1 + rng.normal(0, 0.005)) * (1 + rng.normal(0, 0.01, ROUNDS))}
    run = make_run({"individual": 14.0, "graph": 5.8}, rounds=ROUNDS, seed=seed)
    around = {"probe_before_us": tuple(map(float, before)),
              "probe_after_us": tuple(map(float, after))}
    modes = {m: dataclasses.replace(run.modes[m], wall_us=tuple(map(float, w)), **around)
             for m, w in walls.items()}
    return dataclasses.replace(run, modes=modes, environment=dataclasses.replace(
        run.environment, host_probe=LAUNCH_PROBE))


def record(rng, processes: int, launch: bool = False, **settings):
    make = launch_process if launch else process
    return make_record({"individual": 14.0, "graph": 5.8}, rounds=ROUNDS,
                       runs=[make(rng, i, **settings) for i in range(processes)])


def verdict_counts(n: int, base: dict, cur: dict, seed: int = 0) -> dict[str, dict[str, int]]:
    """How often each verdict fell on each metric over n comparisons."""
    rng, counts = np.random.default_rng(seed), {}
    specs = [parse_spec(s) for s in SPECS]
    for _ in range(n):
        for v in compare_records(record(rng, 5, **base), record(rng, 3, **cur), specs).verdicts:
            counts.setdefault(v.metric, {}).setdefault(v.verdict, 0)
            counts[v.metric][v.verdict] += 1
    return counts


SCENARIOS = {
    "probe sees the states, identical code": (dict(p_fast=0.6), dict(p_fast=0.3)),
    "probe sees the states, +10% host-side": (dict(p_fast=0.6), dict(p_fast=0.3, slower=0.10)),
    "probe sees the states, +5% host-side": (dict(p_fast=0.6), dict(p_fast=0.3, slower=0.05)),
    "each record in one other state, identical": (dict(p_fast=1.0), dict(p_fast=0.0)),
    "probe blind, each record in one other state": (dict(p_fast=1.0, blind=True),
                                                    dict(p_fast=0.0, blind=True)),
    "probe blind, both records mixed, identical": (dict(p_fast=0.6, blind=True),
                                                   dict(p_fast=0.3, blind=True)),
    "launch probe, host 10% slower, identical": (dict(launch=True),
                                                 dict(launch=True, host=1.1)),
    "launch probe, host 10% slower, +10% host-side": (dict(launch=True),
                                                      dict(launch=True, host=1.1, slower=0.1)),
    "launch probe, host 10% slower, +5% host-side": (dict(launch=True),
                                                     dict(launch=True, host=1.1, slower=0.05)),
}


def main() -> None:
    for name, (base, cur) in SCENARIOS.items():
        print(f"{name:48s} {verdict_counts(200, base, cur)}")


if __name__ == "__main__":
    main()
