"""What moves a process's GPU-bound graph replays between two speeds?

In one process, on one Session of the built-in pipeline: bare unrolled and
device-loop graphs (benchmarks/harness_overhead.py) timed after each step
of a sequence, 10 rounds each, every bare graph launched once before the
first reading. On H100s the readings take one of two values 0.18 us a
kernel apart (docs/measurement.md, "Time first, verify after"). The steps:
an uploaded graph of 30 kernel nodes that has not been launched, its first
launch, a run's sampling, the pipeline's CuPy reference after it, a
graphbench graph launched, new graphs built and launched.

    PYTHONPATH=. python3 benchmarks/replay_state.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import replace

import numpy as np

RUNGS = ("unrolled", "loop")


def steps(session, rng):
    """(name, action) in order; each action runs before its reading."""
    from harness_overhead import bare_rungs

    from graphbench.gate.stopping import stop_rule
    from graphbench.measure.benchmark import calibrate_iters, sample
    from graphbench.measure.graphs import CapturedGraph

    pipeline, stream = session.pipeline, session.stream
    graph_mode = next(mode for mode in session.modes if mode.is_graph)
    held = {}

    def upload_unlaunched():
        held["graph"] = CapturedGraph(stream, pipeline.enqueue_stages, 10)

    def sampling():
        session.config = replace(session.config, iters=calibrate_iters(session))
        sample(session, rng, None, stop_rule(session.config))

    def new_graphs_launched():
        fresh = bare_rungs(stream, pipeline, session.kernels, 1000, 10)
        for name in ("graph", "graph-pdl", "unrolled", "loop"):
            fresh[name][0]()
        held["fresh"] = fresh

    return [("start", lambda: None),
            ("a 10-iteration graph uploaded, not launched", upload_unlaunched),
            ("that graph launched once", lambda: held["graph"].launch(stream)),
            ("a run's sampling", sampling),
            ("the pipeline's CuPy reference", pipeline.reference),
            (f"graphbench's {graph_mode.name} rung launched", graph_mode.step),
            ("new graphs built and each launched once", new_graphs_launched)]


def main() -> None:
    from harness_overhead import bare_rungs

    from graphbench.config import RunConfig
    from graphbench.measure.session import Session

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=4096)
    parser.add_argument("--json")
    args = parser.parse_args()
    readings = []
    with Session(RunConfig(elements=args.elements), None) as session:
        rng = np.random.default_rng(0)
        session.pipeline.fill_random(rng)
        bare = bare_rungs(session.stream, session.pipeline, session.kernels, 1000, 10)
        for name in ("graph", "graph-pdl", "unrolled", "loop"):
            bare[name][0]()
        for name, action in steps(session, rng):
            action()
            session.stream.sync()
            row = {"step": name}
            for rung in RUNGS:
                run, iterations = bare[rung]
                row[f"{rung}_us"] = round(statistics.median(
                    run() / iterations * 1e6 for _ in range(10)), 3)
            readings.append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"elements": args.elements, "readings": readings}, handle, indent=2)


if __name__ == "__main__":
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))  # harness_overhead's bare rungs
    main()
