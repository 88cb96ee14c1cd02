"""graphbench's busy time against a bare 100-pipeline graph in the same
process. Each child process first runs a whole default `graphbench run`
(timing, probes, checks), then, in that same process, times one graph of
100 captured pipelines three ways, 21 times each:
  unheld: CUDA events around graph.launch (a bare probe: the events also
          time the GPU waiting while the host submits the graph)
  held:   the same graph queued behind graphbench's hold kernel, so the
          events time the GPU's work alone
  probe:  graphbench's BusyProbe (its own graph length, held)
and prints each figure with the run's own busy median.
    PYTHONPATH=. python3 benchmarks/busy_probe_check.py --processes 3 --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

BARE_ITERATIONS, REPEATS = 100, 21


def timed_replays(session, graph, hold) -> tuple[list[float], list[float]]:
    """Per-pipeline us of `graph`, launched bare and behind the hold."""
    from cuda.core import EventOptions

    stream, options = session.stream, EventOptions(timing_enabled=True)
    start, end = session.device.create_event(options), session.device.create_event(options)
    unheld, held = [], []
    for repeat in range(REPEATS + 1):
        for target, with_hold in ((unheld, False), (held, True)):
            stream.sync()
            if with_hold:
                hold.launch()
            stream.record(start)
            graph.launch(stream)
            stream.record(end)
            stream.sync()
            if repeat:  # the first is a warm-up
                target.append((end - start) * 1e3 / BARE_ITERATIONS)
    start.close()
    end.close()
    return unheld, held


def child() -> None:
    import numpy as np

    from graphbench.stats.summary import summarize_run
    from graphbench.config import RunConfig
    from graphbench.runner import run_benchmark
    from graphbench.measure.busy import BusyProbe, Hold
    from graphbench.measure.graphs import CapturedGraph
    from graphbench.measure.kernels import HOLD_KERNEL
    from graphbench.measure.session import Session

    record = run_benchmark(RunConfig())  # the state a user's run leaves the process in
    run_busy = summarize_run(record).modes["graph"].busy.median
    with Session(RunConfig(), None) as session:
        session.pipeline.fill_random(np.random.default_rng(1))
        hold = Hold(session.device, session.stream, session.kernels[HOLD_KERNEL])
        hold.us = 2000.0  # far longer than one graph submission
        graph = CapturedGraph(session.stream, session.pipeline.enqueue_stages, BARE_ITERATIONS)
        unheld, held = timed_replays(session, graph.graph, hold)
        probe = BusyProbe(session.device, session.stream, session.pipeline.enqueue_stages, hold)
        probed = [probe.measure().us for _ in range(REPEATS)]
        result = {"run_busy": run_busy, "unheld_100": statistics.median(unheld),
                  "held_100": statistics.median(held), "probe": statistics.median(probed),
                  "probe_iterations": probe.iterations}
        probe.close()
        graph.close()
        hold.close()
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--json", help="write the per-process figures here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child()
    runs = []
    for _ in range(args.processes):
        out = subprocess.run([sys.executable, __file__, "--child"], check=True,
                             capture_output=True, text=True).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
        r = runs[-1]
        print(f"run busy {r['run_busy']:.3f}  probe {r['probe']:.3f} ({r['probe_iterations']} "
              f"per graph)  100-graph held {r['held_100']:.3f}  unheld {r['unheld_100']:.3f}  "
              f"run/held {r['run_busy'] / r['held_100']:.4f}  "
              f"run/unheld {r['run_busy'] / r['unheld_100']:.4f}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(runs, handle, indent=1)


if __name__ == "__main__":
    main()
