"""Does a rung's figure depend on which other rungs share its rounds?

In one process, on one Session of the built-in pipeline at 4096 elements:
graph replay timed by graphbench's own rounds with the rungs {individual,
graph} and with every rung, each with and without an untimed prefix of the
mode's own calls before its timed round, and a bare loop of the same
graph.launch calls; the conditions alternate, repeated --reps times. Prints
and writes the median graph wall per iteration of each condition and its
ratio to the bare loop.
    PYTHONPATH=. python3 benchmarks/interleaving.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from graphbench.gate.stopping import FixedRounds
from graphbench.config import RunConfig
from graphbench.measure.session import Session
from graphbench.measure.timing import LoopHooks, run_rounds

ITERS, ROUNDS = 1000, 30


def bare_graph_us(graph, stream, iters=ITERS, rounds=ROUNDS) -> float:
    launch, walls = graph.launch, []
    for _ in range(rounds):
        stream.sync()
        t0 = time.perf_counter()
        for _ in range(iters):
            launch(stream)
        stream.sync()
        walls.append((time.perf_counter() - t0) / iters * 1e6)
    return statistics.median(walls)


def graph_us(session, names, prefix) -> float:
    modes = [m for m in session.modes if m.name in names]
    for mode in modes:
        mode.set_round_iterations(ITERS)
    sampling = run_rounds({m.name: m.step for m in modes},
                          {m.name: m.calls_per_round(ITERS) for m in modes}, session.timer,
                          FixedRounds(ROUNDS), LoopHooks(prefix_calls=prefix))
    graph = next(m for m in modes if m.name == "graph")
    walls = sampling.per_iteration_us("graph", "wall", graph.calls_per_round(ITERS))
    return statistics.median(walls)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    config = RunConfig(modes=("all",), iters=ITERS, rounds=ROUNDS)
    results: dict[str, list[float]] = {}
    with Session(config, None) as session:
        session.pipeline.fill_random(__import__("numpy").random.default_rng(0))
        graph = next(m for m in session.modes if m.name == "graph").captured.graph
        every = [m.name for m in session.modes]
        conditions = {"individual,graph": (("individual", "graph"), 0),
                      "all": (every, 0), "individual,graph +prefix": (("individual", "graph"), 5),
                      "all +prefix": (every, 5)}
        for _ in range(args.reps):
            results.setdefault("bare", []).append(bare_graph_us(graph, session.stream))
            for label, (names, prefix) in conditions.items():
                results.setdefault(label, []).append(graph_us(session, names, prefix))
    bare = statistics.median(results["bare"])
    summary = {label: {"graph_wall_us": statistics.median(v), "per_rep": v,
                       "vs_bare": statistics.median(v) / bare} for label, v in results.items()}
    for label, entry in summary.items():
        print(f"{label:28s} graph wall {entry['graph_wall_us']:.3f} us  x bare "
              f"{entry['vs_bare']:.3f}  reps {['%.3f' % x for x in entry['per_rep']]}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"modes": every, "results": summary}, handle, indent=2)


if __name__ == "__main__":
    main()
