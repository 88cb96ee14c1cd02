"""Does graphbench's timing add anything to what it measures?

Times graphbench's own EventTimer rounds and a bare loop of the same
cuda.core calls, interleaved in one process, and prints the ratio of the
medians per mode (the target: within 3%). Also times the graph
lifecycle steps against bare calls. `--bare-only` times the bare rounds
alone in a process that builds no graphbench mode (benchmarks/
ladder_agreement.py; `--with-modes` builds them first, never launched).
Run on a GPU:
    PYTHONPATH=. python3 benchmarks/harness_overhead.py --json out.json
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
import statistics
import time

import numpy as np


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

    (k1, config, a1), (k2, _, a2), (k3, _, a3) = pipeline.stage_launches
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
            for key in ours if key in bare}  # bare has times only (not graph memory)


def bare_rungs(stream, pipeline, kernels, iters: int, unroll: int) -> dict:
    """For each rung, a round of its calls written out bare (no graphbench
    mode, step or timer): returns {rung: (round function, iterations)}."""
    import ctypes

    from cuda.bindings import driver as drv
    from cuda.core import LaunchConfig, launch

    (k1, config, a1), (k2, _, a2), (k3, _, a3) = pipeline.stage_launches
    (p1, pdl, b1), (p2, _, b2), (p3, _, b3) = pipeline.pdl_launches
    kf, _, af = pipeline.fused_launch

    def timed(body, count):
        def run():
            stream.sync()
            t0 = time.perf_counter()
            body(count)
            stream.sync()
            return time.perf_counter() - t0
        return run

    def individual(n):
        for _ in range(n):
            launch(stream, config, k1, *a1)
            launch(stream, config, k2, *a2)
            launch(stream, config, k3, *a3)

    def pdl_launches(n):
        for _ in range(n):
            launch(stream, pdl, p1, *b1)
            launch(stream, pdl, p2, *b2)
            launch(stream, pdl, p3, *b3)

    keep = []  # ctypes argument memory outlives every launch

    def packed(args):
        values = [ctypes.c_void_p(a) if isinstance(a, int) else ctypes.c_uint64(int(a))
                  for a in args]
        array = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in values])
        keep.append((values, array))
        return ctypes.addressof(array)

    grid, block, s = int(config.grid[0]), int(config.block[0]), drv.CUstream(int(stream.handle))
    (f1, q1), (f2, q2), (f3, q3) = [(drv.CUfunction(int(k.handle)), packed(a))
                                    for k, _, a in pipeline.stage_launches]
    cu = drv.cuLaunchKernel

    def driver(n):
        for _ in range(n):
            cu(f1, grid, 1, 1, block, 1, 1, 0, s, q1, 0)
            cu(f2, grid, 1, 1, block, 1, 1, 0, s, q2, 0)
            cu(f3, grid, 1, 1, block, 1, 1, 0, s, q3, 0)

    def fused(n):
        for _ in range(n):
            launch(stream, config, kf, *af)

    def graph_of(enqueue_body, copies=1):
        b = stream.create_graph_builder()
        b.begin_building()
        for _ in range(copies):
            enqueue_body(b)
        b.end_building()
        graph = b.complete()
        graph.upload(stream)
        keep.append((b, graph))
        return graph

    def stages(target):
        launch(target, config, k1, *a1)
        launch(target, config, k2, *a2)
        launch(target, config, k3, *a3)

    def stages_pdl(target):
        launch(target, pdl, p1, *b1)
        launch(target, pdl, p2, *b2)
        launch(target, pdl, p3, *b3)

    import cupy
    counter, target = cupy.zeros(1, dtype=cupy.uint32), cupy.full(1, iters, dtype=cupy.uint32)
    cupy.cuda.get_current_stream().synchronize()
    one = LaunchConfig(grid=1, block=1)

    def device_loop(b):
        condition = b.create_condition(default_value=1)
        launch(b, one, kernels["loop_reset"], counter.data.ptr, target.data.ptr)
        body = b.while_loop(condition)
        body.begin_building()
        stages(body)
        launch(body, one, kernels["loop_count"], condition, counter.data.ptr)
        body.end_building()
        keep.append(body)

    graphs = {"graph": graph_of(stages), "graph-pdl": graph_of(stages_pdl),
              "unrolled": graph_of(stages, unroll), "loop": graph_of(device_loop)}

    def replay(graph):
        def body(n):
            launch_graph = graph.launch  # the method looked up once, as graphbench's step does
            for _ in range(n):
                launch_graph(stream)
        return body

    calls = {"unrolled": max(1, round(iters / unroll)), "loop": 1}
    bodies = {"individual": individual, "driver": driver, "pdl": pdl_launches, "fused": fused,
              **{name: replay(graph) for name, graph in graphs.items()}}
    per_call = {"unrolled": unroll, "loop": iters}
    rungs = {name: (timed(body, calls.get(name, iters)), calls.get(name, iters) *
                    per_call.get(name, 1)) for name, body in bodies.items()}
    rungs["_keep"] = (keep, counter, target)
    return rungs


def bare_alone(bare: dict, rungs, probe, args, seek=None) -> None:
    """Every rung's bare round alone, interleaved, its median wall per
    iteration printed as one JSON line (benchmarks/ladder_agreement.py sets
    it beside a `graphbench run --modes all` run right after), with the
    median of graphbench's launch probe read between the rounds: the host's
    speed, so that a CPU-bound rung can be compared at one host speed.

    `seek` (graphbench.measure.cpu_seek) starts every pass over the rungs
    on a CPU in the fast state, as graphbench starts every set of rounds:
    without it the bare process stayed on the CPU it was pinned to, and on
    H100 5f8c57c3 read the probe 6-10% slower than the graphbench run right
    after it in each of 4 pairs while their raw walls agreed within 1-3%, so
    stating the bare walls at graphbench's host speed moved them by as much.

    Each rung's probe reading is, as graphbench's, the mean of the readings
    right before and right after its round: the probe reads faster after a
    CPU-bound round than after one the host waited through (on H100
    aeab19b0 graphbench's per-rung medians were 644-668 us beside the
    CPU-bound rungs and 679-741 beside the others), so one median over
    every rung set the bare CPU-bound rungs at a slower host speed than
    graphbench's and moved their ratio at one host speed by 9-12% (fused
    3-4%) in the two pairs that ran in one host state."""
    rungs = [name for name in rungs if name in bare]
    for name in rungs:  # warm-up
        bare[name][0]()
    if seek:
        seek.survey()
    walls, readings = {name: [] for name in rungs}, {name: [] for name in rungs}
    for r in range(args.rounds):
        reading = seek() if seek else probe()
        for name in rungs if r % 2 == 0 else reversed(rungs):
            run, iterations = bare[name]
            walls[name].append(run() / iterations * 1e6)
            before, reading = reading, probe()
            readings[name].append((before + reading) / 2)
    result = {"elements": args.elements, "iters": args.iters, "rounds": args.rounds,
              "median_wall_us": {name: statistics.median(v) for name, v in walls.items()},
              "median_probe_us": {name: statistics.median(v) for name, v in readings.items()}}
    print(json.dumps(result))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=2)


def main() -> None:
    import cupy

    from graphbench.ladder import LADDER
    from graphbench.measure.cpu_seek import interrupt_cpus, seeker
    from graphbench.measure.device import describe, near_cpus, open_device, pin_host_thread
    from graphbench.measure.conditions import LaunchProbe
    from graphbench.measure.kernels import EMPTY_KERNEL, PROBE_KERNEL
    from graphbench.measure.modes import build_modes, close_modes
    from graphbench.measure.pipeline import Pipeline
    from graphbench.measure.session import load_kernels
    from graphbench.measure.timing import EventTimer
    from graphbench.pipeline.files import load_pipeline, plan

    parser = argparse.ArgumentParser()
    parser.add_argument("--elements", type=int, default=4096)
    parser.add_argument("--iters", type=int, default=1000)
    parser.add_argument("--unroll", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--json")
    parser.add_argument("--bare-only", action="store_true",
                        help="time the bare rounds alone (no graphbench timer) and stop")
    parser.add_argument("--with-modes", action="store_true",
                        help="with --bare-only: build graphbench's modes first, unlaunched")
    parser.add_argument("--seek-cpu", action="store_true",
                        help="with --bare-only: start every pass over the rungs on a fast CPU, "
                             "as graphbench run starts every set of rounds")
    args = parser.parse_args()

    # as graphbench run does, on a CPU that does not serve the GPU's
    # interrupts, as graphbench's sampling never runs on one
    quiet = [cpu for cpu in near_cpus(0) if cpu not in interrupt_cpus()]
    pinned = pin_host_thread(quiet or near_cpus(0))
    device = open_device(0)
    info = describe(device)
    stream = device.create_stream()
    built_in = load_pipeline(None)  # the same pipeline file graphbench run uses
    built_in_plan = plan(built_in.spec, args.elements)
    kernels = load_kernels(info.arch, built_in.source, built_in_plan)
    pipeline = Pipeline(built_in_plan, kernels, info.multiprocessors)
    pipeline.fill_random(np.random.default_rng(0))
    if args.bare_only and not args.with_modes:
        # no graphbench mode in the process: built beside the bare graphs and
        # never launched, graphbench's unrolled graph read them 7-16% slower
        # on H100s (docs/measurement.md, "Two speeds of a process's graph replays")
        bare = bare_rungs(stream, pipeline, kernels, args.iters, args.unroll)
        probe = LaunchProbe(stream, kernels[PROBE_KERNEL])
        seek = seeker(pinned, near_cpus(0), probe) if args.seek_cpu else None
        bare_alone(bare, LADDER, probe, args, seek)
        if seek:
            seek.restore()
        return
    modes = {m.name: m for m in build_modes(LADDER, pipeline, stream, kernels=kernels,
                                             unroll=args.unroll)}
    for mode in modes.values():
        mode.set_round_iterations(args.iters)
    bare = bare_rungs(stream, pipeline, kernels, args.iters, args.unroll)
    if args.bare_only:
        bare_alone(bare, modes, LaunchProbe(stream, kernels[PROBE_KERNEL]), args)
        close_modes(modes.values())
        return
    timer = EventTimer(device, stream)
    runs = {}
    for name, mode in modes.items():
        calls = mode.calls_per_round(args.iters)
        iterations = calls * mode.iterations_per_call
        runs[f"graphbench {name}"] = (lambda m=mode, c=calls: timer.time_round(m.step, c).wall_s,
                                      iterations)
        runs[f"bare {name}"] = bare[name]
    for run, _ in runs.values():  # warm-up
        run()
    walls = {name: [] for name in runs}
    for r in range(args.rounds):
        names = list(runs) if r % 2 == 0 else list(reversed(runs))
        for name in names:
            run, iterations = runs[name]
            walls[name].append(run() / iterations * 1e6)
    medians = {name: statistics.median(v) for name, v in walls.items()}
    # The host's speed drifts over seconds on a shared VM: compare each
    # graphbench round with the bare round run right beside it.
    ratios = {mode: [g / b for g, b in zip(walls[f"graphbench {mode}"], walls[f"bare {mode}"])]
              for mode in modes}
    result = {"device": info.name, "elements": args.elements, "iters": args.iters,
              "unroll": args.unroll, "rounds": args.rounds, "median_wall_us": medians,
              "ratio_graphbench_over_bare": {m: statistics.median(r) for m, r in ratios.items()},
              "ratio_iqr": {m: [float(q) for q in np.percentile(r, [25, 75])]
                            for m, r in ratios.items()}}
    result["floor_and_lifecycle"] = compare_floor_and_lifecycle(
        stream, kernels[EMPTY_KERNEL], pipeline)
    for key, row in result["floor_and_lifecycle"].items():
        print(f"{key:18s} graphbench {row['graphbench_us']:9.2f} us  bare {row['bare_us']:9.2f} us"
              f"  ratio {row['ratio']:.3f}")
    for mode in modes:
        low, high = result["ratio_iqr"][mode]
        print(f"{mode:10s} graphbench {medians['graphbench ' + mode]:8.3f}  bare "
              f"{medians['bare ' + mode]:8.3f} us/iter  ratio "
              f"{result['ratio_graphbench_over_bare'][mode]:.4f} (IQR {low:.3f}..{high:.3f})")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=2)
    close_modes(modes.values())
    timer.close()
    del cupy


if __name__ == "__main__":
    main()
