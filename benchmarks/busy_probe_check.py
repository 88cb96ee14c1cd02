"""Does the GPU busy time move between processes, and does the hold kernel
ahead of the timed replay fix it? Each child process times the same graphs
two ways, 20 times each:
  bare: events around a 100-iteration replay (the GPU may wait for the host)
  held: graphbench's BusyProbe (replay queued behind a `hold` kernel)
and the parent prints per-process medians and their max/min across processes.
    PYTHONPATH=. python3 benchmarks/busy_probe_check.py --processes 8
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

BARE_ITERATIONS, REPEATS = 100, 20


def child() -> None:
    import numpy as np

    from graphbench.config import RunConfig
    from graphbench.measure.busy import BusyProbe
    from graphbench.measure.kernels import HOLD_KERNEL
    from graphbench.measure.session import Session

    result = {}
    with Session(RunConfig(), None) as session:
        session.pipeline.fill_random(np.random.default_rng(0))
        stream = session.stream
        for name, enqueue in (("stages", session.pipeline.enqueue_stages),
                              ("fused", session.pipeline.enqueue_fused)):
            # the bare figure: CUDA events around one graph of 100 pipelines,
            # built here with cuda.core alone
            builder = stream.create_graph_builder()
            builder.begin_building()
            for _ in range(BARE_ITERATIONS):
                enqueue(builder)
            builder.end_building()
            graph = builder.complete()
            graph.upload(stream)
            launch = lambda: graph.launch(stream)  # noqa: E731
            session.timer.time_round(launch, 1)  # warm-up
            bare = [session.timer.time_round(launch, 1).device_s * 1e6 / BARE_ITERATIONS
                    for _ in range(REPEATS)]
            graph.close()
            builder.close()
            probe = BusyProbe(session.device, stream, enqueue, session.kernels[HOLD_KERNEL])
            held = [probe.measure() for _ in range(REPEATS)]
            result[name] = {"bare": statistics.median(bare), "held": statistics.median(held),
                            "held_iterations": probe.iterations, "hold_us": probe.hold_us}
            probe.close()
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--json", help="write the per-process medians here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child()
    runs = []
    for _ in range(args.processes):
        out = subprocess.run([sys.executable, __file__, "--child"], check=True,
                             capture_output=True, text=True).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
        print(json.dumps(runs[-1]))
    summary = {}
    for name in ("stages", "fused"):
        for method in ("bare", "held"):
            values = [run[name][method] for run in runs]
            summary[f"{name}.{method}"] = {"min_us": min(values), "max_us": max(values),
                                           "max_over_min": max(values) / min(values)}
            print(f"{name:6} {method}: {min(values):.3f}..{max(values):.3f} us per iteration, "
                  f"max/min {max(values) / min(values):.4f} over {len(values)} processes")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"processes": runs, "summary": summary}, handle, indent=1)


if __name__ == "__main__":
    main()
