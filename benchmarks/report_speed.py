"""How fast `graphbench report` and `compare` read a long record: the target
is a valid 200,000-round record of every rung (8 modes, one condition per
round, 264 MB) reported in at most 5 s. Makes the record from a committed
H200 record, every round with its conditions (busy and submit readings):
the default ladder's 3 modes (results/ladder/default_4096.json) and every
rung's 8 (results/ladder/all_rungs_4096.json), then times `report` and
`compare` (the record against itself) in fresh processes, and prints the
medians of the wall time and of the CPU time (user + sys: what a busy host
leaves of the wall time). No GPU needed.

    python benchmarks/report_speed.py [rounds] [repeats] [every-rung|default-ladder]

(200,000 rounds, 3 repeats, both records by default.)
"""

import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"default ladder": ROOT / "results/ladder/default_4096.json",
           "every rung": ROOT / "results/ladder/all_rungs_4096.json"}


def jittered(value, rng):
    return float(value * (1 + 0.01 * rng.standard_normal()))


def big_record(rounds: int, source: Path = SOURCES["every rung"]) -> dict:
    record = json.loads(source.read_text())
    rng = np.random.default_rng(1)
    run = record["runs"][0]
    run["rounds"] = rounds
    for samples in run["modes"].values():
        for key in ("wall_us", "submit_us", "device_us"):
            median = float(np.median(samples[key]))
            samples[key] = [float(x) for x in median * (1 + 0.01 * rng.standard_normal(rounds))]
    conditions = run["conditions"]
    run["conditions"] = []
    for i in range(rounds):
        one = json.loads(json.dumps(conditions[i % len(conditions)]))
        for reading in [*one.get("busy", {}).values(), *one.get("submit", {}).values()]:
            reading["us"] = jittered(reading["us"], rng)
        run["conditions"].append(one)
    record.pop("summary", None)
    return record


def timed(args: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + sys) seconds of one graphbench command in a fresh process."""
    before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([sys.executable, "-m", "graphbench", *args], cwd=ROOT,
                   stdout=subprocess.DEVNULL)  # compare may exit 2
    wall, after = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(rounds=200_000, repeats=3, which=None):
    for name, source in SOURCES.items():
        if which and name != which.replace("-", " "):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "big.json"
            path.write_text(json.dumps(big_record(rounds, source)))
            times = {c: {"wall": [], "cpu": []} for c in ("report", "compare")}
            for _ in range(repeats):
                for command, args in (("report", [str(path)]), ("compare", [str(path)] * 2)):
                    wall, cpu = timed([command, *args])
                    times[command]["wall"].append(wall)
                    times[command]["cpu"].append(cpu)
            size = path.stat().st_size / 1e6
        print(json.dumps({"record": name, "rounds": rounds, "megabytes": round(size, 1),
                          **{f"{c}_{k}_s_median": round(statistics.median(v), 2)
                             for c, kinds in times.items() for k, v in kinds.items()},
                          **{f"{c}_{k}_s": [round(x, 2) for x in v]
                             for c, kinds in times.items() for k, v in kinds.items()}}))


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]), *sys.argv[3:4])
