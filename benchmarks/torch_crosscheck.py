"""The torch add, mul, sub chain timed bare, importing nothing from
graphbench: an eager loop and a torch.cuda.CUDAGraph.replay() loop, each
timed with CUDA events and the host clock, median of 15 rounds of 1000
iterations at 4096 and 2^20 elements. Prints JSON (us per iteration), to
compare with graphbench's individual and graph rungs of the same chain:

    python benchmarks/torch_crosscheck.py [--pin] [--sizes 4096,1048576,16777216]
                                          [--layout rand|graphbench]
    graphbench run --pipeline FILE.py --modes individual,graph --elements 4096
"""

import json
import statistics
import time

import torch

ROUNDS, ITERS, SIZES = 15, 1000, (4096, 1 << 20)


def chain(a, b, c, r1, r2, r3):
    torch.add(a, b, out=r1)
    torch.mul(r1, c, out=r2)
    torch.sub(r2, a, out=r3)


def time_loop(step, stream):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    walls, devices = [], []
    for _ in range(ROUNDS + 1):  # the first round warms up
        stream.synchronize()
        start.record(stream)
        t0 = time.perf_counter()
        for _ in range(ITERS):
            step()
        end.record(stream)
        stream.synchronize()
        walls.append((time.perf_counter() - t0) / ITERS * 1e6)
        devices.append(start.elapsed_time(end) / ITERS * 1e3)
    walls, devices = walls[1:], devices[1:]
    return {"wall_us": statistics.median(walls), "device_us": statistics.median(devices),
            "wall_min_us": min(walls), "wall_max_us": max(walls)}


def tensors(n, layout):
    """The chain's six tensors. At 2^20 they sit in the L2, and where they land
    moves replay time by several percent (docs/results.md):
    --layout graphbench allocates them as graphbench's torch backend does
    (empty, in the pipeline's order, inputs filled from host doubles)."""
    if layout == "graphbench":
        import numpy as np
        made = [torch.empty(n, device="cuda") for _ in range(6)]
        rng = np.random.default_rng(0)
        for t in made[:3]:
            t.copy_(torch.from_numpy(rng.uniform(-1, 1, n)))
        return made
    a, b, c = (torch.rand(n, device="cuda") * 2 - 1 for _ in range(3))
    return [a, b, c] + [torch.empty(n, device="cuda") for _ in range(3)]


def measure(n, layout="rand"):
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        a, b, c, r1, r2, r3 = tensors(n, layout)
        eager = lambda: chain(a, b, c, r1, r2, r3)  # noqa: E731
        for _ in range(3):
            eager()
        stream.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            eager()
        result = {"eager": time_loop(eager, stream), "graph_replay": time_loop(graph.replay, stream)}
        expected = (a + b) * c - a
        graph.replay()
        stream.synchronize()
        result["verified"] = bool(torch.allclose(r3, expected, rtol=1e-5, atol=1e-5))
    return result


def pin() -> int:
    """Pin to one CPU before CUDA starts its threads, as graphbench pins its
    launching thread (--pin; graphbench's default)."""
    import os

    cpu = sorted(os.sched_getaffinity(0))[0]
    os.sched_setaffinity(0, {cpu})
    return cpu


if __name__ == "__main__":
    import sys

    pinned = pin() if "--pin" in sys.argv else None
    layout = sys.argv[sys.argv.index("--layout") + 1] if "--layout" in sys.argv else "rand"
    if "--sizes" in sys.argv:  # e.g. --sizes 4096,1048576,16777216
        SIZES = tuple(int(x) for x in sys.argv[sys.argv.index("--sizes") + 1].split(","))
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(),
                      "pinned_cpu": pinned,
                      "rounds": ROUNDS, "iters": ITERS,
                      "layout": layout,
                      "sizes": {str(n): measure(n, layout) for n in SIZES}}, indent=2))
