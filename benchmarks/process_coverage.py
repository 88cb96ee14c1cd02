"""Coverage of the speedup's interval between processes on real runs: from
one record of many processes (run --processes 10), take every run of k
consecutive processes, and count how often the interval graphbench states
for those k processes covers the median of all the processes' medians.

    python benchmarks/process_coverage.py RECORD.json... [--k 3,5]

The interval is the product's own (graphbench.stats.summary.run_speedups
on a record of those k processes). Beside it, the within-process interval
of each single process against the same target.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's graphbench

from graphbench.stats.summary import run_speedups  # noqa: E402
from graphbench.record.codec import read_record  # noqa: E402


def covers(interval, truth) -> bool:
    return interval is not None and interval[0] <= truth <= interval[1]


def main(argv: list[str]) -> int:
    ks = [int(k) for k in argv[argv.index("--k") + 1].split(",")] if "--k" in argv else [3, 5]
    for path in [a for a in argv if a.endswith(".json")]:
        record = read_record(path)
        single = [dataclasses.replace(record, runs=(run,)) for run in record.runs]
        speedups = [run_speedups(one)["graph"] for one in single]
        medians = [s.stats.median for s in speedups]
        truth = float(np.median(medians))
        print(f"{Path(path).name}: {len(medians)} processes, speedup medians "
              f"{min(medians):.3f}..{max(medians):.3f}, target {truth:.3f}")
        within = sum(covers(s.interval, truth) for s in speedups)
        print(f"  one process, within its rounds: {within} of {len(speedups)} cover")
        for k in ks:
            groups = [record.runs[i:i + k] for i in range(len(record.runs) - k + 1)]
            hits = 0
            for runs in groups:
                entry = run_speedups(dataclasses.replace(record, runs=tuple(runs)))["graph"]
                hits += covers(entry.interval, truth)
            print(f"  {k} consecutive processes, between them: {hits} of {len(groups)} cover")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
