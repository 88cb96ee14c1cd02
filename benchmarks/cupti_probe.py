"""A minimal CUPTI probe of the built-in chain's graph, importing nothing
from graphbench (benchmarks/bare_loops.py's setup): the cross-check for
`run --attribute`'s gaps between a graph's stages. Captures one pipeline
(vec_add, vec_mul, vec_sub) at 4096 elements into a graph, replays it in
batches with CUPTI's concurrent-kernel activity on (8 MiB buffers, one
flush at the end), and prints one JSON line: each stage kernel's median GPU
time and the median gap before stages 2 and 3, in us. GPU; needs
cupti-python.

    python3 benchmarks/cupti_probe.py [--replays 200] [--elements 4096]
"""

from __future__ import annotations

import argparse
import json
import statistics

from bare_loops import capture, setup

BUFFER_BYTES = 8 << 20
RECORDS: list = []


def _request():
    return BUFFER_BYTES, 0


def _complete(activities) -> None:
    RECORDS.extend((a.name, int(a.start), int(a.end)) for a in activities)


def gaps(records, names=("vec_add", "vec_mul", "vec_sub")) -> dict:
    """Per stage: median kernel time, and median gap from the stage before."""
    ordered = sorted((r for r in records if r[0] in names), key=lambda r: r[1])
    times = {name: [] for name in names}
    before = {name: [] for name in names[1:]}
    for i, (name, start, end) in enumerate(ordered):
        times[name].append((end - start) / 1e3)
        k = names.index(name)
        if k and i and ordered[i - 1][0] == names[k - 1]:
            before[name].append((start - ordered[i - 1][2]) / 1e3)
    return {"kernel_us": {n: statistics.median(v) for n, v in times.items() if v},
            "gap_before_us": {n: statistics.median(v) for n, v in before.items() if v}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replays", type=int, default=200)
    parser.add_argument("--elements", type=int, default=4096)
    args = parser.parse_args()
    from cupti import cupti

    device, config, launches, _ = setup(args.elements)
    stream = device.create_stream()
    builder, graph = capture(stream, config, launches, 1)
    for _ in range(20):  # warm-up, untraced
        graph.launch(stream)
    stream.sync()
    cupti.activity_register_callbacks(_request, _complete)
    cupti.activity_enable(cupti.ActivityKind.CONCURRENT_KERNEL)
    for _ in range(args.replays):
        graph.launch(stream)
    stream.sync()
    cupti.activity_flush_all(1)
    cupti.activity_disable(cupti.ActivityKind.CONCURRENT_KERNEL)
    found = gaps(RECORDS)
    print(json.dumps({"elements": args.elements, "replays": args.replays,
                      "gpu": str(getattr(device, "uuid", "")), **found}))
    graph.close()
    builder.close()


if __name__ == "__main__":
    main()
