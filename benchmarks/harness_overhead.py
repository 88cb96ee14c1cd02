"""Does graphbench's timing add anything to what it measures?

Times graphbench's own EventTimer rounds and a bare loop of the same
cuda.core calls, interleaved in one process, and prints the ratio of the
medians per mode (the issue's target: within 3%). Also times the graph
lifecycle steps against bare calls. Run on a GPU:
    PYTHONPATH=. python3 benchmarks/harness_overhead.py --json out.json
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
import statistics
import time

import numpy as np


def bare_individual(stream, config, launches, iters):
    from cuda.core import launch

    (k1, a1), (k2, a2), (k3, a3) = launches
    stream.sync()
    t0 = time.perf_counter()
    for _ in range(iters):
        launch(stream, config, k1, *a1)
        launch(stream, config, k2, *a2)
        launch(stream, config, k3, *a3)
    stream.sync()
    return time.perf_counter() - t0


def bare_graph(stream, graph, iters):
    stream.sync()
    t0 = time.perf_counter()
    for _ in range(iters):
        graph.launch(stream)
    stream.sync()
    return time.perf_counter() - t0


def bare_floor(stream, empty_kernel, graph, count) -> dict:
    """Empty-kernel launches and one-node graph replays, written out bare."""
    from cuda.core import LaunchConfig, launch

    one = LaunchConfig(grid=1, block=1)
    stream.sync()
    t0 = time.perf_counter()
    for _ in range(count):
        launch(stream, one, empty_kernel)
    stream.sync()
    t1 = time.perf_counter()
    for _ in range(count):
        graph.launch(stream)
    stream.sync()
    t2 = time.perf_counter()
    return {"kernel_launch_us": [(t1 - t0) / count * 1e6],
            "graph_replay_us": [(t2 - t1) / count * 1e6]}


def bare_lifecycle(stream, pipeline) -> dict:
    """Capture, instantiate, upload and first launch of the pipeline, written out bare."""
    from cuda.core import launch

    (k1, a1), (k2, a2), (k3, a3) = pipeline.stage_launches
    config = pipeline.launch_config
    stream.sync()
    t0 = time.perf_counter()
    b = stream.create_graph_builder()
    b.begin_building()
    launch(b, config, k1, *a1)
    launch(b, config, k2, *a2)
    launch(b, config, k3, *a3)
    b.end_building()
    t1 = time.perf_counter()
    graph = b.complete()
    t2 = time.perf_counter()
    graph.upload(stream)
    stream.sync()
    t3 = time.perf_counter()
    graph.launch(stream)
    stream.sync()
    t4 = time.perf_counter()
    graph.close()
    b.close()
    return {key: [(e - s) * 1e6] for key, (s, e) in
            zip(("capture_us", "instantiate_us", "upload_us", "first_launch_us"),
                ((t0, t1), (t1, t2), (t2, t3), (t3, t4)))}


def compare_floor_and_lifecycle(stream, empty_kernel, pipeline, pairs=40, count=200) -> dict:
    """graphbench's lifecycle module against bare calls, one repetition each,
    alternating which goes first, compared pair by pair (the host drifts)."""
    from cuda.core import LaunchConfig, launch

    from graphbench.measure.costs import time_graph_lifecycle, time_launch_floor
    from graphbench.measure.graphs import CapturedGraph

    captured = CapturedGraph(stream, lambda t: launch(t, LaunchConfig(grid=1, block=1),
                                                      empty_kernel))
    ours_fns = (lambda: asdict(time_launch_floor(stream, empty_kernel, reps=1, count=count)),
                lambda: asdict(time_graph_lifecycle(stream, pipeline.enqueue_stages, reps=1)))
    bare_fns = (lambda: bare_floor(stream, empty_kernel, captured.graph, count),
                lambda: bare_lifecycle(stream, pipeline))
    ours, bare = {}, {}
    for i in range(pairs):
        order = ((ours_fns, ours), (bare_fns, bare)) if i % 2 == 0 else \
            ((bare_fns, bare), (ours_fns, ours))
        for fns, target in order:
            for fn in fns:
                for key, values in fn().items():
                    target.setdefault(key, []).extend(values)
    captured.close()
    return {key: {"graphbench_us": statistics.median(ours[key]),
                  "bare_us": statistics.median(bare[key]),
                  "ratio": statistics.median(o / b for o, b in zip(ours[key], bare[key]))}
            for key in ours}


def main() -> None:
    import cupy

    from graphbench.measure.device import describe, open_device, pin_host_thread
    from graphbench.measure.modes import GraphMode, IndividualMode
    from graphbench.measure.pipeline import Pipeline
    from graphbench.measure.session import load_kernels
    from graphbench.measure.stages import DEFAULT_STAGES, expand
    from graphbench.measure.timing import EventTimer

    parser = argparse.ArgumentParser()
    parser.add_argument("--elements", type=int, default=4096)
    parser.add_argument("--iters", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--json")
    args = parser.parse_args()

    pin_host_thread(0)  # as graphbench run does
    device = open_device(0)
    info = describe(device)
    stream = device.create_stream()
    pipeline = Pipeline(load_kernels(info.arch), expand(DEFAULT_STAGES), args.elements, 256,
                        info.multiprocessors)
    pipeline.fill_random(np.random.default_rng(0))
    individual, graph = IndividualMode(pipeline, stream), GraphMode(pipeline, stream)
    timer = EventTimer(device, stream)
    runs = {"graphbench individual": lambda: timer.time_round(individual.step, args.iters).wall_s,
            "bare individual": lambda: bare_individual(stream, pipeline.launch_config,
                                                       pipeline.stage_launches, args.iters),
            "graphbench graph": lambda: timer.time_round(graph.step, args.iters).wall_s,
            "bare graph": lambda: bare_graph(stream, graph.captured.graph, args.iters)}
    for run in runs.values():  # warm-up
        run()
    walls = {name: [] for name in runs}
    for r in range(args.rounds):
        names = list(runs) if r % 2 == 0 else list(reversed(runs))
        for name in names:
            walls[name].append(runs[name]() / args.iters * 1e6)
    medians = {name: statistics.median(v) for name, v in walls.items()}
    # The host's speed drifts over seconds on a shared VM: compare each
    # graphbench round with the bare round run right beside it.
    result = {"device": info.name, "elements": args.elements, "iters": args.iters,
              "rounds": args.rounds, "median_wall_us": medians,
              "ratio_graphbench_over_bare": {
                  mode: statistics.median(g / b for g, b in zip(walls[f"graphbench {mode}"],
                                                                walls[f"bare {mode}"]))
                  for mode in ("individual", "graph")}}
    from graphbench.measure.kernels import EMPTY_KERNEL
    result["floor_and_lifecycle"] = compare_floor_and_lifecycle(
        stream, load_kernels(info.arch)[EMPTY_KERNEL], pipeline)
    for key, row in result["floor_and_lifecycle"].items():
        print(f"{key:18s} graphbench {row['graphbench_us']:9.2f} us  bare {row['bare_us']:9.2f} us"
              f"  ratio {row['ratio']:.3f}")
    for name, value in medians.items():
        print(f"{name:24s} {value:8.3f} us/iter")
    for mode, ratio in result["ratio_graphbench_over_bare"].items():
        print(f"{mode:10s} graphbench/bare = {ratio:.4f}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=2)
    graph.close()
    timer.close()
    del cupy


if __name__ == "__main__":
    main()
