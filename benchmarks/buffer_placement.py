"""Does a GPU-bound rung's figure follow where its buffers lie in memory?

In one process: --pipelines copies of the built-in pipeline, each with its
own buffers (a scratch allocation of random size before each, so they land
at unrelated addresses), and for each the bare graph, unrolled and device
loop rungs of benchmarks/harness_overhead.py. Every copy is timed in three
sweeps (forward, backward, forward), so a copy's figure that repeats across
sweeps while the copies differ is a figure that follows the buffers, not
the moment. Prints one line a copy: its buffers' addresses and each rung's
median wall per iteration in each sweep; --json keeps them.

    PYTHONPATH=. python3 benchmarks/buffer_placement.py --elements 4096 --pipelines 10
"""

from __future__ import annotations

import argparse
import json
import statistics

import numpy as np

RUNGS = ("graph", "unrolled", "loop")
SWEEPS, ROUNDS = 3, 8


def copies(elements: int, count: int, iters: int, seed: int = 1):
    """`count` pipelines, each with its bare rungs and its buffers' addresses."""
    import cupy

    from harness_overhead import bare_rungs

    from graphbench.measure.cpu_seek import interrupt_cpus
    from graphbench.measure.device import describe, near_cpus, open_device, pin_host_thread
    from graphbench.measure.pipeline import Pipeline
    from graphbench.measure.session import load_kernels
    from graphbench.pipeline.files import load_pipeline, plan

    quiet = [cpu for cpu in near_cpus(0) if cpu not in interrupt_cpus()]
    pin_host_thread(quiet or near_cpus(0))  # as graphbench run does
    device = open_device(0)
    info = describe(device)
    stream = device.create_stream()
    built_in = load_pipeline(None)
    built_in_plan = plan(built_in.spec, elements)
    kernels = load_kernels(info.arch, built_in.source, built_in_plan)
    rng = np.random.default_rng(seed)
    made, scratch = [], []
    for index in range(count):
        scratch.append(cupy.empty(int(rng.integers(1, 40)) * 2**20
                                  + int(rng.integers(0, 64)) * 4096, dtype=cupy.uint8))
        pipeline = Pipeline(built_in_plan, kernels, info.multiprocessors)
        pipeline.fill_random(np.random.default_rng(index))
        made.append((pipeline, bare_rungs(stream, pipeline, kernels, iters, 10),
                     [hex(b.data.ptr) for b in pipeline.buffers.values()]))
    return made, scratch


def timed_sweeps(made) -> list[dict]:
    """Each copy's median wall per iteration, per rung and sweep."""
    for _, bare, _ in made:  # warm-up, and every graph launched once
        for rung in RUNGS:
            bare[rung][0]()
    walls = [{rung: [[] for _ in range(SWEEPS)] for rung in RUNGS} for _ in made]
    for sweep in range(SWEEPS):
        order = range(len(made)) if sweep % 2 == 0 else reversed(range(len(made)))
        for index in order:
            bare = made[index][1]
            for _ in range(ROUNDS):
                for rung in RUNGS:
                    run, iterations = bare[rung]
                    walls[index][rung][sweep].append(run() / iterations * 1e6)
    return [{rung: [round(statistics.median(s), 3) for s in per[rung]] for rung in RUNGS}
            for per in walls]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=4096)
    parser.add_argument("--pipelines", type=int, default=10)
    parser.add_argument("--json")
    args = parser.parse_args()
    iters = 1000 if args.elements <= 2**16 else 50  # a round of a few ms either way
    made, _scratch = copies(args.elements, args.pipelines, iters)
    rows = [{"addresses": addresses, "median_wall_us_by_sweep": sweeps}
            for (_, _, addresses), sweeps in zip(made, timed_sweeps(made))]
    for index, row in enumerate(rows):
        print(index, row["addresses"][0], json.dumps(row["median_wall_us_by_sweep"]))
    spread = {rung: max(max(r["median_wall_us_by_sweep"][rung]) for r in rows)
              / min(min(r["median_wall_us_by_sweep"][rung]) for r in rows) for rung in RUNGS}
    print("max/min between copies:", json.dumps({r: round(v, 4) for r, v in spread.items()}))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"elements": args.elements, "iters": iters, "copies": rows,
                       "max_over_min": spread}, handle, indent=2)


if __name__ == "__main__":
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))  # harness_overhead's bare rungs
    main()
