"""Coverage of the median's 95% interval on real rounds: cut long runs into
windows, and count how often a window's interval covers the whole run's
median (within one process, so the between-process spread is not in it).

    python benchmarks/window_coverage.py RECORD.json... [--json OUT]

For each record, series are the speedup (individual/graph round ratios)
and every mode's wall times. Windows of 20, 30, 60 and 100 rounds start
every 10 rounds. Beside graphbench's interval, the order-statistic interval
for independent rounds (scipy.stats.quantile_test) shows what correlation
does to a naive one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's graphbench

from graphbench.analyze.intervals import lag1_autocorrelation, median_interval  # noqa: E402
from graphbench.record.codec import read_record  # noqa: E402

WINDOWS = (20, 30, 60, 100)
STRIDE = 10


def series_of(record) -> dict[str, list[float]]:
    walls = {m: list(record.samples(m, "wall")) for m in record.mode_names}
    out = {f"{m}.wall": v for m, v in walls.items()}
    if "individual" in walls and "graph" in walls:
        out["speedup"] = [a / b for a, b in zip(walls["individual"], walls["graph"])]
    return out


def naive_covers(window: np.ndarray, truth: float) -> bool:
    from scipy import stats

    ci = stats.quantile_test(window, q=float(np.median(window))).confidence_interval(0.95)
    return ci.low <= truth <= ci.high


def coverage(values: list[float]) -> dict:
    data = np.asarray(values, dtype=float)
    truth = float(np.median(data))
    result = {"rounds": int(data.size), "lag1": round(lag1_autocorrelation(data), 3)}
    for n in WINDOWS:
        starts = range(0, data.size - n + 1, STRIDE)
        hits = naive = 0
        for start in starts:
            window = data[start:start + n]
            interval = median_interval(window, 0.95)
            hits += interval.valid and interval.low <= truth <= interval.high
            naive += naive_covers(window, truth)
        count = len(starts)
        if count:
            result[str(n)] = {"windows": count, "graphbench": round(hits / count, 3),
                              "independent": round(naive / count, 3)}
    return result


def main(argv: list[str]) -> int:
    out_path = argv[argv.index("--json") + 1] if "--json" in argv else None
    paths = [a for a in argv if a.endswith(".json") and a != out_path]
    table, totals = {}, {}
    for path in paths:
        record = read_record(path)
        for name, values in series_of(record).items():
            found = coverage(values)
            table[f"{Path(path).name}:{name}"] = found
            for n in WINDOWS:
                if str(n) in found:
                    entry = totals.setdefault(n, [0, 0.0, 0.0])
                    entry[0] += found[str(n)]["windows"]
                    entry[1] += found[str(n)]["graphbench"] * found[str(n)]["windows"]
                    entry[2] += found[str(n)]["independent"] * found[str(n)]["windows"]
            print(f"{Path(path).name:34} {name:18} lag1 {found['lag1']:+.2f}  " + "  ".join(
                f"{n}: {found[str(n)]['graphbench']:.2f}/{found[str(n)]['independent']:.2f}"
                for n in WINDOWS if str(n) in found))
    summary = {n: {"windows": c, "graphbench": round(g / c, 3), "independent": round(i / c, 3)}
               for n, (c, g, i) in totals.items()}
    for n, s in summary.items():
        print(f"all series, {n}-round windows: graphbench {s['graphbench']:.3f}, "
              f"independent-rounds interval {s['independent']:.3f} ({s['windows']} windows)")
    if out_path:
        Path(out_path).write_text(json.dumps({"series": table, "all": summary}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
