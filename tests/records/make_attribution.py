"""Regenerate tests/records/attribution.json, the record the attribution
tests read: `python tests/records/make_attribution.py`.

A synthetic run record (tests/conftest.py) with a hand-made CUPTI trace
shaped like the H200's at 4096 elements (tests/../shared H200 findings):
eager kernels 0.90 us with 5.8 us gaps; in the graph 0.96 / 0.96 / 1.06 us
with 0.13 us gaps; PDL stages starting 0.3 us before their predecessor
ends; the loop's loop_count 1.0 us with 0.2 us before it and 3.0 us after.
"""

import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

from conftest import make_record  # noqa: E402

from graphbench.record.codec import write_record  # noqa: E402
from graphbench.record.trace import Attribution, KernelActivity, RungTrace, StageWindow  # noqa: E402

STAGES = {"stages": ("vec_add", "vec_mul", "vec_sub"),
          "stages-pdl": ("vec_add_pdl", "vec_mul_pdl", "vec_sub_pdl"), "fused": ("fused",)}
BATCHES, BATCH_GAP_NS = 3, 1_000_000
# rung: (workload, iterations per batch, kernel ns, gap ns before each stage, loop)
RUNGS = {
    "individual": ("stages", 6, (900, 900, 900), (5800, 5800, 5800), False),
    "pdl": ("stages-pdl", 6, (900, 900, 900), (5200, -300, -300), False),
    "graph": ("stages", 6, (960, 960, 1060), (3000, 130, 130), False),
    "graph-pdl": ("stages-pdl", 6, (960, 960, 1060), (3000, -250, -250), False),
    "unrolled": ("stages", 5, (960, 960, 1060), (300, 130, 130), False),
    "loop": ("stages", 6, (960, 960, 1060), (0, 130, 130), True),
    "fused": ("fused", 6, (1500,), (4000,), False),
}
WALL_US = {"individual": 21.0, "pdl": 19.0, "graph": 6.2, "graph-pdl": 6.0, "unrolled": 3.5,
           "loop": 7.2, "fused": 5.5}


def kernel(name, start, length, batch, graph=0, node=0, correlation=0):
    return KernelActivity(name, start, start + length, graph, node, correlation, 7, batch)


def rung_kernels(workload, per_batch, lengths, gaps, loop):
    """Batches of back-to-back iterations; every kernel's start follows the
    previous end by its stage's gap (the loop: loop_count, then the
    conditional's 3 us, before the next body)."""
    out, clock, correlation = [], 1_000_000, 1
    graph = 0 if gaps[0] > 5000 else 5
    for batch in range(BATCHES):
        clock += BATCH_GAP_NS
        if loop:
            out.append(kernel("loop_reset", clock, 1500, batch, graph, 99))
            clock += 1500
        for _ in range(per_batch):
            for node, (name, length, gap) in enumerate(zip(STAGES[workload], lengths, gaps)):
                clock += gap if gap or not loop else 3000
                out.append(kernel(name, clock, length, batch, graph, node + 1, correlation))
                clock, correlation = clock + length, correlation + 1
            if loop:
                out.append(kernel("loop_count", clock + 200, 1000, batch, graph, 98))
                clock += 1200
    return tuple(out)


def attribution() -> Attribution:
    windows = tuple(StageWindow(name, workload, (kernel(name, 100 * i, 900, 0),))
                    for workload, names in STAGES.items() for i, name in enumerate(names))
    rungs = {mode: RungTrace(workload, per_batch, rung_kernels(workload, per_batch, lengths,
                                                                gaps, loop),
                             (WALL_US[mode],) * BATCHES, (WALL_US[mode] * 1.3,) * BATCHES)
             for mode, (workload, per_batch, lengths, gaps, loop) in RUNGS.items()}
    return Attribution(windows, rungs, ("loop_reset", "loop_count"), "13.2.0")


def main() -> None:
    record = make_record(WALL_US, rounds=10)
    run = replace(record.runs[0], attribution=attribution())
    write_record(HERE / "attribution.json", replace(record, runs=(run,)))


if __name__ == "__main__":
    main()
