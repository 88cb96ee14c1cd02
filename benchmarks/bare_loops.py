"""The same calls graphbench times, written out bare: imports nothing from
graphbench. The cross-check for graphbench's wall and busy figures.

One process: compile kernels/pipeline.cu with cuda.core, allocate the
vectors with CuPy, capture the three stages into a graph, then time
interleaved rounds of `graph.launch` and of three `launch` calls with a
synchronised host clock, and the GPU time of one graph of 100 pipelines with
CUDA events. Prints one JSON line.

    python3 benchmarks/bare_loops.py --pin none|before|after [--cpu N] [--verify]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np

SOURCE = Path(__file__).resolve().parents[1] / "kernels" / "pipeline.cu"


def pin(cpu: int | None = None) -> None:
    """Pin this thread to one CPU, as graphbench does (before the driver
    starts its threads they inherit the pinning; after, they do not):
    `cpu`, else the first this process may use."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0)) if cpu is None else cpu})


def setup(elements: int):
    import cupy
    from cuda.core import Device, LaunchConfig, Program, ProgramOptions

    device = Device(0)
    device.set_current()
    arch = f"sm_{device.arch}"
    # the shipped source #includes graphbench's PDL header; paste it in, as graphbench does
    header = SOURCE.with_name("graphbench_pdl.cuh").read_text()
    text = SOURCE.read_text().replace('#include "graphbench_pdl.cuh"', header)
    module = Program(text, "c++", ProgramOptions(arch=arch, std="c++17")).compile("cubin")
    kernels = [module.get_kernel(name) for name in ("vec_add", "vec_mul", "vec_sub")]
    rng = np.random.default_rng(0)
    a, b, c = (cupy.asarray(rng.uniform(-1, 1, elements).astype(np.float32)) for _ in range(3))
    r1, r2, r3 = (cupy.empty(elements, dtype=cupy.float32) for _ in range(3))
    cupy.cuda.get_current_stream().synchronize()
    sms = device.properties.multiprocessor_count
    config = LaunchConfig(grid=max(1, min(-(-elements // 256), sms * 32)), block=256)
    n = np.uint64(elements)
    launches = [(kernels[0], (a.data.ptr, b.data.ptr, r1.data.ptr, n)),
                (kernels[1], (r1.data.ptr, c.data.ptr, r2.data.ptr, n)),
                (kernels[2], (r2.data.ptr, a.data.ptr, r3.data.ptr, n))]
    return device, config, launches, (a, b, c, r3)


def capture(stream, config, launches, iterations: int):
    from cuda.core import launch

    builder = stream.create_graph_builder()
    builder.begin_building()
    for _ in range(iterations):
        for kernel, args in launches:
            launch(builder, config, kernel, *args)
    builder.end_building()
    graph = builder.complete()
    graph.upload(stream)
    stream.sync()
    return builder, graph


def verify(arrays) -> bool:
    """The CuPy comparison graphbench's verification makes."""
    import cupy

    a, b, c, r3 = arrays
    expected = (a + b) * c - a
    good = cupy.isclose(r3, expected, rtol=1e-5, atol=1e-5)
    error = cupy.abs(r3.astype(cupy.float64) - expected.astype(cupy.float64))
    error = cupy.where(cupy.isnan(error), cupy.inf, error)
    bad = int(r3.size - int(good.sum()))
    _ = int(cupy.argmin(good)), float(error.max())
    return bad == 0


def wall_round(stream, step, iters: int) -> float:
    stream.sync()
    t0 = time.perf_counter()
    for _ in range(iters):
        step()
    stream.sync()
    return (time.perf_counter() - t0) / iters * 1e6


def busy_us(device, stream, graph100) -> float:
    from cuda.core import EventOptions

    options = EventOptions(timing_enabled=True)
    start, end = device.create_event(options), device.create_event(options)
    times = []
    for _ in range(9):
        stream.sync()
        stream.record(start)
        graph100.launch(stream)
        stream.record(end)
        stream.sync()
        times.append((end - start) * 1e3 / 100)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pin", choices=("none", "before", "after"), default="none")
    parser.add_argument("--cpu", type=int, default=None, help="the CPU --pin pins to")
    parser.add_argument("--elements", type=int, default=4096)
    parser.add_argument("--iters", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--verify", action="store_true", help="compare with CuPy first")
    args = parser.parse_args()
    if args.pin == "before":
        pin(args.cpu)
    device, config, launches, arrays = setup(args.elements)
    if args.pin == "after":
        pin(args.cpu)
    from cuda.core import launch

    stream = device.create_stream()
    builder, graph = capture(stream, config, launches, 1)
    builder100, graph100 = capture(stream, config, launches, 100)
    (k1, a1), (k2, a2), (k3, a3) = launches

    def individual():
        launch(stream, config, k1, *a1)
        launch(stream, config, k2, *a2)
        launch(stream, config, k3, *a3)

    replay, graph_launch = (lambda: graph_launch(stream)), graph.launch
    result = {"pin": args.pin, "elements": args.elements, "busy_before_us": busy_us(device, stream, graph100)}
    if args.verify:
        graph.launch(stream)
        stream.sync()
        result["verified"] = verify(arrays)
    walls = {"individual": [], "graph": []}
    steps = {"individual": individual, "graph": replay}
    for name, step in steps.items():  # warm-up
        wall_round(stream, step, args.iters)
    for r in range(args.rounds):
        for name in (list(steps) if r % 2 == 0 else list(reversed(steps))):
            walls[name].append(wall_round(stream, steps[name], args.iters))
    result.update({f"{name}_wall_us": statistics.median(v) for name, v in walls.items()})
    result["busy_after_us"] = busy_us(device, stream, graph100)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
