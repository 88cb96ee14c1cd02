"""How much does the speedup move between separate graphbench processes, and
does CPU placement explain it? Runs `graphbench run` N times per placement
(unpinned, and pinned to given CPUs) and prints each process's medians.
    PYTHONPATH=. python3 benchmarks/process_variance.py --runs 5 --cpus 0,1,8
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile


def one_run(cpu: int | None, extra: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r.json")
        pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
        subprocess.run([sys.executable, "-m", "graphbench", "run", "--no-progress", "--json", path,
                        *extra], check=True, stdout=subprocess.DEVNULL, preexec_fn=pin)
        from graphbench.analyze.summary import summarize_run
        from graphbench.record.codec import read_run

        return summarize_run(read_run(path))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cpus", default="")
    parser.add_argument("extra", nargs="*")
    args = parser.parse_args()
    placements = [None] + [int(c) for c in args.cpus.split(",") if c]
    print("cpus available:", sorted(os.sched_getaffinity(0)))
    summary = {}
    for cpu in placements:
        speedups = []
        for _ in range(args.runs):
            summary_of_run = one_run(cpu, args.extra)
            walls = {m: round(s.wall.median, 2) for m, s in summary_of_run.modes.items()}
            speedups.append(summary_of_run.speedup["graph"].stats.median)
            print(f"cpu={cpu} walls={walls} speedup={speedups[-1]:.3f}")
        summary[str(cpu)] = max(speedups) / min(speedups)
        print(f"cpu={cpu}: max/min speedup over {args.runs} processes = {summary[str(cpu)]:.4f}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
