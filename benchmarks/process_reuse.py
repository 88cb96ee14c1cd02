"""Several runs in one process, as the Python API and the pytest plugin make
them: is each measured as a fresh process would measure it?

Three `graphbench.run` calls of the built-in pipeline file (the first in
this process, the later ones in a fresh process each: graphbench.runner.
measure_one), then two of the same pipeline as an object (which stays in
this process): each run's median busy time, the runs its record says came
before it in its process, and its warnings' codes.

    PYTHONPATH=. python3 benchmarks/process_reuse.py --elements 4096
"""

from __future__ import annotations

import argparse
import statistics

import graphbench
from graphbench.stats.summary import summarize_run
from graphbench.pipeline.files import load_pipeline
from graphbench.runner import fresh_process_needed


def line(kind: str, index: int, record) -> str:
    busy = statistics.median(record.samples("individual", "busy"))
    codes = [w.code for w in summarize_run(record).warnings]
    return (f"{kind} run {index}: busy {busy:.3f} us, earlier_runs "
            f"{record.runs[0].environment.earlier_runs}, warnings {codes}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", default="4096")
    args = parser.parse_args()
    print("before any run: a fresh process needed:", fresh_process_needed(0), flush=True)
    for index in (1, 2, 3):
        print(line("file", index, graphbench.run(elements=args.elements)), flush=True)
    for index in (1, 2):
        record = graphbench.run(load_pipeline(None).spec, elements=args.elements)
        print(line("object", index, record), flush=True)


if __name__ == "__main__":
    main()
