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


def bare_floor_and_lifecycle(stream, empty_kernel, pipeline, reps=5, count=1000) -> dict:
    """The same calls graphbench's lifecycle module times, written out bare."""
    from cuda.core import LaunchConfig, launch

    one = LaunchConfig(grid=1, block=1)
    out = {"kernel_launch_us": [], "graph_replay_us": [], "capture_us": [], "instantiate_us": [],
           "upload_us": [], "first_launch_us": []}
    gb = stream.create_graph_builder()
    gb.begin_building()
    launch(gb, one, empty_kernel)
    gb.end_building()
    g = gb.complete()
    g.upload(stream)
    for _ in range(reps):
        stream.sync()
        t0 = time.perf_counter()
        for _ in range(count):
            launch(stream, one, empty_kernel)
        stream.sync()
        t1 = time.perf_counter()
        for _ in range(count):
            g.launch(stream)
        stream.sync()
        t2 = time.perf_counter()
        out["kernel_launch_us"].append((t1 - t0) / count * 1e6)
        out["graph_replay_us"].append((t2 - t1) / count * 1e6)
    g.close()
    gb.close()
    (k1, a1), (k2, a2), (k3, a3) = pipeline.stage_launches
    config = pipeline.launch_config
    for _ in range(10):
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
        for key, (s, e) in zip(("capture_us", "instantiate_us", "upload_us", "first_launch_us"),
                               ((t0, t1), (t1, t2), (t2, t3), (t3, t4))):
            out[key].append((e - s) * 1e6)
    return out


def compare_floor_and_lifecycle(stream, empty_kernel, pipeline) -> dict:
    """graphbench's figures and bare ones, measured alternately three times."""
    from graphbench.lifecycle import time_graph_lifecycle, time_launch_floor

    ours, bare = {}, {}
    for _ in range(3):
        for source, target in ((time_launch_floor(stream, empty_kernel), ours),
                               (time_graph_lifecycle(stream, pipeline.enqueue_stages), ours),
                               (bare_floor_and_lifecycle(stream, empty_kernel, pipeline), bare)):
            for key, values in source.items():
                target.setdefault(key, []).extend(values)
    return {key: {"graphbench_us": statistics.median(ours[key]),
                  "bare_us": statistics.median(bare[key]),
                  "ratio": statistics.median(ours[key]) / statistics.median(bare[key])}
            for key in ours}


def main() -> None:
    import cupy

    from graphbench.device import describe, open_device, pin_host_thread
    from graphbench.modes import GraphMode, IndividualMode
    from graphbench.pipeline import Pipeline
    from graphbench.runner import load_kernels
    from graphbench.stages import DEFAULT_STAGES, expand
    from graphbench.timing import EventTimer

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
            "bare graph": lambda: bare_graph(stream, graph.graph, args.iters)}
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
    from graphbench.kernels import EMPTY_KERNEL
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
