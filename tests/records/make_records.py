"""Regenerate the synthetic record files the comparison tests read.

    python tests/records/make_records.py

They are built by graphbench's own record code from synthetic per-round
samples (tests/conftest.py), so they have exactly the shape `graphbench run
--json` writes; the numbers are H200-like but made up.
"""

import json
import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

from conftest import device_info, make_record, synthetic_point  # noqa: E402

from graphbench.stats.merge import merge_runs  # noqa: E402
from graphbench.stats.summary import summary_document  # noqa: E402
from graphbench.config import RunConfig, SweepConfig  # noqa: E402
from graphbench.measure.sweep import run_sweep  # noqa: E402
from graphbench.record.codec import run_document, write_json, write_record  # noqa: E402

BASE = {"individual": 14.0, "graph": 4.3, "fused": 4.6}


def scaled(**factors):
    return {mode: us * factors.get(mode, 1.0) for mode, us in BASE.items()}


def fail_open_cases(current) -> dict:
    """Records a gate once passed although it could not judge them."""
    run = current.runs[0]
    no_busy = tuple(replace(c, busy={}) for c in run.conditions)
    return {
        "failed_verification": make_record(BASE, rounds=20, seed=2, passed=False),
        "zero_rounds": replace(current, runs=(replace(run, modes={}, rounds=0, conditions=()),)),
        "no_busy": replace(current, runs=(replace(run, conditions=no_busy),)),
        "without_fused": make_record({"individual": 14.0, "graph": 4.3}, rounds=20, seed=9),
    }


def baseline(processes: int = 3):
    """A baseline of the fewest processes the gate accepts (CI makes 5), each its own seed."""
    return merge_runs([make_record(BASE, rounds=20, seed=100 + i) for i in range(processes)])


def main() -> None:
    records = {
        "baseline": baseline(),
        "one_process_baseline": make_record(BASE, rounds=20, seed=1),
        "same_code": make_record(BASE, rounds=20, seed=2),
        "graph_slower_20": make_record(scaled(graph=1.2), rounds=20, seed=3),
        "graph_faster_20": make_record(scaled(graph=0.8), rounds=20, seed=4),
        "within_noise_2": make_record(scaled(graph=1.02), rounds=20, seed=5),
        "noisy_graph_slower": make_record(scaled(graph=1.15), rounds=20, seed=6, noise=0.3),
        "other_device_slower_times": make_record(scaled(individual=1.3, graph=1.3, fused=1.3),
                                                 rounds=20, seed=7,
                                                 info=device_info(name="NVIDIA H100 80GB HBM3")),
        "other_elements": make_record(BASE, rounds=20, seed=8, elements=65536),
    }
    records.update(fail_open_cases(records["same_code"]))
    for name, record in records.items():
        write_record(HERE / f"{name}.json", record, summary_document)
    nan = run_document(records["same_code"], summary_document)
    nan["runs"][0]["modes"]["graph"]["wall_us"][2] = "nan"  # version 1's own spelling of NaN
    write_json(HERE / "nan_samples.json", nan)
    write_json(HERE / "null_config.json", {**run_document(records["same_code"]), "config": None})
    future = dict(run_document(records["baseline"]), schema_version=99)
    write_json(HERE / "future_schema.json", future)
    text = json.dumps(run_document(records["baseline"]))
    (HERE / "truncated.json").write_text(text[: len(text) // 2])
    (HERE / "corrupted.json").write_text("\x00\x17 not json at all {{{")
    sweep = SweepConfig((4096, 65536, 1 << 20, 1 << 24), (1, 4), base=RunConfig(iters=None))
    write_record(HERE / "sweep.json", run_sweep(sweep, synthetic_point), summary_document)


if __name__ == "__main__":
    main()
