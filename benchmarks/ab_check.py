"""The A/B gate on a GPU: identical sources, a build with about 5% more GPU
time per iteration (tests/slow_build.py --work 14), and a build whose
stages launch one extra empty kernel per iteration (a host-side regression),
each in fresh processes.

    PYTHONPATH=. python3 benchmarks/ab_check.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = str(ROOT / "kernels" / "pipeline.cu")
SLOW_5_PERCENT_WORK = 14  # slow_build.py --work: about 5% more GPU time per pipeline


def child_extra_launch(record_path: str) -> None:
    """One A/B run whose candidate stages launch one extra empty kernel each
    iteration (a host-side regression no kernel source can express)."""
    from graphbench.config import RunConfig
    from graphbench.measure import pipeline as pipeline_module
    from graphbench.runner import run_benchmark
    from graphbench.measure.device import describe, open_device
    from graphbench.measure.session import load_kernels
    from graphbench.record.codec import write_record

    from graphbench.pipeline.files import load_pipeline, plan

    original = pipeline_module.Pipeline._set_kernels

    def with_extra(self, kernels):
        original(self, kernels)
        if kernels.get("extra_launch"):
            first = self.stage_launches[0]
            self.stage_launches.append(pipeline_module.Launch(kernels["empty"], first.config, ()))

    pipeline_module.Pipeline._set_kernels = with_extra
    built_in = plan(load_pipeline(None).spec, RunConfig().elements)
    kernels = {**load_kernels(describe(open_device(0)).arch, load_pipeline(None).source, built_in),
               "extra_launch": True}
    write_record(record_path, run_benchmark(RunConfig(ab_source=SHIPPED), kernels=kernels))


def run_case(argv: list[str], record_path: str) -> dict:
    from graphbench.gate.ab import compare_ab
    from graphbench.record.codec import read_run

    done = subprocess.run(argv, capture_output=True, text=True)
    record = read_run(record_path)
    comparison = compare_ab(record)
    return {"rc": done.returncode, "passed": comparison.passed,
            "regressions": [v.metric for v in comparison.regressions],
            "ratios": {v.metric: round(1 + v.change, 4) for v in comparison.verdicts
                       if v.change is not None}}


def cases(folder: Path) -> list[tuple[str, int, list[str]]]:
    sys.path.insert(0, str(ROOT / "tests"))
    from slow_build import slow_source

    slow = folder / "slow5.cu"
    slow.write_text(slow_source(work=SLOW_5_PERCENT_WORK))
    gb = [sys.executable, "-m", "graphbench", "run", "--no-progress", "--ab", SHIPPED]
    return ([("identical", i, gb + ["--json"]) for i in range(10)] +
            [("gpu_5_percent", i, gb + ["--kernel-source", str(slow), "--json"]) for i in range(5)] +
            [("extra_empty_kernel", i, [sys.executable, __file__, "--child"]) for i in range(5)])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    parser.add_argument("--child", metavar="RECORD", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child_extra_launch(args.child)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, index, argv in cases(folder):
            record = str(folder / f"{name}_{index}.json")
            result = {"case": name, **run_case(argv + [record], record)}
            results.append(result)
            print(json.dumps(result))
    for name in ("identical", "gpu_5_percent", "extra_empty_kernel"):
        mine = [r for r in results if r["case"] == name]
        print(f"{name}: {sum(r['passed'] for r in mine)} of {len(mine)} passed; "
              f"exit codes {[r['rc'] for r in mine]}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
