"""Are the host's speed states a property of one CPU or of the whole machine?

Reads graphbench's round probe (the fixed pure-Python workload read between
every two rounds) on every CPU the process may use, one after another, in
sweeps about 0.1 s apart, for a given time. Prints each CPU's median and
share of slow readings, how many CPUs were fast at once, how long a CPU
stayed in a state, and whether the CPU fastest in one sweep is still fast
later (the question behind choosing a CPU to pin to). Reads /proc/stat's
steal time and /proc/cpuinfo's clock too. No GPU needed.

    PYTHONPATH=. python3 benchmarks/cpu_states.py [seconds] [--json FILE]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import time

import numpy as np

from graphbench.measure.conditions import round_probe_us

SLOW_CUT_US = 750.0  # between the H200 host's two states (about 520-660 and 860-1140 us)


def cpu_clocks() -> list[float]:
    with open("/proc/cpuinfo") as info:
        return [float(line.split(":")[1]) for line in info if line.startswith("cpu MHz")]


def cpu_jiffies() -> list[int]:
    with open("/proc/stat") as stat:
        return [int(x) for x in stat.readline().split()[1:]]


def sweep(cpus: list[int]) -> list[float]:
    """The median of 5 probes on each CPU, after one that warms it up."""
    readings = []
    for cpu in cpus:
        os.sched_setaffinity(0, {cpu})
        round_probe_us()
        readings.append(sorted(round_probe_us() for _ in range(5))[2])
    return readings


def collect(seconds: float) -> dict:
    cpus = sorted(os.sched_getaffinity(0))
    start, jiffies, clocks = time.time(), cpu_jiffies(), set()
    times, probes = [], []
    while time.time() - start < seconds:
        times.append(round(time.time() - start, 3))
        probes.append([round(x, 1) for x in sweep(cpus)])
        clocks.update(round(x) for x in cpu_clocks())
        time.sleep(0.05)
    used = [b - a for a, b in zip(jiffies, cpu_jiffies())]
    return {"cpus": cpus, "t_s": times, "probe_us": probes, "clocks_mhz": sorted(clocks),
            "steal_share": used[7] / max(sum(used), 1) if len(used) > 7 else None}


def summary(data: dict) -> dict:
    probes = np.array(data["probe_us"])
    fast = probes < SLOW_CUT_US
    stays = {True: [], False: []}
    for column in fast.T:
        for state, run in itertools.groupby(column):
            stays[bool(state)].append(len(list(run)))
    sweep_s = float(np.median(np.diff(data["t_s"]))) if len(data["t_s"]) > 1 else float("nan")
    later = {}
    for lag in (1, 5, 20):
        if len(probes) > lag:
            best = probes[:-lag].argmin(axis=1)
            later[lag] = round(float(fast[np.arange(lag, len(probes)), best].mean()), 2)
    return {"sweeps": len(probes), "sweep_s": round(sweep_s, 3),
            "slow_share_by_cpu": [round(float(x), 2) for x in 1 - fast.mean(axis=0)],
            "fast_cpus_at_once_quantiles": np.percentile(fast.sum(axis=1), [0, 10, 50, 90, 100]).tolist(),
            "sweeps_in_fast_state_mean": round(float(np.mean(stays[True] or [0])), 1),
            "sweeps_in_slow_state_mean": round(float(np.mean(stays[False] or [0])), 1),
            "fast_share": round(float(fast.mean()), 2),
            "fastest_cpu_still_fast_after_sweeps": later,
            "clocks_mhz": data["clocks_mhz"], "steal_share": data["steal_share"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seconds", nargs="?", type=float, default=60.0)
    parser.add_argument("--json", help="write the readings and the summary here")
    args = parser.parse_args()
    data = collect(args.seconds)
    result = {"summary": summary(data), **data}
    print(json.dumps(result["summary"], indent=1))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, separators=(",", ":"))


if __name__ == "__main__":
    main()
