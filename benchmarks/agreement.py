"""Does graphbench agree with a bare script of the same calls?

Alternates N fresh processes of benchmarks/bare_loops.py (which imports
nothing from graphbench) and of `graphbench run`, and compares the median
over processes of each figure: graph replay wall, individual launches wall
(with the spread of the per-pair ratios), and GPU busy time. The bare
script is pinned to a CPU that does not serve the GPU's interrupts, as
graphbench's sampling never runs on one.

    PYTHONPATH=. python3 benchmarks/agreement.py --pairs 5 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def quiet_cpu() -> int:
    """A CPU for the bare script, which does not seek: one graphbench may
    seek to (it never chooses a CPU serving the GPU's interrupts, where graph
    launches ran 2-3x slower on an H200 host)."""
    from graphbench.measure.cpu_seek import interrupt_cpus

    allowed = sorted(os.sched_getaffinity(0))
    return min(set(allowed) - interrupt_cpus(), default=allowed[0])


def bare(extra: list[str]) -> dict:
    out = subprocess.run([sys.executable, str(HERE / "bare_loops.py"), "--pin", "before",
                          "--cpu", str(quiet_cpu()), *extra],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def graphbench(extra: list[str], folder: str, index: int) -> dict:
    from graphbench.stats.summary import summarize_run
    from graphbench.record.codec import read_run

    path = str(Path(folder) / f"run{index}.json")
    subprocess.run([sys.executable, "-m", "graphbench", "run", "--no-progress", "--json", path,
                    *extra], check=True, stdout=subprocess.DEVNULL)
    summary = summarize_run(read_run(path))
    return {"graph_wall_us": summary.modes["graph"].wall.median,
            "individual_wall_us": summary.modes["individual"].wall.median,
            "busy_us": summary.modes["graph"].busy.median}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    pairs = []
    with tempfile.TemporaryDirectory() as folder:
        for i in range(args.pairs):
            first_bare = i % 2 == 0
            a = bare([]) if first_bare else None
            g = graphbench([], folder, i)
            b = a or bare([])
            pairs.append({"bare": b, "graphbench": g})
            print(f"pair {i}: bare graph {b['graph_wall_us']:.3f} individual "
                  f"{b['individual_wall_us']:.3f} busy {b['busy_before_us']:.3f} | graphbench "
                  f"graph {g['graph_wall_us']:.3f} individual {g['individual_wall_us']:.3f} "
                  f"busy {g['busy_us']:.3f}")
    summary = {}
    for name, bare_key in (("graph_wall_us", "graph_wall_us"),
                           ("individual_wall_us", "individual_wall_us"),
                           ("busy_us", "busy_before_us")):
        b = statistics.median(p["bare"][bare_key] for p in pairs)
        g = statistics.median(p["graphbench"][name] for p in pairs)
        ratios = [p["graphbench"][name] / p["bare"][bare_key] for p in pairs]
        summary[name] = {"bare_median": b, "graphbench_median": g, "ratio_of_medians": g / b,
                         "pair_ratio_min": min(ratios), "pair_ratio_max": max(ratios)}
        print(f"{name}: bare {b:.3f} graphbench {g:.3f} ratio {g / b:.4f} "
              f"(pairs {min(ratios):.3f}..{max(ratios):.3f})")
    if args.json:
        Path(args.json).write_text(json.dumps({"pairs": pairs, "summary": summary}, indent=1))


if __name__ == "__main__":
    main()
