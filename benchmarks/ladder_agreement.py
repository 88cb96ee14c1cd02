"""Does every rung of `graphbench run --modes all` agree with its bare path?

N times: the bare rounds of every rung (benchmarks/harness_overhead.py
--bare-only: the same cuda.core and driver calls, no graphbench timer) in
a fresh process, then `graphbench run --modes all` right after it on the
same GPU; each rung's graphbench median wall over the bare median (target:
within 2%). The bare process reads no host probe, so a CPU-bound rung's
ratio also carries any change of the host's speed between the two
processes: the spread of its ratio over the repetitions shows how much.

    PYTHONPATH=. python3 benchmarks/ladder_agreement.py --reps 3 --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def bare(json_path: Path) -> dict:
    subprocess.run([sys.executable, str(HERE / "harness_overhead.py"), "--bare-only",
                    "--json", str(json_path)], check=True, capture_output=True, text=True)
    return json.loads(json_path.read_text())["median_wall_us"]


def graphbench(record_path: Path) -> dict:
    from graphbench.record.codec import read_record

    subprocess.run([sys.executable, "-m", "graphbench", "run", "--modes", "all", "--no-progress",
                    "--quiet", "--json", str(record_path)], check=True, capture_output=True,
                   text=True)
    record = read_record(record_path)
    return {name: statistics.median(record.samples(name, "wall")) for name in record.mode_names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    reps = []
    with tempfile.TemporaryDirectory() as folder:
        for i in range(args.reps):
            bare_us = bare(Path(folder) / f"bare_{i}.json")
            ours = graphbench(Path(folder) / f"run_{i}.json")
            reps.append({"bare_us": bare_us, "graphbench_us": ours,
                         "ratio": {m: ours[m] / bare_us[m] for m in ours if m in bare_us}})
            print(json.dumps(reps[-1]["ratio"]), flush=True)
    rungs = list(reps[0]["ratio"])
    summary = {m: {"median_ratio": statistics.median(r["ratio"][m] for r in reps),
                   "ratios": [r["ratio"][m] for r in reps]} for m in rungs}
    for m, row in summary.items():
        print(f"{m:10s} graphbench / bare {row['median_ratio']:.4f}  "
              f"({min(row['ratios']):.3f}..{max(row['ratios']):.3f})")
    if args.json:
        Path(args.json).write_text(json.dumps({"reps": reps, "summary": summary}, indent=1))


if __name__ == "__main__":
    main()
