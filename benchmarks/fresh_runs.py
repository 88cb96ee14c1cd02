"""Fresh default runs, one process each, and how much their figures move
between runs: individual wall, graph wall and the speedup, as measured; the
host CPU probe's median in each; how many ended on their noise target;
seconds per process.

--alternate NAME=VALUE runs every other process with that environment
variable set, and summarises the two groups apart (for example
GRAPHBENCH_CPU_SEEK=0, which keeps a run on the CPU it began on).

    PYTHONPATH=. python3 benchmarks/fresh_runs.py --n 10 --out /tmp/fresh [--alternate NAME=VALUE] [-- RUN ARGS]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from graphbench.stats.summary import summarize_run
from graphbench.ladder import BASELINE, HEADLINE
from graphbench.record.codec import read_record


def one_run(record, extra: list[str], env: dict) -> dict:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "graphbench", "run", "--no-progress", "--quiet",
                           "--json", str(record), *extra], env={**os.environ, **env},
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        print(done.stdout[-800:], done.stderr[-800:], flush=True)
    return {"exit": done.returncode, "seconds": seconds}


def figures(path: Path) -> dict:
    record = read_record(path)
    summary = summarize_run(record)
    graph = np.asarray(record.samples(HEADLINE, "wall"), dtype=float)
    return {"gpu": record.device.uuid, "rounds": len(record.runs[0].conditions),
            "stop": record.runs[0].stop_reason, "noise": summary.noise,
            "individual_wall_us": summary.modes[BASELINE].wall.median,
            "graph_wall_us": summary.modes[HEADLINE].wall.median,
            "speedup": summary.speedup[HEADLINE].stats.median,
            "cpu_probe_us": summary.cpu_probe_us,
            # graph launches slowed 2-3x for stretches of rounds (the launching
            # thread's cross-CPU wake-ups, docs/measurement.md)
            "slow_graph_round_share": float(np.mean(graph > 1.5 * np.percentile(graph, 10)))
            if graph.size else None}


def spread(rows: list[dict], target: float) -> dict:
    def cv(values):
        values = [v for v in values if v]
        return statistics.pstdev(values) / statistics.mean(values) if len(values) > 1 else None

    def ratio(values):
        values = [v for v in values if v]
        return max(values) / min(values) if values else None

    return {"runs": len(rows),
            "individual_cv": cv([r["individual_wall_us"] for r in rows]),
            "graph_cv": cv([r["graph_wall_us"] for r in rows]),
            "speedup_max_over_min": ratio([r["speedup"] for r in rows]),
            "cpu_probe_us_range": [min(r["cpu_probe_us"] or 0 for r in rows),
                                   max(r["cpu_probe_us"] or 0 for r in rows)],
            "on_noise_target": sum(r["noise"] is not None and r["noise"] <= target
                                   for r in rows),
            "seconds_max": max(r["seconds"] for r in rows)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--out", required=True)
    parser.add_argument("--alternate", default=None, metavar="NAME=VALUE")
    parser.add_argument("--max-noise", type=float, default=0.01)
    parser.add_argument("run_args", nargs="*")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name, _, value = (args.alternate or "").partition("=")
    rows = []
    for i in range(args.n):
        env = {name: value} if name and i % 2 else {}
        record = out / f"run_{i}.json"
        row = {"run": i, "env": env, **one_run(record, args.run_args, env)}
        if row["exit"] in (0, 1) and record.exists():
            row.update(figures(record))
        rows.append(row)
        print(json.dumps(row), flush=True)
    measured = [r for r in rows if "speedup" in r]
    groups = {"all": measured}
    if name:
        groups = {"default": [r for r in measured if not r["env"]],
                  args.alternate: [r for r in measured if r["env"]]}
    summary = {key: spread(rows, args.max_noise) for key, rows in groups.items() if rows}
    (out / "summary.json").write_text(json.dumps({"summary": summary, "runs": rows}, indent=1))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
